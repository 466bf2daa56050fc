//! Compute time from timestamps, end to end: an OTF2 and a DUMPI trace whose rank 0
//! computes 1 ms before sending one small message replay in exactly 1 ms × `cycles_per_second` plus
//! the message's time; `compute_scale=0.5` halves the compute part and `compute=off` removes it.
//! The message's time is that of the same exchange written as a native trace.

use super::{dumpi, otf2};
use crate::mpi::collectives::Algorithms;
use crate::network::NetworkModel;
use crate::program::Program;
use crate::replay::simulate;

/// Completion cycles of `p` on two nodes of a small fat tree, under its own MPI model with
/// `compute_scale` set to `scale`.
fn completion(p: &Program, scale: f64) -> u64 {
    let topo = crate::topology::build("fat-tree:k=4,n=2").unwrap();
    let mut mpi = *p.mpi();
    mpi.compute_scale = scale;
    let p = p.clone().with_mpi(mpi);
    simulate(topo.as_ref(), &NetworkModel::default(), &p, &[0, 1], 1)
        .unwrap()
        .completion_cycles
}

/// The exchange alone, as a native trace: rank 0 sends `bytes` to rank 1 (a standard send, so
/// under MPICH's model), rank 1 receives it.
fn communication(bytes: u64) -> u64 {
    let text = format!("netreplay-trace 3\nranks 2\n0 isend 1 {bytes} 0 1\n0 wait 1\n1 recv 0 0\n");
    let p = super::parser::parse("exchange", text.as_bytes())
        .unwrap()
        .with_mpi(crate::program::MpiModel::mpich());
    completion(&p, 1.0)
}

/// Checks the three replays of `p`, whose rank 0 computes `compute` cycles before its send of
/// `bytes` and nothing else computes.
fn check(p: &Program, compute: u64, bytes: u64) {
    let comm = communication(bytes);
    assert_eq!(
        completion(p, 0.0),
        comm,
        "compute=off: the communication alone"
    );
    assert_eq!(completion(p, 1.0), compute + comm);
    assert_eq!(completion(p, 0.5), compute / 2 + comm);
}

#[test]
fn dumpi_compute_gaps_replay_exactly() {
    use dumpi::writer::{Arg, RankWriter, TYPE_SIZES, scratch, status, write_trace};
    let mut ranks: Vec<RankWriter> = (0..2)
        .map(|_| {
            let mut w = RankWriter::new(1_700_000_000_000_000_000);
            w.init();
            w
        })
        .collect();
    // Every writer call takes 1 µs and follows the previous one at once: the only gap is 1 ms.
    ranks[0].compute(1_000_000);
    let (int, world) = (Arg::H(9), Arg::H(2));
    ranks[0].call(
        dumpi::functions::SEND,
        &[Arg::I(4), int.clone(), Arg::I(1), Arg::I(3), world.clone()],
    );
    let st = Arg::St(vec![status(0, 3)]);
    ranks[1].call(
        dumpi::functions::RECV,
        &[Arg::I(4), int, Arg::I(0), Arg::I(3), world, st],
    );
    let files: Vec<Vec<u8>> = ranks
        .into_iter()
        .map(|mut w| {
            w.finalize();
            w.finish(&TYPE_SIZES)
        })
        .collect();
    let meta = write_trace(&scratch("compute-replay"), "t", &files);
    for (cps, compute) in [(1e9, 1_000_000), (2.5e9, 2_500_000)] {
        let p = dumpi::read(&meta, &Algorithms::default(), cps).unwrap();
        check(&p.with_mpi(crate::program::MpiModel::mpich()), compute, 16);
    }
}

#[test]
fn otf2_compute_gaps_replay_exactly() {
    use otf2::writer::{Ev, Spec, scratch};
    const MS: u64 = 1_000_000;
    let mut s = Spec::new(2);
    for r in 0..2 {
        s.call(r, "MPI_Init", 0, 10, vec![]);
    }
    let send = Ev::Send {
        to: 1,
        comm: 0,
        tag: 7,
        len: 100,
    };
    // Rank 0 leaves MPI_Init at 10 ns and enters MPI_Send at 1 ms + 10 ns; every other call starts
    // when the one before it ends.
    s.call(0, "MPI_Send", 10 + MS, 20 + MS, vec![send]);
    s.call(0, "MPI_Finalize", 20 + MS, 30 + MS, vec![]);
    let recv = Ev::Recv {
        from: 0,
        comm: 0,
        tag: 7,
        len: 100,
    };
    s.call(1, "MPI_Recv", 10, 30 + MS, vec![]);
    s.events[1].insert(3, (25 + MS, recv));
    s.call(1, "MPI_Finalize", 30 + MS, 40 + MS, vec![]);
    let anchor = s.write(&scratch("compute-replay"));
    for (cps, compute) in [(1e9, 1_000_000), (2.5e9, 2_500_000)] {
        let p = otf2::read(&anchor, &Algorithms::default(), cps).unwrap();
        check(&p, compute, 100);
    }
}
