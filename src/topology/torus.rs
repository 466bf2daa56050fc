//! The k-ary n-cube torus (seed 000's torus baseline) with dimension-order routing.
//!
//! Links: k^n * n between routers plus N node links (seed 000 Table 3); k >= 3 so that the two
//! neighbours of a ring are distinct (k = 2 is the hypercube). DOR alone deadlocks on the rings, so one
//! of two classical remedies is applied, chosen with `deadlock=`:
//! - `bubble` (default, as INSEE, the simulator of seed 004, does): one virtual channel; a packet that
//!   enters a ring (from the node or from another dimension) needs room for two packets in the next
//!   buffer, continuing along a ring needs room for one. A free packet slot always remains in every ring.
//! - `dateline`: two virtual channels; a packet uses VC 0 in each dimension until it crosses that
//!   dimension's wraparound link, then VC 1 (Dally and Seitz), which breaks every ring's cycle.
//!
//! A destination exactly half-way round a ring (even k) is as near either way. With `ties=random`
//! (default, as Booksim's `dor_next_torus`) each packet picks the direction of each such dimension at
//! random when it enters that ring (one bit of its per-packet salt, fixed for the packet and
//! deterministic for the seed), so both directions carry equal load; `ties=plus` always goes the +
//! way, as earlier versions did (the + links then carry 25% more under uniform traffic on an 8-ary
//! ring). Either way a packet moves in one direction around each ring, so both deadlock remedies hold
//! unchanged: the bubble rule applies on entering the ring whichever way, and each direction of a ring
//! has its own dateline.

use super::bisection::Bisection;
use super::kary_ncube::{Cube, wired_by_cube};
use super::{RouteChoice, Topology};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "torus",
    keys: &["k", "n", "deadlock", "ties"],
    help: "k-ary n-cube with wraparound, DOR; deadlock=bubble|dateline, ties=random|plus (half-way)",
    build: |p| {
        let k = p.u32_in("k", None, 3, 1 << 20)?;
        let n = p.u32_in("n", None, 1, 16)?;
        let dateline = p.choice("deadlock", "bubble", &["bubble", "dateline"])? == "dateline";
        let plus_ties = p.choice("ties", "random", &["random", "plus"])? == "plus";
        let spec = format!("torus:k={k},n={n}");
        Ok(Box::new(Torus {
            cube: Cube::new(&spec, k, n, true)?,
            dateline,
            plus_ties,
        }))
    },
};

/// A k-ary n-cube torus.
#[derive(Debug, Clone)]
pub struct Torus {
    cube: Cube,
    dateline: bool,
    /// Half-way destinations always go the + way (`ties=plus`), not a random way per packet.
    plus_ties: bool,
}

impl Topology for Torus {
    fn spec(&self) -> String {
        let mut spec = format!("torus:k={},n={}", self.cube.k, self.cube.n);
        if self.dateline {
            spec += ",deadlock=dateline";
        }
        if self.plus_ties {
            spec += ",ties=plus";
        }
        spec
    }
    wired_by_cube!();
    /// Even k: 2 k^(n-1), the middle plane of one dimension and its wraparound plane (seed 000 Table 1's
    /// bisection bandwidth 4N/k_d counts these 2N/k links in both directions; Dally and Towles,
    /// Principles and Practices of Interconnection Networks, 2004, §3.3). Odd k has no even split by
    /// planes, so it is left to the partitioner.
    fn bisection(&self) -> Option<Bisection> {
        let (k, n) = (u64::from(self.cube.k), self.cube.n);
        (k % 2 == 0).then(|| Bisection::closed_form(2 * k.pow(n - 1), self.nodes()))
    }
    /// 2n - 1: every router has 2n links (k >= 3), seed 000 §5.4.
    fn link_faults_tolerated(&self) -> Option<u64> {
        Some(2 * u64::from(self.cube.n) - 1)
    }
    fn virtual_channels(&self) -> u32 {
        if self.dateline { 2 } else { 1 }
    }
    fn bubble_flow_control(&self) -> bool {
        !self.dateline
    }
    fn route(&self, switch: u32, in_port: u32, in_vc: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        self.route_salted(switch, in_port, in_vc, dest, 0, out);
    }
    fn route_salted(
        &self,
        switch: u32,
        in_port: u32,
        in_vc: u32,
        dest: u32,
        salt: u32,
        out: &mut Vec<RouteChoice>,
    ) {
        let minus_ties = if self.plus_ties { 0 } else { salt };
        let Some(hop) = self.cube.dor_hop(switch, dest, minus_ties) else {
            out.push(RouteChoice::port(0));
            return;
        };
        let same_ring = Cube::port_dim(in_port) == Some(hop.dim);
        out.push(if self.dateline {
            let vc = if same_ring { in_vc } else { 0 };
            RouteChoice {
                port: hop.port,
                vc: if hop.wraps { 1 } else { vc },
                bubble: false,
                escape: false,
            }
        } else {
            RouteChoice {
                port: hop.port,
                vc: 0,
                bubble: !same_ring,
                escape: false,
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RouteChoice, build, structure};

    /// Seed 000 Table 3: links = k^n n + N.
    #[test]
    fn table_3_links() {
        for (k, n) in [(4u64, 2u64), (16, 2), (5, 3), (256, 2)] {
            let s = structure(build(&format!("torus:k={k},n={n}")).unwrap().as_ref());
            let nodes = k.pow(n as u32);
            assert_eq!(s.links, nodes * n + nodes, "k={k} n={n}");
            assert_eq!((s.switches, s.radix), (nodes, 2 * n + 1));
        }
    }

    /// Bubble on ring entry only; dateline switches to VC 1 on the wraparound hop.
    #[test]
    fn deadlock_rules() {
        let t = build("torus:k=4,n=2").unwrap();
        let mut out = Vec::new();
        t.route(0, 0, 0, 3, &mut out); // from the node, 0 -> 3 goes - in x across the wrap
        assert_eq!(
            out,
            [RouteChoice {
                port: 2,
                vc: 0,
                bubble: true,
                escape: false,
            }]
        );
        out.clear();
        t.route(1, 2, 0, 3, &mut out); // arrived along x (port 2 of router 1 faces router 0): same ring
        assert!(!out[0].bubble);
        let d = build("torus:k=4,n=2,deadlock=dateline").unwrap();
        out.clear();
        d.route(0, 0, 0, 3, &mut out);
        assert_eq!(
            out,
            [RouteChoice {
                port: 2,
                vc: 1,
                bubble: false,
                escape: false,
            }]
        );
        out.clear();
        d.route(3, 1, 1, 15, &mut out); // turning into y resets to VC 0, but 3 -> 15 wraps: VC 1
        assert_eq!(out[0].vc, 1);
        out.clear();
        d.route(3, 1, 1, 7, &mut out); // y hop 3 -> 7 does not wrap
        assert_eq!(out[0].vc, 0);
    }

    /// Half-way destinations: the salt's bit d picks the direction of dimension d (never with
    /// `ties=plus`); one hop later the rest of the way is shorter in that direction, so it is kept.
    #[test]
    fn half_way_ties_follow_the_salt() {
        let t = build("torus:k=4,n=2").unwrap();
        let port = |sw, in_port, dest, salt| {
            let mut out = Vec::new();
            t.route_salted(sw, in_port, 0, dest, salt, &mut out);
            out[0].port
        };
        assert_eq!((port(0, 0, 2, 0), port(0, 0, 2, 1)), (1, 2)); // x: + or -
        assert_eq!((port(0, 0, 8, 0), port(0, 0, 8, 2)), (3, 4)); // y uses bit 1
        assert_eq!(port(0, 0, 8, 1), 3); // bit 0 is x's
        assert_eq!((port(1, 2, 2, 0), port(3, 1, 2, 0)), (1, 2)); // continuing + or - after one hop
        assert_eq!(port(0, 0, 1, 1), 1); // not a tie: salt ignored
        let plus = build("torus:k=4,n=2,ties=plus").unwrap();
        assert_eq!(plus.spec(), "torus:k=4,n=2,ties=plus");
        let mut out = Vec::new();
        plus.route_salted(0, 0, 0, 2, 1, &mut out);
        assert_eq!(out[0].port, 1);
        assert!(build("torus:k=4,n=2,ties=minus").is_err());
    }
}
