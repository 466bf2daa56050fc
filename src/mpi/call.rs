//! The MPI calls of a trace, as every reader decodes them: the one stream between trace formats and the
//! MPI layer.
//!
//! A reader (native, SimGrid, FSIN, OTF2, DUMPI) only decodes: it turns its records into [`Call`]s in each
//! rank's program order and hands them to [`super::Builder::push`]. Ranks and roots are as the call saw
//! them, relative to its communicator; requests and communicators are the rank's own handles. Everything
//! MPI means by them (groups, rank translation, matching contexts, wildcards, request completion,
//! collective algorithms, protocols) is the MPI layer's.

/// A rank's handle for a communicator. Handles are rank-local, as in MPI: two ranks may name the same
/// communicator differently, and a freed handle may be reused. [`WORLD`] and [`SELF`] are predefined.
pub type CommHandle = u32;

/// MPI_COMM_WORLD on every rank.
pub const WORLD: CommHandle = 0;

/// MPI_COMM_SELF on every rank.
pub const SELF: CommHandle = 1;

/// A rank's handle for a request (rank-local; may be reused once completed).
pub type ReqHandle = u32;

/// The source a receive asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A rank of the receive's communicator.
    Rank(u32),
    /// MPI_ANY_SOURCE: resolved from the [`Status`] the trace recorded for the completed receive.
    Any,
    /// MPI_ANY_SOURCE in a format that records no status (SimGrid's `-333`), on MPI_COMM_WORLD:
    /// left to the replay, which matches it in arrival order ([`crate::program::ANY_SOURCE`]).
    Arrival,
}

/// The tag a receive asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagSel {
    /// This tag (an MPI tag, below 2^31; on MPI_COMM_WORLD any matching tag, so that lowered programs
    /// written back as traces read the same).
    Tag(u64),
    /// MPI_ANY_TAG: resolved from the [`Status`] the trace recorded.
    Any,
}

/// What the trace recorded of a completed receive: the message's actual source (a rank of the receive's
/// communicator) and tag. Replaces wildcards; formats that record nothing pass `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    /// Source rank, relative to the receive's communicator.
    pub source: u32,
    /// Tag of the matched message.
    pub tag: u64,
}

/// How a send completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SendMode {
    /// MPI_Send / MPI_Isend (also MPI_Rsend and MPI_Bsend): eager or rendezvous by size.
    #[default]
    Standard,
    /// MPI_Ssend / MPI_Issend: completes only once the receive has matched and the data has moved
    /// (always rendezvous).
    Synchronous,
    /// A send the rank never waits for: seed 004's reactive sends, FSIN's queued sends and the native
    /// format's `send`, whose documented semantics is that the rank goes on at once (the message itself
    /// still follows the protocol).
    Detached,
}

/// One collective operation as the calling rank sees it. Byte counts are MPI's count times the datatype
/// size: the whole vector for bcast, reduce, allreduce, scan and exscan; one rank's block for gather,
/// scatter, allgather, alltoall and reduce_scatter_block. Vector (`v`) variants carry per-rank counts,
/// indexed by rank of the communicator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Collective {
    /// MPI_Barrier.
    Barrier,
    /// MPI_Bcast of `bytes` from `root`.
    Bcast {
        /// Root rank.
        root: u32,
        /// Vector size.
        bytes: u64,
    },
    /// MPI_Reduce of a `bytes` vector to `root`.
    Reduce {
        /// Root rank.
        root: u32,
        /// Vector size.
        bytes: u64,
    },
    /// MPI_Allreduce of a `bytes` vector.
    Allreduce {
        /// Vector size.
        bytes: u64,
    },
    /// MPI_Gather: `bytes` from each rank to `root`.
    Gather {
        /// Root rank.
        root: u32,
        /// Per-rank block.
        bytes: u64,
    },
    /// MPI_Scatter: `bytes` to each rank from `root`.
    Scatter {
        /// Root rank.
        root: u32,
        /// Per-rank block.
        bytes: u64,
    },
    /// MPI_Allgather of `bytes` per rank.
    Allgather {
        /// Per-rank block.
        bytes: u64,
    },
    /// MPI_Alltoall with `bytes` per ordered pair.
    Alltoall {
        /// Per-destination block.
        bytes: u64,
    },
    /// MPI_Scan (inclusive prefix reduction) of a `bytes` vector.
    Scan {
        /// Vector size.
        bytes: u64,
    },
    /// MPI_Exscan (exclusive prefix reduction) of a `bytes` vector.
    Exscan {
        /// Vector size.
        bytes: u64,
    },
    /// MPI_Reduce_scatter_block: each rank ends with a `bytes` block of the reduced vector.
    ReduceScatterBlock {
        /// Per-rank block.
        bytes: u64,
    },
    /// MPI_Reduce_scatter: rank i ends with `counts[i]` bytes of the reduced vector.
    ReduceScatter {
        /// Bytes each rank receives.
        counts: Vec<u64>,
    },
    /// MPI_Gatherv: this rank sends `bytes` to `root` (the root's own block included).
    Gatherv {
        /// Root rank.
        root: u32,
        /// This rank's block.
        bytes: u64,
    },
    /// MPI_Scatterv: the root sends `counts[i]` bytes to rank i (counts matter at the root only).
    Scatterv {
        /// Root rank.
        root: u32,
        /// Bytes for each rank.
        counts: Vec<u64>,
    },
    /// MPI_Allgatherv: rank i contributes `counts[i]` bytes.
    Allgatherv {
        /// Bytes of each rank.
        counts: Vec<u64>,
    },
    /// MPI_Alltoallv: this rank sends `send[i]` bytes to rank i.
    Alltoallv {
        /// Bytes to each rank.
        send: Vec<u64>,
    },
}

/// A collective's size that every member gives alike ([`Collective::shared_size`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedSize<'a> {
    /// No size every member shares (a barrier, or sizes per rank).
    None,
    /// The bytes of each block.
    Bytes(u64),
    /// Bytes per rank.
    Counts(&'a [u64]),
}

impl Collective {
    /// The MPI name in lower case (`allreduce`, `reduce_scatter`...), for messages and statistics.
    pub fn name(&self) -> &'static str {
        match self {
            Collective::Barrier => "barrier",
            Collective::Bcast { .. } => "bcast",
            Collective::Reduce { .. } => "reduce",
            Collective::Allreduce { .. } => "allreduce",
            Collective::Gather { .. } => "gather",
            Collective::Scatter { .. } => "scatter",
            Collective::Allgather { .. } => "allgather",
            Collective::Alltoall { .. } => "alltoall",
            Collective::Scan { .. } => "scan",
            Collective::Exscan { .. } => "exscan",
            Collective::ReduceScatterBlock { .. } => "reduce_scatter_block",
            Collective::ReduceScatter { .. } => "reduce_scatter",
            Collective::Gatherv { .. } => "gatherv",
            Collective::Scatterv { .. } => "scatterv",
            Collective::Allgatherv { .. } => "allgatherv",
            Collective::Alltoallv { .. } => "alltoallv",
        }
    }

    /// What every member knows of the data moved, and so must give alike (MPI's matching counts):
    /// the bytes of a collective with one size for all, the per-rank counts of `reduce_scatter` and
    /// `allgatherv`; nothing for a barrier, nor for the collectives whose sizes are per rank.
    pub fn shared_size(&self) -> SharedSize<'_> {
        match self {
            Collective::Bcast { bytes, .. }
            | Collective::Reduce { bytes, .. }
            | Collective::Allreduce { bytes }
            | Collective::Gather { bytes, .. }
            | Collective::Scatter { bytes, .. }
            | Collective::Allgather { bytes }
            | Collective::Alltoall { bytes }
            | Collective::Scan { bytes }
            | Collective::Exscan { bytes }
            | Collective::ReduceScatterBlock { bytes } => SharedSize::Bytes(*bytes),
            Collective::ReduceScatter { counts } | Collective::Allgatherv { counts } => {
                SharedSize::Counts(counts)
            }
            Collective::Barrier
            | Collective::Gatherv { .. }
            | Collective::Scatterv { .. }
            | Collective::Alltoallv { .. } => SharedSize::None,
        }
    }

    /// The root, for rooted collectives.
    pub fn root(&self) -> Option<u32> {
        match *self {
            Collective::Bcast { root, .. }
            | Collective::Reduce { root, .. }
            | Collective::Gather { root, .. }
            | Collective::Scatter { root, .. }
            | Collective::Gatherv { root, .. }
            | Collective::Scatterv { root, .. } => Some(root),
            _ => None,
        }
    }
}

/// One MPI call of one rank, in program order.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// MPI_Send / MPI_Ssend (`req: None`, blocking) or MPI_Isend / MPI_Issend (`req: Some`).
    Send {
        /// Communicator.
        comm: CommHandle,
        /// Destination, a rank of `comm` (may be the caller itself: a self-message).
        dest: u32,
        /// Tag (see [`TagSel::Tag`] for its range).
        tag: u64,
        /// Message size in bytes.
        bytes: u64,
        /// Standard or synchronous.
        mode: SendMode,
        /// Request of a non-blocking send.
        req: Option<ReqHandle>,
    },
    /// MPI_Recv (`req: None`) or MPI_Irecv (`req: Some`; then the status comes with its completion).
    Recv {
        /// Communicator.
        comm: CommHandle,
        /// Source.
        source: Source,
        /// Tag.
        tag: TagSel,
        /// Request of a non-blocking receive.
        req: Option<ReqHandle>,
        /// What a blocking receive recorded.
        status: Option<Status>,
    },
    /// MPI_Sendrecv and MPI_Sendrecv_replace: a send and a receive in flight together.
    Sendrecv {
        /// Communicator.
        comm: CommHandle,
        /// Destination rank of `comm`.
        dest: u32,
        /// Send tag.
        send_tag: u64,
        /// Bytes sent.
        bytes: u64,
        /// Source.
        source: Source,
        /// Receive tag.
        recv_tag: TagSel,
        /// What the receive recorded.
        status: Option<Status>,
    },
    /// One request completes here: MPI_Wait, or any wait or test the trace records as completing it
    /// (a recorded `waitany` index, a `waitsome`/`testsome` output, a successful `test`).
    Wait {
        /// The completed request.
        req: ReqHandle,
        /// What the trace recorded for it, if it is a receive.
        status: Option<Status>,
    },
    /// MPI_Waitall: every listed request completes; `None` lists every request the rank has open
    /// (formats that do not record the list, such as SimGrid's).
    WaitAll {
        /// The requests, or every open one.
        reqs: Option<Vec<ReqHandle>>,
    },
    /// MPI_Waitany / MPI_Waitsome whose completions the trace does not record. Rule (documented in
    /// `traces/FORMAT.md`): `waitany` completes whichever of its open requests completes first at
    /// replay time (ties: the first listed), leaving the others open; `waitsome` every listed one
    /// that is still open.
    WaitUnrecorded {
        /// The listed requests.
        reqs: Vec<ReqHandle>,
        /// `true` for waitsome, `false` for waitany.
        some: bool,
    },
    /// A collective; `req: Some` for its non-blocking form (MPI_Iallreduce...), completed by a wait.
    Collective {
        /// Communicator.
        comm: CommHandle,
        /// What it does.
        op: Collective,
        /// Request of a non-blocking collective.
        req: Option<ReqHandle>,
    },
    /// Computation between MPI calls, in network cycles (before `compute_scale`).
    Compute {
        /// Duration.
        cycles: u64,
    },
    /// MPI_Comm_split (collective over `parent`): ranks with the same `color` form a new communicator,
    /// ordered by (`key`, rank in `parent`); `color: None` is MPI_UNDEFINED (the rank gets no
    /// communicator and `new` is ignored).
    CommSplit {
        /// Parent communicator.
        parent: CommHandle,
        /// Colour, or MPI_UNDEFINED.
        color: Option<u32>,
        /// Ordering key.
        key: i64,
        /// The handle the rank gets.
        new: CommHandle,
    },
    /// MPI_Comm_dup (collective over `parent`), and MPI_Cart_create / MPI_Graph_create without
    /// reordering: the same group in a new communicator.
    CommDup {
        /// Parent communicator.
        parent: CommHandle,
        /// The handle the rank gets.
        new: CommHandle,
    },
    /// MPI_Comm_create (collective over `parent`): the communicator of `group` (ranks of `parent`, in
    /// the order of the new communicator); a rank outside `group` gets MPI_COMM_NULL.
    CommCreate {
        /// Parent communicator.
        parent: CommHandle,
        /// Members, as ranks of `parent`.
        group: Vec<u32>,
        /// The handle a member gets.
        new: CommHandle,
    },
    /// MPI_Comm_free: the handle may be reused afterwards.
    CommFree {
        /// The freed handle.
        comm: CommHandle,
    },
}
