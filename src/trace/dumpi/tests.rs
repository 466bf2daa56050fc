//! Decoding semantics on traces written by [`super::writer`]: exact computation, wildcards,
//! MPI_PROC_NULL, request completion, persistent requests, communicators, collectives, old formats.

use super::functions::*;
use super::writer::{Arg, RankWriter, TYPE_SIZES, scratch, status, write_trace};
use super::{read, read_calls};
use crate::mpi::call::Collective;
use crate::mpi::collectives::Algorithms;
use crate::mpi::{Call, SendMode, Source, Status, TagSel, WORLD};
use crate::program::Op;
use Arg::{B, H, I, Ints, St};

const INT: u16 = 9;
const DOUBLE: u16 = 14;
const W: u16 = 2;

/// Writes `ranks` (each given its writer) as trace `name` and returns the meta path.
fn trace(name: &str, ranks: Vec<RankWriter>) -> std::path::PathBuf {
    let files: Vec<Vec<u8>> = ranks.into_iter().map(|w| w.finish(&TYPE_SIZES)).collect();
    write_trace(&scratch(name), "t", &files)
}

fn writers(n: usize) -> Vec<RankWriter> {
    (0..n)
        .map(|_| {
            let mut w = RankWriter::new(1_700_000_000_000_000_000);
            w.init();
            w
        })
        .collect()
}

fn send(w: &mut RankWriter, count: i32, ty: u16, dest: i32, tag: i32) {
    w.call(SEND, &[I(count), H(ty), I(dest), I(tag), H(W)]);
}

fn recv(w: &mut RankWriter, source: i32, tag: i32, st: (i32, i32)) {
    let s = St(vec![status(st.0, st.1)]);
    w.call(RECV, &[I(1), H(INT), I(source), I(tag), H(W), s]);
}

fn calls(path: &std::path::Path, cps: f64) -> Vec<Vec<Call>> {
    let d = read_calls(path, cps).unwrap();
    d.calls
        .into_iter()
        .map(|r| r.into_iter().map(|(c, _)| c).collect())
        .collect()
}

fn finish(mut ws: Vec<RankWriter>) -> Vec<RankWriter> {
    for w in &mut ws {
        w.finalize();
    }
    ws
}

#[test]
fn compute_gaps_become_exact_cycles() {
    let mut ws = writers(2);
    ws[0].compute(1_000_000);
    send(&mut ws[0], 4, INT, 1, 3);
    ws[0].compute(2_500_000);
    ws[0].call(BARRIER, &[H(W)]);
    recv(&mut ws[1], 0, 3, (0, 3));
    ws[1].call(BARRIER, &[H(W)]);
    let path = trace("compute", finish(ws));
    let send = Call::Send {
        comm: WORLD,
        dest: 1,
        tag: 3,
        bytes: 16,
        mode: SendMode::Standard,
        req: None,
    };
    let c = calls(&path, 1e9);
    let barrier = Call::Collective {
        comm: WORLD,
        op: Collective::Barrier,
        req: None,
    };
    assert_eq!(
        c[0],
        vec![
            Call::Compute { cycles: 1_000_000 },
            send.clone(),
            Call::Compute { cycles: 2_500_000 },
            barrier.clone(),
        ]
    );
    assert_eq!(calls(&path, 2e9)[0][2], Call::Compute { cycles: 5_000_000 });
    let program = read(&path, &Algorithms::default(), 1e9).unwrap();
    let compute: Vec<u64> = program
        .rank_ops(0)
        .iter()
        .filter_map(|op| match op {
            Op::Compute { cycles } => Some(*cycles),
            _ => None,
        })
        .collect();
    assert_eq!(compute, [1_000_000, 2_500_000]);
    assert_eq!(program.sends().filter(|s| s.2 == 16).count(), 1);
}

#[test]
fn timestamps_unwrap_past_sixteen_bits_of_seconds() {
    let mut ws = writers(1);
    for _ in 0..4 {
        ws[0].compute(20_000_000_000_000);
        ws[0].call(BARRIER, &[H(W)]);
    }
    let c = calls(&trace("wrap", finish(ws)), 1.0);
    let total: u64 = c[0]
        .iter()
        .map(|c| match c {
            Call::Compute { cycles } => *cycles,
            _ => 0,
        })
        .sum();
    // 4 x 20,000 s plus the three 1 µs barriers in between, at one cycle per second.
    assert_eq!(total, 80_000);
}

#[test]
fn wildcards_take_their_recorded_status() {
    let mut ws = writers(3);
    recv(&mut ws[0], -1, -1, (1, 7));
    ws[0].call(IRECV, &[I(1), H(INT), I(-1), I(5), H(W), I(10)]);
    ws[0].call(WAIT, &[I(10), St(vec![status(2, 5)])]);
    send(&mut ws[1], 1, INT, 0, 7);
    send(&mut ws[2], 1, INT, 0, 5);
    let path = trace("wildcards", finish(ws));
    let c = calls(&path, 1e9);
    assert_eq!(
        c[0],
        vec![
            Call::Recv {
                comm: WORLD,
                source: Source::Any,
                tag: TagSel::Any,
                req: None,
                status: Some(Status { source: 1, tag: 7 }),
            },
            Call::Recv {
                comm: WORLD,
                source: Source::Any,
                tag: TagSel::Tag(5),
                req: Some(0),
                status: None,
            },
            Call::Wait {
                req: 0,
                status: Some(Status { source: 2, tag: 5 }),
            },
        ]
    );
    read(&path, &Algorithms::default(), 1e9).unwrap();
}

#[test]
fn proc_null_sends_and_receives_are_no_messages() {
    let mut ws = writers(1);
    send(&mut ws[0], 1, INT, -1, 0);
    send(&mut ws[0], 1, INT, -2, 0);
    recv(&mut ws[0], -1, 0, (-1, -1));
    ws[0].call(IRECV, &[I(1), H(INT), I(-2), I(0), H(W), I(5)]);
    ws[0].call(WAIT, &[I(5), St(vec![status(-2, -1)])]);
    ws[0].call(IRECV, &[I(1), H(INT), I(-1), I(0), H(W), I(6)]);
    ws[0].call(ISEND, &[I(1), H(INT), I(-1), I(0), H(W), I(7)]);
    ws[0].call(
        WAITALL,
        &[
            I(2),
            Ints(vec![6, 7]),
            St(vec![status(-1, -1), status(0, 0)]),
        ],
    );
    let path = trace("procnull", finish(ws));
    assert_eq!(calls(&path, 1e9)[0], vec![]);
    read(&path, &Algorithms::default(), 1e9).unwrap();
}

#[test]
fn waits_and_tests_complete_what_the_trace_recorded() {
    let mut ws = writers(2);
    for req in [10, 11, 12] {
        ws[0].call(IRECV, &[I(1), H(INT), I(1), I(0), H(W), I(req)]);
    }
    ws[0].call(TEST, &[I(10), I(0), St(vec![])]);
    ws[0].call(
        TESTANY,
        &[I(3), Ints(vec![10, 11, 12]), I(1), I(1), St(vec![])],
    );
    let some = [
        I(3),
        Ints(vec![10, 1, 12]),
        I(2),
        Ints(vec![0, 2]),
        St(vec![]),
    ];
    ws[0].call(WAITSOME, &some);
    ws[0].call(WAITALL, &[I(2), Ints(vec![1, 10]), St(vec![])]);
    for _ in 0..3 {
        send(&mut ws[1], 1, INT, 0, 0);
    }
    let path = trace("tests", finish(ws));
    let c = calls(&path, 1e9);
    assert_eq!(
        c[0][3..],
        [
            Call::Wait {
                req: 1,
                status: None
            },
            Call::WaitAll {
                reqs: Some(vec![0, 2])
            }
        ]
    );
    read(&path, &Algorithms::default(), 1e9).unwrap();
}

#[test]
fn sendrecv_with_wildcards_and_proc_null() {
    let mut ws = writers(2);
    for (r, w) in ws.iter_mut().enumerate() {
        let peer = 1 - r as i32;
        let st = St(vec![status(peer, 8)]);
        let args = [
            I(2),
            H(INT),
            I(peer),
            I(8),
            I(2),
            H(INT),
            I(-1),
            I(-1),
            H(W),
            st,
        ];
        w.call(SENDRECV, &args);
        // Replace, at the ends of a chain: rank 0 only receives, rank 1 only sends (MPICH's -1).
        let (dest, source) = if r == 0 { (-1, 1) } else { (0, -1) };
        let st = St(vec![if r == 0 { status(1, 3) } else { status(-1, -1) }]);
        w.call(
            SENDRECV_REPLACE,
            &[I(1), H(DOUBLE), I(dest), I(3), I(source), I(3), H(W), st],
        );
    }
    let path = trace("sendrecv", finish(ws));
    let c = calls(&path, 1e9);
    assert_eq!(
        c[1][0],
        Call::Sendrecv {
            comm: WORLD,
            dest: 0,
            send_tag: 8,
            bytes: 8,
            source: Source::Any,
            recv_tag: TagSel::Any,
            status: Some(Status { source: 0, tag: 8 }),
        }
    );
    assert!(matches!(
        c[0][1],
        Call::Recv {
            source: Source::Rank(1),
            req: None,
            ..
        }
    ));
    assert!(matches!(
        c[1][1],
        Call::Send {
            dest: 0,
            bytes: 8,
            req: None,
            ..
        }
    ));
    read(&path, &Algorithms::default(), 1e9).unwrap();
}

#[test]
fn cancelled_operations_never_happened() {
    let mut ws = writers(2);
    let mut cancelled = status(1, 0);
    cancelled.cancelled = 1;
    ws[0].call(IRECV, &[I(1), H(INT), I(1), I(0), H(W), I(5)]);
    ws[0].call(CANCEL, &[I(5)]);
    ws[0].call(WAIT, &[I(5), St(vec![cancelled])]);
    // Cancellation that failed: the send happened; a garbage status without MPI_Cancel changes nothing.
    ws[1].call(ISEND, &[I(1), H(INT), I(0), I(0), H(W), I(6)]);
    ws[1].call(CANCEL, &[I(6)]);
    ws[1].call(WAIT, &[I(6), St(vec![status(0, 0)])]);
    ws[0].call(RECV, &[I(1), H(INT), I(1), I(0), H(W), St(vec![])]);
    ws[1].call(ISEND, &[I(1), H(INT), I(0), I(0), H(W), I(7)]);
    ws[1].call(WAIT, &[I(7), St(vec![cancelled])]);
    ws[0].call(RECV, &[I(1), H(INT), I(1), I(0), H(W), St(vec![])]);
    let path = trace("cancel", finish(ws));
    let c = calls(&path, 1e9);
    assert_eq!(c[0].len(), 2);
    assert!(
        c[0].iter()
            .all(|c| matches!(c, Call::Recv { req: None, .. }))
    );
    assert_eq!(c[1].len(), 4);
    read(&path, &Algorithms::default(), 1e9).unwrap();
}

#[test]
fn persistent_requests_post_at_each_start() {
    let mut ws = writers(2);
    ws[0].call(SSEND_INIT, &[I(2), H(DOUBLE), I(1), I(4), H(W), I(20)]);
    ws[1].call(RECV_INIT, &[I(2), H(DOUBLE), I(0), I(4), H(W), I(21)]);
    for _ in 0..2 {
        ws[0].call(START, &[I(20)]);
        ws[0].call(WAIT, &[I(20), St(vec![])]);
        ws[1].call(STARTALL, &[I(1), Ints(vec![21])]);
        ws[1].call(WAITALL, &[I(1), Ints(vec![21]), St(vec![])]);
    }
    ws[0].call(REQUEST_FREE, &[I(20)]);
    let path = trace("persistent", finish(ws));
    let c = calls(&path, 1e9);
    let sent = |req| Call::Send {
        comm: WORLD,
        dest: 1,
        tag: 4,
        bytes: 16,
        mode: SendMode::Synchronous,
        req: Some(req),
    };
    let wait = |req| Call::Wait { req, status: None };
    assert_eq!(c[0], vec![sent(0), wait(0), sent(1), wait(1)]);
    assert_eq!(c[1].len(), 4);
    let p = read(&path, &Algorithms::default(), 1e9).unwrap();
    assert_eq!(p.sends().filter(|s| s.2 == 16).count(), 2);
}

#[test]
fn communicators_from_split_dup_create_and_cartesian_grids() {
    let mut ws = writers(4);
    for (r, w) in ws.iter_mut().enumerate() {
        let r = r as i32;
        w.call(COMM_SPLIT, &[H(W), I(r % 2), I(-r), H(4)]);
        // In comm 4 (ranks of one parity, reversed), rank 0 sends to rank 1.
        let me = 1 - r / 2;
        if me == 0 {
            w.call(SEND, &[I(1), H(INT), I(1), I(9), H(4)]);
        } else {
            w.call(RECV, &[I(1), H(INT), I(0), I(9), H(4), St(vec![])]);
        }
        w.call(COMM_DUP, &[H(4), H(5)]);
        w.call(BARRIER, &[H(5)]);
        w.call(COMM_FREE, &[H(5)]);
        w.call(COMM_GROUP, &[H(W), H(10)]);
        w.call(GROUP_INCL, &[H(10), I(2), Ints(vec![3, 1]), H(11)]);
        let member = r == 3 || r == 1;
        w.call(COMM_CREATE, &[H(W), H(11), H(if member { 6 } else { 1 })]);
        if member {
            w.call(BCAST, &[I(3), H(INT), I(0), H(6)]);
        }
        w.call(
            CART_CREATE,
            &[H(W), I(2), Ints(vec![2, 2]), Ints(vec![0, 0]), I(0), H(7)],
        );
        w.call(CART_SUB, &[I(2), H(7), Ints(vec![1, 0]), H(8)]);
        w.call(BCAST, &[I(1), H(DOUBLE), I(0), H(8)]);
    }
    let path = trace("comms", finish(ws));
    let c = calls(&path, 1e9);
    assert_eq!(
        c[2][0],
        Call::CommSplit {
            parent: WORLD,
            color: Some(0),
            key: -2,
            new: 4
        }
    );
    assert!(c[1].contains(&Call::CommCreate {
        parent: WORLD,
        group: vec![3, 1],
        new: 6
    }));
    assert!(c[3].contains(&Call::CommSplit {
        parent: 7,
        color: Some(1),
        key: 1,
        new: 8
    }));
    let p = read(&path, &Algorithms::default(), 1e9).unwrap();
    let sends: Vec<(u32, u32, u64)> = p.sends().map(|s| (s.0, s.1, s.2)).collect();
    // Split: 2 -> 0 and 3 -> 1; create: bcast root 3 -> 1; cart_sub columns {0, 2}, {1, 3}: 0 -> 2, 1 -> 3.
    for m in [(2, 0, 4), (3, 1, 4), (3, 1, 12), (0, 2, 8), (1, 3, 8)] {
        assert!(sends.contains(&m), "{m:?} not in {sends:?}");
    }
}

#[test]
fn collectives_carry_their_sizes() {
    let mut ws = writers(3);
    for (r, w) in ws.iter_mut().enumerate() {
        let r = r as i32;
        let root = [I(2), H(INT)];
        let gather = [I(r), I(2), H(INT), I(1), H(W)];
        let mut g = gather.to_vec();
        if r == 1 {
            g.extend(root);
        }
        w.call(GATHER, &g);
        let mut sv = vec![I(r), I(3), H(INT), I(5), H(DOUBLE), I(0), H(W)];
        if r == 0 {
            sv.extend([Ints(vec![1, 2, 3]), Ints(vec![0, 1, 3])]);
        }
        w.call(SCATTERV, &sv);
        let v = Ints(vec![1, 2, 3]);
        w.call(
            ALLTOALLV,
            &[
                I(3),
                v.clone(),
                v.clone(),
                H(INT),
                v.clone(),
                v.clone(),
                H(INT),
                H(W),
            ],
        );
        w.call(REDUCE_SCATTER, &[I(3), v.clone(), H(DOUBLE), B(3), H(W)]);
        w.call(
            ALLGATHERV,
            &[I(3), I(1), H(INT), v.clone(), v.clone(), H(INT), H(W)],
        );
        w.call(ALLREDUCE, &[I(4), H(DOUBLE), B(3), H(W)]);
        w.call(EXSCAN, &[I(4), H(INT), B(3), H(W)]);
    }
    let path = trace("colls", finish(ws));
    let ops: Vec<Collective> = calls(&path, 1e9)[2]
        .iter()
        .filter_map(|c| match c {
            Call::Collective { op, .. } => Some(op.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        ops,
        vec![
            Collective::Gather { root: 1, bytes: 8 },
            Collective::Scatterv {
                root: 0,
                counts: vec![0, 0, 40]
            },
            Collective::Alltoallv {
                send: vec![4, 8, 12]
            },
            Collective::ReduceScatter {
                counts: vec![8, 16, 24]
            },
            Collective::Allgatherv {
                counts: vec![4, 8, 12]
            },
            Collective::Allreduce { bytes: 32 },
            Collective::Exscan { bytes: 16 },
        ]
    );
    read(&path, &Algorithms::default(), 1e9).unwrap();
}

#[test]
fn traces_without_statuses_leave_wildcards_to_the_mpi_layer() {
    let mut ws = writers(2);
    ws[0].mask = 0x4c;
    ws[1].mask = 0x4c;
    ws[0].call(
        RECV,
        &[I(1), H(INT), I(-1), I(0), H(W), St(vec![status(1, 0)])],
    );
    send(&mut ws[1], 1, INT, 0, 0);
    let path = trace("nostatus", finish(ws));
    let c = calls(&path, 1e9);
    assert!(matches!(
        c[0][0],
        Call::Recv {
            source: Source::Any,
            status: None,
            ..
        }
    ));
    let e = read(&path, &Algorithms::default(), 1e9)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("MPI_ANY_SOURCE") && e.contains("t-0000.bin (byte "),
        "{e}"
    );
}

#[test]
fn counters_threads_and_old_formats_decode() {
    let mut ws = writers(2);
    ws[0].mask = 0xcf;
    ws[0].counters = 2;
    send(&mut ws[0], 1, INT, 1, 0);
    // Format 0.6.1: MPI_Init wrote argc twice and statuses had no tag.
    let mut old = RankWriter::new(0);
    old.version = [0, 6, 1];
    old.mask = 0x0f;
    old.call(124, &[I(1), I(1), Arg::Str("./app")]);
    old.call(
        RECV,
        &[I(1), H(INT), I(-1), I(0), H(W), St(vec![status(0, 99)])],
    );
    ws[1] = old;
    let path = trace("old", finish(ws));
    let d = read_calls(&path, 1e9).unwrap();
    assert_eq!(d.counts, d.footer_counts);
    assert_eq!(d.total_calls(), 6);
    assert!(matches!(
        d.calls[1][0].0,
        Call::Recv {
            status: Some(Status { source: 0, tag: 0 }),
            ..
        }
    ));
    read(&path, &Algorithms::default(), 1e9).unwrap();
}

#[test]
fn detection_accepts_the_meta_its_directory_and_a_rank_file() {
    let mut ws = writers(1);
    ws[0].finalize();
    let meta = trace("detect", ws);
    let dir = meta.parent().unwrap();
    assert!(super::is_dumpi(&meta));
    assert!(super::is_dumpi(dir));
    assert!(super::is_dumpi(&dir.join("t-0000.bin")));
    assert_eq!(read_calls(&dir.join("t-0000.bin"), 1e9).unwrap().ranks, 1);
    assert_eq!(
        super::sources(dir).unwrap(),
        [meta.clone(), dir.join("t-0000.bin")]
    );
    std::fs::write(dir.join("other.txt"), "0 send 1 4\n").unwrap();
    assert!(!super::is_dumpi(&dir.join("other.txt")));
    assert!(!super::is_dumpi(&dir.join("none.meta")));
}
