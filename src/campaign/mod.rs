//! Campaigns (seed 004 §4-5): every workload at every size on every candidate network, run in parallel,
//! each finished run appended to a results file so that a killed campaign resumes where it stopped, then
//! the relative times, the performance index and performance/cost of §5 ([`index`]).
//!
//! A results directory holds `campaign.json` (the config and its hash) and `results.jsonl` (one JSON line
//! per finished run, each written with a single append and fsync). A run is identified by (network
//! label, workload, size); resuming skips the runs already in the file, and a torn last line (a kill
//! mid-write) is cut off before appending. A config that grew from the directory's (runs added, none
//! redefined) resumes it too. `--shard I/N` takes runs I-1, I-1+N, ... of the fixed run
//! order; `netreplay report` merges directories only if their config hashes agree. A running campaign
//! holds an exclusive lock on its directory ([`lock`]), so a second one on it is refused.
//! Reading and writing the directory is `results_dir.rs`'s.

pub mod analysis;
pub mod checks;
pub mod index;
pub mod lock;
mod record;
mod results_dir;
pub mod slurm;
pub mod status;

use crate::cost::PriceTable;
use crate::error::{Error, Result};
use crate::network::NetworkModel;
use crate::run::{self, RunConfig};
use crate::spec::Spec;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

pub use index::Weights;
pub use record::{RunDetails, RunRecord};
use results_dir::{RESULTS, describe_run, open_results};
pub use results_dir::{init_dir, load_dir, merge};

/// A candidate network of a campaign.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Candidate {
    /// Name in the tables, e.g. `8:4,4-thin-tree`.
    pub label: String,
    /// Topology spec.
    pub topology: String,
    /// Placement spec (default `consecutive`).
    #[serde(default)]
    pub placement: Option<String>,
    /// Network model of this candidate's runs (`flit` or `flow`), overriding `[network] model`: the
    /// same topology as two candidates, one per model, compares the models (`configs/flow-vs-flit.toml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<crate::network::Model>,
}

impl Candidate {
    /// The network model of this candidate's runs: the campaign's, with this candidate's `model`.
    pub fn network(&self, campaign: &NetworkModel) -> NetworkModel {
        let mut network = campaign.clone();
        if let Some(model) = self.model {
            network.model = model;
        }
        network
    }
}

/// A campaign config (`configs/seed004-*.toml`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CampaignConfig {
    /// Title of the report.
    #[serde(default)]
    pub name: Option<String>,
    /// Label of the network every time is divided by.
    pub reference: String,
    /// Seed of every run (default 1).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Ranks of every generated workload (default: the topology's node count).
    #[serde(default)]
    pub ranks: Option<u32>,
    /// Message sizes in bytes, appended as `size=S` to every generated workload.
    #[serde(default)]
    pub sizes: Vec<u64>,
    /// Workload specs without size (`bu`, `wf`) or traces (`trace:file=PATH`, run once).
    pub workloads: Vec<String>,
    /// Candidate networks.
    #[serde(rename = "candidate")]
    pub candidates: Vec<Candidate>,
    /// Weights per pattern and size (default all 1).
    #[serde(default)]
    pub weights: Weights,
    /// Cost model spec (default `seed004`); ignored when `cost_table` is given.
    #[serde(default)]
    pub cost: Option<String>,
    /// A user price table, used instead of `cost`.
    #[serde(default)]
    pub cost_table: Option<PriceTable>,
    /// Network model of every run.
    #[serde(default)]
    pub network: NetworkModel,
}

/// One simulation of a campaign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// Position in the fixed run order.
    pub index: usize,
    /// Candidate label.
    pub label: String,
    /// Workload as written in the config.
    pub workload: String,
    /// Message size (`None` for traces).
    pub size: Option<u64>,
}

impl Planned {
    /// The run's identity in `results.jsonl`: (label, workload, size).
    pub fn key(&self) -> (String, String, Option<u64>) {
        (self.label.clone(), self.workload.clone(), self.size)
    }
}

fn is_trace(workload: &str) -> bool {
    workload.trim_start().starts_with("trace")
}

impl CampaignConfig {
    /// Reads and validates a campaign config; errors in the file carry file:line:column.
    pub fn load(path: &Path) -> Result<CampaignConfig> {
        let cfg: CampaignConfig = run::load_toml(path)?;
        cfg.network
            .check_values()
            .map_err(|e| run::locate(path, e))?;
        cfg.check_networks().map_err(|e| run::locate(path, e))?;
        cfg.validate_in(Some(path)).map_err(|e| match e {
            // Already placed in this file (a spec's parameter); another file's error is prefixed.
            Error::File { path: ref at, .. } if Path::new(at) == path => e,
            e => Error::Invalid(format!("{}: {e}", path.display())),
        })?;
        Ok(cfg)
    }

    /// Checks labels, the reference, every spec and the weights before anything runs.
    pub fn validate(&self) -> Result<()> {
        self.validate_in(None)
    }

    /// [`CampaignConfig::validate`], with the errors of the specs read from the file at `path`
    /// placed at their `file:line:column` ([`run::locate_spec`]).
    fn validate_in(&self, path: Option<&Path>) -> Result<()> {
        if self.candidates.is_empty() || self.workloads.is_empty() {
            return Err(Error::Invalid(
                "a campaign needs at least one [[candidate]] and one workload".into(),
            ));
        }
        checks::check_names(self)?;
        for (i, c) in self.candidates.iter().enumerate() {
            if self.candidates[..i].iter().any(|d| d.label == c.label) {
                return Err(Error::Invalid(format!(
                    "candidate label `{}` is used twice",
                    c.label
                )));
            }
            let topo = crate::topology::build(&c.topology)
                .map_err(|e| run::locate_spec(path, ("topology", "topology"), &c.topology, e))?;
            let placement = c.placement.as_deref().unwrap_or("consecutive");
            crate::placement::build(placement)
                .map_err(|e| run::locate_spec(path, ("placement", "placement"), placement, e))?;
            c.network(&self.network).validate(topo.as_ref())?;
        }
        if !self.candidates.iter().any(|c| c.label == self.reference) {
            return Err(Error::Invalid(format!(
                "reference `{}` is not a candidate label (labels: {})",
                self.reference,
                self.candidates
                    .iter()
                    .map(|c| c.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        checks::check_unique(self)?;
        if self.sizes.is_empty() && self.workloads.iter().any(|w| !is_trace(w)) {
            return Err(Error::Invalid(
                "`sizes` is empty but generated workloads need a message size".into(),
            ));
        }
        self.weights.validate(&self.cells())?;
        if let Some(table) = &self.cost_table {
            table.validate()?;
        }
        let model = self.cost_model().map_err(|e| match &self.cost {
            Some(cost) => run::locate_spec(path, ("cost model", "cost"), cost, e),
            None => e,
        })?;
        // Every candidate must run every workload and be priced, or the campaign would fail after
        // running everything (or after writing its directory).
        checks::check_ranks(self, path)?;
        checks::check_costs(self, model.as_ref())
    }

    /// The topology-dependent `[network]` checks of every candidate (bubble flow control's queue
    /// and virtual-channel rules), as [`Error::BadValue`] naming the key.
    pub fn check_networks(&self) -> Result<()> {
        for c in &self.candidates {
            // A topology that does not build is reported by `validate`, with its candidate.
            if let Ok(topo) = crate::topology::build(&c.topology) {
                c.network(&self.network).validate(topo.as_ref())?;
            }
        }
        Ok(())
    }

    fn sizes_of(&self, workload: &str) -> Vec<Option<u64>> {
        if is_trace(workload) {
            vec![None]
        } else {
            self.sizes.iter().map(|&s| Some(s)).collect()
        }
    }

    /// Every (workload, size) cell in table order.
    pub fn cells(&self) -> Vec<(String, Option<u64>)> {
        self.workloads
            .iter()
            .flat_map(|w| self.sizes_of(w).into_iter().map(move |s| (w.clone(), s)))
            .collect()
    }

    /// The workload spec of one cell: `size` and `ranks` appended to a generator spec.
    pub fn workload_spec(&self, workload: &str, size: Option<u64>) -> Result<String> {
        let mut spec = Spec::parse("workload", workload)?;
        if let Some(s) = size {
            spec.params.push(("size".into(), s.to_string()));
            if let Some(r) = self.ranks {
                spec.params.push(("ranks".into(), r.to_string()));
            }
        }
        Ok(spec.to_string())
    }

    /// The largest `ranks=` the workload specs give themselves, if any: the ranks whose placement
    /// decides the used resources (U) when the config sets no `ranks`.
    pub fn workload_ranks(&self) -> Option<u32> {
        self.workloads
            .iter()
            .filter_map(|w| Spec::parse("workload", w).ok())
            .filter_map(|s| {
                s.params
                    .iter()
                    .find(|(k, _)| k == "ranks")
                    .and_then(|(_, v)| v.parse::<u32>().ok())
            })
            .max()
    }

    /// The cost model the config names.
    pub fn cost_model(&self) -> Result<Box<dyn crate::cost::CostModel>> {
        match &self.cost_table {
            Some(t) => Ok(Box::new(t.clone())),
            None => crate::cost::build(self.cost.as_deref().unwrap_or(crate::cost::DEFAULT)),
        }
    }

    /// Every run in the fixed order: candidates x workloads x sizes.
    pub fn plan(&self) -> Vec<Planned> {
        let mut runs = Vec::new();
        for c in &self.candidates {
            for (w, s) in self.cells() {
                runs.push(Planned {
                    index: runs.len(),
                    label: c.label.clone(),
                    workload: w,
                    size: s,
                });
            }
        }
        runs
    }

    /// A stable hash of the config (FNV-1a 64 of its canonical JSON), stored with every result.
    pub fn hash(&self) -> String {
        let text = serde_json::to_string(self).expect("configs serialise");
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }

    pub(super) fn run_config(&self, run: &Planned) -> Result<RunConfig> {
        let c = self
            .candidates
            .iter()
            .find(|c| c.label == run.label)
            .ok_or_else(|| Error::Invalid(format!("no candidate `{}`", run.label)))?;
        Ok(RunConfig {
            topology: Some(c.topology.clone()),
            workload: Some(self.workload_spec(&run.workload, run.size)?),
            placement: c.placement.clone(),
            seed: Some(self.seed.unwrap_or(1)),
            network: c.network(&self.network),
            ..RunConfig::default()
        })
    }
}

/// A slice `index`/`count` of a campaign (1-based index, as `--shard 2/4` writes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which slice, 1..=count.
    pub index: u32,
    /// How many slices.
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}` is not I/N with 1 <= I <= N (e.g. 2/4)");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<u32>().map_err(|_| bad())?,
            n.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// What `campaign` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    /// Runs of this shard.
    pub shard_runs: usize,
    /// Of those, already in the results file before this invocation.
    pub resumed: usize,
    /// Run now.
    pub ran: usize,
}

/// Whether planned run `run` belongs to `shard` (all runs without one): runs I-1, I-1+N, ...
pub fn in_shard(run: &Planned, shard: Option<Shard>) -> bool {
    shard.is_none_or(|s| run.index % s.count as usize == s.index as usize - 1)
}

/// The runs of `cfg` in `shard`, and of those the ones `records` do not hold yet: what a campaign
/// still has to run, and what `--status` reports missing.
pub fn shard_runs(
    cfg: &CampaignConfig,
    records: &[RunRecord],
    shard: Option<Shard>,
) -> (Vec<Planned>, Vec<Planned>) {
    let done: std::collections::BTreeSet<_> = records.iter().map(RunRecord::key).collect();
    let mine: Vec<Planned> = cfg
        .plan()
        .into_iter()
        .filter(|r| in_shard(r, shard))
        .collect();
    let missing = mine
        .iter()
        .filter(|r| !done.contains(&r.key()))
        .cloned()
        .collect();
    (mine, missing)
}

/// Orders runs to start the largest message sizes first (trace runs, whose size is their own, after
/// them), config order within a size. A run's time grows about tenfold per tenfold size, so this is
/// longest-first scheduling in effect: the last runs to start are short, and no long run is left
/// alone on one thread while the others idle at the end of a campaign.
fn largest_first(runs: &mut [Planned]) {
    runs.sort_by_key(|r| (std::cmp::Reverse(r.size), r.index));
}

/// A run's weight in a campaign's progress: its message size plus 1 KB (a run's time grows about in
/// proportion to its size, and even a 10-byte run builds its network and program); a trace run
/// weighs as the campaign's largest size.
fn run_weight(run: &Planned, largest: u64) -> u64 {
    run.size.unwrap_or(largest).saturating_add(1000)
}

/// Threads for `requested` simulations at once: at least 1 and at most the machine's available
/// parallelism (each run is single-threaded; more threads only share the cores and add memory).
pub fn threads(requested: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    requested.clamp(1, cores)
}

/// Refuses a campaign whose `parallel` runs at once would not fit in the machine's memory: each run
/// checks its own engine, but `parallel` of the largest candidate's engines are alive together.
fn check_parallel_memory(cfg: &CampaignConfig, parallel: usize) -> Result<()> {
    let mut largest = (0u64, String::new());
    for c in &cfg.candidates {
        let topo = crate::topology::build(&c.topology)?;
        let network = c.network(&cfg.network);
        network.routing.check(topo.as_ref())?;
        let non_minimal = network.routing.non_minimal();
        let bytes = crate::network::memory::engine_bytes(topo.as_ref(), &network, non_minimal);
        if bytes > largest.0 {
            largest = (bytes, c.label.clone());
        }
    }
    let total = largest.0.saturating_mul(parallel as u64);
    crate::network::memory::check(
        total,
        None,
        &format!(
            "running {parallel} simulations at once (the largest, `{}`, needs about {} alone; \
             lower --jobs)",
            largest.1,
            crate::network::memory::human(largest.0)
        ),
    )
}

/// How a campaign runs `rc`: as `run` with no flags, plus seed 001's counters for a flit-model run
/// (the flow model has no packets to count), in `run`'s default time bins, so that a row's
/// `peak_received_per_cycle` is `run --received-per-cycle`'s. The counters only observe: the run's
/// results are the same with or without them.
fn run_options(rc: &RunConfig) -> run::RunOptions {
    run::RunOptions {
        counters: rc.network.model.is_flit(),
        ..run::RunOptions::default()
    }
}

/// Runs (the rest of) a campaign into `dir` on `jobs` threads (capped by [`threads`]), with its
/// progress on stderr as `show` says (the run count up front, then the share of the work done with
/// runs weighed by [`run_weight`], rate, ETA and runs finished).
pub fn run_campaign(
    cfg: &CampaignConfig,
    dir: &Path,
    jobs: usize,
    shard: Option<Shard>,
    show: crate::report::progress::Show,
) -> Result<Progress> {
    use crate::report::progress::{Rate, Show, count, observe};
    std::fs::create_dir_all(dir).map_err(Error::io(dir.display()))?;
    // Held until every run of this invocation is appended.
    let _lock = lock::DirLock::acquire(dir)?;
    init_dir(cfg, dir)?;
    let hash = cfg.hash();
    let (mine, mut todo) = shard_runs(cfg, &load_dir(dir)?.1, shard);
    largest_first(&mut todo);
    let resumed = mine.len() - todo.len();
    let file = Mutex::new(open_results(dir)?);
    let results_path: PathBuf = dir.join(RESULTS);
    check_parallel_memory(cfg, threads(jobs).min(todo.len().max(1)))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads(jobs))
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start {jobs} threads: {e}")))?;
    if show != Show::Off {
        eprintln!(
            "campaign: {} to run on {} ({} of {} already done)",
            count(todo.len() as u64, "runs"),
            count(threads(jobs).min(todo.len().max(1)) as u64, "threads"),
            resumed,
            count(mine.len() as u64, "runs")
        );
    }
    // Progress counts runs weighted by their share of the work, so that the ETA holds while the
    // long runs go first.
    let largest = todo.iter().filter_map(|r| r.size).max().unwrap_or(0);
    let total_weight: u64 = todo.iter().map(|r| run_weight(r, largest)).sum();
    let (finished, finished_weight) = (AtomicU64::new(0), AtomicU64::new(0));
    let last = Mutex::new(String::new());
    let read = || {
        let done = finished.load(Ordering::Relaxed);
        let weight = finished_weight.load(Ordering::Relaxed);
        let share = weight as f64 / total_weight.max(1) as f64;
        let last = last.lock().unwrap_or_else(|p| p.into_inner());
        (
            (share * todo.len() as f64).floor() as u64,
            format!("{done} finished, last: {last}"),
        )
    };
    let work = (todo.len() as u64, "runs", Rate::SinceStart);
    // A failing run (a trace that deadlocks) does not stop the others: each is recorded, and the
    // failures are reported together once every run has had its turn. A failed write to the results
    // file stops the campaign: another line appended after a torn one would corrupt the file.
    let failed = Mutex::new(Vec::new());
    let unwritable: Mutex<Option<Error>> = Mutex::new(None);
    observe(show, work, read, || {
        pool.install(|| {
            // One shared queue in that order: each thread takes the next run when it finishes one.
            todo.iter().par_bridge().for_each(|run| {
                if unwritable
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .is_some()
                {
                    return;
                }
                let result = cfg
                    .run_config(run)
                    .and_then(|rc| run::execute_with(&rc, &run_options(&rc)));
                match result {
                    Ok(r) => {
                        let rec = RunRecord::new(&hash, run, &r);
                        let line = serde_json::to_string(&rec).expect("records serialise") + "\n";
                        let mut f = file.lock().unwrap_or_else(|p| p.into_inner());
                        if let Err(e) = f.write_all(line.as_bytes()).and_then(|()| f.sync_data()) {
                            let mut stop = unwritable.lock().unwrap_or_else(|p| p.into_inner());
                            stop.get_or_insert(Error::io(results_path.display())(e));
                            return;
                        }
                    }
                    Err(e) => {
                        let what = describe_run(&run.label, &run.workload, run.size);
                        let mut failed = failed.lock().unwrap_or_else(|p| p.into_inner());
                        failed.push(format!("run {what} failed: {e}"));
                    }
                }
                *last.lock().unwrap_or_else(|p| p.into_inner()) =
                    format!("{} {}", run.label, run.workload);
                finished_weight.fetch_add(run_weight(run, largest), Ordering::Relaxed);
                finished.fetch_add(1, Ordering::Relaxed);
            });
            Ok(())
        })
    })?;
    if let Some(e) = unwritable.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let failed = failed.into_inner().unwrap_or_else(|p| p.into_inner());
    if !failed.is_empty() {
        return Err(Error::Invalid(format!(
            "{} of {} runs failed; the others are in {} (`netreplay report {}` reports them, and a \
             rerun with the same --out runs only the failed ones, which fail again unless the \
             config or its inputs change):\n  {}",
            failed.len(),
            todo.len(),
            results_path.display(),
            dir.display(),
            failed.join("\n  ")
        )));
    }
    Ok(Progress {
        shard_runs: mine.len(),
        resumed,
        ran: todo.len(),
    })
}

#[cfg(test)]
mod tests;
