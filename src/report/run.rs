//! What `netreplay run` reports: the data its text, JSON and HTML reports are made of. Beside the
//! formats that print it, so `run` builds a report and `report` never reaches up into `run`.

use crate::mpi::critical_path::CriticalPath;
use crate::mpi::runtime::MpiStats;
use crate::network::load_bins::LinkLoadSeries;
use crate::network::{NetworkModel, Outcome};
use serde::{Deserialize, Serialize};

/// How one job of a shared run fared.
#[derive(Debug, Clone, Serialize)]
pub struct JobReport {
    /// Canonical workload spec with its rank count.
    pub workload: String,
    /// Canonical placement spec.
    pub placement: String,
    /// Its ranks.
    pub ranks: u32,
    /// Node of each of its ranks.
    pub nodes: Vec<u32>,
    /// Cycle it started.
    pub start: u64,
    /// Cycle it completed in the shared run.
    pub completion_cycles: u64,
    /// Completion minus start.
    pub duration: u64,
    /// Its completion time running alone on the same nodes.
    pub alone_cycles: u64,
    /// duration / alone_cycles: how much sharing the network slowed it.
    pub slowdown: f64,
}

/// What `netreplay run` reports (the contract's JSON fields plus speed and latency).
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Canonical topology spec.
    pub topology: String,
    /// Canonical workload spec (with the rank count).
    pub workload: String,
    /// Canonical placement spec.
    pub placement: String,
    /// Seed used.
    pub seed: u64,
    /// Ranks replayed.
    pub ranks: u32,
    /// Nodes of the topology.
    pub nodes: u32,
    /// The network model used.
    pub network: NetworkModel,
    /// The MPI model the ranks ran under (single workloads: a trace's, or seed 004's reactive model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi_model: Option<crate::program::MpiModel>,
    /// What the engine measured.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// What the MPI layer did (protocol messages, self-messages, the ranks' time split), for runs of
    /// a single workload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiStats>,
    /// The simulated times in seconds at the network clock (absent for jobs on different clocks).
    #[serde(flatten)]
    pub real_time: Option<RealTime>,
    /// Per-job results of a shared-machine run (empty for a single workload).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobReport>,
    /// The chain of computations and messages that set the completion time (single workloads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub critical_path: Option<CriticalPath>,
    /// Link load per class over time and the top links' series, when asked for (`--link-load`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_load: Option<LinkLoadSeries>,
    /// Output-port conflicts and packets received over time, when asked for
    /// (`--received-per-cycle`; seed 001 Figs. 10-12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counters: Option<crate::network::counters::CounterSeries>,
    /// How fast the simulation ran.
    #[serde(flatten)]
    pub speed: Speed,
}

/// Simulation speed, as the benchmark reports it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Speed {
    /// Wall-clock seconds of the simulation proper (building the network and program excluded).
    pub wall_seconds: f64,
    /// Phit-link traversals per wall second.
    pub phit_hops_per_second: f64,
    /// Simulated node-cycles per wall second (nodes x completion cycles / wall time).
    pub node_cycles_per_second: f64,
}

/// The run's simulated times in seconds, beside the cycles of the [`Outcome`]: the network clock is
/// the workload's (a trace's `cycles_per_second`, which also converted its recorded compute times;
/// 1 GHz for generated workloads), so a result can be read against the traced application's time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RealTime {
    /// Network cycles per simulated second.
    pub cycles_per_second: f64,
    /// `completion_cycles` in seconds.
    pub completion_seconds: f64,
    /// `mean_message_latency` in seconds.
    pub mean_message_latency_seconds: f64,
    /// `max_message_latency` in seconds.
    pub max_message_latency_seconds: f64,
}

impl RealTime {
    /// The times of `outcome` at `cycles_per_second` cycles per second.
    pub fn new(cycles_per_second: f64, outcome: &Outcome) -> RealTime {
        RealTime {
            cycles_per_second,
            completion_seconds: outcome.completion_cycles as f64 / cycles_per_second,
            mean_message_latency_seconds: outcome.mean_message_latency / cycles_per_second,
            max_message_latency_seconds: outcome.max_message_latency as f64 / cycles_per_second,
        }
    }

    /// The times of `outcome` at the clock every one of `clocks` names, or `None` when they differ
    /// (jobs replayed from traces recorded at different rates) or there is none.
    pub fn common(clocks: &[f64], outcome: &Outcome) -> Option<RealTime> {
        let first = *clocks.first()?;
        clocks
            .iter()
            .all(|&c| c == first)
            .then(|| RealTime::new(first, outcome))
    }
}

/// The series as CSV: one row per bin, `bin_start,bin_cycles,packets_received,received_per_cycle,
/// conflicts,conflicts_per_cycle,contested,contested_per_cycle`.
pub fn counters_csv(s: &crate::network::counters::CounterSeries) -> String {
    let mut out = String::from(
        "bin_start,bin_cycles,packets_received,received_per_cycle,conflicts,conflicts_per_cycle,\
         contested,contested_per_cycle\n",
    );
    let w = s.bin_cycles;
    let per_cycle = |n: u64| n as f64 / w as f64;
    for (i, ((&r, &c), &o)) in s
        .received
        .iter()
        .zip(&s.conflicts)
        .zip(&s.contested)
        .enumerate()
    {
        out += &format!(
            "{},{w},{r},{},{c},{},{o},{}\n",
            i as u64 * w,
            per_cycle(r),
            per_cycle(c),
            per_cycle(o)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two 4-cycle bins: 2 packets, 1 conflict and its contested output, then 1 packet: rates are
    /// per cycle of the bin.
    #[test]
    fn counters_csv_has_a_row_per_bin() {
        let s = crate::network::counters::CounterSeries {
            totals: crate::network::counters::CounterTotals {
                output_port_conflicts: 1,
                packets_received: 3,
                conflicts_per_cycle: 0.125,
                received_per_cycle: 0.375,
                peak_received_per_cycle: 0.5,
                contested_outputs: 1,
                contested_per_cycle: 0.125,
            },
            bin_cycles: 4,
            cycles: 8,
            received: vec![2, 1],
            conflicts: vec![1, 0],
            contested: vec![1, 0],
        };
        assert_eq!(
            counters_csv(&s),
            "bin_start,bin_cycles,packets_received,received_per_cycle,conflicts,conflicts_per_cycle,\
             contested,contested_per_cycle\n\
             0,4,2,0.5,1,0.25,1,0.25\n4,4,1,0.25,0,0,0,0\n"
        );
    }

    /// 1500 cycles at 1 GHz are 1.5 µs; at 2.5 GHz 0.6 µs; jobs on two clocks have no common one.
    #[test]
    fn seconds_follow_the_clock() {
        let outcome = Outcome {
            completion_cycles: 1500,
            max_message_latency: 500,
            mean_message_latency: 250.0,
            ..Outcome::default()
        };
        let t = RealTime::new(1e9, &outcome);
        assert_eq!(t.completion_seconds, 1.5e-6);
        assert_eq!(t.max_message_latency_seconds, 5e-7);
        assert_eq!(t.mean_message_latency_seconds, 2.5e-7);
        let t = RealTime::common(&[2.5e9, 2.5e9], &outcome).unwrap();
        assert_eq!(t.completion_seconds, 6e-7);
        assert_eq!(RealTime::common(&[1e9, 2e9], &outcome), None);
        assert_eq!(RealTime::common(&[], &outcome), None);
    }
}
