//! Attaching recorders to an engine: a link-load recorder ([`crate::network::load_bins`]) learns every
//! link's class and name before the run, then the engine feeds it packet starts; the counters
//! ([`crate::network::counters`]) hear lost bids and deliveries.

use super::*;

impl<'a, D: Driver> Engine<'a, D> {
    /// Records link load over time into `load` during the run (nothing when `None`).
    pub(in crate::network) fn recording(
        mut self,
        load: Option<&'a mut crate::network::load_bins::LoadBins>,
    ) -> Self {
        if let Some(load) = load {
            load.attach((0..self.xbar_base).map(|c| self.describe_link(c)));
            self.load = Some(load);
        }
        self
    }

    /// Counts output-port conflicts and packets received into `counters` (nothing when `None`).
    pub(in crate::network) fn counting(
        mut self,
        counters: Option<&'a mut crate::network::counters::Counters>,
    ) -> Self {
        self.counters = counters;
        self
    }
}
