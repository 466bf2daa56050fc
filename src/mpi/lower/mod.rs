//! Lowering: every rank's [`Call`]s to the engine's [`Op`]s.
//!
//! Readers push calls rank by rank in program order ([`Builder::push`]), in any interleaving of ranks;
//! [`Builder::finish`] first pairs up communicator creations across ranks ([`super::comm::resolve`]),
//! then lowers each rank on its own:
//! - ranks relative to a communicator become world ranks; a peer or root outside it is an error;
//! - tags go into the communicator's context ([`super::p2p_tag`], [`super::collective_tag`]) and
//!   collective sequence numbers count per communicator, so two communicators never match across;
//! - a blocking send is an `Isend` and its `Wait` (so the protocol decides whether it blocks), a blocking
//!   synchronous send an `Issend` and its `Wait`, `sendrecv` an `Irecv`, an `Isend` and both waits;
//! - request handles become fresh rank-local ids; a wildcard receive takes the source and tag its
//!   completion recorded (the op is patched when the wait is lowered);
//! - collectives expand by [`super::collectives`]; a non-blocking collective runs its blocking
//!   algorithm where its request completes (MPICH progresses it inside MPI calls, mostly the wait);
//! - every member must call the collectives of a communicator in the same order (checked: kind and
//!   root).

use super::call::{Call, Collective, CommHandle, ReqHandle, SendMode, Source, Status, TagSel};
use super::collective_tag;
use super::collectives::{self, Algorithms};
use super::comm::{self, Bound, Comms, Handles};
use super::stats::CallStats;
use crate::error::{Error, Result};
use crate::workload::{Op, Program};
use ahash::AHashMap;

mod collective;

/// The matching tag of user tag `tag` on `b`'s communicator. On MPI_COMM_WORLD every value is taken
/// as it is (lowered programs written back as traces carry collective context tags); elsewhere a tag
/// must be an MPI tag, below 2^31.
fn user_tag(b: Bound, tag: u64) -> Result<u64, String> {
    match (b.comm, u32::try_from(tag)) {
        (0, _) => Ok(tag),
        (c, Ok(t)) if t < 1 << 31 => Ok(super::p2p_tag(c, t)),
        _ => Err(format!("tag {tag} is not an MPI tag (0..2^31)")),
    }
}

/// Where a call came from, for error messages: a file of the builder and a line (text formats) or a
/// byte offset (binary formats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    /// Index of the file ([`Builder::file`]).
    pub file: u32,
    /// Line (1-based) or byte offset.
    pub at: u64,
}

/// Collects every rank's calls, then lowers them to a [`Program`].
#[derive(Debug)]
pub struct Builder {
    calls: Vec<Vec<(Call, Pos)>>,
    files: Vec<(String, bool)>,
    comms: Comms,
    handles: Vec<Handles>,
    algorithms: Algorithms,
}

/// An open request of the rank being lowered.
#[derive(Debug)]
enum Open {
    /// A send or a receive with a known source: its runtime id.
    P2p(u32),
    /// A wildcard receive: its runtime id, the op to patch, its communicator and where it was posted.
    Wildcard {
        id: u32,
        op: usize,
        bound: Bound,
        tag: TagSel,
        pos: Pos,
    },
    /// A non-blocking collective: its name and ops, emitted when it completes.
    Collective(&'static str, Vec<Op>),
}

/// One recorded collective call of a communicator, to check that every member calls the same ones.
#[derive(Debug, Clone, Copy)]
struct Logged {
    name: &'static str,
    root: Option<u32>,
    rank: u32,
    pos: Pos,
}

/// The most world ranks a program lowered from calls may have (2^20 = 1,048,576, beyond any traced
/// MPI run). Every rank costs about 270 bytes while a trace is read and lowered even when it makes no
/// call, so a trace of a few bytes naming rank 2^20 - 1 costs about 280 MB at most, where one naming
/// rank 2^24 cost gigabytes. Readers check their rank counts against this (and against the network's
/// nodes when known) before building; this is the MPI layer's own backstop.
pub const MAX_RANKS: u32 = 1 << 20;

impl Builder {
    /// A builder for `ranks` world ranks whose collectives expand with `algorithms`; more than
    /// [`MAX_RANKS`] is refused before anything per rank is allocated.
    pub fn new(ranks: u32, algorithms: &Algorithms) -> Result<Builder> {
        if ranks > MAX_RANKS {
            return Err(Error::Invalid(format!(
                "{ranks} ranks are more than the {MAX_RANKS} a trace may have"
            )));
        }
        Ok(Builder {
            calls: (0..ranks).map(|_| Vec::new()).collect(),
            files: Vec::new(),
            comms: Comms::new(ranks),
            handles: (0..ranks).map(Handles::new).collect(),
            algorithms: *algorithms,
        })
    }

    /// Number of world ranks.
    pub fn ranks(&self) -> u32 {
        self.calls.len() as u32
    }

    /// Registers a source file; positions in it are lines if `binary` is false, byte offsets otherwise.
    pub fn file(&mut self, name: &str, binary: bool) -> u32 {
        self.files.push((name.to_string(), binary));
        self.files.len() as u32 - 1
    }

    /// Defines a communicator of `members` (world ranks, in communicator order), known to every member
    /// as `handle` from its first call (OTF2's global definitions, the native format's `comm` lines).
    pub fn define_comm(&mut self, handle: CommHandle, members: Vec<u32>) -> Result<()> {
        let n = self.ranks();
        let mut seen = AHashMap::new();
        for (i, &m) in members.iter().enumerate() {
            if m >= n || seen.insert(m, i).is_some() {
                return Err(Error::Invalid(format!(
                    "communicator {handle} lists world rank {m} twice or outside 0..{n}"
                )));
            }
        }
        let c = self.comms.add(members);
        let members = self
            .comms
            .members(c)
            .expect("an added communicator is not world");
        for (i, &m) in members.iter().enumerate() {
            self.handles[m as usize].set(
                handle,
                Some(Bound {
                    comm: c,
                    me: i as u32,
                }),
            );
        }
        Ok(())
    }

    /// Appends `call` to the program of world rank `rank` (below [`Builder::ranks`]).
    pub fn push(&mut self, rank: u32, call: Call, pos: Pos) {
        self.calls[rank as usize].push((call, pos));
    }

    /// `path:line: message` (or `path (byte N): message`).
    fn error(&self, pos: Pos, message: impl std::fmt::Display) -> Error {
        match self.files.get(pos.file as usize) {
            Some((path, false)) => Error::Invalid(format!("{path}:{}: {message}", pos.at)),
            Some((path, true)) => Error::Invalid(format!("{path} (byte {}): {message}", pos.at)),
            None => Error::Invalid(message.to_string()),
        }
    }

    /// Lowers every rank (see the module doc).
    pub fn finish(mut self) -> Result<Program> {
        let created = comm::resolve(&self.calls, &self.handles, &mut self.comms)
            .map_err(|(pos, m)| self.error(pos, m))?;
        let mut log: Vec<Vec<Logged>> = Vec::new();
        let calls = std::mem::take(&mut self.calls);
        let mut per_rank = Vec::with_capacity(calls.len());
        let mut regions = Vec::with_capacity(calls.len());
        let mut stats = CallStats::default();
        for (r, (rank_calls, made)) in calls.into_iter().zip(created).enumerate() {
            let mut lowering = RankLowering {
                stats: &mut stats,
                rank: r as u32,
                handles: std::mem::take(&mut self.handles[r]),
                made: made.into_iter(),
                open: AHashMap::new(),
                open_order: Vec::new(),
                next_id: 0,
                coll_seq: AHashMap::new(),
                ops: Vec::with_capacity(rank_calls.len()),
                regions: Vec::new(),
            };
            for (call, pos) in rank_calls {
                lowering
                    .lower(call, pos, &mut self.comms, &self.algorithms, &mut log)
                    .map_err(|m| self.error(pos, m))?;
            }
            lowering.close().map_err(|(pos, m)| self.error(pos, m))?;
            per_rank.push(lowering.ops);
            regions.push(lowering.regions);
        }
        stats.communicators = (1..self.comms.count())
            .filter(|&c| self.comms.size(c) > 1)
            .count() as u32;
        Ok(Program::from_rank_vecs(per_rank)
            .with_call_stats(stats)
            .with_regions(regions))
    }
}

/// The state of one rank while its calls are lowered.
struct RankLowering<'s> {
    /// The counts of the calls of every rank, for `trace stats`.
    stats: &'s mut CallStats,
    rank: u32,
    handles: Handles,
    made: std::vec::IntoIter<Option<Bound>>,
    open: AHashMap<ReqHandle, Open>,
    /// Handles in posting order (for `waitall` of every open request); stale entries are skipped.
    open_order: Vec<ReqHandle>,
    next_id: u32,
    coll_seq: AHashMap<u32, u64>,
    ops: Vec<Op>,
    /// The op ranges of the collectives emitted so far (for the replay timeline).
    regions: Vec<crate::workload::Region>,
}

type Msg = String;

impl RankLowering<'_> {
    fn fresh(&mut self) -> Result<u32, Msg> {
        let id = self.next_id;
        // Runtime ids below u32::MAX - 1 (the runtime reserves the top two); wrapping is safe because a
        // rank never has 2^32 requests open at once, but say so if it ever would.
        self.next_id = (self.next_id + 1) % (u32::MAX - 1);
        if self.open.len() as u64 >= u64::from(u32::MAX - 2) {
            return Err("more than 2^32 requests open at once".into());
        }
        Ok(id)
    }

    fn bound(&mut self, handle: CommHandle, comms: &mut Comms) -> Result<Bound, Msg> {
        self.handles.get(handle, self.rank, comms).ok_or_else(|| {
            format!(
                "rank {} uses communicator {handle}, which it does not have (never created, freed, \
                 or not a member)",
                self.rank
            )
        })
    }

    fn peer(&self, b: Bound, rank: u32, what: &str, comms: &Comms) -> Result<u32, Msg> {
        let size = comms.size(b.comm);
        if rank >= size {
            return Err(format!(
                "{what} {rank} is outside the communicator (ranks 0..{size})"
            ));
        }
        Ok(comms.world_rank(b.comm, rank))
    }

    fn post(&mut self, handle: ReqHandle, open: Open) -> Result<(), Msg> {
        if self.open.insert(handle, open).is_some() {
            return Err(format!(
                "rank {} posts request {handle} while it is still open",
                self.rank
            ));
        }
        self.open_order.push(handle);
        Ok(())
    }

    fn lower(
        &mut self,
        call: Call,
        pos: Pos,
        comms: &mut Comms,
        algorithms: &Algorithms,
        log: &mut Vec<Vec<Logged>>,
    ) -> Result<(), Msg> {
        match call {
            Call::Send {
                comm,
                dest,
                tag,
                bytes,
                mode,
                req,
            } => {
                let b = self.bound(comm, comms)?;
                let to = self.peer(b, dest, "destination", comms)?;
                let tag = user_tag(b, tag)?;
                let kind = match (mode, req) {
                    (SendMode::Synchronous, None) => "ssend",
                    (SendMode::Synchronous, Some(_)) => "issend",
                    (_, None) => "send",
                    (_, Some(_)) => "isend",
                };
                self.stats.send(kind, bytes, to == self.rank);
                if mode == SendMode::Detached && req.is_none() {
                    self.ops.push(Op::Send { to, bytes, tag });
                    return Ok(());
                }
                let id = self.fresh()?;
                self.ops.push(match mode {
                    SendMode::Standard | SendMode::Detached => Op::Isend {
                        to,
                        bytes,
                        tag,
                        req: id,
                    },
                    SendMode::Synchronous => Op::Issend {
                        to,
                        bytes,
                        tag,
                        req: id,
                    },
                });
                match req {
                    None => self.ops.push(Op::Wait { req: id }),
                    Some(h) => self.post(h, Open::P2p(id))?,
                }
            }
            Call::Recv {
                comm,
                source,
                tag,
                req,
                status,
            } => {
                let b = self.bound(comm, comms)?;
                let wildcard = source == Source::Any || tag == TagSel::Any;
                self.stats.receive(wildcard);
                match req {
                    None => {
                        let (from, tag) = self.resolve(b, source, tag, status, comms)?;
                        self.ops.push(Op::Recv { from, tag });
                    }
                    Some(h) => {
                        let id = self.fresh()?;
                        match (source, tag, status) {
                            (Source::Any, _, None) | (_, TagSel::Any, None) => {
                                self.post(
                                    h,
                                    Open::Wildcard {
                                        id,
                                        op: self.ops.len(),
                                        bound: b,
                                        tag,
                                        pos,
                                    },
                                )?;
                                self.ops.push(Op::Irecv {
                                    from: 0,
                                    tag: 0,
                                    req: id,
                                });
                            }
                            _ => {
                                let (from, tag) = self.resolve(b, source, tag, status, comms)?;
                                self.ops.push(Op::Irecv { from, tag, req: id });
                                self.post(h, Open::P2p(id))?;
                            }
                        }
                    }
                }
            }
            Call::Sendrecv {
                comm,
                dest,
                send_tag,
                bytes,
                source,
                recv_tag,
                status,
            } => {
                let b = self.bound(comm, comms)?;
                let to = self.peer(b, dest, "destination", comms)?;
                let (from, rtag) = self.resolve(b, source, recv_tag, status, comms)?;
                self.stats.send("sendrecv", bytes, to == self.rank);
                self.stats
                    .receive(source == Source::Any || recv_tag == TagSel::Any);
                let (r, s) = (self.fresh()?, self.fresh()?);
                self.ops.push(Op::Irecv {
                    from,
                    tag: rtag,
                    req: r,
                });
                self.ops.push(Op::Isend {
                    to,
                    bytes,
                    tag: user_tag(b, send_tag)?,
                    req: s,
                });
                self.ops.push(Op::Wait { req: s });
                self.ops.push(Op::Wait { req: r });
            }
            Call::Wait { req, status } => self.complete(req, status, comms)?,
            Call::WaitAll { reqs } => {
                let list = match reqs {
                    Some(list) => list,
                    None => self.open_in_order(),
                };
                for h in list {
                    self.complete(h, None, comms)?;
                }
            }
            Call::WaitUnrecorded { reqs, some } => {
                let open: Vec<ReqHandle> = reqs
                    .into_iter()
                    .filter(|h| self.open.contains_key(h))
                    .collect();
                let take = if some { open.len() } else { open.len().min(1) };
                for h in open.into_iter().take(take) {
                    self.complete(h, None, comms)?;
                }
            }
            Call::Collective { comm, op, req } => {
                let b = self.bound(comm, comms)?;
                self.stats
                    .collective(b.comm, comms.size(b.comm), b.me, op.name());
                let ops = self.collective(b, &op, pos, comms, algorithms, log)?;
                match req {
                    None => self.emit_collective(op.name(), ops),
                    Some(h) => self.post(h, Open::Collective(op.name(), ops))?,
                }
            }
            Call::Compute { cycles } => {
                self.stats.compute(cycles);
                self.ops.push(Op::Compute { cycles });
            }
            Call::CommSplit { new, .. }
            | Call::CommDup { new, .. }
            | Call::CommCreate { new, .. } => {
                let made = self
                    .made
                    .next()
                    .expect("resolve gave every creation call a result");
                self.handles.set(new, made);
            }
            Call::CommFree { comm } => self.handles.set(comm, None),
        }
        Ok(())
    }

    /// World source and matching tag of a receive, wildcards taken from `status`.
    fn resolve(
        &self,
        b: Bound,
        source: Source,
        tag: TagSel,
        status: Option<Status>,
        comms: &Comms,
    ) -> Result<(u32, u64), Msg> {
        let src = match (source, status) {
            (Source::Rank(s), _) => s,
            (Source::Any, Some(st)) => st.source,
            (Source::Any, None) => {
                return Err(
                    "MPI_ANY_SOURCE receive, but the trace records no source for it (the replay \
                     needs the status of the completed receive)"
                        .into(),
                );
            }
        };
        let t = match (tag, status) {
            (TagSel::Tag(t), _) => t,
            (TagSel::Any, Some(st)) => st.tag,
            (TagSel::Any, None) => {
                return Err(
                    "MPI_ANY_TAG receive, but the trace records no tag for it (the replay needs \
                     the status of the completed receive)"
                        .into(),
                );
            }
        };
        let from = self.peer(b, src, "source", comms)?;
        Ok((from, user_tag(b, t)?))
    }

    /// Request `h` completes here.
    fn complete(&mut self, h: ReqHandle, status: Option<Status>, comms: &Comms) -> Result<(), Msg> {
        let Some(open) = self.open.remove(&h) else {
            return Err(format!(
                "rank {} waits on request {h}, which it has not posted (or already completed)",
                self.rank
            ));
        };
        match open {
            Open::P2p(id) => self.ops.push(Op::Wait { req: id }),
            Open::Wildcard {
                id,
                op,
                bound,
                tag,
                pos,
            } => {
                let source = Source::Any;
                let (from, tag) = self
                    .resolve(bound, source, tag, status, comms)
                    .map_err(|m| format!("{m} (the receive posted at {})", pos.at))?;
                self.ops[op] = Op::Irecv { from, tag, req: id };
                self.ops.push(Op::Wait { req: id });
            }
            Open::Collective(name, ops) => self.emit_collective(name, ops),
        }
        Ok(())
    }

    /// Every open request in posting order.
    fn open_in_order(&mut self) -> Vec<ReqHandle> {
        let open = &self.open;
        let mut seen = ahash::AHashSet::new();
        let list: Vec<ReqHandle> = self
            .open_order
            .iter()
            .copied()
            .filter(|h| open.contains_key(h) && seen.insert(*h))
            .collect();
        self.open_order.clear();
        list
    }

    /// End of the rank's calls: a wildcard receive never completed cannot be replayed.
    fn close(&mut self) -> Result<(), (Pos, Msg)> {
        for open in self.open.values() {
            if let Open::Wildcard { pos, .. } = open {
                return Err((
                    *pos,
                    format!(
                        "rank {}'s wildcard receive is never completed, so the trace records no \
                         source for it",
                        self.rank
                    ),
                ));
            }
        }
        Ok(())
    }
}
