//! `consecutive`: rank i on the i-th free node (node i on an empty machine), the locality-preserving
//! mapping seed 004 assumes (§3.3).

use super::{Available, Placement, plain};
use crate::error::Result;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Placement>> = plain!(
    "consecutive",
    "rank i on the i-th free node (node i on an empty machine)",
    consecutive
);

/// Rank i on the i-th free node.
fn consecutive(ranks: u32, _topo: &dyn Topology, available: &Available) -> Result<Vec<u32>> {
    Ok(available.free()[..ranks as usize].to_vec())
}
