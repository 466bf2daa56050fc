//! Fixed when routed: Booksim2's rule (`selection = "fixed"`).
//!
//! Booksim's routing functions run once, when a head reaches the front of its input VC, and its tree
//! routings (`nca`, `anca`) return one output there (`anca` the one with most credits); the VC and
//! switch allocators then wait for that output however long it stays busy. Here the output with most
//! credits (busy or not, random among ties, escape channels last) is fixed when the head is first
//! looked at in a buffer, and the packet waits for it.

use super::{CandidateState, Choice, OutputSelection, Policy, most_credits};
use crate::rng::Rng;

/// The registry line.
pub(super) const POLICY: Policy = Policy {
    name: "fixed",
    help: "chosen once when the head is routed, most credits, then waited for (Booksim2)",
    policy: &Fixed,
};

#[derive(Debug)]
struct Fixed;

impl OutputSelection for Fixed {
    fn fixes(&self) -> bool {
        true
    }

    fn fix(&self, candidates: &[CandidateState], rng: &mut Rng) -> Option<usize> {
        most_credits(candidates, rng, |_| true)
    }

    /// `candidates[0]` is the fixed output; the rest are escape channels, taken only when the fixed
    /// output's buffer is full (so that a deadlock-free escape path stays reachable).
    fn choose(&self, candidates: &[CandidateState], _rng: &mut Rng) -> Choice {
        let Some(fixed) = candidates.first() else {
            return Choice::Wait;
        };
        let index = if fixed.usable() {
            Some(0)
        } else if !fixed.room() {
            (1..candidates.len()).find(|&i| candidates[i].usable())
        } else {
            None
        };
        match index {
            Some(index) => Choice::Take { index, alone: true },
            None => Choice::Wait,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::cand;
    use super::*;

    #[test]
    fn fixes_most_credits_busy_or_not_then_waits_for_it() {
        let mut rng = Rng::new(5);
        let c = [cand(true, 64, 0), cand(false, 32, 0)];
        assert_eq!(Fixed.fix(&c, &mut rng), Some(0));
        assert_eq!(Fixed.choose(&c[..1], &mut rng), Choice::Wait);
        // A full fixed output falls back on a free escape channel; a merely busy one is waited for.
        let mut escape = cand(false, 64, 0);
        escape.escape = true;
        let full = [cand(false, 8, 56), escape];
        assert_eq!(
            Fixed.choose(&full, &mut rng),
            Choice::Take {
                index: 1,
                alone: true
            }
        );
        assert_eq!(
            Fixed.choose(&[cand(true, 64, 0), escape], &mut rng),
            Choice::Wait
        );
        assert_eq!(
            Fixed.choose(&c[1..], &mut rng),
            Choice::Take {
                index: 0,
                alone: true
            }
        );
    }
}
