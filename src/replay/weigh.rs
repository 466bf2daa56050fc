//! What a program weighs before it is replayed: the phits its run delivers (the total a progress
//! bar counts towards) and the bytes its operations hold (the memory estimate's share for it).

use crate::network::NetworkModel;
use crate::program::{Op, Program};

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

/// Bytes `program` holds (its operations).
pub fn program_bytes(program: &Program) -> u64 {
    let ops: u64 = (0..program.ranks())
        .map(|r| program.rank_ops(r).len() as u64)
        .sum();
    ops * std::mem::size_of::<Op>() as u64 + u64::from(program.ranks()) * 8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::Progress;
    use crate::program::Protocol;

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
            let replay = super::super::Replay::new(topo.as_ref(), &model, 1).unwrap();
            let instruments = super::super::Instruments {
                progress: Some(&p),
                ..Default::default()
            };
            replay.program(program, &nodes, instruments).unwrap();
            assert_eq!(p.phits(), program_phits(program, &model));
        }
    }
}
