//! What a running simulation publishes for an observer thread (a progress bar): the current cycle,
//! the messages delivered, and the phits delivered, the measure of work done that progress and its
//! estimate of the time left are computed from.
//!
//! The engine publishes the cycle and the messages (every 1024 event cycles); the phits are counted
//! on the driver's side, by [`Counted`], which wraps whatever drives the run and adds each consumed
//! message's packets times the packet size. [`program_phits`] is the total the same count reaches
//! when a program's run completes.

use super::NetworkModel;
use super::driver::{Consumed, Driver, Step};
use crate::workload::{Op, Program};
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

/// Phits a run of `program` on `model` delivers in all: each message that crosses the network is
/// `packets_for(bytes)` packets of `packet_phits`, and a rendezvous message (above the eager
/// threshold, or a synchronous send) adds its request-to-send and clear-to-send of `control_bytes`.
/// Self-messages never enter the network.
pub fn program_phits(program: &Program, model: &NetworkModel) -> u64 {
    let mpi = program.mpi();
    let phits = |bytes| model.packets_for(bytes) * u64::from(model.packet_phits);
    let control = 2 * phits(mpi.control_bytes);
    let mut total = 0u64;
    for rank in 0..program.ranks() {
        for op in program.rank_ops(rank) {
            let (to, bytes, sync) = match *op {
                Op::Send { to, bytes, .. } | Op::Isend { to, bytes, .. } => (to, bytes, false),
                Op::Issend { to, bytes, .. } => (to, bytes, true),
                _ => continue,
            };
            if to != rank {
                let extra = if sync || mpi.rendezvous(bytes) {
                    control
                } else {
                    0
                };
                total = total.saturating_add(phits(bytes) + extra);
            }
        }
    }
    total
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
    use crate::mpi::Protocol;

    #[test]
    fn the_phits_counted_reach_the_programs_total_eager_or_rendezvous() {
        let topo = crate::topology::build("fat-tree:k=4,n=2").unwrap();
        let nodes: Vec<u32> = (0..16).collect();
        let model = NetworkModel::default();
        let bu = crate::workload::build("bu:size=1000").unwrap();
        let eager = bu.generator.generate(16).unwrap();
        // 4 stages x 16 sends of 1000 bytes: 16 packets of 16 phits each.
        assert_eq!(program_phits(&eager, &model), 4 * 16 * 256);
        let mut mpi = *eager.mpi();
        mpi.protocol = Protocol::Rendezvous;
        mpi.eager_threshold = 100;
        let rendezvous = eager.clone().with_mpi(mpi);
        // Each message adds a request-to-send and a clear-to-send of one packet.
        assert_eq!(program_phits(&rendezvous, &model), 4 * 16 * (256 + 2 * 16));
        for program in [&eager, &rendezvous] {
            let p = Progress::default();
            super::super::simulate_observed(topo.as_ref(), &model, program, &nodes, 1, Some(&p))
                .unwrap();
            assert_eq!(p.phits(), program_phits(program, &model));
        }
    }
}
