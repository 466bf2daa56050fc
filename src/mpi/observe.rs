//! What the runtime tells an observer about every rank's time, for the replay timeline.
//!
//! The runtime ([`super::runtime::Ranks`]) knows when each rank computes, posts a send, waits, enters
//! and leaves a collective, and finishes; an observer (the timeline writer of `report/timeline.rs`)
//! hears each interval once it has ended, so it can stream it to disk at once. Every cycle of a rank
//! from 0 to its finishing cycle is in exactly one [`Activity`] interval or between zero-time ops, so a
//! rank's intervals sum to its finishing cycle. No observer, no cost: the runtime checks an `Option`.

/// What a rank did over an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// Local computation (`Compute` ops, after `compute_scale`).
    Compute,
    /// Copying a self-message (`self_copy` cycles per byte).
    SelfCopy,
    /// Blocked in a receive or a wait on a receive request, for a message from `from` with `tag`.
    Recv {
        /// Source rank.
        from: u32,
        /// Matching tag (context in the upper 32 bits).
        tag: u64,
    },
    /// Blocked in a wait on a send request (rendezvous or synchronous send) to `to`.
    Send {
        /// Destination rank.
        to: u32,
        /// Matching tag.
        tag: u64,
    },
    /// Blocked in `waitall` with `requests` requests outstanding when it started.
    WaitAll {
        /// Outstanding requests.
        requests: u32,
    },
}

impl Activity {
    /// Short name, as the timeline labels its slices.
    pub fn name(&self) -> &'static str {
        match self {
            Activity::Compute => "compute",
            Activity::SelfCopy => "self-copy",
            Activity::Recv { .. } => "wait recv",
            Activity::Send { .. } => "wait send",
            Activity::WaitAll { .. } => "waitall",
        }
    }

    /// True for the blocked kinds (not computing or copying).
    pub fn blocked(&self) -> bool {
        !matches!(self, Activity::Compute | Activity::SelfCopy)
    }
}

/// Hears the runtime's events, each once, in simulation order (so per rank in time order).
pub trait RankObserver {
    /// `rank` spent `start..end` on `what` (heard at `end`).
    fn interval(&mut self, rank: u32, start: u64, end: u64, what: Activity);
    /// `rank` posted a send of `bytes` to `to` with `tag` at cycle `at` (it takes no time).
    fn send(&mut self, rank: u32, at: u64, to: u32, bytes: u64, tag: u64);
    /// A receive of `rank` for a message from `from` with `tag` got its data at cycle `at` (an eager
    /// message matched, a rendezvous's data arrived, or a posted receive found the message already
    /// there). Messages from one sender with one tag are received in the order they were sent (MPI's
    /// non-overtaking rule), which is how an observer pairs this with its [`RankObserver::send`].
    fn received(&mut self, rank: u32, at: u64, from: u32, tag: u64);
    /// `rank` entered (`Some(name)`) or left (`None`) a collective call at cycle `at`.
    fn region(&mut self, rank: u32, at: u64, name: Option<&'static str>);
    /// `rank` reached the end of its program at cycle `at`.
    fn finished(&mut self, rank: u32, at: u64);
}
