//! The reactive sources of seed 004 §3.1: each rank runs its program, and a consumed message may
//! release the next sends.
//!
//! Sends never block; a receive blocks until a whole message with the same source and tag has been
//! consumed (messages that arrive before their receive is posted are counted, as MPI's unexpected-message
//! queue holds them); a computation blocks for its duration. The engine feeds consumed messages in and
//! turns the [`Step`]s that come out into injected messages and timed wake-ups.

use crate::workload::{Op, Program};
use ahash::AHashMap;

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

const NOT_BLOCKED: (u32, u32) = (u32::MAX, u32::MAX);

/// Program counters and receive matching of every rank.
#[derive(Debug)]
pub struct Ranks<'p> {
    program: &'p Program,
    pc: Vec<u32>,
    /// (source, tag) a rank is blocked on, or `NOT_BLOCKED`.
    blocked: Vec<(u32, u32)>,
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
            blocked: vec![NOT_BLOCKED; n],
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
                Op::Send { to, bytes, tag } => out.push(Step::Send {
                    from: rank,
                    to,
                    bytes,
                    tag,
                }),
                Op::Recv { from, tag } => {
                    if !self.take_unexpected(rank, from, tag) {
                        self.blocked[r] = (from, tag);
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

    /// A message from `from` with `tag` has been consumed at `to`. Returns true if it released `to`'s
    /// blocked receive (the caller then advances it).
    pub fn consume(&mut self, to: u32, from: u32, tag: u32) -> bool {
        if self.blocked[to as usize] == (from, tag) {
            self.blocked[to as usize] = NOT_BLOCKED;
            true
        } else {
            *self.unexpected.entry((to, from, tag)).or_insert(0) += 1;
            false
        }
    }

    /// Number of ranks.
    pub fn count(&self) -> u32 {
        self.pc.len() as u32
    }

    /// Ranks that reached the end of their program.
    pub fn finished(&self) -> u32 {
        self.finished
    }

    /// Ranks blocked in a receive: (rank, source, tag).
    pub fn blocked(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.blocked
            .iter()
            .enumerate()
            .filter(|(_, b)| **b != NOT_BLOCKED)
            .map(|(r, &(s, t))| (r as u32, s, t))
    }
}
