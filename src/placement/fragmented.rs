//! The fragmented-machine mode: before the policy places, a seeded random fraction of the nodes is
//! taken by other work, as on a production machine where a scheduler sees the machine as a flat pool
//! (seed 004 §5.3). Written `busy=F[,busy_seed=N]` on any placement spec.

use super::{Available, Placement};
use crate::error::Result;
use crate::rng::Rng;
use crate::spec::Params;
use crate::topology::Topology;

/// The keys every placement spec takes for this mode.
pub(super) const KEYS: &[&str] = &["busy", "busy_seed"];

/// `busy` and `busy_seed` of a placement spec: (fraction, seed) if `busy` was given.
pub(super) fn busy(p: &Params) -> Result<Option<(f64, Option<u64>)>> {
    let Some(text) = p.raw("busy") else {
        if p.raw("busy_seed").is_some() {
            return Err(p.invalid("busy_seed needs busy=F"));
        }
        return Ok(None);
    };
    let busy = text
        .parse::<f64>()
        .ok()
        .filter(|b| (0.0..1.0).contains(b))
        .ok_or_else(|| p.invalid(format!("busy={text} must be a fraction in 0..1")))?;
    let seed = p
        .raw("busy_seed")
        .map(|_| p.u64_in("busy_seed", None, 0, u64::MAX))
        .transpose()?;
    Ok(Some((busy, seed)))
}

/// A policy placing on a machine whose nodes are partly busy.
#[derive(Debug)]
pub struct Fragmented {
    policy: Box<dyn Placement>,
    busy: f64,
    seed: Option<u64>,
}

impl Fragmented {
    /// `policy` on a machine with a fraction `busy` of its nodes taken.
    pub fn new(policy: Box<dyn Placement>, busy: f64, seed: Option<u64>) -> Self {
        Fragmented { policy, busy, seed }
    }
}

impl Placement for Fragmented {
    fn spec(&self) -> String {
        let inner = self.policy.spec();
        let sep = if inner.contains(':') { ',' } else { ':' };
        let seed = self
            .seed
            .map_or(String::new(), |s| format!(",busy_seed={s}"));
        format!("{inner}{sep}busy={}{seed}", self.busy)
    }

    fn place_on(
        &self,
        ranks: u32,
        topo: &dyn Topology,
        available: &Available,
        seed: u64,
    ) -> Result<Vec<u32>> {
        let mut nodes: Vec<u32> = (0..topo.nodes()).collect();
        Rng::new(self.seed.unwrap_or(seed) ^ 0x6275_7379).shuffle(&mut nodes);
        nodes.truncate((self.busy * f64::from(topo.nodes())).round() as usize);
        self.policy
            .place_on(ranks, topo, &available.without(&nodes), seed)
    }
}
