//! Dragonfly (seed 003, section II-A, after Kim et al.): g = a h + 1 groups of a routers, routers of a
//! group linked all-to-all by local links, h global links per router, one global link between each pair
//! of groups, p terminals per router; minimal local-global-local routing.
//!
//! Radix `p + a - 1 + h`; `g a` routers; `g a (a - 1) / 2` local plus `g (g - 1) / 2` global links.
//! Global arrangement (the seed does not fix one; we use the consecutive "palmtree" arrangement):
//! global port `k` of router `j` of group `i` has index `e = j h + k` in `0..a h` and leads to group
//! `(i + e + 1) mod g`; it lands there on index `a h - 1 - e`, so every pair of groups is linked once.
//! Minimal routing is the dragonfly's hierarchical one: a local hop to the router holding the global
//! link to the destination group (if it is not the current one), the global hop, a local hop to the
//! destination router (if needed): at most 3 switch-to-switch hops. It is minimal in that sense (the
//! one the literature simulates), not always in graph distance: two global hops can occasionally be
//! shorter than local-global-local. Deadlock freedom by hop-indexed virtual channels (VC = switch hops
//! already taken, see `table_routing.rs`): 3 virtual channels.

use super::bisection::Bisection;
use super::{Endpoint, Packaging, RouteChoice, Topology, check_size};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "dragonfly",
    keys: &["p", "a", "h"],
    help: "dragonfly: p terminals, a routers/group, h global links/router, a*h+1 groups; minimal l-g-l (seed 003)",
    build: |p| {
        let t = p.u32_in("p", None, 1, 4096)?;
        let a = p.u32_in("a", None, 1, 4096)?;
        let h = p.u32_in("h", None, 1, 4096)?;
        let spec = format!("dragonfly:p={t},a={a},h={h}");
        let groups = u64::from(a) * u64::from(h) + 1;
        check_size(&spec, groups * u64::from(a) * u64::from(t))?;
        Ok(Box::new(Dragonfly {
            p: t,
            a,
            h,
            g: groups as u32,
        }))
    },
};

/// A dragonfly. Router `r` is router `r % a` of group `r / a`; ports `0..p` hold terminals,
/// `p..p+a-1` the local links (to the group's other routers in increasing order), then `h` global ports.
#[derive(Debug, Clone)]
pub struct Dragonfly {
    p: u32,
    a: u32,
    h: u32,
    g: u32,
}

impl Dragonfly {
    fn local_port(&self, j: u32, to: u32) -> u32 {
        self.p + if to < j { to } else { to - 1 }
    }
    fn global_base(&self) -> u32 {
        self.p + self.a - 1
    }
    fn hop(&self, in_port: u32, in_vc: u32, port: u32) -> RouteChoice {
        RouteChoice {
            port,
            vc: if in_port < self.p { 0 } else { in_vc + 1 },
            bubble: false,
            escape: false,
        }
    }
}

impl Topology for Dragonfly {
    fn spec(&self) -> String {
        format!("dragonfly:p={},a={},h={}", self.p, self.a, self.h)
    }
    fn nodes(&self) -> u32 {
        self.g * self.a * self.p
    }
    fn switches(&self) -> u32 {
        self.g * self.a
    }
    /// One group per rack (Kim et al.'s cabinet per group, as Slim Fly [4] of seed 003 lays the
    /// dragonfly out), racks on a square grid.
    fn packaging(&self) -> Option<Packaging> {
        Some(Packaging::square((0..self.switches()).collect(), self.a))
    }
    /// An even number of groups g and a >= 2h + 1: (g/2)^2, the global links between two halves of the
    /// groups (Kim et al. 2008; seed 003 Fig. 4 and Table 4 use this cut). It is the minimum under that
    /// condition: route one unit between every ordered pair of routers local-global-local; a global link
    /// carries a^2 units each way and a local one 2ha + 1, at most a^2 when a >= 2h + 1, so a split of
    /// the ga routers in halves, crossed by (ga/2)^2 units each way, cuts at least g^2/4 links. Other
    /// shapes (the balanced a = 2h among them) are left to the partitioner.
    fn bisection(&self) -> Option<Bisection> {
        (self.g.is_multiple_of(2) && self.a > 2 * self.h).then(|| {
            let half = u64::from(self.g / 2);
            Bisection::closed_form(half * half, self.nodes())
        })
    }
    fn ports(&self, _switch: u32) -> u32 {
        self.p + self.a - 1 + self.h
    }
    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        let (i, j) = (switch / self.a, switch % self.a);
        if port < self.p {
            Endpoint::Node(switch * self.p + port)
        } else if port < self.global_base() {
            let l = port - self.p;
            let to = if l < j { l } else { l + 1 };
            Endpoint::Switch {
                switch: i * self.a + to,
                port: self.local_port(to, j),
            }
        } else if port < self.ports(switch) {
            let e = j * self.h + (port - self.global_base());
            let t = (i + e + 1) % self.g;
            let back = self.a * self.h - 1 - e;
            Endpoint::Switch {
                switch: t * self.a + back / self.h,
                port: self.global_base() + back % self.h,
            }
        } else {
            Endpoint::Unplugged
        }
    }
    fn node_attachment(&self, node: u32) -> (u32, u32) {
        (node / self.p, node % self.p)
    }
    /// A router's terminals, then a group's.
    fn locality_blocks(&self) -> Vec<u32> {
        vec![self.p, self.p * self.a]
    }
    fn virtual_channels(&self) -> u32 {
        3
    }
    /// Valiant's intermediate lies in another group (Kim et al. 2008 §4.1): one in the source's or the
    /// destination's group would cross the same global link as the minimal path.
    fn valiant_group(&self, switch: u32) -> u32 {
        switch / self.a
    }
    fn route(&self, switch: u32, in_port: u32, in_vc: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let dsw = dest / self.p;
        let (i, j) = (switch / self.a, switch % self.a);
        let (t, jd) = (dsw / self.a, dsw % self.a);
        let port = if dsw == switch {
            out.push(RouteChoice::port(dest % self.p));
            return;
        } else if i == t {
            self.local_port(j, jd)
        } else {
            let e = (t + self.g - i) % self.g - 1;
            if e / self.h == j {
                self.global_base() + e % self.h
            } else {
                self.local_port(j, e / self.h)
            }
        };
        out.push(self.hop(in_port, in_vc, port));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, check_wiring, switch_distances, trace_route};

    /// Every pair of groups is linked exactly once; routes are local-global-local, never longer
    /// than 3 switch hops, never shorter than the graph distance.
    #[test]
    fn one_global_link_per_group_pair_and_lgl_routes() {
        for spec in [
            "dragonfly:p=2,a=4,h=2",
            "dragonfly:p=1,a=3,h=1",
            "dragonfly:p=1,a=2,h=3",
        ] {
            let t = build(spec).unwrap();
            check_wiring(t.as_ref()).unwrap();
            let d = t.as_ref();
            let (a, groups) = match spec {
                "dragonfly:p=2,a=4,h=2" => (4, 9),
                "dragonfly:p=1,a=3,h=1" => (3, 4),
                _ => (2, 7),
            };
            let mut pairs = vec![0u32; groups * groups];
            for sw in 0..d.switches() {
                for port in 0..d.ports(sw) {
                    if let super::Endpoint::Switch { switch, .. } = d.neighbour(sw, port) {
                        let (g1, g2) = (sw as usize / a, switch as usize / a);
                        if g1 != g2 {
                            pairs[g1 * groups + g2] += 1;
                        }
                    }
                }
            }
            for g1 in 0..groups {
                for g2 in 0..groups {
                    assert_eq!(pairs[g1 * groups + g2], u32::from(g1 != g2), "{spec}");
                }
            }
            for src in 0..d.nodes() {
                let dist = switch_distances(d, d.node_attachment(src).0);
                for dst in 0..d.nodes() {
                    if src != dst {
                        let got = trace_route(d, src, dst, |_| 0).unwrap();
                        let bfs = dist[d.node_attachment(dst).0 as usize] + 2;
                        assert!(got >= bfs && got <= 5, "{spec} {src}->{dst}: {got}");
                    }
                }
            }
        }
    }
}
