//! The network engine: switches, links, credits, arbitration and the event loop.
//!
//! It replays a [`Program`] whose ranks sit on nodes (the placement) over a [`Topology`], under the
//! switch and node model of seed 004 §3.1 ([`NetworkModel`]), and returns an [`Outcome`]. It knows
//! nothing of files, formats or spec strings.

pub mod driver;
mod engine;
pub mod flow;
mod instrumented;
mod jobs;
pub mod load_bins;
pub mod memory;
mod open_loop;
mod outcome;
pub mod selection;
pub mod stats;
mod wheel;

pub use crate::routing::Routing;
pub use driver::{Consumed, Driver, Step};
pub use flow::Model;
pub use instrumented::{Instruments, simulate_instrumented};
pub use open_loop::OpenLoopParams;
pub use outcome::Outcome;
pub use selection::Selection;

use crate::error::{Error, Result};
use crate::topology::Topology;
use crate::workload::Program;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// The last cycle a simulation may reach (2^63, about 292 years at 1 GHz). A wake-up asked for past it
/// (a computation or job start near 2^64) is refused with the value rather than wrapping the clock;
/// below it, the engine's own additions (a packet's phits, link and routing delays) cannot overflow.
pub const MAX_CYCLE: u64 = 1 << 63;

/// Cycle `now + cycles`, or `None` when it would pass [`MAX_CYCLE`]: the bound both engines put on a
/// wake-up asked for by a driver, before they report it with the value.
pub(crate) fn cycle_after(now: u64, cycles: u64) -> Option<u64> {
    now.checked_add(cycles).filter(|&at| at <= MAX_CYCLE)
}

/// The parameters of the network model; defaults are seed 004 §3.1's (the contract's "Default network
/// model"). Every field is a config value (`[network]` in a run config); `preset = "NAME"` there starts
/// from one of [`PRESETS`] instead of the defaults, and the keys given beside it override its values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "NetworkConfig")]
pub struct NetworkModel {
    /// Phits per packet (16). Messages are split into packets of this size, the last one padded.
    pub packet_phits: u32,
    /// Bytes per phit (4: "one phit is ... fixed to 32 bits").
    pub phit_bytes: u32,
    /// Transit queue at each switch input port (per virtual channel), in packets (4).
    pub input_queue_packets: u32,
    /// Injection queue of each node, in packets (8). A node drains it in FIFO order over its one link,
    /// so it bounds how many packets are staged, not when they leave; packets are staged lazily.
    pub injection_queue_packets: u32,
    /// Output queue at each switch output port, in packets; 0 (default) means none, as in seed 004.
    /// With output queues (seed 000 uses 2) crossing the switch into the output queue takes one cycle and
    /// the link another, both at one phit per cycle.
    pub output_queue_packets: u32,
    /// Cycles a packet head spends being routed at each switch before it can request an output (0; seed
    /// 000 uses 20).
    pub routing_delay: u32,
    /// Cycles a head at the front of a switch input queue waits, counted from the cycle the packet before
    /// it in that queue has left, before it can request an output (0). It models a router pipeline whose
    /// allocation stages start only at the front of a queue (Booksim's VC and switch allocation); a head
    /// is ready at max(arrival + `routing_delay`, front + `allocation_delay`), so on an idle queue only
    /// the larger of the two counts.
    pub allocation_delay: u32,
    /// Cycles from a packet's tail leaving a buffer to the upstream channel seeing its room again (0: the
    /// credits are back at the very cycle the tail leaves). Booksim's credits cross a credit channel of
    /// the link's latency plus its `credit_delay`.
    pub credit_delay: u32,
    /// Extra cycles a phit spends on each link beyond the one cycle to cross it (0; seed 000 uses 8).
    pub fly_time: u32,
    /// Routing algorithm on top of the topology's own routing, a spec string of
    /// [`crate::routing::REGISTRY`]: `minimal` (default), `valiant`, `ugal`, `lbr:period=T,valiant=M`.
    pub routing: Routing,
    /// Which offered output a head asks for ([`selection::POLICIES`]): `fsin` (default: the least
    /// occupied downstream queue, busy or not, as FSIN, whose results seed 004 reports), `fixed`
    /// (Booksim: chosen once when routed) or `free` (free outputs only).
    pub selection: Selection,
    /// How a channel chooses among the buffers bidding for it in one cycle.
    pub arbitration: Arbitration,
    /// When a buffer that lost an arbitration asks again.
    pub loser_retry: LoserRetry,
    /// Parallel virtual channels per virtual channel the topology's routing uses (1). Each is a
    /// separate input queue of `input_queue_packets`; a head may take any of them (FSIN's `nchan`, whose
    /// trees choose the (port, VC) pair with [`selection`]). The physical link still carries one packet
    /// at a time (FSIN interleaves VCs phit by phit; the throughput is the same). Not with bubble flow
    /// control, whose rings must not be entered sideways.
    pub virtual_channels: u32,
    /// Which engine replays the traffic: `flit` (default, the packet engine above) or `flow` (max-min
    /// fair flows, [`flow`]). Left out of serialised configs when `flit`, so the hashes of campaign
    /// configs written before the key existed do not change.
    #[serde(default, skip_serializing_if = "Model::is_flit")]
    pub model: Model,
}

/// How a channel chooses among the buffers that bid for it in the same cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// Each bidder with equal probability (seed 004 §3.1; FSIN `amode=random`).
    #[default]
    Random,
    /// The next bidder after the last one granted, in buffer order (FSIN's default `amode`).
    RoundRobin,
}

/// When a buffer that lost an arbitration, or whose chosen output is busy, asks again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LoserRetry {
    /// Next cycle, as in FSIN and Booksim (each cycle's requests are made once).
    #[default]
    NextCycle,
    /// In the same cycle, among the outputs still free (netreplay before issue 14).
    SameCycle,
}

impl Default for NetworkModel {
    fn default() -> Self {
        NetworkModel {
            packet_phits: 16,
            phit_bytes: 4,
            input_queue_packets: 4,
            injection_queue_packets: 8,
            output_queue_packets: 0,
            routing_delay: 0,
            allocation_delay: 0,
            credit_delay: 0,
            fly_time: 0,
            routing: Routing::minimal(),
            selection: Selection::fsin(),
            arbitration: Arbitration::Random,
            loser_retry: LoserRetry::NextCycle,
            virtual_channels: 1,
            model: Model::Flit,
        }
    }
}

/// A named starting point for `[network]`: the model another simulator uses, so that its figures can be
/// reproduced (`preset = "booksim-iq"`).
pub struct Preset {
    /// Its name in configs.
    pub name: &'static str,
    /// What it reproduces.
    pub help: &'static str,
    /// The model it stands for.
    pub model: fn() -> NetworkModel,
}

/// Every preset, in the order the CLI's registry help and errors show them.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "seed004",
        help: "seed 004 §3.1's switch (the defaults)",
        model: NetworkModel::default,
    },
    Preset {
        name: "fsin-paper",
        help: "FSIN as seed 004 §3.1 describes it: 1 VC, random arbitration (same as seed004)",
        model: NetworkModel::default,
    },
    Preset {
        name: "fsin-default",
        help: "FSIN's own defaults: 2 VCs, round-robin arbitration, 4-packet injection queue",
        model: NetworkModel::fsin_default,
    },
    Preset {
        name: "booksim-iq",
        help: "Booksim2's input-queued router, 3-stage non-speculative, 64-flit VC buffers",
        model: NetworkModel::booksim_iq,
    },
];

/// `[network]` as written: the preset to start from and the keys that override it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct NetworkConfig {
    preset: Option<String>,
    packet_phits: Option<u32>,
    phit_bytes: Option<u32>,
    input_queue_packets: Option<u32>,
    injection_queue_packets: Option<u32>,
    output_queue_packets: Option<u32>,
    routing_delay: Option<u32>,
    allocation_delay: Option<u32>,
    credit_delay: Option<u32>,
    fly_time: Option<u32>,
    routing: Option<Routing>,
    selection: Option<Selection>,
    arbitration: Option<Arbitration>,
    loser_retry: Option<LoserRetry>,
    virtual_channels: Option<u32>,
    model: Option<Model>,
}

impl TryFrom<NetworkConfig> for NetworkModel {
    type Error = Error;

    fn try_from(c: NetworkConfig) -> Result<NetworkModel> {
        let mut m = match &c.preset {
            None => NetworkModel::default(),
            Some(name) => NetworkModel::preset(name)?,
        };
        let set = |field: &mut u32, value: Option<u32>| {
            if let Some(v) = value {
                *field = v;
            }
        };
        set(&mut m.packet_phits, c.packet_phits);
        set(&mut m.phit_bytes, c.phit_bytes);
        set(&mut m.input_queue_packets, c.input_queue_packets);
        set(&mut m.injection_queue_packets, c.injection_queue_packets);
        set(&mut m.output_queue_packets, c.output_queue_packets);
        set(&mut m.routing_delay, c.routing_delay);
        set(&mut m.allocation_delay, c.allocation_delay);
        set(&mut m.credit_delay, c.credit_delay);
        set(&mut m.fly_time, c.fly_time);
        set(&mut m.virtual_channels, c.virtual_channels);
        if let Some(r) = c.routing {
            m.routing = r;
        }
        if let Some(v) = c.selection {
            m.selection = v;
        }
        if let Some(v) = c.arbitration {
            m.arbitration = v;
        }
        if let Some(v) = c.loser_retry {
            m.loser_retry = v;
        }
        if let Some(model) = c.model {
            m.model = model;
        }
        Ok(m)
    }
}

impl NetworkModel {
    /// The model of preset `name` (see [`PRESETS`]).
    pub fn preset(name: &str) -> Result<NetworkModel> {
        PRESETS
            .iter()
            .find(|p| p.name == name)
            .map(|p| (p.model)())
            .ok_or_else(|| {
                let known: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
                Error::Invalid(format!(
                    "unknown network preset `{name}`; presets: {}",
                    known.join(", ")
                ))
            })
    }

    /// Booksim2's input-queued router as the issue-14 reference runs configure it, in this engine's
    /// terms. A head crosses a Booksim router in routing (0), VC allocation (1), switch allocation (1)
    /// and crossbar (1) cycles, so `routing_delay` is 3 (zero-load latency agrees within 1.3%). Its VC
    /// state machine routes and allocates a packet only once the head is at the front of its VC, after
    /// the previous tail has won the switch; the next head's VC allocation overlaps that tail's crossbar
    /// cycle, so one cycle (its switch allocation) falls after the tail has left: `allocation_delay` 1
    /// (2 would overshoot Booksim's latency at load 0.3 by 5%, see the README). Credits cross a credit
    /// channel of the link's latency (1 cycle) plus the router's `credit_delay` (0): `credit_delay` 1.
    /// Buffers: 64 flits per VC, i.e. 4 packets of 16 phits. Booksim's topologies decide the VCs (torus:
    /// dateline, 2; mesh: 1), as ours do.
    /// The output is fixed when the head is routed (`selection = "fixed"`), as Booksim's routing
    /// functions and VC allocator do.
    pub fn booksim_iq() -> NetworkModel {
        NetworkModel {
            packet_phits: 16,
            input_queue_packets: 4,
            routing_delay: 3,
            allocation_delay: 1,
            credit_delay: 1,
            selection: Selection::fixed(),
            ..NetworkModel::default()
        }
    }

    /// FSIN (INSEE @2140aec) run with its own defaults rather than seed 004 §3.1's text: `nchan = 2`
    /// virtual channels, round-robin arbitration (`amode`), a 4-packet injection queue. Issue 14's FSIN
    /// runs give BU thin/fat ratios at 4,096 nodes that fit Table 5a only with these, so the published
    /// tables were most likely made with them (see the README).
    pub fn fsin_default() -> NetworkModel {
        NetworkModel {
            virtual_channels: 2,
            arbitration: Arbitration::RoundRobin,
            injection_queue_packets: 4,
            ..NetworkModel::default()
        }
    }

    /// Bytes of payload a packet carries.
    pub fn packet_bytes(&self) -> u64 {
        u64::from(self.packet_phits) * u64::from(self.phit_bytes)
    }

    /// Packets a message of `bytes` needs: ceil(bytes / packet bytes), at least one (seed 004 §3.1: "the
    /// last packet contains unused phits"; an empty message still sends one packet).
    pub fn packets_for(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.packet_bytes()).max(1)
    }

    /// Rejects parameters the model cannot run with (virtual cut-through needs room for a whole packet;
    /// bubble flow control for two).
    pub fn validate(&self, topo: &dyn Topology) -> Result<()> {
        self.check_values()?;
        let check = |ok: bool, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(Error::Invalid(format!("network model: {what}")))
            }
        };
        if topo.bubble_flow_control() {
            let ring_queue = if self.output_queue_packets > 0 {
                self.output_queue_packets
            } else {
                self.input_queue_packets
            };
            check(
                ring_queue >= 2,
                &format!(
                    "`{}` uses bubble flow control, which needs queues of at least 2 packets",
                    topo.spec()
                ),
            )?;
            check(
                self.virtual_channels == 1,
                &format!(
                    "`{}` uses bubble flow control, whose rings cannot take `virtual_channels` > 1",
                    topo.spec()
                ),
            )?;
        }
        Ok(())
    }

    /// The checks that need no topology, as [`Error::BadValue`] naming the key, so a config loader
    /// can point at the key's `file:line:column` ([`crate::run::locate`]).
    pub fn check_values(&self) -> Result<()> {
        let check = |ok: bool, key: &str, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(Error::BadValue {
                    kind: "network model",
                    name: "[network]".into(),
                    key: key.into(),
                    problem: what.into(),
                })
            }
        };
        check(
            (1..=4096).contains(&self.packet_phits),
            "packet_phits",
            "must be 1..=4096",
        )?;
        check(
            (1..=1 << 16).contains(&self.phit_bytes),
            "phit_bytes",
            "must be 1..=65536",
        )?;
        check(
            (1..=1024).contains(&self.input_queue_packets),
            "input_queue_packets",
            "must be 1..=1024 (virtual cut-through buffers whole packets)",
        )?;
        check(
            (1..=1 << 20).contains(&self.injection_queue_packets),
            "injection_queue_packets",
            "must be 1..=1048576",
        )?;
        check(
            self.output_queue_packets <= 1024,
            "output_queue_packets",
            "must be 0..=1024",
        )?;
        check(
            self.routing_delay <= 1 << 16,
            "routing_delay",
            "must be at most 65536 cycles",
        )?;
        check(
            (1..=16).contains(&self.virtual_channels),
            "virtual_channels",
            "must be 1..=16",
        )?;
        check(
            self.model == Model::Flit || self.routing == Routing::minimal(),
            "model",
            &format!(
                "must be `flit` with routing `{}`: the flow model replays the topology's own \
                 routing function only (routing = \"minimal\"), as the other algorithms choose \
                 paths per packet from queue occupancy",
                self.routing
            ),
        )?;
        for (key, value) in [
            ("allocation_delay", self.allocation_delay),
            ("credit_delay", self.credit_delay),
            ("fly_time", self.fly_time),
        ] {
            check(value <= 1 << 16, key, "must be at most 65536 cycles")?;
        }
        Ok(())
    }
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
    if model.model == Model::Flow {
        if load.is_some() {
            return Err(Error::Invalid(
                "link load over time (--link-load) needs the flit model (`model = \"flit\"`)"
                    .into(),
            ));
        }
        return flow::simulate_driver(topo, model, driver, rank_node, progress);
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

/// What a running simulation publishes (every 1024 event cycles) for an observer thread, such as a
/// progress bar: the current cycle and the messages delivered so far.
#[derive(Debug, Default)]
pub struct Progress {
    cycle: AtomicU64,
    delivered: AtomicU64,
}

impl Progress {
    fn publish(&self, cycle: u64, delivered: u64) {
        self.cycle.store(cycle, Ordering::Relaxed);
        self.delivered.store(delivered, Ordering::Relaxed);
    }

    /// The last published (cycle, messages delivered).
    pub fn read(&self) -> (u64, u64) {
        (
            self.cycle.load(Ordering::Relaxed),
            self.delivered.load(Ordering::Relaxed),
        )
    }
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
