//! MiKANT(k, n), the mirrored k-ary n-tree of seed 001 §II (and, with a centre stage, the bidirectional
//! Clos k-ary n-tree of §II, `clos.rs`), with Algorithm 1's minimal per-hop deterministic routing.
//!
//! Two groups G in {0, 1} of n-1 stages L of k^(n-1) switches <G, L, D_(n-2)..D_0>; stage L connects to
//! stage L+1 switches that differ in digit D_L; the stage n-2 switches of the two groups are joined to
//! each other by digit D_(n-2) (the mirror), or, in the Clos, both to a centre stage of k^(n-1)
//! switches. Node <G, C_(n-1)..C_0> hangs on <G, 0, C_(n-2)..C_0> at port C_(n-1). Every switch has 2k
//! ports: 0..k down (port j to the stage L-1 switch whose digit D_(L-1) is j, or to node C_(n-1) = j),
//! k..2k up (port k + j to the switch whose digit D_L is j); a centre switch has ports G·k + j to group
//! G's switch with D_(n-2) = j. Node ids are G·k^n + C, switch ids (G·(n-1) + L)·k^(n-1) + D, the
//! centre after both groups. Counts are Table I's; the wiring checks them (Theorems 3-5).
//!
//! Algorithm 1 (`route=det`, MiKANT's default): climb through port k + T_L, fixing D_L := T_L, until the
//! switch's digits from L up equal the destination's in the destination's group; then go down fixing
//! D_(L-1) := T_(L-1), and leave stage 0 through port T_(n-1). The paper writes the down port as
//! T_(L_W)^-; with its own port labels that sends Table II's third example astray, so we read it as the
//! digit the hop fixes, T_(L_W - 1), which reproduces all four Table II routes. `route=adaptive` (the
//! Clos's default) offers every up port below the top stage; the mirror crossing stays deterministic,
//! which keeps the channel dependencies acyclic: a same-group packet crosses first on a link x -> t
//! (x != t) and then on t -> t, after which it only goes down.

use super::bisection::Bisection;
use super::{Endpoint, RouteChoice, Topology, check_size, checked_pow};
use crate::error::Result;
use crate::spec::{Entry, Params};

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "mikant",
    keys: &["k", "n", "route"],
    help: "mirrored k-ary n-tree: 2n-2 stages, 2k^n nodes; route=det (Algorithm 1) | adaptive (seed 001)",
    build: |p| Ok(Box::new(MirroredTree::from_params(p, false, "det")?)),
};

/// A MiKANT or a bidirectional Clos k-ary n-tree.
#[derive(Debug, Clone)]
pub struct MirroredTree {
    k: u32,
    n: u32,
    /// A centre stage (Clos) instead of the mirror links.
    centre: bool,
    adaptive: bool,
    /// `k^i` for i in 0..=n.
    pow: Vec<u32>,
}

/// A located switch: group, stage (n-1 for the centre) and digits D.
struct At {
    g: u32,
    l: u32,
    d: u32,
}

impl MirroredTree {
    /// Parses `k`, `n` and `route` (default `default_route`).
    pub fn from_params(p: &Params, centre: bool, default_route: &'static str) -> Result<Self> {
        let k = p.u32_in("k", None, 2, 1024)?;
        let n = p.u32_in("n", None, 2, 24)?;
        let route = p.choice("route", default_route, &["det", "adaptive"])?;
        Self::new(k, n, centre, route == "adaptive")
    }

    /// Validates sizes.
    pub fn new(k: u32, n: u32, centre: bool, adaptive: bool) -> Result<Self> {
        let t = MirroredTree {
            k,
            n,
            centre,
            adaptive,
            pow: Vec::new(),
        };
        let spec = t.spec();
        check_size(&spec, 2 * checked_pow(k, n, &spec)?)?;
        Ok(MirroredTree {
            pow: (0..=n).map(|i| k.pow(i)).collect(),
            ..t
        })
    }

    /// Switches per stage, k^(n-1).
    fn per_stage(&self) -> u32 {
        self.pow[self.n as usize - 1]
    }

    fn locate(&self, switch: u32) -> At {
        let (stage, d) = (switch / self.per_stage(), switch % self.per_stage());
        let top = self.n - 1;
        if stage == 2 * top {
            return At { g: 0, l: top, d };
        }
        At {
            g: stage / top,
            l: stage % top,
            d,
        }
    }

    fn id(&self, g: u32, l: u32, d: u32) -> u32 {
        (g * (self.n - 1) + l) * self.per_stage() + d
    }

    fn centre_id(&self, d: u32) -> u32 {
        2 * (self.n - 1) * self.per_stage() + d
    }

    #[inline]
    fn digit(&self, d: u32, i: u32) -> u32 {
        (d / self.pow[i as usize]) % self.k
    }

    #[inline]
    fn set_digit(&self, d: u32, i: u32, v: u32) -> u32 {
        d - self.digit(d, i) * self.pow[i as usize] + v * self.pow[i as usize]
    }

    fn is_centre(&self, switch: u32) -> bool {
        self.centre && switch >= 2 * (self.n - 1) * self.per_stage()
    }
}

impl Topology for MirroredTree {
    fn spec(&self) -> String {
        let name = if self.centre { "clos" } else { "mikant" };
        let route = if self.adaptive { "adaptive" } else { "det" };
        format!("{name}:k={},n={},route={route}", self.k, self.n)
    }
    fn nodes(&self) -> u32 {
        2 * self.pow[self.n as usize]
    }
    fn switches(&self) -> u32 {
        (2 * self.n - 2 + u32::from(self.centre)) * self.per_stage()
    }
    /// MiKANT, even k: k^n/2, seed 001 Theorem 7 and Table I (the proof's split by digits below k/2
    /// cuts k/2 of each mirror switch's k mirror links). The Clos, any k: k^n, not Table I's k^n/2
    /// (which repeats MiKANT's value for 2k^n nodes): splitting the two groups through the centre cuts
    /// the k^n links of one group's last stage, and no split cuts fewer, because with the nodes in
    /// halves the A nodes of one group can be paired with the B nodes of the other and vice versa, and
    /// the unfolded Clos is a k-ary Beneš network (2n-1 stages of k x k switches), which routes any
    /// such pairing on link-disjoint paths (Beneš, 1962), each crossing the cut.
    fn bisection(&self) -> Option<Bisection> {
        let group_nodes = u64::from(self.pow[self.n as usize]);
        if self.centre {
            Some(Bisection::closed_form(group_nodes, self.nodes()))
        } else {
            self.k
                .is_multiple_of(2)
                .then(|| Bisection::closed_form(group_nodes / 2, self.nodes()))
        }
    }
    fn ports(&self, _switch: u32) -> u32 {
        2 * self.k
    }
    fn level(&self, switch: u32) -> Option<u32> {
        Some(self.locate(switch).l)
    }

    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        let (k, top) = (self.k, self.n - 2);
        let At { g, l, d } = self.locate(switch);
        if self.is_centre(switch) {
            let (g2, v) = (port / k, port % k);
            return Endpoint::Switch {
                switch: self.id(g2, top, self.set_digit(d, top, v)),
                port: k + self.digit(d, top),
            };
        }
        if port < k {
            if l == 0 {
                return Endpoint::Node(g * self.pow[self.n as usize] + port * self.per_stage() + d);
            }
            return Endpoint::Switch {
                switch: self.id(g, l - 1, self.set_digit(d, l - 1, port)),
                port: k + self.digit(d, l - 1),
            };
        }
        let u = port - k;
        let up = self.set_digit(d, l, u);
        let (switch, port) = if l < top {
            (self.id(g, l + 1, up), self.digit(d, l))
        } else if self.centre {
            (self.centre_id(up), g * k + self.digit(d, top))
        } else {
            (self.id(1 - g, top, up), k + self.digit(d, top))
        };
        Endpoint::Switch { switch, port }
    }

    fn node_attachment(&self, node: u32) -> (u32, u32) {
        let c = node % self.pow[self.n as usize];
        let g = node / self.pow[self.n as usize];
        (self.id(g, 0, c % self.per_stage()), c / self.per_stage())
    }

    /// A leaf's k nodes, then the subtrees of k^2 .. k^(n-1) nodes under stages 1 .. n-2 of a group
    /// (the leaves sharing D_(n-2)..D_(L)), as for a k-ary n-tree. In MiKANT a top subtree and its
    /// mirror, the other group's top subtree with the same D_(n-2), form one more unit: every node of
    /// one group is 2n - 1 hops from every node of the other, the top subtrees of one group 2n apart
    /// (seed 001, proof of Theorem 6). In the Clos every two top subtrees meet at the centre, 2n apart.
    fn locality_blocks(&self) -> Vec<u32> {
        let mut blocks = self.pow[1..self.n as usize].to_vec();
        if !self.centre {
            blocks.push(2 * self.per_stage());
        }
        blocks
    }
    /// Seed 001 numbers node <G, C> as G·k^n + C, so a leaf's nodes C_(n-1) are k^(n-1) ids apart. In
    /// locality order a node's position has the digits D_(n-2), G, D_(n-3)..D_0 of its leaf, then its
    /// port C_(n-1): leaves, subtrees, and each top subtree beside its mirror.
    fn locality_order(&self) -> Vec<u32> {
        let low = self.pow[self.n as usize - 2];
        let mut order = vec![0; self.nodes() as usize];
        for node in 0..self.nodes() {
            let (leaf, port) = self.node_attachment(node);
            let At { g, d, .. } = self.locate(leaf);
            order[((((d / low) * 2 + g) * low + d % low) * self.k + port) as usize] = node;
        }
        order
    }

    #[inline]
    fn route_to(&self, switch: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let (k, top) = (self.k, self.n - 2);
        let c = dest % self.pow[self.n as usize];
        let gt = dest / self.pow[self.n as usize];
        let t = c % self.per_stage();
        if self.is_centre(switch) {
            out.push(RouteChoice::port(gt * k + self.digit(t, top)));
            return;
        }
        let At { g, l, d } = self.locate(switch);
        if g == gt && d / self.pow[l as usize] == t / self.pow[l as usize] {
            let port = if l == 0 {
                c / self.per_stage()
            } else {
                self.digit(t, l - 1)
            };
            out.push(RouteChoice::port(port));
        } else if self.adaptive && (l < top || self.centre) {
            out.extend((k..2 * k).map(RouteChoice::port));
        } else {
            out.push(RouteChoice::port(k + self.digit(t, l)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Topology, build, trace_route};
    use super::MirroredTree;

    fn node(g: u32, c: [u32; 4]) -> u32 {
        g * 81 + c.iter().fold(0, |a, &x| a * 3 + x)
    }

    /// The switch ids a route visits, as <G, L, D_(n-2)..D_0>, with the port taken at each.
    fn walk(t: &MirroredTree, src: u32, dst: u32) -> Vec<(u32, u32, [u32; 3], u32)> {
        let (mut sw, mut inp) = t.node_attachment(src);
        let mut out = Vec::new();
        let mut choices = Vec::new();
        loop {
            choices.clear();
            t.route(sw, inp, 0, dst, &mut choices);
            let p = choices[0].port;
            let a = t.locate(sw);
            out.push((
                a.g,
                a.l,
                [t.digit(a.d, 2), t.digit(a.d, 1), t.digit(a.d, 0)],
                p,
            ));
            match t.neighbour(sw, p) {
                super::Endpoint::Switch { switch, port } => (sw, inp) = (switch, port),
                _ => return out,
            }
        }
    }

    /// Seed 001 Table II: the four routes of MiKANT(3,4) from S = <0,2,0,0,0>, switch by switch (and,
    /// for the first, port by port).
    #[test]
    fn table_ii_routes() {
        let t = MirroredTree::new(3, 4, false, false).unwrap();
        let s = node(0, [2, 0, 0, 0]);
        let first = walk(&t, s, node(1, [2, 2, 2, 2]));
        assert_eq!(
            first,
            [
                (0, 0, [0, 0, 0], 5),
                (0, 1, [0, 0, 2], 5),
                (0, 2, [0, 2, 2], 5),
                (1, 2, [2, 2, 2], 2),
                (1, 1, [2, 2, 2], 2),
                (1, 0, [2, 2, 2], 2),
            ]
        );
        for (dest, want) in [
            (
                [2, 2, 2, 2],
                vec![
                    [0, 0, 0, 0, 0],
                    [0, 1, 0, 0, 2],
                    [0, 2, 0, 2, 2],
                    [1, 2, 2, 2, 2],
                    [0, 2, 2, 2, 2],
                    [0, 1, 2, 2, 2],
                    [0, 0, 2, 2, 2],
                ],
            ),
            (
                [2, 0, 2, 2],
                vec![
                    [0, 0, 0, 0, 0],
                    [0, 1, 0, 0, 2],
                    [0, 2, 0, 2, 2],
                    [0, 1, 0, 2, 2],
                    [0, 0, 0, 2, 2],
                ],
            ),
            (
                [2, 0, 0, 2],
                vec![[0, 0, 0, 0, 0], [0, 1, 0, 0, 2], [0, 0, 0, 0, 2]],
            ),
        ] {
            let got: Vec<[u32; 5]> = walk(&t, s, node(0, dest))
                .into_iter()
                .map(|(g, l, d, _)| [g, l, d[0], d[1], d[2]])
                .collect();
            assert_eq!(got, want, "T = <0,{dest:?}>");
        }
        // Path lengths 2n - 1 and 2n as the paper states for the first two.
        let t: Box<dyn Topology> = Box::new(t);
        assert_eq!(trace_route(t.as_ref(), s, 81 + 80, |_| 0), Ok(7));
        assert_eq!(trace_route(t.as_ref(), s, 80, |_| 0), Ok(8));
        assert!(build("mikant:k=3,n=1").is_err());
    }

    /// The locality order lists every node once, and each aligned block of it is as near as its unit
    /// should be (in links): a leaf 2, a subtree under stage L 2L + 2, MiKANT's top subtree with its
    /// mirror 2n - 1; the whole machine is 2n across (seed 001 Theorem 2; the Clos through its centre).
    #[test]
    fn locality_order_blocks_are_leaves_and_subtrees() {
        for (spec, want) in [
            ("mikant:k=3,n=3", vec![(3, 2), (9, 4), (18, 5), (54, 6)]),
            (
                "mikant:k=2,n=4",
                vec![(2, 2), (4, 4), (8, 6), (16, 7), (32, 8)],
            ),
            ("mikant:k=3,n=2", vec![(3, 2), (6, 3), (18, 4)]),
            ("clos:k=3,n=3", vec![(3, 2), (9, 4), (54, 6)]),
            ("clos:k=2,n=4", vec![(2, 2), (4, 4), (8, 6), (32, 8)]),
        ] {
            let t = build(spec).unwrap();
            let order = t.locality_order();
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..t.nodes()).collect::<Vec<_>>(), "{spec}");
            let mut blocks = t.locality_blocks();
            blocks.push(t.nodes());
            assert_eq!(
                blocks,
                want.iter().map(|w| w.0).collect::<Vec<_>>(),
                "{spec}"
            );
            for (size, links) in want {
                for block in order.chunks(size as usize) {
                    let far = block
                        .iter()
                        .flat_map(|&a| block.iter().map(move |&b| (a, b)))
                        .map(|(a, b)| trace_route(t.as_ref(), a, b, |_| 0).unwrap_or(0))
                        .max();
                    assert_eq!(far, Some(links), "{spec}: block {block:?}");
                }
            }
        }
    }
}
