//! Planned retries: a head whose policy answered "ask again" ([`crate::network::selection::Choice::Retry`])
//! is not asked every cycle. The policy plans the cycle at which asking would first succeed from the
//! downstream queues' linear [`Trend`]s; the head *watches* its candidate channels and is looked at
//! again only at that cycle or when something the plan read changes.
//!
//! **What wakes a watcher.** Every change to a channel or to a buffer it feeds is announced on the
//! channel ([`Engine::notify`]) as a [`Change`]: its tail leaving it, a packet starting on it, credits
//! returning to a buffer it feeds, such a buffer starting to send. Each registration says which
//! changes wake its head, from what the plan read (`Watch`):
//! - a candidate that was least occupied at some cycle of a plan that could grant: every change;
//! - a least occupied candidate of a plan that cannot grant (no usable candidate was ever least
//!   occupied): only what would make it usable, its link freeing if it is busy, else credits or its
//!   link being taken (its occupancy rising or falling cannot make another candidate win);
//! - when no candidate is usable at all: only a candidate becoming usable (link freed, credits);
//! - any other candidate: only its queue starting to drain, and only if that queue can fall below the
//!   plan's least occupancy (a candidate above the minimum that rises or changes state cannot change
//!   what is drawn). A queue's occupancy at the end of a leaving packet is already in its trend.
//!
//! **When it looks again.** A change announced while events are applied is looked at in this cycle's
//! allocation, as polling would; a change made by this cycle's allocation (a packet starting) is
//! looked at next cycle, since this cycle's choice was already made (or planned); so are the losers
//! of this cycle's arbitrations, once its grants are made ([`Engine::plan_loser`]). Registrations are
//! invalidated in O(1) by a per-buffer generation; stale entries are dropped when their channel
//! announces a change, and lists are compacted as they grow, so nothing accumulates.
//!
//! **Same distribution.** Asking every cycle makes independent draws whose chances change only with
//! the state; a plan is a sample of the first successful draw given the state. Discarding it at a
//! change and drawing afresh is exact because the draws are memoryless and the change does not
//! depend on them.

use super::*;
use crate::network::selection::Trend;

/// No planned cycle.
pub(super) const NO_PLAN: u64 = u64::MAX;
/// The planned cycle is a fresh look, not a planned grant.
pub(super) const NO_PICK: u32 = u32::MAX;
/// No look is due at the planned cycle: the plan was dropped (its `Select` event may still wait).
pub(super) const DROPPED: u32 = u32::MAX - 1;
/// Generation bits of a watcher entry's tag; the bits above say which changes wake it.
const GENERATION: u32 = (1 << 27) - 1;

/// What changed on a channel, as the bit of a watcher entry's tag that it wakes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    /// The channel's tail left: it is free again.
    Freed,
    /// A packet started on the channel (busy, its queue grows, fewer credits), or a queue it feeds
    /// lost the room of a packet that left it.
    Taken,
    /// Credits came back to a queue the channel feeds.
    Credit,
    /// Buffer `0`, fed by the channel, started sending a packet: its occupancy may fall. Wakes a
    /// [`DRAIN`] entry always, any other if the queue can drain to its plan's least level.
    Drain(u32),
}

const FREED: u32 = 1 << 31;
const TAKEN: u32 = 1 << 30;
const CREDIT: u32 = 1 << 29;
const DRAIN: u32 = 1 << 28;
const EVERY: u32 = FREED | TAKEN | CREDIT | DRAIN;

impl Change {
    fn bit(self) -> u32 {
        match self {
            Change::Freed => FREED,
            Change::Taken => TAKEN,
            Change::Credit => CREDIT,
            Change::Drain(_) => DRAIN,
        }
    }
}

impl<D: Driver> Engine<'_, D> {
    /// Plans buffer `b`'s next look after its policy answered "retry" at this cycle (its candidates,
    /// their states and trends are in `self.candidates`, `self.states` and `self.trends`), and
    /// watches the candidates (a head waiting for room stops waiting: the watch covers that too).
    pub(super) fn plan_retry(&mut self, b: u32) {
        if self.bufs[b as usize].waiting {
            self.leave_waiters(b);
        }
        let plan = match self.planned {
            Some((fill, plan)) if fill == self.fills => {
                debug_assert!(
                    self.plan_again_agrees(plan),
                    "buffer {b}: a reused plan differs"
                );
                plan
            }
            _ => {
                let before = self.rng.clone();
                let plan =
                    self.selection
                        .plan(&self.states, &self.trends, &mut self.rng, &mut self.watch);
                self.planned = (self.rng == before).then_some((self.fills, plan));
                plan
            }
        };
        if plan == Plan::Poll {
            self.look_next_cycle(b);
            return;
        }
        let escapes = self.states.iter().any(|s| s.escape);
        self.watch_candidates(b, plan, escapes);
    }

    /// Whether planning afresh (on copies of the random stream and the watch) gives `plan` and the
    /// watch it left, drawing nothing: what reusing it assumes.
    fn plan_again_agrees(&self, plan: Plan) -> bool {
        let (mut rng, mut watch) = (self.rng.clone(), self.watch.clone());
        let again = self
            .selection
            .plan(&self.states, &self.trends, &mut rng, &mut watch);
        let w = &self.watch;
        again == plan
            && rng == self.rng
            && (&watch.argmin, watch.level, watch.certain, watch.blocked)
                == (&w.argmin, w.level, w.certain, w.blocked)
    }

    /// Registers buffer `b` on its candidates' channels for the changes `self.watch` says its plan
    /// depends on, and schedules the plan's look (`escapes`: some candidate is an escape channel).
    fn watch_candidates(&mut self, b: u32, plan: Plan, escapes: bool) {
        let generation = self.bufs[b as usize].watch_gen;
        let mut last = u32::MAX;
        for i in 0..self.candidates.len() {
            let channel = self.candidates[i].channel;
            let wakes = self.wakes(i, escapes);
            if channel == last {
                // A copy of the previous candidate's channel: widen that registration.
                if let Some(entry) = self.chan_watchers.last_mut(channel) {
                    entry.1 |= wakes;
                }
                continue;
            }
            last = channel;
            let len = self.chan_watchers.list(channel).len();
            if len >= 8 && len.is_power_of_two() {
                let bufs = &self.bufs;
                self.chan_watchers.retain(channel, |&(w, tag)| {
                    bufs[w as usize].watch_gen == tag & GENERATION
                });
            }
            self.chan_watchers.push(channel, (b, generation | wakes));
        }
        let buf = &mut self.bufs[b as usize];
        // Drains wake a watcher whose queue can reach below this (never when nothing is usable).
        buf.watch_level = if self.watch.blocked && !escapes {
            0
        } else {
            self.watch.level + 1
        };
        match plan {
            Plan::At(dt, pick) => self.select_at(b, self.now.saturating_add(dt), pick as u32),
            Plan::Poll | Plan::Never => buf.select_pick = DROPPED,
        }
    }

    /// Plans buffer `b`'s next look at cycle `at` (`pick`: the candidate then granted, or
    /// [`NO_PICK`]). A `Select` event is pushed unless one for `at` already waits in the wheel's
    /// buckets from an earlier plan: that one comes out first at `at` and the look is made there
    /// either way, so pushing another would only add an event that finds the look made.
    fn select_at(&mut self, b: u32, at: u64, pick: u32) {
        let buf = &mut self.bufs[b as usize];
        let waiting = buf.select_at == at && at > self.now && !buf.select_far;
        buf.select_at = at;
        buf.select_pick = pick;
        if !waiting {
            // An event past the wheel's reach waits in its heap and comes out after the buckets'.
            buf.select_far = !self.wheel.near(at);
            self.wheel.schedule(at, Event::Select(b));
        }
    }

    /// The changes to candidate `i` that must wake its head, given the plan just made (see the module
    /// notes). A certain wait reads, of a least occupied candidate, only what would make it usable
    /// (its link freeing if busy, else credits or its link being taken); nothing else can make a
    /// usable candidate least occupied except another queue draining.
    fn wakes(&self, i: usize, escapes: bool) -> u32 {
        if escapes || (self.watch.argmin[i] && !self.watch.certain) {
            EVERY
        } else if self.watch.blocked {
            FREED | CREDIT
        } else if self.watch.argmin[i] {
            if self.states[i].busy {
                FREED
            } else {
                TAKEN | CREDIT
            }
        } else {
            0
        }
    }

    /// Plans arbitration loser `b` from the next cycle on, once this cycle's grants are made: the
    /// state it reads now is what polling would read next cycle, but for events then, which wake the
    /// watch as any change does. Saves polling's look next cycle, which would mostly find its
    /// choice taken by the winner and retry. A loser with one candidate (a link down a tree, an
    /// ejection link) is blocked for sure, so it is watched as every plan would have it watched,
    /// without reading its queues or asking the policy (a third of the losers of an alltoall).
    pub(super) fn plan_loser(&mut self, b: u32) {
        self.outcome.decisions += 1;
        self.fill_candidates(b);
        if let [only] = self.candidates[..]
            && !only.escape
            && self.chan_busy_until[only.channel as usize] > self.now
        {
            // Its one output went to the winner, so no candidate is usable, and any policy's plan is
            // to wait for it to become usable (a grant needs a usable candidate, and only its link
            // freeing or credits make it so): that watch is registered without reading the queues.
            if self.bufs[b as usize].waiting {
                self.leave_waiters(b);
            }
            self.watch.reset(1, true);
            self.planned = None;
            self.watch_candidates(b, Plan::Never, false);
            return;
        }
        self.fill_states();
        self.plan_retry(b);
    }

    /// Drops buffer `b`'s plan and watch registrations (it is looked at again, or starts sending).
    #[inline]
    pub(super) fn unwatch(&mut self, b: u32) {
        let buf = &mut self.bufs[b as usize];
        buf.watch_gen = (buf.watch_gen + 1) & GENERATION;
        buf.select_pick = DROPPED;
    }

    /// Announces a change on `channel` to the heads watching it (see the module notes).
    pub(super) fn notify(&mut self, channel: u32, change: Change) {
        if !self.chan_watchers.any(channel) {
            return;
        }
        let mut list = self.chan_watchers.take(channel);
        let drain_level = match change {
            Change::Drain(d) => Some(self.trend(d).lowest()),
            _ => None,
        };
        let bit = change.bit();
        list.retain(|&(b, tag)| {
            let buf = &self.bufs[b as usize];
            if buf.watch_gen != tag & GENERATION {
                return false;
            }
            let wake = tag & bit != 0 || drain_level.is_some_and(|l| l < buf.watch_level);
            if wake {
                self.wake_watcher(b);
            }
            !wake
        });
        self.chan_watchers.put_back(channel, list);
    }

    /// Looks at watcher `b` again: in this cycle's allocation while events are applied, next cycle
    /// when the change came from this cycle's allocation.
    fn wake_watcher(&mut self, b: u32) {
        self.unwatch(b);
        if self.allocating {
            self.look_next_cycle(b);
        } else {
            self.mark_dirty(b);
        }
    }

    /// Looks at buffer `b` afresh next cycle.
    fn look_next_cycle(&mut self, b: u32) {
        self.select_at(b, self.now + 1, NO_PICK);
    }

    /// Whether buffer `b` plans a look at this cycle, and the candidate it then grants
    /// ([`NO_PICK`] for a fresh look).
    #[inline]
    pub(super) fn due_now(&self, b: u32) -> Option<u32> {
        let buf = &self.bufs[b as usize];
        (buf.select_at == self.now && buf.select_pick != DROPPED).then_some(buf.select_pick)
    }

    /// A `Select` event for `b` fired: it is current only if `b` still plans this cycle.
    #[inline]
    pub(super) fn select_due(&mut self, b: u32) {
        if self.due_now(b).is_some() {
            self.mark_dirty(b);
        }
    }

    /// How buffer `d`'s occupancy moves from now while no event intervenes (0 at a node). Packets
    /// enter a buffer one after another on its one feeding channel and leave one after another, one
    /// phit per cycle, so only the last to arrive and the one leaving can be partial: its packets
    /// times P, less the phits of the last still to arrive and those of the leaving one that left.
    #[inline]
    pub(super) fn trend(&self, d: u32) -> Trend {
        if d == SINK {
            return Trend::default();
        }
        let buf = &self.bufs[d as usize];
        let packets = u32::from(buf.fifo_len) + u32::from(buf.sending);
        let now = self.now as i64;
        Trend {
            whole: packets * self.packet_phits,
            arrive: buf.in_at as i64 - now,
            leave: buf.sending.then(|| buf.out_at as i64 - now),
            packet: self.packet_phits,
        }
    }
}
