//! GOAL schedules (dependency graphs) end to end: every sample in `traces/goal/` replays on a fat
//! tree and a torus with its exact message and byte counts, `irequires` and CPUs give hand-derived
//! cycles on an empty network, and `trace check` reads them.

mod common;

use netreplay::program::Program;
use netreplay::trace::{self, Format, ReadOptions};
use std::path::PathBuf;

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("traces")
        .join("goal")
        .join(name)
}

fn read(path: &std::path::Path) -> Program {
    trace::read_any(path, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// (file, ranks, messages, bytes), counted by hand from each schedule: a binomial-tree broadcast
/// sends N - 1 messages, a dissemination barrier N log2 N, the ring tests one per send line.
const SAMPLES: [(&str, u32, u64, u64); 13] = [
    ("binary_tree_16.goal", 16, 15, 15),
    ("binary_tree_32.goal", 32, 31, 31),
    ("dissemination_16.goal", 16, 64, 64),
    ("dissemination_32.goal", 32, 160, 160),
    ("ping_pong_big.g2", 2, 2, 80_000 + 70_000),
    ("test-btreebcast16.g2", 16, 15, 15),
    ("test-doublering4.g2", 4, 8, 8),
    ("test-nbc-notest.g2", 2, 2, 2),
    ("test-nbc-notest_rndvz-async.g2", 2, 2, 22),
    ("test-nbc-notest_rndvz.g2", 2, 2, 22),
    ("test-nbc-test_rndvz.g2", 2, 2, 22),
    ("test-nbp2p.g2", 2, 1, 1),
    ("test-nbp2p_rndvz.g2", 2, 1, 11),
];

#[test]
fn every_sample_replays_on_a_fat_tree_and_a_torus_with_exact_counts() {
    let files = std::fs::read_dir(sample("")).unwrap().count();
    // The samples plus nothing else: a new sample must be added to the table.
    assert_eq!(files, SAMPLES.len());
    for (name, ranks, messages, bytes) in SAMPLES {
        let path = sample(name);
        assert_eq!(Format::detect(&path).unwrap(), Format::GOAL, "{name}");
        let p = read(&path);
        assert!(p.graph().is_some(), "{name}");
        assert_eq!(p.ranks(), ranks, "{name}");
        assert_eq!(p.sends().count() as u64, messages, "{name}");
        assert_eq!(p.sends().map(|s| s.2).sum::<u64>(), bytes, "{name}");
        for topo in ["fat-tree:k=4,n=3", "torus:k=8,n=2"] {
            let (sent, cycles) = common::replay_on(topo, &p);
            assert_eq!(sent, messages, "{name} on {topo}");
            assert!(cycles > 0, "{name} on {topo}");
        }
        let c = trace::check::check(&p).unwrap();
        assert!(c.ok, "{name}: {:?}", c.problems);
        assert_eq!((c.messages, c.bytes), (messages, bytes), "{name}");
    }
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("goal");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Rank 0 computes 10 cycles, then sends 64 bytes (one 16-phit packet, eager: complete as it
/// starts) and computes 5. Rank 1 posts its receive at 0; `l2` (50 cycles) waits only for the
/// receive to *start* (`irequires`), so it runs 0..50 while the message flies; `l3` (7 cycles) needs
/// both complete. The message leaves node 0 at cycle 10 and, nodes 0 and 1 sharing a leaf switch
/// (L = 2 links), its last phit is consumed at 10 + L + 16 = 28 (docs/network-model.md). So `l3`
/// runs 50..57: the run ends at 57 (rank 0 ended at 15). With `requires` instead, `l2` waits for
/// the data: 28..78, then `l3` 78..85.
const IREQUIRES: &str = "num_ranks 2
rank 0 {
l1: calc 10
l2: send 64b to 1 tag 3
l3: calc 5
l2 requires l1
l3 irequires l2
}
rank 1 {
l1: recv 64b from 0 tag 3
l2: calc 50
l3: calc 7
l2 irequires l1
l3 requires l1
l3 requires l2
}
";

#[test]
fn irequires_and_cpus_give_hand_derived_cycles_on_an_empty_network() {
    let topo = "fat-tree:k=4,n=2";
    let p = read(&scratch("irequires.goal", IREQUIRES));
    assert_eq!(common::replay_on(topo, &p), (1, 57));
    let p = read(&scratch(
        "requires.goal",
        &IREQUIRES.replace("l2 irequires l1", "l2 requires l1"),
    ));
    assert_eq!(common::replay_on(topo, &p), (1, 85));
    // Two calcs ready at once share CPU 0 one after the other (20 then 30: 50), or overlap on
    // CPUs 0 and 1 (30). The message of rank 0 ends at 18 and changes nothing.
    let cpus = |second: &str| {
        format!(
            "num_ranks 2\nrank 0 {{\nsend 64b to 1\n}}\nrank 1 {{\nrecv 64b from 0\ncalc 20\ncalc 30{second}\n}}\n"
        )
    };
    assert_eq!(
        common::replay_on(topo, &read(&scratch("cpu0.goal", &cpus("")))),
        (1, 50)
    );
    assert_eq!(
        common::replay_on(topo, &read(&scratch("cpu1.goal", &cpus(" cpu 1")))),
        (1, 30)
    );
}

#[test]
fn trace_check_reads_a_goal_schedule_and_portals_operations_are_refused_with_their_position() {
    let path = sample("dissemination_16.goal");
    let out = common::netreplay(&["trace", "check", "--json", path.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["ranks"].as_u64(), v["messages"].as_u64()),
        (Some(16), Some(64))
    );

    let put = scratch("put.goal", "num_ranks 2\nrank 0 {\nl1: put 8b to 1\n}\n");
    let e = trace::read_any(&put, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("put.goal:3:5") && e.contains("Portals"), "{e}");
    let any = scratch("any.goal", "num_ranks 2\nrank 1 {\nrecv 8b from -1\n}\n");
    let e = trace::read_any(&any, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("any.goal:3:14") && e.contains("-1"), "{e}");
}

/// Every malformed schedule is an error at its `file:line:column`, never a panic.
#[test]
fn malformed_schedules_are_refused_with_their_position() {
    let cases: [(&str, &str, &str); 11] = [
        (
            "no-header.goal",
            "rank 0 {\n}\n",
            "no-header.goal:1:1: a rank block before `num_ranks N`",
        ),
        (
            "dup-label.goal",
            "num_ranks 2\nrank 0 {\na: calc 1\na: calc 2\n}\n",
            "dup-label.goal:4:1",
        ),
        (
            "unknown-label.goal",
            "num_ranks 2\nrank 0 {\na: calc 1\na requires b\n}\n",
            "unknown-label.goal:4:12",
        ),
        (
            "unclosed.goal",
            "num_ranks 2\nrank 1 {\ncalc 1\n",
            "unclosed.goal:3:1",
        ),
        (
            "rank-range.goal",
            "num_ranks 2\nrank 2 {\n}\n",
            "rank-range.goal:2:6",
        ),
        (
            "no-size.goal",
            "num_ranks 2\nrank 0 {\nsend 8 to 1\n}\n",
            "no-size.goal:3:6",
        ),
        (
            "peer.goal",
            "num_ranks 2\nrank 0 {\nsend 8b to 5\n}\n",
            "peer.goal:3",
        ),
        (
            "non-ascii-duration.goal",
            "num_ranks 2\nrank 0 {\nl2: calc é\n}\n",
            "non-ascii-duration.goal:3:10: expected a duration, found `é`",
        ),
        (
            "non-ascii-tag.goal",
            "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0é\n}\n",
            "non-ascii-tag.goal:3:22",
        ),
        (
            "non-ascii-keyword.goal",
            "num_ranks 2\nréank 0 {\n}\n",
            "non-ascii-keyword.goal:2:1",
        ),
        (
            "cycle.goal",
            "num_ranks 2\nrank 0 {\na: calc 1\nb: calc 1\na requires b\nb irequires a\n}\n",
            "cycle.goal:3",
        ),
    ];
    for (name, text, at) in cases {
        // Read as GOAL whatever detection would say (a file without `num_ranks` is not told GOAL).
        let opts = ReadOptions {
            format: Some(Format::GOAL),
            ..ReadOptions::default()
        };
        let e = trace::read_any(&scratch(name, text), &opts)
            .unwrap_err()
            .to_string();
        assert!(e.contains(at), "{name}: {e}");
    }
}

/// Comments may hold any UTF-8 text (a name, a unit): the reader skips them byte-wise.
#[test]
fn non_ascii_text_in_comments_is_skipped() {
    let path = scratch(
        "non-ascii-comment.goal",
        "num_ranks 2\nrank 0 { // zéro\nl1: calc 5 /* µs */\nl2: send 8b to 1 tag 0 // é\nl2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n",
    );
    let p = read(&path);
    assert_eq!(p.sends().map(|s| s.2).collect::<Vec<_>>(), [8]);
}
