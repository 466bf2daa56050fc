//! `ugal`: UGAL-L (Kim et al.; seed 003 §IV-B: "selecting the path with the smallest value upon
//! multiplication of the local queue length and the hop count"). Per packet, at the source switch, the
//! minimal path competes with one Valiant path through a random intermediate: each is weighed by its
//! first hop's local queue, times its switch hops plus one (the node link); the Valiant path wins only
//! when the minimal path's queue exceeds the Valiant one's, scaled by the hop ratio, by more than a
//! *minimal bias* of `threshold` phits: q_min x h_min > q_val x h_val + threshold x h_min. Quiet
//! networks therefore route minimally.
//!
//! **The local queue** ([`NetView::first_hop_queue`]) is what the next buffer holds or has been
//! promised (Booksim's used credits) plus the heads of the switch asking for the link, averaged over
//! the last packet time. In an input-queued switch those heads are the output's queue. Credits alone
//! miss it where the switch's own link is the bottleneck: under next-group traffic on a dragonfly the
//! router holding the group's one minimal global link sees that link's next buffer drain at once, so
//! its own nodes always went minimal and UGAL saturated at 0.20 where Valiant carries 0.36 (issue 14).
//!
//! **The bias** follows Booksim2 (`ugal_dragonflynew` in `src/networks/dragonfly.cpp`, @28f4329:
//! minimal unless `min_queue > 2 * nonmin_queue + adaptive_threshold`, "this constant biases the
//! adaptive decision toward minimum routing"). Its 30 flits are for its own measure (the credits of all
//! three VCs of a port, 64 flits each); for this measure the default is 45 phits, the middle of the
//! range where, on the dragonfly p=2, a=4, h=2 with 16-phit packets and 4-packet queues (seed 1,
//! 10,000-cycle window, offered 0.9 uniform and 0.6 next-group), UGAL carries what minimal routing
//! carries under uniform traffic and stays within 10% of Valiant under next-group traffic:
//!
//! | threshold | uniform, UGAL / minimal | next-group, UGAL / Valiant |
//! |---|---|---|
//! | 16 | 0.942 | 1.08 |
//! | 30 | 0.972 | 1.03 |
//! | 40 | 0.989 | 0.95 |
//! | 45 | 1.004 | 0.94 |
//! | 50 | 1.006 | 0.87 |
//!
//! Without any bias (`threshold=0`) UGAL-L detours for one packet of queue difference, which under
//! uniform traffic, where first hops are evenly loaded, doubles hops for nothing (0.58 against 0.65).

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

/// Default minimal bias in phits (see the module notes: Booksim2's `adaptive_threshold` idea, sized
/// for this local-queue measure).
pub const DEFAULT_THRESHOLD: u32 = 45;

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
