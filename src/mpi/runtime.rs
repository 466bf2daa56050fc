//! The MPI runtime: the engine's driver for rank programs (seed 004 §3.1's reactive sources, with MPI's
//! matching, requests and protocols).
//!
//! - **Matching** follows MPI: an arriving message (eager data, or a rendezvous request-to-send) matches
//!   the oldest posted receive of its destination with the same source and matching tag; if none is
//!   posted it waits in the unexpected queue, which a later receive drains first, in arrival order.
//! - **Eager** (`bytes <= eager_threshold`, or every message under `protocol=eager`): the data leaves at
//!   once and the send request is complete.
//! - **Rendezvous** (larger messages under `protocol=rendezvous`, and every synchronous send): the
//!   sender injects a request-to-send of `control_bytes`; once the receive is posted and matched, the
//!   receiver injects a clear-to-send of `control_bytes`; when it arrives the sender injects the data;
//!   the receive and the send request complete when the data has been consumed at the receiver (MPI's
//!   standard mode: an unbuffered send "will not complete until a matching receive has been posted,
//!   and the data has been moved to the receiver"; SimGrid's SMPI completes its sends above the
//!   detached threshold alike).
//! - **Self-messages** never enter the network: the send delivers locally at once and costs the rank
//!   `self_copy` cycles per byte (0 by default).
//! - **Non-blocking collectives** run their schedules beside the rank's program, as an asynchronous
//!   progress engine does (`schedules.rs`); an unrecorded waitany takes the first of its requests to
//!   complete (`blocked.rs`).
//! - **Time**: every rank's time is computing (`Compute`, after `compute_scale`), sending (blocked in a
//!   wait on a send request) or waiting (blocked in a receive, a wait on a receive or a collective,
//!   `waitall`, `waitany`, or at its end for its running schedules);
//!   their sum is the rank's finishing cycle, since nothing else takes time.

use crate::network::{Consumed, Driver, NO_NOTE, Step};
use crate::program::MpiModel;
use crate::program::{Op, Program};

#[path = "watch.rs"]
mod watch;
use watch::Watch;
#[path = "blocked.rs"]
mod blocked;
#[path = "graph_run.rs"]
mod graph_run;
#[path = "matching.rs"]
mod matching;
#[path = "requests.rs"]
mod requests;
#[path = "schedules.rs"]
mod schedules;

pub use super::replay_stats::{MessageLatency, MpiStats, TimeSplit};

/// The request id a blocking receive posts under (lowering hands out ids below `u32::MAX - 1`).
const BLOCKING_REQ: u32 = u32::MAX;

/// Tokens with this bit are protocol messages; without it, the token is the eager message's tag
/// (matching tags use at most 63 bits: a context below 2^31 and a 32-bit tag).
const PROTOCOL: u64 = 1 << 63;
const RTS: u64 = PROTOCOL;
const CTS: u64 = PROTOCOL | 1 << 62;
const DATA: u64 = PROTOCOL | 1 << 61;
const KIND: u64 = RTS | CTS | DATA;

/// What a rank is blocked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// Running, computing or finished.
    No,
    /// In a blocking receive.
    Recv,
    /// In `wait` on this request; `send` if it is a send request.
    Req { req: u32, send: bool },
    /// In `waitall`.
    All,
    /// In a waitany over the `len` `Wait`s from op `first`.
    Any { first: u32, len: u32 },
    /// At the end of its program, waiting for its schedules (non-blocking collectives) to end.
    Drain,
}

/// An outstanding request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// A receive posted for (source, tag), not yet matched.
    Recv { from: u32, tag: u64 },
    /// A receive matched by a request-to-send, waiting for its data.
    Data { from: u32, tag: u64 },
    /// A send waiting for its clear-to-send.
    Send { to: u32, tag: u64 },
    /// A non-blocking collective whose schedule runs (`schedules.rs`).
    Schedule,
}

/// What arrived before its receive was posted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrival {
    Eager,
    Rts(u32),
}

/// One rendezvous in progress.
#[derive(Debug, Clone, Copy)]
struct Rendezvous {
    from: u32,
    to: u32,
    bytes: u64,
    tag: u64,
    /// The sender's request, or `BLOCKING_REQ` for a send nobody waits on.
    send_req: u32,
    /// The receiver's request once matched.
    recv_req: u32,
    /// Cycle the send was posted (its request-to-send issued), for the message's latency.
    posted_at: u64,
}

/// Program counters, matching and protocols of every rank.
#[derive(Debug)]
pub struct Ranks<'p> {
    program: &'p Program,
    model: MpiModel,
    now: u64,
    pc: Vec<u32>,
    block: Vec<Block>,
    blocked_since: Vec<u64>,
    compute: Vec<u64>,
    sending: Vec<u64>,
    waiting: Vec<u64>,
    /// Posted, unmatched receives by (destination, source, tag), oldest first, as request ids.
    posted: matching::RankQueues<u32>,
    /// Outstanding requests by (rank, request).
    pending: requests::Requests<Pending>,
    /// Outstanding requests per rank (what `waitall` waits for).
    outstanding: Vec<u32>,
    /// Arrivals no receive has matched yet, by (destination, source, tag), oldest first.
    unexpected: matching::RankQueues<Arrival>,
    rendezvous: Vec<Rendezvous>,
    free_rendezvous: Vec<u32>,
    stats: MpiStats,
    finished: u32,
    /// Instruments for the timeline and the critical path; `None`: no cost.
    watch: Option<Box<Watch<'p>>>,
    /// Dependency bookkeeping when the program is a graph (`graph_run.rs`).
    graph: Option<Box<graph_run::GraphState>>,
    /// Any-source receive queues, for programs that have such receives (`matching.rs`).
    any: Option<Box<matching::AnySource>>,
    /// The running schedules of non-blocking collectives, from the first one started.
    schedules: Option<Box<schedules::Schedules>>,
}

impl<'p> Ranks<'p> {
    /// Every rank at the start of its program, under the program's MPI model.
    pub fn new(program: &'p Program) -> Self {
        let n = program.ranks() as usize;
        Ranks {
            program,
            model: *program.mpi(),
            now: 0,
            pc: vec![0; n],
            block: vec![Block::No; n],
            blocked_since: vec![0; n],
            compute: vec![0; n],
            sending: vec![0; n],
            waiting: vec![0; n],
            posted: matching::RankQueues::new(program.ranks()),
            pending: requests::Requests::new(program.ranks()),
            outstanding: vec![0; n],
            unexpected: matching::RankQueues::new(program.ranks()),
            rendezvous: Vec::new(),
            free_rendezvous: Vec::new(),
            stats: MpiStats::default(),
            finished: 0,
            watch: None,
            graph: program
                .graph()
                .map(|g| Box::new(graph_run::GraphState::new(g))),
            any: matching::AnySource::needed(program),
            schedules: None,
        }
    }

    /// Starts `rank` at cycle `now` (a job launched after cycle 0, or at 0 by a driver of several
    /// programs): what [`Driver::start`] does for each rank, at any cycle and in graph mode too.
    pub fn begin(&mut self, now: u64, rank: u32, out: &mut Vec<Step>) {
        self.now = now;
        let mark = out.len();
        self.advance(rank, out);
        self.track_issued(mark, out);
    }

    /// Runs `rank` from its program counter until it blocks or ends, appending what it asks to `out`.
    pub fn advance(&mut self, rank: u32, out: &mut Vec<Step>) {
        if self.graph.is_some() {
            return self.advance_graph(rank, out);
        }
        let ops = self.program.rank_ops(rank);
        let r = rank as usize;
        while let Some(op) = ops.get(self.pc[r] as usize) {
            if self.watch.is_some() {
                self.regions_at(rank);
            }
            self.pc[r] += 1;
            let sleep = match *op {
                Op::Send { to, bytes, tag } => {
                    self.send(rank, to, bytes, tag, BLOCKING_REQ, false, out)
                }
                Op::Isend {
                    to,
                    bytes,
                    tag,
                    req,
                } => self.send(rank, to, bytes, tag, req, false, out),
                Op::Issend {
                    to,
                    bytes,
                    tag,
                    req,
                } => self.send(rank, to, bytes, tag, req, true, out),
                Op::Recv { from, tag } => {
                    if !self.post(rank, from, tag, BLOCKING_REQ, out) {
                        self.wait_on(rank, Block::Recv);
                        return;
                    }
                    0
                }
                Op::Irecv { from, tag, req } => {
                    self.post(rank, from, tag, req, out);
                    0
                }
                Op::Wait { req } => {
                    if let Some(p) = self.pending.get(rank, req) {
                        let send = matches!(p, Pending::Send { .. });
                        self.wait_on(rank, Block::Req { req, send });
                        return;
                    }
                    0
                }
                Op::WaitAll => {
                    if self.outstanding[r] > 0 {
                        self.wait_on(rank, Block::All);
                        return;
                    }
                    0
                }
                Op::WaitAny { len } => {
                    let first = self.pc[r];
                    self.pc[r] = first.saturating_add(len);
                    if self.wait_any(rank, first, len) {
                        return;
                    }
                    0
                }
                Op::Schedule { len, req, recv } => {
                    let first = self.pc[r];
                    self.pc[r] = first.saturating_add(len);
                    self.start_schedule(rank, first, len, (req, recv), out);
                    0
                }
                Op::Compute { cycles } => {
                    let c = self.model.compute_cycles(cycles);
                    // Saturating: a total past the clock's limit is refused by the engine, by name.
                    self.compute[r] = self.compute[r].saturating_add(c);
                    c
                }
            };
            if sleep > 0 {
                if let Some(w) = self.watch.as_deref_mut() {
                    w.sleep_since[r] = self.now;
                    w.sleep_copy[r] = !matches!(op, Op::Compute { .. });
                }
                out.push(Step::Sleep {
                    rank,
                    cycles: sleep,
                });
                return;
            }
        }
        if self.schedules_running(rank) {
            self.wait_on(rank, Block::Drain);
            return;
        }
        self.rank_finished(rank);
    }

    /// Starts a send; returns the cycles the rank spends copying (self-messages), else 0.
    #[allow(clippy::too_many_arguments)]
    fn send(
        &mut self,
        rank: u32,
        to: u32,
        bytes: u64,
        tag: u64,
        req: u32,
        sync: bool,
        out: &mut Vec<Step>,
    ) -> u64 {
        if let Some(obs) = self
            .watch
            .as_deref_mut()
            .and_then(|w| w.observer.as_deref_mut())
        {
            obs.send(rank, self.now, to, bytes, tag);
        }
        if to == rank {
            self.stats.self_messages += 1;
            self.stats.self_bytes = self.stats.self_bytes.saturating_add(bytes);
            self.arrive(rank, rank, tag, Arrival::Eager, out);
            let copy = self.model.self_copy_cycles(bytes);
            self.sending[rank as usize] = self.sending[rank as usize].saturating_add(copy);
            return copy;
        }
        if !(sync || self.model.rendezvous(bytes)) {
            out.push(Step::Send {
                from: rank,
                to,
                bytes,
                token: tag,
                note: NO_NOTE,
            });
            return 0;
        }
        let rdv = Rendezvous {
            from: rank,
            to,
            bytes,
            tag,
            send_req: req,
            recv_req: BLOCKING_REQ,
            posted_at: self.now,
        };
        let id = match self.free_rendezvous.pop() {
            Some(id) => {
                self.rendezvous[id as usize] = rdv;
                id
            }
            None => {
                self.rendezvous.push(rdv);
                (self.rendezvous.len() - 1) as u32
            }
        };
        if req != BLOCKING_REQ {
            self.pending.insert(rank, req, Pending::Send { to, tag });
            self.outstanding[rank as usize] += 1;
        }
        self.stats.rendezvous_messages += 1;
        self.control(rank, to, RTS | u64::from(id), out);
        0
    }

    fn control(&mut self, from: u32, to: u32, token: u64, out: &mut Vec<Step>) {
        self.stats.control_messages += 1;
        out.push(Step::Send {
            from,
            to,
            bytes: self.model.control_bytes,
            token,
            note: NO_NOTE,
        });
    }

    /// Posts receive `req` at `rank`; returns true if an unexpected eager message completed it at once.
    fn post(&mut self, rank: u32, from: u32, tag: u64, req: u32, out: &mut Vec<Step>) -> bool {
        match self.take_unexpected(rank, from, tag) {
            Some((from, Arrival::Eager)) => {
                self.tell_received(rank, from, tag);
                true
            }
            Some((from, Arrival::Rts(id))) => {
                self.rendezvous[id as usize].recv_req = req;
                self.pending.insert(rank, req, Pending::Data { from, tag });
                self.outstanding[rank as usize] += 1;
                self.control(rank, from, CTS | u64::from(id), out);
                false
            }
            None => {
                self.post_waiting(rank, from, tag, req);
                self.pending.insert(rank, req, Pending::Recv { from, tag });
                self.outstanding[rank as usize] += 1;
                false
            }
        }
    }

    /// A message (or a request-to-send) from `from` with `tag` arrived at `to`. Returns true if it
    /// released `to`.
    fn arrive(
        &mut self,
        to: u32,
        from: u32,
        tag: u64,
        arrival: Arrival,
        out: &mut Vec<Step>,
    ) -> bool {
        let Some(req) = self.take_posted(to, from, tag) else {
            self.keep_unexpected(to, from, tag, arrival);
            return false;
        };
        match arrival {
            Arrival::Eager => {
                self.tell_received(to, from, tag);
                self.complete(to, req, out)
            }
            Arrival::Rts(id) => {
                self.rendezvous[id as usize].recv_req = req;
                self.pending.insert(to, req, Pending::Data { from, tag });
                self.control(to, from, CTS | u64::from(id), out);
                false
            }
        }
    }

    /// Request `req` of `rank` completed; returns true if that released the rank (directly, or
    /// through a schedule it let go on to its end).
    fn complete(&mut self, rank: u32, req: u32, out: &mut Vec<Step>) -> bool {
        if self.graph.is_some() {
            self.complete_graph(rank, req);
            return true;
        }
        self.pending.remove(rank, req);
        let r = rank as usize;
        self.outstanding[r] -= 1;
        let released = match self.block[r] {
            Block::Recv => req == BLOCKING_REQ,
            Block::Req { req: w, .. } => w == req,
            Block::All => self.outstanding[r] == 0,
            Block::Any { first, len } => self.any_of(rank, first, len).any(|q| q == req),
            Block::No | Block::Drain => false,
        };
        if !released {
            return self.schedules.is_some() && self.resume_schedule(rank, req, out);
        }
        self.release(rank);
        true
    }

    /// `rank`, blocked, goes on now: the time it was blocked is booked.
    fn release(&mut self, rank: u32) {
        let r = rank as usize;
        let waited = self.now - self.blocked_since[r];
        if let Some(w) = self.watch.as_deref_mut()
            && let Some(obs) = w.observer.as_deref_mut()
        {
            obs.interval(rank, self.blocked_since[r], self.now, w.blocked_on[r]);
        }
        match self.block[r] {
            Block::Req { send: true, .. } => self.sending[r] += waited,
            _ => self.waiting[r] += waited,
        }
        self.block[r] = Block::No;
    }

    /// A message was consumed at `to`. Returns the ranks it released (`to`, and with a rendezvous's
    /// data also its sender, whose send completes once the data has moved to the receiver, as MPI's
    /// standard mode says of an unbuffered send); the caller advances them in that order.
    fn consume(&mut self, msg: &Consumed, out: &mut Vec<Step>) -> [Option<u32>; 2] {
        let (from, to, token) = (msg.from, msg.to, msg.token);
        if token & PROTOCOL == 0 {
            self.stats.latency.add(self.now - msg.issued_at);
            let released = self.arrive(to, from, token, Arrival::Eager, out);
            return [released.then_some(to), None];
        }
        let id = (token & !KIND) as u32;
        match token & KIND {
            RTS => {
                let tag = self.rendezvous[id as usize].tag;
                let released = self.arrive(to, from, tag, Arrival::Rts(id), out);
                [released.then_some(to), None]
            }
            CTS => {
                let rdv = self.rendezvous[id as usize];
                out.push(Step::Send {
                    from: rdv.from,
                    to: rdv.to,
                    bytes: rdv.bytes,
                    token: DATA | u64::from(id),
                    note: NO_NOTE,
                });
                [None, None]
            }
            _ => {
                let rdv = self.rendezvous[id as usize];
                self.stats.latency.add(self.now - rdv.posted_at);
                self.free_rendezvous.push(id);
                self.tell_received(rdv.to, rdv.from, rdv.tag);
                let receiver = if rdv.recv_req == BLOCKING_REQ {
                    self.block[rdv.to as usize] == Block::Recv
                        && self.complete(rdv.to, BLOCKING_REQ, out)
                } else {
                    self.complete(rdv.to, rdv.recv_req, out)
                };
                let sender =
                    rdv.send_req != BLOCKING_REQ && self.complete(rdv.from, rdv.send_req, out);
                [receiver.then_some(rdv.to), sender.then_some(rdv.from)]
            }
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

    /// What the MPI layer did, with every rank's time split.
    pub fn stats(&self) -> MpiStats {
        // Sums over ranks saturate (each rank's time fits the clock; thousands of them may not).
        let split = |v: &[u64]| {
            (
                v.iter().fold(0u64, |a, &b| a.saturating_add(b)),
                v.iter().copied().max().unwrap_or(0),
            )
        };
        let mut s = self.stats;
        (s.time.compute_sum, s.time.compute_max) = split(&self.compute);
        (s.time.send_sum, s.time.send_max) = split(&self.sending);
        (s.time.wait_sum, s.time.wait_max) = split(&self.waiting);
        s
    }
}

impl Driver for Ranks<'_> {
    fn start(&mut self, out: &mut Vec<Step>) {
        for rank in 0..self.count() {
            let mark = out.len();
            self.advance(rank, out);
            self.track_issued(mark, out);
        }
    }

    fn consumed(&mut self, now: u64, msg: &Consumed, out: &mut Vec<Step>) {
        self.now = now;
        let chain = self
            .watch
            .as_deref_mut()
            .and_then(|w| w.tracker.as_mut())
            .map(|t| t.arrived(now, msg));
        let mark = out.len();
        let released = self.consume(msg, out);
        if let Some(c) = chain {
            // Protocol replies (clear-to-send, rendezvous data) are issued by this arrival: they
            // carry its chain, as do the ranks it released.
            let t = self
                .watch
                .as_deref_mut()
                .and_then(|w| w.tracker.as_mut())
                .expect("a chain comes from the tracker");
            for step in &mut out[mark..] {
                if let Step::Send { note, .. } = step {
                    *note = t.issue(c);
                }
            }
            for rank in released.into_iter().flatten() {
                t.released(rank, c);
            }
        }
        for rank in released.into_iter().flatten() {
            let mark = out.len();
            self.advance(rank, out);
            self.track_issued(mark, out);
        }
        if let Some(c) = chain
            && let Some(t) = self.watch.as_deref_mut().and_then(|w| w.tracker.as_mut())
        {
            t.drop_chain(c);
        }
    }

    fn wake(&mut self, now: u64, who: u32, out: &mut Vec<Step>) {
        self.now = now;
        self.woke(who);
        let mark = out.len();
        if self.graph.is_some() {
            self.wake_graph(who, out);
        } else {
            self.advance(who, out);
        }
        self.track_issued(mark, out);
    }

    fn complete(&self) -> bool {
        self.finished() == self.count()
    }

    fn blocked(&self) -> Vec<(u32, u32, u64)> {
        if self.graph.is_some() {
            return self.blocked_graph();
        }
        Ranks::blocked(self).collect()
    }
}
