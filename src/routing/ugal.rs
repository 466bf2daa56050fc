//! `ugal`: UGAL-L (Kim et al.; seed 003 §IV-B: "selecting the path with the smallest value upon
//! multiplication of the local queue length and the hop count"). Per packet, at the source switch, the
//! minimal path competes with one Valiant path through a random intermediate: each is weighed by the
//! occupancy of the least occupied buffer its first hop may enter, times its switch hops plus one (the
//! node link); the Valiant path wins only when the minimal path's queue exceeds the Valiant one's,
//! scaled by the hop ratio, by more than a *minimal bias* of `threshold` phits:
//! q_min x h_min > q_val x h_val + threshold x h_min. Quiet networks therefore route minimally.
//!
//! The bias is Booksim2's (`ugal_dragonflynew` in `src/networks/dragonfly.cpp`, @28f4329: minimal
//! unless `min_queue > 2 * nonmin_queue + adaptive_threshold`, 2 being its hop ratio and
//! `adaptive_threshold = 30` flits, "this constant biases the adaptive decision toward minimum
//! routing"; its reference runs have one flit per phit). Without it UGAL-L takes a Valiant path whenever
//! the minimal first hop holds one packet more, which under uniform traffic, where first hops are
//! evenly loaded, doubles hops for nothing (issue 14: on the dragonfly p=2, a=4, h=2, 4.39 links per
//! packet at load 0.02 and saturation at 0.586 against minimal's 4.37 and 0.660; with the bias 4.37 and
//! 0.646). The bias costs adversarial throughput: under next-group traffic UGAL carries 0.27 with it,
//! 0.33 without, Valiant 0.41 (README, "Valiant and UGAL").

use super::{NetView, PathChoice, SwitchPaths, random_intermediate};
use crate::error::Result;
use crate::rng::Rng;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn PathChoice>> = Entry {
    name: "ugal",
    keys: &["threshold"],
    help: "UGAL-L: minimal or Valiant per packet by local queue x hops, minimal bias threshold=T phits",
    build: |p| {
        let threshold = p.u32_in("threshold", Some(DEFAULT_THRESHOLD), 0, 1 << 24)?;
        Ok(Box::new(Ugal {
            threshold: u64::from(threshold),
            paths: SwitchPaths::default(),
        }))
    },
};

/// Default minimal bias in phits: Booksim2's dragonfly UGAL `adaptive_threshold` (30 flits; its
/// reference configurations use one flit per phit).
pub const DEFAULT_THRESHOLD: u32 = 30;

/// UGAL-L with the topology's switch distances.
#[derive(Debug, Clone)]
pub struct Ugal {
    /// Minimal bias added to the Valiant path's weight, in phits (queue phits x hops).
    threshold: u64,
    paths: SwitchPaths,
}

impl PathChoice for Ugal {
    fn spec(&self) -> String {
        if self.threshold == u64::from(DEFAULT_THRESHOLD) {
            "ugal".to_string()
        } else {
            format!("ugal:threshold={}", self.threshold)
        }
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
        (valiant + self.threshold * minimal_hops < minimal).then_some(via)
    }
}
