//! The native half of the Python package: the netreplay library called in-process, one function per
//! command the package wraps. Each takes what the command line takes and answers with the JSON the
//! command prints (`run --json`, `topology --json`) or the campaign's records, which
//! `netreplay/__init__.py` turns into dicts and pandas DataFrames; a netreplay error becomes
//! `netreplay.Error` with the message the command line prints. Simulations run with the GIL released.

use netreplay::campaign::{self, CampaignConfig};
use netreplay::error::{Error, Result};
use netreplay::report::{self, TopologyReport};
use netreplay::run::{self, RunConfig};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

create_exception!(
    _native,
    NetreplayError,
    PyException,
    "A netreplay error: bad input (with its file:line:column or key), or a run that failed."
);

/// A netreplay error as the Python exception, worded as the command line words it.
fn to_py(e: Error) -> PyErr {
    NetreplayError::new_err(format!("{e:#}"))
}

/// A JSON argument the Python half built, parsed; a malformed one is the caller's bug, reported.
fn parse_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Invalid(format!("{what}: {e}")))
}

/// The run config of `run`: the TOML file `config` (read as `netreplay run CONFIG` reads it), with
/// `overrides` (a JSON object of its top-level keys) replacing its values, except `network`, whose
/// keys are merged into the file's `[network]` table as if written there (a `preset` included).
fn run_config(config: Option<&Path>, overrides: &str) -> Result<RunConfig> {
    let overrides: Map<String, Value> = parse_json("run overrides", overrides)?;
    let mut table = match config {
        Some(path) => {
            // Loaded first as the command line loads it, for its positioned errors.
            let loaded = RunConfig::load(path)?;
            if overrides.is_empty() {
                return Ok(loaded);
            }
            let text =
                netreplay::input::read_text(path, "a config", netreplay::input::MAX_TEXT_BYTES)?;
            let raw: toml::Table = toml::from_str(&text)
                .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
            match serde_json::to_value(raw) {
                Ok(Value::Object(map)) => map,
                _ => Map::new(),
            }
        }
        None => Map::new(),
    };
    for (key, value) in overrides {
        match (key.as_str(), table.get_mut("network"), value) {
            ("network", Some(Value::Object(network)), Value::Object(keys)) => network.extend(keys),
            (_, _, value) => {
                table.insert(key, value);
            }
        }
    }
    let cfg: RunConfig = serde_json::from_value(Value::Object(table))
        .map_err(|e| Error::Invalid(format!("run config: {e}")))?;
    cfg.network.check_values()?;
    Ok(cfg)
}

/// `netreplay run [CONFIG] ... --json`: the report's JSON. `overrides` holds the flags' values
/// (`topology`, `workload`, `placement`, `seed`, `jobs`, and `network` keys such as `routing` and
/// `model`); `timeline` is `--timeline FILE`, `link_load` adds the JSON's `link_load` (as
/// `--link-load`), `bins` is `--bins`, `max_memory` is `--max-memory` (`8G`, bytes).
#[pyfunction]
#[pyo3(signature = (config, overrides, timeline=None, link_load=false, bins=None, max_memory=None))]
fn run_json(
    py: Python<'_>,
    config: Option<PathBuf>,
    overrides: &str,
    timeline: Option<PathBuf>,
    link_load: bool,
    bins: Option<usize>,
    max_memory: Option<&str>,
) -> PyResult<String> {
    let cfg = run_config(config.as_deref(), overrides).map_err(to_py)?;
    let max_memory = max_memory
        .map(netreplay::network::memory::parse_size)
        .transpose()
        .map_err(|e| to_py(Error::Invalid(format!("max_memory: {e}"))))?;
    if let Some(path) = &timeline {
        netreplay::output::prepare_output(path).map_err(to_py)?;
    }
    let options = run::RunOptions {
        max_memory,
        timeline,
        link_load,
        bins,
        // A `[[jobs]]` spec error is placed at its line in the file, as `netreplay run CONFIG` does.
        config,
        ..run::RunOptions::default()
    };
    let r = py
        .detach(|| run::execute_with(&cfg, &options))
        .map_err(to_py)?;
    Ok(report::json(&r))
}

/// `netreplay topology SPEC --json [--exact] [--fault-tolerance --trials N]`: the report's JSON.
#[pyfunction]
#[pyo3(signature = (spec, exact=false, fault_tolerance=false, trials=100))]
fn topology_json(
    py: Python<'_>,
    spec: &str,
    exact: bool,
    fault_tolerance: bool,
    trials: u32,
) -> PyResult<String> {
    py.detach(|| {
        let topo = netreplay::topology::build(spec)?;
        if !(1..=100_000).contains(&trials) {
            return Err(Error::Invalid(format!(
                "trials = {trials} is not from 1 to 100000"
            )));
        }
        let budget = if exact {
            netreplay::topology::metrics::Budget::EXACT
        } else {
            netreplay::topology::metrics::Budget::DEFAULT
        };
        let mut r = TopologyReport::new(topo.as_ref())
            .with_metrics(topo.as_ref(), budget)
            .with_bisection(topo.as_ref())
            .with_link_faults(
                topo.as_ref(),
                if exact {
                    u64::MAX
                } else {
                    netreplay::topology::link_faults::MAX_WORK
                },
            );
        if fault_tolerance {
            r.fault_tolerance = Some(netreplay::topology::fault_tolerance::fault_tolerance(
                topo.as_ref(),
                trials,
                1,
            ));
        }
        Ok(report::json(&r))
    })
    .map_err(to_py)
}

/// `netreplay campaign CONFIG --out OUT [--jobs N]`: runs what `out` does not hold yet and writes the
/// report files, as the command does. `config` is a TOML file's path, or (`is_json`) the config as
/// JSON with the same keys. Returns (runs of the campaign, already done, run now).
#[pyfunction]
#[pyo3(signature = (config, is_json, out, jobs=None, progress=false))]
fn campaign_run(
    py: Python<'_>,
    config: &str,
    is_json: bool,
    out: PathBuf,
    jobs: Option<usize>,
    progress: bool,
) -> PyResult<(usize, usize, usize)> {
    let cfg = if is_json {
        let cfg: CampaignConfig = parse_json("campaign config", config).map_err(to_py)?;
        cfg.network.check_values().map_err(to_py)?;
        cfg.check_networks().map_err(to_py)?;
        cfg.validate().map_err(to_py)?;
        cfg
    } else {
        CampaignConfig::load(Path::new(config)).map_err(to_py)?
    };
    let show = if progress {
        report::progress::Show::Lines
    } else {
        report::progress::Show::Off
    };
    py.detach(|| {
        let jobs =
            jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
        let p = campaign::run_campaign(&cfg, &out, jobs, None, show)?;
        let (cfg, records) = campaign::merge(std::slice::from_ref(&out))?;
        let a = campaign::analysis::analyse(&cfg, &records)?;
        report::campaign::write_all(&a, &out)?;
        Ok((p.shard_runs, p.resumed, p.ran))
    })
    .map_err(to_py)
}

/// What `read_results_json` answers: the config's name, hash and reference, and one record per run
/// with its fields in `results.jsonl`'s order.
#[derive(serde::Serialize)]
struct Results<'a> {
    name: Option<&'a str>,
    config_hash: String,
    reference: &'a str,
    records: &'a [campaign::RunRecord],
}

/// The results of one campaign's directories (shards merged, as `netreplay report` merges them), as
/// JSON [`Results`].
#[pyfunction]
fn read_results_json(py: Python<'_>, dirs: Vec<PathBuf>) -> PyResult<String> {
    py.detach(|| {
        let (cfg, records) = campaign::merge(&dirs)?;
        let results = Results {
            name: cfg.name.as_deref(),
            config_hash: cfg.hash(),
            reference: &cfg.reference,
            records: &records,
        };
        serde_json::to_string(&results).map_err(|e| Error::Invalid(format!("results: {e}")))
    })
    .map_err(to_py)
}

/// The module `netreplay._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(topology_json, m)?)?;
    m.add_function(wrap_pyfunction!(campaign_run, m)?)?;
    m.add_function(wrap_pyfunction!(read_results_json, m)?)?;
    m.add("Error", m.py().get_type::<NetreplayError>())?;
    m.add("VERSION", netreplay::VERSION)?;
    m.add("COMMIT", netreplay::commit())?;
    Ok(())
}
