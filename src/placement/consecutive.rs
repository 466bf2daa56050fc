//! `consecutive`: rank i on node i, the locality-preserving mapping seed 004 assumes (§3.3).

use super::{Placement, check_fits};
use crate::error::Result;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Placement>> = Entry {
    name: "consecutive",
    keys: &[],
    help: "rank i on node i",
    build: |_| Ok(Box::new(Consecutive)),
};

/// Rank i on node i.
#[derive(Debug, Clone, Copy)]
pub struct Consecutive;

impl Placement for Consecutive {
    fn spec(&self) -> String {
        "consecutive".to_string()
    }
    fn place(&self, ranks: u32, topo: &dyn Topology, _seed: u64) -> Result<Vec<u32>> {
        check_fits(ranks, topo)?;
        Ok((0..ranks).collect())
    }
}
