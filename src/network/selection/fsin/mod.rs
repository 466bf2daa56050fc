//! FSIN's rule (`selection = "fsin"`, the default): the least occupied downstream queue.
//!
//! INSEE/FSIN @2140aec, `src/request_ports.c`: every cycle, each input queue whose head has no output
//! yet calls its topology's `check_rr_*`, which for trees takes `min_queue_occupation` over the
//! candidate (port, VC) pairs: the one whose neighbour's queue holds the fewest phits, whether or not
//! its link is busy. Ties are broken by `rand() % nm` over a list in which the first port to reach the
//! minimum appears twice (the code appends it both when it lowers the minimum and when it equals it),
//! so that port is drawn with weight 2; this is reproduced. `check_restrictions_trees` then requires
//! room for a whole packet there; if there is none, or the link is busy (another input holds the
//! port), no grant happens this cycle and the head asks again next cycle, when occupancies may differ.
//!
//! Here a head whose choice is busy, or lacks room while another candidate has room, retries; when no
//! candidate has room at all it waits for credits (it could not move before some buffer drains, and a
//! deadlock then still empties the event queue and is reported). Escape channels (not used by FSIN's
//! trees) are taken only when no other candidate has room.
//!
//! **Planned retries** (`fsin`). Between engine events the only thing that changes what a retrying
//! head would choose is the downstream queues' occupancy, which moves linearly ([`Trend`]), so the
//! cycle at which asking would first succeed can be computed instead of asked for: [`Fsin::plan`]
//! replays the per-cycle draws while queues move and samples the geometric number of failed draws once
//! they are constant. The engine re-plans when a candidate the plan read changes (see
//! `engine/watch.rs`); by the memorylessness of the per-cycle draws this gives the polling rule's
//! distribution of outcomes, and its very cycles where no random tie is drawn. `fsin-poll` is the
//! polling reference. A tie with a single least occupied candidate draws nothing.

use super::{CandidateState, Choice, OutputSelection, Plan, Policy, Trend, Watch};
use crate::rng::Rng;

mod plan;

pub(super) use plan::{Line, Span};

/// The registry line.
pub(super) const POLICY: Policy = Policy {
    name: "fsin",
    help: "least occupied downstream queue, busy link or not, until granted (FSIN; default)",
    policy: &Fsin { planned: true },
};

/// The same rule asked again every cycle, as FSIN runs it: the reference for the planned rule.
pub(super) const POLLING: Policy = Policy {
    name: "fsin-poll",
    help: "FSIN's rule asked every cycle (reference for `fsin`, same results, slower)",
    policy: &Fsin { planned: false },
};

/// FSIN's rule; `planned` lets the engine plan retries instead of polling.
#[derive(Debug)]
struct Fsin {
    planned: bool,
}

impl OutputSelection for Fsin {
    /// The rule in two passes over the candidates (this runs once per decision): the first finds
    /// whether escape channels are allowed and the least occupancy among the eligible, the second
    /// makes [`draw`]'s weighted draw among those at it.
    fn choose(&self, candidates: &[CandidateState], rng: &mut Rng) -> Choice {
        let (mut plain_room, mut any_room) = (false, false);
        let (mut least_plain, mut least_any) = (u32::MAX, u32::MAX);
        for c in candidates {
            let room = c.room();
            any_room |= room;
            least_any = least_any.min(c.occupancy);
            if !c.escape {
                plain_room |= room;
                least_plain = least_plain.min(c.occupancy);
            }
        }
        // As `escape_allowed`: escape channels only when no other candidate has room.
        let escape_ok = !plain_room;
        if escape_ok && !any_room {
            return Choice::Wait;
        }
        // With escapes refused some other candidate has room, so `least_plain` is one's occupancy.
        let min = if escape_ok { least_any } else { least_plain };
        let mut index = usize::MAX;
        let mut weight = 0u32;
        for (i, c) in candidates.iter().enumerate() {
            if c.occupancy != min || (c.escape && !escape_ok) {
                continue;
            }
            // The first at the minimum weighs 2 and is taken without a draw, as in `draw`.
            let w = if index == usize::MAX { 2 } else { 1 };
            weight += w;
            if index == usize::MAX || rng.below(weight) < w {
                index = i;
            }
        }
        let c = candidates[index];
        if c.usable() {
            let usable = candidates.iter().filter(|c| c.usable()).count();
            Choice::Take {
                index,
                alone: usable == 1,
            }
        } else {
            Choice::Retry { index }
        }
    }

    fn plans(&self) -> bool {
        self.planned
    }

    /// See [`plan::plan`].
    fn plan(
        &self,
        candidates: &[CandidateState],
        trends: &[Trend],
        rng: &mut Rng,
        watch: &mut Watch,
        again: bool,
    ) -> Plan {
        plan::plan(candidates, trends, rng, watch, again)
    }
}

/// The least occupancy among the candidates `occupancy` gives one for (the eligible ones): the
/// reference the fused passes of [`Fsin::choose`] are tested against.
#[cfg(test)]
fn least(n: usize, occupancy: impl Fn(usize) -> Option<u32>) -> Option<u32> {
    (0..n).filter_map(occupancy).min()
}

/// FSIN's `min_queue_occupation` draw among the candidates at occupancy `min`, restricted to those
/// `keep` admits: the first to reach the minimum with weight 2, every other tie with weight 1. A
/// single candidate is returned without drawing.
fn draw(
    n: usize,
    min: u32,
    occupancy: impl Fn(usize) -> Option<u32>,
    keep: impl Fn(usize) -> bool,
    rng: &mut Rng,
) -> Option<usize> {
    let first = (0..n).find(|&i| occupancy(i) == Some(min))?;
    let mut pick = None;
    let mut weight = 0u32;
    for i in first..n {
        if occupancy(i) != Some(min) || !keep(i) {
            continue;
        }
        let w = if i == first { 2 } else { 1 };
        weight += w;
        // The first kept candidate is taken without a draw (it is certain while it is alone).
        if pick.is_none() || rng.below(weight) < w {
            pick = Some(i);
        }
    }
    pick
}

#[cfg(test)]
mod tests {
    use super::super::escape_allowed;
    use super::super::tests::cand;
    use super::*;

    const FSIN: Fsin = Fsin { planned: true };

    #[test]
    fn asks_for_the_least_occupied_even_if_busy() {
        let mut rng = Rng::new(7);
        // The busy link's queue holds 2 phits, the free one 5: FSIN waits for the busy one.
        let c = [cand(true, 48, 2), cand(false, 48, 5)];
        assert_eq!(FSIN.choose(&c, &mut rng), Choice::Retry { index: 0 });
        let c = [cand(false, 48, 2), cand(true, 48, 5)];
        assert_eq!(
            FSIN.choose(&c, &mut rng),
            Choice::Take {
                index: 0,
                alone: true
            }
        );
        // No room anywhere: wait for credits instead of polling.
        let c = [cand(false, 8, 56), cand(true, 0, 64)];
        assert_eq!(FSIN.choose(&c, &mut rng), Choice::Wait);
    }

    /// The rule as it reads, one helper per step (escape channels allowed, wait, least occupancy,
    /// weighted draw), for checking the fused passes of `choose`.
    fn choose_by_steps(c: &[CandidateState], rng: &mut Rng) -> Choice {
        let escape_ok = escape_allowed(c);
        if escape_ok && !c.iter().any(|c| c.room()) {
            return Choice::Wait;
        }
        let occupancy = |i: usize| (!c[i].escape || escape_ok).then_some(c[i].occupancy);
        let Some(min) = least(c.len(), occupancy) else {
            return Choice::Wait;
        };
        let index = draw(c.len(), min, occupancy, |_| true, rng).unwrap();
        if c[index].usable() {
            let usable = c.iter().filter(|c| c.usable()).count();
            Choice::Take {
                index,
                alone: usable == 1,
            }
        } else {
            Choice::Retry { index }
        }
    }

    /// `choose` answers as the rule's steps do and leaves the random stream where they leave it,
    /// on random candidate sets with ties, busy links, full queues and escape channels.
    #[test]
    fn choose_is_the_rule_step_by_step() {
        let mut make = Rng::new(5);
        for round in 0..20_000 {
            let n = 1 + make.below(6) as usize;
            let c: Vec<CandidateState> = (0..n)
                .map(|_| CandidateState {
                    escape: make.below(4) == 0,
                    ..cand(make.below(2) == 0, 16 * make.below(3), 16 * make.below(3))
                })
                .collect();
            let (mut a, mut b) = (Rng::new(round), Rng::new(round));
            assert_eq!(
                FSIN.choose(&c, &mut a),
                choose_by_steps(&c, &mut b),
                "{c:?}"
            );
            assert!(a == b, "the streams parted on {c:?}");
        }
    }

    #[test]
    fn the_first_minimum_is_drawn_twice_as_often() {
        let mut rng = Rng::new(11);
        let c = [cand(false, 64, 3), cand(false, 64, 0), cand(false, 64, 0)];
        let mut hits = [0u32; 3];
        for _ in 0..30_000 {
            let occ = |i: usize| Some(c[i].occupancy);
            hits[draw(3, least(3, occ).unwrap(), occ, |_| true, &mut rng).unwrap()] += 1;
        }
        assert_eq!(hits[0], 0);
        // Weights 2 : 1 → 20,000 : 10,000.
        assert!((19_000..21_000).contains(&hits[1]), "{hits:?}");
        assert!((9_000..11_000).contains(&hits[2]), "{hits:?}");
    }
}
