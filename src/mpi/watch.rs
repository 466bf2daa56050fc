//! The runtime's instruments: the timeline's observer and the critical-path tracker, with
//! the per-rank state they need. A child of `runtime.rs` so it can read the ranks' state; none of it
//! runs unless [`Ranks::watched`] was called.

use super::{Ranks, Step};
use crate::mpi::critical_path::{CriticalPath, Tracker};
use crate::mpi::observe::{Activity, RankObserver};

/// What the runtime records when observed: the timeline's observer and the critical-path tracker,
/// with the per-rank state they need.
pub(super) struct Watch<'p> {
    pub(super) observer: Option<&'p mut dyn RankObserver>,
    pub(super) tracker: Option<Tracker>,
    /// When each rank's current sleep started, and whether it copies a self-message.
    pub(super) sleep_since: Vec<u64>,
    pub(super) sleep_copy: Vec<bool>,
    /// What each blocked rank waits for.
    pub(super) blocked_on: Vec<Activity>,
    /// Next collective region of each rank, and whether it is inside it.
    pub(super) region_next: Vec<u32>,
    pub(super) region_open: Vec<bool>,
}

impl std::fmt::Debug for Watch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("observer", &self.observer.is_some())
            .field("tracker", &self.tracker.is_some())
            .finish_non_exhaustive()
    }
}

impl<'p> Ranks<'p> {
    /// Records what every rank does for `observer` (the replay timeline) and, with `tracker`, the
    /// critical path. Without either the runtime records nothing.
    pub fn watched(
        mut self,
        observer: Option<&'p mut dyn RankObserver>,
        tracker: Option<Tracker>,
    ) -> Self {
        if observer.is_none() && tracker.is_none() {
            return self;
        }
        let n = self.pc.len();
        self.watch = Some(Box::new(Watch {
            observer,
            tracker,
            sleep_since: vec![0; n],
            sleep_copy: vec![false; n],
            blocked_on: vec![Activity::Compute; n],
            region_next: vec![0; n],
            region_open: vec![false; n],
        }));
        self
    }

    /// The critical path, when a tracker was given to [`Ranks::watched`].
    pub fn critical_path(&self) -> Option<CriticalPath> {
        self.watch.as_ref()?.tracker.as_ref().map(Tracker::result)
    }

    /// Tells the observer about collective regions entered or left at `rank`'s program counter.
    pub(super) fn regions_at(&mut self, rank: u32) {
        let (Some(w), Some(regions)) = (self.watch.as_deref_mut(), self.program.regions()) else {
            return;
        };
        let Some(obs) = w.observer.as_deref_mut() else {
            return;
        };
        let (r, pc) = (rank as usize, self.pc[rank as usize]);
        let list = regions.get(r).map_or(&[][..], Vec::as_slice);
        let next = w.region_next[r] as usize;
        if w.region_open[r] && list.get(next).is_some_and(|g| pc >= g.end) {
            obs.region(rank, self.now, None);
            w.region_open[r] = false;
            w.region_next[r] += 1;
        }
        let next = w.region_next[r] as usize;
        if !w.region_open[r] && list.get(next).is_some_and(|g| pc == g.first) {
            obs.region(rank, self.now, Some(list[next].name));
            w.region_open[r] = true;
        }
    }

    /// `rank` reached the end of its program: counted, and told to the instruments.
    pub(super) fn rank_finished(&mut self, rank: u32) {
        self.finished += 1;
        if self.watch.is_some() {
            self.regions_at(rank);
            let w = self.watch.as_deref_mut().expect("checked");
            if let Some(obs) = w.observer.as_deref_mut() {
                obs.finished(rank, self.now);
            }
            if let Some(t) = w.tracker.as_mut() {
                t.finished(rank, self.now);
            }
        }
    }

    /// Tells the observer that a receive of `rank` got its data from `from` with `tag` now.
    pub(super) fn tell_received(&mut self, rank: u32, from: u32, tag: u64) {
        if let Some(obs) = self
            .watch
            .as_deref_mut()
            .and_then(|w| w.observer.as_deref_mut())
        {
            obs.received(rank, self.now, from, tag);
        }
    }

    /// The end of `rank`'s sleep (a computation or a self-message copy) at `now`.
    pub(super) fn woke(&mut self, rank: u32) {
        let Some(w) = self.watch.as_deref_mut() else {
            return;
        };
        let r = rank as usize;
        let start = w.sleep_since[r];
        if let Some(obs) = w.observer.as_deref_mut() {
            let what = if w.sleep_copy[r] {
                Activity::SelfCopy
            } else {
                Activity::Compute
            };
            obs.interval(rank, start, self.now, what);
        }
        if let Some(t) = w.tracker.as_mut() {
            t.compute(rank, start, self.now);
        }
    }

    /// Gives the messages `rank`'s program issued (`out[mark..]`) the rank's critical chain.
    pub(super) fn track_issued(&mut self, mark: usize, out: &mut [Step]) {
        let Some(t) = self.watch.as_deref_mut().and_then(|w| w.tracker.as_mut()) else {
            return;
        };
        for step in &mut out[mark..] {
            if let Step::Send { from, note, .. } = step {
                *note = t.issue_by_rank(*from);
            }
        }
    }
}
