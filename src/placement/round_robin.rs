//! `round-robin`: ranks dealt across the leaf switches (routers, for direct networks) one at a time, so
//! consecutive ranks land on different switches: the scattering a locality-blind scheduler produces,
//! but deterministic.

use super::{Available, Placement, check_fits};
use crate::error::Result;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Placement>> = Entry {
    name: "round-robin",
    keys: &[],
    help: "ranks dealt across leaf switches / routers in turn",
    build: |_| Ok(Box::new(RoundRobin)),
};

/// Ranks dealt across switches.
#[derive(Debug, Clone, Copy)]
pub struct RoundRobin;

impl Placement for RoundRobin {
    fn spec(&self) -> String {
        "round-robin".into()
    }
    fn place_on(
        &self,
        ranks: u32,
        topo: &dyn Topology,
        available: &Available,
        _seed: u64,
    ) -> Result<Vec<u32>> {
        check_fits(ranks, topo, available)?;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_ranks_on_different_leaf_switches() {
        let topo = crate::topology::build("fat-tree:k=4,n=3").unwrap();
        let map = RoundRobin.place(20, topo.as_ref(), 0).unwrap();
        assert_eq!(map[..4], [0, 4, 8, 12]);
        assert_eq!(map[16..], [1, 5, 9, 13]);
    }
}
