//! The MPI layer: one place between the trace readers and the engine that owns what MPI means.
//!
//! ```text
//! reader (native, SimGrid, FSIN, OTF2, DUMPI) ──Call──► Builder ──► Program (per-rank Ops) ──► runtime
//!   decodes records only          communicators, rank translation,       matching, requests, eager /
//!                                 contexts, wildcards, request handles,  rendezvous, self-messages,
//!                                 collective algorithms (selection)      compute scaling, time split
//! ```
//!
//! - [`call`]: the [`Call`] stream every reader produces, in the trace's own terms (communicator-relative
//!   ranks, rank-local handles).
//! - [`comm`]: communicators as ordered groups of world ranks; creation by split, dup and create,
//!   resolved across ranks as MPI does (the k-th creation call on a communicator is one collective).
//! - [`Builder`] (`lower.rs`): lowers each rank's calls to the engine's [`crate::program::Op`]s:
//!   ranks translated to world ranks, tags put in the communicator's context ([`p2p_tag`],
//!   [`collective_tag`]), wildcards resolved from recorded statuses, collectives expanded by
//!   [`collectives`] with the algorithm [`collectives::Algorithms`] selects, blocking calls as a
//!   non-blocking call and its wait.
//! - [`runtime`]: the engine's [`crate::network::Driver`] for rank programs: MPI matching (non-overtaking,
//!   unexpected queue), requests, the eager and rendezvous protocols of [`MpiModel`](crate::program::MpiModel), local
//!   self-messages, and the compute / send / wait time of every rank.

pub mod call;
pub mod collectives;
pub mod comm;
pub mod critical_path;
pub(crate) mod handle_map;
mod lower;

pub mod observe;
mod replay_stats;
pub mod runtime;

pub use call::{Call, CommHandle, ReqHandle, SELF, SendMode, Source, Status, TagSel, WORLD};
pub use lower::{Builder, MAX_RANKS, Pos};

/// The matching tag of user tag `tag` on the communicator with global index `comm`: its point-to-point
/// context (2 × comm) in the upper 32 bits. On MPI_COMM_WORLD (index 0) it is the tag itself.
pub fn p2p_tag(comm: u32, tag: u32) -> u64 {
    (u64::from(comm) * 2) << 32 | u64::from(tag)
}

/// The matching tag of the `seq`-th collective call on the communicator with global index `comm`: its
/// collective context (2 × comm + 1) in the upper 32 bits, the call's sequence number (mod 2^32) below.
/// Collective traffic never matches point-to-point traffic or another communicator's, as MPI libraries
/// ensure with a separate context id per communicator.
pub fn collective_tag(comm: u32, seq: u64) -> u64 {
    (u64::from(comm) * 2 + 1) << 32 | (seq & 0xFFFF_FFFF)
}

/// A matching tag in MPI terms, for messages: `tag 5`, `tag 5 on communicator 3`, `collective #7 on
/// communicator 0`.
pub fn describe_tag(tag: u64) -> String {
    let (context, low) = (tag >> 32, tag & 0xFFFF_FFFF);
    match (context, context % 2) {
        (0, _) => format!("tag {low}"),
        (c, 0) => format!("tag {low} on communicator {}", c / 2),
        (c, _) => format!("collective #{} on communicator {}", low + 1, c / 2),
    }
}
