//! The counters seed 001 plots (§V-B, Figs. 10-12): output-port conflicts and packets received per
//! cycle, over time.
//!
//! Seed 001's switch arbitrates each output port at random "on every clock cycle, one packet is
//! selected randomly from multiple packets that are sent through the same output port"; Fig. 10 plots
//! the conflicts on output ports. Here a *conflict* is one packet head that asked for an output
//! channel in an allocation round and lost it to another head of the same round: k heads bidding for
//! one output make k - 1 conflicts. A head that waits for an output already sending is not a conflict
//! (it never bids; the engine plans its retry). Figs. 11-12 plot the packets received (consumed by
//! their destination node) per cycle and their ratio to the packets sent; *received* here counts a
//! packet when its tail is consumed.
//!
//! The paper does not say whether k heads bidding for one output are k - 1 conflicts or one, so both
//! are counted: *contested outputs* are the output channels that two or more heads bid for in an
//! allocation round, each counted once. The two readings part where many heads share few outputs
//! (bit-inversion traffic on a tree routed by destination digits piles four heads on one up-link:
//! three conflicts, one contested output).
//!
//! The engine calls [`Counters::conflict`] and [`Counters::received`] only when a recorder is attached
//! (an `Option` checked on a lost bid and on a delivery; nothing happens when it is off). Counts are
//! kept in time bins that start one cycle wide and double when the run outgrows them, as
//! [`super::load_bins`] does, and separately inside an optional window (the open-loop measurement
//! window).

use serde::{Deserialize, Serialize};

/// The recorder the engine feeds; see the module notes.
#[derive(Debug, Clone)]
pub struct Counters {
    max_bins: usize,
    width: u64,
    /// Cycles [start, end) whose counts are also kept apart.
    window: (u64, u64),
    /// Per kind ([`CONFLICT`], [`RECEIVED`], [`CONTESTED`]): the count, the count inside the window,
    /// the bins.
    total: [u64; 3],
    in_window: [u64; 3],
    bins: [Vec<u64>; 3],
}

/// Index of the conflicts in [`Counters`]' arrays.
const CONFLICT: usize = 0;
/// Index of the packets received.
const RECEIVED: usize = 1;
/// Index of the contested outputs.
const CONTESTED: usize = 2;

/// What the counters saw inside their window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowCounts {
    /// Heads that lost an output to another head of their round.
    pub conflicts: u64,
    /// Packets consumed by their destinations.
    pub received: u64,
    /// Outputs that two or more heads bid for in one round.
    pub contested: u64,
}

/// The counters' totals over a run: what a campaign row keeps of them (`campaign::record`), without
/// the series over time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CounterTotals {
    /// Packet heads that lost an output channel to another head bidding in the same round.
    pub output_port_conflicts: u64,
    /// Packets consumed by their destination nodes.
    pub packets_received: u64,
    /// `output_port_conflicts` over the run's cycles.
    pub conflicts_per_cycle: f64,
    /// `packets_received` over the run's cycles.
    pub received_per_cycle: f64,
    /// Most packets received in one bin, per cycle (the peak of the series).
    pub peak_received_per_cycle: f64,
    /// Output channels that two or more heads bid for in one allocation round, each counted once.
    pub contested_outputs: u64,
    /// `contested_outputs` over the run's cycles.
    pub contested_per_cycle: f64,
}

/// What the counters recorded over a run: the run report's optional `counters` section, its totals
/// beside the series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CounterSeries {
    /// The totals and means over the run.
    #[serde(flatten)]
    pub totals: CounterTotals,
    /// Cycles per bin (a power of two); the last bin may extend past the run's end.
    pub bin_cycles: u64,
    /// Cycles the series cover (the run's completion time).
    pub cycles: u64,
    /// Packets received in each bin.
    pub received: Vec<u64>,
    /// Conflicts in each bin.
    pub conflicts: Vec<u64>,
    /// Contested outputs in each bin.
    pub contested: Vec<u64>,
}

impl Counters {
    /// A recorder of at most `max_bins` bins (at least 2), counting every cycle as in its window.
    pub fn new(max_bins: usize) -> Counters {
        let max_bins = max_bins.max(2);
        Counters {
            max_bins,
            width: 1,
            window: (0, u64::MAX),
            total: [0; 3],
            in_window: [0; 3],
            bins: [vec![0; max_bins], vec![0; max_bins], vec![0; max_bins]],
        }
    }

    /// The same, also counting apart what happens in cycles [start, end).
    pub fn windowed(mut self, start: u64, end: u64) -> Counters {
        self.window = (start, end);
        self
    }

    /// A packet head lost its output channel at cycle `now`.
    #[inline]
    pub(crate) fn conflict(&mut self, now: u64) {
        self.count(CONFLICT, now);
    }

    /// Two or more heads bid for one output at cycle `now` (counted once per output and round).
    #[inline]
    pub(crate) fn contested(&mut self, now: u64) {
        self.count(CONTESTED, now);
    }

    /// A packet was consumed by its destination at cycle `now`.
    #[inline]
    pub(crate) fn received(&mut self, now: u64) {
        self.count(RECEIVED, now);
    }

    fn count(&mut self, kind: usize, now: u64) {
        self.total[kind] += 1;
        let bin = self.bin(now);
        self.bins[kind][bin] += 1;
        if (self.window.0..self.window.1).contains(&now) {
            self.in_window[kind] += 1;
        }
    }

    /// The bin of cycle `now`, doubling the width (merging pairs of bins) until it fits.
    fn bin(&mut self, now: u64) -> usize {
        while now / self.width >= self.max_bins as u64 {
            for row in &mut self.bins {
                for i in 0..row.len() {
                    row[i] = if 2 * i < row.len() {
                        row[2 * i] + row.get(2 * i + 1).copied().unwrap_or(0)
                    } else {
                        0
                    };
                }
            }
            self.width *= 2;
        }
        (now / self.width) as usize
    }

    /// What was counted inside the window.
    pub fn in_window(&self) -> WindowCounts {
        WindowCounts {
            conflicts: self.in_window[CONFLICT],
            received: self.in_window[RECEIVED],
            contested: self.in_window[CONTESTED],
        }
    }

    /// The series over a run that completed at cycle `completion` (the last bin holds that cycle;
    /// bins widen until it fits).
    pub fn finish(mut self, completion: u64) -> CounterSeries {
        self.bin(completion);
        let bins = ((completion / self.width) as usize + 1).min(self.max_bins);
        let cycles = completion.max(1) as f64;
        let peak = self.bins[RECEIVED][..bins]
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        CounterSeries {
            totals: CounterTotals {
                output_port_conflicts: self.total[CONFLICT],
                packets_received: self.total[RECEIVED],
                conflicts_per_cycle: self.total[CONFLICT] as f64 / cycles,
                received_per_cycle: self.total[RECEIVED] as f64 / cycles,
                peak_received_per_cycle: peak as f64 / self.width as f64,
                contested_outputs: self.total[CONTESTED],
                contested_per_cycle: self.total[CONTESTED] as f64 / cycles,
            },
            bin_cycles: self.width,
            cycles: completion,
            received: self.bins[RECEIVED][..bins].to_vec(),
            conflicts: self.bins[CONFLICT][..bins].to_vec(),
            contested: self.bins[CONTESTED][..bins].to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four bins: receptions at cycles 0, 1, 5 and 9 make the width double to 4 (9 / 2 >= 4), bins
    /// [0,4) [4,8) [8,12) hold 2, 1, 1; the window [4, 8) sees only the one at 5.
    #[test]
    fn bins_double_and_the_window_counts_apart() {
        let mut c = Counters::new(4).windowed(4, 8);
        for t in [0, 1, 5, 9] {
            c.received(t);
        }
        c.conflict(5);
        c.conflict(6);
        c.contested(6);
        c.contested(9);
        assert_eq!(
            c.in_window(),
            WindowCounts {
                conflicts: 2,
                received: 1,
                contested: 1
            }
        );
        let s = c.finish(9);
        assert_eq!(s.bin_cycles, 4);
        assert_eq!(s.received, vec![2, 1, 1]);
        assert_eq!(s.conflicts, vec![0, 2, 0]);
        assert_eq!(s.contested, vec![0, 1, 1]);
        assert_eq!(s.totals.contested_outputs, 2);
        assert_eq!(
            (s.totals.packets_received, s.totals.output_port_conflicts),
            (4, 2)
        );
        assert_eq!(s.totals.peak_received_per_cycle, 0.5);
        // A run ending past the last bin widens the bins: cycle 20 needs width 8 ([16, 24) is bin 2).
        let mut c = Counters::new(4);
        c.received(3);
        let s = c.finish(20);
        assert_eq!((s.bin_cycles, s.received.clone()), (8, vec![1, 0, 0]));
    }
}
