//! What a running simulation publishes for an observer thread (a progress bar): the current cycle,
//! the messages delivered, and the phits delivered, the measure of work done that progress and its
//! estimate of the time left are computed from.
//!
//! The engine publishes the cycle and the messages (every 1024 event cycles); the phits are counted
//! on the driver's side, by [`Counted`], which wraps whatever drives the run and adds each consumed
//! message's packets times the packet size (`crate::replay::program_phits` is the total the same
//! count reaches when a program's run completes). The flit engine also publishes the phits of the
//! packets it has delivered, which reach the same total packet by packet, so a run of a few huge
//! messages moves its progress before the first of them is whole.

use super::driver::{Consumed, Driver, Step};
use std::sync::atomic::{AtomicU64, Ordering};

/// What a running simulation publishes for an observer thread, such as a progress bar.
#[derive(Debug, Default)]
pub struct Progress {
    cycle: AtomicU64,
    delivered: AtomicU64,
    phits: AtomicU64,
    packet_phits: AtomicU64,
}

impl Progress {
    /// Publishes the cycle, the messages delivered and, from an engine that delivers packets, the
    /// phits of the packets delivered (0 otherwise).
    pub(super) fn publish(&self, cycle: u64, delivered: u64, packet_phits: u64) {
        self.cycle.store(cycle, Ordering::Relaxed);
        self.delivered.store(delivered, Ordering::Relaxed);
        self.packet_phits.store(packet_phits, Ordering::Relaxed);
    }

    /// The last published (cycle, messages delivered).
    pub fn read(&self) -> (u64, u64) {
        (
            self.cycle.load(Ordering::Relaxed),
            self.delivered.load(Ordering::Relaxed),
        )
    }

    /// Phits delivered so far (data and protocol messages alike): of whole messages, or of single
    /// packets where the engine publishes them.
    pub fn phits(&self) -> u64 {
        self.phits
            .load(Ordering::Relaxed)
            .max(self.packet_phits.load(Ordering::Relaxed))
    }
}

/// A driver that adds the phits of every message it consumes to `progress`: the run is the same
/// (it only counts), and it is how progress measures work without the engine's help.
pub(super) struct Counted<'a, D> {
    pub(super) inner: D,
    pub(super) progress: Option<&'a Progress>,
    pub(super) packet_phits: u64,
}

impl<D: Driver> Driver for Counted<'_, D> {
    fn start(&mut self, out: &mut Vec<Step>) {
        self.inner.start(out);
    }

    fn consumed(&mut self, now: u64, msg: &Consumed, out: &mut Vec<Step>) {
        if let Some(p) = self.progress {
            p.phits
                .fetch_add(msg.packets * self.packet_phits, Ordering::Relaxed);
        }
        self.inner.consumed(now, msg, out);
    }

    fn wake(&mut self, now: u64, who: u32, out: &mut Vec<Step>) {
        self.inner.wake(now, who, out);
    }

    fn stop(&self, now: u64) -> bool {
        self.inner.stop(now)
    }

    fn complete(&self) -> bool {
        self.inner.complete()
    }

    fn blocked(&self) -> Vec<(u32, u32, u64)> {
        self.inner.blocked()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Phits count from whole messages or from packets, whichever has gone further: packets move it
    /// during a huge message, and an engine without packets (0) leaves the messages' count.
    #[test]
    fn phits_are_the_further_of_messages_and_packets() {
        let p = Progress::default();
        p.phits.fetch_add(64, Ordering::Relaxed);
        p.publish(10, 1, 0);
        assert_eq!((p.read(), p.phits()), ((10, 1), 64));
        p.publish(20, 1, 1_000);
        assert_eq!(p.phits(), 1_000);
        p.phits.fetch_add(2_000, Ordering::Relaxed);
        assert_eq!(p.phits(), 2_064);
    }
}
