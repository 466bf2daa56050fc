//! Bad input: every corruption is an error naming the file, the rank, the byte offset and (inside a
//! record) the function; no input panics (property test over truncations and byte flips).

use super::functions::*;
use super::writer::{Arg, RankWriter, TYPE_SIZES, scratch, status, write_trace};
use super::{read, read_calls};
use crate::mpi::collectives::Algorithms;
use Arg::{H, I, Ints, St};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const W: u16 = 2;

/// A two-rank trace exercising most record shapes: rank 0's bytes, rank 1's bytes.
fn sample() -> (Vec<u8>, Vec<u8>) {
    let mut a = RankWriter::new(5_000_000_000);
    let mut b = RankWriter::new(5_000_000_000);
    a.mask = 0xcf;
    a.counters = 1;
    for w in [&mut a, &mut b] {
        w.init();
        w.call(COMM_RANK, &[H(W), I(0)]);
    }
    a.call(ISEND, &[I(3), H(9), I(1), I(1), H(W), I(4)]);
    a.compute(1_000_000);
    a.call(WAITALL, &[I(1), Ints(vec![4]), St(vec![status(0, 0)])]);
    b.call(IRECV, &[I(3), H(9), I(-1), I(1), H(W), I(4)]);
    b.call(
        WAITANY,
        &[I(1), Ints(vec![4]), I(0), St(vec![status(0, 1)])],
    );
    for w in [&mut a, &mut b] {
        w.call(
            ALLGATHERV,
            &[
                I(2),
                I(1),
                H(9),
                Ints(vec![1, 1]),
                Ints(vec![0, 1]),
                H(9),
                H(W),
            ],
        );
        w.call(COMM_SPLIT, &[H(W), I(0), I(0), H(4)]);
        w.call(BARRIER, &[H(4)]);
        w.finalize();
    }
    (a.finish(&TYPE_SIZES), b.finish(&TYPE_SIZES))
}

fn write(name: &str, a: &[u8], b: &[u8]) -> PathBuf {
    write_trace(&scratch(name), "bad", &[a.to_vec(), b.to_vec()])
}

fn error(path: &Path) -> String {
    let e = read_calls(path, 1e9).unwrap_err().to_string();
    let again = read(path, &Algorithms::default(), 1e9)
        .unwrap_err()
        .to_string();
    assert_eq!(e, again);
    e
}

#[test]
fn the_sample_reads() {
    let (a, b) = sample();
    let path = write("good", &a, &b);
    let d = read_calls(&path, 1e9).unwrap();
    assert_eq!(d.counts, d.footer_counts);
    read(&path, &Algorithms::default(), 1e9).unwrap();
}

#[test]
fn wrong_magic() {
    let (mut a, b) = sample();
    a[0] = 0;
    let e = error(&write("magic", &a, &b));
    assert!(
        e.contains("bad-0000.bin (byte 0): rank 0: not a DUMPI file") && e.contains("magic"),
        "{e}"
    );
}

#[test]
fn truncated_file() {
    let (a, b) = sample();
    let e = error(&write("truncated", &a, &b[..b.len() - 20]));
    assert!(
        e.contains("bad-0001.bin") && e.contains("rank 1") && e.contains("truncated"),
        "{e}"
    );
    let e = error(&write("short", &a, &b[..30]));
    assert!(e.contains("rank 1: truncated"), "{e}");
}

#[test]
fn record_running_past_the_body() {
    // A Waitall whose request count claims more than the file holds.
    let mut w = RankWriter::new(0);
    w.init();
    w.call(WAITALL, &[I(1), I(1 << 30)]);
    let a = w.finish(&TYPE_SIZES);
    let e = error(&write("overrun", &a, &sample().1));
    assert!(
        e.contains("rank 0")
            && e.contains("truncated")
            && e.contains("MPI_Waitall record at byte 58"),
        "{e}"
    );
}

#[test]
fn missing_rank_file() {
    let (a, b) = sample();
    let path = write("missing", &a, &b);
    std::fs::remove_file(path.with_file_name("bad-0001.bin")).unwrap();
    let e = error(&path);
    assert!(
        e.contains("rank file of rank 1 of 2 is missing") && e.contains("bad-0001.bin"),
        "{e}"
    );
}

#[test]
fn unknown_function_id() {
    let mut w = RankWriter::new(0);
    w.init();
    w.raw_id(700);
    let e = error(&write("unknown", &w.finish(&TYPE_SIZES), &sample().1));
    assert!(
        e.contains("bad-0000.bin (byte 58): rank 0: unknown function id 700"),
        "{e}"
    );
    let mut w = RankWriter::new(0);
    w.init();
    w.raw_id(128);
    let e = error(&write("pcontrol", &w.finish(&TYPE_SIZES), &sample().1));
    assert!(
        e.contains("(byte 58): rank 0: MPI_Pcontrol (function id 128)"),
        "{e}"
    );
}

#[test]
fn meaningless_arguments_name_their_call() {
    let cases: [(&str, Vec<Arg>, &str); 4] = [
        (
            "MPI_Send: datatype 40 is not in",
            vec![I(1), H(40), I(1), I(0), H(W)],
            "type",
        ),
        (
            "MPI_Send: negative element count -3",
            vec![I(-3), H(9), I(1), I(0), H(W)],
            "count",
        ),
        (
            "MPI_Send: tag -5 is negative",
            vec![I(1), H(9), I(1), I(-5), H(W)],
            "tag",
        ),
        ("MPI_Start: request 9 was not created", vec![I(9)], "start"),
    ];
    for (want, args, name) in cases {
        let mut w = RankWriter::new(0);
        w.init();
        w.call(if name == "start" { START } else { SEND }, &args);
        let e = error(&write(name, &w.finish(&TYPE_SIZES), &sample().1));
        assert!(e.contains(&format!("(byte 58): rank 0: {want}")), "{e}");
    }
}

#[test]
fn bad_meta_files() {
    let (a, b) = sample();
    let path = write("meta", &a, &b);
    std::fs::write(&path, "numprocs=two\nfileprefix=bad\n").unwrap();
    let e = error(&path);
    assert!(
        e.contains("bad.meta:1:") && e.contains("numprocs `two`"),
        "{e}"
    );
    std::fs::write(&path, "numprocs=2\n").unwrap();
    assert!(error(&path).contains("no `fileprefix=` line"));
    let dir = path.parent().unwrap();
    std::fs::write(dir.join("other.meta"), "numprocs=1\nfileprefix=bad\n").unwrap();
    assert!(error(dir).contains("several DUMPI .meta files"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn mutated_or_truncated_files_never_panic(
        cut in 0usize..4000,
        // Mostly the records and the header, where a flip changes what is decoded.
        flips in proptest::collection::vec((0usize..700, any::<u8>()), 0..6),
        which in 0usize..2,
    ) {
        let (mut a, mut b) = sample();
        let f = if which == 0 { &mut a } else { &mut b };
        for (at, v) in flips {
            let n = f.len();
            f[at % n] = v;
        }
        let n = f.len();
        f.truncate(n - cut % n);
        let path = write(&format!("prop{}", std::process::id() % 7), &a, &b);
        let _ = read_calls(&path, 1e9);
        let _ = read(&path, &Algorithms::default(), 1e9);
    }
}
