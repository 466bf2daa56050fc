//! Lowering: every rank's [`Call`]s to the engine's [`Op`]s.
//!
//! Readers push calls rank by rank in program order ([`Builder::push`]), in any interleaving of ranks.
//! A call is lowered as it arrives (one streaming pass, no copy of the trace's calls) while its rank
//! has only used MPI_COMM_WORLD; from a rank's first call on another communicator or its first
//! communicator call (creation or free) on, its calls are held back, because creations pair up across
//! ranks. [`Builder::finish`] then pairs up the held-back creation calls ([`super::comm::resolve`]) and
//! lowers what was held back, rank by rank, so the program and every error are those of lowering the
//! whole trace after reading it:
//! - ranks relative to a communicator become world ranks; a peer or root outside it is an error;
//! - tags go into the communicator's context ([`super::p2p_tag`], [`super::collective_tag`]) and
//!   collective sequence numbers count per communicator, so two communicators never match across;
//! - a blocking send is an `Isend` and its `Wait` (so the protocol decides whether it blocks), a blocking
//!   synchronous send an `Issend` and its `Wait`, `sendrecv` an `Irecv`, an `Isend` and both waits;
//! - request handles become fresh rank-local ids; a wildcard receive takes the source and tag its
//!   completion recorded (the op is patched when the wait is lowered);
//! - collectives expand by [`super::collectives`]; a non-blocking collective's expansion becomes an
//!   [`Op::Schedule`] where it is posted, run beside the rank's program by the runtime (an
//!   asynchronous progress engine), its request completing where the trace waits on it;
//! - every member must call the collectives of a communicator in the same order (checked: kind,
//!   root and the sizes MPI requires to match; `order.rs`).
//!
//! Errors are those of lowering rank 0, then rank 1, and so on: a creation problem first, then the
//! lowest rank's first problem in its program order.

use super::call::{
    Call, Collective, CommHandle, ReqHandle, SendMode, Source, Status, TagSel, WORLD,
};
use super::collective_tag;
use super::collectives::{self, Algorithms};
use super::comm::{self, Bound, Comms, Handles};
use crate::error::{Error, Result};
use crate::network::memory::Cap;
use crate::program::CallStats;
use crate::program::{Op, Program};
use ahash::AHashMap;
use order::Log;
use rank::RankLowering;

mod collective;
mod order;
mod rank;

/// A problem's message (the caller adds where).
type Msg = String;

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

/// Lowers every rank's calls to a [`Program`] as they arrive (see the module doc).
#[derive(Debug)]
pub struct Builder {
    /// Each rank's state, made at its first call (idle ranks are many in some traces).
    ranks: Vec<Option<Box<RankBuild>>>,
    /// The handles of the ranks not yet called, as definitions bind them.
    handles: Vec<Handles>,
    files: Vec<(String, bool)>,
    shared: Shared,
    /// Ops the ranks hold (lowered, or in posted non-blocking collectives), and the memory cap
    /// (`--max-memory`, else the memory available when the builder was made) they are kept under.
    ops: u64,
    cap: Option<Cap>,
}

/// Bytes one op may take while a trace is lowered: its size twice over, since a rank's ops grow by
/// doubling their vector, so up to half of what is allocated is room not yet used.
const OP_BYTES: u64 = 2 * std::mem::size_of::<Op>() as u64;

/// Refuses `call` when the ops it may add to the `ops` the ranks hold would pass `cap`: a
/// collective's [`collectives::ops_bound`] over `world` ranks (or its count list's), any other call's
/// few. Checked before lowering, so a collective of a few bytes of text that expands into billions
/// of ops is refused before any is built.
fn room(call: &Call, world: u32, ops: u64, cap: Option<Cap>, alg: &Algorithms) -> Result<(), Msg> {
    let Some(cap) = cap else {
        return Ok(());
    };
    let (bound, name) = match call {
        Call::Collective { op, .. } => {
            let n = match op {
                Collective::ReduceScatter { counts }
                | Collective::Scatterv { counts, .. }
                | Collective::Allgatherv { counts }
                | Collective::Alltoallv { send: counts } => counts.len() as u32,
                _ => world,
            };
            (collectives::ops_bound(op, n, alg), op.name())
        }
        _ => (8, ""),
    };
    let bytes = ops.saturating_add(bound).saturating_mul(OP_BYTES);
    if bytes <= cap.bytes {
        return Ok(());
    }
    Err(cap.refusal(
        bytes,
        &if name.is_empty() {
            format!("the trace's program ({ops} operations so far)")
        } else {
            format!(
                "the trace's program with this {name} (up to {bound} operations for it, on top \
                 of the {ops} so far)"
            )
        },
    ))
}

/// Lowers `call` (at `pos`, the rank's call number `index`) into `lowering` if [`room`] lets it
/// stay under `cap`, and adds the ops it appended to `ops`, the count the ranks hold: both the
/// streaming path and the held-back calls go through here.
#[inline(always)]
fn lower_within(
    lowering: &mut RankLowering,
    call: &Call,
    (pos, index): (Pos, u64),
    world: u32,
    (ops, cap): (&mut u64, Option<Cap>),
    shared: &mut Shared,
) -> Result<(), Msg> {
    let before = lowering.ops.len();
    let lowered = room(call, world, *ops, cap, &shared.algorithms)
        .and_then(|()| lowering.lower(call, pos, index, shared));
    *ops += (lowering.ops.len() - before) as u64;
    lowered
}

/// What the ranks' lowerings share: communicators, the collective order log, the call counts.
#[derive(Debug)]
struct Shared {
    comms: Comms,
    algorithms: Algorithms,
    log: Log,
    stats: CallStats,
}

/// A problem lowering one rank: the index of the call in the rank's program order (`u64::MAX` for
/// one found at its end), where the call came from, and the message.
type Problem = (u64, Pos, Msg);

/// One rank while the trace is read.
#[derive(Debug)]
struct RankBuild {
    lowering: RankLowering,
    /// Calls pushed so far.
    pushed: u64,
    /// Once set, the rank's calls from this index on are held back for [`Builder::finish`].
    held_from: Option<u64>,
    /// The held-back calls (only the communicator calls once the rank has a problem: they are all
    /// pairing creations needs).
    held: Vec<(Call, Pos)>,
    /// The rank's first problem; nothing after it is lowered.
    problem: Option<Problem>,
}

/// The most world ranks a program lowered from calls may have (2^20 = 1,048,576, beyond any traced
/// MPI run). Every rank costs about 270 bytes while a trace is read and lowered even when it makes no
/// call, so a trace of a few bytes naming rank 2^20 - 1 costs about 280 MB at most, where one naming
/// rank 2^24 cost gigabytes. Readers check their rank counts against this (and against the network's
/// nodes when known) before building; this is the MPI layer's own backstop.
pub const MAX_RANKS: u32 = 1 << 20;

/// Whether `call` can be lowered before the other ranks' calls are known: it names no communicator
/// but MPI_COMM_WORLD and neither creates nor frees one.
fn streams(call: &Call) -> bool {
    match call {
        Call::Send { comm, .. }
        | Call::Recv { comm, .. }
        | Call::Sendrecv { comm, .. }
        | Call::Collective { comm, .. } => *comm == WORLD,
        Call::Wait { .. }
        | Call::WaitAll { .. }
        | Call::WaitUnrecorded { .. }
        | Call::Compute { .. } => true,
        Call::CommSplit { .. }
        | Call::CommDup { .. }
        | Call::CommCreate { .. }
        | Call::CommFree { .. } => false,
    }
}

/// Whether `call` creates or frees a communicator (what pairing creations reads).
fn is_comm_call(call: &Call) -> bool {
    matches!(
        call,
        Call::CommSplit { .. }
            | Call::CommDup { .. }
            | Call::CommCreate { .. }
            | Call::CommFree { .. }
    )
}

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
            ranks: (0..ranks).map(|_| None).collect(),
            handles: (0..ranks).map(Handles::new).collect(),
            files: Vec::new(),
            shared: Shared {
                comms: Comms::new(ranks),
                algorithms: *algorithms,
                log: Log::default(),
                stats: CallStats::default(),
            },
            ops: 0,
            cap: Cap::current(),
        })
    }

    /// Number of world ranks.
    pub fn ranks(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// Registers a source file; positions in it are lines if `binary` is false, byte offsets otherwise.
    pub fn file(&mut self, name: &str, binary: bool) -> u32 {
        self.files.push((name.to_string(), binary));
        self.files.len() as u32 - 1
    }

    /// Defines a communicator of `members` (world ranks, in communicator order), known to every member
    /// as `handle` from its first call (OTF2's global definitions, the native format's `comm` lines).
    /// MPI_COMM_WORLD's handle cannot be redefined.
    pub fn define_comm(&mut self, handle: CommHandle, members: Vec<u32>) -> Result<()> {
        if handle == WORLD {
            return Err(Error::Invalid(format!(
                "communicator handle {WORLD} is MPI_COMM_WORLD and cannot be redefined"
            )));
        }
        let n = self.ranks();
        let mut seen = AHashMap::new();
        for (i, &m) in members.iter().enumerate() {
            if m >= n || seen.insert(m, i).is_some() {
                return Err(Error::Invalid(format!(
                    "communicator {handle} lists world rank {m} twice or outside 0..{n}"
                )));
            }
        }
        let comms = &mut self.shared.comms;
        let c = comms.add(members);
        let members = comms
            .members(c)
            .expect("an added communicator is not world");
        for (i, &m) in members.iter().enumerate() {
            let handles = match &mut self.ranks[m as usize] {
                Some(b) => &mut b.lowering.handles,
                None => &mut self.handles[m as usize],
            };
            let me = i as u32;
            handles.set(handle, Some(Bound { comm: c, me }));
        }
        Ok(())
    }

    /// Appends `call` to the program of world rank `rank` (below [`Builder::ranks`]).
    #[inline(always)]
    pub fn push(&mut self, rank: u32, call: Call, pos: Pos) {
        let r = rank as usize;
        let b = self.ranks[r].get_or_insert_with(|| {
            Box::new(RankBuild {
                lowering: RankLowering::new(rank, std::mem::take(&mut self.handles[r])),
                pushed: 0,
                held_from: None,
                held: Vec::new(),
                problem: None,
            })
        });
        let index = b.pushed;
        b.pushed += 1;
        if b.problem.is_some() {
            if is_comm_call(&call) {
                b.held.push((call, pos));
            }
            return;
        }
        if b.held_from.is_none() && streams(&call) {
            let world = self.handles.len() as u32;
            let (ops, cap) = (&mut self.ops, self.cap);
            if let Err(m) = lower_within(
                &mut b.lowering,
                &call,
                (pos, index),
                world,
                (ops, cap),
                &mut self.shared,
            ) {
                b.problem = Some((index, pos, m));
            }
            return;
        }
        b.held_from.get_or_insert(index);
        b.held.push((call, pos));
    }

    /// `path:line: message` (or `path (byte N): message`).
    fn error(&self, pos: Pos, message: impl std::fmt::Display) -> Error {
        match self.files.get(pos.file as usize) {
            Some((path, false)) => Error::Invalid(format!("{path}:{}: {message}", pos.at)),
            Some((path, true)) => Error::Invalid(format!("{path} (byte {}): {message}", pos.at)),
            None => Error::Invalid(message.to_string()),
        }
    }

    /// Pairs up the held-back creation calls, lowers what was held back and checks the collective
    /// order (see the module doc).
    pub fn finish(mut self) -> Result<Program> {
        let mut handles = std::mem::take(&mut self.handles);
        let mut held = vec![Vec::new(); self.ranks.len()];
        for ((b, h), calls) in self.ranks.iter_mut().zip(&mut handles).zip(&mut held) {
            if let Some(b) = b {
                h.clone_from(&b.lowering.handles);
                *calls = std::mem::take(&mut b.held);
            }
        }
        let created = comm::resolve(&held, &handles, &mut self.shared.comms)
            .map_err(|(pos, m)| self.error(pos, m))?;
        drop(handles);
        let world = self.ranks.len() as u32;
        for ((b, calls), made) in self.ranks.iter_mut().zip(held).zip(created) {
            let Some(b) = b.as_mut().filter(|b| b.problem.is_none()) else {
                continue;
            };
            b.lowering.made = made.into_iter();
            let first = b.held_from.unwrap_or(0);
            for (index, (call, pos)) in (first..).zip(calls) {
                let (ops, cap) = (&mut self.ops, self.cap);
                let lowered = lower_within(
                    &mut b.lowering,
                    &call,
                    (pos, index),
                    world,
                    (ops, cap),
                    &mut self.shared,
                );
                if let Err(m) = lowered {
                    b.problem = Some((index, pos, m));
                    break;
                }
            }
            if b.problem.is_none() {
                b.problem = b.lowering.close().err().map(|(pos, m)| (u64::MAX, pos, m));
            }
        }
        let mut first: Vec<Option<Problem>> = self
            .ranks
            .iter_mut()
            .map(|b| b.as_mut().and_then(|b| b.problem.take()))
            .collect();
        self.shared.log.mismatches(&mut first);
        if let Some((_, pos, m)) = first.into_iter().flatten().next() {
            return Err(self.error(pos, m));
        }
        let Shared {
            comms, mut stats, ..
        } = self.shared;
        stats.communicators = (1..comms.count()).filter(|&c| comms.size(c) > 1).count() as u32;
        let (per_rank, regions) = self
            .ranks
            .into_iter()
            .map(|b| b.map_or_else(Default::default, |b| (b.lowering.ops, b.lowering.regions)))
            .unzip();
        Ok(Program::from_rank_vecs(per_rank)
            .with_call_stats(stats)
            .with_regions(regions))
    }
}
