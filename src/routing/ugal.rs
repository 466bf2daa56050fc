//! `ugal`: UGAL-L (Kim et al.; seed 003 §IV-B: "selecting the path with the smallest value upon
//! multiplication of the local queue length and the hop count"). Per packet, at the source switch, the
//! minimal path competes with one Valiant path through a random intermediate: each is weighed by the
//! occupancy of the least occupied buffer its first hop may enter, times its switch hops plus one (the
//! node link); the lighter wins, ties going to the minimal path. Quiet networks therefore route minimally.

use super::{NetView, PathChoice, SwitchPaths, random_intermediate};
use crate::error::Result;
use crate::rng::Rng;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn PathChoice>> = Entry {
    name: "ugal",
    keys: &[],
    help: "UGAL-L: minimal or Valiant per packet by local queue x hops (seed 003)",
    build: |_| Ok(Box::new(Ugal::default())),
};

/// UGAL-L with the topology's switch distances.
#[derive(Debug, Clone, Default)]
pub struct Ugal {
    paths: SwitchPaths,
}

impl PathChoice for Ugal {
    fn spec(&self) -> String {
        "ugal".to_string()
    }
    fn prepare(&mut self, topo: &dyn Topology) -> Result<()> {
        self.paths = SwitchPaths::new("ugal", topo)?;
        Ok(())
    }
    fn intermediate(
        &mut self,
        net: &mut dyn NetView,
        rng: &mut Rng,
        src: u32,
        dest: u32,
    ) -> Option<u32> {
        let via = random_intermediate(net, rng, src, dest)?;
        let (src_sw, dst_sw, via_sw) =
            (net.switch_of(src), net.switch_of(dest), net.switch_of(via));
        let minimal_hops = u64::from(self.paths.distance(src_sw, dst_sw)) + 1;
        let valiant_hops =
            u64::from(self.paths.distance(src_sw, via_sw) + self.paths.distance(via_sw, dst_sw))
                + 1;
        let minimal = net.first_hop_queue(src, dest) * minimal_hops;
        let valiant = net.first_hop_queue(src, via) * valiant_hops;
        (valiant < minimal).then_some(via)
    }
}
