//! One finished run as a line of `results.jsonl`: its identity and the counters the campaign tables
//! use, then ([`RunDetails`]) what a notebook needs to analyse it without running it again: the
//! resolved specs and models, latencies, hops, the busiest link, the critical-path and rank time
//! splits, simulated seconds and the netreplay build that produced it.
//!
//! Lines written before the details existed carry none and still load (`details` is `None`); a run's
//! identity and its config hash are unchanged by them, so resuming a directory never repeats a run.
//! Flit-model runs also carry seed 001's counters as their totals ([`CounterTotals`], not the series
//! over time, which would make a row hundreds of numbers long; the peak is over `run`'s default
//! bins); lines without them (flow-model runs, older lines) load with `counters` `None`.

use super::Planned;
use crate::mpi::critical_path::CriticalPath;
use crate::mpi::runtime::TimeSplit;
use crate::network::counters::CounterTotals;
use crate::network::{Model, NetworkModel};
use crate::program::MpiModel;
use crate::run::{RealTime, RunReport};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One finished run, as a line of `results.jsonl`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RunRecord {
    /// Hash of the campaign config that planned the run.
    pub config_hash: String,
    /// Candidate label.
    pub label: String,
    /// Workload as written in the config.
    pub workload: String,
    /// Message size (`None` for traces).
    pub size: Option<u64>,
    /// Completion time in cycles.
    pub completion_cycles: u64,
    /// Messages delivered.
    pub messages: u64,
    /// Phit-link traversals.
    pub phit_hops: u64,
    /// Wall seconds of the simulation.
    pub wall_seconds: f64,
    /// Everything else the run reported: absent from lines written by older versions (and, as serde
    /// reads a flattened option, from a line whose details do not all parse).
    #[serde(flatten)]
    pub details: Option<RunDetails>,
}

/// What a result line carries beyond the campaign tables' counters (field names as in `run --json`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RunDetails {
    /// Canonical topology spec.
    pub topology: String,
    /// Canonical workload spec, with the size and rank count the run used.
    pub workload_spec: String,
    /// Canonical placement spec.
    pub placement: String,
    /// Seed of the run.
    pub seed: u64,
    /// Ranks replayed.
    pub ranks: u32,
    /// Nodes of the topology.
    pub nodes: u32,
    /// Which engine replayed it (`flit` or `flow`).
    pub model: Model,
    /// The `[network]` keys whose values differ from the default model, with those values (empty
    /// for the default model; `run --json`'s `network` has them all).
    pub network: BTreeMap<String, serde_json::Value>,
    /// The MPI model the ranks ran under.
    pub mpi_model: MpiModel,
    /// Mean time from a send being issued to its message being consumed, in cycles.
    pub mean_message_latency: f64,
    /// Longest such time, in cycles.
    pub max_message_latency: u64,
    /// Mean links crossed per packet, node links included.
    pub mean_hops: f64,
    /// The most loaded link (`None` when nothing crossed a link).
    pub busiest_link: Option<String>,
    /// Fraction of the run's cycles it was busy (0 when nothing crossed a link).
    pub busiest_link_utilisation: f64,
    /// The critical path as `run --json` reports it without its listed steps: its length
    /// (`cycles`), split (`compute_cycles`, `latency_cycles`, `contention_cycles`), their shares,
    /// `messages`, `steps_total` and `last_rank`.
    pub critical_path: Option<serde_json::Map<String, serde_json::Value>>,
    /// Where the ranks' time went (`run --json`'s `mpi.time`).
    pub mpi_time: Option<TimeSplit>,
    /// Simulated times in seconds at the workload's clock.
    #[serde(flatten)]
    pub real_time: RealTime,
    /// Seed 001's counters (§V-B), for flit-model runs; absent for flow-model runs and older lines.
    #[serde(flatten)]
    pub counters: Option<CounterTotals>,
    /// netreplay's version (`Cargo.toml`).
    pub version: String,
    /// The git commit netreplay was built from (`unknown` outside a checkout).
    pub commit: String,
}

impl RunRecord {
    /// The line of planned run `run`, of the config hashed `config_hash`, that reported `r`.
    pub fn new(config_hash: &str, run: &Planned, r: &RunReport) -> RunRecord {
        let o = &r.outcome;
        let busiest = o.busiest_links.first();
        let details = RunDetails {
            topology: r.topology.clone(),
            workload_spec: r.workload.clone(),
            placement: r.placement.clone(),
            seed: r.seed,
            ranks: r.ranks,
            nodes: r.nodes,
            model: r.network.model,
            network: non_default_keys(&r.network),
            mpi_model: r.mpi_model.unwrap_or_default(),
            mean_message_latency: o.mean_message_latency,
            max_message_latency: o.max_message_latency,
            mean_hops: o.mean_hops,
            busiest_link: busiest.map(|l| l.link.clone()),
            busiest_link_utilisation: busiest.map_or(0.0, |l| l.utilisation),
            critical_path: r.critical_path.as_ref().and_then(without_steps),
            mpi_time: r.mpi.map(|m| m.time),
            real_time: r
                .real_time
                .unwrap_or_else(|| RealTime::new(crate::program::DEFAULT_CYCLES_PER_SECOND, o)),
            counters: r.counters.as_ref().map(|c| c.totals),
            version: env!("CARGO_PKG_VERSION").to_string(),
            commit: crate::commit().to_string(),
        };
        RunRecord {
            config_hash: config_hash.to_string(),
            label: run.label.clone(),
            workload: run.workload.clone(),
            size: run.size,
            completion_cycles: o.completion_cycles,
            messages: o.messages,
            phit_hops: o.phit_hops,
            wall_seconds: r.speed.wall_seconds,
            details: Some(details),
        }
    }

    /// The run's identity: (label, workload, size), as [`Planned::key`].
    pub fn key(&self) -> (String, String, Option<u64>) {
        (self.label.clone(), self.workload.clone(), self.size)
    }
}

/// The critical path's JSON object without its `steps` list (up to 200 steps: too long for a row).
fn without_steps(path: &CriticalPath) -> Option<serde_json::Map<String, serde_json::Value>> {
    match serde_json::to_value(path) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.remove("steps");
            Some(map)
        }
        _ => None,
    }
}

/// The `[network]` keys of `model` whose values differ from [`NetworkModel::default`]'s, as the
/// model serialises them.
fn non_default_keys(model: &NetworkModel) -> BTreeMap<String, serde_json::Value> {
    let as_map = |m: &NetworkModel| match serde_json::to_value(m) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let default = as_map(&NetworkModel::default());
    as_map(model)
        .into_iter()
        .filter(|(k, v)| default.get(k) != Some(v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of the first results format (eight fields) loads with no details; a full line
    /// round-trips with them.
    #[test]
    fn old_lines_load_and_new_lines_round_trip() {
        let old = r#"{"config_hash":"ab","label":"t","workload":"bu","size":10,"completion_cycles":7,"messages":3,"phit_hops":9,"wall_seconds":0.5}"#;
        let r: RunRecord = serde_json::from_str(old).unwrap();
        assert_eq!((r.completion_cycles, r.details), (7, None));

        let network = NetworkModel {
            model: Model::Flow,
            input_queue_packets: 8,
            ..NetworkModel::default()
        };
        let keys = non_default_keys(&network);
        assert_eq!(
            serde_json::to_string(&keys).unwrap(),
            r#"{"input_queue_packets":8,"model":"flow"}"#
        );
        assert!(non_default_keys(&NetworkModel::default()).is_empty());
        let full = RunRecord {
            details: Some(RunDetails {
                topology: "fat-tree:k=4,n=3".into(),
                workload_spec: "bu:size=10,ranks=64".into(),
                placement: "consecutive".into(),
                seed: 1,
                ranks: 64,
                nodes: 64,
                model: Model::Flow,
                network: keys,
                mpi_model: MpiModel::default(),
                mean_message_latency: 40.5,
                max_message_latency: 80,
                mean_hops: 4.0,
                busiest_link: Some("node 0 -> its switch".into()),
                busiest_link_utilisation: 0.25,
                critical_path: None,
                mpi_time: Some(TimeSplit::default()),
                real_time: RealTime::new(1e9, &crate::network::Outcome::default()),
                counters: None,
                version: "0.1.0".into(),
                commit: "abc1234".into(),
            }),
            ..r
        };
        let line = serde_json::to_string(&full).unwrap();
        assert!(line.contains(r#""completion_seconds":0.0"#), "{line}");
        assert_eq!(serde_json::from_str::<RunRecord>(&line).unwrap(), full);

        // A flow-model line (and one written before the counters) has no counter fields and keeps
        // its details; a flit-model line round-trips its counters, flat beside the other fields.
        assert!(!line.contains("output_port_conflicts"), "{line}");
        let counters = CounterTotals {
            output_port_conflicts: 3,
            packets_received: 12,
            conflicts_per_cycle: 0.0625,
            received_per_cycle: 0.25,
            peak_received_per_cycle: 0.5,
            contested_outputs: 2,
            contested_per_cycle: 0.03125,
        };
        let mut flit = full.clone();
        if let Some(d) = flit.details.as_mut() {
            d.counters = Some(counters);
        }
        let line = serde_json::to_string(&flit).unwrap();
        assert!(
            line.contains(r#""output_port_conflicts":3,"packets_received":12,"conflicts_per_cycle":0.0625,"received_per_cycle":0.25,"peak_received_per_cycle":0.5,"contested_outputs":2,"contested_per_cycle":0.03125"#),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<RunRecord>(&line).unwrap(), flit);
        // A line missing one of the seven loads without counters, its details intact.
        let partial = line.replace(r#""packets_received":12,"#, "");
        let read: RunRecord = serde_json::from_str(&partial).unwrap();
        assert_eq!(read.details.map(|d| (d.seed, d.counters)), Some((1, None)));
    }
}
