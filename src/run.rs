//! One simulation from spec strings to a report: the path topology -> workload -> placement -> engine.
//!
//! [`RunConfig`] is what a `configs/*.toml` file or the command line gives, [`RunOptions`] what only
//! the command line adds (limits, progress, instruments); [`execute_with`] validates them in one
//! place, runs the engine and measures wall time.

use crate::error::{Error, Result};
use crate::network::counters::Counters;
use crate::network::load_bins::{DEFAULT_BINS, LoadBins};
use crate::network::{self, NetworkModel, Outcome, memory};
use crate::replay::{self, Instruments, Replay, Replayed};
pub use crate::report::run::{JobReport, RealTime, RunReport, Speed};
use crate::topology::Topology;
use crate::{placement, topology, workload};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Instant;

mod config;
mod jobs;

pub use config::{load_toml, locate, locate_spec};

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
    /// Jobs sharing the machine (`[[jobs]]`), instead of one `workload`.
    #[serde(default)]
    pub jobs: Vec<JobConfig>,
}

/// What a run takes besides its config, none of it part of the TOML schema: limits, progress,
/// instruments and where the config was read from, which the command line sets (`run` flags) and a
/// campaign leaves at their defaults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunOptions {
    /// Refuse the run when its memory estimate passes this many bytes (`--max-memory`; default: the
    /// memory available on the machine).
    pub max_memory: Option<u64>,
    /// How the run shows its progress on stderr (`--progress`, `--quiet`; off by default here).
    pub progress: crate::report::progress::Show,
    /// Write the replay timeline (Chrome trace-event JSON) to this file (`--timeline`).
    pub timeline: Option<std::path::PathBuf>,
    /// Record link load over time into the report's `link_load` (`--link-load`, `--html`).
    pub link_load: bool,
    /// Most time bins of the link-load series (`--bins`; default 200, the result has half to all).
    pub bins: Option<usize>,
    /// Count output-port conflicts and packets received per cycle into the report's `counters`
    /// (`--received-per-cycle`, `--html`), in at most `bins` time bins.
    pub counters: bool,
    /// The config file the run was read from (`run CONFIG`): a spec error of one of its `[[jobs]]`
    /// is placed at that job's value there ([`locate_spec`]). The run's other specs may come from
    /// flags, so their errors are the caller's to place.
    pub config: Option<std::path::PathBuf>,
}

impl RunOptions {
    /// The counters' recorder when they are asked for.
    fn new_counters(&self) -> Option<Counters> {
        self.counters
            .then(|| Counters::new(self.bins.unwrap_or(DEFAULT_BINS)))
    }
}

/// One job of a shared-machine run. Jobs are placed in order, each on what the previous ones left free.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct JobConfig {
    /// Workload spec with its rank count, e.g. `bu:size=10000,ranks=2048`.
    pub workload: String,
    /// Placement spec (default: the run's `placement`, else `consecutive`).
    pub placement: Option<String>,
    /// Cycle at which the job starts (default 0).
    #[serde(default)]
    pub start: u64,
}

impl RunConfig {
    /// Reads a TOML run config; syntax, unknown-key and `[network]` value errors carry
    /// file:line:column.
    pub fn load(path: &Path) -> Result<RunConfig> {
        let cfg: RunConfig = load_toml(path)?;
        cfg.network.check_values().map_err(|e| locate(path, e))?;
        Ok(cfg)
    }
}

impl Speed {
    /// Runs `simulate` and times it; the rates come from `nodes` and the [`Outcome`] that `outcome`
    /// picks out of its result.
    fn measure<T>(
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

/// Refuses a trace with more ranks than `topo` has nodes before its program is built (a trace naming
/// one rank of 16 M would otherwise allocate gigabytes first): [`crate::trace::limits::check_ranks`].
fn check_declared_ranks(workload: &workload::Parsed, topo: &dyn Topology) -> Result<()> {
    if workload.spec.name != "trace" || workload.ranks.is_some() {
        return Ok(());
    }
    let Some(file) = workload.param("file") else {
        return Ok(());
    };
    let path = Path::new(file);
    if !(path.is_file() || crate::trace::otf2::is_otf2(path) || crate::trace::dumpi::is_dumpi(path))
    {
        // What else the path is (missing, a pipe, a plain folder) is the full read's to report.
        return Ok(());
    }
    let format = match workload.param("format") {
        Some(f) => crate::trace::Format::parse(f).ok().flatten(),
        None => None,
    };
    let limit = crate::trace::RankLimit::network(topo.nodes(), &topo.spec());
    crate::trace::limits::check_ranks(path, format, &limit)
}

/// Runs `work` with progress on stderr as `options` ask: phits delivered of the `total` the run
/// delivers (see `report/progress.rs`), with the cycle and messages delivered as a note.
fn observe_phits<T>(
    options: &RunOptions,
    total: u64,
    observer: &network::Progress,
    work: impl FnOnce() -> T,
) -> T {
    crate::report::progress::observe(
        options.progress,
        (total, "phits", crate::report::progress::Rate::Windowed),
        || {
            let (cycle, delivered) = observer.read();
            (
                observer.phits(),
                format!(
                    "cycle {cycle}, {} delivered",
                    crate::report::progress::count(delivered, "messages")
                ),
            )
        },
        work,
    )
}

/// Builds everything `config` names and runs one simulation with the default [`RunOptions`].
pub fn execute(config: &RunConfig) -> Result<RunReport> {
    execute_with(config, &RunOptions::default())
}

/// Builds everything `config` names and runs one simulation, limited and instrumented as `options`
/// say.
pub fn execute_with(config: &RunConfig, options: &RunOptions) -> Result<RunReport> {
    let topo_spec = config.topology.as_deref().ok_or_else(|| {
        Error::Invalid(
            "no topology given: pass --topology SPEC or `topology = ...` in the config".into(),
        )
    })?;
    let topo = topology::build(topo_spec)?;
    let seed = config.seed.unwrap_or(1);
    // The model checked on the topology and its routing prepared, once for every run below.
    let replay = Replay::new(topo.as_ref(), &config.network, seed)?;
    // Estimated before the program and the engine are built: a network too large is refused now.
    let non_minimal = config.network.routing.non_minimal();
    let engine_bytes = memory::engine_bytes(topo.as_ref(), &config.network, non_minimal);
    let network_what = format!("simulating `{}` ({} nodes)", topo.spec(), topo.nodes());
    memory::check(engine_bytes, options.max_memory, &network_what)?;
    if !config.jobs.is_empty() {
        if options.timeline.is_some() || options.link_load {
            return Err(Error::Invalid(
                "--timeline, --link-load and --html take a single workload, not [[jobs]]".into(),
            ));
        }
        return jobs::execute_jobs(config, options, &replay, engine_bytes);
    }
    let workload_spec = config.workload.as_deref().ok_or_else(|| {
        Error::Invalid(
            "no workload given: pass --workload SPEC, `workload = ...` or [[jobs]] in the config"
                .into(),
        )
    })?;
    let parsed = workload::parse(workload_spec)?;
    check_declared_ranks(&parsed, topo.as_ref())?;
    // A trace is read now: its lowering is kept under the same limit as the run.
    let wl = memory::with_limit(options.max_memory, || parsed.build())?;
    let place = placement::build(config.placement.as_deref().unwrap_or("consecutive"))?;

    let ranks = wl.ranks.or(wl.generator.ranks()).unwrap_or(topo.nodes());
    let rank_node = place.place(ranks, topo.as_ref(), seed)?;
    if let Some(groups) = wl.generator.jobs() {
        if options.timeline.is_some() || options.link_load {
            return Err(Error::Invalid(
                "--timeline, --link-load and --html take a single workload, not a multi-job trace"
                    .into(),
            ));
        }
        let merged = jobs::Merged {
            workload: &wl,
            groups,
            placement: place.spec(),
            rank_node: &rank_node,
        };
        return jobs::execute_merged(config, options, &replay, engine_bytes, &merged);
    }
    if let Some(bytes) = wl.generator.bytes_bound(ranks) {
        memory::check(
            engine_bytes.saturating_add(bytes),
            options.max_memory,
            &format!("{network_what} with its workload"),
        )?;
    }
    let program = wl.generator.generate(ranks).map_err(|e| {
        if wl.ranks.or(wl.generator.ranks()).is_some() {
            return e;
        }
        // The count came from the network, not from the user: say so, and what to set.
        Error::Invalid(format!(
            "{e} (the workload's ranks default to the {} nodes of `{}`: give it `ranks=`, at most {})",
            topo.nodes(),
            topo.spec(),
            topo.nodes()
        ))
    })?;
    log::info!(
        "{} ranks of `{}` placed on `{}` ({} nodes), seed {seed}",
        ranks,
        wl.generator.spec(),
        topo.spec(),
        topo.nodes()
    );
    memory::check(
        engine_bytes + replay::program_bytes(&program),
        options.max_memory,
        &format!("{network_what} with its workload"),
    )?;

    let observer = network::Progress::default();
    let total = replay::program_phits(&program, &config.network);
    log::debug!(
        "{} messages, {total} phits to deliver; memory estimate {}",
        program.sends().count(),
        memory::human(engine_bytes + replay::program_bytes(&program))
    );
    let workload_name = format!("{},ranks={ranks}", wl.generator.spec());
    // The timeline's link-load tracks come from the flit model's packets; under the flow model it
    // has the ranks' and messages' tracks alone.
    let want_load =
        options.link_load || (options.timeline.is_some() && config.network.model.is_flit());
    let mut load = want_load.then(|| LoadBins::new(options.bins.unwrap_or(DEFAULT_BINS)));
    let meta = crate::report::timeline::TimelineMeta {
        topology: topo.spec(),
        workload: workload_name.clone(),
        rank_node: rank_node.clone(),
        collectives_known: program.regions().is_some(),
        max_tracks: crate::report::timeline::MAX_TRACKS,
        max_events: crate::report::timeline::MAX_EVENTS,
        max_flows: crate::report::timeline::MAX_FLOWS,
        cycles_per_second: wl.generator.cycles_per_second(),
    };
    let mut counters = options.new_counters();
    let sim = Sim {
        replay: &replay,
        program: &program,
        rank_node: &rank_node,
        progress: &observer,
    };
    let run = |load: Option<&mut LoadBins>, counters: Option<&mut Counters>| match &options.timeline
    {
        None => sim.run(load, None, counters),
        Some(path) => timeline_run(path, &meta, &sim, load, counters),
    };
    let (replayed, speed) = observe_phits(options, total, &observer, || {
        Speed::measure(
            topo.nodes(),
            || run(load.as_mut(), counters.as_mut()),
            |r: &Replayed| &r.outcome,
        )
    })?;
    let Replayed {
        outcome,
        mpi,
        critical_path,
    } = replayed;
    let outcome_end = outcome.completion_cycles;
    let link_load = match (&load, options.link_load) {
        (Some(first), true) => Some(if first.needs_second_pass() {
            // Too many links to keep per-link bins during the run: replay it (deterministic)
            // tracking only the busiest links (see network/load_bins.rs).
            let mut second = LoadBins::second_pass(first, outcome.completion_cycles);
            let instruments = Instruments {
                load: Some(&mut second),
                ..Instruments::default()
            };
            replay.program(&program, &rank_node, instruments)?;
            first.finish(outcome.completion_cycles, Some(&second))
        } else {
            first.finish(outcome.completion_cycles, None)
        }),
        _ => None,
    };
    Ok(RunReport {
        topology: topo.spec(),
        workload: format!("{},ranks={ranks}", wl.generator.spec()),
        placement: place.spec(),
        seed,
        ranks,
        nodes: topo.nodes(),
        network: config.network.clone(),
        mpi_model: Some(*program.mpi()),
        real_time: Some(RealTime::new(wl.generator.cycles_per_second(), &outcome)),
        speed,
        outcome,
        mpi: Some(mpi),
        jobs: Vec::new(),
        critical_path,
        link_load,
        counters: counters.map(|c| c.finish(outcome_end)),
    })
}

/// The pieces of one instrumented simulation, so it can be run with or without a timeline.
struct Sim<'s> {
    replay: &'s Replay<'s>,
    program: &'s crate::program::Program,
    rank_node: &'s [u32],
    progress: &'s network::Progress,
}

impl Sim<'_> {
    fn run<'o>(
        &'o self,
        load: Option<&'o mut LoadBins>,
        observer: Option<&'o mut (dyn crate::mpi::observe::RankObserver + 'o)>,
        counters: Option<&'o mut Counters>,
    ) -> Result<Replayed> {
        let instruments = Instruments {
            load,
            observer,
            critical_path: true,
            progress: Some(self.progress),
            counters,
        };
        self.replay
            .program(self.program, self.rank_node, instruments)
    }
}

/// Runs `sim` with a timeline writer streaming into `path` (atomically: a temporary file renamed
/// once complete); the link-load counters at its end come from `load`.
fn timeline_run(
    path: &Path,
    meta: &crate::report::timeline::TimelineMeta,
    sim: &Sim,
    mut load: Option<&mut LoadBins>,
    counters: Option<&mut Counters>,
) -> Result<Replayed> {
    let mut result: Option<Result<Replayed>> = None;
    let written = crate::output::write_atomic_with(path, |f| {
        let buffered = std::io::BufWriter::with_capacity(1 << 16, f);
        let mut writer = crate::report::timeline::TimelineWriter::new(buffered, meta)?;
        match sim.run(load.as_deref_mut(), Some(&mut writer), counters) {
            Ok(r) => {
                let end = r.outcome.completion_cycles;
                let series = load.as_deref().map(|l| l.finish(end, None));
                let done = writer.finish(end, series.as_ref(), r.critical_path.as_ref());
                result = Some(Ok(r));
                done.map(|_| ())
            }
            Err(e) => {
                result = Some(Err(e));
                Err(std::io::Error::other("the simulation failed"))
            }
        }
    });
    match result {
        Some(Err(e)) => Err(e),
        Some(Ok(r)) => written.map(|()| r),
        None => Err(written
            .err()
            .unwrap_or_else(|| Error::Invalid("timeline not written".into()))),
    }
}
