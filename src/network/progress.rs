//! What a running simulation publishes for an observer thread (a progress bar): the current cycle,
//! the messages delivered, and the phits delivered, the measure of work done that progress and its
//! estimate of the time left are computed from.
//!
//! The engine publishes the cycle and the messages (every 1024 event cycles); the phits are counted
//! on the driver's side, by [`Counted`], which wraps whatever drives the run and adds each consumed
//! message's packets times the packet size (`crate::replay::program_phits` is the total the same
//! count reaches when a program's run completes).

use super::driver::{Consumed, Driver, Step};
use std::sync::atomic::{AtomicU64, Ordering};

/// What a running simulation publishes for an observer thread, such as a progress bar.
#[derive(Debug, Default)]
pub struct Progress {
    cycle: AtomicU64,
    delivered: AtomicU64,
    phits: AtomicU64,
}

impl Progress {
    pub(super) fn publish(&self, cycle: u64, delivered: u64) {
        self.cycle.store(cycle, Ordering::Relaxed);
        self.delivered.store(delivered, Ordering::Relaxed);
    }

    /// The last published (cycle, messages delivered).
    pub fn read(&self) -> (u64, u64) {
        (
            self.cycle.load(Ordering::Relaxed),
            self.delivered.load(Ordering::Relaxed),
        )
    }

    /// Phits of the messages delivered so far (data and protocol messages alike).
    pub fn phits(&self) -> u64 {
        self.phits.load(Ordering::Relaxed)
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
