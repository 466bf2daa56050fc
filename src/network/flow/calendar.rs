//! The flow model's event queue: events come out by cycle, and within a cycle in the order they
//! were scheduled, as from a heap keyed by (cycle, insertion count), but without a heap's
//! comparisons for the events that fall within a horizon.
//!
//! Events up to [`HORIZON`] cycles ahead go to a ring of buckets indexed by `cycle % HORIZON` (a
//! bucket then holds one cycle's events, as a list in insertion order through one shared pool of
//! event slots, so the events in waiting stay together in memory whatever cycles they are for), with
//! a bitmap of the buckets in use so the next one is found a word at a time. Events further ahead (a
//! flow's end far away, a rank computing for long) wait in a heap keyed by (cycle, insertion count).
//! An event for cycle t is put in the heap only while `now <= t - HORIZON` and in a bucket only later
//! (the clock never goes back), so a cycle's events from the heap were all scheduled before those in
//! its bucket: taking the heap's first, then the bucket's, keeps the insertion order. Events
//! scheduled for the cycle being processed join its end.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Cycles ahead held in buckets (a power of two).
const HORIZON: u64 = 1024;
const WORDS: usize = (HORIZON / 64) as usize;
/// No slot: an empty bucket's list, the end of a list.
const NONE: u32 = u32::MAX;

/// A queue of events of type `E` by cycle.
#[derive(Debug)]
pub(super) struct Calendar<E> {
    /// Per bucket, the first and last slot of its list.
    first: Vec<u32>,
    last: Vec<u32>,
    /// Event slots: an event and the next slot of its list (or of the free list).
    slots: Vec<(E, u32)>,
    free: u32,
    /// Bit b of word w: bucket 64 w + b holds events.
    used: [u64; WORDS],
    in_buckets: usize,
    far: BinaryHeap<Reverse<(u64, u64, Unordered<E>)>>,
    seq: u64,
    /// The cycle being processed and its events, of which those before `next` are taken.
    now: u64,
    current: Vec<E>,
    next: usize,
}

/// An event in the far heap, ordered by nothing (the heap's keys are unique before it).
#[derive(Debug, Clone, Copy)]
struct Unordered<E>(E);

impl<E> PartialEq for Unordered<E> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<E> Eq for Unordered<E> {}
impl<E> PartialOrd for Unordered<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Unordered<E> {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl<E: Copy> Calendar<E> {
    /// An empty queue at cycle 0.
    pub(super) fn new() -> Self {
        Calendar {
            first: vec![NONE; HORIZON as usize],
            last: vec![NONE; HORIZON as usize],
            slots: Vec::new(),
            free: NONE,
            used: [0; WORDS],
            in_buckets: 0,
            far: BinaryHeap::new(),
            seq: 0,
            now: 0,
            current: Vec::new(),
            next: 0,
        }
    }

    /// Schedules `event` at cycle `at`, no earlier than the cycle being processed.
    #[inline]
    pub(super) fn schedule(&mut self, at: u64, event: E) {
        debug_assert!(at >= self.now, "event at {at} before cycle {}", self.now);
        if at <= self.now {
            self.current.push(event);
        } else if at - self.now < HORIZON {
            let slot = if self.free == NONE {
                self.slots.push((event, NONE));
                (self.slots.len() - 1) as u32
            } else {
                let s = self.free;
                self.free = self.slots[s as usize].1;
                self.slots[s as usize] = (event, NONE);
                s
            };
            let b = (at % HORIZON) as usize;
            match self.last[b] {
                NONE => {
                    self.first[b] = slot;
                    self.used[b / 64] |= 1 << (b % 64);
                }
                tail => self.slots[tail as usize].1 = slot,
            }
            self.last[b] = slot;
            self.in_buckets += 1;
        } else {
            self.seq += 1;
            self.far.push(Reverse((at, self.seq, Unordered(event))));
        }
    }

    /// The next event of the cycle being processed, if any is left.
    #[inline]
    pub(super) fn next_event(&mut self) -> Option<E> {
        let e = self.current.get(self.next).copied()?;
        self.next += 1;
        Some(e)
    }

    /// Moves on to the next cycle with events and returns it (the same cycle again if events were
    /// scheduled for it after its last was taken), or `None` when no event is left.
    pub(super) fn next_cycle(&mut self) -> Option<u64> {
        if self.next < self.current.len() {
            return Some(self.now);
        }
        self.current.clear();
        self.next = 0;
        let near = self.next_bucket();
        let far = self.far.peek().map(|Reverse((at, _, _))| *at);
        let at = match (near, far) {
            (Some(n), Some(f)) => n.min(f),
            (n, f) => n.or(f)?,
        };
        self.now = at;
        while let Some(&Reverse((t, _, Unordered(e)))) = self.far.peek() {
            if t != at {
                break;
            }
            self.far.pop();
            self.current.push(e);
        }
        if near == Some(at) {
            let b = (at % HORIZON) as usize;
            self.used[b / 64] &= !(1 << (b % 64));
            let mut s = std::mem::replace(&mut self.first[b], NONE);
            self.last[b] = NONE;
            while s != NONE {
                let (e, next) = self.slots[s as usize];
                self.current.push(e);
                self.slots[s as usize].1 = self.free;
                self.free = s;
                self.in_buckets -= 1;
                s = next;
            }
        }
        Some(at)
    }

    /// The cycle of the first bucket in use after the current cycle.
    fn next_bucket(&self) -> Option<u64> {
        if self.in_buckets == 0 {
            return None;
        }
        let start = ((self.now + 1) % HORIZON) as usize;
        // Words from the start's, the start's own bits below it last (they are a lap ahead).
        for k in 0..=WORDS {
            let w = (start / 64 + k) % WORDS;
            let mut bits = self.used[w];
            if k == 0 {
                bits &= u64::MAX << (start % 64);
            } else if k == WORDS {
                bits &= !(u64::MAX << (start % 64));
            }
            if bits != 0 {
                let b = (w * 64 + bits.trailing_zeros() as usize) as u64;
                let ahead = (b + HORIZON - (self.now + 1) % HORIZON) % HORIZON;
                return Some(self.now + 1 + ahead);
            }
        }
        unreachable!("a bucket in use has its bit set")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a heap keyed by (cycle, insertion count): the same events at the same cycles in the
    /// same order, over random schedules near, far (past the horizon) and at the current cycle,
    /// interleaved with taking events, with ties.
    #[test]
    fn events_come_as_from_a_heap_by_cycle_then_insertion() {
        let mut rng = crate::rng::Rng::new(9);
        for round in 0..100 {
            let mut cal = Calendar::new();
            let mut heap = BinaryHeap::new();
            let (mut seq, mut id) = (0u64, 0u32);
            let mut now = 0u64;
            let mut schedule = |cal: &mut Calendar<u32>, heap: &mut BinaryHeap<_>, at: u64| {
                seq += 1;
                id += 1;
                cal.schedule(at, id);
                heap.push(Reverse((at, seq, id)));
            };
            for _ in 0..20 {
                let at = u64::from(rng.below(3 * HORIZON as u32));
                schedule(&mut cal, &mut heap, at);
            }
            let mut steps = 0;
            while let Some(cycle) = cal.next_cycle() {
                assert!(cycle >= now, "round {round}: cycle {cycle} after {now}");
                now = cycle;
                while let Some(e) = cal.next_event() {
                    let Reverse((t, _, want)) = heap.pop().expect("the heap has it too");
                    assert_eq!((cycle, e), (t, want), "round {round}");
                    steps += 1;
                    if steps < 400 {
                        let delay = match rng.below(4) {
                            0 => 0,
                            1 => u64::from(rng.below(8)),
                            2 => u64::from(rng.below(HORIZON as u32)),
                            _ => u64::from(rng.below(4 * HORIZON as u32)),
                        };
                        for _ in 0..rng.below(3) {
                            schedule(&mut cal, &mut heap, now + delay);
                        }
                    }
                }
            }
            assert!(heap.is_empty(), "round {round}: the calendar lost events");
        }
    }
}
