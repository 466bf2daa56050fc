//! What `netreplay run` reports: the data its text, JSON and HTML reports are made of. Beside the
//! formats that print it, so `run` builds a report and `report` never reaches up into `run`.

use crate::mpi::critical_path::CriticalPath;
use crate::mpi::runtime::MpiStats;
use crate::network::load_bins::LinkLoadSeries;
use crate::network::{NetworkModel, Outcome};
use serde::Serialize;

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
    /// What the engine measured.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// What the MPI layer did (protocol messages, self-messages, the ranks' time split), for runs of
    /// a single workload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiStats>,
    /// Per-job results of a shared-machine run (empty for a single workload).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobReport>,
    /// The chain of computations and messages that set the completion time (single workloads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub critical_path: Option<CriticalPath>,
    /// Link load per class over time and the top links' series, when asked for (`--link-load`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_load: Option<LinkLoadSeries>,
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
