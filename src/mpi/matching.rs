//! The runtime's receive queues: posted receives and unexpected arrivals, with the receives of
//! any source that formats without statuses leave to the replay (SimGrid's `-333`).
//!
//! A receive for a source takes the oldest unexpected arrival from that source and tag, else waits
//! in the posted queue of (rank, source, tag). A receive of any source ([`ANY_SOURCE`]) takes the
//! *earliest arrived* unexpected message with its tag, from whichever source, else waits in the
//! rank's any-source queue for that tag. An arrival matches the oldest posted receive for its
//! source and tag, and only when there is none the oldest posted any-source receive: a documented
//! simplification of MPI, which would give it to whichever of the two was posted first (SimGrid's
//! own replay cannot replay these receives at all). The arrival-order index is kept only for
//! programs that have any-source receives, so other programs pay nothing.

use super::{Arrival, Ranks};
use crate::program::{ANY_SOURCE, Op, Program};
use ahash::AHashMap;
use std::collections::VecDeque;
use std::collections::hash_map::Entry;
use std::hash::Hash;

/// A non-empty FIFO queue that holds its first entry inline: most (rank, source, tag) keys have one
/// receive or one arrival waiting at a time, so a queue costs no allocation until a second one
/// waits behind it, and a map bucket only a pointer more than the entry.
#[derive(Debug, Clone)]
pub(super) struct Fifo<T> {
    head: T,
    /// Boxed on purpose: a pointer in every bucket instead of a `VecDeque`'s four words.
    #[allow(clippy::box_collection)]
    rest: Option<Box<VecDeque<T>>>,
}

/// Appends `value` to `key`'s queue in `map` (making the queue if `key` has none).
pub(super) fn push<K: Hash + Eq, T>(map: &mut AHashMap<K, Fifo<T>>, key: K, value: T) {
    match map.entry(key) {
        Entry::Occupied(mut e) => e.get_mut().rest.get_or_insert_default().push_back(value),
        Entry::Vacant(e) => {
            e.insert(Fifo {
                head: value,
                rest: None,
            });
        }
    }
}

/// Takes the oldest entry of `key`'s queue in `map`, removing the queue when it empties.
pub(super) fn pop<K: Hash + Eq, T: Copy>(map: &mut AHashMap<K, Fifo<T>>, key: &K) -> Option<T> {
    let q = map.get_mut(key)?;
    let oldest = q.head;
    match q.rest.as_mut().and_then(|rest| rest.pop_front()) {
        Some(next) => q.head = next,
        None => {
            map.remove(key);
        }
    }
    Some(oldest)
}

/// FIFO queues by (rank, source, tag): the posted receives and the unexpected arrivals.
///
/// A rank mostly has one receive or one arrival waiting at a time, so each rank's first entry
/// lives in a flat per-rank slot, read by rank id without hashing (on a 2^20-rank run the queues
/// are far larger than the cache, and a hash map's probe costs more misses than one slot). An
/// entry that finds its rank's slot taken goes to a hash map of [`Fifo`]s. The slot always holds
/// the oldest entry of its key: it is filled only when the map holds nothing of that key, and
/// later entries of the key queue in the map behind it.
#[derive(Debug)]
pub(super) struct RankQueues<T> {
    slots: Vec<Slot<T>>,
    spill: AHashMap<(u32, u32, u64), Fifo<T>>,
}

/// One rank's inline entry.
#[derive(Debug, Clone, Copy)]
struct Slot<T> {
    tag: u64,
    from: u32,
    /// Entries of this rank in the spill map (none: the map need not be asked).
    spilled: u32,
    /// The oldest entry of (`from`, `tag`), if the slot holds one.
    value: Option<T>,
}

impl<T: Copy> RankQueues<T> {
    /// Empty queues for `ranks` ranks.
    pub(super) fn new(ranks: u32) -> Self {
        let empty = Slot {
            tag: 0,
            from: 0,
            spilled: 0,
            value: None,
        };
        RankQueues {
            slots: vec![empty; ranks as usize],
            spill: AHashMap::new(),
        }
    }

    /// Appends `value` to the queue of (`rank`, `from`, `tag`).
    pub(super) fn push(&mut self, rank: u32, from: u32, tag: u64, value: T) {
        let slot = &mut self.slots[rank as usize];
        let key = (rank, from, tag);
        if slot.value.is_none() && (slot.spilled == 0 || !self.spill.contains_key(&key)) {
            (slot.tag, slot.from, slot.value) = (tag, from, Some(value));
            return;
        }
        slot.spilled += 1;
        push(&mut self.spill, key, value);
    }

    /// Takes the oldest entry of the queue of (`rank`, `from`, `tag`).
    pub(super) fn pop(&mut self, rank: u32, from: u32, tag: u64) -> Option<T> {
        let slot = &mut self.slots[rank as usize];
        if slot.value.is_some() && slot.from == from && slot.tag == tag {
            return slot.value.take();
        }
        if slot.spilled == 0 {
            return None;
        }
        let value = pop(&mut self.spill, &(rank, from, tag))?;
        slot.spilled -= 1;
        Some(value)
    }
}

/// The any-source bookkeeping of a program that has such receives.
#[derive(Debug, Default)]
pub(super) struct AnySource {
    /// Posted any-source receives by (rank, tag), oldest first, as request ids.
    posted: AHashMap<(u32, u64), Fifo<u32>>,
    /// The sources of the unexpected arrivals by (rank, tag), in arrival order.
    arrivals: AHashMap<(u32, u64), VecDeque<u32>>,
}

impl AnySource {
    /// The bookkeeping `program` needs: `None` when no receive takes any source.
    pub(super) fn needed(program: &Program) -> Option<Box<AnySource>> {
        (0..program.ranks())
            .any(|r| {
                program.rank_ops(r).iter().any(|op| {
                    matches!(op, Op::Recv { from, .. } | Op::Irecv { from, .. } if *from == ANY_SOURCE)
                })
            })
            .then(Box::default)
    }
}

impl Ranks<'_> {
    /// The arrival a receive of `rank` for (`from`, `tag`) takes now, with its actual source:
    /// the oldest from `from`, or for [`ANY_SOURCE`] the earliest arrived with `tag`.
    pub(super) fn take_unexpected(
        &mut self,
        rank: u32,
        from: u32,
        tag: u64,
    ) -> Option<(u32, Arrival)> {
        if from == ANY_SOURCE {
            let any = self.any.as_deref_mut()?;
            let q = any.arrivals.get_mut(&(rank, tag))?;
            let src = q.pop_front().expect("empty queues are removed");
            if q.is_empty() {
                any.arrivals.remove(&(rank, tag));
            }
            return self.pop_unexpected(rank, src, tag).map(|a| (src, a));
        }
        let a = self.pop_unexpected(rank, from, tag)?;
        if let Some(any) = self.any.as_deref_mut()
            && let Some(q) = any.arrivals.get_mut(&(rank, tag))
        {
            // This source's oldest arrival with `tag` is the first of its entries in arrival order.
            if let Some(i) = q.iter().position(|&s| s == from) {
                q.remove(i);
            }
            if q.is_empty() {
                any.arrivals.remove(&(rank, tag));
            }
        }
        Some((from, a))
    }

    fn pop_unexpected(&mut self, rank: u32, from: u32, tag: u64) -> Option<Arrival> {
        self.unexpected.pop(rank, from, tag)
    }

    /// Queues receive `req` of `rank` for (`from`, `tag`) until a message arrives.
    pub(super) fn post_waiting(&mut self, rank: u32, from: u32, tag: u64, req: u32) {
        match self.any.as_deref_mut() {
            Some(any) if from == ANY_SOURCE => push(&mut any.posted, (rank, tag), req),
            _ => self.posted.push(rank, from, tag, req),
        }
    }

    /// The posted receive an arrival at `to` from `from` with `tag` completes, if any.
    pub(super) fn take_posted(&mut self, to: u32, from: u32, tag: u64) -> Option<u32> {
        if let Some(req) = self.posted.pop(to, from, tag) {
            return Some(req);
        }
        pop(&mut self.any.as_deref_mut()?.posted, &(to, tag))
    }

    /// Keeps an arrival no receive was posted for.
    pub(super) fn keep_unexpected(&mut self, to: u32, from: u32, tag: u64, arrival: Arrival) {
        self.unexpected.push(to, from, tag, arrival);
        if let Some(any) = self.any.as_deref_mut() {
            any.arrivals.entry((to, tag)).or_default().push_back(from);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries come out oldest first, across the inline head and the queue behind it, and a key's
    /// queue is gone once it is empty.
    #[test]
    fn a_fifo_hands_out_oldest_first_and_empties_its_key() {
        let mut map: AHashMap<u32, Fifo<u32>> = AHashMap::new();
        for v in [10, 11, 12] {
            push(&mut map, 7, v);
        }
        push(&mut map, 8, 20);
        assert_eq!(pop(&mut map, &7), Some(10));
        push(&mut map, 7, 13);
        assert_eq!(
            [pop(&mut map, &7), pop(&mut map, &7), pop(&mut map, &7)],
            [Some(11), Some(12), Some(13)]
        );
        assert_eq!(pop(&mut map, &7), None);
        assert!(!map.contains_key(&7));
        assert_eq!((pop(&mut map, &8), map.len()), (Some(20), 0));
    }

    /// Random pushes and pops over a few ranks, sources (any-source among them) and tags give the
    /// same entries, in the same order, as one plain FIFO per key, and leave nothing behind.
    #[test]
    fn rank_queues_are_one_fifo_per_key() {
        let mut rng = crate::rng::Rng::new(7);
        let mut queues: RankQueues<u32> = RankQueues::new(3);
        let mut reference: AHashMap<(u32, u32, u64), VecDeque<u32>> = AHashMap::new();
        let sources = [0, 1, 2, ANY_SOURCE];
        for step in 0..20_000u32 {
            let rank = rng.below(3);
            let from = sources[rng.below(4) as usize];
            let tag = u64::from(rng.below(2));
            if rng.below(2) == 0 {
                queues.push(rank, from, tag, step);
                reference
                    .entry((rank, from, tag))
                    .or_default()
                    .push_back(step);
            } else {
                let want = reference
                    .get_mut(&(rank, from, tag))
                    .and_then(|q| q.pop_front());
                assert_eq!(queues.pop(rank, from, tag), want, "step {step}");
            }
        }
        for ((rank, from, tag), q) in reference {
            for want in q {
                assert_eq!(queues.pop(rank, from, tag), Some(want));
            }
            assert_eq!(queues.pop(rank, from, tag), None);
        }
        assert!(queues.spill.is_empty());
        assert!(
            queues
                .slots
                .iter()
                .all(|s| s.value.is_none() && s.spilled == 0)
        );
    }
}
