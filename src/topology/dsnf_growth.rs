//! Growing a DSN-F network node by node (seed 002 §III-D, Fig. 4): what each step adds, what a
//! transformation from DLN-p to DLN-(p+1) super-nodes rewires, and the diameter and average shortest
//! path length along the way.
//!
//! **Between transformations** a step adds nodes in label order (§III-B's labelling: layer
//! `i / N`, super-node `(i / p) mod 2^p`, `N = p 2^p`), which only adds the new nodes' own cables: the
//! grown network is the one `dsnf:n=` builds.
//!
//! **Towards a transformation.** §III-D transforms when every super-node holds `2p + 2` nodes, two of
//! them in layer 2 (Fig. 3(a)), but the labelling fills layer 2 group by group (at `(p+1) 2^(p+1)`
//! nodes it would hold `2^(p+1) / p` whole groups). We follow the transformation: past `2N` nodes,
//! node `2N + j` joins super-node `j / 2` at level `j mod 2 + 1` of layer 2, with its Layer_Link to
//! the same level of layer 1 and, as level 2, a Local_Link to level 1 (a group of two is a path, as
//! every partial group). So between `2N` and `(p+1) 2^(p+1)` the grown network is not the one
//! `dsnf:n=` builds; at `(p+1) 2^(p+1)` it is again, once transformed.
//!
//! **The transformation** splits super-node S into S_A = 2S (layer 0's levels 1..p and layer 2's
//! level 1 as level p + 1) and S_B = 2S + 1 (layer 1's levels and layer 2's level 2 as level p + 1),
//! all in one layer; the cables are then those of the labelling with p + 1. Per old super-node it
//! removes p + 5 of its 4p + 3 cables (the p Layer_Links between layers 0 and 1, layer 2's Layer_Link
//! of level 2 and its Local_Link, one Local_Link of each ring where level p + 1 goes in, and the Succ of
//! level p) and adds p + 6 (two in each ring, the new Shortcut of S_A's level p, S_B's p Shortcuts,
//! the Succ from S_B's level p + 1). The paper counts p + 7 rewired of 4p + 4 (§III-E): its two-node
//! ring in layer 2 has two cables between the same pair (Local_Pred and Local_Succ), a simple graph
//! one; and it counts as rewired the Layer_Link of layer 2's level 1, which already joins the two ends
//! of the Succ from S_A's level p + 1 to S_B's level 1 (this module keeps it).

use super::dsnf::Dsnf;
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::{BTreeSet, VecDeque};

/// One row of a growth: the network after the step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GrowthStep {
    /// Nodes (one per switch) after the step, and how many were added since the start.
    pub nodes: u32,
    pub added_nodes: u32,
    /// Size of the shortcut set (DLN-p super-nodes).
    pub p: u32,
    /// Cables after the step, cables added and removed by it (removed only by a transformation).
    pub cables: u64,
    pub cables_added: u64,
    pub cables_removed: u64,
    /// The step crossed a transformation from p - 1 to p.
    pub transformed: bool,
    /// Diameter and average shortest path length over ordered pairs of distinct switches, in hops.
    pub diameter: u32,
    pub aspl: f64,
    /// The network is the one `dsnf:n=NODES` builds (false only between 2N and (p+1) 2^(p+1)).
    pub as_built: bool,
}

/// Largest network a growth reaches, and most steps it takes.
pub const MAX_NODES: u32 = 16384;
pub const MAX_STEPS: u32 = 1024;

/// Grows `dsnf:n=from` to `to` nodes, `step` at a time (the last step may be shorter).
pub fn grow(from: u32, to: u32, step: u32) -> Result<Vec<GrowthStep>> {
    // Every step measures all pairs by BFS (n x cables), so sizes and step counts are bounded.
    if from < 8
        || to <= from
        || to > MAX_NODES
        || step == 0
        || (to - from).div_ceil(step) > MAX_STEPS
    {
        return Err(Error::Invalid(format!(
            "--grow-to needs 8 <= from < to <= {MAX_NODES} and at most {MAX_STEPS} steps (got {from} \
             to {to}, step {step})"
        )));
    }
    let mut p = Dsnf::p_for(from);
    let threshold = |p: u32| (p + 1) << (p + 1);
    if from > 2 * (p << p) {
        return Err(Error::Invalid(format!(
            "dsnf:n={from} is past two full layers (2N = {}): growth starts from at most 2N nodes or \
             from {} (where the labelling and the transformation agree)",
            2 * (p << p),
            threshold(p)
        )));
    }
    let mut edges: BTreeSet<(u32, u32)> = Dsnf::edges(from, p)?.into_iter().collect();
    let mut rows = vec![row(from, from, p, &edges, 0, 0, false)?];
    let mut n = from;
    while n < to {
        let target = n.saturating_add(step).min(to);
        let (mut added, mut removed, mut transformed) = (0u64, 0u64, false);
        while n < target {
            let next = target.min(threshold(p));
            // Up to two full layers the grown network is the labelling's (checked: nothing removed).
            let labelled = next.min(2 * (p << p));
            if n < labelled {
                let (a, r) = replace(&mut edges, Dsnf::edges(labelled, p)?);
                (added, removed) = (added + a, removed + r);
                n = labelled;
            }
            let before = edges.len();
            for i in n..next {
                add_layer_2_node(&mut edges, i, p);
            }
            added += (edges.len() - before) as u64;
            n = next;
            if n == threshold(p) {
                let (a, r) = transform(&mut edges, n, p)?;
                (added, removed, transformed) = (added + a, removed + r, true);
                p += 1;
            }
        }
        rows.push(row(n, from, p, &edges, added, removed, transformed)?);
    }
    Ok(rows)
}

/// Adds node `i` past two full layers (the network has nodes 0..i), as the transformation's premise
/// places it: node `2N + j` at level `j mod 2 + 1` of super-node `j / 2`, with its Layer_Link and, as
/// level 2, a Local_Link to level 1.
fn add_layer_2_node(edges: &mut BTreeSet<(u32, u32)>, i: u32, p: u32) {
    let big_n = p << p;
    let j = i - 2 * big_n;
    let (s, level) = (j / 2, j % 2 + 1);
    edges.insert((big_n + s * p + level - 1, i));
    if level == 2 {
        edges.insert((i - 1, i));
    }
}

/// Replaces the cables with `new` and returns how many were (added, removed).
fn replace(edges: &mut BTreeSet<(u32, u32)>, new: Vec<(u32, u32)>) -> (u64, u64) {
    let new: BTreeSet<(u32, u32)> = new.into_iter().collect();
    let added = new.difference(edges).count() as u64;
    let removed = edges.difference(&new).count() as u64;
    *edges = new;
    (added, removed)
}

/// The transformation at `n = (p+1) 2^(p+1)` nodes: relabels every cable to shortcut-set size p + 1,
/// replaces the set with that labelling's, and returns (added, removed).
fn transform(edges: &mut BTreeSet<(u32, u32)>, n: u32, p: u32) -> Result<(u64, u64)> {
    let big_n = p << p;
    let q = p + 1;
    let new_id = |i: u32| -> u32 {
        let (s_new, level) = if i < 2 * big_n {
            let s = (i / p) % (1 << p);
            (2 * s + i / big_n, i % p + 1)
        } else {
            let j = i - 2 * big_n;
            (2 * (j / 2) + j % 2, q)
        };
        s_new * q + level - 1
    };
    *edges = edges
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (new_id(a), new_id(b));
            (a.min(b), a.max(b))
        })
        .collect();
    Ok(replace(edges, Dsnf::edges(n, q)?))
}

fn row(
    n: u32,
    from: u32,
    p: u32,
    edges: &BTreeSet<(u32, u32)>,
    added: u64,
    removed: u64,
    transformed: bool,
) -> Result<GrowthStep> {
    let (diameter, aspl) = distances(n, edges);
    let built: BTreeSet<(u32, u32)> = Dsnf::edges(n, Dsnf::p_for(n))?.into_iter().collect();
    Ok(GrowthStep {
        nodes: n,
        added_nodes: n - from,
        p,
        cables: edges.len() as u64,
        cables_added: added,
        cables_removed: removed,
        transformed,
        diameter,
        aspl,
        as_built: built == *edges,
    })
}

/// Diameter and mean distance over ordered pairs of distinct switches, by BFS from every switch.
fn distances(n: u32, edges: &BTreeSet<(u32, u32)>) -> (u32, f64) {
    let mut adj = vec![Vec::new(); n as usize];
    for &(a, b) in edges {
        adj[a as usize].push(b);
        adj[b as usize].push(a);
    }
    let (mut diameter, mut sum) = (0u32, 0u64);
    let mut dist = vec![u32::MAX; n as usize];
    let mut queue = VecDeque::new();
    for src in 0..n {
        dist.fill(u32::MAX);
        dist[src as usize] = 0;
        queue.push_back(src);
        while let Some(u) = queue.pop_front() {
            let d = dist[u as usize];
            sum += u64::from(d);
            diameter = diameter.max(d);
            for &v in &adj[u as usize] {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = d + 1;
                    queue.push_back(v);
                }
            }
        }
    }
    let pairs = u64::from(n) * u64::from(n - 1);
    (diameter, sum as f64 / pairs.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Growing one node at a time from the first network of p = 4 (64 nodes) to 160 = 5 x 2^5, and of
    /// p = 5 from 160 to 384: every step up to 2N and the last are the networks `dsnf:n=` builds, and
    /// the transformation removes p + 5 of the 4p + 3 cables of each old super-node (module notes)
    /// and adds p + 6.
    #[test]
    fn growth_to_a_transformation_rewires_p_plus_5_cables_per_super_node() {
        for (p, from) in [(4u32, 64u32), (5, 160)] {
            let to = (p + 1) << (p + 1);
            let rows = grow(from, to, 1).unwrap();
            let supernodes = 1u64 << p;
            let before = &rows[rows.len() - 2];
            // The last node brings its Layer_Link and Local_Link: 4p + 3 cables per super-node.
            assert_eq!(
                before.cables + 2,
                (4 * u64::from(p) + 3) * supernodes,
                "p = {p}"
            );
            let last = rows.last().unwrap();
            assert!(last.transformed && last.as_built, "{last:?}");
            assert_eq!(last.p, p + 1);
            assert_eq!(last.cables_removed, (u64::from(p) + 5) * supernodes);
            assert_eq!(last.cables_added, (u64::from(p) + 6) * supernodes + 2);
            assert_eq!(last.cables, (4 * u64::from(p) + 4) * supernodes);
            for r in &rows[..rows.len() - 1] {
                // Layer 2's first two nodes are super-node 0's levels 1 and 2 either way.
                assert_eq!(r.as_built, r.nodes <= 2 * (p << p) + 2, "{r:?}");
                assert!(!r.transformed);
            }
            // Between transformations a node only adds cables, at most 3 of its own.
            assert!(
                rows[1..rows.len() - 1]
                    .iter()
                    .all(|r| r.cables_removed == 0 && (1..=3).contains(&r.cables_added))
            );
        }
    }

    /// Fig. 4's growth from 1,024 to 2,048 nodes ends at the network `dsnf:n=2048` builds, with the
    /// diameter of Theorem 1's bound or below all along.
    #[test]
    fn fig_4_growth_ends_at_the_built_network() {
        let rows = grow(1024, 2048, 256).unwrap();
        assert_eq!(
            rows.iter().map(|r| r.nodes).collect::<Vec<_>>(),
            [1024, 1280, 1536, 1792, 2048]
        );
        let last = rows.last().unwrap();
        assert!(last.as_built && last.transformed && last.p == 8);
        for r in &rows {
            let layers = r.nodes.div_ceil(r.p << r.p);
            assert!(r.diameter <= 2 * (r.p + layers - 1) + 2, "{r:?}");
        }
        assert!(grow(1024, 1000, 1).is_err());
        assert!(grow(1024, 4096, 1).is_err(), "3,072 steps");
        assert!(grow(1024, 1 << 20, u32::MAX).is_err(), "too large");
    }
}
