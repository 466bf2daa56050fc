//! RUFT, the reduced unidirectional fat-tree of Gómez et al., as seed 000 §3.1, §4.2 and §5.1 use it:
//! s stages of k^(s-1) unidirectional switches with k inputs and k outputs. Leaves inject into the first
//! stage and the last stage is wired straight back to the leaves by longer links.
//!
//! It is the upward half of a k-ary s-tree under the destination-based deterministic routing of §4.2:
//! stage e switch `j = sub·k^e + rep` (`sub` the subtree of k^(e+1) leaves, `rep` its replica) sends
//! output port u to stage e+1 switch (sub / k, rep + u·k^e), input port sub mod k; a last-stage switch
//! sends output port u to leaf u·k^(s-1) + rep. Routing is §4.2's "link = t_e": at stage e the output is
//! the destination's base-k digit e, so every path is unique and crosses all stages (s + 1 links).
//! A unidirectional MIN has no cycle in its channel dependency graph, so it is deadlock-free.
//!
//! Modelling choices. A switch with k input and k output ports is modelled as k ports whose input and
//! output go to different neighbours (the paper: "a switch with p unidirectional ports can be
//! implemented by using a switch with p/2 bidirectional ports"), so `radix` is k. Links are counted as
//! Table 3 counts them: each unidirectional link once, a leaf's injection and return links together
//! once (which makes a RUFT's counts equal a fat-tree's, as Table 4 lists them). The return links are
//! `s` fly times long ("8 clock cycles per stage", §5.1).

use super::{Endpoint, OneWay, RouteChoice, Topology, check_size, checked_pow};
use crate::error::Result;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "ruft",
    keys: &["k", "n"],
    help: "reduced unidirectional fat-tree: n stages of k-input k-output switches (seed 000 §3.1)",
    build: |p| {
        let k = p.u32_in("k", None, 2, 1024)?;
        let n = p.u32_in("n", None, 1, 24)?;
        Ok(Box::new(Ruft::new(k, n)?))
    },
};

/// Stage arithmetic of a RUFT with k-port switches and s stages over k^s leaves, shared with KNS.
#[derive(Debug, Clone)]
pub(super) struct Stages {
    /// Switch arity.
    pub k: u32,
    /// Stages.
    pub s: u32,
    /// `k^e` for e in 0..=s.
    pow: Vec<u32>,
}

/// Where a RUFT switch output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    /// Switch `index` of stage `stage`, at input port `port`.
    Switch { stage: u32, index: u32, port: u32 },
    /// Back to leaf `leaf` (a long return link).
    Leaf(u32),
}

impl Stages {
    /// k^s leaves; the caller checks sizes.
    pub fn new(k: u32, s: u32) -> Self {
        Stages {
            k,
            s,
            pow: (0..=s).map(|e| k.pow(e)).collect(),
        }
    }
    /// Switches per stage.
    pub fn per_stage(&self) -> u32 {
        self.pow[self.s as usize - 1]
    }
    /// Leaves.
    pub fn leaves(&self) -> u32 {
        self.pow[self.s as usize]
    }
    /// First-stage switch and input port of `leaf`.
    pub fn inject(&self, leaf: u32) -> (u32, u32) {
        (leaf / self.k, leaf % self.k)
    }
    /// Where output `port` of switch `index` of `stage` goes.
    pub fn next(&self, stage: u32, index: u32, port: u32) -> Next {
        let pe = self.pow[stage as usize];
        let (sub, rep) = (index / pe, index % pe);
        if stage + 1 == self.s {
            Next::Leaf(port * self.pow[self.s as usize - 1] + rep)
        } else {
            Next::Switch {
                stage: stage + 1,
                index: (sub / self.k) * pe * self.k + rep + port * pe,
                port: sub % self.k,
            }
        }
    }
    /// §4.2: at stage e the output is the destination's digit e.
    #[inline]
    pub fn route(&self, stage: u32, leaf: u32) -> u32 {
        (leaf / self.pow[stage as usize]) % self.k
    }
}

/// A RUFT whose leaves are compute nodes.
#[derive(Debug, Clone)]
pub struct Ruft {
    st: Stages,
}

impl Ruft {
    /// Validates sizes.
    pub fn new(k: u32, n: u32) -> Result<Self> {
        let spec = format!("ruft:k={k},n={n}");
        check_size(&spec, checked_pow(k, n, &spec)?)?;
        Ok(Ruft {
            st: Stages::new(k, n),
        })
    }
}

impl Topology for Ruft {
    fn spec(&self) -> String {
        format!("ruft:k={},n={}", self.st.k, self.st.s)
    }
    fn nodes(&self) -> u32 {
        self.st.leaves()
    }
    fn switches(&self) -> u32 {
        self.st.s * self.st.per_stage()
    }
    fn ports(&self, _switch: u32) -> u32 {
        self.st.k
    }
    fn level(&self, switch: u32) -> Option<u32> {
        Some(switch / self.st.per_stage())
    }
    fn one_way(&self, _switch: u32, _port: u32) -> OneWay {
        OneWay::Link
    }
    fn link_length(&self, switch: u32, _port: u32) -> u32 {
        if switch / self.st.per_stage() + 1 == self.st.s {
            self.st.s
        } else {
            1
        }
    }
    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        let per = self.st.per_stage();
        match self.st.next(switch / per, switch % per, port) {
            Next::Switch { stage, index, port } => Endpoint::Switch {
                switch: stage * per + index,
                port,
            },
            Next::Leaf(leaf) => Endpoint::Node(leaf),
        }
    }
    fn node_attachment(&self, node: u32) -> (u32, u32) {
        self.st.inject(node)
    }
    /// The k leaves of a first-stage switch, then the aligned subtrees of k^2, k^3... leaves. Every path
    /// crosses all stages, so no leaf is nearer than another in hops; but the link leaving stage e is
    /// fixed by the source's digits above e and the destination's up to e, so the paths inside one
    /// aligned subtree share no link with those inside another (tested): a job on one is as isolated
    /// from other jobs as on a subtree of a fat tree.
    fn locality_blocks(&self) -> Vec<u32> {
        (1..self.st.s).map(|e| self.st.k.pow(e)).collect()
    }
    #[inline]
    fn route_to(&self, switch: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let stage = switch / self.st.per_stage();
        out.push(RouteChoice::port(self.st.route(stage, dest)));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Endpoint, build, structure, trace_route};

    /// Table 3's counts (as a fat-tree's: s·k^(s-1) switches, s·N links) and unique s+1-link paths.
    #[test]
    fn counts_and_paths() {
        for (k, n) in [(2u32, 3u32), (4, 3), (3, 4), (8, 4)] {
            let t = build(&format!("ruft:k={k},n={n}")).unwrap();
            let s = structure(t.as_ref());
            let nodes = u64::from(k.pow(n));
            assert_eq!(s.switches, u64::from(n * k.pow(n - 1)));
            assert_eq!(
                (s.nodes, s.links, s.radix),
                (nodes, nodes * u64::from(n), u64::from(k))
            );
            if nodes <= 256 {
                for a in 0..t.nodes() {
                    for b in 0..t.nodes() {
                        assert_eq!(trace_route(t.as_ref(), a, b, |_| 0), Ok(n + 1));
                    }
                }
            }
        }
    }

    /// The paths between the leaves of one aligned locality block take no switch output that the paths
    /// of another block take.
    #[test]
    fn aligned_blocks_share_no_link() {
        let t = build("ruft:k=3,n=3").unwrap();
        assert_eq!(t.locality_blocks(), [3, 9]);
        let mut choices = Vec::new();
        for size in [3, 9] {
            let mut owner = std::collections::HashMap::new();
            for a in 0..t.nodes() {
                let block = a / size;
                for b in block * size..(block + 1) * size {
                    let mut sw = t.node_attachment(a).0;
                    loop {
                        choices.clear();
                        t.route_to(sw, b, &mut choices);
                        let port = choices[0].port;
                        let first = *owner.entry((sw, port)).or_insert(block);
                        assert_eq!(first, block, "{a} -> {b}: switch {sw} port {port}");
                        match t.neighbour(sw, port) {
                            Endpoint::Switch { switch, .. } => sw = switch,
                            _ => break,
                        }
                    }
                }
            }
        }
    }
}
