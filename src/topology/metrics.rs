//! Graph metrics of a built topology for `topology --json`: the switch-to-switch degree, diameter and
//! average distance between nodes by breadth-first search, and the hop counts of the routing
//! function's own paths (seed 001 Table I and Theorem 6 state them for MiKANT, Clos and the k-ary
//! n-tree).
//!
//! Distances count links between nodes, both node links included, as seeds 000, 001 and 004 do (two
//! nodes on one switch are 2 apart). BFS follows the direction of channels, so unidirectional
//! networks (RUFT) get their directed distances. `average_distance` is over ordered pairs of distinct
//! nodes; `average_distance_all_pairs` also averages in each node's distance 0 to itself, the
//! convention of seed 001's Theorem 6 and Table I.
//!
//! Exact computation runs one BFS per switch that nodes hang on, in parallel (rayon); its cost is
//! estimated as sources x (ports + nodes). Above [`Budget::work`] the average is estimated from BFS
//! from uniformly sampled source nodes instead, with a 95% confidence half-width (normal approximation
//! over the sampled sources' mean distances), and the diameter is the largest eccentricity seen (a
//! lower bound), among the sampled sources and the node farthest from the first of them (a double
//! sweep: on a mesh the first search ends at a corner, whose eccentricity is the diameter; the
//! average is over the uniform sources only). Route hop counts follow the first choice of the routing function for every ordered
//! pair of distinct nodes, or for uniformly sampled pairs above [`Budget::pairs`]. Sampling itself is
//! bounded in work ([`Budget::sampled_work`], [`Budget::sampled_hops`]): on the largest accepted
//! networks fewer sources or pairs are drawn, and the wider confidence interval says so.

use super::{Endpoint, OneWay, Topology, node_ejections, switch_distances, trace_route};
use crate::rng::Rng;
use rayon::prelude::*;
use serde::Serialize;

/// Limits above which metrics are sampled rather than exact.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Largest estimated BFS work (sources x (ports + nodes)) computed exactly.
    pub work: u64,
    /// Largest number of ordered node pairs whose routes are all traced.
    pub pairs: u64,
    /// Source nodes sampled when BFS is over budget.
    pub sampled_sources: u32,
    /// Node pairs sampled when routes are over budget.
    pub sampled_pairs: u32,
    /// Largest BFS work spent on sampled sources: fewer than `sampled_sources` (at least 2) are
    /// drawn when each BFS is large, so the largest accepted networks stay within seconds.
    pub sampled_work: u64,
    /// Largest number of links traced over sampled routes: fewer pairs are traced when routes are
    /// long (a million-node ring), in rounds, stopping once this is passed.
    pub sampled_hops: u64,
}

impl Budget {
    /// The default: distances exact up to about a second of work on two cores (the 4096-node trees
    /// are exact), routes traced for every pair up to 1000 nodes.
    pub const DEFAULT: Budget = Budget {
        work: 100_000_000,
        pairs: 1_000_000,
        sampled_sources: 256,
        sampled_pairs: 200_000,
        sampled_work: 600_000_000,
        sampled_hops: 200_000_000,
    };
    /// No sampling, whatever the size (`topology --exact`).
    pub const EXACT: Budget = Budget {
        work: u64::MAX,
        pairs: u64::MAX,
        sampled_sources: 0,
        sampled_pairs: 0,
        sampled_work: u64::MAX,
        sampled_hops: u64::MAX,
    };
}

/// Metrics of a topology, as `topology --json` reports them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    /// Largest distance between two distinct nodes (links); `None` if some node cannot reach another.
    pub diameter: Option<u32>,
    /// Whether `diameter` is a lower bound from sampled sources rather than exact.
    pub diameter_sampled: bool,
    /// Mean distance over ordered pairs of distinct nodes.
    pub average_distance: f64,
    /// Mean distance over all ordered pairs, a node to itself at 0 (seed 001 Theorem 6's convention).
    pub average_distance_all_pairs: f64,
    /// Whether the averages are estimated from sampled sources.
    pub average_distance_sampled: bool,
    /// 95% confidence half-width of `average_distance` when sampled (0 when exact).
    pub average_distance_error: f64,
    /// Mean links crossed by the routing function's paths (first choice at each hop).
    pub route_hops_mean: f64,
    /// Longest routing path found (links).
    pub route_hops_max: u32,
    /// Whether the route statistics are over sampled pairs.
    pub route_hops_sampled: bool,
}

/// Per-source-node statistics: sum of distances to other nodes, their count, the farthest.
fn from_switch(
    topo: &dyn Topology,
    eject: &[Vec<u32>],
    sw: u32,
    srcs: &[u32],
) -> Vec<(u64, u64, u32)> {
    let dist = switch_distances(topo, sw);
    let to: Vec<u32> = eject
        .iter()
        .map(|es| {
            es.iter()
                .map(|&e| dist[e as usize].saturating_add(2))
                .min()
                .unwrap_or(u32::MAX)
        })
        .collect();
    let total: u64 = to.iter().map(|&d| u64::from(d)).sum();
    let far = to.iter().copied().max().unwrap_or(0);
    srcs.iter()
        .map(|&s| {
            let own = u64::from(to[s as usize]);
            let others = to.iter().enumerate().filter(|&(n, _)| n as u32 != s);
            let far = if to[s as usize] == far {
                others.map(|(_, &d)| d).max().unwrap_or(0)
            } else {
                far
            };
            (total - own, to.len() as u64 - 1, far)
        })
        .collect()
}

/// Computes the metrics of `topo` within `budget`; sampling draws from `seed`.
pub fn metrics(topo: &dyn Topology, budget: Budget, seed: u64) -> Metrics {
    let nodes = topo.nodes();
    let eject = node_ejections(topo);
    // One search per switch that nodes hang on; the lists of its nodes are built only when every
    // switch is searched (on the largest networks they would take a gigabyte for nothing).
    let mut holds = vec![false; topo.switches() as usize];
    for n in 0..nodes {
        holds[topo.node_attachment(n).0 as usize] = true;
    }
    let attach_switches = holds.iter().filter(|&&h| h).count() as u64;
    drop(holds);
    let ports: u64 = (0..topo.switches()).map(|s| u64::from(topo.ports(s))).sum();
    let work = attach_switches * (ports + u64::from(nodes));
    let mut rng = Rng::new(seed);
    let sampled = work > budget.work && budget.sampled_sources > 0;
    let mut sweep_far = None;
    let stats: Vec<(u64, u64, u32)> = if sampled {
        let per_bfs = (ports + u64::from(nodes)).max(1);
        let sources = (budget.sampled_work / per_bfs).clamp(2, u64::from(budget.sampled_sources));
        let picks: Vec<u32> = (0..sources).map(|_| rng.below(nodes)).collect();
        sweep_far = farthest_node(topo, &eject, picks[0])
            .map(|far| from_switch(topo, &eject, topo.node_attachment(far).0, &[far])[0].2);
        picks
            .par_iter()
            .flat_map_iter(|&n| from_switch(topo, &eject, topo.node_attachment(n).0, &[n]))
            .collect()
    } else {
        let mut by_switch: Vec<(u32, Vec<u32>)> = Vec::new();
        let mut slot = vec![u32::MAX; topo.switches() as usize];
        for n in 0..nodes {
            let sw = topo.node_attachment(n).0;
            if slot[sw as usize] == u32::MAX {
                slot[sw as usize] = by_switch.len() as u32;
                by_switch.push((sw, Vec::new()));
            }
            by_switch[slot[sw as usize] as usize].1.push(n);
        }
        by_switch
            .par_iter()
            .flat_map_iter(|(sw, srcs)| from_switch(topo, &eject, *sw, srcs))
            .collect()
    };
    let unreachable = stats.iter().any(|s| s.2 == u32::MAX);
    let (sum, pairs) = stats.iter().fold((0u128, 0u128), |(a, b), s| {
        (a + u128::from(s.0), b + u128::from(s.1))
    });
    let average = if pairs == 0 {
        0.0
    } else {
        sum as f64 / pairs as f64
    };
    let error = if sampled && stats.len() > 1 {
        let means: Vec<f64> = stats
            .iter()
            .map(|s| s.0 as f64 / s.1.max(1) as f64)
            .collect();
        let m = means.iter().sum::<f64>() / means.len() as f64;
        let var = means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (means.len() - 1) as f64;
        1.96 * (var / means.len() as f64).sqrt()
    } else {
        0.0
    };
    let n = f64::from(nodes);
    let (hops_mean, hops_max, hops_sampled) = route_hops(topo, budget, &mut rng);
    Metrics {
        diameter: (!unreachable).then(|| {
            let seen = stats.iter().map(|s| s.2).max().unwrap_or(0);
            seen.max(sweep_far.unwrap_or(0))
        }),
        diameter_sampled: sampled,
        average_distance: average,
        average_distance_all_pairs: average * (n - 1.0) / n,
        average_distance_sampled: sampled,
        average_distance_error: error,
        route_hops_mean: hops_mean,
        route_hops_max: hops_max,
        route_hops_sampled: hops_sampled,
    }
}

/// The node farthest from node `from` (the first such), `None` when none other is reachable.
fn farthest_node(topo: &dyn Topology, eject: &[Vec<u32>], from: u32) -> Option<u32> {
    let dist = switch_distances(topo, topo.node_attachment(from).0);
    let to = |es: &Vec<u32>| {
        es.iter()
            .map(|&e| dist[e as usize])
            .min()
            .unwrap_or(u32::MAX)
    };
    eject
        .iter()
        .enumerate()
        .filter(|&(n, es)| n as u32 != from && to(es) != u32::MAX)
        .max_by_key(|&(n, es)| (to(es), std::cmp::Reverse(n)))
        .map(|(n, _)| n as u32)
}

/// Mean and max links of the routing function's paths, and whether they were sampled.
fn route_hops(topo: &dyn Topology, budget: Budget, rng: &mut Rng) -> (f64, u32, bool) {
    let nodes = topo.nodes();
    let all = u64::from(nodes) * u64::from(nodes - 1);
    if all == 0 {
        return (0.0, 0, false);
    }
    let hops = |src: u32, dst: u32| trace_route(topo, src, dst, |_| 0).unwrap_or(0);
    let (sum, max, count, sampled) = if all > budget.pairs && budget.sampled_pairs > 0 {
        // Rounds of doubling size, so a network of long routes stops after few pairs.
        let (mut sum, mut max, mut count, mut round) = (0u64, 0u32, 0u64, 64u64);
        while count < u64::from(budget.sampled_pairs) && sum < budget.sampled_hops {
            let take = round.min(u64::from(budget.sampled_pairs) - count);
            let pairs: Vec<(u32, u32)> = (0..take)
                .map(|_| {
                    let s = rng.below(nodes);
                    (s, (s + 1 + rng.below(nodes - 1)) % nodes)
                })
                .collect();
            let (s, m) = pairs
                .par_iter()
                .map(|&(s, d)| hops(s, d))
                .fold(|| (0u64, 0u32), |(a, m), h| (a + u64::from(h), m.max(h)))
                .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1.max(y.1)));
            (sum, max, count) = (sum + s, max.max(m), count + take);
            round *= 2;
        }
        (sum, max, count, true)
    } else {
        let (sum, max) = (0..nodes)
            .into_par_iter()
            .map(|s| {
                (0..nodes)
                    .filter(|&d| d != s)
                    .map(|d| hops(s, d))
                    .fold((0u64, 0u32), |(a, m), h| (a + u64::from(h), m.max(h)))
            })
            .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1.max(y.1)));
        (sum, max, all, false)
    };
    (sum as f64 / count as f64, max, sampled)
}

/// Switch-to-switch degree of the switching elements: links to another switch, each counted at both of
/// its switches (the degree seed 002 bounds for DSN-F, Theorem 1), as `topology --json` reports it. On
/// bidirectional networks that is the ports wired to a switch; a unidirectional link (RUFT) counts at
/// the switch it leaves and the one it enters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Degrees {
    /// Smallest degree of a switching element.
    pub degree_min: u64,
    /// Largest degree.
    pub degree_max: u64,
    /// Mean degree.
    pub degree_mean: f64,
}

/// The degree statistics of `topo`'s switch graph. A unidirectional link (RUFT's) counts at both of
/// its switches, as a bidirectional one does through the ports at its two ends.
pub fn degrees(topo: &dyn Topology) -> Degrees {
    let mut per_switch = vec![0u64; topo.switches() as usize];
    for sw in 0..topo.switches() {
        for p in 0..topo.ports(sw) {
            if let Endpoint::Switch { switch: far, .. } = topo.neighbour(sw, p) {
                per_switch[sw as usize] += 1;
                if topo.one_way(sw, p) == OneWay::Link {
                    per_switch[far as usize] += 1;
                }
            }
        }
    }
    Degrees {
        degree_min: per_switch.iter().copied().min().unwrap_or(0),
        degree_max: per_switch.iter().copied().max().unwrap_or(0),
        degree_mean: per_switch.iter().sum::<u64>() as f64 / per_switch.len().max(1) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::super::build;
    use super::{Budget, degrees, metrics};

    /// Seed 001 Table I: counts of the classical k-ary n-tree, the Clos k-ary n-tree and MiKANT for
    /// k in 2..=8, n in 2..=5 (by walking the wiring), and their diameter 2n and average distances
    /// (by BFS over all node pairs, Theorem 6 and equations (2) and (3)) wherever the network has at
    /// most 1024 nodes (at least 19 of the 28 (k, n) per family), every route at most 2n long.
    #[test]
    fn seed_001_table_i() {
        for k in 2u64..=8 {
            for n in 2u32..=5 {
                let kn = k.pow(n);
                let kn1 = k.pow(n - 1);
                let (nf, kf) = (f64::from(n), k as f64);
                let tail = 1.0 / ((kf - 1.0) * kn as f64);
                for (spec, nodes, switches, links, avg) in [
                    (
                        format!("fat-tree:k={k},n={n}"),
                        kn,
                        u64::from(n) * kn1,
                        u64::from(n) * kn,
                        2.0 * nf - 2.0 / (kf - 1.0) + 2.0 * tail,
                    ),
                    (
                        format!("clos:k={k},n={n}"),
                        2 * kn,
                        u64::from(2 * n - 1) * kn1,
                        u64::from(2 * n) * kn,
                        2.0 * nf - 1.0 / (kf - 1.0) + tail,
                    ),
                    (
                        format!("mikant:k={k},n={n}"),
                        2 * kn,
                        u64::from(2 * n - 2) * kn1,
                        u64::from(2 * n - 1) * kn,
                        2.0 * nf - 1.0 / (kf - 1.0) + tail - 0.5,
                    ),
                ] {
                    let t = build(&spec).unwrap();
                    let s = super::super::structure(t.as_ref());
                    assert_eq!(
                        (s.nodes, s.switches, s.links, s.radix),
                        (nodes, switches, links, 2 * k),
                        "{spec}"
                    );
                    if nodes <= 1024 {
                        let m = metrics(t.as_ref(), Budget::EXACT, 1);
                        assert_eq!(m.diameter, Some(2 * n), "{spec}");
                        assert!(
                            (m.average_distance_all_pairs - avg).abs() < 1e-9,
                            "{spec}: measured {} vs Table I {avg}",
                            m.average_distance_all_pairs
                        );
                        assert_eq!(m.route_hops_max, 2 * n, "{spec}");
                    }
                }
            }
        }
    }

    /// Sampling's stated error is an honest 95% interval on a network with uneven distances.
    #[test]
    fn sampled_average_is_within_its_bound() {
        let t = build("mesh:k=12,n=2").unwrap();
        let exact = metrics(t.as_ref(), Budget::EXACT, 1);
        let budget = Budget {
            work: 0,
            pairs: 0,
            sampled_sources: 200,
            sampled_pairs: 5000,
            ..Budget::DEFAULT
        };
        // A 95% interval: over 40 independent seeds, nearly all must cover the exact value.
        let mut covered = 0;
        for seed in 0..40 {
            let s = metrics(t.as_ref(), budget, seed);
            assert!(s.average_distance_sampled && s.average_distance_error > 0.0);
            // The double sweep reaches a corner, whose eccentricity is the diameter (2 x 11 + 2),
            // however few sources are drawn.
            assert!(s.diameter == Some(24) && s.diameter_sampled);
            let few = metrics(
                t.as_ref(),
                Budget {
                    sampled_sources: 2,
                    sampled_work: 1,
                    ..budget
                },
                seed,
            );
            assert_eq!(few.diameter, Some(24), "two sampled sources, seed {seed}");
            if (s.average_distance - exact.average_distance).abs() <= s.average_distance_error {
                covered += 1;
            }
        }
        assert!(
            covered >= 34,
            "only {covered} of 40 intervals cover the exact mean"
        );
        assert!(!exact.average_distance_sampled && exact.average_distance_error == 0.0);
        // Mesh routing is minimal DOR: the route mean equals the BFS average.
        assert!((exact.route_hops_mean - exact.average_distance).abs() < 1e-9);
        assert_eq!(exact.diameter, Some(2 * 11 + 2));
    }

    /// Degree statistics against hand counts: a torus is 4-regular; a 4-ary 3-tree's 16 leaves have 4
    /// up-links, its 16 middle switches 4 + 4, its 16 top switches 4 down-links (their up-ports unplugged).
    #[test]
    fn degree_statistics() {
        let torus = degrees(build("torus:k=4,n=2").unwrap().as_ref());
        assert_eq!(
            (torus.degree_min, torus.degree_max, torus.degree_mean),
            (4, 4, 4.0)
        );
        let tree = degrees(build("fat-tree:k=4,n=3").unwrap().as_ref());
        assert_eq!((tree.degree_min, tree.degree_max), (4, 8));
        assert!((tree.degree_mean - 256.0 / 48.0).abs() < 1e-12, "{tree:?}");
        // RUFT's one-way links count at both ends: 16 links over 8 switches, none left at 0.
        let ruft = degrees(build("ruft:k=4,n=2").unwrap().as_ref());
        assert_eq!(
            (ruft.degree_min, ruft.degree_max, ruft.degree_mean),
            (4, 4, 4.0)
        );
    }
}
