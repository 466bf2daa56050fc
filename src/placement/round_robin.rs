//! `round-robin`: ranks dealt across the leaf switches (routers, for direct networks) one at a time, so
//! consecutive ranks land on different switches: the scattering a locality-blind scheduler produces,
//! but deterministic.

use super::{Available, Placement, plain};
use crate::error::Result;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Placement>> = plain!(
    "round-robin",
    "ranks dealt across leaf switches / routers in turn",
    round_robin
);

/// Ranks dealt across switches.
fn round_robin(ranks: u32, topo: &dyn Topology, available: &Available) -> Result<Vec<u32>> {
    // Free nodes grouped by the switch they hang on, switches in id order.
    let mut by_switch: Vec<Vec<u32>> = vec![Vec::new(); topo.switches() as usize];
    for &node in available.free() {
        by_switch[topo.node_attachment(node).0 as usize].push(node);
    }
    by_switch.retain(|nodes| !nodes.is_empty());
    let mut map = Vec::with_capacity(ranks as usize);
    let mut round = 0;
    while map.len() < ranks as usize {
        for nodes in &by_switch {
            if let Some(&n) = nodes.get(round)
                && map.len() < ranks as usize
            {
                map.push(n);
            }
        }
        round += 1;
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    #[test]
    fn consecutive_ranks_on_different_leaf_switches() {
        let map = super::super::tests::place("round-robin", "fat-tree:k=4,n=3", 20);
        assert_eq!(map[..4], [0, 4, 8, 12]);
        assert_eq!(map[16..], [1, 5, 9, 13]);
    }
}
