//! What a blocked rank waits for: the state a rank enters when it blocks (with the timeline's
//! activity for it), and the (rank, peer, tag) of every blocked rank that a deadlock report reads.
//! A child of `runtime.rs`, since both read the ranks' requests.

use super::{BLOCKING_REQ, Block, Pending, Ranks};
use crate::mpi::observe::Activity;
use crate::program::Op;

impl<'p> Ranks<'p> {
    /// `rank` blocks now on `block`.
    pub(super) fn wait_on(&mut self, rank: u32, block: Block) {
        self.block[rank as usize] = block;
        self.blocked_since[rank as usize] = self.now;
        if self.watch.as_ref().is_some_and(|w| w.observer.is_some()) {
            let pending = |req| match self.pending.get(rank, req) {
                Some(&Pending::Recv { from, tag } | &Pending::Data { from, tag }) => {
                    Activity::Recv { from, tag }
                }
                Some(&Pending::Send { to, tag }) => Activity::Send { to, tag },
                Some(Pending::Schedule) => match self.schedule_waits(rank, Some(req)) {
                    Some((from, tag)) => Activity::Recv { from, tag },
                    None => Activity::WaitAll { requests: 1 },
                },
                None => Activity::WaitAll { requests: 0 },
            };
            let what = match block {
                Block::Recv => pending(BLOCKING_REQ),
                Block::Req { req, .. } => pending(req),
                Block::Any { len, .. } => Activity::WaitAll { requests: len },
                Block::All | Block::Drain | Block::No => Activity::WaitAll {
                    requests: self.outstanding[rank as usize],
                },
            };
            if let Some(w) = self.watch.as_deref_mut() {
                w.blocked_on[rank as usize] = what;
            }
        }
    }

    /// A waitany of `rank` over the `len` `Wait`s from op `first`: returns true if the rank blocks
    /// (none of its requests has completed yet).
    pub(super) fn wait_any(&mut self, rank: u32, first: u32, len: u32) -> bool {
        if self
            .any_of(rank, first, len)
            .any(|req| !self.pending.contains(rank, req))
        {
            return false;
        }
        self.wait_on(rank, Block::Any { first, len });
        true
    }

    /// The requests of `rank`'s waitany over the `len` `Wait`s from op `first`.
    pub(super) fn any_of(
        &self,
        rank: u32,
        first: u32,
        len: u32,
    ) -> impl Iterator<Item = u32> + use<'p> {
        let ops = self.program.rank_ops(rank);
        let listed = ops.get(first as usize..).unwrap_or_default();
        listed.iter().take(len as usize).filter_map(|op| match *op {
            Op::Wait { req } => Some(req),
            _ => None,
        })
    }

    /// The peer and tag of what request `req` of `rank` waits for; a non-blocking collective's
    /// request waits for what its schedule's current receive does.
    fn waits_for(&self, rank: u32, req: u32) -> Option<(u32, u64)> {
        match *self.pending.get(rank, req)? {
            Pending::Recv { from, tag } | Pending::Data { from, tag } => Some((from, tag)),
            Pending::Send { to, tag } => Some((to, tag)),
            Pending::Schedule => self.schedule_waits(rank, Some(req)),
        }
    }

    /// Ranks blocked in a receive, a `wait`, `waitall` or at their end waiting for their
    /// non-blocking collectives: (rank, peer, tag) of a message it waits for (for `waitall`, the
    /// smallest outstanding one, so reports are deterministic).
    pub fn blocked(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        self.block.iter().enumerate().filter_map(move |(r, b)| {
            let rank = r as u32;
            let (from, tag) = match *b {
                Block::No => return None,
                Block::Recv => self.waits_for(rank, BLOCKING_REQ)?,
                Block::Req { req, .. } => self.waits_for(rank, req)?,
                Block::All => (self.pending.of_rank(rank))
                    .filter_map(|p| match *p {
                        Pending::Recv { from, tag } | Pending::Data { from, tag } => {
                            Some((from, tag))
                        }
                        Pending::Send { to, tag } => Some((to, tag)),
                        Pending::Schedule => None,
                    })
                    .min()
                    .or_else(|| self.schedule_waits(rank, None))?,
                Block::Any { first, len } => (self.any_of(rank, first, len))
                    .filter_map(|req| self.waits_for(rank, req))
                    .min()?,
                Block::Drain => self.schedule_waits(rank, None)?,
            };
            Some((rank, from, tag))
        })
    }
}
