//! Shared machines: several jobs replayed together over one network, each compared with itself alone.

use netreplay::network::{LoserRetry, NetworkModel, Selection};
use netreplay::replay::simulate;
use netreplay::run::{JobConfig, RunConfig, execute};
use netreplay::{topology, workload};

fn two_jobs(topo: &str, a: &str, b: &str, placement: &str) -> RunConfig {
    RunConfig {
        topology: Some(topo.into()),
        placement: Some(placement.into()),
        jobs: [a, b]
            .iter()
            .map(|w| JobConfig {
                workload: w.to_string(),
                ..JobConfig::default()
            })
            .collect(),
        // Free-output selection: under FSIN's (the default) the cycles of one BU run vary by about
        // ±10% with the seed, which would hide the effect of sharing that these tests measure.
        network: NetworkModel {
            selection: Selection::free(),
            loser_retry: LoserRetry::SameCycle,
            ..NetworkModel::default()
        },
        ..RunConfig::default()
    }
}

/// Two identical all-to-all-like jobs on the two halves of a 4,3-fat-tree: their butterflies cross the
/// top level, which they share, so neither finishes faster than alone; and each alone-time is the
/// single-job run on the same nodes.
#[test]
fn two_jobs_on_disjoint_halves_are_no_faster_than_alone() {
    let cfg = two_jobs(
        "fat-tree:k=4,n=3",
        "bu:size=10000,ranks=32",
        "bu:size=10000,ranks=32",
        "consecutive",
    );
    let r = execute(&cfg).unwrap();
    assert_eq!(r.jobs.len(), 2);
    assert_eq!(r.jobs[0].nodes, (0..32).collect::<Vec<_>>());
    assert_eq!(r.jobs[1].nodes, (32..64).collect::<Vec<_>>());
    for j in &r.jobs {
        assert!(
            j.duration >= j.alone_cycles,
            "{} < {}",
            j.duration,
            j.alone_cycles
        );
        assert!(j.slowdown >= 1.0);
    }
    assert_eq!(
        r.outcome.completion_cycles,
        r.jobs.iter().map(|j| j.completion_cycles).max().unwrap()
    );
    assert_eq!(r.outcome.phits_injected, r.outcome.phits_delivered);

    // Alone-time = the single-job run on the same nodes.
    let topo = topology::build("fat-tree:k=4,n=3").unwrap();
    let program = workload::build("bu:size=10000")
        .unwrap()
        .generator
        .generate(32)
        .unwrap();
    for j in &r.jobs {
        let alone = simulate(topo.as_ref(), &cfg.network, &program, &j.nodes, 1).unwrap();
        assert_eq!(alone.completion_cycles, j.alone_cycles);
    }
    let single = execute(&RunConfig {
        topology: Some("fat-tree:k=4,n=3".into()),
        workload: Some("bu:size=10000,ranks=32".into()),
        network: cfg.network.clone(),
        ..RunConfig::default()
    })
    .unwrap();
    assert_eq!(single.outcome.completion_cycles, r.jobs[0].alone_cycles);
}

/// A later start delays a job exactly; jobs that share nothing (each within its own leaf switches and
/// never leaving them) are not slowed at all.
#[test]
fn start_times_and_isolated_jobs() {
    let mut cfg = two_jobs(
        "fat-tree:k=4,n=3",
        "bu:size=1000,ranks=4",
        "bu:size=1000,ranks=4",
        "contiguous",
    );
    cfg.jobs[1].start = 500;
    let r = execute(&cfg).unwrap();
    assert_eq!(r.jobs[0].nodes, [0, 1, 2, 3]);
    assert_eq!(r.jobs[1].nodes, [4, 5, 6, 7]);
    for j in &r.jobs {
        assert_eq!(j.duration, j.alone_cycles);
    }
    assert_eq!(r.jobs[1].completion_cycles, 500 + r.jobs[1].alone_cycles);
}

#[test]
fn jobs_that_do_not_fit_or_lack_a_rank_count_are_errors() {
    let cfg = two_jobs(
        "fat-tree:k=4,n=3",
        "bu:size=100,ranks=64",
        "bu:size=100,ranks=2",
        "consecutive",
    );
    let e = execute(&cfg).unwrap_err().to_string();
    assert!(
        e.contains("job 1") && e.contains("only 0 of the 64 nodes"),
        "{e}"
    );
    let cfg = two_jobs(
        "fat-tree:k=4,n=3",
        "bu:size=100",
        "bu:size=100,ranks=2",
        "consecutive",
    );
    let e = execute(&cfg).unwrap_err().to_string();
    assert!(e.contains("give its rank count"), "{e}");
}

#[test]
fn jobs_from_a_toml_config_through_the_binary() {
    let dir = std::env::temp_dir().join(format!("netreplay-jobs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("jobs.toml");
    std::fs::write(
        &cfg,
        "topology = \"thin-tree:k=4,up=2,n=3\"\n[[jobs]]\nworkload = \"2m:size=1000,ranks=16\"\nplacement = \"random:seed=4\"\n[[jobs]]\nworkload = \"bt:size=1000,ranks=32\"\nstart = 100\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(["run", cfg.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 2);
    assert_eq!(v["jobs"][1]["start"], 100);
    assert_eq!(v["ranks"], 48);
    std::fs::remove_dir_all(&dir).unwrap();
}
