//! What drives traffic into the engine: closed-loop rank programs or open-loop sources.
//!
//! The engine moves messages; a [`Driver`] decides which messages exist and when. Rank programs
//! (seed 004's reactive sources: the MPI runtime, a layer above) issue sends as receives complete;
//! open-loop sources (`open_loop.rs`) generate packets at a rate, whatever the network does. Both
//! speak in [`Step`]s, with ranks mapped to nodes by the placement.

/// A message's note when its driver gives none.
pub const NO_NOTE: u32 = u32::MAX;

/// What a driver asks of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Inject a message.
    Send {
        /// Sending rank.
        from: u32,
        /// Receiving rank.
        to: u32,
        /// Size in bytes.
        bytes: u64,
        /// The driver's label for the message, handed back when it is consumed (the MPI runtime's
        /// matching tag or protocol message; the engine does not read it).
        token: u64,
        /// A second label of the driver's, handed back with the message like `token` ([`NO_NOTE`]
        /// when unused): the MPI runtime's critical chain, so that an arrival finds the chain of
        /// its send without a lookup.
        note: u32,
    },
    /// Wake `rank` after `cycles`.
    Sleep {
        /// The computing rank.
        rank: u32,
        /// Duration.
        cycles: u64,
    },
}

/// A consumed message, as the engine reports it to the driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Consumed {
    /// Sending rank.
    pub from: u32,
    /// Receiving rank.
    pub to: u32,
    /// The token the driver gave the message.
    pub token: u64,
    /// The note the driver gave the message.
    pub note: u32,
    /// Cycle the send was issued.
    pub issued_at: u64,
    /// Links crossed by the message's last packet, node links included.
    pub hops: u32,
    /// Fly time that packet's links took beyond one unit of length each (RUFT's return links are
    /// longer), so that a zero-load time counted by hops can add it.
    pub extra_fly: u64,
    /// Packets of the message (its zero-load time depends on them: the critical path's split).
    pub packets: u64,
}

/// A source of messages for the engine.
pub trait Driver {
    /// Cycle 0: the first steps.
    fn start(&mut self, out: &mut Vec<Step>);
    /// A message was consumed at `now`.
    fn consumed(&mut self, now: u64, msg: &Consumed, out: &mut Vec<Step>);
    /// A wake-up asked for by `Step::Sleep` fired for `who`.
    fn wake(&mut self, now: u64, who: u32, out: &mut Vec<Step>);
    /// True when the run should end now even though events remain (open-loop measurement done).
    fn stop(&self, _now: u64) -> bool {
        false
    }
    /// True when every source has finished its work (closed loop: every rank reached its end).
    fn complete(&self) -> bool;
    /// Ranks blocked in a receive, (rank, source, matching tag), for deadlock reports.
    fn blocked(&self) -> Vec<(u32, u32, u64)> {
        Vec::new()
    }
}
