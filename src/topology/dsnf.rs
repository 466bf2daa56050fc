//! DSN-F (seed 002, section III-B): the distributed shortcut network with flexible expansion, one node
//! per switch, with the custom routing of Fig. 2.
//!
//! p is the integer with `p 2^p <= n < (p + 1) 2^(p+1)`, N = p 2^p. Switch i has level `l = i mod p + 1`,
//! layer `k = i / N` and super-node `s = (i / p) mod 2^p`. Links: Local_Pred/Local_Succ between levels
//! l and l +- 1 (cyclically) of the same super-node and layer; Layer_Link from layer k >= 1 to the same
//! level and super-node of layer k - 1; Succ from {p, 0, s} to {1, 0, s + 1}; a Shortcut from each
//! layer-0 node of level l < p to level l + 1 of super-node `s + 2^(p-l)`. In a partly filled last
//! layer a group of m < p nodes is a path (links to missing nodes are absent, the wrap-around closes
//! when the group is full), so adding node n to the n-node network only adds node n's own links: this
//! is the incremental expansion of section III-D, and `dsnf:n=` builds any n. (When n reaches
//! (p + 1) 2^(p+1), p grows: the labelling is that of the transformed network, not a rewiring of the
//! previous one.)
//!
//! Routing (Fig. 2, reconstructed where garbled): outside the destination super-node, climb Layer_Links
//! to layer 0; then with the clockwise super-node distance D, the level to jump from is
//! `l = p - floor(log2 D)` (whose Shortcut goes 2^(p-l) <= D super-nodes; level p takes Succ): move
//! round the local ring to level l, jump, repeat. Fig. 2's `floor(log(2^p / D)) + 1` and `l_u = p - 1`
//! do not reproduce the paper's own worked route (24, 0, 1, 8, 7); ours does. Round the local ring the
//! shorter direction is taken (Fig. 2 says Local_Succ in MAIN-PROCESS; the shorter way never lengthens a
//! route). In the destination super-node: round the layer-0 ring to the destination's level, then down
//! Layer_Links (a source of the same super-node and level goes straight up or down). Routes take at most
//! Theorem 1's `2 (p + K - 1)` hops, K = ceil(n / N) layers (tested for every pair); deadlock freedom by
//! hop-indexed virtual channels (see `table_routing.rs`), `2 (p + K - 1)` of them. With `route=adaptive`
//! the same graph is routed minimal adaptive with an up*/down* escape path instead (`updown.rs`, two
//! virtual channels, at most 4096 switches).

use super::table_routing::{SwitchGraph, TableRouted, TableRouting};
use super::{Endpoint, RouteChoice, Topology};
use crate::spec::Entry;
use std::collections::BTreeSet;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "dsnf",
    keys: &["n", "route"],
    help: "DSN-F: n switches in 2^p super-nodes, layers, shortcuts; route=fig2 (default) or adaptive (up*/down* escape) (seed 002)",
    build: |p| {
        let n = p.u32_in("n", None, 8, 1 << 20)?;
        let dsnf = Dsnf::new(n)?;
        match p.choice("route", "fig2", &["fig2", "adaptive"])? {
            "adaptive" => {
                let order = dsnf.cabinet_order();
                Ok(Box::new(
                    TableRouted::new(
                        format!("dsnf:n={n},route=adaptive"),
                        dsnf.graph,
                        TableRouting::Adaptive,
                    )?
                    .with_locality_blocks(vec![dsnf.p])
                    .with_layout_order(order),
                ))
            }
            _ => Ok(Box::new(dsnf)),
        }
    },
};

/// A DSN-F network of n switches with one node each.
#[derive(Debug, Clone)]
pub struct Dsnf {
    n: u32,
    p: u32,
    graph: SwitchGraph,
}

impl Dsnf {
    fn new(n: u32) -> crate::error::Result<Self> {
        let p = Self::p_for(n);
        let edges = Self::edges(n, p)?;
        let graph = SwitchGraph::new(&format!("dsnf:n={n}"), &vec![1; n as usize], &edges)?;
        Ok(Dsnf { n, p, graph })
    }

    /// The size of the shortcut set for n switches: the integer p with `p 2^p <= n < (p+1) 2^(p+1)`.
    pub(crate) fn p_for(n: u32) -> u32 {
        (1..32)
            .find(|&p| (p + 1) as u64 * (1u64 << (p + 1)) > u64::from(n))
            .unwrap_or(31)
    }

    /// The cables of n switches labelled with shortcut-set size p (section III-B), each once as
    /// (lower id, higher id), in order.
    pub(crate) fn edges(n: u32, p: u32) -> crate::error::Result<Vec<(u32, u32)>> {
        let d = Dsnf {
            n,
            p,
            graph: SwitchGraph::new("dsnf", &[], &[])?,
        };
        let mut edges = BTreeSet::new();
        let mut link = |a: u32, b: u32| {
            if a != b && a < n && b < n {
                edges.insert((a.min(b), a.max(b)));
            }
        };
        for i in 0..n {
            let (l, k, s) = d.label(i);
            if l < p {
                link(i, i + 1); // Local_Succ inside the group
            } else if d.group_full(i) {
                link(i, i + 1 - p); // wrap-around of a full group
            }
            if k >= 1 {
                link(i, i - d.big_n());
            }
            if k == 0 && l == p {
                link(i, d.id(1, 0, (s + 1) % d.supernodes()));
            }
            if k == 0 && l < p {
                link(i, d.id(l + 1, 0, (s + (1 << (p - l))) % d.supernodes()));
            }
        }
        Ok(edges.into_iter().collect())
    }

    fn supernodes(&self) -> u32 {
        1 << self.p
    }
    /// Super-node by super-node, each layer by layer, level by level: the order in which seed 002
    /// §III-E fills its cabinets, so that a super-node's Local_Links and Layer_Links stay inside one
    /// (with p = 4 and 16 switches per cabinet, a cabinet holds whole super-nodes).
    fn cabinet_order(&self) -> Vec<u32> {
        let mut order = Vec::with_capacity(self.n as usize);
        for s in 0..self.supernodes() {
            for k in 0..self.layers() {
                for l in 1..=self.p {
                    let i = self.id(l, k, s);
                    if i < self.n {
                        order.push(i);
                    }
                }
            }
        }
        order
    }
    fn big_n(&self) -> u32 {
        self.p << self.p
    }
    /// Layers K = ceil(n / N).
    fn layers(&self) -> u32 {
        self.n.div_ceil(self.big_n())
    }
    /// (level 1..=p, layer, super-node) of switch i.
    fn label(&self, i: u32) -> (u32, u32, u32) {
        (
            i % self.p + 1,
            i / self.big_n(),
            (i / self.p) % self.supernodes(),
        )
    }
    fn id(&self, l: u32, k: u32, s: u32) -> u32 {
        k * self.big_n() + s * self.p + l - 1
    }
    fn group_full(&self, i: u32) -> bool {
        (i / self.p) * self.p + self.p <= self.n
    }
    /// Theorem 1's routing diameter 2 (p + K - 1).
    fn bound(&self) -> u32 {
        2 * (self.p + self.layers() - 1)
    }

    /// Next switch on the local ring of u's group towards level `to` (shorter way, Succ on ties).
    fn ring_step(&self, u: u32, to: u32) -> u32 {
        let (l, k, s) = self.label(u);
        let fwd = (to + self.p - l) % self.p;
        if fwd <= self.p - fwd {
            self.id(l % self.p + 1, k, s)
        } else {
            self.id((l + self.p - 2) % self.p + 1, k, s)
        }
    }

    /// The next switch from `u` towards switch `j` (u != j), following Fig. 2.
    fn next(&self, u: u32, j: u32) -> u32 {
        let ((lu, ku, su), (lj, kj, sj)) = (self.label(u), self.label(j));
        if su == sj {
            if lu == lj {
                return if ku > kj {
                    u - self.big_n()
                } else {
                    u + self.big_n()
                };
            }
            if ku > 0 {
                return u - self.big_n();
            }
            return self.ring_step(u, lj);
        }
        if ku > 0 {
            return u - self.big_n();
        }
        let delta = (sj + self.supernodes() - su) % self.supernodes();
        let l = self.p - delta.ilog2();
        if lu != l {
            self.ring_step(u, l)
        } else if l == self.p {
            self.id(1, 0, (su + 1) % self.supernodes())
        } else {
            self.id(l + 1, 0, (su + (1 << (self.p - l))) % self.supernodes())
        }
    }
}

impl Topology for Dsnf {
    fn spec(&self) -> String {
        format!("dsnf:n={}", self.n)
    }
    fn layout_order(&self) -> Vec<u32> {
        self.cabinet_order()
    }
    fn nodes(&self) -> u32 {
        self.n
    }
    fn switches(&self) -> u32 {
        self.n
    }
    fn ports(&self, switch: u32) -> u32 {
        self.graph.ports(switch)
    }
    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        self.graph.neighbour(switch, port)
    }
    fn node_attachment(&self, node: u32) -> (u32, u32) {
        (node, 0)
    }
    /// A super-node's layer-0 group of p switches.
    fn locality_blocks(&self) -> Vec<u32> {
        vec![self.p]
    }
    fn virtual_channels(&self) -> u32 {
        self.bound()
    }
    fn route(&self, switch: u32, in_port: u32, in_vc: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        if switch == dest {
            out.push(RouteChoice::port(0));
            return;
        }
        let next = self.next(switch, dest);
        out.extend(self.graph.hop_to(switch, in_port, in_vc, next));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Topology, check_wiring, trace_route};
    use super::Dsnf;

    /// Section III-B's worked example: 24 -> 7 in the 32-node network is (24, 0, 1, 8, 7), and node 0
    /// has its Shortcut to node 13 and its Pred to node 23.
    #[test]
    fn worked_route_24_to_7() {
        let d = Dsnf::new(32).unwrap();
        assert_eq!(d.p, 3);
        let mut path = vec![24];
        while *path.last().unwrap() != 7 {
            path.push(d.next(*path.last().unwrap(), 7));
        }
        assert_eq!(path, [24, 0, 1, 8, 7]);
        for nb in [13, 23, 1, 2, 24] {
            assert!(d.graph.port_to(0, nb).is_some(), "0 - {nb}");
        }
    }

    /// Theorem 1: maximum degree 5 (4 with a single layer), average degree at most 4 (4 exactly with full layers), routes within
    /// 2 (p + K - 1) hops for every pair, for n from 32 to 2048 including sizes between full layers.
    #[test]
    fn theorem_1_degree_and_routing_diameter() {
        for n in [
            32, 33, 50, 64, 100, 160, 255, 384, 600, 896, 1024, 1500, 2048,
        ] {
            let d = Dsnf::new(n).unwrap();
            check_wiring(&d).unwrap();
            let degrees: Vec<u32> = (0..n).map(|s| d.ports(s) - 1).collect();
            let avg = f64::from(degrees.iter().sum::<u32>()) / f64::from(n);
            let max = if n > d.big_n() { 5 } else { 4 };
            assert_eq!(degrees.iter().max(), Some(&max), "n={n}");
            // What `topology --json` reports.
            let stats = super::super::degrees(&d);
            assert_eq!((stats.degree_max, stats.degree_mean), (u64::from(max), avg));
            assert!(avg <= 4.0 && avg > 3.7, "n={n}: average degree {avg}");
            if n % d.big_n() == 0 {
                assert_eq!(avg, 4.0, "n={n}");
            }
            let step = if n > 600 { 7 } else { 1 };
            for src in (0..n).step_by(step) {
                for dst in 0..n {
                    if src != dst {
                        let hops = trace_route(&d, src, dst, |_| 0).unwrap() - 2;
                        assert!(
                            hops <= d.bound(),
                            "n={n} {src}->{dst}: {hops} > {}",
                            d.bound()
                        );
                    }
                }
            }
        }
    }

    /// Incremental expansion: the (n+1)-node network is the n-node one plus node n's own links.
    #[test]
    fn adding_a_node_rewires_nothing() {
        for n in [32, 40, 47, 1024, 1100] {
            let (a, b) = (Dsnf::new(n).unwrap(), Dsnf::new(n + 1).unwrap());
            assert_eq!(a.p, b.p);
            for s in 0..n {
                let kept: Vec<u32> = b
                    .graph
                    .neighbours(s)
                    .iter()
                    .copied()
                    .filter(|&t| t < n)
                    .collect();
                assert_eq!(a.graph.neighbours(s), &kept[..], "n={n} switch {s}");
            }
        }
    }
}
