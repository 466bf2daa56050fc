//! `central`: the ranks on the central nodes of a larger network, in order (seed 004 §3.2, Fig. 3).
//!
//! Seed 004 places 4096 tasks on the 4096 central nodes of 6561- and 7776-node trees, leaving two
//! symmetrical unused parts. With F free nodes and R ranks, rank i runs on the (floor((F - R) / 2) + i)-th
//! free node (node floor((N - R) / 2) + i on an empty machine); an odd spare node goes to the right.

use super::{Available, Placement, plain};
use crate::error::Result;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Placement>> = plain!(
    "central",
    "ranks on the central nodes of a larger network (seed 004 §3.2)",
    central
);

/// Ranks on the central free nodes, in order.
fn central(ranks: u32, _topo: &dyn Topology, available: &Available) -> Result<Vec<u32>> {
    let free = available.free();
    let offset = (free.len() - ranks as usize) / 2;
    Ok(free[offset..offset + ranks as usize].to_vec())
}

#[cfg(test)]
mod tests {
    #[test]
    fn centres_4096_ranks_in_a_6561_node_tree() {
        let map = super::super::tests::place("central", "thin-tree:k=9,up=3,n=4", 4096);
        assert_eq!((map[0], map[4095]), (1232, 5327));
    }
}
