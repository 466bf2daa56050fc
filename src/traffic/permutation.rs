//! `permutation`: a random permutation fixed for the run (seed 003's random permutation). Drawn as a
//! single cycle (Sattolo's algorithm), so no node sends to itself. Deterministic for the run's seed, or
//! for `seed=` if given.

use super::{Destinations, TrafficPattern, table};
use crate::error::Result;
use crate::rng::Rng;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "permutation",
    keys: &["seed"],
    help: "a random permutation without fixed points, fixed for the run; seed=N",
    build: |p| {
        let seed = p
            .raw("seed")
            .map(|_| p.u64_in("seed", None, 0, u64::MAX))
            .transpose()?;
        Ok(Box::new(Permutation { seed }))
    },
};

/// Random permutation traffic.
#[derive(Debug, Clone, Copy)]
pub struct Permutation {
    seed: Option<u64>,
}

impl TrafficPattern for Permutation {
    fn spec(&self) -> String {
        self.seed
            .map_or("permutation".into(), |s| format!("permutation:seed={s}"))
    }
    fn bind(&self, nodes: u32, seed: u64) -> Result<Destinations> {
        let mut rng = Rng::new(self.seed.unwrap_or(seed) ^ 0x7065_726d);
        let mut dest: Vec<u32> = (0..nodes).collect();
        for i in (1..nodes as usize).rev() {
            let j = rng.below(i as u32) as usize;
            dest.swap(i, j);
        }
        Ok(table(dest))
    }
}
