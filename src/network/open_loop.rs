//! Open-loop synthetic traffic (seeds 000-003, Booksim's method): every node generates single-packet
//! messages by a Bernoulli process at an offered load, whatever the network does.
//!
//! Phases: `warmup_cycles` to fill the network, `measure_cycles` during which generated packets are
//! labelled, then a drain that keeps generating (so the network stays loaded) until every labelled
//! packet has been consumed. Latency is measured from generation (source queueing included) for
//! labelled packets; accepted throughput counts phits consumed during the measurement window.
//!
//! **Stability**, judged as Booksim2 does over several sample periods (`_SingleSim` in
//! `trafficmanager.cpp`: a point is unstable when latency does not converge across its sample periods
//! or its labelled packets do not drain). The window is split into `sample_periods` equal periods and
//! the mean latency of the packets generated in each is kept. A point is *unstable* when its labelled
//! packets cannot drain within `drain_cycles`, when accepted throughput falls more than 5% below what
//! was generated, or when latency keeps growing: the packets of the last half of the periods (the last
//! two of the default five) waited on average more than [`GROWTH`] longer than those of the first
//! half. At a stable load every period sees the same queues; past saturation the source queues grow
//! for ever, so later packets wait longer, even when accepted throughput is only a few per cent below
//! the offered load (the 8x8 torus with `ties=plus` at 0.48: latency 149 over a 10,000-cycle window,
//! 559 over 40,000; by period 109, 143, 145, 238). Halves rather than a strict rise per period, since
//! near saturation single periods are noisy (measured: a stable point's periods vary by up to 20%).
//!
//! Generation draws the gap to a node's next packet from the geometric distribution (one event per
//! packet, not one test per node per cycle). The offered load is in phits per node per cycle, as
//! Booksim's flits/cycle; seed 001's lambda (packets per node per cycle) is load / packet_phits.

use super::driver::{Consumed, Driver, NO_NOTE, Step};
use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::traffic::Destinations;
use serde::{Deserialize, Serialize};

/// The phases and load of one open-loop run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenLoopParams {
    /// Offered load in phits per node per cycle, in (0, 1].
    pub load: f64,
    /// Cycles before measurement starts.
    pub warmup_cycles: u64,
    /// Cycles during which generated packets are measured.
    pub measure_cycles: u64,
    /// Longest drain after the measurement window before the point is declared unstable.
    pub drain_cycles: u64,
    /// Sample periods the measurement window is split into to judge stability (1..=64; 1 checks only
    /// the drain and the accepted load).
    pub sample_periods: u32,
}

impl Default for OpenLoopParams {
    fn default() -> Self {
        OpenLoopParams {
            load: 0.1,
            warmup_cycles: 2_000,
            measure_cycles: 10_000,
            drain_cycles: 20_000,
            sample_periods: 5,
        }
    }
}

/// Least relative growth of mean latency from the first half of the sample periods to the last half
/// that makes a point unstable.
pub const GROWTH: f64 = 0.25;

impl OpenLoopParams {
    /// Rejects a load outside (0, 1], an empty measurement window, sample periods outside 1..=64 or
    /// longer than the window, and phases whose sum passes
    /// [`super::MAX_CYCLE`] (which would wrap the window's end and measure nothing), naming the values.
    pub fn validate(&self) -> Result<()> {
        if !(self.load > 0.0 && self.load <= 1.0) || self.measure_cycles == 0 {
            return Err(Error::Invalid(format!(
                "open-loop load must be in (0, 1] phits per node per cycle and the measurement window non-empty; got load {} over {} cycles",
                self.load, self.measure_cycles
            )));
        }
        if !(1..=64).contains(&self.sample_periods)
            || self.measure_cycles < u64::from(self.sample_periods)
        {
            return Err(Error::Invalid(format!(
                "open-loop sample_periods must be 1..=64 and at most the measurement window's cycles; got {} over {} cycles",
                self.sample_periods, self.measure_cycles
            )));
        }
        let total = self
            .warmup_cycles
            .checked_add(self.measure_cycles)
            .and_then(|t| t.checked_add(self.drain_cycles))
            .filter(|&t| t <= super::MAX_CYCLE);
        if total.is_none() {
            return Err(Error::Invalid(format!(
                "open-loop phases too long: warm-up {} + measurement {} + drain {} cycles is more than \
                 the simulator's limit of {} cycles",
                self.warmup_cycles,
                self.measure_cycles,
                self.drain_cycles,
                super::MAX_CYCLE
            )));
        }
        Ok(())
    }
}

/// Bernoulli sources on every node.
pub(super) struct OpenLoop<'a> {
    dest: &'a Destinations,
    rng: Rng,
    /// Probability that a node generates a packet in a cycle.
    rate: f64,
    packet_bytes: u64,
    packet_phits: u64,
    nodes: u32,
    window: (u64, u64),
    periods: u64,
    give_up_at: u64,
    pub(super) stats: OpenLoopStats,
}

/// What the sources measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct OpenLoopStats {
    pub generated_in_window: u64,
    pub measured_generated: u64,
    pub measured_consumed: u64,
    pub latency_sum: u128,
    pub latency_max: u64,
    pub consumed_in_window: u64,
    pub hop_histogram: Vec<u64>,
    /// Latency sum and packets consumed, per sample period of generation.
    pub period_latency: Vec<(u128, u64)>,
}

impl OpenLoopStats {
    /// Mean latency of the packets generated in each sample period.
    pub fn sample_latencies(&self) -> Vec<f64> {
        self.period_latency
            .iter()
            .map(|&(sum, n)| sum as f64 / n.max(1) as f64)
            .collect()
    }

    /// Whether latency keeps growing across the sample periods: the mean latency of the packets of the
    /// last half of the periods exceeds that of the first half by more than [`GROWTH`].
    pub fn latency_grows(&self) -> bool {
        let half = self.period_latency.len() / 2;
        let mean = |periods: &[(u128, u64)]| {
            let (sum, n) = periods
                .iter()
                .fold((0u128, 0u64), |(s, n), p| (s + p.0, n + p.1));
            sum as f64 / n.max(1) as f64
        };
        let len = self.period_latency.len();
        half > 0
            && mean(&self.period_latency[len - half..])
                > (1.0 + GROWTH) * mean(&self.period_latency[..half])
    }
}

impl<'a> OpenLoop<'a> {
    pub(super) fn new(
        dest: &'a Destinations,
        params: &OpenLoopParams,
        packet_phits: u32,
        packet_bytes: u64,
        nodes: u32,
        seed: u64,
    ) -> Self {
        let start = params.warmup_cycles;
        let end = start + params.measure_cycles;
        OpenLoop {
            dest,
            rng: Rng::new(seed ^ 0x6f70_656e_6c6f_6f70),
            rate: (params.load / f64::from(packet_phits)).min(1.0),
            packet_bytes,
            packet_phits: u64::from(packet_phits),
            nodes,
            window: (start, end),
            periods: u64::from(params.sample_periods.max(1)),
            give_up_at: end + params.drain_cycles,
            stats: OpenLoopStats {
                period_latency: vec![(0, 0); params.sample_periods.max(1) as usize],
                ..OpenLoopStats::default()
            },
        }
    }

    /// Cycles to a node's next packet: geometric with success probability `rate`, at least 1.
    fn gap(&mut self) -> u64 {
        if self.rate >= 1.0 {
            return 1;
        }
        let u = ((self.rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
        1 + (u.ln() / (1.0 - self.rate).ln()).floor().min(1e15) as u64
    }

    fn in_window(&self, now: u64) -> bool {
        (self.window.0..self.window.1).contains(&now)
    }
}

impl Driver for OpenLoop<'_> {
    fn start(&mut self, out: &mut Vec<Step>) {
        for node in 0..self.nodes {
            let cycles = self.gap() - 1;
            out.push(Step::Sleep { rank: node, cycles });
        }
    }

    fn wake(&mut self, now: u64, node: u32, out: &mut Vec<Step>) {
        let to = self.dest.of(node, &mut self.rng);
        if to != node {
            // The token is 0 for unlabelled packets, else 1 + the sample period of generation.
            let mut token = 0;
            if self.in_window(now) {
                self.stats.measured_generated += 1;
                self.stats.generated_in_window += self.packet_phits;
                let (start, end) = self.window;
                token = 1 + (now - start) * self.periods / (end - start);
            }
            out.push(Step::Send {
                from: node,
                to,
                bytes: self.packet_bytes,
                token,
                note: NO_NOTE,
            });
        }
        let cycles = self.gap();
        out.push(Step::Sleep { rank: node, cycles });
    }

    fn consumed(&mut self, now: u64, msg: &Consumed, _out: &mut Vec<Step>) {
        if self.in_window(now) {
            self.stats.consumed_in_window += self.packet_phits;
        }
        if msg.token > 0 {
            let s = &mut self.stats;
            s.measured_consumed += 1;
            let latency = now - msg.issued_at;
            let period = &mut s.period_latency[(msg.token - 1) as usize];
            period.0 += u128::from(latency);
            period.1 += 1;
            s.latency_sum += u128::from(latency);
            s.latency_max = s.latency_max.max(latency);
            let hops = msg.hops as usize;
            if s.hop_histogram.len() <= hops {
                s.hop_histogram.resize(hops + 1, 0);
            }
            s.hop_histogram[hops] += 1;
        }
    }

    fn stop(&self, now: u64) -> bool {
        now >= self.window.1
            && (self.stats.measured_consumed == self.stats.measured_generated
                || now >= self.give_up_at)
    }

    fn complete(&self) -> bool {
        true
    }
}
