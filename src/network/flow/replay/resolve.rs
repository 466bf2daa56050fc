//! Re-solving max-min rates after flows start or end, with work bounded per change.
//!
//! A new flow that takes nothing another flow needs is given its rate directly, and a flow that
//! ends on links with room to spare (or its own) frees nothing another flow could take
//! ([`Replay::place_alone`], [`Replay::end_frees_others`]); neither re-solves anything. Any other
//! change (a flow starting, a flow ending and freeing its links) can move the rates of every flow
//! connected to it through shared links. While that connected component holds at most
//! [`EXACT_FLOWS`] flows it is re-solved whole, which is exact max-min. Past that (a busy network
//! where most flows are connected) only the changed flows' neighbourhood is: the new flows and the
//! flows crossing their links or the freed links. They are solved against what the flows outside
//! already take of the links they share (those keep their rates), so no link is overloaded, and the
//! outside flows on the links of any flow whose rate moved by more than [`PROPAGATE`] are re-solved
//! the next cycle against the rest (a `Relax` event), so the change spreads through the component
//! one link per cycle and stops where it has become small. The work per change is bounded by the
//! path length times the flows per link, not by the network or the component.

use super::{Event, FlowMark, Message, Replay, cycles_to_send};
use crate::error::Error;
use crate::network::MAX_CYCLE;
use crate::network::driver::Driver;
use crate::network::flow::links::Links;

/// Largest connected component (in flows) re-solved whole.
const EXACT_FLOWS: usize = 256;
/// A link whose flows' rates sum to within this fraction of its capacity counts as saturated, and
/// a flow may be placed by [`Replay::place_alone`] only at a rate above it (float sums of rates are
/// off by far less).
const SATURATED: f64 = 1e-9;
/// A relative rate change above this makes the flows sharing the changed flow's links re-solve (in
/// the approximate mode). A smaller change stays local: its neighbours keep their rates, which can
/// leave some of a link unused but never overload one. At 10% rather than 1% the 8:4,4-thin-tree's
/// 3M 1 KB runs 13% fewer instructions and ends 0.1% later; of 81 reference flow runs (64- to
/// 65,536-node networks, all seven patterns, NPB traces) no other report moves by more than that.
const PROPAGATE: f64 = 1e-1;

impl<D: Driver> Replay<'_, D> {
    /// Recomputes the rates of the flows a change this cycle touches (see the module doc), advancing
    /// their remaining phits to now first, and reschedules the flows whose rate changed.
    pub(super) fn resolve(&mut self) {
        if self.unchanged() {
            return;
        }
        self.place_alone();
        if !self.unchanged() {
            self.resolve_components();
        }
        #[cfg(debug_assertions)]
        self.check_placed();
    }

    /// True if no change of this cycle is left to re-solve: no new flow, freed link or pending flow.
    fn unchanged(&self) -> bool {
        self.seeds.is_empty() && self.freed_links.is_empty() && self.pending.is_empty()
    }

    /// Re-solves the components of this cycle's remaining changes (see [`Replay::resolve`]).
    fn resolve_components(&mut self) {
        let exact = self.gather();
        #[cfg(debug_assertions)]
        {
            self.approximated |= !exact;
        }
        for &m in &self.pending {
            self.msgs[m as usize].pending = false;
        }
        self.seeds.clear();
        self.pending.clear();
        self.freed_links.clear();
        self.solve_component(exact);
        for i in 0..self.component.len() {
            let m = self.component[i];
            let rate = self.rates[i];
            let old = self.msgs[m as usize].rate;
            if rate != old {
                self.set_rate(m, rate);
                if !exact && (rate - old).abs() > PROPAGATE * rate.max(old) {
                    self.wake_neighbours(m);
                }
            }
        }
        self.woken_links.clear();
        if !self.pending.is_empty() && self.relax_at == u64::MAX {
            self.relax_at = self.now + 1;
            self.schedule(self.now + 1, Event::Relax);
        }
    }

    /// Solves the flows `gather` put in `component` into `rates` (`exact`: they are closed under
    /// link sharing; otherwise against what the flows outside take).
    fn solve_component(&mut self, exact: bool) {
        for (i, &m) in self.component.iter().enumerate() {
            self.marks[m as usize].slot = i as u32;
        }
        let (links, msgs, marks, component, epoch) = (
            &self.links,
            &self.msgs,
            &self.marks,
            &self.component,
            self.epoch,
        );
        let mine = |f: u32| marks[f as usize].stamp == epoch;
        let rate = |i: usize| msgs[component[i] as usize].rate;
        let link_rate = |l: u32| self.link_rate[l as usize];
        self.solver.solve(
            component.len(),
            |i| links.path(marks[component[i] as usize].block),
            |l, out| {
                out.extend(
                    links
                        .flows(l)
                        .filter(|&f| mine(f))
                        .map(|f| marks[f as usize].slot as usize),
                )
            },
            (!exact).then_some((
                &rate as &dyn Fn(usize) -> f64,
                &link_rate as &dyn Fn(u32) -> f64,
            )),
            &mut self.rates,
        );
    }

    /// Debug builds: every flow [`Replay::place_alone`] placed this cycle, and every flow of its
    /// component, has the rate a whole re-solve of that component gives now (checked while the run
    /// has never needed its approximate re-solves, which leave rates that are not exactly fair).
    #[cfg(debug_assertions)]
    fn check_placed(&mut self) {
        if self.approximated || !self.pending.is_empty() {
            self.placed.clear();
            self.quiet_ends.clear();
            return;
        }
        let placed = std::mem::take(&mut self.placed);
        for &m in &placed {
            if self.msgs[m as usize].active {
                self.seeds.push(m);
                self.assert_component_fair(|| format!("flow {m} was placed alone"));
            }
        }
        let quiet_ends = std::mem::take(&mut self.quiet_ends);
        for &l in &quiet_ends {
            self.freed_links.insert(l);
            self.assert_component_fair(|| format!("a flow on link {l} ended quietly"));
        }
        (self.placed, self.quiet_ends) = (placed, quiet_ends);
        self.placed.clear();
        self.quiet_ends.clear();
    }

    /// Debug builds: the component of the flow in `seeds` or the link in `freed_links` (both
    /// emptied) has the rates a whole re-solve gives now; `what` says what made it worth checking.
    #[cfg(debug_assertions)]
    fn assert_component_fair(&mut self, what: impl Fn() -> String) {
        let whole = self.gather();
        self.seeds.clear();
        self.freed_links.clear();
        if !whole {
            return;
        }
        self.solve_component(true);
        for (i, &f) in self.component.iter().enumerate() {
            let (want, have) = (self.rates[i], self.msgs[f as usize].rate);
            assert!(
                (want - have).abs() <= 1e-9 * want.max(have),
                "flow {f} has rate {have}, but a re-solve of its component after {} at cycle {} \
                 gives {want}",
                what(),
                self.now
            );
        }
    }

    /// Gives every new flow that takes nothing another flow needs its max-min rate at once, and
    /// leaves the others in `seeds` to be re-solved with their components.
    ///
    /// A new flow's fair rate is at most x, the least capacity left on its links. If x is positive
    /// and no flow on a link the new flow fills (capacity left x) has a rate above x (or waits for
    /// bandwidth at the approximate mode's next `Relax`), the rates already set plus the new flow
    /// at x are the max-min fair rates of all the flows: nothing crosses a saturated link it did
    /// not cross before, so every old flow keeps its bottleneck, and the new flow's bottleneck is a
    /// link it fills where no flow has a higher rate. Max-min fair rates are unique, so re-solving
    /// the component would give the same rates (up to float rounding). New flows of one cycle are
    /// placed one after another, each against the ones before.
    fn place_alone(&mut self) {
        let mut kept = 0;
        for i in 0..self.seeds.len() {
            let m = self.seeds[i];
            match self.alone_rate(m) {
                Some(rate) => {
                    self.set_rate(m, rate);
                    #[cfg(debug_assertions)]
                    self.placed.push(m);
                }
                None => {
                    self.seeds[kept] = m;
                    kept += 1;
                }
            }
        }
        self.seeds.truncate(kept);
    }

    /// New flow `m`'s max-min rate if it takes nothing another flow needs (see
    /// [`Replay::place_alone`]). In the approximate mode a flow may wait for its `Relax` at rate 0: a
    /// link it shares is not filled without a re-solve either, so the waiting flow is not shut out.
    fn alone_rate(&self, m: u32) -> Option<f64> {
        let path = self.links.path(self.marks[m as usize].block);
        let left = |l: u32| self.solver.capacity(l) - self.link_rate[l as usize];
        let rate = path.iter().map(|&l| left(l)).fold(f64::INFINITY, f64::min);
        if !(rate > SATURATED && rate.is_finite()) {
            return None;
        }
        // A flow waiting for bandwidth at the next `Relax` on a link this one would fill must
        // share it, so that needs a re-solve too.
        let fills = rate * (1.0 + SATURATED);
        let competes = |f: u32| {
            let msg = &self.msgs[f as usize];
            msg.rate > rate || msg.pending
        };
        for &l in path {
            if left(l) <= fills && self.links.flows(l).any(competes) {
                return None;
            }
        }
        Some(rate)
    }

    /// True if flow `m`, about to end, crosses a saturated link another flow shares: only then can
    /// its end raise other flows' rates. A flow on links with capacity to spare (or on its own) is
    /// nobody's bottleneck's competitor, so its end leaves every other rate as it is.
    pub(super) fn end_frees_others(&self, m: u32) -> bool {
        let counts = self.links.counts();
        self.links
            .path(self.marks[m as usize].block)
            .iter()
            .any(|&l| {
                counts[l as usize] > 1
                    && self.link_rate[l as usize] >= self.solver.capacity(l) * (1.0 - SATURATED)
            })
    }

    /// Fills `component` with the flows to re-solve, stamped with a new epoch: the connected
    /// component of this cycle's changes (true), or, if it has more than [`EXACT_FLOWS`] flows, the
    /// local set (false): the new flows and the flows on their links, the flows on freed links and
    /// the pending flows (whose neighbours moved: they take what is left around them).
    ///
    /// Both are gathered in one walk: the local set is the walk's first part (its start and the
    /// new flows' links), so when the walk outgrows the bound it is cut back to what it held then
    /// (or finishes that part), instead of being walked again.
    fn gather(&mut self) -> bool {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.iter_mut().for_each(|m| m.stamp = 0);
            self.link_stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        self.component.clear();
        let mut visit = Visit {
            epoch: self.epoch,
            link_stamp: &mut self.link_stamp,
            links: &self.links,
            msgs: &self.msgs,
            marks: &mut self.marks,
            component: &mut self.component,
        };
        for &m in &self.seeds {
            visit.start(m);
        }
        let changed = visit.component.len();
        for &m in &self.pending {
            visit.start(m);
        }
        for &l in self.freed_links.links() {
            visit.link(l);
        }
        // The local set's size, known once the new flows' links have all been visited.
        let mut local = None;
        let mut i = 0;
        while i < visit.component.len() {
            if i == changed {
                local = Some(visit.component.len());
            }
            if visit.component.len() > EXACT_FLOWS {
                break;
            }
            visit.expand(i);
            i += 1;
        }
        if i == visit.component.len() {
            return true;
        }
        while i < changed {
            visit.expand(i);
            i += 1;
        }
        let local = local.unwrap_or(visit.component.len());
        for &f in &visit.component[local..] {
            // Epochs start at 1, so stamp 0 is outside every gather.
            visit.marks[f as usize].stamp = 0;
        }
        visit.component.truncate(local);
        false
    }

    /// Flow `m` gets `rate`: its remaining phits are advanced to now and its end rescheduled (a flow
    /// left without bandwidth waits for the next re-solve).
    fn set_rate(&mut self, m: u32, rate: f64) {
        let now = self.now;
        let msg = &mut self.msgs[m as usize];
        msg.remaining -= msg.rate * (now - msg.updated_at) as f64;
        msg.updated_at = now;
        let delta = rate - std::mem::replace(&mut msg.rate, rate);
        for &l in self.links.path(self.marks[m as usize].block) {
            self.link_rate[l as usize] += delta;
        }
        let msg = &mut self.msgs[m as usize];
        let (remaining, generation) = (msg.remaining, msg.generation);
        if rate <= 0.0 {
            msg.finish_at = u64::MAX;
            if !std::mem::replace(&mut msg.pending, true) {
                self.pending.push(m);
            }
            return;
        }
        let cycles = cycles_to_send(remaining, rate);
        let at = cycles.and_then(|c| {
            self.later(c, || {
                format!("a flow of {remaining:.0} phits at rate {rate:e}")
            })
        });
        let Some(at) = at else {
            if cycles.is_none() && self.error.is_none() {
                self.error = Some(Error::Invalid(format!(
                    "a flow of {remaining:.0} phits at rate {rate:e} phits/cycle would end past \
                     {MAX_CYCLE} cycles"
                )));
            }
            return;
        };
        let msg = &mut self.msgs[m as usize];
        msg.finish_at = at;
        if at < msg.queued_at {
            msg.queued_at = at;
            self.schedule(at, Event::Finish(m, generation));
        }
    }

    /// Queues for the next `Relax` the flows outside this re-solve that share a link with flow `m`
    /// (a link another moved flow of this re-solve crossed has queued them already).
    fn wake_neighbours(&mut self, m: u32) {
        let epoch = self.epoch;
        let block = self.marks[m as usize].block;
        for &l in self.links.path(block) {
            if !self.woken_links.insert(l) {
                continue;
            }
            for f in self.links.flows(l) {
                let stamp = self.marks[f as usize].stamp;
                let msg = &mut self.msgs[f as usize];
                if stamp != epoch && !msg.pending {
                    msg.pending = true;
                    self.pending.push(f);
                }
            }
        }
    }
}

/// The walk that gathers flows through shared links in one epoch of `Replay::resolve`: every link
/// and every flow is taken once.
struct Visit<'a> {
    epoch: u32,
    link_stamp: &'a mut [u32],
    links: &'a Links,
    msgs: &'a [Message],
    marks: &'a mut [FlowMark],
    component: &'a mut Vec<u32>,
}

impl Visit<'_> {
    /// Starts from flow `m` (new or pending) if it is still sending.
    fn start(&mut self, m: u32) {
        if self.msgs[m as usize].active {
            self.flow(m);
        }
    }

    /// Adds flow `f`, which is sending (a link lists only flows that are), if not yet taken.
    #[inline]
    fn flow(&mut self, f: u32) {
        let mark = &mut self.marks[f as usize];
        if mark.stamp != self.epoch {
            mark.stamp = self.epoch;
            self.component.push(f);
        }
    }

    /// Adds the flows on the links of the `i`-th flow taken.
    #[inline]
    fn expand(&mut self, i: usize) {
        let block = self.marks[self.component[i] as usize].block;
        for &l in self.links.path(block) {
            self.link(l);
        }
    }

    /// Adds the flows on link `l` not yet taken (nothing if `l` was seen this epoch).
    #[inline]
    fn link(&mut self, l: u32) {
        if self.link_stamp[l as usize] == self.epoch {
            return;
        }
        self.link_stamp[l as usize] = self.epoch;
        for f in self.links.flows(l) {
            self.flow(f);
        }
    }
}
