//! The reactive sources of seed 004 §3.1: each rank runs its program, and a consumed message may
//! release the next sends.
//!
//! Sends (and `isend`s, eagerly) never block; a receive blocks until a whole message with the same
//! source and tag has been consumed (messages that arrive before their receive is posted are counted, as
//! MPI's unexpected-message queue holds them); `irecv` posts a receive without blocking and `wait` /
//! `waitall` block until its message has been consumed; a computation blocks for its duration. The engine feeds consumed messages in and
//! turns the [`Step`]s that come out into injected messages and timed wake-ups.

use crate::workload::{Op, Program};
use ahash::AHashMap;
use std::collections::VecDeque;

/// What a rank asks of the engine as it advances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Inject a message.
    Send {
        /// Sending rank.
        from: u32,
        /// Receiving rank.
        to: u32,
        /// Size in bytes.
        bytes: u64,
        /// Tag.
        tag: u32,
    },
    /// Wake `rank` after `cycles`.
    Sleep {
        /// The computing rank.
        rank: u32,
        /// Duration.
        cycles: u64,
    },
}

/// What a rank is blocked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// Running, computing or finished.
    No,
    /// In a blocking receive (its posted request is [`BLOCKING_REQ`]).
    Recv,
    /// In `wait` on this request.
    Req(u32),
    /// In `waitall`.
    All,
}

/// The request id a blocking receive posts under (user handles are rank-local and checked by the
/// trace reader; this one never collides with an outstanding user handle because a rank posts at
/// most one blocking receive at a time and waits on it at once).
const BLOCKING_REQ: u32 = u32::MAX;

/// Program counters and receive matching of every rank.
///
/// Matching follows MPI: a consumed message completes the oldest posted receive (blocking `recv`
/// or `irecv`) of its destination with the same source and tag; if none is posted it waits in the
/// unexpected queue, which a later receive drains first. `isend` is eager: its request completes at
/// once, so only receive requests are ever outstanding.
#[derive(Debug)]
pub struct Ranks<'p> {
    program: &'p Program,
    pc: Vec<u32>,
    block: Vec<Block>,
    /// Posted, unmatched receives by (destination, source, tag), oldest first, as request ids.
    posted: AHashMap<(u32, u32, u32), VecDeque<u32>>,
    /// Outstanding receive requests by (rank, request): their (source, tag).
    pending: AHashMap<(u32, u32), (u32, u32)>,
    /// Outstanding receive requests per rank (what `waitall` waits for).
    outstanding: Vec<u32>,
    /// Consumed messages no receive has matched yet, by (destination, source, tag).
    unexpected: AHashMap<(u32, u32, u32), u32>,
    finished: u32,
}

impl<'p> Ranks<'p> {
    /// Every rank at the start of its program.
    pub fn new(program: &'p Program) -> Self {
        let n = program.ranks() as usize;
        Ranks {
            program,
            pc: vec![0; n],
            block: vec![Block::No; n],
            posted: AHashMap::new(),
            pending: AHashMap::new(),
            outstanding: vec![0; n],
            unexpected: AHashMap::new(),
            finished: 0,
        }
    }

    /// Runs `rank` from its program counter until it blocks or ends, appending what it asks to `out`.
    pub fn advance(&mut self, rank: u32, out: &mut Vec<Step>) {
        let ops = self.program.rank_ops(rank);
        let r = rank as usize;
        while let Some(op) = ops.get(self.pc[r] as usize) {
            self.pc[r] += 1;
            match *op {
                Op::Send { to, bytes, tag } | Op::Isend { to, bytes, tag, .. } => {
                    out.push(Step::Send {
                        from: rank,
                        to,
                        bytes,
                        tag,
                    })
                }
                Op::Recv { from, tag } => {
                    if !self.post(rank, from, tag, BLOCKING_REQ) {
                        self.block[r] = Block::Recv;
                        return;
                    }
                }
                Op::Irecv { from, tag, req } => {
                    self.post(rank, from, tag, req);
                }
                Op::Wait { req } => {
                    if self.pending.contains_key(&(rank, req)) {
                        self.block[r] = Block::Req(req);
                        return;
                    }
                }
                Op::WaitAll => {
                    if self.outstanding[r] > 0 {
                        self.block[r] = Block::All;
                        return;
                    }
                }
                Op::Compute { cycles: 0 } => {}
                Op::Compute { cycles } => {
                    out.push(Step::Sleep { rank, cycles });
                    return;
                }
            }
        }
        self.finished += 1;
    }

    /// Posts receive `req` at `rank`; returns true if an unexpected message completed it at once.
    fn post(&mut self, rank: u32, from: u32, tag: u32, req: u32) -> bool {
        if self.take_unexpected(rank, from, tag) {
            return true;
        }
        self.posted
            .entry((rank, from, tag))
            .or_default()
            .push_back(req);
        self.pending.insert((rank, req), (from, tag));
        self.outstanding[rank as usize] += 1;
        false
    }

    fn take_unexpected(&mut self, rank: u32, from: u32, tag: u32) -> bool {
        match self.unexpected.get_mut(&(rank, from, tag)) {
            Some(count) if *count > 1 => {
                *count -= 1;
                true
            }
            Some(_) => {
                self.unexpected.remove(&(rank, from, tag));
                true
            }
            None => false,
        }
    }

    /// A message from `from` with `tag` has been consumed at `to`. Returns true if it released `to`
    /// from a blocking receive, `wait` or `waitall` (the caller then advances it).
    pub fn consume(&mut self, to: u32, from: u32, tag: u32) -> bool {
        let key = (to, from, tag);
        let Some(queue) = self.posted.get_mut(&key) else {
            *self.unexpected.entry(key).or_insert(0) += 1;
            return false;
        };
        let req = queue.pop_front().expect("empty posted queues are removed");
        if queue.is_empty() {
            self.posted.remove(&key);
        }
        self.pending.remove(&(to, req));
        let t = to as usize;
        self.outstanding[t] -= 1;
        let released = match self.block[t] {
            Block::Recv => req == BLOCKING_REQ,
            Block::Req(r) => r == req,
            Block::All => self.outstanding[t] == 0,
            Block::No => false,
        };
        if released {
            self.block[t] = Block::No;
        }
        released
    }

    /// Number of ranks.
    pub fn count(&self) -> u32 {
        self.pc.len() as u32
    }

    /// Ranks that reached the end of their program.
    pub fn finished(&self) -> u32 {
        self.finished
    }

    /// Ranks blocked in a receive, `wait` or `waitall`: (rank, source, tag) of a message it waits for
    /// (for `waitall`, the smallest outstanding (source, tag), so reports are deterministic).
    pub fn blocked(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.block.iter().enumerate().filter_map(|(r, b)| {
            let rank = r as u32;
            let (from, tag) = match *b {
                Block::No => return None,
                Block::Recv => self.pending.get(&(rank, BLOCKING_REQ)).copied()?,
                Block::Req(req) => self.pending.get(&(rank, req)).copied()?,
                Block::All => self
                    .pending
                    .iter()
                    .filter(|((owner, _), _)| *owner == rank)
                    .map(|(_, v)| *v)
                    .min()?,
            };
            Some((rank, from, tag))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn irecv(from: u32, tag: u32, req: u32) -> Op {
        Op::Irecv { from, tag, req }
    }

    /// Rank 1 runs `ops`; ranks 0 and 2 do nothing.
    fn program(ops: Vec<Op>) -> Program {
        Program::from_fn(3, |r, out| {
            if r == 1 {
                out.extend(ops.iter().copied())
            }
        })
    }

    #[test]
    fn posted_receives_match_in_posting_order() {
        // Two irecvs for the same (source, tag), then a wait on the second: the first message
        // completes the first request, so only the second message releases the wait.
        let p = program(vec![irecv(0, 5, 1), irecv(0, 5, 2), Op::Wait { req: 2 }]);
        let mut ranks = Ranks::new(&p);
        let mut out = Vec::new();
        ranks.advance(1, &mut out);
        assert_eq!(ranks.blocked().collect::<Vec<_>>(), [(1, 0, 5)]);
        assert!(!ranks.consume(1, 0, 5));
        assert!(ranks.consume(1, 0, 5));
        ranks.advance(1, &mut out);
        assert_eq!(ranks.blocked().count(), 0);
        // A blocking receive posted after an irecv of the same source and tag gets the second message.
        let p = program(vec![
            irecv(0, 5, 1),
            Op::Recv { from: 0, tag: 5 },
            Op::Wait { req: 1 },
        ]);
        let mut ranks = Ranks::new(&p);
        ranks.advance(1, &mut out);
        assert!(
            !ranks.consume(1, 0, 5),
            "the first message completes the irecv"
        );
        assert!(ranks.consume(1, 0, 5), "the second releases the receive");
        ranks.advance(1, &mut out);
        assert_eq!(
            ranks.blocked().count(),
            0,
            "the wait finds its request complete"
        );
        assert_eq!(out, []);
    }

    #[test]
    fn unexpected_messages_complete_later_receives_and_isend_is_eager() {
        let p = program(vec![
            Op::Isend {
                to: 2,
                bytes: 8,
                tag: 3,
                req: 7,
            },
            Op::Wait { req: 7 },
            irecv(0, 1, 1),
            Op::Wait { req: 1 },
        ]);
        let mut ranks = Ranks::new(&p);
        assert!(!ranks.consume(1, 0, 1), "no receive posted yet: unexpected");
        let mut out = Vec::new();
        ranks.advance(1, &mut out);
        assert_eq!(
            out,
            [Step::Send {
                from: 1,
                to: 2,
                bytes: 8,
                tag: 3
            }]
        );
        assert_eq!(ranks.blocked().count(), 0);
        assert_eq!(ranks.finished(), 1);
    }

    #[test]
    fn waitall_waits_for_every_outstanding_receive() {
        let p = program(vec![irecv(0, 0, 1), irecv(2, 4, 2), Op::WaitAll]);
        let mut ranks = Ranks::new(&p);
        let mut out = Vec::new();
        ranks.advance(1, &mut out);
        assert_eq!(ranks.blocked().collect::<Vec<_>>(), [(1, 0, 0)]);
        assert!(!ranks.consume(1, 0, 0));
        assert_eq!(ranks.blocked().collect::<Vec<_>>(), [(1, 2, 4)]);
        assert!(!ranks.consume(1, 0, 9), "another tag is unexpected");
        assert!(ranks.consume(1, 2, 4));
        ranks.advance(1, &mut out);
        assert_eq!(ranks.finished(), 1);
    }
}
