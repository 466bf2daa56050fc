//! The program type that workloads, trace readers and the MPI layer share: what every rank does, as
//! [`Op`]s (sends, receives, computation, requests), with the [`MpiModel`] it runs under, the op
//! ranges of its collective calls ([`Region`]) and, for dependency graphs, the [`graph::Graph`] of its
//! ops. Generators (seed 004 §3.3) and trace readers both emit a [`Program`], so the engines replay
//! both alike. A program says nothing about nodes: placement maps ranks to nodes afterwards.
//!
//! It sits below `mpi`, `trace` and `workload`, and imports nothing of them: that is what lets those
//! three be layered (`workload` builds generators of both kinds, `trace` lowers calls through `mpi`).

mod calls;
pub mod graph;
mod mpi_model;
mod source;

pub use calls::{CallStats, CommCollectives, Traffic};
pub use mpi_model::{CONTROL_BYTES, MPICH_EAGER_THRESHOLD, MpiModel, Protocol};
pub use source::{DEFAULT_CYCLES_PER_SECOND, Generator, pattern_bytes_bound, pattern_ops_bound};

use crate::error::{Error, Result};

/// The most bytes one message may carry (1 TiB, 2^40): more is refused before replaying, whatever
/// produced it (a trace reader, a generator). One message of 1 TiB already takes the flit model
/// about an hour and a half on one core (2^34 packets of 64 bytes); the flow model takes any size
/// in one step.
pub const MAX_MESSAGE_BYTES: u64 = 1 << 40;

/// One step of a rank's program, in MPI terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Op {
    /// Send of `bytes` to rank `to` with `tag` that never blocks the rank (seed 004's reactive sends, and
    /// the sends inside collective algorithms, which MPI libraries post as `isend`s). The node injects
    /// its messages in program order; under the rendezvous protocol a large one waits for its
    /// clear-to-send in the background. An MPI_Send is an [`Op::Isend`] and its [`Op::Wait`].
    Send {
        /// Destination rank.
        to: u32,
        /// Message size in bytes.
        bytes: u64,
        /// Matching tag; a receive matches source and tag. The MPI layer puts the communicator's
        /// context in the upper 32 bits (`crate::mpi::match_tag`), so traffic on two communicators never
        /// matches across.
        tag: u64,
    },
    /// Blocking receive: waits until a whole message from rank `from` with `tag` has been consumed.
    Recv {
        /// Source rank.
        from: u32,
        /// Tag to match.
        tag: u64,
    },
    /// Local computation: the rank is busy for `cycles` network cycles.
    Compute {
        /// Duration in cycles.
        cycles: u64,
    },
    /// Non-blocking send (MPI_Isend) with request handle `req`. Eager: the message is handed to the node
    /// at once and the request is complete, so a `Wait` on it never blocks; rendezvous: the request
    /// completes once the data has moved to the receiver (consumed there), as MPI's standard mode
    /// says of a send it does not buffer.
    Isend {
        /// Destination rank.
        to: u32,
        /// Message size in bytes.
        bytes: u64,
        /// Matching tag.
        tag: u64,
        /// Request handle, rank-local.
        req: u32,
    },
    /// Non-blocking receive (MPI_Irecv): posts a receive for a message from `from` with `tag`; posted
    /// receives match consumed messages in posting order (MPI non-overtaking).
    Irecv {
        /// Source rank.
        from: u32,
        /// Tag to match.
        tag: u64,
        /// Request handle, rank-local.
        req: u32,
    },
    /// MPI_Wait: blocks until request `req` is complete (an irecv's message consumed).
    Wait {
        /// Request handle.
        req: u32,
    },
    /// MPI_Waitall over every request the rank has outstanding.
    WaitAll,
    /// Non-blocking synchronous send (MPI_Issend; MPI_Ssend is an `Issend` and its `Wait`): always the
    /// rendezvous handshake, and its request completes once the receive has matched and the data has
    /// moved to the receiver.
    Issend {
        /// Destination rank.
        to: u32,
        /// Message size in bytes.
        bytes: u64,
        /// Matching tag.
        tag: u64,
        /// Request handle, rank-local.
        req: u32,
    },
    /// MPI_Waitany whose completion the trace does not record: the next `len` ops are [`Op::Wait`]s
    /// naming its requests, and the rank goes on once the first of them completes (at once if one
    /// already has). The others stay outstanding; a later wait on one waits for it.
    WaitAny {
        /// The `Wait`s that follow, one per request.
        len: u32,
    },
    /// A non-blocking collective's schedule (MPI_Iallreduce...): the next `len` ops, the sends and
    /// blocking receives its algorithm lowers to, run beside the rank's program from here, as an
    /// asynchronous progress engine runs them (MPI only requires collectives to *start* in the
    /// same order on every member; a started one progresses whatever its rank does). Within the
    /// schedule each op is issued once every receive before it has completed (the blocking
    /// algorithm's order: a step waits for the data it depends on); request `req` completes when
    /// the last has. The rank goes on past the `len` ops at once and waits on `req` where the
    /// trace completes the request.
    Schedule {
        /// Ops that form the schedule (only sends and receives).
        len: u32,
        /// The collective's request, rank-local.
        req: u32,
        /// The request its receives post under, one at a time, rank-local.
        recv: u32,
    },
}

/// The programs of all ranks (stored flat, or one vector per rank for a lowered trace), with the
/// MPI model they run under (protocols, compute scaling; seed 004's eager model unless a trace says
/// otherwise) and, for a trace just read, the counts of its MPI calls. Two programs are equal when
/// their ops and models are: the call counts describe where a program came from, not what it does.
#[derive(Debug, Clone)]
pub struct Program {
    ops: Storage,
    mpi: MpiModel,
    calls: Option<std::sync::Arc<CallStats>>,
    /// What its reader skipped or approximated, one sentence each (empty for most programs).
    notes: std::sync::Arc<[String]>,
    regions: Option<std::sync::Arc<Regions>>,
    /// The ops' dependencies when the program is a dependency graph (GOAL); `None`: each rank runs
    /// its ops in order.
    graph: Option<std::sync::Arc<graph::Graph>>,
}

/// One MPI call that lowering expanded into several ops (a collective): ops `first..end` of a rank.
/// Kept beside the program (not as ops) so the engine and the runtime's matching never see it; the
/// replay timeline draws it as a slice enclosing those ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// Index of its first op in the rank's ops.
    pub first: u32,
    /// One past its last op.
    pub end: u32,
    /// The MPI call, e.g. `allreduce`.
    pub name: &'static str,
}

/// The source of a receive that takes a message from any source, matched at replay time in
/// arrival order (`mpi/matching.rs`): what formats without statuses leave open (SimGrid's `-333`).
pub const ANY_SOURCE: u32 = u32::MAX;

/// The [`Region`]s of every rank, in op order (disjoint).
pub type Regions = Vec<Vec<Region>>;

/// Where a program's ops live.
#[derive(Debug, Clone)]
enum Storage {
    /// Rank r's ops are `ops[starts[r]..starts[r + 1]]` (generators and the cache build this way).
    Flat { ops: Vec<Op>, starts: Vec<usize> },
    /// One slice per rank: a trace lowered with its ranks interleaved is moved in without copying
    /// (one copy of a multi-gigabyte program saved, and its page faults).
    PerRank(Vec<Box<[Op]>>),
}

impl PartialEq for Program {
    fn eq(&self, other: &Program) -> bool {
        self.ranks() == other.ranks()
            && self.mpi == other.mpi
            && self.graph == other.graph
            && (0..self.ranks()).all(|r| self.rank_ops(r) == other.rank_ops(r))
    }
}

impl Program {
    /// Builds a program by calling `rank_ops(rank, &mut ops)` for each rank in order; each call appends
    /// that rank's ops.
    pub fn from_fn(ranks: u32, mut rank_ops: impl FnMut(u32, &mut Vec<Op>)) -> Program {
        let mut ops = Vec::new();
        let mut starts = Vec::with_capacity(ranks as usize + 1);
        for r in 0..ranks {
            starts.push(ops.len());
            rank_ops(r, &mut ops);
        }
        starts.push(ops.len());
        Program {
            ops: Storage::Flat { ops, starts },
            mpi: MpiModel::default(),
            calls: None,
            notes: std::sync::Arc::new([]),
            regions: None,
            graph: None,
        }
    }

    /// Builds a program from each rank's ops, each vector moved in (trimmed to its length, which
    /// glibc does in place) rather than copied, so a large trace's program exists once.
    pub fn from_rank_vecs(per_rank: Vec<Vec<Op>>) -> Program {
        Program {
            ops: Storage::PerRank(per_rank.into_iter().map(Vec::into_boxed_slice).collect()),
            mpi: MpiModel::default(),
            calls: None,
            notes: std::sync::Arc::new([]),
            regions: None,
            graph: None,
        }
    }

    /// The dependencies of a dependency-graph program (`None`: ops run in order).
    pub fn graph(&self) -> Option<&graph::Graph> {
        self.graph.as_deref()
    }

    /// The same program with its ops run as the dependency graph `graph`.
    pub fn with_graph(mut self, graph: graph::Graph) -> Program {
        self.graph = Some(std::sync::Arc::new(graph));
        self
    }

    /// The MPI model the program runs under.
    pub fn mpi(&self) -> &MpiModel {
        &self.mpi
    }

    /// The counts of the MPI calls this program was lowered from (traces read now; `None` for
    /// generated workloads and cached traces).
    pub fn call_stats(&self) -> Option<&CallStats> {
        self.calls.as_deref()
    }

    /// The same program, remembering the counts of the calls it was lowered from.
    pub fn with_call_stats(mut self, stats: CallStats) -> Program {
        self.calls = Some(std::sync::Arc::new(stats));
        self
    }

    /// The collective calls of each rank as op ranges (traces read now; `None` for generated
    /// workloads and cached traces).
    pub fn regions(&self) -> Option<&Regions> {
        self.regions.as_deref()
    }

    /// The same program, remembering the op ranges of its collective calls.
    pub fn with_regions(mut self, regions: Regions) -> Program {
        self.regions = Some(std::sync::Arc::new(regions));
        self
    }

    /// What the trace's reader did not replay or replayed approximately (an OTF2 archive's
    /// non-blocking collectives recorded as regions only, its spans with measurement off), so that
    /// `trace check` and a run can say so; empty for generated workloads.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The same program, with its reader's `notes`.
    pub fn with_notes(mut self, notes: Vec<String>) -> Program {
        self.notes = notes.into();
        self
    }

    /// The same program under another MPI model.
    pub fn with_mpi(mut self, mpi: MpiModel) -> Program {
        self.mpi = mpi;
        self
    }

    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        match &self.ops {
            Storage::Flat { starts, .. } => (starts.len() - 1) as u32,
            Storage::PerRank(ranks) => ranks.len() as u32,
        }
    }

    /// The ops of one rank, in program order.
    pub fn rank_ops(&self, rank: u32) -> &[Op] {
        let r = rank as usize;
        match &self.ops {
            Storage::Flat { ops, starts } => &ops[starts[r]..starts[r + 1]],
            Storage::PerRank(ranks) => &ranks[r],
        }
    }

    /// Every receive of the program, blocking or not, as (source, destination, tag).
    pub fn recvs(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        (0..self.ranks()).flat_map(move |r| {
            self.rank_ops(r).iter().filter_map(move |op| match *op {
                Op::Recv { from, tag } | Op::Irecv { from, tag, .. } => Some((from, r, tag)),
                _ => None,
            })
        })
    }

    /// Every send of the program as (source, destination, bytes, tag), self-messages included (for
    /// counting messages and checking matches).
    pub fn sends(&self) -> impl Iterator<Item = (u32, u32, u64, u64)> + '_ {
        (0..self.ranks()).flat_map(move |r| {
            self.rank_ops(r).iter().filter_map(move |op| match *op {
                Op::Send { to, bytes, tag }
                | Op::Isend { to, bytes, tag, .. }
                | Op::Issend { to, bytes, tag, .. } => Some((r, to, bytes, tag)),
                _ => None,
            })
        })
    }

    /// The program of `ranks` only, rank `ranks[i]` becoming rank `i` and every peer renumbered
    /// alike, under the same MPI model, with its dependency graph and collective regions (call
    /// counts describe the whole trace and are dropped): one job of a merged multi-job trace. A
    /// message to or from a rank outside `ranks` is an error naming both ranks.
    pub fn subset(&self, ranks: &[u32]) -> Result<Program> {
        let mut local = vec![u32::MAX; self.ranks() as usize];
        for (i, &r) in ranks.iter().enumerate() {
            if r >= self.ranks() || local[r as usize] != u32::MAX {
                return Err(Error::Invalid(format!(
                    "rank {r} is past the program's {} ranks or listed twice",
                    self.ranks()
                )));
            }
            local[r as usize] = i as u32;
        }
        let map = |r: u32, peer: u32| match local.get(peer as usize) {
            _ if peer == ANY_SOURCE => Ok(peer),
            Some(&l) if l != u32::MAX => Ok(l),
            _ => Err(Error::Invalid(format!(
                "rank {r} exchanges messages with rank {peer}, which is not in its job"
            ))),
        };
        let mut per_rank = Vec::with_capacity(ranks.len());
        for &r in ranks {
            let mut ops = self.rank_ops(r).to_vec();
            for op in &mut ops {
                match op {
                    Op::Send { to, .. } | Op::Isend { to, .. } | Op::Issend { to, .. } => {
                        *to = map(r, *to)?;
                    }
                    Op::Recv { from, .. } | Op::Irecv { from, .. } => *from = map(r, *from)?,
                    Op::Compute { .. }
                    | Op::Wait { .. }
                    | Op::WaitAll
                    | Op::WaitAny { .. }
                    | Op::Schedule { .. } => {}
                }
            }
            per_rank.push(ops);
        }
        let mut program = Program::from_rank_vecs(per_rank).with_mpi(self.mpi);
        if let Some(g) = self.graph() {
            program = program.with_graph(g.subset(ranks));
        }
        if let Some(regions) = self.regions() {
            program =
                program.with_regions(ranks.iter().map(|&r| regions[r as usize].clone()).collect());
        }
        Ok(program)
    }

    /// Checks that every peer rank exists (a rank may message itself: the MPI layer delivers such
    /// self-messages locally), that no message passes [`MAX_MESSAGE_BYTES`] and that every
    /// schedule holds sends and receives only and every waitany its waits, within its rank's ops (what the runtime runs a
    /// schedule on; a cache file is checked with this before it is trusted).
    pub fn validate(&self) -> Result<()> {
        let n = self.ranks();
        for r in 0..n {
            let ops = self.rank_ops(r);
            for (i, op) in ops.iter().enumerate() {
                let (len, fits): (u32, fn(&Op) -> bool) = match *op {
                    Op::Schedule { len, .. } => {
                        (len, |o| matches!(o, Op::Send { .. } | Op::Recv { .. }))
                    }
                    Op::WaitAny { len } => (len, |o| matches!(o, Op::Wait { .. })),
                    _ => (0, |_| true),
                };
                let inner = ops.get(i + 1..).and_then(|rest| rest.get(..len as usize));
                if !inner.is_some_and(|inner| inner.iter().all(fits)) {
                    return Err(Error::Invalid(format!(
                        "rank {r}'s op {i} is not followed by the {len} ops it needs"
                    )));
                }
                let peer = match *op {
                    Op::Send { to, bytes, .. }
                    | Op::Isend { to, bytes, .. }
                    | Op::Issend { to, bytes, .. } => {
                        if bytes > MAX_MESSAGE_BYTES {
                            return Err(Error::Invalid(format!(
                                "rank {r} sends a message of {bytes} bytes to rank {to}: more than \
                                 the {MAX_MESSAGE_BYTES} bytes (1 TiB) a message may carry"
                            )));
                        }
                        to
                    }
                    Op::Recv { from, .. } | Op::Irecv { from, .. } if from == ANY_SOURCE => {
                        continue;
                    }
                    Op::Recv { from, .. } | Op::Irecv { from, .. } => from,
                    Op::Compute { .. }
                    | Op::Wait { .. }
                    | Op::WaitAll
                    | Op::WaitAny { .. }
                    | Op::Schedule { .. } => continue,
                };
                if peer >= n {
                    return Err(Error::Invalid(format!(
                        "rank {r} communicates with rank {peer}, but ranks are 0..{n}"
                    )));
                }
            }
        }
        Ok(())
    }
}
