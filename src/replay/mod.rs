//! Replaying rank programs over a network: the layer between the MPI runtime and the engines.
//!
//! A [`Replay`] is the one struct of inputs every replay starts from, built and validated once: a
//! [`Network`] (the topology, the model checked against it, its routing prepared) and the seed. It
//! drives the MPI runtime ([`crate::mpi::runtime::Ranks`]) over the engine the model names (`drive`,
//! the one place that picks the flit engine or the flow model), with the instruments asked for (link
//! load, the timeline's observer, the critical path, progress), for one program or several jobs
//! sharing the machine (`jobs.rs`). It returns the network's [`Outcome`] and the MPI layer's
//! statistics side by side ([`Replayed`]), so the engine below knows nothing of MPI.

mod jobs;
mod weigh;

pub use jobs::Job;
pub use weigh::{program_bytes, program_phits};

use crate::error::{Error, Result};
use crate::mpi::critical_path::{CriticalPath, Tracker};
use crate::mpi::observe::RankObserver;
use crate::mpi::runtime::{MessageLatency, MpiStats, Ranks};
use crate::network::counters::Counters;
use crate::network::load_bins::LoadBins;
use crate::network::{Driver, Model, Network, NetworkModel, Outcome, Progress, Run};
use crate::program::Program;
use crate::topology::Topology;

/// The inputs of every replay on one machine, built and validated once.
pub struct Replay<'a> {
    network: Network<'a>,
    seed: u64,
}

/// What to record during a run of one program; every field is optional, and none changes the
/// outcome (they only watch).
#[derive(Default)]
pub struct Instruments<'a> {
    /// Link load per class in time bins (and the top links' series when cheap).
    pub load: Option<&'a mut LoadBins>,
    /// Hears every rank's intervals (the timeline writer).
    pub observer: Option<&'a mut dyn RankObserver>,
    /// Build the critical path.
    pub critical_path: bool,
    /// Publish progress here as the run goes.
    pub progress: Option<&'a Progress>,
    /// Count output-port conflicts and packets received over time (seed 001 Figs. 10-12).
    pub counters: Option<&'a mut Counters>,
}

impl std::fmt::Debug for Instruments<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instruments")
            .field("load", &self.load.is_some())
            .field("observer", &self.observer.is_some())
            .field("critical_path", &self.critical_path)
            .field("progress", &self.progress.is_some())
            .field("counters", &self.counters.is_some())
            .finish()
    }
}

/// What a replay of one program measured: the network's outcome beside the MPI layer's statistics.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// What the engine measured; `messages` and the message latencies count application data
    /// messages only (the rendezvous control messages are in `mpi.control_messages`, their packets
    /// still in `packets`), a latency running from the send's posting to its data's consumption.
    pub outcome: Outcome,
    /// What the MPI layer did (protocol messages, self-messages, the ranks' time split).
    pub mpi: MpiStats,
    /// The chain of computations and messages that set the completion time, when asked for.
    pub critical_path: Option<CriticalPath>,
}

impl<'a> Replay<'a> {
    /// Checks `model` on `topology` and prepares its routing, for runs seeded with `seed`.
    pub fn new(topology: &'a dyn Topology, model: &'a NetworkModel, seed: u64) -> Result<Self> {
        Ok(Replay {
            network: Network::new(topology, model)?,
            seed,
        })
    }

    /// The network every run replays on.
    pub fn network(&self) -> &Network<'a> {
        &self.network
    }

    /// Replays `program` with rank r on node `rank_node[r]`, from an empty network until every
    /// message is consumed and the network is empty again (seed 004 §3.3), recording what
    /// `instruments` ask for. Deterministic for the seed.
    pub fn program<'r>(
        &'r self,
        program: &'r Program,
        rank_node: &'r [u32],
        instruments: Instruments<'r>,
    ) -> Result<Replayed> {
        check_program(program, rank_node, "")?;
        let model = self.network.model();
        let tracker = instruments
            .critical_path
            .then(|| Tracker::new(program.ranks(), model));
        let ranks = Ranks::new(program).watched(instruments.observer, tracker);
        let mut run = self.run(rank_node, instruments.progress, instruments.load);
        run.counters = instruments.counters;
        let (mut outcome, ranks) = drive(&self.network, ranks, run)?;
        let mpi = ranks.stats();
        outcome.messages -= mpi.control_messages;
        take_latency(&mut outcome, &mpi.latency);
        Ok(Replayed {
            outcome,
            mpi,
            critical_path: ranks.critical_path(),
        })
    }

    /// The run of the ranks on `rank_node` with this replay's seed.
    fn run<'r>(
        &'r self,
        rank_node: &'r [u32],
        progress: Option<&'r Progress>,
        load: Option<&'r mut LoadBins>,
    ) -> Run<'r> {
        Run {
            rank_node,
            seed: self.seed,
            progress,
            load,
            counters: None,
        }
    }
}

/// Refuses a program that does not validate or a placement that does not map each of its ranks
/// (`what` prefixes the message: `job 2: `).
fn check_program(program: &Program, rank_node: &[u32], what: &str) -> Result<()> {
    program.validate()?;
    if rank_node.len() != program.ranks() as usize {
        return Err(Error::Invalid(format!(
            "{what}placement maps {} ranks but the workload has {}",
            rank_node.len(),
            program.ranks()
        )));
    }
    Ok(())
}

/// Puts the MPI layer's message latencies (application messages, from the send's posting to its
/// data's consumption) in place of the engine's, which would count a rendezvous's request-to-send and
/// clear-to-send as messages and time its data from the clear-to-send. Kept if it counted none.
fn take_latency(outcome: &mut Outcome, latency: &MessageLatency) {
    if let Some(mean) = latency.mean() {
        outcome.mean_message_latency = mean;
        outcome.max_message_latency = latency.max;
    }
}

/// Replays what `driver` issues on the engine the model names: the one place that chooses between
/// the flit engine and the flow model.
fn drive<'r, D: Driver>(network: &'r Network, driver: D, run: Run<'r>) -> Result<(Outcome, D)> {
    match network.model().model {
        Model::Flit => network.flit(driver, run),
        Model::Flow => network.flow(driver, run),
    }
}

/// Replays `program` alone, without instruments or progress: [`Replay::program`] for the common
/// case of one run on a machine (tests, tools); the outcome's `messages` count data messages.
pub fn simulate(
    topology: &dyn Topology,
    model: &NetworkModel,
    program: &Program,
    rank_node: &[u32],
    seed: u64,
) -> Result<Outcome> {
    let replay = Replay::new(topology, model, seed)?;
    Ok(replay
        .program(program, rank_node, Instruments::default())?
        .outcome)
}
