//! `lbr`: seed 003's stochastic Load-Balanced Routing (§III-C-2, eq. 9–10).
//!
//! Every update period of T cycles, the queue of every switch-to-switch channel is sampled (packets
//! waiting in the buffers it feeds) and each source switch's injection rate λ_s is profiled (packets it
//! injected during the previous period, so λ_s T is that count). For a packet from switch v_s to v_d the
//! candidate paths are N = 1 minimal path (the topology's routing) and M Valiant paths through random
//! intermediates (the paper's evaluation uses M = 3), drawn afresh each period per (v_s, v_d) pair. A
//! path's load q(p) is the sum of its channels' queues (one shortest switch path per leg). Then:
//!
//! - eq. 9: a path is busy, and dropped, when q(p_k) ≥ (λ_s T + Σ_j q(p_j)) / (N + M);
//! - eq. 10: the others are taken with probability α_k = 1/(N'+M') + Σ_j q(p_j) / (λ_s T (N'+M'))
//!   − q(p_k) / (λ_s T), which evens out the expected queue of every kept path (eq. 16).
//!
//! Choices where the paper is silent (`docs/modelling-choices.md`): eq. 9's `q_s T` is read as `λ_s T`
//! (eq. 16 shows the level it is compared with); eq. 9 is applied until no path is busy (one pass can
//! leave a negative α_k, which eq. 10 cannot use; repeating is the water-filling that keeps every α_k in
//! [0, 1] and their sum 1, Lemma 1); λ_s T is at least 1, the packet being routed (in the first period,
//! and for sources idle in the last one, the paper's formula would divide by zero). The paper defines q
//! on switches but sums "the queue length of all channels in the path"; we take channels: a switch's
//! total queue counts packets bound elsewhere, and then the longer Valiant paths always look busier,
//! so congestion on the minimal path (dragonfly's one global link) would never divert anything. A
//! channel's queue is what waits in the buffers it feeds (its output queue, if any, and the input
//! queues at its far end, all virtual channels): under credit flow control a congested channel backs
//! up into them. Queues are summed along the first shortest path the distance table gives, while the
//! packet itself follows the topology's routing on each leg.
//! The period T defaults to 32 cycles and M to 3 (`lbr:period=T,valiant=M`); the paper varies T in
//! Fig. 14 without giving its values. With empty queues every candidate is equally likely, so at low load LBR takes Valiant paths M times
//! out of M + 1: the latency cost the paper reports (about 16 % over minimal).

use super::{NetView, PathChoice, SwitchPaths, random_intermediate};
use crate::error::Result;
use crate::rng::Rng;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn PathChoice>> = Entry {
    name: "lbr",
    keys: &["period", "valiant"],
    help: "seed 003's stochastic load-balanced routing: 1 minimal + valiant=M paths, update period=T cycles",
    build: |p| {
        let period = p.u32_in("period", Some(32), 1, 1 << 24)?;
        let valiant = p.u32_in("valiant", Some(3), 1, MAX_PATHS as u32 - 1)?;
        Ok(Box::new(Lbr::new(period, valiant)))
    },
};

/// Most candidate paths per packet (minimal included).
const MAX_PATHS: usize = 16;

/// LBR's per-run state: the period's queue snapshot and the injection profile of each source switch.
#[derive(Debug, Clone)]
pub struct Lbr {
    period: u32,
    valiant: u32,
    paths: SwitchPaths,
    /// Seeds the per-(period, pair) candidate draws; drawn from the run's stream at the first packet.
    salt: Option<u64>,
    /// Index of the current period (`now / period`).
    epoch: u64,
    /// Queue of every switch-to-switch link (indexed as [`SwitchPaths::link`]), sampled at the start
    /// of the current period.
    queue: Vec<u64>,
    /// Packets each source switch injected in the current and in the previous period.
    injected: Vec<u32>,
    injected_before: Vec<u32>,
}

impl Lbr {
    /// LBR with update period `period` cycles and `valiant` non-minimal candidates per packet.
    pub fn new(period: u32, valiant: u32) -> Self {
        Lbr {
            period,
            valiant,
            paths: SwitchPaths::default(),
            salt: None,
            epoch: u64::MAX,
            queue: Vec::new(),
            injected: Vec::new(),
            injected_before: Vec::new(),
        }
    }

    /// Starts a new period if `now` left the current one: samples the queues, rolls the injection counts.
    fn update(&mut self, net: &dyn NetView) {
        let epoch = net.now() / u64::from(self.period);
        if epoch == self.epoch {
            return;
        }
        if epoch == self.epoch.wrapping_add(1) {
            std::mem::swap(&mut self.injected, &mut self.injected_before);
        } else {
            self.injected_before.iter_mut().for_each(|c| *c = 0);
        }
        self.injected.iter_mut().for_each(|c| *c = 0);
        for (l, q) in self.queue.iter_mut().enumerate() {
            let (s, port) = self.paths.link(l);
            *q = u64::from(net.link_packets(s, port));
        }
        self.epoch = epoch;
    }
}

/// Eq. 9 and 10: the forwarding probability of each candidate path given its queue length `q[k]` and
/// the packets the source expects to send in a period, `lambda_t` (> 0). Busy paths (eq. 9) are dropped
/// until none is left, so every probability is in [0, 1] and they sum to 1.
pub fn forwarding_probabilities(q: &[u64], lambda_t: f64, alpha: &mut [f64]) {
    let mut kept = [true; MAX_PATHS];
    loop {
        let (n, sum) = q
            .iter()
            .zip(&kept)
            .filter(|(_, k)| **k)
            .fold((0u32, 0u64), |(n, s), (q, _)| (n + 1, s + q));
        let level = (lambda_t + sum as f64) / f64::from(n);
        let mut dropped = false;
        for (k, &qk) in q.iter().enumerate() {
            if kept[k] && qk as f64 >= level {
                kept[k] = false;
                dropped = true;
            }
        }
        if !dropped {
            for (k, &qk) in q.iter().enumerate() {
                alpha[k] = if kept[k] {
                    (level - qk as f64) / lambda_t
                } else {
                    0.0
                };
            }
            return;
        }
    }
}

impl PathChoice for Lbr {
    fn spec(&self) -> String {
        format!("lbr:period={},valiant={}", self.period, self.valiant)
    }
    fn prepare(&mut self, topo: &dyn Topology) -> Result<()> {
        self.paths = SwitchPaths::new("lbr", topo)?;
        let n = topo.switches() as usize;
        self.queue = vec![0; self.paths.links()];
        self.injected = vec![0; n];
        self.injected_before = vec![0; n];
        Ok(())
    }
    fn intermediate(
        &mut self,
        net: &mut dyn NetView,
        rng: &mut Rng,
        src: u32,
        dest: u32,
    ) -> Option<u32> {
        self.update(net);
        let (s, d) = (net.switch_of(src), net.switch_of(dest));
        self.injected[s as usize] += 1;
        if s == d {
            return None;
        }
        let salt = *self.salt.get_or_insert_with(|| rng.next_u64());
        // Step 1: this period's candidates for the pair: the minimal path, then M Valiant paths.
        let mut pair = Rng::new(
            salt ^ self.epoch.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ (u64::from(s) << 32 | u64::from(d)),
        );
        let queue = &self.queue;
        let q_of = |l: usize| queue[l];
        let mut via = [None; MAX_PATHS];
        let mut q = [0u64; MAX_PATHS];
        q[0] = self.paths.sum_along(s, d, q_of);
        let mut n = 1;
        for _ in 0..self.valiant {
            if let Some(w) = random_intermediate(net, &mut pair, src, dest) {
                let ws = net.switch_of(w);
                via[n] = Some(w);
                q[n] = self.paths.sum_along(s, ws, q_of) + self.paths.sum_along(ws, d, q_of);
                n += 1;
            }
        }
        // Steps 2 and 3: drop busy paths (eq. 9), draw by eq. 10.
        let lambda_t = f64::from(self.injected_before[s as usize].max(1));
        let mut alpha = [0.0; MAX_PATHS];
        forwarding_probabilities(&q[..n], lambda_t, &mut alpha[..n]);
        let mut u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        for k in 0..n {
            if u < alpha[k] {
                return via[k];
            }
            u -= alpha[k];
        }
        // Rounding left u just above the total: the last kept path.
        (0..n).rev().find(|&k| alpha[k] > 0.0).and_then(|k| via[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alphas(q: &[u64], lambda_t: f64) -> Vec<f64> {
        let mut a = vec![0.0; q.len()];
        forwarding_probabilities(q, lambda_t, &mut a);
        a
    }

    #[test]
    fn empty_queues_share_evenly() {
        assert_eq!(alphas(&[0, 0, 0, 0], 8.0), vec![0.25; 4]);
        assert_eq!(alphas(&[5, 5], 1.0), vec![0.5; 2]);
    }

    /// Eq. 10 by hand, and eq. 16: every kept path ends the period with the same expected queue.
    #[test]
    fn eq_10_evens_out_expected_queues() {
        let q = [2, 0, 1, 3];
        let a = alphas(&q, 10.0);
        // Level (10 + 6) / 4 = 4 > every q: all kept, alpha = (4 - q) / 10.
        assert_eq!(a, vec![0.2, 0.4, 0.3, 0.1]);
        let expected: Vec<f64> = q
            .iter()
            .zip(&a)
            .map(|(q, a)| *q as f64 + 10.0 * a)
            .collect();
        assert!(
            expected.iter().all(|e| (e - 4.0).abs() < 1e-12),
            "{expected:?}"
        );
    }

    /// Eq. 9 drops a busy path; repeating it drops the one a single pass would give a negative share.
    #[test]
    fn eq_9_drops_busy_paths_until_none_is_left() {
        // Level (4 + 12) / 4 = 4: the path with q = 12 goes. Then (4 + 0) / 3 = 1.33: fine.
        assert_eq!(alphas(&[12, 0, 0, 0], 4.0)[0], 0.0);
        // Level (1 + 9) / 3 = 3.33 drops 9; the next level (1 + 0 + 3) / 2 = 2 drops 3 as well.
        let a = alphas(&[0, 3, 9], 1.0);
        assert_eq!(a, vec![1.0, 0.0, 0.0]);
        for q in [[7u64, 1, 4, 0], [0, 0, 50, 2], [9, 9, 9, 8]] {
            for lt in [1.0, 3.0, 40.0] {
                let a = alphas(&q, lt);
                assert!(
                    (a.iter().sum::<f64>() - 1.0).abs() < 1e-12,
                    "{q:?} {lt}: {a:?}"
                );
                assert!(
                    a.iter().all(|&x| (0.0..=1.0).contains(&x)),
                    "{q:?} {lt}: {a:?}"
                );
            }
        }
    }
}
