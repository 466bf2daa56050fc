//! Topology-agnostic minimal adaptive routing with an up*/down* escape path, for irregular graphs
//! (seed 002's DSN and DLN, `graph:file=`): the scheme seed 002's reference [10] applies to
//! irregular networks, built from Duato's theory and Autonet's up*/down* routing.
//!
//! **Up*/down* order.** A breadth-first spanning tree from a root of least eccentricity ranks every
//! switch by (BFS level, id); a link is *up* towards the lower rank and *down* towards the higher.
//! A legal up*/down* route takes zero or more up links, then zero or more down links, never an up link
//! after a down link. Such routes exist between every pair (up the tree to the root, down the tree), and
//! their channel dependencies are acyclic: up-to-up and down-to-down dependencies follow the rank order
//! and no down channel waits on an up one. [`UpDown`] holds, per destination, the shortest legal
//! distance from every switch and the shortest down-only distance (breadth-first over the rank order).
//!
//! **Two virtual channels.** VC 1 is *adaptive*: every neighbour one hop closer by BFS distance (any
//! minimal path, cycles allowed). VC 0 is the *escape* channel: the shortest legal up*/down* next hops,
//! down-only when the packet arrived on the escape channel over a down link, otherwise starting afresh
//! (up allowed). Every packet is offered both at every switch; the engine takes an escape choice only
//! when every adaptive next buffer is full, and a packet may return from the escape channel to adaptive
//! ones at the next switch.
//!
//! **Deadlock freedom** by Duato's condition for cut-through networks (Duato, IEEE TPDS 7(8), 1996): the
//! escape subfunction is connected (a legal route exists from every switch, and a down-only one from
//! wherever a down escape hop leads, since it is taken only towards such a route) and its channel
//! dependency graph is acyclic (up*/down*). Under virtual cut-through a blocked packet sits whole in one
//! buffer, so it holds no chain of channels and only direct dependencies between escape channels count:
//! leaving the escape channel for adaptive ones and entering it again afresh creates none. Tested: with
//! the escape choices removed, DLN deadlocks under 3M; with them every workload completes, even with
//! one-packet queues.

use super::RouteChoice;
use super::table_routing::{DistanceTable, SwitchGraph};
use rayon::prelude::*;

/// Virtual channel of the up*/down* escape path.
pub const ESCAPE_VC: u32 = 0;
/// Virtual channel of minimal adaptive hops.
pub const ADAPTIVE_VC: u32 = 1;
/// Virtual channels the routing needs.
pub const UPDOWN_VCS: u32 = 2;

/// No down-only route.
const NONE: u16 = u16::MAX;

/// The up*/down* order of a switch graph and its legal distances.
#[derive(Debug, Clone)]
pub struct UpDown {
    n: usize,
    /// Position of each switch in (BFS level from the root, id) order; a link to a lower rank is up.
    rank: Vec<u32>,
    /// `legal[d * n + x]`: fewest hops of a legal up*/down* route from switch x to switch d.
    legal: Vec<u16>,
    /// `down[d * n + x]`: fewest hops of a down-only route from x to d, [`NONE`] if there is none.
    down: Vec<u16>,
}

impl UpDown {
    /// Orders `g` from a root of least eccentricity (lowest id among equals) and tabulates the legal
    /// distances to every destination (one pass per destination, in parallel).
    pub fn new(g: &SwitchGraph, table: &DistanceTable) -> Self {
        let n = g.switches() as usize;
        let root = (0..n as u32)
            .min_by_key(|&s| {
                let ecc = (0..n as u32).map(|t| table.distance(s, t)).max();
                (ecc, s)
            })
            .unwrap_or(0);
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&s| (table.distance(root, s), s));
        let mut rank = vec![0u32; n];
        for (i, &s) in order.iter().enumerate() {
            rank[s as usize] = i as u32;
        }
        let columns: Vec<(Vec<u16>, Vec<u16>)> = (0..n as u32)
            .into_par_iter()
            .map(|d| {
                let mut down = vec![NONE; n];
                down[d as usize] = 0;
                // Down-only: from the highest rank to the lowest, via neighbours of higher rank.
                for &x in order.iter().rev() {
                    if x == d {
                        continue;
                    }
                    let best = g
                        .neighbours(x)
                        .iter()
                        .filter(|&&y| rank[y as usize] > rank[x as usize])
                        .map(|&y| down[y as usize])
                        .min()
                        .unwrap_or(NONE);
                    if best != NONE {
                        down[x as usize] = best + 1;
                    }
                }
                // Legal: down-only, or one up link to a lower rank first (lowest rank first).
                let mut legal = down.clone();
                for &x in &order {
                    let up = g
                        .neighbours(x)
                        .iter()
                        .filter(|&&y| rank[y as usize] < rank[x as usize])
                        .map(|&y| legal[y as usize].saturating_add(1))
                        .min()
                        .unwrap_or(NONE);
                    legal[x as usize] = legal[x as usize].min(up);
                }
                (legal, down)
            })
            .collect();
        let mut legal = Vec::with_capacity(n * n);
        let mut down = Vec::with_capacity(n * n);
        for (l, d) in columns {
            legal.extend(l);
            down.extend(d);
        }
        UpDown {
            n,
            rank,
            legal,
            down,
        }
    }

    /// Fewest hops of a legal up*/down* route from switch `a` to switch `b`.
    #[cfg(test)]
    fn legal_distance(&self, a: u32, b: u32) -> u32 {
        u32::from(self.legal[b as usize * self.n + a as usize])
    }

    /// Whether the link from `a` to its neighbour `b` goes up.
    pub fn goes_up(&self, a: u32, b: u32) -> bool {
        self.rank[b as usize] < self.rank[a as usize]
    }

    /// Appends the escape (VC 0) next hops from `switch` towards switch `dsw`: shortest legal ones, or
    /// shortest down-only ones when `down_only`.
    fn escape_hops(
        &self,
        g: &SwitchGraph,
        switch: u32,
        dsw: u32,
        down_only: bool,
        out: &mut Vec<RouteChoice>,
    ) {
        let column = dsw as usize * self.n;
        let (legal, down) = (&self.legal[column..], &self.down[column..]);
        let here = if down_only {
            down[switch as usize]
        } else {
            legal[switch as usize]
        };
        let base = g.nodes_on(switch);
        for (i, &y) in g.neighbours(switch).iter().enumerate() {
            let via = if self.goes_up(switch, y) {
                if down_only {
                    continue;
                }
                legal[y as usize]
            } else {
                down[y as usize]
            };
            if via != NONE && via + 1 == here {
                out.push(RouteChoice {
                    port: base + i as u32,
                    vc: ESCAPE_VC,
                    bubble: false,
                    escape: true,
                });
            }
        }
    }

    /// Appends the choices at `switch` for a packet bound for node `dest` that arrived on `in_port`,
    /// VC `in_vc` (see the module doc).
    #[allow(clippy::too_many_arguments)]
    pub fn route(
        &self,
        g: &SwitchGraph,
        table: &DistanceTable,
        switch: u32,
        in_port: u32,
        in_vc: u32,
        dest: u32,
        out: &mut Vec<RouteChoice>,
    ) {
        let Some(dsw) = g.target_or_eject(switch, dest, out) else {
            return;
        };
        let local = g.nodes_on(switch);
        // Arrived on the escape channel over a down link: the escape path continues down only.
        let down_only = in_port >= local
            && in_vc == ESCAPE_VC
            && !self.goes_up(g.neighbours(switch)[(in_port - local) as usize], switch);
        out.extend(table.minimal_ports(g, switch, dsw).map(|port| RouteChoice {
            port,
            vc: ADAPTIVE_VC,
            bubble: false,
            escape: false,
        }));
        self.escape_hops(g, switch, dsw, down_only, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Endpoint;

    /// A 6-ring: root 0 (every switch has eccentricity 3; lowest id), levels 0,1,2,3,2,1.
    #[test]
    fn ring_order_and_legal_distances() {
        let edges: Vec<(u32, u32)> = (0..6).map(|i| (i, (i + 1) % 6)).collect();
        let g = SwitchGraph::new("ring", &[1; 6], &edges).unwrap();
        let t = DistanceTable::new("ring", &g).unwrap();
        let ud = UpDown::new(&g, &t);
        assert!(ud.goes_up(1, 0) && ud.goes_up(5, 0), "0 is the root");
        // Ranks by (level, id): 0, 1, 5, 2, 4, 3. Link 2-3 goes up from 3 to 2.
        assert!(ud.goes_up(3, 2) && !ud.goes_up(2, 3) && ud.goes_up(4, 5));
        // 2 -> 4: the minimal path 2-3-4 goes down (2 -> 3) then up (3 -> 4): illegal. The legal
        // route climbs 2 -> 1 -> 0 -> 5 -> 4.
        assert_eq!(t.distance(2, 4), 2);
        assert_eq!(ud.legal_distance(2, 4), 4);
        // 4 -> 3 is down (3 ranks last) and 3 -> 2 up: illegal too; legal is 4 -> 5 -> 0 -> 1 -> 2.
        assert_eq!(ud.legal_distance(4, 2), 4);
        assert_eq!(ud.legal_distance(3, 1), 2, "3 -> 2 -> 1, all up");
        for a in 0..6 {
            for b in 0..6 {
                assert!(ud.legal_distance(a, b) >= t.distance(a, b));
            }
        }
    }

    /// Following escape choices only, from every switch to every other of a random irregular graph:
    /// the route is legal (no up link after a down link) and as long as the legal distance.
    #[test]
    fn escape_routes_are_legal_and_shortest() {
        let n = 40u32;
        let mut edges: Vec<(u32, u32)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..30 {
            let (a, b) = (rng.below(n), rng.below(n));
            if a != b
                && !edges
                    .iter()
                    .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
            {
                edges.push((a, b));
            }
        }
        let g = SwitchGraph::new("random", &vec![1; n as usize], &edges).unwrap();
        let t = DistanceTable::new("random", &g).unwrap();
        let ud = UpDown::new(&g, &t);
        let mut out = Vec::new();
        for src in 0..n {
            for dst in (0..n).filter(|&d| d != src) {
                let (mut at, mut in_port, mut in_vc) = (src, 0, 0);
                let (mut hops, mut went_down) = (0, false);
                while at != dst {
                    out.clear();
                    ud.route(&g, &t, at, in_port, in_vc, dst, &mut out);
                    let c = *out
                        .iter()
                        .find(|c| c.escape)
                        .expect("escape always offered");
                    let Endpoint::Switch { switch, port } = g.neighbour(at, c.port) else {
                        panic!("escape hop to a node");
                    };
                    let up = ud.goes_up(at, switch);
                    assert!(!(up && went_down), "{src} -> {dst}: up after down at {at}");
                    went_down |= !up;
                    (at, in_port, in_vc, hops) = (switch, port, c.vc, hops + 1);
                }
                assert_eq!(hops, ud.legal_distance(src, dst), "{src} -> {dst}");
            }
        }
    }

    /// On the irregular families with `route=adaptive`, for every pair: the adaptive choices alone give
    /// BFS-minimal routes, the escape choices alone reach the destination, and so does any mix.
    #[test]
    fn every_pair_is_reached_minimal_adaptive_or_by_escape() {
        use crate::rng::Rng;
        use crate::topology::{build, switch_distances, trace_route};
        for spec in [
            "dln:n=64,x=4,seed=3,route=adaptive",
            "dsn:n=48,x=3,route=adaptive",
            "dsnf:n=40,route=adaptive",
        ] {
            let topo = build(spec).unwrap();
            assert_eq!((topo.spec(), topo.virtual_channels()), (spec.into(), 2));
            let mut rng = Rng::new(1);
            for src in 0..topo.nodes() {
                let dist = switch_distances(topo.as_ref(), topo.node_attachment(src).0);
                for dst in (0..topo.nodes()).filter(|&d| d != src) {
                    let minimal = dist[topo.node_attachment(dst).0 as usize] + 2;
                    let adaptive = trace_route(topo.as_ref(), src, dst, |c| {
                        c.iter().position(|c| !c.escape).unwrap_or(0)
                    });
                    assert_eq!(adaptive, Ok(minimal), "{spec}: {src} -> {dst}");
                    let escape = trace_route(topo.as_ref(), src, dst, |c| {
                        c.iter().position(|c| c.escape).unwrap_or(0)
                    });
                    assert!(
                        escape.as_ref().is_ok_and(|&h| h >= minimal),
                        "{spec}: {escape:?}"
                    );
                    let mixed = trace_route(topo.as_ref(), src, dst, |c| {
                        rng.below(c.len() as u32) as usize
                    });
                    assert!(
                        mixed.as_ref().is_ok_and(|&h| h >= minimal),
                        "{spec}: {mixed:?}"
                    );
                }
            }
        }
    }
}
