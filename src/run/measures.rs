//! What a run measured besides the engine's [`Outcome`]: how fast the simulation went in wall time,
//! and the simulated times in seconds at the workload's network clock.

use crate::error::Result;
use crate::network::Outcome;
use serde::{Deserialize, Serialize};
use std::time::Instant;

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

impl Speed {
    /// Runs `simulate` and times it; the rates come from `nodes` and the [`Outcome`] that `outcome`
    /// picks out of its result.
    pub(super) fn measure<T>(
        nodes: u32,
        simulate: impl FnOnce() -> Result<T>,
        outcome: impl Fn(&T) -> &Outcome,
    ) -> Result<(T, Speed)> {
        let start = Instant::now();
        let result = simulate()?;
        let wall = start.elapsed().as_secs_f64().max(1e-9);
        let o = outcome(&result);
        let speed = Speed {
            wall_seconds: wall,
            phit_hops_per_second: o.phit_hops as f64 / wall,
            node_cycles_per_second: f64::from(nodes) * o.completion_cycles as f64 / wall,
        };
        Ok((result, speed))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
