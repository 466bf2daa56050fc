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
//! its own nodes always went minimal and UGAL saturated at 0.20 where Valiant carries 0.36.
//!
//! **The bias** follows Booksim2 (`ugal_dragonflynew` in `src/networks/dragonfly.cpp`, @28f4329:
//! minimal unless `min_queue > 2 * nonmin_queue + adaptive_threshold`, "this constant biases the
//! adaptive decision toward minimum routing"). Its 30 flits are for its own measure (the credits of all
//! three VCs of a port, 64 flits each). For this measure the default is 70% of one switch input queue:
//! 45 phits under seed 004's model (4 packets of 16 phits), the middle of the range where, on the
//! dragonfly p=2, a=4, h=2 (seed 1, 10,000-cycle window, offered 0.9 uniform and 0.6 next-group), UGAL
//! carries what minimal routing carries under uniform traffic and stays within 10% of Valiant under
//! next-group traffic:
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
//!
//! **Why a fraction of the queue, not a number of phits.** The local queue is bounded by the next
//! buffer's capacity plus the heads asking, so a fixed bias means a different thing for each buffer
//! size. Seed 003's Fig. 8 runs use single-phit packets and 32-packet queues (`configs/seed003-fig8.toml`):
//! there 45 phits is more than a whole queue, and on its dragonfly (p=4, a=8, h=4) under tornado traffic
//! UGAL carried 0.154 at offered 0.2 (seed 1, 5,000-cycle window, the default FSIN selection); 70% of the queue (22 phits) carries
//! 0.180 there and is level with minimal routing under uniform traffic (0.6213 against 0.6213 at offered
//! 0.65). No bias carries 0.23 under tornado but drops below minimal under uniform traffic (0.539 at
//! 0.55); Valiant is stable at 0.30. UGAL-L's local view is weakest exactly there: a router whose own
//! global link is not the congested one sees the congestion only through its local link's credits.

use super::{NetView, PathChoice, SwitchPaths, random_intermediate};
use crate::error::Result;
use crate::rng::Rng;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn PathChoice>> = Entry {
    name: "ugal",
    keys: &["threshold"],
    help: "UGAL-L: minimal or Valiant per packet by local queue x hops, minimal bias threshold=T phits \
           (default 70% of a switch input queue)",
    build: |p| {
        let threshold = match p.raw("threshold") {
            Some(_) => Some(u64::from(p.u32_in("threshold", None, 0, 1 << 24)?)),
            None => None,
        };
        Ok(Box::new(Ugal {
            threshold,
            paths: SwitchPaths::default(),
        }))
    },
};

/// The default minimal bias, in tenths of one switch input queue's phits (see the module notes:
/// Booksim2's `adaptive_threshold` idea, sized for this local-queue measure).
pub const DEFAULT_BIAS_TENTHS: u64 = 7;

/// The default minimal bias for input queues of `queue_phits` phits: 70% of one, rounded (45 phits
/// for seed 004's 4 packets of 16 phits).
pub fn default_threshold(queue_phits: u64) -> u64 {
    queue_phits
        .saturating_mul(DEFAULT_BIAS_TENTHS)
        .saturating_add(5)
        / 10
}

/// UGAL-L with the topology's switch distances.
#[derive(Debug, Clone)]
pub struct Ugal {
    /// Minimal bias added to the Valiant path's weight, in phits (queue phits x hops); `None`: the
    /// default, [`default_threshold`] of the run's input queues.
    threshold: Option<u64>,
    paths: SwitchPaths,
}

impl PathChoice for Ugal {
    fn spec(&self) -> String {
        match self.threshold {
            None => "ugal".to_string(),
            Some(t) => format!("ugal:threshold={t}"),
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
        let threshold = self
            .threshold
            .unwrap_or_else(|| default_threshold(net.queue_phits()));
        let minimal = net.first_hop_queue(src, dest) * minimal_hops;
        let valiant = net.first_hop_queue(src, via) * valiant_hops;
        (valiant + threshold * minimal_hops < minimal).then_some(via)
    }
}

#[cfg(test)]
mod tests {
    use super::default_threshold;

    /// 70% of the queue, rounded: seed 004's 4 x 16 phits give the sweep's 45, seed 003's 32 x 1 give
    /// 22, and a one-phit queue still has a bias of 1.
    #[test]
    fn default_bias_is_seventy_percent_of_a_queue() {
        assert_eq!(default_threshold(64), 45);
        assert_eq!(default_threshold(32), 22);
        assert_eq!(default_threshold(1), 1);
        assert_eq!(
            default_threshold(u64::MAX),
            u64::MAX / 10,
            "saturates, never wraps"
        );
    }
}
