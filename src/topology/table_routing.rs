//! Explicit switch graphs and minimal routing over breadth-first distance tables, shared by the families
//! of seeds 002 and 003 whose wiring is a graph rather than a coordinate rule (FleX, Slim Fly, DSN, DLN,
//! `graph:file=`).
//!
//! [`SwitchGraph`] holds the wiring: each switch's node ports first, then one port per neighbour switch
//! in increasing neighbour order (so the port towards a neighbour is found by binary search).
//! [`DistanceTable`] holds all-pairs switch distances (u16, `switches^2` entries, built with one BFS per
//! switch in parallel); minimal routing offers every neighbour one hop closer to the destination.
//!
//! [`TableRouted`] routes either minimally as below or, with `route=adaptive`, minimal adaptive with an
//! up*/down* escape path (`updown.rs`).
//!
//! Deadlock freedom by hop-indexed virtual channels: a packet that leaves a switch towards another
//! switch uses VC 0 if it arrived from a node and `in_vc + 1` otherwise, so the VC index is the number of
//! switch-to-switch hops already taken before this one. Every buffer dependency goes from VC `i` to VC
//! `i + 1` (or from an injection buffer to VC 0), so the channel dependency graph has no cycle; a minimal
//! route takes at most `diameter` switch-to-switch hops, hence `diameter` virtual channels.

use super::{Endpoint, MAX_NODES, RouteChoice};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::collections::{BTreeSet, VecDeque};

/// Largest switch count for which distance tables are built (`switches^2` u16 entries: 32 MiB).
pub const MAX_TABLE_SWITCHES: u32 = 4096;
/// Most switch-to-switch links an explicit switch graph may hold (2^25: about 1 GiB with its
/// adjacency lists); families that build one check their link count against it before building, so a
/// spec inside their parameter ranges cannot take minutes and gigabytes first.
pub const MAX_GRAPH_LINKS: u64 = 1 << 25;

/// Refuses a graph family's spec whose switch graph would have more than [`MAX_GRAPH_LINKS`] links.
pub fn check_links(spec: &str, links: u64) -> Result<()> {
    if links > MAX_GRAPH_LINKS {
        return Err(Error::Invalid(format!(
            "topology `{spec}` would have {links} switch-to-switch links; explicit switch graphs \
             are built up to {MAX_GRAPH_LINKS}: pick smaller parameters"
        )));
    }
    Ok(())
}

/// Most virtual channels hop-indexed routing may ask for (the diameter of the graph).
pub const MAX_HOP_VCS: u32 = 64;

/// The [`super::Topology`] methods of a family wired as the [`SwitchGraph`] in its `graph` field:
/// its nodes, switches, ports, neighbours and node attachments are the graph's.
macro_rules! wired_by_graph {
    () => {
        fn nodes(&self) -> u32 {
            self.graph.nodes()
        }
        fn switches(&self) -> u32 {
            self.graph.switches()
        }
        fn ports(&self, switch: u32) -> u32 {
            self.graph.ports(switch)
        }
        fn neighbour(&self, switch: u32, port: u32) -> $crate::topology::Endpoint {
            self.graph.neighbour(switch, port)
        }
        fn node_attachment(&self, node: u32) -> (u32, u32) {
            self.graph.node_attachment(node)
        }
    };
}
pub(super) use wired_by_graph;

/// An undirected switch graph with nodes hanging on its switches.
#[derive(Debug, Clone)]
pub struct SwitchGraph {
    /// Sorted neighbour switches of each switch (port `nodes_on(s) + i` faces `adj[s][i]`).
    adj: Vec<Vec<u32>>,
    /// Port index at the far end of each link (parallel to `adj`).
    peer_port: Vec<Vec<u32>>,
    /// `node_start[s]..node_start[s + 1]` are the nodes of switch `s`.
    node_start: Vec<u32>,
}

impl SwitchGraph {
    /// Builds the graph from an edge list over `switches` switches and a node count per switch.
    /// Rejects self-loops, repeated links and out-of-range ids (`what` names the topology in errors).
    pub fn new(what: &str, nodes_per_switch: &[u32], edges: &[(u32, u32)]) -> Result<Self> {
        let n = nodes_per_switch.len();
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in edges {
            if a as usize >= n || b as usize >= n {
                return Err(Error::Invalid(format!(
                    "{what}: link {a}-{b} names a switch outside 0..{n}"
                )));
            }
            if a == b {
                return Err(Error::Invalid(format!(
                    "{what}: switch {a} is linked to itself"
                )));
            }
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        for (s, list) in adj.iter_mut().enumerate() {
            list.sort_unstable();
            if let Some(w) = list.windows(2).find(|w| w[0] == w[1]) {
                return Err(Error::Invalid(format!(
                    "{what}: switches {s} and {} are linked twice",
                    w[0]
                )));
            }
        }
        let mut node_start = Vec::with_capacity(n + 1);
        let mut total = 0u64;
        node_start.push(0);
        for &p in nodes_per_switch {
            total += u64::from(p);
            if total > MAX_NODES {
                return Err(Error::Invalid(format!(
                    "{what} has more than {MAX_NODES} nodes, the most this simulator handles"
                )));
            }
            node_start.push(total as u32);
        }
        let mut g = SwitchGraph {
            peer_port: Vec::new(),
            adj,
            node_start,
        };
        g.peer_port = (0..n as u32)
            .map(|s| {
                g.adj[s as usize]
                    .iter()
                    .map(|&t| g.port_to(t, s).expect("adjacency is symmetric"))
                    .collect()
            })
            .collect();
        Ok(g)
    }

    /// Number of switches.
    pub fn switches(&self) -> u32 {
        self.adj.len() as u32
    }
    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        *self.node_start.last().unwrap_or(&0)
    }
    /// Nodes hanging on `switch` (its ports `0..nodes_on`).
    pub fn nodes_on(&self, switch: u32) -> u32 {
        self.node_start[switch as usize + 1] - self.node_start[switch as usize]
    }
    /// Sorted neighbour switches of `switch`.
    pub fn neighbours(&self, switch: u32) -> &[u32] {
        &self.adj[switch as usize]
    }
    /// Ports of `switch`: its nodes then its links.
    pub fn ports(&self, switch: u32) -> u32 {
        self.nodes_on(switch) + self.adj[switch as usize].len() as u32
    }
    /// The port of `from` that faces neighbour switch `to`, if they are linked.
    pub fn port_to(&self, from: u32, to: u32) -> Option<u32> {
        self.adj[from as usize]
            .binary_search(&to)
            .ok()
            .map(|i| self.nodes_on(from) + i as u32)
    }
    /// What `port` of `switch` is wired to.
    pub fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        let local = self.nodes_on(switch);
        if port < local {
            return Endpoint::Node(self.node_start[switch as usize] + port);
        }
        let i = (port - local) as usize;
        match self.adj[switch as usize].get(i) {
            Some(&t) => Endpoint::Switch {
                switch: t,
                port: self.peer_port[switch as usize][i],
            },
            None => Endpoint::Unplugged,
        }
    }
    /// The (switch, port) `node` hangs on.
    pub fn node_attachment(&self, node: u32) -> (u32, u32) {
        let s = self.node_start.partition_point(|&start| start <= node) - 1;
        (s as u32, node - self.node_start[s])
    }

    /// The switch node `dest` hangs on, when it is not `switch`; when it is, appends the ejection
    /// port to `out` and returns `None` (the first step of every table routing).
    pub fn target_or_eject(
        &self,
        switch: u32,
        dest: u32,
        out: &mut Vec<RouteChoice>,
    ) -> Option<u32> {
        let (dsw, dport) = self.node_attachment(dest);
        if dsw == switch {
            out.push(RouteChoice::port(dport));
            return None;
        }
        Some(dsw)
    }

    /// BFS distances from `from` (u32::MAX where unreachable).
    pub fn distances_from(&self, from: u32) -> Vec<u32> {
        let mut dist = vec![u32::MAX; self.adj.len()];
        let mut queue = VecDeque::from([from]);
        dist[from as usize] = 0;
        while let Some(s) = queue.pop_front() {
            for &t in &self.adj[s as usize] {
                if dist[t as usize] == u32::MAX {
                    dist[t as usize] = dist[s as usize] + 1;
                    queue.push_back(t);
                }
            }
        }
        dist
    }

    /// Rejects a graph that is not connected, naming a switch that switch 0 cannot reach.
    pub fn check_connected(&self, what: &str) -> Result<()> {
        if self.adj.is_empty() {
            return Err(Error::Invalid(format!("{what} has no switches")));
        }
        let dist = self.distances_from(0);
        match dist.iter().position(|&d| d == u32::MAX) {
            Some(s) => Err(Error::Invalid(format!(
                "{what} is not connected: switch {s} cannot be reached from switch 0"
            ))),
            None => Ok(()),
        }
    }

    /// [`SwitchGraph::hop_choice`] towards the neighbour switch `next`; `None` if `switch` has no
    /// link to it.
    pub fn hop_to(&self, switch: u32, in_port: u32, in_vc: u32, next: u32) -> Option<RouteChoice> {
        let port = self.port_to(switch, next)?;
        Some(self.hop_choice(switch, in_port, in_vc, port))
    }

    /// Appends the hop-indexed virtual channel choice for leaving `switch` through `port`, given the
    /// input port and VC the packet arrived on (see the module doc).
    pub fn hop_choice(&self, switch: u32, in_port: u32, in_vc: u32, port: u32) -> RouteChoice {
        let local = self.nodes_on(switch);
        let vc = if port < local || in_port < local {
            0
        } else {
            in_vc + 1
        };
        RouteChoice {
            port,
            vc,
            bubble: false,
            escape: false,
        }
    }
}

/// All-pairs switch distances of a [`SwitchGraph`], for minimal routing.
#[derive(Debug, Clone)]
pub struct DistanceTable {
    n: usize,
    dist: Vec<u16>,
    diameter: u32,
}

impl DistanceTable {
    /// Builds the table; the graph must be connected and have at most [`MAX_TABLE_SWITCHES`] switches.
    pub fn new(what: &str, g: &SwitchGraph) -> Result<Self> {
        let n = g.switches();
        if n > MAX_TABLE_SWITCHES {
            return Err(Error::Invalid(format!(
                "{what} has {n} switches; routing tables are built for at most {MAX_TABLE_SWITCHES}"
            )));
        }
        g.check_connected(what)?;
        let rows: Vec<Vec<u16>> = (0..n)
            .into_par_iter()
            .map(|s| g.distances_from(s).into_iter().map(|d| d as u16).collect())
            .collect();
        let dist: Vec<u16> = rows.concat();
        let diameter = u32::from(dist.iter().copied().max().unwrap_or(0));
        if diameter > MAX_HOP_VCS {
            return Err(Error::Invalid(format!(
                "{what} has diameter {diameter}; minimal routing with hop-indexed virtual channels \
                 supports at most {MAX_HOP_VCS}"
            )));
        }
        Ok(DistanceTable {
            n: n as usize,
            dist,
            diameter,
        })
    }

    /// Switch-to-switch distance.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        u32::from(self.dist[a as usize * self.n + b as usize])
    }

    /// The largest distance.
    pub fn diameter(&self) -> u32 {
        self.diameter
    }

    /// Appends every minimal next hop from `switch` towards node `dest` of `g`, with hop-indexed VCs.
    pub fn route(
        &self,
        g: &SwitchGraph,
        switch: u32,
        in_port: u32,
        in_vc: u32,
        dest: u32,
        out: &mut Vec<RouteChoice>,
    ) {
        let Some(dsw) = g.target_or_eject(switch, dest, out) else {
            return;
        };
        for port in self.minimal_ports(g, switch, dsw) {
            out.push(g.hop_choice(switch, in_port, in_vc, port));
        }
    }

    /// The ports of `switch` that lead one hop closer to switch `dsw` (every minimal next hop).
    pub fn minimal_ports<'g>(
        &'g self,
        g: &'g SwitchGraph,
        switch: u32,
        dsw: u32,
    ) -> impl Iterator<Item = u32> + 'g {
        let here = self.distance(switch, dsw);
        let base = g.nodes_on(switch);
        g.neighbours(switch)
            .iter()
            .enumerate()
            .filter(move |&(_, &t)| self.distance(t, dsw) + 1 == here)
            .map(move |(i, _)| base + i as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_of_five() {
        let edges: Vec<(u32, u32)> = (0..5).map(|i| (i, (i + 1) % 5)).collect();
        let g = SwitchGraph::new("ring", &[1, 2, 0, 1, 1], &edges).unwrap();
        assert_eq!((g.nodes(), g.neighbours(2)), (5, &[1, 3][..]));
        assert_eq!(g.node_attachment(2), (1, 1));
        assert_eq!(g.node_attachment(3), (3, 0));
        let t = DistanceTable::new("ring", &g).unwrap();
        assert_eq!((t.diameter(), t.distance(0, 3)), (2, 2));
        let mut out = Vec::new();
        t.route(&g, 0, 0, 0, 3, &mut out); // node 3 is on switch 3: via 4 only
        assert_eq!(out.len(), 1);
        assert_eq!(
            g.neighbour(0, out[0].port),
            g.neighbour(0, g.port_to(0, 4).unwrap())
        );
        assert!(SwitchGraph::new("x", &[1, 1], &[(0, 1), (1, 0)]).is_err());
        let split = SwitchGraph::new("split", &[1, 1, 1], &[(0, 1)]).unwrap();
        let e = DistanceTable::new("split", &split).unwrap_err().to_string();
        assert!(e.contains("switch 2 cannot be reached"), "{e}");
    }
}

/// How a [`TableRouted`] topology routes (the `route=` key of the families built on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableRouting {
    /// Every minimal next hop, hop-indexed virtual channels (as many as the diameter).
    Minimal,
    /// Minimal adaptive with an up*/down* escape path, two virtual channels (`updown.rs`).
    Adaptive,
}

impl TableRouting {
    /// The `route=` words, default first as `default` says.
    pub const WORDS: [&'static str; 2] = ["minimal", "adaptive"];

    /// Reads `route=` (`default` when absent).
    pub fn from_params(p: &crate::spec::Params, default: &'static str) -> Result<Self> {
        Ok(match p.choice("route", default, &Self::WORDS)? {
            "adaptive" => TableRouting::Adaptive,
            _ => TableRouting::Minimal,
        })
    }

    /// The word for `route=`.
    pub fn word(self) -> &'static str {
        match self {
            TableRouting::Minimal => "minimal",
            TableRouting::Adaptive => "adaptive",
        }
    }

    /// What a canonical spec appends: `,route=WORD`, or nothing for the family's `default`.
    pub fn spec_suffix(self, default: &str) -> String {
        if self.word() == default {
            String::new()
        } else {
            format!(",route={}", self.word())
        }
    }
}

/// A topology given as an explicit switch graph, routed over its distance table: minimally with
/// hop-indexed virtual channels, or minimal adaptive with an up*/down* escape path. What `dsn`, `dln`
/// and `graph:file` all are once their graph is built (and `dsnf` with `route=adaptive`).
#[derive(Debug, Clone)]
pub struct TableRouted {
    spec: String,
    graph: SwitchGraph,
    table: DistanceTable,
    updown: Option<super::updown::UpDown>,
    blocks: Vec<u32>,
    /// The family's floor-layout order, when not switch ids.
    layout: Option<Vec<u32>>,
}

impl TableRouted {
    /// Computes the distance table of `graph` (and the up*/down* order for adaptive routing); `spec`
    /// is the string that rebuilds it.
    pub fn new(spec: String, graph: SwitchGraph, routing: TableRouting) -> Result<Self> {
        let table = DistanceTable::new(&spec, &graph)?;
        let updown =
            (routing == TableRouting::Adaptive).then(|| super::updown::UpDown::new(&graph, &table));
        Ok(TableRouted {
            spec,
            graph,
            table,
            updown,
            blocks: Vec::new(),
            layout: None,
        })
    }

    /// A ring of `n` switches with one node each, plus `chords` (either way round; a chord that
    /// repeats another or a ring link is built once): DSN and DLN, whose chords are their own.
    pub fn ring(
        spec: String,
        n: u32,
        chords: impl IntoIterator<Item = (u32, u32)>,
        routing: TableRouting,
    ) -> Result<Self> {
        let edges: BTreeSet<(u32, u32)> = (0..n)
            .map(|i| (i, (i + 1) % n))
            .chain(chords)
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        let edges: Vec<(u32, u32)> = edges.into_iter().collect();
        let graph = SwitchGraph::new(&spec, &vec![1; n as usize], &edges)?;
        Self::new(spec, graph, routing)
    }

    /// Declares the family's locality blocks (see [`super::Topology::locality_blocks`]).
    pub fn with_locality_blocks(mut self, blocks: Vec<u32>) -> Self {
        self.blocks = blocks;
        self
    }

    /// Declares the family's floor-layout order (see [`super::Topology::layout_order`]).
    pub fn with_layout_order(mut self, order: Vec<u32>) -> Self {
        self.layout = Some(order);
        self
    }
}

impl super::Topology for TableRouted {
    fn spec(&self) -> String {
        self.spec.clone()
    }
    wired_by_graph!();
    fn locality_blocks(&self) -> Vec<u32> {
        self.blocks.clone()
    }
    fn layout_order(&self) -> Vec<u32> {
        match &self.layout {
            Some(order) => order.clone(),
            None => (0..self.graph.switches()).collect(),
        }
    }
    fn virtual_channels(&self) -> u32 {
        match self.updown {
            Some(_) => super::updown::UPDOWN_VCS,
            None => self.table.diameter().max(1),
        }
    }
    fn route(&self, switch: u32, in_port: u32, in_vc: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        match &self.updown {
            Some(ud) => ud.route(&self.graph, &self.table, switch, in_port, in_vc, dest, out),
            None => self
                .table
                .route(&self.graph, switch, in_port, in_vc, dest, out),
        }
    }
}
