//! Placement: which node each rank runs on. One file per policy, chosen by name from [`REGISTRY`].
//!
//! A policy maps ranks injectively onto the nodes that are [`Available`]: the whole machine, or what
//! other jobs and a fragmented machine (`busy=F` on any placement spec) leave free. Seed 004 §5.3 warns
//! that its results for narrowed trees rest on locality-preserving placement on an empty machine; these
//! policies let a study measure exactly that. Every policy is deterministic for a seed.

mod central;
mod consecutive;
mod contiguous;
mod fragmented;
mod map_file;
mod random;
mod round_robin;

use crate::error::{Error, Result};
use crate::spec::{Params, Registry, Spec};
use crate::topology::Topology;

/// Every placement policy, by spec name. One line per policy.
pub static REGISTRY: Registry<Box<dyn Placement>> = Registry {
    kind: "placement",
    entries: &[
        consecutive::ENTRY,
        central::ENTRY,
        random::ENTRY,
        round_robin::ENTRY,
        contiguous::ENTRY,
        map_file::ENTRY,
    ],
};

/// Builds a placement from its spec string, e.g. `random:seed=7` or `contiguous:busy=0.5`. Every policy
/// takes `busy=F` (and `busy_seed=N`): a fraction F of the nodes, chosen at random, is taken by other
/// work before the policy places on what is free.
pub fn build(text: &str) -> Result<Box<dyn Placement>> {
    let spec = Spec::parse(REGISTRY.kind, text)?;
    // The policy sees the whole spec, so that its errors quote what was written and an unknown
    // key's lists `busy` and `busy_seed` among the accepted ones.
    let policy = REGISTRY.build_with(&spec, fragmented::KEYS)?;
    let fragment = fragmented::busy(&Params::checked(REGISTRY.kind, &spec))?;
    Ok(match fragment {
        Some((busy, seed)) => Box::new(fragmented::Fragmented::new(policy, busy, seed)),
        None => policy,
    })
}

/// The nodes a placement may use, in increasing order, with a membership bitmap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Available {
    free: Vec<u32>,
    is_free: Vec<bool>,
}

impl Available {
    /// Every node of a machine of `nodes` nodes.
    pub fn all(nodes: u32) -> Self {
        Available {
            free: (0..nodes).collect(),
            is_free: vec![true; nodes as usize],
        }
    }

    /// These nodes minus `taken`.
    pub fn without(&self, taken: &[u32]) -> Self {
        let mut is_free = self.is_free.clone();
        for &n in taken {
            if let Some(f) = is_free.get_mut(n as usize) {
                *f = false;
            }
        }
        Available {
            free: self
                .free
                .iter()
                .copied()
                .filter(|&n| is_free[n as usize])
                .collect(),
            is_free,
        }
    }

    /// The free nodes, in increasing order.
    pub fn free(&self) -> &[u32] {
        &self.free
    }

    /// Whether `node` is free (false for nodes outside the machine).
    pub fn is_free(&self, node: u32) -> bool {
        self.is_free.get(node as usize).copied().unwrap_or(false)
    }

    /// Size of the machine, free or not.
    pub fn machine(&self) -> u32 {
        self.is_free.len() as u32
    }
}

/// A policy that maps ranks to nodes.
pub trait Placement: Send + Sync + std::fmt::Debug {
    /// The canonical spec string.
    fn spec(&self) -> String;
    /// The node of each rank, among `available`. `seed` is the run's seed, for policies whose spec
    /// gives none.
    fn place_on(
        &self,
        ranks: u32,
        topo: &dyn Topology,
        available: &Available,
        seed: u64,
    ) -> Result<Vec<u32>>;
    /// The node of each rank on an empty machine.
    fn place(&self, ranks: u32, topo: &dyn Topology, seed: u64) -> Result<Vec<u32>> {
        self.place_on(ranks, topo, &Available::all(topo.nodes()), seed)
    }
}

/// A policy without parameters (`consecutive`, `central`, `round-robin`, `contiguous`): its spec is
/// its name, and after the check that the ranks fit it places by a function of the rank count, the
/// topology and the free nodes. Its registry line is written [`plain!`].
#[derive(Clone, Copy)]
pub struct Plain {
    name: &'static str,
    place: fn(u32, &dyn Topology, &Available) -> Result<Vec<u32>>,
}

impl std::fmt::Debug for Plain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Placement for Plain {
    fn spec(&self) -> String {
        self.name.to_string()
    }
    fn place_on(
        &self,
        ranks: u32,
        topo: &dyn Topology,
        available: &Available,
        _seed: u64,
    ) -> Result<Vec<u32>> {
        check_fits(ranks, topo, available)?;
        (self.place)(ranks, topo, available)
    }
}

/// The registry line of a [`Plain`] policy: `plain!(NAME, HELP, FUNCTION)`.
macro_rules! plain {
    ($name:literal, $help:literal, $place:expr) => {
        $crate::spec::Entry {
            name: $name,
            keys: &[],
            help: $help,
            build: |_| {
                Ok(Box::new($crate::placement::Plain {
                    name: $name,
                    place: $place,
                }))
            },
        }
    };
}
use plain;

/// The error every policy gives when the workload does not fit in what is free.
pub(crate) fn check_fits(ranks: u32, topo: &dyn Topology, available: &Available) -> Result<()> {
    let free = available.free().len() as u32;
    if ranks > free {
        let why = if free == topo.nodes() {
            format!("`{}` has only {} nodes", topo.spec(), topo.nodes())
        } else {
            format!(
                "only {free} of the {} nodes of `{}` are free",
                topo.nodes(),
                topo.spec()
            )
        };
        return Err(Error::Invalid(format!(
            "the workload has {ranks} ranks but {why}; pass ranks=N in the workload spec or pick a larger topology"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `policy`'s map of `ranks` ranks on an empty machine of `topology`.
    pub(super) fn place(policy: &str, topology: &str, ranks: u32) -> Vec<u32> {
        let topo = crate::topology::build(topology).unwrap();
        build(policy)
            .unwrap()
            .place(ranks, topo.as_ref(), 0)
            .unwrap()
    }

    fn assert_injective(map: &[u32], available: &Available, what: &str) {
        let mut seen = vec![false; available.machine() as usize];
        for &n in map {
            assert!(available.is_free(n), "{what}: node {n} is not free");
            assert!(!seen[n as usize], "{what}: node {n} used twice");
            seen[n as usize] = true;
        }
    }

    #[test]
    fn every_policy_is_injective_and_deterministic_on_every_family() {
        let families = [
            "fat-tree:k=4,n=3",
            "thin-tree:k=4,up=2,n=3",
            "slender-tree:k=4,up=2,n=4",
            "mesh:k=8,n=2",
            "torus:k=4,n=3",
            "hypercube:n=6",
            "mikant:k=2,n=5",
            "clos:k=2,n=5",
            "flattened-butterfly:k=4,n=2,p=4",
            "kns:k=4,n=2,s=2,sub=ft,p=4",
            "ruft:k=4,n=3",
        ];
        let dir = std::env::temp_dir().join(format!("netreplay-map-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let map = dir.join("map.txt");
        let lines: String = (0..17).map(|r| format!("{r} {}\n", 63 - 3 * r)).collect();
        std::fs::write(&map, lines).unwrap();
        let file_spec = format!("file:path={}", map.display());
        for family in families {
            let topo = crate::topology::build(family).unwrap();
            for spec in [
                "consecutive",
                "central",
                "random",
                "random:seed=9",
                "round-robin",
                "contiguous",
                "consecutive:busy=0.5",
                "contiguous:busy=0.25,busy_seed=3",
                "round-robin:busy=0.3",
                file_spec.as_str(),
            ] {
                let p = build(spec).unwrap();
                for ranks in [1, 17, 32] {
                    if spec.starts_with("file") && ranks != 17 {
                        continue;
                    }
                    let all = Available::all(topo.nodes());
                    let got = p.place_on(ranks, topo.as_ref(), &all, 3).unwrap();
                    assert_eq!(got.len(), ranks as usize);
                    assert_injective(&got, &all, &format!("{spec} on {family}"));
                    assert_eq!(
                        got,
                        p.place_on(ranks, topo.as_ref(), &all, 3).unwrap(),
                        "{spec}"
                    );
                    // On what another job left free.
                    let rest = all.without(&(0..20).collect::<Vec<_>>());
                    if !spec.starts_with("file") && !spec.contains("busy") {
                        let got = p.place_on(ranks, topo.as_ref(), &rest, 3).unwrap();
                        assert_injective(
                            &got,
                            &rest,
                            &format!("{spec} on {family} after another job"),
                        );
                    }
                }
                if !spec.starts_with("file") {
                    let e = p.place(65, topo.as_ref(), 3).unwrap_err().to_string();
                    assert!(e.contains("65 ranks"), "{e}");
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn busy_machines_leave_the_right_number_of_nodes() {
        let topo = crate::topology::build("fat-tree:k=4,n=3").unwrap();
        let p = build("consecutive:busy=0.5").unwrap();
        assert_eq!(p.spec(), "consecutive:busy=0.5");
        assert!(p.place(32, topo.as_ref(), 1).is_ok());
        let e = p.place(33, topo.as_ref(), 1).unwrap_err().to_string();
        assert!(e.contains("only 32 of the 64 nodes"), "{e}");
        assert!(build("random:busy=1.5").is_err());
    }
}
