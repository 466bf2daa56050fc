//! The SimGrid and INSEE/FSIN importers end to end: every sample in `traces/simgrid/` and
//! `traces/fsin/` (copies of `shared/traces/`, see `traces/README.md`) is read, its message and byte
//! counts checked against the file (hand-derived from its lines and the documented algorithms), and
//! replayed to completion on a 64-node fat tree. Bad inputs are positioned errors.

use netreplay::error::Error;
use netreplay::mpi::collectives::Algorithms;
use netreplay::network::NetworkModel;
use netreplay::program::Program;
use netreplay::replay::simulate;
use netreplay::trace::{self, Format, ReadOptions};
use std::path::{Path, PathBuf};

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces")
        .join(rel)
}

/// Reads with format detection and the fixed algorithms (`select=fixed`, the ones the hand
/// derivations below follow) and replays; returns (ranks, messages, bytes, completion cycles).
fn replay(rel: &str) -> (u32, usize, u64, u64) {
    replay_with(rel, Algorithms::FIXED)
}

/// As [`replay`], with the collective algorithms given.
fn replay_with(rel: &str, algorithms: Algorithms) -> (u32, usize, u64, u64) {
    let opts = ReadOptions {
        algorithms,
        ..ReadOptions::default()
    };
    let p = trace::read_any(&sample(rel), &opts).unwrap_or_else(|e| panic!("{rel}: {e}"));
    replay_program(rel, &p)
}

fn replay_program(rel: &str, p: &Program) -> (u32, usize, u64, u64) {
    let topo = netreplay::topology::build("fat-tree:k=4,n=3").unwrap();
    // Huge phits so the gigabyte messages of some samples are a few packets (counts do not change).
    let model = NetworkModel {
        phit_bytes: 1 << 16,
        ..NetworkModel::default()
    };
    let nodes: Vec<u32> = (0..p.ranks()).collect();
    let o = simulate(topo.as_ref(), &model, p, &nodes, 1).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let messages = p.sends().count();
    assert_eq!(o.messages as usize, messages, "{rel}");
    let bytes = p.sends().map(|s| s.2).sum();
    (p.ranks(), messages, bytes, o.completion_cycles)
}

#[test]
fn every_simgrid_sample_replays_with_the_counts_of_its_file() {
    let cases: &[(&str, u32, usize, u64)] = &[
        // bcast 5e4 twice and reduce 5e4 over 3 ranks: binomial trees of 2 messages, MPI_BYTE.
        ("simgrid/replay/actions_bcast.txt", 3, 6, 6 * 50_000),
        // 4-rank ring allgatherv, counts 3 x 275427 + 204020 of datatype 0 (MPI_DOUBLE): every rank
        // forwards every block but its right neighbour's: 3 x total x 8.
        (
            "simgrid/replay/actions_allgatherv.txt",
            4,
            12,
            3 * 1_030_301 * 8,
        ),
        // gather 68 doubles to 0 over 4 ranks: 1->0 one block, 2->0 two, 3->2 one.
        ("simgrid/replay/actions_gather.txt", 4, 3, 4 * 68 * 8),
        // reducescatter: binomial reduce of the whole vector to 0 (3 messages), then scatterv (3).
        (
            "simgrid/replay/actions_reducescatter.txt",
            4,
            6,
            3 * 1_030_301 * 8 + (2 * 275_427 + 204_020) * 8,
        ),
        ("simgrid/replay/actions_alltoall.txt", 3, 6, 6 * 500),
        // recursive doubling over 3 ranks: fold, exchange, return = 4 messages.
        ("simgrid/replay/actions_allreduce.txt", 3, 4, 4 * 50_000),
        // index of per-rank files actions0.txt and actions1.txt: 3 messages of 1e6 bytes.
        ("simgrid/replay/split_traces", 2, 3, 3_000_000),
        // init 1 -> MPI_DOUBLE; bcast root 1 dt 0 (8 B), bcast root 0 dt 3 (short, 2 B), reduce dt 4
        // (long, 8 B): 2 messages each.
        (
            "simgrid/replay/actions_bcast_reduce_datatypes.txt",
            3,
            6,
            2 * 400_000 + 2 * 100_000 + 2 * 400_000,
        ),
        // one 1e7-byte send, then a 3-rank dissemination barrier (6 empty messages).
        ("simgrid/replay/actions_barrier.txt", 3, 7, 10_000_000),
        ("simgrid/replay/actions_with_isend.txt", 3, 3, 3_000_000),
        // sendcounts (0: 1 40 30) (1: 80 1 40) (2: 100 30 1), MPI_BYTE, self entries not sent.
        (
            "simgrid/replay/actions_alltoallv.txt",
            3,
            6,
            40 + 30 + 80 + 40 + 100 + 30,
        ),
        (
            "simgrid/replay/actions_waitall.txt",
            3,
            3,
            2000 + 3000 + 3000,
        ),
        // bcast 1 int (4 B); alltoall 13421772 x dt 26 (double complex, 16 B) both ways; barrier
        // (2 empty messages); reduce 16 x 16 B.
        (
            "simgrid/manual-deploy/coll.txt",
            2,
            6,
            4 + 2 * 13_421_772 * 16 + 16 * 16,
        ),
        ("simgrid/manual-deploy/compute_only.txt", 2, 0, 0),
        ("simgrid/manual-deploy/empty.txt", 2, 0, 0),
        ("simgrid/manual-deploy/mixed.txt", 2, 4, 4_000_000_000),
    ];
    for &(rel, ranks, messages, bytes) in cases {
        let (r, m, b, _) = replay(rel);
        assert_eq!((r, m, b), (ranks, messages, bytes), "{rel}");
    }
    // compute 1e10 flops at 1 flop per cycle.
    assert_eq!(
        replay("simgrid/manual-deploy/compute_only.txt").3,
        10_000_000_000
    );
}

#[test]
fn simgrid_compute_and_sleep_use_the_configured_units() {
    let opts = ReadOptions {
        units: trace::simgrid::Units {
            flops_per_cycle: 4.0,
            cycles_per_second: 1e9,
            ..Default::default()
        },
        ..ReadOptions::default()
    };
    let p = trace::read_any(&sample("simgrid/manual-deploy/compute_only.txt"), &opts).unwrap();
    assert_eq!(replay_program("c", &p).3, 2_500_000_000);
    let dir = scratch();
    let f = dir.join("sleep.txt");
    std::fs::write(&f, "0 init\n1 init\n0 sleep 0.5\n1 sleep 1e-6").unwrap();
    let p = trace::read_any(&f, &ReadOptions::default()).unwrap();
    assert_eq!(replay_program("sleep", &p).3, 500_000_000);
}

fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("importers");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `line:column: message` of a refused SimGrid text.
fn simgrid_error(name: &str, text: &str) -> (usize, usize, String) {
    let f = scratch().join(name);
    std::fs::write(&f, text).unwrap();
    let opts = ReadOptions {
        format: Some(Format::SIMGRID),
        ..ReadOptions::default()
    };
    match trace::read_any(&f, &opts) {
        Err(Error::File {
            line,
            column,
            message,
            ..
        }) => (line, column, message),
        other => panic!("{text:?}: expected a positioned error, got {other:?}"),
    }
}

#[test]
fn simgrid_bad_inputs_are_positioned_errors() {
    let cases: &[(&str, (usize, usize, &str))] = &[
        (
            "0 init\n1 frobnicate\n",
            (
                2,
                3,
                "unsupported action `frobnicate`: it is not a SimGrid 3.32 replay action",
            ),
        ),
        (
            "0 send 7 0 10\n1 init\n",
            (1, 8, "a partner rank `7` out of range 0..2"),
        ),
        (
            "0 send 1 0 lots\n1 init\n",
            (1, 12, "expected a size (a number), found `lots`"),
        ),
        (
            "0 send 1 0\n1 init\n",
            (1, 11, "expected a size, found end of line"),
        ),
        (
            "0 recv 1 -1 1\n1 init\n",
            (
                1,
                10,
                "MPI_ANY_TAG: SimGrid's time-independent traces record no actual tag",
            ),
        ),
        ("0 send 1 0 1 99\n1 init\n", (1, 14, "datatype id `99`")),
        ("x init\n", (1, 1, "per-rank trace file `x init` not found")),
    ];
    for (i, (text, (line, column, needle))) in cases.iter().enumerate() {
        let (l, c, m) = simgrid_error(&format!("bad{i}.txt"), text);
        assert!(
            (l, c) == (*line, *column) && m.contains(needle),
            "{text:?}: got {l}:{c}: {m}; want {line}:{column}: {needle}"
        );
    }
    // Doubles and a datatype id are fine; no final newline (a token past the arguments is an error,
    // tests/safety_inputs.rs).
    let f = scratch().join("ok.txt");
    std::fs::write(&f, "0 init\n1 init\n0 send 1 0 1.5e3 6\n1 recv 0 0 1.5e3").unwrap();
    let p = trace::read_any(&f, &ReadOptions::default()).unwrap();
    assert_eq!(p.sends().map(|s| s.2).sum::<u64>(), 1500);
    // A missing per-rank file names itself, whether the format is given or detected, and even
    // when none of the index's files is found (SimGrid's examples/split_traces outside its tree).
    let idx = scratch().join("index.txt");
    for (text, line, missing) in [
        (
            "ok.txt\nnot-there/actions1.txt\n",
            2,
            "not-there/actions1.txt",
        ),
        (
            "replay/actions0.txt\nreplay/actions1.txt\n",
            1,
            "replay/actions0.txt",
        ),
        ("actions0.txt\nactions1.txt\n", 1, "actions0.txt"),
    ] {
        std::fs::write(&idx, text).unwrap();
        for format in [None, Some(Format::SIMGRID)] {
            let opts = ReadOptions {
                format,
                ..ReadOptions::default()
            };
            match trace::read_any(&idx, &opts) {
                Err(Error::File {
                    line: l, message, ..
                }) if l == line => {
                    assert!(
                        message.contains(&format!("`{missing}` not found")),
                        "{message}"
                    )
                }
                other => panic!("{text:?} {format:?}: {other:?}"),
            }
        }
    }
    // One word that names no file is still a native trace without its header.
    std::fs::write(&idx, "hello\n").unwrap();
    let e = trace::read_any(&idx, &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("missing header"), "{e}");
}

#[test]
fn every_fsin_sample_replays_with_the_counts_of_its_file() {
    // (file, nodes, messages = `s` lines, bytes = sum of their lengths: 1 each in these samples).
    for (file, nodes, messages) in [
        ("trace-2n.trc", 2, 2),
        ("trace-4n.trc", 4, 12),
        ("trace-8n.trc", 8, 56),
        ("trace-16n.trc", 16, 240),
        ("trace-32n.trc", 32, 992),
        ("trace-64n.trc", 64, 4032),
    ] {
        let (r, m, b, _) = replay(&format!("fsin/{file}"));
        assert_eq!((r, m, b), (nodes, messages, messages as u64), "{file}");
    }
    // The 128- and 256-node samples need a bigger network.
    for (file, nodes, messages) in [("trace128.trc", 128, 896), ("trace256.trc", 256, 2048)] {
        let p = trace::read_any(&sample(&format!("fsin/{file}")), &ReadOptions::default()).unwrap();
        assert_eq!((p.ranks(), p.sends().count()), (nodes, messages), "{file}");
        let topo = netreplay::topology::build("fat-tree:k=4,n=4").unwrap();
        let nodes: Vec<u32> = (0..p.ranks()).collect();
        let o = simulate(topo.as_ref(), &NetworkModel::default(), &p, &nodes, 1).unwrap();
        assert_eq!(o.messages as usize, messages, "{file}");
    }
}

#[test]
fn fsin_bad_inputs_are_positioned_errors() {
    let f = scratch().join("bad.trc");
    std::fs::write(&f, "s 0 1 0 8\nr 0 1 0 8\nq 1 0 0 8\n").unwrap();
    let opts = ReadOptions {
        format: Some(Format::FSIN),
        ..ReadOptions::default()
    };
    match trace::read_any(&f, &opts) {
        Err(Error::File {
            line: 3,
            column: 1,
            message,
            ..
        }) => assert!(message.contains("found `q`"), "{message}"),
        other => panic!("{other:?}"),
    }
    // Detection: each sample format is told from its first line.
    assert_eq!(
        Format::detect(&sample("fsin/trace-4n.trc")).unwrap(),
        Format::FSIN
    );
    assert_eq!(
        Format::detect(&sample("simgrid/replay/split_traces")).unwrap(),
        Format::SIMGRID
    );
    assert_eq!(
        Format::detect(&sample("simgrid/replay/actions_bcast.txt")).unwrap(),
        Format::SIMGRID
    );
    assert_eq!(
        Format::detect(&sample("bt-size1000-16.trc")).unwrap(),
        Format::NATIVE
    );
}
