//! Max-min fair rates by progressive filling (Bertsekas and Gallager, *Data Networks*, §6.5.2).
//!
//! Every unfrozen flow has the same rate t, raised until the first link saturates: link l saturates at
//! t_l = (capacity left on l) / (unfrozen flows crossing l). The flows crossing the link with the
//! smallest t_l are frozen at that rate and their use is taken off every link they cross; the rest go
//! on growing. The links wait in a binary heap keyed by t_l ([`LevelHeap`]), and a link's entry is
//! re-keyed in place whenever a flow crossing it freezes, so a set of flows whose paths have E hops in
//! all over K links is solved in O((K + E) log K): no round scans every link. Where K is small (a
//! few dozen links, most re-solves) the queue keeps them unordered and each round scans them, which
//! costs less than sifting at every freeze.

use super::level_heap::LevelHeap;

/// What flows take now, for a set that is not closed under link sharing: each given flow's rate by
/// index, and the sum of the rates on a link (see [`Solver::solve`]).
pub(super) type Held<'h> = (&'h dyn Fn(usize) -> f64, &'h dyn Fn(u32) -> f64);

/// Scratch state of the solver, sized by the number of links and reused for every set of flows.
#[derive(Debug)]
pub(super) struct Solver {
    /// Per link, what one solve reads and writes of it, together (a link is one cache-line read).
    links: Vec<LinkState>,
    epoch: u32,
    touched: Vec<u32>,
    frozen: Vec<bool>,
    crossing: Vec<usize>,
    /// Links whose level moved in the current round.
    dirty: Vec<u32>,
    /// The links by t_l (as f64 bits: non-negative floats order as their bits).
    heap: LevelHeap,
}

impl Solver {
    /// A solver over links of the given capacities, in phits per cycle.
    pub(super) fn with_capacities(capacity: Vec<f64>) -> Self {
        let heap = LevelHeap::with_links(capacity.len());
        Solver {
            links: capacity
                .into_iter()
                .map(|capacity| LinkState {
                    capacity,
                    left: 0.0,
                    weight: 0,
                    stamp: 0,
                })
                .collect(),
            epoch: 0,
            touched: Vec::new(),
            frozen: Vec::new(),
            crossing: Vec::new(),
            dirty: Vec::new(),
            heap,
        }
    }

    /// Link `l`'s capacity in phits per cycle.
    #[inline]
    pub(super) fn capacity(&self, l: u32) -> f64 {
        self.links[l as usize].capacity
    }

    /// The saturation level of link `l` now (its capacity left over its unfrozen flows).
    #[inline]
    fn level(&self, l: usize) -> f64 {
        let link = &self.links[l];
        link.left.max(0.0) / f64::from(link.weight)
    }

    /// Max-min fair rates of `n` flows, flow i crossing the links `path(i)`, into `rates[i]`;
    /// `on_link(l, out)` appends the indices of the flows crossing link l (so a saturated link's
    /// flows are found without scanning every path). The flows given must be closed under link
    /// sharing (a connected component or a union of components of the flows alive): a flow left out
    /// that shares a link would not be seen, unless `held` says what the flows take now: `held(i)`
    /// flow i's rate, `held_on(l)` the sum of the rates of all flows on link l, so that link l keeps
    /// `held_on(l)` less the given flows' share for the flows left out.
    pub(super) fn solve<'p>(
        &mut self,
        n: usize,
        path: impl Fn(usize) -> &'p [u32],
        on_link: impl Fn(u32, &mut Vec<usize>),
        held: Option<Held<'_>>,
        rates: &mut Vec<f64>,
    ) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.links.iter_mut().for_each(|link| link.stamp = 0);
            self.epoch = 1;
        }
        self.touched.clear();
        for i in 0..n {
            let own = held.map_or(0.0, |(rate, _)| rate(i));
            for &l in path(i) {
                let link = &mut self.links[l as usize];
                if link.stamp != self.epoch {
                    link.stamp = self.epoch;
                    link.left = link.capacity - held.map_or(0.0, |(_, on)| on(l));
                    link.weight = 0;
                    self.touched.push(l);
                }
                link.weight += 1;
                link.left += own;
            }
        }
        self.frozen.clear();
        self.frozen.resize(n, false);
        rates.clear();
        rates.resize(n, 0.0);
        self.heap.clear();
        // A link crossed by one flow only is that flow's own: its level stays put until the flow
        // freezes, and only the flow's first such link in the heap's order can pop while it is
        // unfrozen (the others would pop with no flow left), so each flow enters just that one.
        for k in 0..self.touched.len() {
            let l = self.touched[k];
            if self.links[l as usize].weight > 1 {
                let key = self.level(l as usize).to_bits();
                self.heap.add(key, l);
            }
        }
        for i in 0..n {
            let own = path(i)
                .iter()
                .filter(|&&l| self.links[l as usize].weight == 1)
                .map(|&l| (self.level(l as usize).to_bits(), l))
                .min();
            if let Some((key, l)) = own {
                self.heap.add(key, l);
            }
        }
        self.heap.build();
        let mut unfrozen = n;
        let mut level = 0.0f64;
        while unfrozen > 0 {
            let Some((key, l)) = self.heap.pop() else {
                break;
            };
            let lu = l as usize;
            debug_assert!(self.links[lu].weight > 0, "link {l} has no flow left");
            debug_assert_eq!(self.level(lu).to_bits(), key, "link {l} was re-keyed");
            // Levels never fall as flows freeze; float residue could make one a hair lower.
            level = level.max(self.level(lu));
            self.crossing.clear();
            on_link(l, &mut self.crossing);
            self.dirty.clear();
            for k in 0..self.crossing.len() {
                let i = self.crossing[k];
                if std::mem::replace(&mut self.frozen[i], true) {
                    continue;
                }
                unfrozen -= 1;
                rates[i] = level;
                for &m in path(i) {
                    let link = &mut self.links[m as usize];
                    link.left -= level;
                    link.weight -= 1;
                    self.dirty.push(m);
                }
            }
            // Each link whose level moved is re-keyed; one with no flow left to freeze leaves.
            for k in 0..self.dirty.len() {
                let m = self.dirty[k];
                if self.links[m as usize].weight > 0 {
                    let key = self.level(m as usize).to_bits();
                    self.heap.set(key, m);
                } else {
                    self.heap.remove(m);
                }
            }
        }
        if unfrozen > 0 {
            // Unreachable for closed sets (every flow crosses a link); give them the last level.
            for (rate, &frozen) in rates.iter_mut().zip(&self.frozen) {
                if !frozen {
                    *rate = level;
                }
            }
        }
    }
}

/// A link as one solve sees it.
#[derive(Debug, Clone, Copy)]
struct LinkState {
    /// Phits per cycle it carries.
    capacity: f64,
    /// Capacity not yet taken by frozen flows (or by flows outside the set being solved).
    left: f64,
    /// Unfrozen flows crossing it.
    weight: u32,
    /// Epoch of the solve that last set it up.
    stamp: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(capacity: &[f64], paths: &[Vec<u32>]) -> Vec<f64> {
        let mut s = Solver::with_capacities(capacity.to_vec());
        let mut rates = Vec::new();
        let on_link = |l: u32, out: &mut Vec<usize>| {
            out.extend((0..paths.len()).filter(|&i| paths[i].contains(&l)));
        };
        s.solve(paths.len(), |i| &paths[i], on_link, None, &mut rates);
        rates
    }

    /// A and B share link 0, B and C share link 1, all of capacity 1: everyone gets 1/2.
    #[test]
    fn a_chain_of_two_shared_links_halves_everyone() {
        let paths = vec![vec![0], vec![0, 1], vec![1]];
        assert_eq!(solve(&[1.0, 1.0], &paths), [0.5, 0.5, 0.5]);
    }

    /// Link 0 (capacity 1) holds A and B; link 1 (capacity 2) holds B and C: A and B get 1/2 at link 0,
    /// and C takes what B leaves of link 1, 3/2 (more than an equal share: max-min, not equal split).
    #[test]
    fn an_unconstrained_flow_takes_the_leftover() {
        let paths = vec![vec![0], vec![0, 1], vec![1]];
        assert_eq!(solve(&[1.0, 2.0], &paths), [0.5, 0.5, 1.5]);
    }

    /// Three flows on one link get a third each; a fourth on a link of its own gets all of it.
    #[test]
    fn disjoint_flows_are_independent() {
        let paths = vec![vec![0], vec![0], vec![0], vec![1]];
        let r = solve(&[1.0, 1.0], &paths);
        assert!(
            r[..3].iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-15),
            "{r:?}"
        );
        assert_eq!(r[3], 1.0);
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
            let paths: Vec<Vec<u32>> = (0..n)
                .map(|_| {
                    let mut p: Vec<u32> = (0..links as u32).filter(|_| rng.below(2) == 0).collect();
                    if p.is_empty() {
                        p.push(rng.below(links as u32));
                    }
                    p
                })
                .collect();
            let rates = solve(&capacity, &paths);
            let mut load = vec![0.0; links];
            for (p, r) in paths.iter().zip(&rates) {
                for &l in p {
                    load[l as usize] += r;
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
                let bottleneck = p.iter().any(|&l| {
                    load[l as usize] >= capacity[l as usize] * (1.0 - 1e-9)
                        && paths
                            .iter()
                            .zip(&rates)
                            .filter(|(q, _)| q.contains(&l))
                            .all(|(_, &r)| r <= rates[i] * (1.0 + 1e-9))
                });
                assert!(bottleneck, "flow {i} of {paths:?}: rates {rates:?}");
            }
        }
    }
}
