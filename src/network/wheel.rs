//! The event queue: a timing wheel keyed by cycle, FIFO on ties, with a heap for far-future events.
//!
//! Network events are always scheduled a bounded number of cycles ahead (at most a packet's length plus
//! link, fly, routing, allocation and credit delays), so a power-of-two ring of buckets indexed by `cycle & mask` gives
//! O(1) insertion and removal without comparisons. Events further ahead (a rank computing for a long
//! time) go to a binary heap ordered by (cycle, insertion order). Both orders are deterministic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What happens at a cycle. Ids index the engine's flat arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// The head of the packet at the front of a buffer is routed and may request an output.
    HeadReady(u32),
    /// A channel finished sending a packet's tail: the channel is free, the sending buffer has room.
    TransmitDone(u32),
    /// A packet's last phit has been consumed by its destination node.
    Deliver(u32),
    /// The credits for a packet that left a buffer reach the channel feeding it (`credit_delay`).
    CreditReturn(u32),
    /// The first credits of a packet that started leaving a buffer reach the channel feeding it
    /// (`credits = "phit"`): a packet may now borrow the room it frees.
    CreditStream(u32),
    /// A rank finished a computation.
    WakeRank(u32),
    /// A buffer's head planned to be looked at again now (a planned retry, `engine/watch.rs`); stale
    /// when the buffer's plan has changed since.
    Select(u32),
}

/// Timing wheel plus overflow heap.
#[derive(Debug)]
pub struct Wheel {
    buckets: Vec<Vec<Event>>,
    mask: u64,
    now: u64,
    in_wheel: usize,
    overflow: BinaryHeap<Reverse<(u64, u64, Event)>>,
    seq: u64,
}

impl Wheel {
    /// A wheel that holds events up to `horizon` cycles ahead in buckets.
    pub fn new(horizon: u64) -> Self {
        let size = (horizon + 1).next_power_of_two().max(64);
        Wheel {
            buckets: (0..size).map(|_| Vec::new()).collect(),
            mask: size - 1,
            now: 0,
            in_wheel: 0,
            overflow: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// Schedules `event` at cycle `at`, which must be later than now.
    #[inline]
    pub fn schedule(&mut self, at: u64, event: Event) {
        debug_assert!(
            at > self.now,
            "event scheduled at {at}, not after cycle {}",
            self.now
        );
        if self.near(at) {
            self.buckets[(at & self.mask) as usize].push(event);
            self.in_wheel += 1;
        } else {
            self.seq += 1;
            self.overflow.push(Reverse((at, self.seq, event)));
        }
    }

    /// Whether an event scheduled now at cycle `at` (later than now) goes to a bucket, not the
    /// heap: of one cycle's events, the buckets' come out first, each in the order scheduled.
    #[inline]
    pub fn near(&self, at: u64) -> bool {
        at - self.now <= self.mask
    }

    /// Moves every event of the next non-empty cycle into `out` (cleared first) and returns that cycle,
    /// or `None` when nothing is scheduled.
    pub fn pop_cycle(&mut self, out: &mut Vec<Event>) -> Option<u64> {
        out.clear();
        let wheel_at = (self.in_wheel > 0).then(|| {
            let mut t = self.now + 1;
            while self.buckets[(t & self.mask) as usize].is_empty() {
                t += 1;
            }
            t
        });
        let heap_at = self.overflow.peek().map(|Reverse((t, _, _))| *t);
        let at = match (wheel_at, heap_at) {
            (Some(w), Some(h)) => w.min(h),
            (w, h) => w.or(h)?,
        };
        self.now = at;
        if wheel_at == Some(at) {
            std::mem::swap(out, &mut self.buckets[(at & self.mask) as usize]);
            self.in_wheel -= out.len();
        }
        while let Some(Reverse((t, _, e))) = self.overflow.peek().copied() {
            if t != at {
                break;
            }
            self.overflow.pop();
            out.push(e);
        }
        Some(at)
    }

    /// Hands back the vector [`Wheel::pop_cycle`] filled, so its bucket keeps its capacity.
    pub fn recycle(&mut self, mut used: Vec<Event>) {
        used.clear();
        let slot = &mut self.buckets[(self.now & self.mask) as usize];
        if slot.is_empty() && slot.capacity() < used.capacity() {
            std::mem::swap(slot, &mut used);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_come_in_order_fifo_on_ties_with_far_events() {
        let mut w = Wheel::new(20);
        w.schedule(5, Event::Deliver(1));
        w.schedule(3, Event::Deliver(2));
        w.schedule(5, Event::Deliver(3));
        w.schedule(1000, Event::WakeRank(9));
        w.schedule(70, Event::WakeRank(8));
        let mut out = Vec::new();
        assert_eq!(w.pop_cycle(&mut out), Some(3));
        assert_eq!(out, [Event::Deliver(2)]);
        assert_eq!(w.pop_cycle(&mut out), Some(5));
        assert_eq!(out, [Event::Deliver(1), Event::Deliver(3)]);
        w.schedule(6, Event::HeadReady(4));
        assert_eq!(w.pop_cycle(&mut out), Some(6));
        assert_eq!(w.pop_cycle(&mut out), Some(70));
        assert_eq!(w.pop_cycle(&mut out), Some(1000));
        assert_eq!(out, [Event::WakeRank(9)]);
        assert_eq!(w.pop_cycle(&mut out), None);
    }
}
