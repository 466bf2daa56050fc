//! Cost models (seed 004 §5.1, seed 003 §IV-A, a user price table): what a network costs, in total and
//! per attached node, chosen by name from [`REGISTRY`] (`seed004` by default).
//!
//! A model prices an [`Inventory`]: the switches, node links and switch-to-switch links being paid for.
//! [`complete`] lists the whole network (seed 004's "CN" rows); [`used`] lists only what the placed ranks
//! use (the "U" rows of seed 004 Tables 2 and 3). Seed 004 places 4096 tasks "in the central nodes ... two
//! symmetrical parts of the system are not actually used" (§3.2); when N - R is odd those two parts are
//! each (N - R)/2 nodes, a half-integer, so the used span straddles half a node at each end. Counting a
//! switch as used when its subtree meets that span (equivalently: the placed nodes plus node
//! offset + R, see [`central_cover`]) reproduces every U row of Table 2 (6,5-fat-tree 4248/21808,
//! 9:3,4-thin-tree 700/6115, 9:3,6-slender-tree 694/6169) and so every U cost of Table 3; counting only
//! switches above placed nodes gives one leaf switch (and its up-links) fewer on the two odd cases.

pub mod layout;
mod seed000;
mod seed003;
mod seed004;
mod table;

pub use table::PriceTable;

use crate::error::Result;
use crate::spec::Registry;
use crate::topology::{Endpoint, Topology};
use serde::{Deserialize, Serialize};

/// Every cost model, by spec name. One line per model.
pub static REGISTRY: Registry<Box<dyn CostModel>> = Registry {
    kind: "cost model",
    entries: &[seed004::ENTRY, seed000::ENTRY, seed003::ENTRY],
};

/// The model `topology --json` and campaigns use when none is named (seed 004 §5.1).
pub const DEFAULT: &str = "seed004";

/// Builds a cost model from its spec string, e.g. `seed004:link=150`.
pub fn build(spec: &str) -> Result<Box<dyn CostModel>> {
    REGISTRY.build_str(spec)
}

/// A way to price a network.
pub trait CostModel: Send + Sync + std::fmt::Debug {
    /// The canonical spec string.
    fn spec(&self) -> String;
    /// Prices the resources of `inventory`, which belong to `topo`.
    fn price(&self, topo: &dyn Topology, inventory: &Inventory) -> Result<Cost>;
}

/// What a model charges for, as ids into the topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inventory {
    /// Nodes the cost is shared among (cost per node divides by this).
    pub nodes: u64,
    /// Switching elements paid for.
    pub switches: Vec<u32>,
    /// Node-to-switch links paid for, as (node, switch).
    pub node_links: Vec<(u32, u32)>,
    /// Switch-to-switch links paid for, as (switch, switch).
    pub switch_links: Vec<(u32, u32)>,
}

impl Inventory {
    /// Links of both kinds (node links included, as seed 004 counts them).
    pub fn links(&self) -> u64 {
        (self.node_links.len() + self.switch_links.len()) as u64
    }
}

/// A priced network: the `cost` object of `topology --json` (`total`, `per_node`) plus what was counted.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Cost {
    /// The model's spec.
    pub model: String,
    /// Total price in dollars.
    pub total: f64,
    /// Total divided by the nodes it serves.
    pub per_node: f64,
    /// Switching elements counted.
    pub switches: u64,
    /// Links counted (node links included).
    pub links: u64,
    /// Nodes the cost is shared among.
    pub nodes: u64,
    /// Power of the counted router ports in watts, for models that estimate it (seed 003).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_watts: Option<f64>,
}

impl Cost {
    /// A cost from a total, dividing by the inventory's nodes.
    pub fn new(model: String, total: f64, inventory: &Inventory) -> Cost {
        Cost {
            model,
            total,
            per_node: total / inventory.nodes.max(1) as f64,
            switches: inventory.switches.len() as u64,
            links: inventory.links(),
            nodes: inventory.nodes,
            power_watts: None,
        }
    }
}

/// The whole network: every switch, node link and switch link (seed 004's "CN").
/// The lists are sized by a first pass over the wiring: grown by doubling, they could take twice
/// their size (gigabytes on the largest specs).
pub fn complete(topo: &dyn Topology) -> Inventory {
    let each_link = |visit: &mut dyn FnMut(u32, Endpoint)| {
        for sw in 0..topo.switches() {
            for p in 0..topo.ports(sw) {
                match topo.neighbour(sw, p) {
                    Endpoint::Switch { switch, port } if (sw, p) >= (switch, port) => {}
                    far => visit(sw, far),
                }
            }
        }
    };
    let (mut node_links, mut switch_links) = (0usize, 0usize);
    each_link(&mut |_, far| match far {
        Endpoint::Node(_) => node_links += 1,
        Endpoint::Switch { .. } => switch_links += 1,
        _ => {}
    });
    let mut inv = Inventory {
        nodes: u64::from(topo.nodes()),
        switches: (0..topo.switches()).collect(),
        node_links: Vec::with_capacity(node_links),
        switch_links: Vec::with_capacity(switch_links),
    };
    each_link(&mut |sw, far| match far {
        Endpoint::Node(n) => inv.node_links.push((n, sw)),
        Endpoint::Switch { switch, .. } => inv.switch_links.push((sw, switch)),
        _ => {}
    });
    inv
}

/// The nodes whose switches count as used when `ranks` ranks sit on the central nodes of an `nodes`-node
/// network (seed 004 §3.2): the placed nodes floor((N-R)/2) .. +R, plus node floor((N-R)/2) + R when
/// N - R is odd, because the two unused parts are symmetrical, (N - R)/2 nodes each, and the used span
/// ends half-way through that node.
pub fn central_cover(nodes: u32, ranks: u32) -> Vec<u32> {
    let spare = nodes.saturating_sub(ranks);
    let offset = spare / 2;
    let end = offset + ranks + (spare % 2).min(nodes - offset - ranks);
    (offset..end).collect()
}

/// The resources actually used (seed 004's "U"): node links of the `placed` nodes; switches whose
/// subtree holds a node of `cover` (trees; `cover` is `placed` or, for central placement,
/// [`central_cover`]); and the up-links of used switches (the top level has none). The cost is shared
/// among the placed nodes. On direct networks (no levels) a router is used when a covered node hangs on
/// it, and a link between routers when both ends are used.
pub fn used(topo: &dyn Topology, placed: &[u32], cover: &[u32]) -> Inventory {
    let n_sw = topo.switches() as usize;
    let mut is_used = vec![false; n_sw];
    for &node in cover.iter().chain(placed) {
        if node < topo.nodes() {
            is_used[topo.node_attachment(node).0 as usize] = true;
        }
    }
    let tree = n_sw > 0 && topo.level(0).is_some();
    if tree {
        let mut by_level: Vec<u32> = (0..topo.switches()).collect();
        by_level.sort_by_key(|&s| topo.level(s));
        for &sw in &by_level {
            if is_used[sw as usize] {
                continue;
            }
            let lvl = topo.level(sw);
            is_used[sw as usize] = (0..topo.ports(sw)).any(|p| match topo.neighbour(sw, p) {
                Endpoint::Switch { switch, .. } => {
                    topo.level(switch) < lvl && is_used[switch as usize]
                }
                _ => false,
            });
        }
    }
    let mut inv = Inventory {
        nodes: placed.len() as u64,
        switches: (0..topo.switches())
            .filter(|&s| is_used[s as usize])
            .collect(),
        node_links: placed
            .iter()
            .map(|&n| (n, topo.node_attachment(n).0))
            .collect(),
        switch_links: Vec::new(),
    };
    for &sw in &inv.switches {
        for p in 0..topo.ports(sw) {
            if let Endpoint::Switch { switch, port } = topo.neighbour(sw, p) {
                let counted = if tree {
                    topo.level(switch) > topo.level(sw)
                } else {
                    is_used[switch as usize] && (sw, p) < (switch, port)
                };
                if counted {
                    inv.switch_links.push((sw, switch));
                }
            }
        }
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology;

    fn rounded(c: &Cost) -> (i64, i64) {
        (c.total.round() as i64, c.per_node.round() as i64)
    }

    /// Seed 004 Table 3a and the CN rows of 3b: total cost and cost per node of the complete networks.
    #[test]
    fn table_3_complete_networks() {
        let model = build(DEFAULT).unwrap();
        for (spec, total, per_node) in [
            ("fat-tree:k=8,n=4", 13977600, 3413),
            ("thin-tree:k=8,up=4,n=4", 4189500, 1023),
            ("thin-tree:k=8,up=2,n=4", 2310141, 564),
            ("slender-tree:k=8,up=4,n=8", 4451344, 1087),
            ("slender-tree:k=8,up=2,n=5", 2316935, 566),
            ("fat-tree:k=6,n=5", 26335125, 3387),
            ("thin-tree:k=9,up=3,n=4", 4875188, 743),
            ("slender-tree:k=9,up=3,n=6", 4929356, 751),
        ] {
            let t = topology::build(spec).unwrap();
            let c = model.price(t.as_ref(), &complete(t.as_ref())).unwrap();
            assert_eq!(rounded(&c), (total, per_node), "{spec}");
        }
    }

    /// Seed 004 Table 2b's U rows (switches and links used by 4096 central ranks) and Table 3b's U costs.
    #[test]
    fn tables_2_and_3_used_resources_of_4096_central_ranks() {
        let model = build(DEFAULT).unwrap();
        for (spec, switches, links, total, per_node) in [
            ("fat-tree:k=6,n=5", 4248, 21808, 16712138, 4080),
            ("thin-tree:k=8,up=4,n=4", 960, 7680, 4189500, 1023),
            ("thin-tree:k=9,up=3,n=4", 700, 6115, 3132094, 765),
            ("slender-tree:k=8,up=4,n=8", 1020, 8160, 4451344, 1087),
            ("slender-tree:k=9,up=3,n=6", 694, 6169, 3121209, 762),
        ] {
            let t = topology::build(spec).unwrap();
            let placed = crate::placement::build("central")
                .unwrap()
                .place(4096, t.as_ref(), 1)
                .unwrap();
            let inv = used(t.as_ref(), &placed, &central_cover(t.nodes(), 4096));
            assert_eq!(
                (inv.switches.len(), inv.links()),
                (switches, links),
                "{spec}"
            );
            let c = model.price(t.as_ref(), &inv).unwrap();
            assert_eq!(rounded(&c), (total, per_node), "{spec}");
        }
    }

    /// Without the half node the odd cases lose one leaf switch and its up-links (the naive rule).
    #[test]
    fn naive_cover_is_one_leaf_switch_short() {
        let t = topology::build("thin-tree:k=9,up=3,n=4").unwrap();
        let placed: Vec<u32> = (1232..1232 + 4096).collect();
        let inv = used(t.as_ref(), &placed, &placed);
        assert_eq!((inv.switches.len(), inv.links()), (699, 6112));
        assert_eq!(central_cover(6561, 4096).len(), 4097);
        assert_eq!(central_cover(7776, 4096).len(), 4096);
        assert_eq!(central_cover(4096, 4096).len(), 4096);
    }

    /// Direct networks: a router counts when it hosts a covered node; links between two used routers.
    #[test]
    fn used_on_a_mesh_counts_routers_of_placed_nodes() {
        let t = topology::build("mesh:k=4,n=2").unwrap();
        let placed = [0, 1, 2, 3];
        let inv = used(t.as_ref(), &placed, &placed);
        assert_eq!((inv.switches.len(), inv.node_links.len()), (4, 4));
        assert_eq!(inv.switch_links.len(), 3);
        let all = complete(t.as_ref());
        assert_eq!((all.switches.len(), all.links()), (16, 16 + 24));
    }

    #[test]
    fn unknown_models_list_the_accepted_ones() {
        let e = build("myricom").unwrap_err().to_string();
        assert!(e.contains("seed004") && e.contains("seed003"), "{e}");
    }
}
