//! A simulation with instruments attached: link load over time, a rank observer (the replay
//! timeline) and the critical path. Kept apart from [`super::simulate`], whose runs carry none of
//! them and pay nothing for them.

use super::load_bins::LoadBins;
use super::{NetworkModel, Outcome, Progress};
use crate::error::Result;
use crate::mpi::critical_path::{CriticalPath, Tracker};
use crate::mpi::observe::RankObserver;
use crate::topology::Topology;
use crate::workload::Program;

/// What to record during a run; every field is optional.
#[derive(Default)]
pub struct Instruments<'a> {
    /// Link load per class in time bins (and the top links' series when cheap).
    pub load: Option<&'a mut LoadBins>,
    /// Hears every rank's intervals (the timeline writer).
    pub observer: Option<&'a mut dyn RankObserver>,
    /// Build the critical path.
    pub critical_path: bool,
    /// Publish progress here.
    pub progress: Option<&'a Progress>,
}

impl std::fmt::Debug for Instruments<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instruments")
            .field("load", &self.load.is_some())
            .field("observer", &self.observer.is_some())
            .field("critical_path", &self.critical_path)
            .finish()
    }
}

/// [`super::simulate`] with `instruments`; returns the outcome and, if asked for, the critical path.
/// The outcome is the same as without instruments (they only watch).
pub fn simulate_instrumented<'a>(
    topo: &'a dyn Topology,
    model: &NetworkModel,
    program: &'a Program,
    rank_node: &'a [u32],
    seed: u64,
    instruments: Instruments<'a>,
) -> Result<(Outcome, Option<CriticalPath>)> {
    super::check_inputs(topo, model, program, rank_node)?;
    let tracker = instruments
        .critical_path
        .then(|| Tracker::new(program.ranks(), model));
    let ranks = crate::mpi::runtime::Ranks::new(program).watched(instruments.observer, tracker);
    let (mut outcome, ranks) = super::replay(
        topo,
        model,
        ranks,
        rank_node,
        seed,
        instruments.progress,
        instruments.load,
    )?;
    outcome.attach_mpi(ranks.stats());
    Ok((outcome, ranks.critical_path()))
}
