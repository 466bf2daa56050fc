//! The network engine: switches, links, credits, arbitration and the event loop.
//!
//! It replays a [`Program`] whose ranks sit on nodes (the placement) over a [`Topology`], under the
//! switch and node model of seed 004 §3.1 ([`NetworkModel`], in `model.rs`), and returns an [`Outcome`]. It knows
//! nothing of files, formats or spec strings.

pub mod driver;
mod engine;
pub mod flow;
mod instrumented;
mod jobs;
pub mod load_bins;
pub mod memory;
mod model;
mod open_loop;
mod outcome;
mod progress;
pub mod selection;
pub mod stats;
mod wheel;

pub use crate::routing::Routing;
pub use driver::{Consumed, Driver, Step};
pub use flow::Model;
pub use instrumented::{Instruments, simulate_instrumented};
pub use model::{Arbitration, CreditUnit, LoserRetry, NetworkModel, PRESETS, Preset};
pub use open_loop::OpenLoopParams;
pub use outcome::Outcome;
pub use progress::{Progress, program_phits};
pub use selection::Selection;

use crate::error::{Error, Result};
use crate::topology::Topology;
use crate::workload::Program;
use serde::Serialize;

/// The last cycle a simulation may reach (2^63, about 292 years at 1 GHz). A wake-up asked for past it
/// (a computation or job start near 2^64) is refused with the value rather than wrapping the clock;
/// below it, the engine's own additions (a packet's phits, link and routing delays) cannot overflow.
pub const MAX_CYCLE: u64 = 1 << 63;

/// Cycle `now + cycles`, or `None` when it would pass [`MAX_CYCLE`]: the bound both engines put on a
/// wake-up asked for by a driver, before they report it with the value.
pub(crate) fn cycle_after(now: u64, cycles: u64) -> Option<u64> {
    now.checked_add(cycles).filter(|&at| at <= MAX_CYCLE)
}

/// Replays `program` with rank r on node `rank_node[r]` over `topo`, from an empty network until every
/// message is consumed and the network is empty again (seed 004 §3.3). Deterministic for a given seed.
pub fn simulate(
    topo: &dyn Topology,
    model: &NetworkModel,
    program: &Program,
    rank_node: &[u32],
    seed: u64,
) -> Result<Outcome> {
    simulate_observed(topo, model, program, rank_node, seed, None)
}

/// Checks a run's inputs before anything is built: the model on this topology, the program, and a
/// placement that maps every rank.
fn check_inputs(
    topo: &dyn Topology,
    model: &NetworkModel,
    program: &Program,
    rank_node: &[u32],
) -> Result<()> {
    model.validate(topo)?;
    program.validate()?;
    if rank_node.len() != program.ranks() as usize {
        return Err(Error::Invalid(format!(
            "placement maps {} ranks but the workload has {}",
            rank_node.len(),
            program.ranks()
        )));
    }
    Ok(())
}

/// Replays what `driver` issues over the engine the model names: the flit engine (with link load
/// recorded into `load`, if given) or the flow model (which has no packets to bin: `load` is refused).
/// The one place that chooses between them.
fn replay<'a, D: Driver>(
    topo: &'a dyn Topology,
    model: &NetworkModel,
    driver: D,
    rank_node: &'a [u32],
    seed: u64,
    progress: Option<&'a Progress>,
    load: Option<&'a mut load_bins::LoadBins>,
) -> Result<(Outcome, D)> {
    let counted = progress::Counted {
        inner: driver,
        progress,
        packet_phits: u64::from(model.packet_phits),
    };
    let (outcome, counted) = replay_counted(topo, model, counted, rank_node, seed, progress, load)?;
    Ok((outcome, counted.inner))
}

/// [`replay`] of a driver that counts the phits it is delivered.
fn replay_counted<'a, D: Driver>(
    topo: &'a dyn Topology,
    model: &NetworkModel,
    driver: progress::Counted<'a, D>,
    rank_node: &'a [u32],
    seed: u64,
    progress: Option<&'a Progress>,
    load: Option<&'a mut load_bins::LoadBins>,
) -> Result<(Outcome, progress::Counted<'a, D>)> {
    if model.model == Model::Flow {
        if load.is_some() {
            return Err(Error::Invalid(
                "link load over time (--link-load) needs the flit model (`model = \"flit\"`)"
                    .into(),
            ));
        }
        return flow::simulate_driver(topo, model, driver, rank_node, seed, progress);
    }
    let paths = model.routing.build(topo)?;
    engine::Engine::new(topo, model, paths, driver, rank_node, seed)
        .observed(progress)
        .recording(load)
        .run()
}

/// [`simulate`], publishing its progress into `progress` as it runs.
pub fn simulate_observed(
    topo: &dyn Topology,
    model: &NetworkModel,
    program: &Program,
    rank_node: &[u32],
    seed: u64,
    progress: Option<&Progress>,
) -> Result<Outcome> {
    check_inputs(topo, model, program, rank_node)?;
    let ranks = crate::mpi::runtime::Ranks::new(program);
    let (mut outcome, ranks) = replay(topo, model, ranks, rank_node, seed, progress, None)?;
    outcome.attach_mpi(ranks.stats());
    Ok(outcome)
}

/// One job of a shared-machine run: its program, the node of each of its ranks, and its start cycle.
#[derive(Debug, Clone, Copy)]
pub struct Job<'p> {
    /// What its ranks do.
    pub program: &'p Program,
    /// Node of each rank (disjoint from every other job's).
    pub nodes: &'p [u32],
    /// Cycle at which its ranks start.
    pub start: u64,
}

/// Replays several jobs at once over the shared network; returns the whole run's outcome and the cycle
/// at which each job completed (its last rank finished and its last message was consumed).
pub fn simulate_jobs(
    topo: &dyn Topology,
    model: &NetworkModel,
    jobs: &[Job],
    seed: u64,
) -> Result<(Outcome, Vec<u64>)> {
    simulate_jobs_observed(topo, model, jobs, seed, None)
}

/// [`simulate_jobs`], publishing its progress into `progress` as it runs.
pub fn simulate_jobs_observed(
    topo: &dyn Topology,
    model: &NetworkModel,
    jobs: &[Job],
    seed: u64,
    progress: Option<&Progress>,
) -> Result<(Outcome, Vec<u64>)> {
    model.validate(topo)?;
    let mut used = vec![false; topo.nodes() as usize];
    let mut rank_node = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        job.program.validate()?;
        if job.nodes.len() != job.program.ranks() as usize {
            return Err(Error::Invalid(format!(
                "job {j}: placement maps {} ranks but the workload has {}",
                job.nodes.len(),
                job.program.ranks()
            )));
        }
        for &n in job.nodes {
            if n >= topo.nodes() || std::mem::replace(&mut used[n as usize], true) {
                return Err(Error::Invalid(format!(
                    "job {j}: node {n} is outside the machine or already used by another job"
                )));
            }
        }
        rank_node.extend_from_slice(job.nodes);
    }
    let drivers = jobs
        .iter()
        .map(|j| crate::mpi::runtime::Ranks::new(j.program))
        .collect();
    let starts = jobs.iter().map(|j| j.start).collect();
    let driver = jobs::Jobs::new(drivers, starts);
    let (outcome, driver) = replay(topo, model, driver, &rank_node, seed, progress, None)?;
    let completed = driver
        .completed_at
        .iter()
        .map(|c| c.unwrap_or(outcome.completion_cycles))
        .collect();
    Ok((outcome, completed))
}

/// One point of a load-latency curve: what an open-loop run at one offered load measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadPoint {
    /// Offered load asked for, phits per node per cycle.
    pub offered: f64,
    /// Load actually generated in the measurement window, phits per node per cycle.
    pub generated: f64,
    /// Accepted throughput: phits consumed per node per cycle during the measurement window.
    pub accepted: f64,
    /// Packets generated in the measurement window (the latency sample).
    pub packets_measured: u64,
    /// Mean latency of measured packets, from generation to consumption, in cycles.
    pub mean_latency: f64,
    /// Largest such latency.
    pub max_latency: u64,
    /// Mean links crossed by measured packets, node links included.
    pub mean_hops: f64,
    /// Measured packets by links crossed (index = hops).
    pub hop_histogram: Vec<u64>,
    /// The point is unstable, past saturation (Booksim's judgement, see `open_loop.rs`): its labelled
    /// packets did not drain, accepted fell 5% below generated, or latency kept growing across the
    /// sample periods; latency is then a lower bound. Reports print `unstable`.
    pub saturated: bool,
    /// Mean latency of the packets generated in each sample period of the window, in cycles.
    pub sample_latencies: Vec<f64>,
    /// Cycles simulated.
    pub cycles: u64,
    /// Link utilisation per class over the whole run.
    pub link_classes: Vec<stats::ClassLoad>,
}

/// Runs open-loop traffic whose destinations `dest` gives (see [`crate::traffic`]) at the load and
/// phases of `params`, one source per node.
pub fn simulate_open_loop(
    topo: &dyn Topology,
    model: &NetworkModel,
    dest: &crate::traffic::Destinations,
    params: &OpenLoopParams,
    seed: u64,
) -> Result<LoadPoint> {
    model.validate(topo)?;
    params.validate()?;
    if model.model == Model::Flow {
        return Err(Error::Invalid(
            "load-latency curves need the flit model (`model = \"flit\"`): open-loop packets of one \
             packet each have no flow-level meaning"
                .into(),
        ));
    }
    let nodes = topo.nodes();
    let identity: Vec<u32> = (0..nodes).collect();
    let sources = open_loop::OpenLoop::new(
        dest,
        params,
        model.packet_phits,
        model.packet_bytes(),
        nodes,
        seed,
    );
    let paths = model.routing.build(topo)?;
    let (outcome, sources) =
        engine::Engine::new(topo, model, paths, sources, &identity, seed).run()?;
    let s = &sources.stats;
    let per_node_cycle = f64::from(nodes) * params.measure_cycles as f64;
    let generated = s.generated_in_window as f64 / per_node_cycle;
    let accepted = s.consumed_in_window as f64 / per_node_cycle;
    let measured = s.measured_consumed.max(1) as f64;
    let hops: u64 = s
        .hop_histogram
        .iter()
        .enumerate()
        .map(|(h, n)| h as u64 * n)
        .sum();
    Ok(LoadPoint {
        offered: params.load,
        generated,
        accepted,
        packets_measured: s.measured_generated,
        mean_latency: s.latency_sum as f64 / measured,
        max_latency: s.latency_max,
        mean_hops: hops as f64 / measured,
        hop_histogram: s.hop_histogram.clone(),
        saturated: s.measured_consumed < s.measured_generated
            || accepted < 0.95 * generated
            || s.latency_grows(),
        sample_latencies: s.sample_latencies(),
        cycles: outcome.completion_cycles,
        link_classes: outcome.link_classes,
    })
}
