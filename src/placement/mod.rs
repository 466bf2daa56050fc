//! Placement: which node each rank runs on. One file per policy, chosen by name from [`REGISTRY`].
//!
//! A placement returns an injective map rank -> node; it is deterministic for a seed.

mod central;
mod consecutive;
mod random;

use crate::error::{Error, Result};
use crate::spec::Registry;
use crate::topology::Topology;

/// Every placement policy, by spec name. One line per policy.
pub static REGISTRY: Registry<Box<dyn Placement>> = Registry {
    kind: "placement",
    entries: &[consecutive::ENTRY, central::ENTRY, random::ENTRY],
};

/// Builds a placement from its spec string, e.g. `random:seed=7`.
pub fn build(spec: &str) -> Result<Box<dyn Placement>> {
    REGISTRY.build_str(spec)
}

/// A policy that maps ranks to nodes.
pub trait Placement: Send + Sync + std::fmt::Debug {
    /// The canonical spec string.
    fn spec(&self) -> String;
    /// The node of each rank. `seed` is the run's seed, for policies whose spec gives none.
    fn place(&self, ranks: u32, topo: &dyn Topology, seed: u64) -> Result<Vec<u32>>;
}

/// The error every policy gives when the workload does not fit.
pub(crate) fn check_fits(ranks: u32, topo: &dyn Topology) -> Result<()> {
    if ranks > topo.nodes() {
        return Err(Error::Invalid(format!(
            "the workload has {ranks} ranks but `{}` has only {} nodes; pass ranks=N in the workload spec or pick a larger topology",
            topo.spec(),
            topo.nodes()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_policy_is_injective_and_deterministic() {
        let topo = crate::topology::build("thin-tree:k=4,up=2,n=3").unwrap();
        for spec in ["consecutive", "central", "random", "random:seed=9"] {
            let p = build(spec).unwrap();
            for ranks in [1, 17, 64] {
                let map = p.place(ranks, topo.as_ref(), 3).unwrap();
                assert_eq!(map.len(), ranks as usize);
                let mut seen = [false; 64];
                for &n in &map {
                    assert!(!seen[n as usize], "{spec}: node {n} used twice");
                    seen[n as usize] = true;
                }
                assert_eq!(map, p.place(ranks, topo.as_ref(), 3).unwrap(), "{spec}");
            }
            let e = p.place(65, topo.as_ref(), 3).unwrap_err().to_string();
            assert!(e.contains("65 ranks") && e.contains("64 nodes"), "{e}");
        }
    }
}
