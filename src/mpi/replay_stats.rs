//! What the MPI layer did during a replay besides moving application data (the report's `mpi`
//! section), kept by [`super::runtime::Ranks`].

use serde::{Deserialize, Serialize};

/// Where every rank's time went, summed and maximised over ranks (cycles).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeSplit {
    /// Computing, summed over ranks.
    pub compute_sum: u64,
    /// Largest computing time of a rank.
    pub compute_max: u64,
    /// Blocked in waits on send requests (rendezvous, synchronous sends), summed.
    pub send_sum: u64,
    /// Largest such time of a rank.
    pub send_max: u64,
    /// Blocked in receives and waits on receives, summed.
    pub wait_sum: u64,
    /// Largest such time of a rank.
    pub wait_max: u64,
}

/// What the MPI layer did besides moving application data: the report's `mpi` section.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MpiStats {
    /// Messages sent through the rendezvous handshake.
    pub rendezvous_messages: u64,
    /// Request-to-send and clear-to-send messages injected (counted apart from data messages).
    pub control_messages: u64,
    /// Self-messages, delivered locally.
    pub self_messages: u64,
    /// Bytes of self-messages.
    pub self_bytes: u64,
    /// Where the ranks' time went.
    pub time: TimeSplit,
}
