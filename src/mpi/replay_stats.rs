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
    /// Latencies of the application's messages (control messages not counted); the report's
    /// `mean_message_latency` and `max_message_latency` come from here, not from the engine, which
    /// cannot tell a request-to-send from data.
    #[serde(skip)]
    pub latency: MessageLatency,
}

/// Latencies of application messages as the application sees them: from the send's posting to the
/// consumption of its data. Under rendezvous that spans the request-to-send, the clear-to-send and
/// the data; the engine's own count would average the control messages in and time the data from its
/// clear-to-send.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MessageLatency {
    /// Sum of the latencies, in cycles.
    pub sum: u128,
    /// The longest, in cycles.
    pub max: u64,
    /// Messages counted.
    pub count: u64,
}

impl MessageLatency {
    /// Counts one message consumed `latency` cycles after its send was posted.
    pub fn add(&mut self, latency: u64) {
        self.sum += u128::from(latency);
        self.max = self.max.max(latency);
        self.count += 1;
    }

    /// Adds another set's messages (jobs sharing one network).
    pub fn merge(&mut self, other: &MessageLatency) {
        self.sum += other.sum;
        self.max = self.max.max(other.max);
        self.count += other.count;
    }

    /// The mean latency, if any message was counted.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }
}
