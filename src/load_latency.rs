//! Load-latency sweeps: open-loop runs of one traffic pattern over several topologies at a range of
//! offered loads, in parallel across runs (each run single-threaded and deterministic for its seed).

use crate::error::{Error, Result};
use crate::network::{self, LoadPoint, Network, NetworkModel, OpenLoopParams, Routing};
pub use crate::report::load_latency::Curve;
use crate::{topology, traffic};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A sweep as written in a TOML config; command-line flags override its fields.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SweepConfig {
    /// Topology specs, one curve each.
    #[serde(default)]
    pub topologies: Vec<String>,
    /// Traffic pattern spec, e.g. `uniform` or `hotspot:fraction=0.1`.
    pub traffic: Option<String>,
    /// Offered loads as `FROM:TO:STEP` in phits per node per cycle, e.g. `0.05:1.0:0.05`.
    pub loads: Option<String>,
    /// Seed of every random choice.
    pub seed: Option<u64>,
    /// Routing algorithms, one curve each per topology (default: `[network] routing` alone).
    #[serde(default)]
    pub routings: Vec<Routing>,
    /// Phases (the `load` field is ignored: the sweep sets it).
    #[serde(default)]
    pub open_loop: OpenLoopParams,
    /// Network model.
    #[serde(default)]
    pub network: NetworkModel,
    /// Cost model that prices each curve's whole network for its throughput per dollar (seed 000
    /// Table 8 uses `seed000`); default the `topology --json` model, `seed004`.
    pub cost: Option<String>,
    /// Keep the points past a curve's first unstable one (seed 001 Figs. 10-12 plot conflicts and
    /// packets received up to a load of 1); by default a curve stops there, as Booksim's sweeps do.
    #[serde(default)]
    pub past_saturation: bool,
}

/// What a sweep takes besides its config, none of it part of the TOML schema: the command line's
/// limit and progress (`load-latency` flags), and where the config was read from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SweepOptions {
    /// How the sweep shows its progress on stderr (`--progress`, `--quiet`; off by default here).
    pub progress: crate::report::progress::Show,
    /// Refuse the sweep when its memory estimate passes this many bytes (`--max-memory`; default:
    /// the memory available on the machine).
    pub max_memory: Option<u64>,
    /// The config file the sweep was read from (`load-latency CONFIG`): an error in one of its
    /// `topologies`, its `traffic` or its `cost` is placed at that value there
    /// ([`crate::run::locate_spec`]); a spec the file does not give (a flag's) keeps no position.
    pub config: Option<std::path::PathBuf>,
}

impl SweepConfig {
    /// Reads a TOML sweep config, with file:line:column errors.
    pub fn load(path: &Path) -> Result<SweepConfig> {
        let cfg: SweepConfig = crate::run::load_toml(path)?;
        cfg.network
            .check_values()
            .map_err(|e| crate::run::locate(path, e))?;
        Ok(cfg)
    }
}

/// Most loads one sweep takes.
const MAX_LOADS: usize = 1000;

/// Parses `FROM:TO:STEP` (inclusive of TO up to rounding) or a comma-separated list of loads.
pub fn parse_loads(text: &str) -> Result<Vec<f64>> {
    let bad = |why: &str| {
        Error::Invalid(format!(
            "loads `{text}`: {why}; write FROM:TO:STEP (e.g. 0.05:1.0:0.05) or a list (0.1,0.2,0.5), each in (0, 1]"
        ))
    };
    let numbers = |s: &str| -> Result<Vec<f64>> {
        s.split([':', ','])
            .map(|t| {
                t.trim()
                    .parse::<f64>()
                    .map_err(|_| bad(&format!("`{t}` is not a number")))
            })
            .collect()
    };
    let loads = if text.contains(':') {
        let v = numbers(text)?;
        let [from, to, step] = v[..] else {
            return Err(bad("a range has three parts"));
        };
        if let Some(nan) = [from, to, step].iter().find(|x| !x.is_finite()) {
            return Err(bad(&format!("`{nan}` is not a finite number")));
        }
        if step <= 0.0 || to < from {
            return Err(bad("the step must be positive and TO at least FROM"));
        }
        // The length is checked before the list is built: a tiny step would ask for terabytes.
        let count = ((to - from) / step + 1e-9).floor() + 1.0;
        if count.is_nan() || count > MAX_LOADS as f64 {
            return Err(bad(&format!(
                "the range has {count:.3e} loads, more than {MAX_LOADS}; take a larger step"
            )));
        }
        (0..count as usize)
            .map(|i| from + step * i as f64)
            .collect()
    } else {
        numbers(text)?
    };
    if loads.is_empty()
        || loads.len() > MAX_LOADS
        || loads.iter().any(|l| !(*l > 0.0 && *l <= 1.0 + 1e-9))
    {
        return Err(bad(&format!(
            "every load must be in (0, 1], at most {MAX_LOADS} of them"
        )));
    }
    Ok(loads.into_iter().map(|l| l.min(1.0)).collect())
}

/// Runs every (topology, load) pair with the default [`SweepOptions`].
pub fn sweep(cfg: &SweepConfig) -> Result<Vec<Curve>> {
    sweep_with(cfg, &SweepOptions::default())
}

/// Runs every (topology, load) pair, in parallel, and groups the points into curves, limited and
/// shown as `options` say.
pub fn sweep_with(cfg: &SweepConfig, options: &SweepOptions) -> Result<Vec<Curve>> {
    if cfg.topologies.is_empty() {
        return Err(Error::Invalid(
            "no topology given: pass --topology SPEC (once per curve)".into(),
        ));
    }
    let located = |kind_key, spec: &str, e| {
        crate::run::locate_spec(options.config.as_deref(), kind_key, spec, e)
    };
    let traffic = cfg.traffic.as_deref().unwrap_or("uniform");
    let pattern =
        traffic::build(traffic).map_err(|e| located(("traffic", "traffic"), traffic, e))?;
    let cost = cfg.cost.as_deref().unwrap_or(crate::cost::DEFAULT);
    let pricing = crate::cost::build(cost).map_err(|e| located(("cost model", "cost"), cost, e))?;
    let mut loads = parse_loads(cfg.loads.as_deref().unwrap_or("0.05:1.0:0.05"))?;
    loads.sort_by(f64::total_cmp);
    cfg.open_loop.validate()?;
    let seed = cfg.seed.unwrap_or(1);
    let topos = cfg
        .topologies
        .iter()
        .map(|t| topology::build(t).map_err(|e| located(("topology", "topologies"), t, e)))
        .collect::<Result<Vec<_>>>()?;
    let routings = if cfg.routings.is_empty() {
        vec![cfg.network.routing.clone()]
    } else {
        cfg.routings.clone()
    };
    let curves: Vec<(usize, &Routing)> = (0..topos.len())
        .flat_map(|t| routings.iter().map(move |r| (t, r)))
        .collect();
    let models: Vec<NetworkModel> = curves
        .iter()
        .map(|&(_, routing)| NetworkModel {
            routing: routing.clone(),
            ..cfg.network.clone()
        })
        .collect();
    // Each curve's model checked on its topology and its routing prepared once, for all its points:
    // fails early (before any simulation) on a routing the topology cannot run.
    let networks = curves
        .iter()
        .zip(&models)
        .map(|(&(t, _), model)| Network::new(topos[t].as_ref(), model))
        .collect::<Result<Vec<_>>>()?;
    let dests = topos
        .iter()
        .map(|t| pattern.bind(t.nodes(), seed))
        .collect::<Result<Vec<_>>>()?;
    // Points run in parallel, up to one engine per thread: the largest must fit that many times.
    let threads = rayon::current_num_threads().min(curves.len() * loads.len()) as u64;
    for &(t, routing) in &curves {
        let non_minimal = routing.non_minimal();
        let engine = network::memory::engine_bytes(topos[t].as_ref(), &cfg.network, non_minimal);
        network::memory::check(
            engine.saturating_mul(threads),
            options.max_memory,
            &format!(
                "{threads} open-loop runs at once on `{}` ({} nodes)",
                topos[t].spec(),
                topos[t].nodes()
            ),
        )?;
    }
    let jobs: Vec<(usize, f64)> = (0..curves.len())
        .flat_map(|c| loads.iter().map(move |&l| (c, l)))
        .collect();
    let finished = std::sync::atomic::AtomicU64::new(0);
    let run_all = || {
        jobs.par_iter()
            .map(|&(c, load)| {
                let params = OpenLoopParams {
                    load,
                    ..cfg.open_loop
                };
                let point = networks[c].open_loop(&dests[curves[c].0], &params, seed);
                finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                point
            })
            .collect::<Result<Vec<_>>>()
    };
    let points = crate::report::progress::observe(
        options.progress,
        (
            jobs.len() as u64,
            "points",
            crate::report::progress::Rate::SinceStart,
        ),
        || {
            let done = finished.load(std::sync::atomic::Ordering::Relaxed);
            (done, format!("{} curves", curves.len()))
        },
        run_all,
    )?;
    let mut points = points.into_iter();
    Ok(curves
        .iter()
        .map(|&(t, routing)| {
            let mut points: Vec<LoadPoint> = points.by_ref().take(loads.len()).collect();
            // As Booksim's sweeps do, a curve stops at its first unstable point (loads ascending).
            if let Some(first) = points.iter().position(|p| p.saturated)
                && !cfg.past_saturation
            {
                points.truncate(first + 1);
            }
            let cost = pricing
                .price(topos[t].as_ref(), &crate::cost::complete(topos[t].as_ref()))
                .ok();
            Curve::new(
                topos[t].spec(),
                pattern.spec(),
                routing.clone(),
                points,
                cost,
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_ranges_and_lists() {
        assert_eq!(parse_loads("0.05:1.0:0.05").unwrap().len(), 20);
        assert_eq!(parse_loads("0.1,0.5").unwrap(), [0.1, 0.5]);
        for bad in ["0:1:0.1", "0.5:0.1:0.1", "0.1:1:0", "x", "0.1:2:0.5", "1,2"] {
            assert!(parse_loads(bad).is_err(), "{bad}");
        }
        for bad in ["nan:1:0.1", "0.1:inf:0.1", "0.1:1:NaN"] {
            let e = parse_loads(bad).unwrap_err().to_string();
            assert!(e.contains("is not a finite number"), "{bad}: {e}");
        }
    }

    /// A tiny step is refused before it is expanded into a list of 10^19 loads (a capacity overflow
    /// panic) or a 7 TB allocation.
    #[test]
    fn p1_load_list_length_checked_before_building() {
        for step in ["1e-19", "1e-12", "1e-300", "5e-324"] {
            let e = parse_loads(&format!("0.1:1:{step}"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("more than 1000"), "{step}: {e}");
        }
        assert_eq!(parse_loads("0.001:1:0.001").unwrap().len(), 1000);
        assert!(parse_loads("0.0005:1:0.0005").is_err());
    }
}
