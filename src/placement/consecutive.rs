//! `consecutive`: rank i on the i-th free node (node i on an empty machine), the locality-preserving
//! mapping seed 004 assumes (§3.3).

use super::{Available, Placement, check_fits};
use crate::error::Result;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Placement>> = Entry {
    name: "consecutive",
    keys: &[],
    help: "rank i on the i-th free node (node i on an empty machine)",
    build: |_| Ok(Box::new(Consecutive)),
};

/// Rank i on node i.
#[derive(Debug, Clone, Copy)]
pub struct Consecutive;

impl Placement for Consecutive {
    fn spec(&self) -> String {
        "consecutive".to_string()
    }
    fn place_on(
        &self,
        ranks: u32,
        topo: &dyn Topology,
        available: &Available,
        _seed: u64,
    ) -> Result<Vec<u32>> {
        check_fits(ranks, topo, available)?;
        Ok(available.free()[..ranks as usize].to_vec())
    }
}
