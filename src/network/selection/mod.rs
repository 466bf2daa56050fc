//! Output selection: which of the outputs a routing function offers a packet head asks for, and what it
//! does while it cannot have it (seed 004 §3.1 leaves this to the simulator, FSIN).
//!
//! The simulators netreplay is checked against differ exactly here, and the difference shows in
//! completion times (BU on a 3-level fat-tree differs by 19% between FSIN's rule and the free-only rule):
//! - `fsin.rs` (the default): FSIN's `min_queue_occupation` (`src/request_ports.c` of INSEE @2140aec).
//!   The head asks for the candidate whose downstream queue holds the fewest phits, busy link or not,
//!   and asks again every cycle until it is granted. The engine does not poll it: the policy plans
//!   ([`OutputSelection::plan`]) the cycle at which asking would first succeed, from the queues'
//!   [`Trend`]s, and the engine re-plans only when something the plan read changes. `fsin-poll` asks
//!   every cycle, as FSIN does: the reference the planned rule is tested against.
//! - `fixed.rs`: Booksim's tree routings (`nca`, `anca`) and VC allocator: the output is chosen once,
//!   when the head is routed, and the packet waits for it.
//! - `free.rs`: netreplay's first rule: only outputs that are free now and whose next buffer
//!   has room are considered; the head never waits on a busy link while another is usable.
//!
//! One file per policy, one line in [`POLICIES`]; the engine sees only [`OutputSelection`] and the
//! [`CandidateState`]s it fills.

mod fixed;
mod free;
mod fsin;

use crate::error::{Error, Result};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What the engine tells a policy about one candidate output of a packet head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CandidateState {
    /// The link (or crossbar path) is sending another packet now.
    pub busy: bool,
    /// Credits (free phits) of the buffer it feeds; `u32::MAX` at a node.
    pub credit: u32,
    /// Credits the packet needs there (one packet, two under bubble flow control).
    pub need: u32,
    /// Phits physically in the buffer it feeds at this cycle (FSIN's `queue_len`): a packet streaming
    /// through counts only the phits that have arrived and not yet left. 0 at a node.
    pub occupancy: u32,
    /// An escape channel: used only when no other candidate's buffer has room.
    pub escape: bool,
}

impl CandidateState {
    /// Its next buffer can take the packet now.
    pub fn room(&self) -> bool {
        self.credit >= self.need
    }
    /// Free and with room: it could be granted this cycle.
    pub fn usable(&self) -> bool {
        !self.busy && self.room()
    }
}

/// How the phits in a candidate's downstream queue move while no engine event intervenes: the last
/// packet to arrive streams in one phit per cycle from its first phit, and the packet leaving streams
/// out one phit per cycle (virtual cut-through moves packets as rigid trains, seed 004 §3.1). All
/// cycles are relative to now. [`CandidateState::occupancy`] is `at(0)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Trend {
    /// Phits of the packets the queue holds, the last to arrive and the one leaving counted whole.
    pub whole: u32,
    /// Cycle at which the last packet's first phit arrives (negative: it is arriving).
    pub arrive: i64,
    /// Cycle at which the leaving packet's first phit left, if a packet is leaving.
    pub leave: Option<i64>,
    /// Phits per packet.
    pub packet: u32,
}

impl Trend {
    /// Phits physically in the queue `dt` cycles from now.
    #[inline]
    pub fn at(&self, dt: u64) -> u32 {
        if self.whole == 0 {
            return 0;
        }
        let (p, t) = (i64::from(self.packet), dt as i64);
        let arrived = (t - self.arrive).clamp(0, p);
        let left = self.leave.map_or(0, |l| (t - l).clamp(0, p));
        (i64::from(self.whole) - (p - arrived) - left).max(0) as u32
    }

    /// The first cycle after `dt` at which the occupancy's slope changes (`u64::MAX` if none): a
    /// packet starting or ending to arrive or to leave. FSIN's plan computes it fused with the
    /// occupancy (`fsin.rs`, `Line::at`); a test holds the two equal.
    #[inline]
    pub fn next_kink(&self, dt: u64) -> u64 {
        if self.whole == 0 {
            return u64::MAX;
        }
        let (p, t) = (i64::from(self.packet), dt as i64);
        let after = |k: i64| if k > t { k } else { i64::MAX };
        let mut next = after(self.arrive).min(after(self.arrive + p));
        if let Some(l) = self.leave {
            next = next.min(after(l)).min(after(l + p));
        }
        if next == i64::MAX {
            u64::MAX
        } else {
            next as u64
        }
    }

    /// The lowest occupancy from now on while no event intervenes (it is piecewise linear, so the
    /// lowest is now or at a kink).
    pub fn lowest(&self) -> u32 {
        let p = i64::from(self.packet);
        [0, self.arrive, self.arrive + p]
            .into_iter()
            .chain(self.leave.into_iter().flat_map(|l| [l, l + p]))
            .filter(|&k| k >= 0)
            .map(|k| self.at(k as u64))
            .min()
            .unwrap_or(0)
    }

    /// Cycles from now after which the occupancy stays constant (until the next event).
    #[inline]
    pub fn settles_after(&self) -> u64 {
        if self.whole == 0 {
            return 0;
        }
        let p = i64::from(self.packet);
        let end = (self.arrive + p).max(self.leave.map_or(0, |l| l + p));
        end.max(0) as u64
    }
}

/// When a retrying head next asks ([`OutputSelection::plan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Next cycle, afresh: it may be granted then, so there is nothing to plan.
    Poll,
    /// Granted candidate `1` at `0` cycles from now (at least 2), unless something changes first.
    At(u64, usize),
    /// Never, unless something changes.
    Never,
}

/// What a plan depended on, for the engine to know which changes must wake the head
/// ([`OutputSelection::plan`]).
#[derive(Debug, Clone, Default)]
pub struct Watch {
    /// Per candidate: it was (or was planned to be) among the least occupied at some cycle of the
    /// plan, so any change to it may change the plan.
    pub argmin: Vec<bool>,
    /// The highest least occupancy over the plan: another candidate matters only if its queue can
    /// drain to this level.
    pub level: u32,
    /// No usable candidate was ever among the least occupied: the head waits for sure until a least
    /// occupied one becomes usable or another queue drains to the least level.
    pub certain: bool,
    /// No candidate is usable at all: nothing but one becoming usable (its link freeing, its queue
    /// gaining room) can change the plan, whatever the occupancies do.
    pub blocked: bool,
    /// Scratch: each candidate queue's occupancy line over the span being planned.
    lines: Vec<fsin::Line>,
}

impl Watch {
    /// Starts the watch of a plan over `n` candidates: none least occupied yet, level 0, certain;
    /// `blocked` when none of them is usable.
    pub fn reset(&mut self, n: usize, blocked: bool) {
        self.argmin.clear();
        self.argmin.resize(n, false);
        self.level = 0;
        self.certain = true;
        self.blocked = blocked;
    }
}

/// A policy's answer for a head at this cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Bid for candidate `index` (it is usable); `alone` when it was the only usable one.
    Take {
        /// Index into the candidates.
        index: usize,
        /// No other candidate was usable (a loser then waits rather than choose again).
        alone: bool,
    },
    /// Nothing can be had: wait until a candidate's link frees or its buffer gains room.
    Wait,
    /// Ask again next cycle (FSIN: the chosen link is busy, or its queue lacks room while another's
    /// has it; occupancies change every cycle, so the choice may too).
    Retry {
        /// The candidate it asked for (a request on that channel: UGAL-L's local queue counts it).
        index: usize,
    },
}

/// An output selection policy. Stateless: everything it may look at is in the arguments, and random
/// choices draw from the run's `rng`, so runs stay deterministic.
pub trait OutputSelection: Sync + fmt::Debug {
    /// Chooses for a head that is routed and at the front of its buffer.
    fn choose(&self, candidates: &[CandidateState], rng: &mut Rng) -> Choice;
    /// For policies that fix the output when the head is routed: the candidate to keep (asked once per
    /// packet per buffer; [`OutputSelection::choose`] then sees only that candidate).
    fn fix(&self, _candidates: &[CandidateState], _rng: &mut Rng) -> Option<usize> {
        None
    }
    /// Whether it fixes the output when the head is routed ([`OutputSelection::fix`]).
    fn fixes(&self) -> bool {
        false
    }
    /// Whether a [`Choice::Retry`] can be planned ([`OutputSelection::plan`]) instead of asked again
    /// every cycle.
    fn plans(&self) -> bool {
        false
    }
    /// After [`OutputSelection::choose`] answered [`Choice::Retry`] at this cycle: when asking every
    /// cycle would first get a [`Choice::Take`] if nothing but the queues' [`Trend`]s changes
    /// meanwhile, drawn from the same distribution as asking every cycle would give. `watch` is
    /// filled with what the answer depends on. Only called when [`OutputSelection::plans`] is true.
    /// It must be a function of its arguments: the engine reuses an answer, and the `watch` it left,
    /// for a head with the same candidates' states and trends when the answer drew no random number.
    fn plan(
        &self,
        _candidates: &[CandidateState],
        _trends: &[Trend],
        _rng: &mut Rng,
        _watch: &mut Watch,
    ) -> Plan {
        Plan::Poll
    }
}

/// One policy: its name in configs, what it reproduces, and the policy.
pub struct Policy {
    /// Name in `[network] selection = "..."`.
    pub name: &'static str,
    /// One line for the CLI's registry help.
    pub help: &'static str,
    /// The policy.
    pub policy: &'static dyn OutputSelection,
}

/// Every policy. One line per policy; the constructors of [`Selection`] index it.
pub const POLICIES: &[Policy] = &[fsin::POLICY, fixed::POLICY, free::POLICY, fsin::POLLING];

/// An output selection policy named in a config; parsing validates the name against [`POLICIES`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Selection(usize);

impl Selection {
    /// FSIN's rule, the default (seed 004's results come from FSIN).
    pub fn fsin() -> Self {
        Selection(0)
    }
    /// Booksim's rule: fixed when the head is routed.
    pub fn fixed() -> Self {
        Selection(1)
    }
    /// Free outputs only (netreplay's first rule).
    pub fn free() -> Self {
        Selection(2)
    }
    /// FSIN's rule asked every cycle: the reference the planned [`Selection::fsin`] is checked against.
    pub fn fsin_poll() -> Self {
        Selection(3)
    }
    /// The policy by name, or an error listing the known ones.
    pub fn parse(name: &str) -> Result<Self> {
        let name = name.trim();
        POLICIES
            .iter()
            .position(|p| p.name == name)
            .map(Selection)
            .ok_or_else(|| {
                let known: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
                Error::Invalid(format!(
                    "unknown output selection `{name}`; policies: {}",
                    known.join(", ")
                ))
            })
    }
    /// The policy itself.
    pub fn policy(&self) -> &'static dyn OutputSelection {
        POLICIES[self.0].policy
    }
    /// Its name.
    pub fn name(&self) -> &'static str {
        POLICIES[self.0].name
    }
}

impl Default for Selection {
    fn default() -> Self {
        Selection::fsin()
    }
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<String> for Selection {
    type Error = Error;
    fn try_from(text: String) -> Result<Self> {
        Selection::parse(&text)
    }
}

impl From<Selection> for String {
    fn from(s: Selection) -> String {
        s.name().to_string()
    }
}

/// The candidate with most credits among those `eligible` admits, escape channels last, ties broken at
/// random with equal probability (reservoir sampling). Shared by the policies that rank by credits.
fn most_credits(
    candidates: &[CandidateState],
    rng: &mut Rng,
    eligible: impl Fn(&CandidateState) -> bool,
) -> Option<usize> {
    let mut best = None;
    let mut best_rank = (false, 0u32);
    let mut ties = 0u32;
    for (i, c) in candidates.iter().enumerate() {
        if !eligible(c) {
            continue;
        }
        let rank = (!c.escape, c.credit);
        if best.is_none() || rank > best_rank {
            (best, best_rank, ties) = (Some(i), rank, 1);
        } else if rank == best_rank {
            ties += 1;
            if rng.below(ties) == 0 {
                best = Some(i);
            }
        }
    }
    best
}

/// An escape candidate may be taken only when no other candidate's buffer has room, busy link or not:
/// a packet waits for a busy adaptive link rather than escape, so the escape path stays lightly used.
fn escape_allowed(candidates: &[CandidateState]) -> bool {
    !candidates.iter().any(|c| !c.escape && c.room())
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn cand(busy: bool, credit: u32, occupancy: u32) -> CandidateState {
        CandidateState {
            busy,
            credit,
            need: 16,
            occupancy,
            escape: false,
        }
    }

    #[test]
    fn names_round_trip_and_unknown_is_refused() {
        for p in POLICIES {
            assert_eq!(Selection::parse(p.name).unwrap().name(), p.name);
        }
        assert_eq!(Selection::default(), Selection::fsin());
        let e = Selection::parse("adaptive").unwrap_err().to_string();
        assert!(e.contains("fsin, fixed, free, fsin-poll"), "{e}");
    }

    #[test]
    fn most_credits_prefers_non_escape_then_credits() {
        let mut rng = Rng::new(1);
        let mut c = vec![cand(false, 64, 0), cand(false, 32, 0)];
        assert_eq!(most_credits(&c, &mut rng, |_| true), Some(0));
        c[0].escape = true;
        assert_eq!(most_credits(&c, &mut rng, |_| true), Some(1));
        assert_eq!(most_credits(&c, &mut rng, |c| c.credit > 40), Some(0));
        assert_eq!(most_credits(&c, &mut rng, |_| false), None);
    }
}
