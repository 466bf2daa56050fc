//! One simulation from spec strings to a report: the path topology -> workload -> placement -> engine.
//!
//! [`RunConfig`] is what a `configs/*.toml` file or the command line gives; [`execute`] validates it in
//! one place, runs the engine and measures wall time.

use crate::error::{Error, Result};
use crate::network::{self, NetworkModel, Outcome};
use crate::{placement, topology, workload};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

/// A run as written in a TOML config; command-line flags override its fields.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Topology spec, e.g. `thin-tree:k=8,up=4,n=4`.
    pub topology: Option<String>,
    /// Workload spec, e.g. `bu:size=1000` or `bu:size=1000,ranks=4096`.
    pub workload: Option<String>,
    /// Placement spec (default `consecutive`).
    pub placement: Option<String>,
    /// Seed of every random choice (default 1).
    pub seed: Option<u64>,
    /// Network model parameters (defaults: seed 004 §3.1).
    #[serde(default)]
    pub network: NetworkModel,
}

impl RunConfig {
    /// Reads a TOML run config; syntax and unknown-key errors carry file:line:column.
    pub fn load(path: &Path) -> Result<RunConfig> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))
    }
}

/// Converts a TOML error into a positioned [`Error::File`].
pub fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> Error {
    let offset = e.span().map_or(0, |s| s.start).min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = offset - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    Error::File {
        path: path.display().to_string(),
        line,
        column,
        message: e.message().to_string(),
    }
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
    /// Wall-clock seconds of the simulation proper (building the network and program excluded).
    pub wall_seconds: f64,
    /// Simulation speed: phit-link traversals per wall second.
    pub phit_hops_per_second: f64,
    /// Simulation speed: simulated node-cycles per wall second (nodes x completion cycles / wall time).
    pub node_cycles_per_second: f64,
}

/// Builds everything `config` names and runs one simulation.
pub fn execute(config: &RunConfig) -> Result<RunReport> {
    let topo_spec = config.topology.as_deref().ok_or_else(|| {
        Error::Invalid(
            "no topology given: pass --topology SPEC or `topology = ...` in the config".into(),
        )
    })?;
    let workload_spec = config.workload.as_deref().ok_or_else(|| {
        Error::Invalid(
            "no workload given: pass --workload SPEC or `workload = ...` in the config".into(),
        )
    })?;
    let topo = topology::build(topo_spec)?;
    let wl = workload::build(workload_spec)?;
    let place = placement::build(config.placement.as_deref().unwrap_or("consecutive"))?;
    let seed = config.seed.unwrap_or(1);
    config.network.validate(topo.as_ref())?;

    let ranks = wl.ranks.or(wl.generator.ranks()).unwrap_or(topo.nodes());
    let rank_node = place.place(ranks, topo.as_ref(), seed)?;
    let program = wl.generator.generate(ranks)?;

    let start = Instant::now();
    let outcome = network::simulate(topo.as_ref(), &config.network, &program, &rank_node, seed)?;
    let wall = start.elapsed().as_secs_f64().max(1e-9);
    Ok(RunReport {
        topology: topo.spec(),
        workload: format!("{},ranks={ranks}", wl.generator.spec()),
        placement: place.spec(),
        seed,
        ranks,
        nodes: topo.nodes(),
        network: config.network,
        wall_seconds: wall,
        phit_hops_per_second: outcome.phit_hops as f64 / wall,
        node_cycles_per_second: f64::from(topo.nodes()) * outcome.completion_cycles as f64 / wall,
        outcome,
    })
}
