//! Multi-job GOAL: the schedules in `traces/goal-merge/`, written by ATLAHS's `merge_goals.py` from
//! `traces/goal/binary_tree_16.goal` (job 0: 15 messages of 1 byte) and `dissemination_16.goal`
//! (job 1: 16 x log2 16 = 64 messages of 1 byte), split back into those two schedules and replayed
//! as jobs sharing a fat tree, with each job's completion as `[[jobs]]` reports it.

mod common;

use netreplay::program::Program;
use netreplay::replay::simulate;
use netreplay::run::{JobConfig, RunConfig, RunOptions, execute, execute_with};
use netreplay::topology;
use netreplay::trace::jobs::{self, Split};
use netreplay::trace::{self, ReadOptions};
use std::path::PathBuf;

const TOPOLOGY: &str = "fat-tree:k=4,n=3";

fn path(folder: &str, name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("traces")
        .join(folder)
        .join(name)
        .display()
        .to_string()
}

fn read(file: &str) -> Program {
    trace::read_any(file.as_ref(), &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Each sample's job placement as the merge printed it (`merge_goals.py -v`).
fn samples() -> [(&'static str, Vec<Vec<u32>>); 3] {
    [
        ("packed", vec![(0..16).collect(), (16..32).collect()]),
        (
            "round_robin",
            vec![
                (0..16).map(|i| 2 * i).collect(),
                (0..16).map(|i| 2 * i + 1).collect(),
            ],
        ),
        (
            "custom",
            vec![(0..16).collect(), (28..36).rev().chain(20..28).collect()],
        ),
    ]
}

/// The two schedules the samples merge, as `[[jobs]]` placed one after the other.
fn two_jobs() -> RunConfig {
    RunConfig {
        topology: Some(TOPOLOGY.into()),
        jobs: ["binary_tree_16.goal", "dissemination_16.goal"]
            .iter()
            .map(|f| JobConfig {
                workload: format!("trace:file={}", path("goal", f)),
                ..JobConfig::default()
            })
            .collect(),
        ..RunConfig::default()
    }
}

fn run(workload: &str) -> netreplay::run::RunReport {
    execute(&RunConfig {
        topology: Some(TOPOLOGY.into()),
        workload: Some(workload.into()),
        ..RunConfig::default()
    })
    .unwrap_or_else(|e| panic!("{workload}: {e}"))
}

#[test]
fn merged_schedules_split_into_the_schedules_that_were_merged() {
    let originals = [
        read(&path("goal", "binary_tree_16.goal")),
        read(&path("goal", "dissemination_16.goal")),
    ];
    for (name, placed) in samples() {
        let merged = read(&path("goal-merge", &format!("{name}.goal")));
        let config = Split::Merge(path("goal-merge", &format!("{name}.json")).into());
        let split = jobs::job_ranks(&merged, &config).unwrap();
        assert_eq!(split, placed, "{name}");
        for (ranks, original) in split.iter().zip(&originals) {
            assert_eq!(&merged.subset(ranks).unwrap(), original, "{name}");
        }
        let counts: Vec<(u32, u64, u64)> = jobs::summaries(&merged, &split)
            .iter()
            .map(|s| (s.rank_count, s.messages, s.bytes))
            .collect();
        assert_eq!(counts, [(16, 15, 15), (16, 64, 64)], "{name}");
        // The jobs exchange no messages, and each job's do connect all its ranks.
        let mut sorted = placed.clone();
        sorted.iter_mut().for_each(|r| r.sort_unstable());
        assert_eq!(jobs::connected(&merged), sorted, "{name}");
    }
}

#[test]
fn a_merged_run_reports_each_job_as_jobs_do() {
    let topo = topology::build(TOPOLOGY).unwrap();
    let originals = [
        read(&path("goal", "binary_tree_16.goal")),
        read(&path("goal", "dissemination_16.goal")),
    ];
    for (name, placed) in samples() {
        let file = path("goal-merge", &format!("{name}.goal"));
        let config = path("goal-merge", &format!("{name}.json"));
        let r = run(&format!("trace:file={file},jobs={config}"));
        assert_eq!(r.jobs.len(), 2, "{name}");
        assert_eq!((r.ranks, r.outcome.messages), (32, 79), "{name}");
        assert_eq!(
            r.outcome.completion_cycles,
            r.jobs.iter().map(|j| j.completion_cycles).max().unwrap()
        );
        for ((job, nodes), original) in r.jobs.iter().zip(&placed).zip(&originals) {
            // Consecutive placement: global rank g on node g, the merge's own mapping.
            assert_eq!(&job.nodes, nodes, "{name}");
            let alone = simulate(topo.as_ref(), &r.network, original, nodes, 1).unwrap();
            assert_eq!(job.alone_cycles, alone.completion_cycles, "{name}");
        }
    }
    // The packed merge is [[jobs]] of the two schedules placed one after the other, cycle for cycle.
    let packed = run(&format!(
        "trace:file={},jobs=connected",
        path("goal-merge", "packed.goal")
    ));
    let separate = execute(&two_jobs()).unwrap();
    assert_eq!(
        packed.outcome.completion_cycles,
        separate.outcome.completion_cycles
    );
    assert_eq!(packed.outcome.messages, separate.outcome.messages);
    for (a, b) in packed.jobs.iter().zip(&separate.jobs) {
        assert_eq!(
            (&a.nodes, a.completion_cycles, a.alone_cycles),
            (&b.nodes, b.completion_cycles, b.alone_cycles)
        );
    }
}

/// Seed 001's counters over a shared-machine run, merged trace or `[[jobs]]`: every one of the 79
/// one-byte messages is one packet received, and counting changes no cycle.
#[test]
fn shared_runs_count_packets_received() {
    let counting = RunOptions {
        counters: true,
        ..RunOptions::default()
    };
    let merged = RunConfig {
        topology: Some(TOPOLOGY.into()),
        workload: Some(format!(
            "trace:file={},jobs=connected",
            path("goal-merge", "packed.goal")
        )),
        ..RunConfig::default()
    };
    for config in [merged, two_jobs()] {
        let plain = execute(&config).unwrap();
        let counted = execute_with(&config, &counting).unwrap();
        assert!(plain.counters.is_none());
        let c = counted.counters.expect("counters asked for");
        assert_eq!(c.totals.packets_received, 79);
        assert_eq!(c.cycles, plain.outcome.completion_cycles);
        assert_eq!(
            counted.outcome.completion_cycles,
            plain.outcome.completion_cycles
        );
    }
}

#[test]
fn one_job_schedules_replay_as_before() {
    let file = path("goal", "binary_tree_16.goal");
    let plain = run(&format!("trace:file={file}"));
    assert!(plain.jobs.is_empty());
    assert_eq!((plain.ranks, plain.outcome.messages), (16, 15));
    let topo = topology::build(TOPOLOGY).unwrap();
    let nodes: Vec<u32> = (0..16).collect();
    let alone = simulate(topo.as_ref(), &plain.network, &read(&file), &nodes, 1).unwrap();
    assert_eq!(plain.outcome.completion_cycles, alone.completion_cycles);
    // As one job it completes at the same cycle.
    let one = run(&format!("trace:file={file},jobs=connected"));
    assert_eq!(one.jobs.len(), 1);
    assert_eq!(one.jobs[0].nodes, nodes);
    assert_eq!(
        (one.jobs[0].completion_cycles, one.jobs[0].alone_cycles),
        (
            plain.outcome.completion_cycles,
            plain.outcome.completion_cycles
        )
    );
}

#[test]
fn trace_check_lists_the_jobs() {
    let out = common::netreplay(&["trace", "stats", &path("goal-merge", "custom.goal")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for line in [
        "note               its ranks form 2 groups",
        "job 0              ranks 0-15: 16 ranks, 15 messages (15 bytes)",
        "job 1              ranks 20-35: 16 ranks, 64 messages (64 bytes)",
    ] {
        assert!(text.contains(line), "`{line}` missing from:\n{text}");
    }
    let config = path("goal-merge", "custom.json");
    let out = common::netreplay(&[
        "trace",
        "check",
        &path("goal-merge", "custom.goal"),
        "--jobs",
        &config,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("job 1              ranks 35-28,20-27: 16 ranks, 64 messages"));
    assert!(!text.contains("note"), "{text}");
    // One job: nothing about jobs.
    let out = common::netreplay(&["trace", "check", &path("goal", "binary_tree_16.goal")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("job") && !text.contains("note"), "{text}");
}

#[test]
fn wrong_splits_are_refused_naming_why() {
    let merged = path("goal-merge", "custom.goal");
    let config = |name: &str, body: &str| {
        let p = common::scratch("goal_jobs", name);
        std::fs::write(&p, body).unwrap();
        p.display().to_string()
    };
    let head = r#"{"mode": "multi-job", "goal_files": [], "pattern": "#;
    let cases = [
        (
            config("random.json", &format!("{head}\"random\"}}")),
            "give the one it printed",
        ),
        (
            config(
                "tenant.json",
                r#"{"mode": "multi-tenant", "goal_files": [], "pattern": []}"#,
            ),
            "only `multi-job` is read",
        ),
        (
            config(
                "missing.json",
                &format!("{head}[[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]]}}"),
            ),
            "rank 20 has operations but is in no job",
        ),
        (
            config(
                "halves.json",
                &format!(
                    "{head}[[0,1,2,3,4,5,6,7],[8,9,10,11,12,13,14,15],[20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35]]}}"
                ),
            ),
            "job 0: rank 0 exchanges messages with rank 8, which is not in its job",
        ),
        (
            config("twice.json", &format!("{head}[[0,1],[1]]}}")),
            "rank 1 is in job 0 and in job 1",
        ),
        (
            config("empty.json", &format!("{head}[[0,1],[]]}}")),
            "job 1 has no ranks",
        ),
        (
            config("syntax.json", "{\n  \"mode\": }"),
            "syntax.json:2:11",
        ),
    ];
    for (config, needle) in cases {
        let err = execute(&RunConfig {
            topology: Some(TOPOLOGY.into()),
            workload: Some(format!("trace:file={merged},jobs={config}")),
            ..RunConfig::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains(needle), "{config}: `{needle}` not in {err}");
    }
    let native = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces/bt-size1000-16.trc");
    common::rejects(
        &[
            "run",
            "--topology",
            TOPOLOGY,
            "--workload",
            &format!("trace:file={},jobs=connected", native.display()),
        ],
        &["jobs= splits GOAL schedules"],
    );
    let timeline = common::scratch("goal_jobs", "t.json").display().to_string();
    common::rejects(
        &[
            "run",
            "--topology",
            TOPOLOGY,
            "--workload",
            &format!("trace:file={merged},jobs=connected"),
            "--timeline",
            &timeline,
        ],
        &["take a single workload, not a multi-job trace"],
    );
}

/// A merge configuration that is empty or cut short is refused at its `file:line:column`, the column
/// counted from 1 even at the end of a line (serde_json says 0 there).
#[test]
fn a_truncated_merge_configuration_gives_a_column_from_1() {
    let dir = common::fresh_dir("goal_jobs", "truncated-merge");
    let goal = path("goal-merge", &format!("{}.goal", samples()[0].0));
    for (text, at) in [("", "merge.json:1:1:"), ("{\n", "merge.json:2:1:")] {
        let config = dir.join("merge.json");
        std::fs::write(&config, text).unwrap();
        let e = execute(&RunConfig {
            topology: Some(TOPOLOGY.into()),
            workload: Some(format!("trace:file={goal},jobs={}", config.display())),
            ..RunConfig::default()
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(at) && e.contains("not an ATLAHS merge configuration"),
            "{e}"
        );
    }
}
