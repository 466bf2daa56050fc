//! A simulation with instruments attached (issue 16): link load over time, a rank observer (the replay
//! timeline) and the critical path. Kept apart from [`super::simulate`], whose runs carry none of
//! them and pay nothing for them.

use super::load_bins::LoadBins;
use super::{NetworkModel, Outcome, Progress, engine};
use crate::error::{Error, Result};
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
    if model.model == super::Model::Flow {
        // The rank-level instruments watch the driver, which the flow model drives too; link load
        // in time bins is counted per packet, which flows do not have.
        if instruments.load.is_some() {
            return Err(Error::Invalid(
                "link load over time (--link-load) needs the flit model (`model = \"flit\"`)"
                    .into(),
            ));
        }
        let (mut outcome, ranks) =
            super::flow::simulate_driver(topo, model, ranks, rank_node, instruments.progress)?;
        outcome.attach_mpi(ranks.stats());
        return Ok((outcome, ranks.critical_path()));
    }
    let paths = model.routing.build(topo)?;
    let (mut outcome, ranks) = engine::Engine::new(topo, model, paths, ranks, rank_node, seed)
        .observed(instruments.progress)
        .recording(instruments.load)
        .run()?;
    outcome.attach_mpi(ranks.stats());
    Ok((outcome, ranks.critical_path()))
}
