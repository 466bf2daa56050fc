//! SimGrid actions its tracer writes but its replay refuses: `waitAny`, `testall`, `Ssend` and
//! `ISsend`, derived datatypes sized with `dtsize=`, and `trace check`'s note that SimGrid TI traces
//! record no communicators.

mod common;

use netreplay::program::{Op, Program};
use netreplay::trace::{self, ReadOptions, simgrid};
use std::path::PathBuf;

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("simgrid_actions");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn read(name: &str, text: &str, opts: &ReadOptions) -> Program {
    trace::read_any(&scratch(name, text), opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn count(p: &Program, rank: u32, f: impl Fn(&Op) -> bool) -> usize {
    p.rank_ops(rank).iter().filter(|op| f(op)).count()
}

#[test]
fn wait_any_completes_the_oldest_request_and_testall_completes_none() {
    let text = "0 init\n1 init\n\
                0 isend 1 0 100\n0 isend 1 1 200\n0 irecv 1 2 50\n\
                0 testall\n0 waitAny 3\n0 testany\n0 waitAny 2\n0 waitAny 1\n0 waitAny 1\n\
                1 recv 0 0 100\n1 recv 0 1 200\n1 send 0 2 50\n";
    let p = read("waitany.txt", text, &ReadOptions::default());
    // Three requests, three waits in posting order; the fourth waitAny finds none open.
    let waits: Vec<u32> = p
        .rank_ops(0)
        .iter()
        .filter_map(|op| match *op {
            Op::Wait { req } => Some(req),
            _ => None,
        })
        .collect();
    let posted: Vec<u32> = p
        .rank_ops(0)
        .iter()
        .filter_map(|op| match *op {
            Op::Isend { req, .. } | Op::Irecv { req, .. } => Some(req),
            _ => None,
        })
        .collect();
    assert_eq!(posted.len(), 3);
    assert_eq!(waits, posted);
    assert_eq!(p.sends().count(), 3);
    assert_eq!(p.sends().map(|s| s.2).sum::<u64>(), 350);
    let c = trace::check::check(&p).unwrap();
    assert!(c.ok && c.request_problems == 0, "{:?}", c.problems);

    // testall alone completes nothing: the request is left open (reported, still replayed).
    let p = read(
        "testall.txt",
        "0 init\n1 init\n0 isend 1 0 8\n0 testall\n1 recv 0 0 8\n",
        &ReadOptions::default(),
    );
    assert_eq!(
        count(&p, 0, |op| matches!(op, Op::Wait { .. } | Op::WaitAll)),
        0
    );
    let c = trace::check::check(&p).unwrap();
    assert_eq!((c.messages, c.bytes, c.request_problems), (1, 8, 1));
    assert!(c.ok);
}

#[test]
fn ssend_and_issend_are_synchronous() {
    let text = "0 init\n1 init\n0 Ssend 1 0 10\n0 ISsend 1 1 20\n0 wait 0 1 1\n\
                1 recv 0 0 10\n1 recv 0 1 20\n";
    let p = read("ssend.txt", text, &ReadOptions::default());
    assert_eq!(
        count(&p, 0, |op| matches!(op, Op::Issend { bytes: 10 | 20, .. })),
        2
    );
    assert_eq!(
        count(&p, 0, |op| matches!(op, Op::Isend { .. } | Op::Send { .. })),
        0
    );
    // Both waited on: the Ssend by its own wait, the ISsend by the trace's.
    assert_eq!(count(&p, 0, |op| matches!(op, Op::Wait { .. })), 2);
    let c = trace::check::check(&p).unwrap();
    assert!(c.ok && c.request_problems == 0, "{:?}", c.problems);
    assert_eq!((c.messages, c.bytes), (2, 30));
}

#[test]
fn derived_datatypes_take_the_sizes_dtsize_gives() {
    let text =
        "0 init\n1 init\n0 send 1 0 3 -1\n1 recv 0 0 3 -1\n0 send 1 1 2 -2\n1 recv 0 1 2 -2\n";
    let path = scratch("derived.txt", text);
    let e = trace::read_any(&path, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("derived.txt:3:") && e.contains("dtsize=-1:BYTES"),
        "{e}"
    );
    let mut opts = ReadOptions::default();
    opts.units.derived = simgrid::DerivedSizes::parse("-1:24/-2:12").unwrap();
    let p = trace::read_any(&path, &opts).unwrap();
    let sizes: Vec<u64> = p.sends().map(|s| s.2).collect();
    assert_eq!(sizes, vec![3 * 24, 2 * 12]);
    // The same through the workload spec.
    let spec = format!("trace:file={},dtsize=-1:24/-2:12,cache=off", path.display());
    let wl = netreplay::workload::build(&spec).unwrap();
    let p = wl.generator.generate(2).unwrap();
    assert_eq!(p.sends().map(|s| s.2).sum::<u64>(), 96);
    let bad = format!("trace:file={},dtsize=6:1", path.display());
    let e = netreplay::workload::build(&bad).unwrap_err().to_string();
    assert!(e.contains("predefined"), "{e}");
}

#[test]
fn trace_check_says_simgrid_records_no_communicators_when_there_are_collectives() {
    let check = |name: &str, text: &str| {
        let path = scratch(name, text);
        let out = common::netreplay(&["trace", "check", path.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let with = check("coll.txt", "0 init\n1 init\n0 bcast 100\n1 bcast 100\n");
    assert!(with.contains("record no communicators"), "{with}");
    let without = check("p2p.txt", "0 init\n1 init\n0 send 1 0 8\n1 recv 0 0 8\n");
    assert!(!without.contains("record no communicators"), "{without}");
}

/// `-333` (MPI_ANY_SOURCE) receives are matched at replay in arrival order. Ranks 0, 1 and 2 share
/// a leaf switch of fat-tree:k=4,n=2 (L = 2 links), so a 64-byte message (one 16-phit packet) sent at
/// cycle t is consumed at t + 18. Rank 1 sends at 0, rank 0 after computing 1000 cycles.
/// Posted first: rank 2's any-source receive takes rank 1's message (18), its receive from 0 takes
/// rank 0's (1018): the run ends at 1018. Unexpected: rank 2 computes 5000 cycles first; both have
/// arrived, the any-source receive takes the earliest (rank 1's) and the receive from 0 the other,
/// at once: 5000. Taking rank 0's message for the any-source receive instead would leave the
/// receive from 0 waiting for ever.
#[test]
fn any_source_receives_match_in_arrival_order() {
    let run = |name: &str, before: &str| {
        let text = format!(
            "0 init\n1 init\n2 init\n0 compute 1000\n0 send 2 0 64\n1 send 2 0 64\n{before}\
             2 recv -333 0 64\n2 recv 0 0 64\n"
        );
        let p = read(name, &text, &ReadOptions::default());
        let c = trace::check::check(&p).unwrap();
        assert!(c.ok, "{:?}", c.problems);
        assert_eq!((c.messages, c.bytes), (2, 128));
        let topo = netreplay::topology::build("fat-tree:k=4,n=2").unwrap();
        let model = netreplay::network::NetworkModel::default();
        let o = netreplay::replay::simulate(topo.as_ref(), &model, &p, &[0, 1, 2], 1)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        (o.messages, o.completion_cycles)
    };
    assert_eq!(run("any_posted.txt", ""), (2, 1018));
    assert_eq!(run("any_unexpected.txt", "2 compute 5000\n"), (2, 5000));
    // A non-blocking any-source receive waited on with the `-333` SimGrid writes in its wait.
    let p = read(
        "any_irecv.txt",
        "0 init\n1 init\n0 send 1 7 8\n1 irecv -333 7 8\n1 wait -333 1 7\n",
        &ReadOptions::default(),
    );
    assert_eq!(count(&p, 1, |op| matches!(op, Op::Wait { .. })), 1);
    let c = trace::check::check(&p).unwrap();
    assert!(c.ok && c.request_problems == 0, "{:?}", c.problems);
    // Writing such a program in a format that names every source is refused.
    let out = scratch("any_irecv.trc", "");
    let e = trace::write(&p, &out).unwrap_err().to_string();
    assert!(e.contains("any source"), "{e}");
}
