//! Fault tolerance by random link removal (seed 003 §III-A-4, Table 5): remove a random fraction of the
//! switch-to-switch links, in 5% steps, 100 trials per step, and report the largest fraction that
//! leaves the network connected in more than half of the trials.
//!
//! "Connected" means every node can still reach every other node: the switches that host nodes lie in
//! one component (a switch without nodes, e.g. a tree's top switch, may be cut off). Links count as
//! undirected for connectivity, node links are never removed (seed 000 §5.4 notes that a single
//! injection link always isolates its node). Trials run in parallel; each is seeded, so results are
//! deterministic.
//!
//! At about 1000 terminals this reproduces Table 5 for FleX (75%), HyperX (75%) and dragonfly (55%),
//! and gives Slim Fly 65% (the table has 60% at 500 and 70% at 2000). For the 3-level fat tree we get
//! 60%, not 45%: with 10 up-links per leaf switch, the first disconnection is a leaf losing all ten,
//! which at 45% happens in under 2% of trials; the paper's criterion for trees must differ.

use super::{Endpoint, Topology};
use crate::disjoint_sets::root;
use crate::rng::Rng;
use rayon::prelude::*;
use serde::Serialize;

/// Connectivity at one failure fraction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FaultStep {
    /// Fraction of switch-to-switch links removed.
    pub fraction: f64,
    /// Links removed in each trial.
    pub links_removed: u64,
    /// Share of trials that stayed connected.
    pub connected: f64,
}

/// Seed 003's fault-tolerance measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FaultTolerance {
    /// Trials per step.
    pub trials: u32,
    /// Switch-to-switch links subject to failure.
    pub links: u64,
    /// The largest fraction connected in more than half of the trials (0 if even 5% disconnects).
    pub tolerated: f64,
    /// Every step from 5% to 95%.
    pub steps: Vec<FaultStep>,
}

/// Runs the measure with `trials` trials per 5% step.
pub fn fault_tolerance(topo: &dyn Topology, trials: u32, seed: u64) -> FaultTolerance {
    let mut edges = Vec::new();
    let mut hosts = vec![false; topo.switches() as usize];
    for sw in 0..topo.switches() {
        for port in 0..topo.ports(sw) {
            match topo.neighbour(sw, port) {
                Endpoint::Switch { switch, port: back } if (sw, port) < (switch, back) => {
                    edges.push((sw, switch))
                }
                Endpoint::Node(_) => hosts[sw as usize] = true,
                _ => {}
            }
        }
    }
    let hosting: Vec<u32> = (0..topo.switches())
        .filter(|&s| hosts[s as usize])
        .collect();
    let connected_after = |removed: usize, trial: u64| -> bool {
        let mut order: Vec<u32> = (0..edges.len() as u32).collect();
        let mut rng = Rng::new(seed ^ trial.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        // Partial Fisher-Yates: the first `removed` entries are a uniform random subset.
        for i in 0..removed.min(order.len()) {
            let j = i + rng.below((order.len() - i) as u32) as usize;
            order.swap(i, j);
        }
        let mut parent: Vec<u32> = (0..topo.switches()).collect();
        for &e in &order[removed.min(order.len())..] {
            let (a, b) = edges[e as usize];
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra as usize] = rb;
        }
        let first = hosting.first().map(|&h| root(&mut parent, h));
        hosting.iter().all(|&h| Some(root(&mut parent, h)) == first)
    };
    let steps: Vec<FaultStep> = (1u32..20)
        .map(|step| {
            let fraction = f64::from(step) * 0.05;
            let removed = (fraction * edges.len() as f64).round() as usize;
            let ok = (0..u64::from(trials))
                .into_par_iter()
                .filter(|&t| connected_after(removed, (u64::from(step) << 32) | t))
                .count();
            FaultStep {
                fraction: (fraction * 100.0).round() / 100.0,
                links_removed: removed as u64,
                connected: ok as f64 / f64::from(trials.max(1)),
            }
        })
        .collect();
    let tolerated = steps
        .iter()
        .filter(|s| s.connected > 0.5)
        .map(|s| s.fraction)
        .fold(0.0, f64::max);
    FaultTolerance {
        trials,
        links: edges.len() as u64,
        tolerated,
        steps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An 8-router ring survives one failed link but never two: up to round(0.15 * 8) = 1 link removed
    /// it stays connected, from 20% (2 links) on it is always cut.
    #[test]
    fn a_ring_tolerates_exactly_one_failure() {
        let ring = crate::topology::build("torus:k=8,n=1").unwrap();
        let ft = fault_tolerance(ring.as_ref(), 100, 1);
        assert_eq!(ft.links, 8);
        assert_eq!(ft.tolerated, 0.15);
        assert_eq!(ft.steps[2].connected, 1.0);
        assert_eq!(ft.steps[3].connected, 0.0);
    }

    /// Seed 003 Table 5, networks of about 1000 terminals (Table 6's configurations).
    #[test]
    fn table_5_at_about_1000_terminals() {
        for (spec, expected) in [
            ("flex:x=6,y=6,z=3,p=10", 0.75),
            ("hyperx:l=2,s=10,t=10", 0.75),
            ("dragonfly:p=4,a=8,h=4", 0.55),
        ] {
            let t = crate::topology::build(spec).unwrap();
            assert_eq!(
                fault_tolerance(t.as_ref(), 100, 1).tolerated,
                expected,
                "{spec}"
            );
        }
    }

    #[test]
    fn deterministic_and_monotone_on_a_richer_network() {
        let t = crate::topology::build("hyperx:l=2,s=6,t=1").unwrap();
        let a = fault_tolerance(t.as_ref(), 40, 7);
        assert_eq!(a, fault_tolerance(t.as_ref(), 40, 7));
        assert!(a.tolerated >= 0.5, "{}", a.tolerated);
        assert!(
            a.steps
                .windows(2)
                .all(|w| w[0].connected + 0.2 >= w[1].connected)
        );
    }
}
