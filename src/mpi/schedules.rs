//! The runtime's schedules: non-blocking collectives ([`Op::Schedule`]) run beside their rank's
//! program, as an asynchronous progress engine (a progress thread, or a NIC that runs collective
//! schedules) runs them. MPI only requires collectives to be *started* in the same order on every
//! member of a communicator; a started one makes progress whatever its rank does, so completing
//! them in different orders on different ranks, or waiting for a message between the start and the
//! wait, must not deadlock.
//!
//! - A schedule **starts** where its rank's program reaches it (where the trace posts the
//!   collective): its request is outstanding from then on, and the rank goes past its ops at once.
//! - Its ops run in the blocking algorithm's order, each once the one before it is done: a send is
//!   issued at once (it never blocks, as in the blocking algorithm), a receive is posted under the
//!   schedule's receive request and the schedule goes on once that has its data. So each step is
//!   issued as soon as the receives it follows have completed, whether the rank is computing,
//!   blocked in another call, or finished.
//! - The request **completes** when the last op has. A rank whose program ends with schedules
//!   still running waits for them (MPI_Finalize), and the time is booked as waiting.
//! - Schedules take no CPU time and never delay their rank's own ops; a self-message inside one
//!   costs no copy time.

use super::{BLOCKING_REQ, Block, Pending, Ranks};
use crate::network::Step;
use crate::program::Op;

/// One running schedule of a rank.
#[derive(Debug, Clone, Copy)]
struct Running {
    /// Index of its next op in the rank's ops, and one past its last.
    next: u32,
    end: u32,
    /// The collective's request, and the request its receives post under.
    req: u32,
    recv: u32,
}

/// The running schedules of every rank (made at the first schedule a program starts, so programs
/// without non-blocking collectives pay nothing).
#[derive(Debug)]
pub(super) struct Schedules {
    by_rank: Vec<Vec<Running>>,
}

impl Ranks<'_> {
    /// Starts the schedule of `len` ops from op `first` of `rank`, under request `req`, its
    /// receives under `recv`, and runs it until it waits for a receive or ends.
    pub(super) fn start_schedule(
        &mut self,
        rank: u32,
        first: u32,
        len: u32,
        (req, recv): (u32, u32),
        out: &mut Vec<Step>,
    ) {
        let n = self.count() as usize;
        let s = self.schedules.get_or_insert_with(|| {
            Box::new(Schedules {
                by_rank: vec![Vec::new(); n],
            })
        });
        s.by_rank[rank as usize].push(Running {
            next: first,
            end: first.saturating_add(len),
            req,
            recv,
        });
        self.pending.insert(rank, req, Pending::Schedule);
        self.outstanding[rank as usize] += 1;
        // The rank is running: the schedule's end cannot release it.
        self.run_schedule(rank, recv, out);
    }

    /// Whether `rank` has schedules running.
    pub(super) fn schedules_running(&self, rank: u32) -> bool {
        self.schedules
            .as_ref()
            .is_some_and(|s| !s.by_rank[rank as usize].is_empty())
    }

    /// Request `req` of `rank` completed without releasing the rank: if it is a schedule's
    /// receive, the schedule goes on. Returns true if that released the rank (its wait on the
    /// collective, or its end waiting for its schedules).
    pub(super) fn resume_schedule(&mut self, rank: u32, req: u32, out: &mut Vec<Step>) -> bool {
        let s = self.schedules.as_ref().expect("checked by the caller");
        if !s.by_rank[rank as usize].iter().any(|x| x.recv == req) {
            return false;
        }
        self.run_schedule(rank, req, out)
    }

    /// Runs `rank`'s schedule whose receives post under `recv` until it waits for a receive or
    /// ends. The schedule is looked up again after every op: a self-message may let another of
    /// the rank's schedules end meanwhile.
    fn run_schedule(&mut self, rank: u32, recv: u32, out: &mut Vec<Step>) -> bool {
        let ops = self.program.rank_ops(rank);
        let r = rank as usize;
        let find = |s: &mut Schedules| {
            let list = &mut s.by_rank[r];
            let i = list.iter().position(|x| x.recv == recv).expect("running");
            (i, list[i])
        };
        loop {
            let (i, run) = find(self.schedules.as_deref_mut().expect("running"));
            if run.next >= run.end {
                self.schedules.as_deref_mut().expect("running").by_rank[r].swap_remove(i);
                let released =
                    self.pending.contains(rank, run.req) && self.complete(rank, run.req, out);
                return released || self.drained(rank);
            }
            self.schedules.as_deref_mut().expect("running").by_rank[r][i].next += 1;
            match ops[run.next as usize] {
                Op::Send { to, bytes, tag } => {
                    self.send(rank, to, bytes, tag, BLOCKING_REQ, false, out);
                }
                Op::Recv { from, tag } => {
                    if !self.post(rank, from, tag, recv, out) {
                        return false;
                    }
                }
                other => unreachable!("a validated schedule holds no {other:?}"),
            }
        }
    }

    /// Whether `rank`, at its end waiting for its schedules, has none left and is released.
    fn drained(&mut self, rank: u32) -> bool {
        if self.block[rank as usize] != Block::Drain || self.schedules_running(rank) {
            return false;
        }
        self.release(rank);
        true
    }

    /// The peer and tag of the receive that `rank`'s schedule of request `req` (any of its
    /// schedules: `None`) waits for.
    pub(super) fn schedule_waits(&self, rank: u32, req: Option<u32>) -> Option<(u32, u64)> {
        let list = &self.schedules.as_ref()?.by_rank[rank as usize];
        list.iter()
            .filter(|x| req.is_none_or(|q| q == x.req))
            .find_map(|x| match *self.pending.get(rank, x.recv)? {
                Pending::Recv { from, tag } | Pending::Data { from, tag } => Some((from, tag)),
                Pending::Send { .. } | Pending::Schedule => None,
            })
    }
}
