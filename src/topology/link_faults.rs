//! Worst-case link fault tolerance (seed 000 §5.4): the largest number of switch-to-switch link
//! failures that leaves every compute node able to reach every other, whichever links fail.
//!
//! It is one less than the least number of links whose failure disconnects some pair of nodes (the
//! edge connectivity between the switches that hold nodes). §5.4 gives it in closed form: a mesh
//! tolerates n_d - 1 (a corner router has n_d links), a torus 2n_d - 1, a k-ary n-tree k_i - 1 (a
//! leaf switch's up-links), a flattened butterfly (k_f - 1)n_f - 1 and a KNS n_h - 1 (a router has one
//! link per dimension). Families that give a closed form answer through
//! [`Topology::link_faults_tolerated`]; the others are computed exactly by maximum flow. Injection and
//! ejection links are never failed (§5.4: "We have not considered faults in injection links").
//!
//! Links are directed as the channels run: a failed bidirectional link loses both directions, a
//! one-way link (RUFT, seed 000 §3.1) its one. With unit capacity per channel, the least s-t cut counts
//! failed links exactly: of the two channels of a link (or a KNS router's split link) at most one
//! crosses from the source's side to the sink's. Nodes of one switch (or of one pair of injection and
//! ejection switches) are alike, so with one such class fixed, the answer is the least flow between it
//! and each class, both ways (a failure set that cuts some pair cuts one of those). Each flow stops
//! once it reaches the least found so far, so the work is about 2 x classes x (answer + 1) searches
//! of the switch graph; above [`MAX_WORK`] the report says it was skipped.

use super::{Endpoint, Topology, node_ejections};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};

/// Largest estimated work (flows x searches x (switches + channels)) computed by maximum flow.
pub const MAX_WORK: u64 = 400_000_000;

/// How the tolerated count was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// The family's closed form (seed 000 §5.4).
    ClosedForm,
    /// Exact, by maximum flow between the classes of nodes.
    MaxFlow,
    /// Every node hangs on one switch: no link failure separates two nodes.
    OneSwitch,
    /// Not computed: over [`MAX_WORK`] and no closed form.
    Skipped,
}

/// The worst-case fault fields of `topology --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkFaults {
    /// Link failures always tolerated: one less than `link_faults_to_disconnect` (null when that is 0,
    /// a network already disconnected, or when not computed).
    pub link_faults_tolerated: Option<u64>,
    /// Least number of switch-to-switch link failures that disconnect some pair of nodes.
    pub link_faults_to_disconnect: Option<u64>,
    /// Closed form, max flow, one switch or skipped.
    pub link_faults_method: Method,
}

/// The worst-case link fault tolerance of `topo`: its closed form if the family has one, else maximum
/// flow within `max_work` (see the module notes).
pub fn report(topo: &dyn Topology, max_work: u64) -> LinkFaults {
    let (cut, method) = match topo.link_faults_tolerated() {
        Some(t) => (Some(t + 1), Method::ClosedForm),
        None => match min_cut(topo, max_work) {
            Cut::Links(c) => (Some(c), Method::MaxFlow),
            Cut::OneSwitch => (None, Method::OneSwitch),
            Cut::Skipped => (None, Method::Skipped),
        },
    };
    LinkFaults {
        link_faults_tolerated: cut.and_then(|c| c.checked_sub(1)),
        link_faults_to_disconnect: cut,
        link_faults_method: method,
    }
}

/// What [`min_cut`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The least number of links whose failure disconnects some pair of nodes.
    Links(u64),
    /// No two nodes are on different switches.
    OneSwitch,
    /// Over the work limit.
    Skipped,
}

/// The switch graph as flat residual arrays: channel e runs to `to[e]` with its reverse at `rev[e]`.
struct Flow {
    start: Vec<u32>,
    to: Vec<u32>,
    rev: Vec<u32>,
    /// 1 for a channel, 0 for the reverse entries.
    cap: Vec<u8>,
}

impl Flow {
    fn new(topo: &dyn Topology) -> Flow {
        let n = topo.switches() as usize;
        let mut arcs: Vec<(u32, u32)> = Vec::new();
        for sw in 0..topo.switches() {
            for port in 0..topo.ports(sw) {
                if let Endpoint::Switch { switch, .. } = topo.neighbour(sw, port) {
                    arcs.push((sw, switch));
                }
            }
        }
        let mut degree = vec![0u32; n + 1];
        for &(a, b) in &arcs {
            degree[a as usize] += 1;
            degree[b as usize] += 1;
        }
        let mut start = vec![0u32; n + 1];
        for i in 0..n {
            start[i + 1] = start[i] + degree[i];
        }
        let mut fill = start.clone();
        let m = 2 * arcs.len();
        let (mut to, mut rev, mut cap) = (vec![0u32; m], vec![0u32; m], vec![0u8; m]);
        for &(a, b) in &arcs {
            let (ea, eb) = (fill[a as usize], fill[b as usize]);
            fill[a as usize] += 1;
            fill[b as usize] += 1;
            (to[ea as usize], rev[ea as usize], cap[ea as usize]) = (b, eb, 1);
            (to[eb as usize], rev[eb as usize], cap[eb as usize]) = (a, ea, 0);
        }
        Flow {
            start,
            to,
            rev,
            cap,
        }
    }

    /// Maximum flow from `s` to `t` in unit channels, stopping at `limit`.
    fn max_flow(&self, s: u32, t: u32, limit: u64) -> u64 {
        let mut cap = self.cap.clone();
        let n = self.start.len() - 1;
        let mut via = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        let mut flow = 0;
        while flow < limit {
            via.iter_mut().for_each(|v| *v = u32::MAX);
            via[s as usize] = u32::MAX - 1;
            queue.clear();
            queue.push_back(s);
            'search: while let Some(x) = queue.pop_front() {
                for e in self.start[x as usize]..self.start[x as usize + 1] {
                    let y = self.to[e as usize];
                    if cap[e as usize] > 0 && via[y as usize] == u32::MAX {
                        via[y as usize] = e;
                        if y == t {
                            break 'search;
                        }
                        queue.push_back(y);
                    }
                }
            }
            if via[t as usize] == u32::MAX {
                break;
            }
            let mut y = t;
            while y != s {
                let e = via[y as usize];
                cap[e as usize] -= 1;
                cap[self.rev[e as usize] as usize] += 1;
                y = self.to[self.rev[e as usize] as usize];
            }
            flow += 1;
        }
        flow
    }
}

/// Ports of `sw` wired to a switch: the unit channels leaving it in the residual graph.
fn switch_ports(topo: &dyn Topology, sw: u32) -> u64 {
    (0..topo.ports(sw))
        .filter(|&port| matches!(topo.neighbour(sw, port), Endpoint::Switch { .. }))
        .count() as u64
}

/// The least number of switch-to-switch links whose failure disconnects two nodes, by maximum flow
/// (see the module notes), or why it was not computed.
pub fn min_cut(topo: &dyn Topology, max_work: u64) -> Cut {
    let eject = node_ejections(topo);
    // Classes of nodes: (injection switch, ejection switch), with the number of nodes in each.
    let mut classes: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for (node, ej) in eject.iter().enumerate() {
        let inj = topo.node_attachment(node as u32).0;
        *classes
            .entry((inj, ej.first().copied().unwrap_or(inj)))
            .or_default() += 1;
    }
    let Some((&root, &in_root)) = classes.first_key_value() else {
        return Cut::OneSwitch;
    };
    let pairs: Vec<(u32, u32)> = classes
        .keys()
        .filter(|&&c| c != root || in_root > 1)
        .flat_map(|&(inj, ej)| [(root.0, ej), (inj, root.1)])
        .filter(|&(s, t)| s != t)
        .collect();
    if pairs.is_empty() {
        return Cut::OneSwitch;
    }
    // The work bound is read from the wiring before the residual arrays are built: on the largest
    // networks they would take gigabytes only to be skipped.
    let bound = pairs
        .iter()
        .map(|&(s, _)| switch_ports(topo, s))
        .min()
        .unwrap_or(0);
    let channels: u64 = (0..topo.switches())
        .map(|sw| 2 * switch_ports(topo, sw))
        .sum();
    let size = u64::from(topo.switches()) + channels;
    let work = (pairs.len() as u64)
        .saturating_mul(bound + 1)
        .saturating_mul(size);
    if work > max_work {
        return Cut::Skipped;
    }
    let flow = Flow::new(topo);
    debug_assert_eq!(flow.to.len() as u64, channels);
    let best = AtomicU64::new(bound);
    pairs.par_iter().for_each(|&(s, t)| {
        let f = flow.max_flow(s, t, best.load(Ordering::Relaxed));
        best.fetch_min(f, Ordering::Relaxed);
    });
    Cut::Links(best.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::build;

    fn flow(spec: &str) -> Cut {
        min_cut(build(spec).unwrap().as_ref(), u64::MAX)
    }

    /// Seed 000 §5.4's closed forms, checked against maximum flow on small members of each family:
    /// mesh n-1, torus 2n-1, k-ary n-tree k-1, flattened butterfly (k-1)n-1, KNS n-1.
    #[test]
    fn closed_forms_match_max_flow() {
        for (spec, tolerated) in [
            ("mesh:k=2,n=1", 0),
            ("mesh:k=4,n=2", 1),
            ("mesh:k=3,n=3", 2),
            ("torus:k=3,n=1", 1),
            ("torus:k=4,n=2", 3),
            ("torus:k=3,n=3", 5),
            ("fat-tree:k=2,n=3", 1),
            ("fat-tree:k=4,n=2", 3),
            ("fat-tree:k=3,n=3", 2),
            ("flattened-butterfly:k=4,n=2,p=2", 5),
            ("flattened-butterfly:k=3,n=3", 5),
            ("kns:k=4,n=2", 1),
            ("kns:k=4,n=3,p=2", 2),
            ("kns:k=4,n=2,s=2,sub=ft", 1),
            ("kns:k=8,n=2,s=3,sub=ft", 1),
        ] {
            let t = build(spec).unwrap();
            assert_eq!(t.link_faults_tolerated(), Some(tolerated), "{spec}");
            assert_eq!(flow(spec), Cut::Links(tolerated + 1), "{spec}");
            let r = report(t.as_ref(), MAX_WORK);
            assert_eq!(r.link_faults_method, Method::ClosedForm, "{spec}");
            assert_eq!(r.link_faults_to_disconnect, Some(tolerated + 1), "{spec}");
        }
    }

    /// §5.4: "RUFT is not fault-tolerant, since there is a unique path for each source-destination
    /// pair, so it tolerates 0 faults": one failed link of the 8-leaf RUFT cuts some pair. In a KNS the
    /// other dimensions route around a RUFT subnet's failed link, so only the router's own links count:
    /// n_h - 1, as for crossbar and fat-tree subnets.
    #[test]
    fn ruft_tolerates_nothing_alone_but_not_as_a_subnet() {
        assert_eq!(flow("ruft:k=2,n=3"), Cut::Links(1));
        assert_eq!(flow("kns:k=4,n=2,s=2,sub=ruft"), Cut::Links(2));
        assert_eq!(flow("kns:k=4,n=3,s=2,sub=ruft"), Cut::Links(3));
        let r = report(build("ruft:k=2,n=3").unwrap().as_ref(), MAX_WORK);
        assert_eq!(
            (r.link_faults_tolerated, r.link_faults_method),
            (Some(0), Method::MaxFlow)
        );
    }

    /// Families without a closed form, by hand: a hypercube's n links per router (n-1 tolerated);
    /// a thin tree's leaf has `up` up-links; a single switch separates no nodes.
    #[test]
    fn other_families_and_limits() {
        assert_eq!(flow("hypercube:n=4"), Cut::Links(4));
        assert_eq!(flow("thin-tree:k=4,up=2,n=3"), Cut::Links(2));
        assert_eq!(flow("fat-tree:k=4,n=1"), Cut::OneSwitch);
        let one = report(build("fat-tree:k=4,n=1").unwrap().as_ref(), MAX_WORK);
        assert_eq!(
            (one.link_faults_tolerated, one.link_faults_method),
            (None, Method::OneSwitch)
        );
        let big = report(build("hypercube:n=12").unwrap().as_ref(), 1000);
        assert_eq!(
            (big.link_faults_to_disconnect, big.link_faults_method),
            (None, Method::Skipped)
        );
    }
}
