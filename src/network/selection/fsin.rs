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

use super::{CandidateState, Choice, OutputSelection, Plan, Policy, Trend, Watch, escape_allowed};
use crate::rng::Rng;

/// The registry line.
pub(super) const POLICY: Policy = Policy {
    name: "fsin",
    help: "least occupied downstream queue, busy link or not, until granted (FSIN; default)",
    policy: &Fsin { planned: true },
};

/// The same rule asked again every cycle, as FSIN runs it: the reference for the planned rule.
pub(super) const POLLING: Policy = Policy {
    name: "fsin-poll",
    help: "FSIN's rule asked every cycle (reference for `fsin`: the same results in distribution, slower)",
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
        answer(candidates, index)
    }

    fn plans(&self) -> bool {
        self.planned
    }

    /// Polls when the next cycle may grant. Otherwise walks the cycles from the next one in spans
    /// over which the set of least occupied candidates stays the same: occupancies are piecewise
    /// linear with slopes -1, 0 or 1, so a span ends at a kink of some queue's trend or where another
    /// queue's line meets the least one. Within a span every cycle's draw picks a usable candidate
    /// with the same chance `q`, so the number of failed cycles is geometric with parameter `q`,
    /// sampled at once and kept if it ends inside the span.
    fn plan(
        &self,
        candidates: &[CandidateState],
        trends: &[Trend],
        rng: &mut Rng,
        watch: &mut Watch,
    ) -> Plan {
        let n = candidates.len();
        let escape_ok = escape_allowed(candidates);
        let eligible = |c: &CandidateState| !c.escape || escape_ok;
        let blocked = !candidates.iter().any(|c| c.usable() && eligible(c));
        watch.reset(n, blocked);
        if blocked {
            return Plan::Never;
        }
        // Next cycle may grant it (a usable candidate is then among the least occupied): polling
        // once costs no more than planning, and this is found without building the lines (the
        // walk below would find it in its first span, drawing nothing).
        let (mut least, mut least_usable) = (u32::MAX, u32::MAX);
        for (c, t) in candidates.iter().zip(trends) {
            if eligible(c) {
                let value = t.at(1);
                least = least.min(value);
                if c.usable() {
                    least_usable = least_usable.min(value);
                }
            }
        }
        if least_usable == least {
            return Plan::Poll;
        }
        let settle = trends
            .iter()
            .map(Trend::settles_after)
            .max()
            .unwrap_or(0)
            .max(1);
        // Each queue's line: occupancy at `dt`, slope until its next kink; whether its candidate may
        // be drawn and could be granted (neither changes while the plan's state holds).
        watch.lines.clear();
        watch
            .lines
            .extend(candidates.iter().zip(trends).map(|(c, t)| Line {
                eligible: eligible(c),
                usable: c.usable(),
                ..Line::at(t, 1, settle)
            }));
        let mut dt = 1u64;
        loop {
            let lines = &watch.lines;
            // Some candidate is eligible (one is usable and eligible), so `min` is one's occupancy.
            let min = lines
                .iter()
                .filter(|l| l.eligible)
                .map(|l| l.value)
                .min()
                .unwrap_or(u32::MAX);
            let member = |l: &Line| l.eligible && l.value == min;
            // The least occupied now: their common slope (`mixed` if they differ), weights, usables.
            let (mut first, mut common, mut mixed) = (true, 0i64, false);
            let (mut total, mut good) = (0u32, 0u32);
            for (i, line) in lines.iter().enumerate() {
                if !member(line) {
                    continue;
                }
                watch.argmin[i] = true;
                let w = if first {
                    (first, common) = (false, line.slope);
                    2
                } else {
                    mixed |= line.slope != common;
                    1
                };
                total += w;
                if line.usable {
                    good += w;
                }
            }
            debug_assert!(
                good == 0 || dt > 1,
                "a poll passed the check before the walk"
            );
            // The span [dt, end) over which that set stays the least occupied.
            let end = if dt >= settle {
                u64::MAX
            } else if mixed {
                dt + 1
            } else {
                let mut end = settle;
                for line in lines {
                    end = end.min(line.kink);
                    let gap = i64::from(line.value) - i64::from(min);
                    let closing = common - line.slope;
                    if line.eligible && gap > 0 && closing > 0 {
                        end = end.min(dt + (gap + closing - 1).div_euclid(closing) as u64);
                    }
                }
                end
            };
            let rise = |t: u64| u64::from(min) + (t - dt) * u64::from(common > 0);
            if good > 0 {
                watch.certain = false;
                let failures = geometric(f64::from(good) / f64::from(total), rng);
                if failures < end - dt {
                    let at = dt + failures;
                    watch.level = watch.level.max(rise(at) as u32);
                    let at_min = |i: usize| member(&lines[i]).then_some(min);
                    let Some(pick) = draw(n, min, at_min, |i| lines[i].usable, rng) else {
                        return Plan::Never;
                    };
                    return Plan::At(at, pick);
                }
            }
            if end == u64::MAX {
                watch.level = watch.level.max(min);
                return Plan::Never;
            }
            watch.level = watch.level.max(rise(end - 1) as u32);
            for (line, t) in watch.lines.iter_mut().zip(trends) {
                line.advance(t, dt, end, settle);
            }
            dt = end;
        }
    }
}

/// A queue's occupancy over a span of a plan: its value at the span's start, its slope (phits per
/// cycle) and the cycle of its next kink, where the slope changes; and what the plan reads of its
/// candidate.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Line {
    value: u32,
    /// The candidate may be drawn (not an escape channel, or escape channels are allowed).
    eligible: bool,
    /// The candidate could be granted (free, with room).
    usable: bool,
    slope: i64,
    kink: u64,
}

impl Line {
    /// The line of `trend` at cycle `dt` (flat from `settle` on), computed in one pass: the
    /// occupancy at `dt` and `dt + 1` as [`Trend::at`] gives them, and [`Trend::next_kink`].
    /// Relative cycles are differences of cycles of one run (far below 2^62), so the arithmetic
    /// cannot wrap and is left unchecked on this hot path.
    #[inline]
    fn at(trend: &Trend, dt: u64, settle: u64) -> Line {
        if trend.whole == 0 {
            return Line {
                kink: u64::MAX,
                ..Line::default()
            };
        }
        let (p, t) = (i64::from(trend.packet), dt as i64);
        // Cycles since the last packet's first phit arrived, and since the leaving one's first left.
        let arrive = t.wrapping_sub(trend.arrive);
        // Nothing leaving: a departure that has not started (nothing has left).
        let (leaving, leave) = match trend.leave {
            Some(l) => (true, t.wrapping_sub(l)),
            None => (false, i64::MIN / 2),
        };
        let whole = i64::from(trend.whole);
        let occupancy = |s: i64| {
            let arrived = arrive.wrapping_add(s).clamp(0, p);
            let left = leave.wrapping_add(s).clamp(0, p);
            whole
                .wrapping_sub(p)
                .wrapping_add(arrived)
                .wrapping_sub(left)
                .max(0)
        };
        let now = occupancy(0);
        let slope = if dt >= settle { 0 } else { occupancy(1) - now };
        // The next kink is where the arrival or the departure starts or ends: cycles until
        // `arrive` (or `leave`) reaches 0 or `p`, the first strictly after `dt`.
        let until = |x: i64| {
            if x < 0 {
                x.wrapping_neg()
            } else if x < p {
                p - x
            } else {
                i64::MAX
            }
        };
        let next = if leaving {
            until(arrive).min(until(leave))
        } else {
            until(arrive)
        };
        Line {
            value: now as u32,
            slope,
            kink: if next == i64::MAX {
                u64::MAX
            } else {
                dt.wrapping_add(next as u64)
            },
            ..Line::default()
        }
    }

    /// Moves the line from cycle `from` to `to`, no later than its kink (what it reads of its
    /// candidate stays).
    #[inline]
    fn advance(&mut self, trend: &Trend, from: u64, to: u64, settle: u64) {
        if to >= self.kink || to >= settle {
            *self = Line {
                eligible: self.eligible,
                usable: self.usable,
                ..Line::at(trend, to, settle)
            };
        } else {
            self.value = (i64::from(self.value) + self.slope * (to - from) as i64) as u32;
        }
    }
}

/// The least occupancy among the candidates `occupancy` gives one for (the eligible ones): the
/// reference the fused passes of [`Fsin::choose`] are tested against.
#[cfg(test)]
fn least(n: usize, occupancy: impl Fn(usize) -> Option<u32>) -> Option<u32> {
    (0..n).filter_map(occupancy).min()
}

/// The answer for drawn candidate `index`: take it if it is usable (alone if no other is), else ask
/// again.
fn answer(candidates: &[CandidateState], index: usize) -> Choice {
    if candidates[index].usable() {
        let usable = candidates.iter().filter(|c| c.usable()).count();
        Choice::Take {
            index,
            alone: usable == 1,
        }
    } else {
        Choice::Retry { index }
    }
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

/// Failed trials before the first success of independent trials that each succeed with chance `q`
/// (inverse transform of the geometric distribution).
fn geometric(q: f64, rng: &mut Rng) -> u64 {
    if q >= 1.0 {
        return 0;
    }
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let k = ((1.0 - u).ln() / (1.0 - q).ln()).floor();
    if k.is_finite() && k >= 0.0 {
        (k as u64).min(u64::MAX >> 2)
    } else {
        u64::MAX >> 2
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::cand;
    use super::*;

    const FSIN: Fsin = Fsin { planned: true };

    /// A queue of `whole` phits whose last packet started arriving at `arrive` and whose front packet
    /// started leaving at `leave` (cycles from now), 16-phit packets.
    fn trend(whole: u32, arrive: i64, leave: Option<i64>) -> Trend {
        Trend {
            whole,
            arrive,
            leave,
            packet: 16,
        }
    }

    /// The reference: the cycle and candidate at which asking every cycle first gets a grant, the
    /// occupancies following `trends` (`None` within `horizon` cycles).
    fn poll(
        c: &[CandidateState],
        trends: &[Trend],
        rng: &mut Rng,
        horizon: u64,
    ) -> Option<(u64, usize)> {
        let mut c = c.to_vec();
        for dt in 1..=horizon {
            for (c, t) in c.iter_mut().zip(trends) {
                c.occupancy = t.at(dt);
            }
            if let Choice::Take { index, .. } = FSIN.choose(&c, rng) {
                return Some((dt, index));
            }
        }
        None
    }

    /// The plan's fused line reads what the trend's own methods read: the occupancy at `dt`
    /// ([`Trend::at`]), its slope to `dt + 1` (flat from `settle` on) and the next kink
    /// ([`Trend::next_kink`]), over queues arriving, leaving, both and neither.
    #[test]
    fn a_line_is_the_trend_read_at_once() {
        for whole in [0, 16, 32, 48] {
            for arrive in -40..24 {
                for leave in std::iter::once(None).chain((-40..24).map(Some)) {
                    let t = trend(whole, arrive, leave);
                    let settle = t.settles_after().max(1);
                    for dt in 0..48 {
                        let line = Line::at(&t, dt, settle);
                        let slope = if dt >= settle {
                            0
                        } else {
                            i64::from(t.at(dt + 1)) - i64::from(t.at(dt))
                        };
                        assert_eq!(
                            (line.value, line.slope, line.kink),
                            (t.at(dt), slope, t.next_kink(dt)),
                            "{t:?} at {dt}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn trends_follow_the_trains_of_phits() {
        // One packet fully in, leaving since 4 cycles ago: 12 phits, down to 0 at 12.
        let t = trend(16, -40, Some(-4));
        assert_eq!((t.at(0), t.at(5), t.at(12), t.at(30)), (12, 7, 0, 0));
        assert_eq!((t.lowest(), t.settles_after(), t.next_kink(0)), (0, 12, 12));
        // Arriving (3 of 16 in) while the packet before streams out (10 left): flat, then rising.
        let t = trend(32, -3, Some(-10));
        assert_eq!((t.at(0), t.at(6), t.at(9), t.at(13)), (9, 9, 12, 16));
        assert_eq!(
            (t.next_kink(0), t.next_kink(6), t.settles_after()),
            (6, 13, 13)
        );
        assert_eq!(trend(0, 0, None).at(3), 0);
    }

    #[test]
    fn a_plan_is_drawn_as_polling_draws() {
        // Three situations: a busy least queue crossed by a draining free one (a tie at the
        // crossing), lasting ties that a third queue joins, and a wait that never ends.
        let crossing = (
            vec![cand(true, 48, 10), cand(false, 48, 15)],
            vec![trend(32, -4, Some(-10)), trend(16, -40, Some(-1))],
        );
        let tie = (
            vec![cand(true, 48, 16), cand(false, 48, 18), cand(true, 48, 20)],
            vec![
                trend(16, -40, None),
                trend(32, -40, Some(-14)),
                trend(32, -30, Some(-12)),
            ],
        );
        let never = (
            vec![cand(true, 48, 0), cand(false, 48, 16)],
            vec![trend(0, 0, None), trend(16, -40, None)],
        );
        for (name, (c, t)) in [("crossing", crossing), ("tie", tie), ("never", never)] {
            assert!(matches!(
                FSIN.choose(&c, &mut Rng::new(3)),
                Choice::Retry { .. } | Choice::Take { .. }
            ));
            let (mut planned, mut polled) = (
                std::collections::BTreeMap::new(),
                std::collections::BTreeMap::new(),
            );
            let (mut rng, mut watch) = (Rng::new(1), Watch::default());
            for _ in 0..20_000 {
                let plan = match FSIN.plan(&c, &t, &mut rng, &mut watch) {
                    Plan::At(dt, i) => Some((dt, i)),
                    Plan::Never => None,
                    Plan::Poll => panic!("{name}: the next cycle cannot grant"),
                };
                *planned.entry(plan.filter(|p| p.0 <= 60)).or_insert(0u32) += 1;
                *polled.entry(poll(&c, &t, &mut rng, 60)).or_insert(0u32) += 1;
            }
            for (k, &n) in planned.iter().chain(polled.iter()) {
                let (a, b) = (
                    planned.get(k).copied().unwrap_or(0),
                    polled.get(k).copied().unwrap_or(0),
                );
                let slack = 6.0 * (f64::from(n.max(1))).sqrt() + 20.0;
                assert!(
                    f64::from(a.abs_diff(b)) < slack,
                    "{name} at {k:?}: planned {a}, polled {b}"
                );
            }
        }
    }

    #[test]
    fn the_next_cycle_that_may_grant_is_polled() {
        // The free queue drains below the busy one's next cycle: ask again then.
        let c = [cand(true, 48, 1), cand(false, 48, 1)];
        let t = [trend(16, -1, None), trend(16, -40, Some(-15))];
        let plan = FSIN.plan(&c, &t, &mut Rng::new(1), &mut Watch::default());
        assert_eq!(plan, Plan::Poll);
    }

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
        answer(c, draw(c.len(), min, occupancy, |_| true, rng).unwrap())
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
