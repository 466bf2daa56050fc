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

/// The any-source bookkeeping of a program that has such receives.
#[derive(Debug, Default)]
pub(super) struct AnySource {
    /// Posted any-source receives by (rank, tag), oldest first, as request ids.
    posted: AHashMap<(u32, u64), VecDeque<u32>>,
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
        let key = (rank, from, tag);
        let q = self.unexpected.get_mut(&key)?;
        let a = q.pop_front().expect("empty queues are removed");
        if q.is_empty() {
            self.unexpected.remove(&key);
        }
        Some(a)
    }

    /// Queues receive `req` of `rank` for (`from`, `tag`) until a message arrives.
    pub(super) fn post_waiting(&mut self, rank: u32, from: u32, tag: u64, req: u32) {
        match self.any.as_deref_mut() {
            Some(any) if from == ANY_SOURCE => {
                any.posted.entry((rank, tag)).or_default().push_back(req)
            }
            _ => self
                .posted
                .entry((rank, from, tag))
                .or_default()
                .push_back(req),
        }
    }

    /// The posted receive an arrival at `to` from `from` with `tag` completes, if any.
    pub(super) fn take_posted(&mut self, to: u32, from: u32, tag: u64) -> Option<u32> {
        let key = (to, from, tag);
        if let Some(queue) = self.posted.get_mut(&key) {
            let req = queue.pop_front().expect("empty posted queues are removed");
            if queue.is_empty() {
                self.posted.remove(&key);
            }
            return Some(req);
        }
        let any = self.any.as_deref_mut()?;
        let queue = any.posted.get_mut(&(to, tag))?;
        let req = queue.pop_front().expect("empty posted queues are removed");
        if queue.is_empty() {
            any.posted.remove(&(to, tag));
        }
        Some(req)
    }

    /// Keeps an arrival no receive was posted for.
    pub(super) fn keep_unexpected(&mut self, to: u32, from: u32, tag: u64, arrival: Arrival) {
        self.unexpected
            .entry((to, from, tag))
            .or_default()
            .push_back(arrival);
        if let Some(any) = self.any.as_deref_mut() {
            any.arrivals.entry((to, tag)).or_default().push_back(from);
        }
    }
}
