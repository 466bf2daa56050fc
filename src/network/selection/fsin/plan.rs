//! Planned retries under FSIN's rule: when asking every cycle would first succeed, computed from
//! the candidate queues' linear trends instead of asked for (see the parent module's notes).

use super::draw;
use crate::network::selection::{CandidateState, Plan, Trend, Watch, escape_allowed};
use crate::rng::Rng;

/// Polls when the next cycle may grant. Otherwise walks the cycles from the next one in spans
/// over which the set of least occupied candidates stays the same: occupancies are piecewise
/// linear with slopes -1, 0 or 1, so a span ends at a kink of some queue's trend or where another
/// queue's line meets the least one. Within a span every cycle's draw picks a usable candidate
/// with the same chance `q`, so the number of failed cycles is geometric with parameter `q`,
/// sampled at once and kept if it ends inside the span.
///
/// The spans depend on the candidates' states and trends alone, so they are kept in `watch`:
/// with `again` (the same states and trends as the call before on this `watch`) the walk reads
/// the spans found then, makes its own draws in the same order, and finds further spans only if
/// it walks past them.
#[inline]
pub(super) fn plan(
    candidates: &[CandidateState],
    trends: &[Trend],
    rng: &mut Rng,
    watch: &mut Watch,
    again: bool,
) -> Plan {
    let n = candidates.len();
    let escape_ok = escape_allowed(candidates);
    let eligible = |c: &CandidateState| !c.escape || escape_ok;
    let blocked = !candidates.iter().any(|c| c.usable() && eligible(c));
    watch.reset(n, blocked);
    if blocked {
        return Plan::Never;
    }
    if !again {
        let settle = trends
            .iter()
            .map(Trend::settles_after)
            .max()
            .unwrap_or(0)
            .max(1);
        // Each queue's line: occupancy at `dt`, slope until its next kink; whether its candidate
        // may be drawn and could be granted (neither changes while the plan's state holds).
        watch.lines.clear();
        watch
            .lines
            .extend(candidates.iter().zip(trends).map(|(c, t)| Line {
                eligible: eligible(c),
                usable: c.usable(),
                ..Line::at(t, 1, settle)
            }));
        watch.spans.clear();
        watch.members.clear();
        watch.settle = settle;
    }
    let mut k = 0;
    loop {
        if k == watch.spans.len() {
            watch.find_span(trends);
        }
        let span = watch.spans[k];
        let members = span.members.0 as usize..span.members.1 as usize;
        for &i in &watch.members[members.clone()] {
            watch.argmin[i as usize] = true;
        }
        if span.good > 0 && span.dt == 1 {
            // Next cycle may grant it: polling once costs no more than planning.
            return Plan::Poll;
        }
        let rise = |t: u64| u64::from(span.min) + (t - span.dt) * u64::from(span.rising);
        if span.good > 0 {
            watch.certain = false;
            let failures = geometric(f64::from(span.good) / f64::from(span.total), rng);
            if failures < span.end - span.dt {
                let at = span.dt + failures;
                watch.level = watch.level.max(rise(at) as u32);
                let at_min = |i: usize| {
                    watch.members[members.clone()]
                        .contains(&(i as u32))
                        .then_some(span.min)
                };
                let lines = &watch.lines;
                let Some(pick) = draw(n, span.min, at_min, |i| lines[i].usable, rng) else {
                    return Plan::Never;
                };
                return Plan::At(at, pick);
            }
        }
        if span.end == u64::MAX {
            watch.level = watch.level.max(span.min);
            return Plan::Never;
        }
        watch.level = watch.level.max(rise(span.end - 1) as u32);
        k += 1;
    }
}

/// A span of a plan: the cycles `[dt, end)` over which the same candidates are least occupied,
/// what the walk reads of it, and its least occupied candidates (`Watch::members[members.0..
/// members.1]`, in candidate order).
#[derive(Debug, Clone, Copy)]
pub(in crate::network::selection) struct Span {
    dt: u64,
    end: u64,
    /// The least occupancy at `dt`, and whether it rises over the span (one phit per cycle).
    min: u32,
    rising: bool,
    /// The draw's weights: of the least occupied, and of those usable among them.
    total: u32,
    good: u32,
    members: (u32, u32),
}

impl Watch {
    /// Finds the plan's next span: moves the lines to the end of the last span found (they stay at
    /// its start until a walk needs the one after it), then reads the least occupied set there and
    /// where it ends.
    fn find_span(&mut self, trends: &[Trend]) {
        let settle = self.settle;
        let dt = match self.spans.last() {
            None => 1,
            Some(last) => {
                for (line, t) in self.lines.iter_mut().zip(trends) {
                    line.advance(t, last.dt, last.end, settle);
                }
                last.end
            }
        };
        let lines = &self.lines;
        // Some candidate is eligible (one is usable and eligible), so `min` is one's occupancy.
        let min = lines
            .iter()
            .filter(|l| l.eligible)
            .map(|l| l.value)
            .min()
            .unwrap_or(u32::MAX);
        // The least occupied now: their common slope (`mixed` if they differ), weights, usables.
        let from = self.members.len() as u32;
        let (mut first, mut common, mut mixed) = (true, 0i64, false);
        let (mut total, mut good) = (0u32, 0u32);
        for (i, line) in lines.iter().enumerate() {
            if !(line.eligible && line.value == min) {
                continue;
            }
            self.members.push(i as u32);
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
        // The span [dt, end) over which that set stays the least occupied (a span that polls
        // ends where it starts: the walk never reads past it).
        let end = if good > 0 && dt == 1 {
            dt
        } else if dt >= settle {
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
        self.spans.push(Span {
            dt,
            end,
            min,
            rising: common > 0,
            total,
            good,
            members: (from, self.members.len() as u32),
        });
    }
}

/// A queue's occupancy over a span of a plan: its value at the span's start, its slope (phits per
/// cycle) and the cycle of its next kink, where the slope changes; and what the plan reads of its
/// candidate.
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::network::selection) struct Line {
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
    use super::super::Fsin;
    use super::*;
    use crate::network::selection::tests::cand;
    use crate::network::selection::{Choice, OutputSelection};

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
                let plan = match FSIN.plan(&c, &t, &mut rng, &mut watch, false) {
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

    /// A plan on the spans kept by the plan before (`again`) is the plan made afresh: the same
    /// answer, the same draws and the same watch, on random queues, including walks that go past
    /// the spans kept.
    #[test]
    fn kept_spans_plan_as_a_fresh_walk() {
        let mut make = Rng::new(9);
        let mut walked_further = 0;
        for round in 0..20_000u64 {
            let n = 1 + make.below(5) as usize;
            let t: Vec<Trend> = (0..n)
                .map(|_| {
                    let whole = 16 * make.below(4);
                    let arrive = i64::from(make.below(40)) - 30;
                    let leave = (make.below(2) == 0).then(|| i64::from(make.below(30)) - 20);
                    trend(whole, arrive, leave)
                })
                .collect();
            let c: Vec<CandidateState> = t
                .iter()
                .map(|t| CandidateState {
                    escape: make.below(6) == 0,
                    ..cand(make.below(2) == 0, 16 * make.below(4), t.at(0))
                })
                .collect();
            let (mut kept, mut rng) = (Watch::default(), Rng::new(round));
            FSIN.plan(&c, &t, &mut rng, &mut kept, false);
            for _ in 0..4 {
                let spans = kept.spans.len();
                let (mut fresh, mut again_rng) = (Watch::default(), rng.clone());
                let want = FSIN.plan(&c, &t, &mut again_rng, &mut fresh, false);
                let got = FSIN.plan(&c, &t, &mut rng, &mut kept, true);
                assert_eq!(got, want, "{c:?} {t:?}");
                assert!(rng == again_rng, "the streams parted on {c:?} {t:?}");
                assert_eq!(
                    (&kept.argmin, kept.level, kept.certain, kept.blocked),
                    (&fresh.argmin, fresh.level, fresh.certain, fresh.blocked),
                    "{c:?} {t:?}"
                );
                walked_further += usize::from(kept.spans.len() > spans);
            }
        }
        assert!(
            walked_further > 50,
            "{walked_further} walks went past the kept spans"
        );
    }

    #[test]
    fn the_next_cycle_that_may_grant_is_polled() {
        // The free queue drains below the busy one's next cycle: ask again then.
        let c = [cand(true, 48, 1), cand(false, 48, 1)];
        let t = [trend(16, -1, None), trend(16, -40, Some(-15))];
        let plan = FSIN.plan(&c, &t, &mut Rng::new(1), &mut Watch::default(), false);
        assert_eq!(plan, Plan::Poll);
    }
}
