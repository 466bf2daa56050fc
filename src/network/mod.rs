//! The network engine: switches, links, credits, arbitration and the event loop.
//!
//! It moves the messages a [`Driver`] issues between nodes of a [`Topology`], under the switch and
//! node model of seed 004 §3.1 ([`NetworkModel`], in `model.rs`), and returns an [`Outcome`]. A
//! [`Network`] is the one way in: the topology, the model checked against it and its routing prepared,
//! built once; [`Network::flit`] and [`Network::flow`] run a driver on either engine. It knows nothing
//! of files, formats, spec strings or MPI (the rank programs' driver lives above, in `crate::mpi`).

pub mod counters;
pub mod driver;
mod engine;
pub mod flow;
pub mod load_bins;
pub mod memory;
mod model;
mod node_queues;
mod open_loop;
mod outcome;
mod progress;
pub mod selection;
pub mod stats;
mod wheel;

pub use crate::routing::Routing;
pub use driver::{Consumed, Driver, NO_NOTE, Step};
pub use flow::Model;
pub use model::{Arbitration, CreditUnit, HeadLatency, LoserRetry, NetworkModel, PRESETS, Preset};
pub use open_loop::OpenLoopParams;
pub use outcome::Outcome;
pub use progress::Progress;
pub use selection::Selection;

use crate::error::{Error, Result};
use crate::routing::PathChoice;
use crate::topology::Topology;
use load_bins::LoadBins;
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

/// A network ready to simulate on: a topology, a model checked against it, and the model's routing
/// algorithm prepared for it (UGAL's and LBR's all-pairs distances). Built and validated once, then
/// run as often as wanted (a shared run and each job alone, every point of a load-latency curve):
/// each run starts from a copy of the prepared routing, as if prepared anew.
pub struct Network<'a> {
    topology: &'a dyn Topology,
    model: &'a NetworkModel,
    routing: Box<dyn PathChoice>,
}

/// What one run adds to a [`Network`]: where the driver's ranks sit, the seed, and what watches.
#[derive(Default)]
pub struct Run<'a> {
    /// Node of each of the driver's ranks (rank r on `rank_node[r]`).
    pub rank_node: &'a [u32],
    /// Seed of every random choice of the run (deterministic for a seed).
    pub seed: u64,
    /// Publish progress here as the run goes, phits delivered included.
    pub progress: Option<&'a Progress>,
    /// Record link load per class in time bins (the flit engine only).
    pub load: Option<&'a mut LoadBins>,
    /// Count output-port conflicts and packets received per cycle (the flit engine only).
    pub counters: Option<&'a mut counters::Counters>,
}

impl std::fmt::Debug for Run<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("ranks", &self.rank_node.len())
            .field("seed", &self.seed)
            .field("progress", &self.progress.is_some())
            .field("load", &self.load.is_some())
            .field("counters", &self.counters.is_some())
            .finish()
    }
}

impl<'a> Network<'a> {
    /// Checks `model` on `topology` (once: the engines trust it) and prepares its routing.
    pub fn new(topology: &'a dyn Topology, model: &'a NetworkModel) -> Result<Self> {
        model.validate(topology)?;
        let routing = model.routing.build(topology)?;
        Ok(Network {
            topology,
            model,
            routing,
        })
    }

    /// The topology it simulates.
    pub fn topology(&self) -> &'a dyn Topology {
        self.topology
    }

    /// The model it simulates, checked on the topology.
    pub fn model(&self) -> &'a NetworkModel {
        self.model
    }

    /// Replays what `driver` issues on the flit engine, from an empty network until the driver is
    /// complete and the network empty again (seed 004 §3.3); returns the outcome and the driver (for
    /// its statistics).
    pub fn flit<'r, D: Driver>(&'r self, driver: D, run: Run<'r>) -> Result<(Outcome, D)> {
        let counted = self.counted(driver, run.progress);
        let (outcome, counted) = engine::Engine::new(
            self.topology,
            self.model,
            self.routing.clone(),
            counted,
            run.rank_node,
            run.seed,
        )
        .observed(run.progress)
        .recording(run.load)
        .counting(run.counters)
        .run()?;
        Ok((outcome, counted.inner))
    }

    /// Replays what `driver` issues with the flow model (`flow/`), which has no packets to bin: a
    /// link-load recorder is refused.
    pub fn flow<'r, D: Driver>(&'r self, driver: D, run: Run<'r>) -> Result<(Outcome, D)> {
        if run.load.is_some() || run.counters.is_some() {
            return Err(Error::Invalid(
                "link load over time (--link-load) and the packet counters (--received-per-cycle) \
                 need the flit model (`model = \"flit\"`)"
                    .into(),
            ));
        }
        let counted = self.counted(driver, run.progress);
        let (outcome, counted) = flow::simulate_driver(
            self.topology,
            self.model,
            counted,
            run.rank_node,
            run.seed,
            run.progress,
        )?;
        Ok((outcome, counted.inner))
    }

    /// `driver`, counting the phits it is delivered into `progress`.
    fn counted<'r, D: Driver>(
        &self,
        driver: D,
        progress: Option<&'r Progress>,
    ) -> progress::Counted<'r, D> {
        progress::Counted {
            inner: driver,
            progress,
            packet_phits: u64::from(self.model.packet_phits),
        }
    }
}

/// One point of a load-latency curve: what an open-loop run at one offered load measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadPoint {
    /// Offered load asked for, phits per sending node per cycle (a node its pattern maps to itself
    /// sends nothing and is not counted).
    pub offered: f64,
    /// Load actually generated in the measurement window, phits per sending node per cycle.
    pub generated: f64,
    /// Accepted throughput: phits consumed per sending node per cycle during the measurement window.
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
    /// Output-port conflicts per cycle in the measurement window (seed 001 Fig. 10; see
    /// `counters.rs` for what a conflict is).
    pub conflicts_per_cycle: f64,
    /// Output channels bid for by two or more heads in one round, per cycle in the measurement
    /// window (the other reading of seed 001 Fig. 10's conflicts; see `counters.rs`).
    pub contested_per_cycle: f64,
    /// Packets received per cycle in the measurement window (seed 001 Fig. 12).
    pub received_per_cycle: f64,
    /// Packets received in the window over packets generated in it (seed 001 Fig. 11).
    pub received_ratio: f64,
}

impl Network<'_> {
    /// Runs open-loop traffic whose destinations `dest` gives (see [`crate::traffic`]) at the load
    /// and phases of `params`, one source per node, on the flit engine.
    pub fn open_loop(
        &self,
        dest: &crate::traffic::Destinations,
        params: &OpenLoopParams,
        seed: u64,
    ) -> Result<LoadPoint> {
        let (topo, model) = (self.topology, self.model);
        params.validate()?;
        if model.model == Model::Flow {
            return Err(Error::Invalid(
                "load-latency curves need the flit model (`model = \"flit\"`): open-loop packets of \
                 one packet each have no flow-level meaning"
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
        let start = params.warmup_cycles;
        let mut counts = counters::Counters::new(2).windowed(start, start + params.measure_cycles);
        let (outcome, sources) =
            engine::Engine::new(topo, model, self.routing.clone(), sources, &identity, seed)
                .counting(Some(&mut counts))
                .run()?;
        let seen = counts.in_window();
        let window = params.measure_cycles as f64;
        let s = &sources.stats;
        // Per sending node: a node its pattern maps to itself generates nothing and is not counted.
        let per_node_cycle = f64::from(dest.sources().max(1)) * params.measure_cycles as f64;
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
            conflicts_per_cycle: seen.conflicts as f64 / window,
            contested_per_cycle: seen.contested as f64 / window,
            received_per_cycle: seen.received as f64 / window,
            received_ratio: seen.received as f64 / s.measured_generated.max(1) as f64,
        })
    }
}
