//! Max-min fair rates by progressive filling (Bertsekas and Gallager, *Data Networks*, §6.5.2), with
//! per-link weights: flow f puts `w(f, l) × rate(f)` on link l (the fraction of a split route on it,
//! SimGrid LMM's consumption weight).
//!
//! Every unfrozen flow has the same rate t, raised until the first link saturates: link l saturates at
//! t_l = (capacity left on l) / (sum of the weights of the unfrozen flows crossing l). The flows
//! crossing a link whose t_l is the minimum are frozen at that rate and their use is taken off every
//! link they cross; the rest go on growing. Each round freezes at least one flow, so a set of F flows
//! over K links takes at most F rounds of O(K), plus O(path entries) in all: a round finds the flows
//! of its saturated links through the caller's link-to-flows lists, not by scanning every path.

/// Weights below this are float residue of flows already frozen, not a flow crossing the link.
const NO_WEIGHT: f64 = 1e-9;
/// Links within this relative margin of the bottleneck saturate in the same round (float residue of
/// sums in different orders would otherwise split one level into two).
const SAME_LEVEL: f64 = 1e-9;

/// Scratch state of the solver, sized by the number of links and reused for every set of flows.
#[derive(Debug)]
pub(super) struct Solver {
    capacity: Vec<f64>,
    left: Vec<f64>,
    weight: Vec<f64>,
    stamp: Vec<u32>,
    epoch: u32,
    touched: Vec<u32>,
    frozen: Vec<bool>,
    freeze: Vec<usize>,
    crossing: Vec<usize>,
}

impl Solver {
    /// A solver over links of the given capacities, in phits per cycle.
    pub(super) fn with_capacities(capacity: Vec<f64>) -> Self {
        let links = capacity.len();
        Solver {
            capacity,
            left: vec![0.0; links],
            weight: vec![0.0; links],
            stamp: vec![0; links],
            epoch: 0,
            touched: Vec::new(),
            frozen: Vec::new(),
            freeze: Vec::new(),
            crossing: Vec::new(),
        }
    }

    /// Max-min fair rates of `n` flows, flow i crossing the (link, weight) pairs `path(i)`, into
    /// `rates[i]`; `on_link(l, out)` appends the indices of the flows crossing link l (so a round
    /// freezes the flows of its saturated links without scanning every path). The flows given must be
    /// closed under link sharing (a connected component or a union of components of the flows
    /// alive): a flow left out that shares a link would not be seen.
    pub(super) fn solve<'p>(
        &mut self,
        n: usize,
        path: impl Fn(usize) -> &'p [(u32, f64)],
        on_link: impl Fn(u32, &mut Vec<usize>),
        rates: &mut Vec<f64>,
    ) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        self.touched.clear();
        for i in 0..n {
            for &(l, w) in path(i) {
                let l = l as usize;
                if self.stamp[l] != self.epoch {
                    self.stamp[l] = self.epoch;
                    self.left[l] = self.capacity[l];
                    self.weight[l] = 0.0;
                    self.touched.push(l as u32);
                }
                self.weight[l] += w;
            }
        }
        self.frozen.clear();
        self.frozen.resize(n, false);
        rates.clear();
        rates.resize(n, 0.0);
        let mut unfrozen = n;
        while unfrozen > 0 {
            let mut level = f64::INFINITY;
            for &l in &self.touched {
                let l = l as usize;
                if self.weight[l] > NO_WEIGHT {
                    level = level.min(self.left[l].max(0.0) / self.weight[l]);
                }
            }
            if !level.is_finite() {
                // Only flows without links left: nothing limits them (no route is empty, so this is
                // float residue); give them the last level rather than loop.
                level = 0.0;
            }
            let limit = level * (1.0 + SAME_LEVEL) + f64::MIN_POSITIVE;
            self.freeze.clear();
            for &l in &self.touched {
                let w = self.weight[l as usize];
                if w > NO_WEIGHT && self.left[l as usize].max(0.0) / w <= limit {
                    self.crossing.clear();
                    on_link(l, &mut self.crossing);
                    for &i in &self.crossing {
                        if !self.frozen[i] {
                            // Marked now so it is listed once; its use is taken off below.
                            self.frozen[i] = true;
                            self.freeze.push(i);
                        }
                    }
                }
            }
            if self.freeze.is_empty() {
                // Float residue left a weight on a link no unfrozen flow crosses: freeze the rest.
                self.freeze.extend((0..n).filter(|&i| !self.frozen[i]));
            }
            for k in 0..self.freeze.len() {
                let i = self.freeze[k];
                self.frozen[i] = true;
                rates[i] = level;
                for &(l, w) in path(i) {
                    self.left[l as usize] -= w * level;
                    self.weight[l as usize] -= w;
                }
            }
            unfrozen -= self.freeze.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(capacity: &[f64], paths: &[Vec<(u32, f64)>]) -> Vec<f64> {
        let mut s = Solver::with_capacities(capacity.to_vec());
        let mut rates = Vec::new();
        let on_link = |l: u32, out: &mut Vec<usize>| {
            out.extend((0..paths.len()).filter(|&i| paths[i].iter().any(|&(m, _)| m == l)));
        };
        s.solve(paths.len(), |i| &paths[i], on_link, &mut rates);
        rates
    }

    /// A and B share link 0, B and C share link 1, all of capacity 1: everyone gets 1/2.
    #[test]
    fn a_chain_of_two_shared_links_halves_everyone() {
        let paths = vec![vec![(0, 1.0)], vec![(0, 1.0), (1, 1.0)], vec![(1, 1.0)]];
        assert_eq!(solve(&[1.0, 1.0], &paths), [0.5, 0.5, 0.5]);
    }

    /// Link 0 (capacity 1) holds A and B; link 1 (capacity 2) holds B and C: A and B get 1/2 at link 0,
    /// and C takes what B leaves of link 1, 3/2 (more than an equal share: max-min, not equal split).
    #[test]
    fn an_unconstrained_flow_takes_the_leftover() {
        let paths = vec![vec![(0, 1.0)], vec![(0, 1.0), (1, 1.0)], vec![(1, 1.0)]];
        assert_eq!(solve(&[1.0, 2.0], &paths), [0.5, 0.5, 1.5]);
    }

    /// Three flows on one link get a third each; a fourth on a link of its own gets all of it.
    #[test]
    fn disjoint_flows_are_independent() {
        let paths = vec![
            vec![(0, 1.0)],
            vec![(0, 1.0)],
            vec![(0, 1.0)],
            vec![(1, 1.0)],
        ];
        let r = solve(&[1.0, 1.0], &paths);
        assert!(
            r[..3].iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-15),
            "{r:?}"
        );
        assert_eq!(r[3], 1.0);
    }

    /// A flow split evenly over two links (weights 1/2) beside a flow on one of them: that link
    /// carries t/2 + t, full at t = 2/3 for both (the split flow's other branch stays a third idle).
    /// With a third flow on the split flow's injection link, that link fills first (2t = 1): those
    /// two get 1/2, and the single-link flow takes the 3/4 the split flow leaves on its link.
    #[test]
    fn split_flows_use_their_weights() {
        // links: 0 = injection of A, 1 and 2 = its two branches.
        let paths = vec![vec![(0, 1.0), (1, 0.5), (2, 0.5)], vec![(1, 1.0)]];
        let r = solve(&[1.0, 1.0, 1.0], &paths);
        assert!(r.iter().all(|&x| (x - 2.0 / 3.0).abs() < 1e-15), "{r:?}");
        let paths = vec![
            vec![(0, 1.0), (1, 0.5), (2, 0.5)],
            vec![(1, 1.0)],
            vec![(0, 1.0)],
        ];
        assert_eq!(solve(&[1.0, 1.0, 1.0], &paths), [0.5, 0.75, 0.5]);
    }

    /// The rates never overload a link and every flow crosses a saturated link (the max-min
    /// conditions), on a pseudo-random set of flows over few links.
    #[test]
    fn random_sets_meet_the_max_min_conditions() {
        let mut rng = crate::rng::Rng::new(3);
        for _ in 0..200 {
            let links = 1 + rng.below(6) as usize;
            let capacity: Vec<f64> = (0..links).map(|_| 1.0 + f64::from(rng.below(3))).collect();
            let n = 1 + rng.below(8) as usize;
            let paths: Vec<Vec<(u32, f64)>> = (0..n)
                .map(|_| {
                    let mut p: Vec<(u32, f64)> = Vec::new();
                    for l in 0..links as u32 {
                        if rng.below(2) == 0 {
                            p.push((l, [1.0, 0.5, 0.25][rng.below(3) as usize]));
                        }
                    }
                    if p.is_empty() {
                        p.push((rng.below(links as u32), 1.0));
                    }
                    p
                })
                .collect();
            let rates = solve(&capacity, &paths);
            let mut load = vec![0.0; links];
            for (p, r) in paths.iter().zip(&rates) {
                for &(l, w) in p {
                    load[l as usize] += w * r;
                }
            }
            for l in 0..links {
                assert!(
                    load[l] <= capacity[l] * (1.0 + 1e-9),
                    "{load:?} {capacity:?}"
                );
            }
            for (i, p) in paths.iter().enumerate() {
                // Bottleneck: a saturated link on which no flow has a higher rate.
                let bottleneck = p.iter().any(|&(l, _)| {
                    load[l as usize] >= capacity[l as usize] * (1.0 - 1e-9)
                        && paths
                            .iter()
                            .zip(&rates)
                            .filter(|(q, _)| q.iter().any(|&(m, _)| m == l))
                            .all(|(_, &r)| r <= rates[i] * (1.0 + 1e-9))
                });
                assert!(bottleneck, "flow {i} of {paths:?}: rates {rates:?}");
            }
        }
    }
}
