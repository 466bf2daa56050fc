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
//! Here a head whose choice is busy, or lacks room while another candidate has room, retries next
//! cycle; when no candidate has room at all it waits for credits (it could not move before some buffer
//! drains, and a deadlock then still empties the event queue and is reported). Escape channels (not
//! used by FSIN's trees) are taken only when no other candidate has room.

use super::{CandidateState, Choice, OutputSelection, Policy, escape_allowed};
use crate::rng::Rng;

/// The registry line.
pub(super) const POLICY: Policy = Policy {
    name: "fsin",
    help: "least occupied downstream queue, busy link or not, asked again each cycle (FSIN; default)",
    policy: &Fsin,
};

#[derive(Debug)]
struct Fsin;

impl OutputSelection for Fsin {
    fn choose(&self, candidates: &[CandidateState], rng: &mut Rng) -> Choice {
        let escape_ok = escape_allowed(candidates);
        if escape_ok && !candidates.iter().any(|c| c.room()) {
            return Choice::Wait;
        }
        let Some(index) = least_occupied(candidates, rng, |c| !c.escape || escape_ok) else {
            return Choice::Wait;
        };
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
}

/// FSIN's `min_queue_occupation` over the eligible candidates, in order: the least occupied, the
/// first to reach the minimum drawn with weight 2, every other tie with weight 1.
fn least_occupied(
    candidates: &[CandidateState],
    rng: &mut Rng,
    eligible: impl Fn(&CandidateState) -> bool,
) -> Option<usize> {
    let mut min = u32::MAX;
    let mut first = None;
    let mut weight = 0u32;
    for (i, c) in candidates.iter().enumerate() {
        if eligible(c) && c.occupancy < min {
            min = c.occupancy;
            first = Some(i);
        }
    }
    let first = first?;
    // The draw `rand() % nm` over [first, first, ties...]: reservoir sampling with weights.
    let mut pick = first;
    for (i, c) in candidates.iter().enumerate() {
        if !eligible(c) || c.occupancy != min {
            continue;
        }
        let w = if i == first { 2 } else { 1 };
        weight += w;
        if rng.below(weight) < w {
            pick = i;
        }
    }
    Some(pick)
}

#[cfg(test)]
mod tests {
    use super::super::tests::cand;
    use super::*;

    #[test]
    fn asks_for_the_least_occupied_even_if_busy() {
        let mut rng = Rng::new(7);
        // The busy link's queue holds 2 phits, the free one 5: FSIN waits for the busy one.
        let c = [cand(true, 48, 2), cand(false, 48, 5)];
        assert_eq!(Fsin.choose(&c, &mut rng), Choice::Retry { index: 0 });
        let c = [cand(false, 48, 2), cand(true, 48, 5)];
        assert_eq!(
            Fsin.choose(&c, &mut rng),
            Choice::Take {
                index: 0,
                alone: true
            }
        );
        // No room anywhere: wait for credits instead of polling.
        let c = [cand(false, 8, 56), cand(true, 0, 64)];
        assert_eq!(Fsin.choose(&c, &mut rng), Choice::Wait);
    }

    #[test]
    fn the_first_minimum_is_drawn_twice_as_often() {
        let mut rng = Rng::new(11);
        let c = [cand(false, 64, 3), cand(false, 64, 0), cand(false, 64, 0)];
        let mut hits = [0u32; 3];
        for _ in 0..30_000 {
            hits[least_occupied(&c, &mut rng, |_| true).unwrap()] += 1;
        }
        assert_eq!(hits[0], 0);
        // Weights 2 : 1 → 20,000 : 10,000.
        assert!((19_000..21_000).contains(&hits[1]), "{hits:?}");
        assert!((9_000..11_000).contains(&hits[2]), "{hits:?}");
    }
}
