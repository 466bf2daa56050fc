//! `random`: ranks on a uniformly random set of nodes in random order, as a scheduler that sees the
//! machine as a flat pool would place them (seed 004 §5.3). Deterministic for its seed.

use super::{Available, Placement, check_fits};
use crate::error::Result;
use crate::rng::Rng;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Placement>> = Entry {
    name: "random",
    keys: &["seed"],
    help: "random injective map; seed=N (default: the run's --seed)",
    build: |p| {
        let seed = p
            .raw("seed")
            .map(|_| p.u64_in("seed", None, 0, u64::MAX))
            .transpose()?;
        Ok(Box::new(Random { seed }))
    },
};

/// A seeded random permutation of the nodes, truncated to the rank count.
#[derive(Debug, Clone, Copy)]
pub struct Random {
    seed: Option<u64>,
}

impl Placement for Random {
    fn spec(&self) -> String {
        match self.seed {
            Some(s) => format!("random:seed={s}"),
            None => "random".to_string(),
        }
    }
    fn place_on(
        &self,
        ranks: u32,
        topo: &dyn Topology,
        available: &Available,
        seed: u64,
    ) -> Result<Vec<u32>> {
        check_fits(ranks, topo, available)?;
        let mut nodes = available.free().to_vec();
        Rng::new(self.seed.unwrap_or(seed) ^ 0x706c_6163_656d_656e).shuffle(&mut nodes);
        nodes.truncate(ranks as usize);
        Ok(nodes)
    }
}
