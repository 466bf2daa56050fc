//! Hardening, problems 6 and 9: runs too large for the machine are refused at once with
//! a memory estimate, topology metrics stay bounded in time on the largest accepted specs, and long
//! runs can show progress.

mod common;
use common::netreplay;
use std::time::{Duration, Instant};

#[test]
fn p6_a_run_too_large_for_memory_is_refused_at_once_with_the_estimate() {
    for (args, needle) in [
        (
            vec![
                "run",
                "--topology",
                "fat-tree:k=64,n=4",
                "--workload",
                "bu:size=100",
            ],
            "available on this machine",
        ),
        (
            vec![
                "run",
                "--topology",
                "fat-tree:k=16,n=3",
                "--workload",
                "bu:size=100",
                "--max-memory",
                "1M",
            ],
            "the --max-memory limit is 1.0 MiB",
        ),
    ] {
        let started = Instant::now();
        let out = netreplay(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            err.contains("would need about") && err.contains(needle),
            "{err}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{args:?} took {:?}",
            started.elapsed()
        );
    }
    // Under the limit, the same run goes ahead.
    let out = netreplay(&[
        "run",
        "--topology",
        "fat-tree:k=4,n=2",
        "--workload",
        "bu:size=100",
        "--max-memory",
        "1G",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The largest accepted ring: 200,000 sampled routes of ~262,000 links each took minutes; the route
/// sample is now bounded in links traced.
#[test]
fn p6_topology_metrics_stay_bounded_on_a_million_node_ring() {
    let started = Instant::now();
    let out = netreplay(&["topology", "torus:k=1048576,n=1", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["route_hops_sampled"], true);
    let mean = v["route_hops_mean"].as_f64().unwrap();
    assert!((mean - 262_145.0).abs() < 30_000.0, "{mean}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn p9_long_runs_show_progress_on_request_and_not_with_quiet() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--topology",
            "thin-tree:k=4,up=2,n=3",
            "--workload",
            "bu:size=200000",
        ];
        args.extend_from_slice(extra);
        let out = netreplay(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let shown = run(&["--progress"]);
    // Work is phits: 384 messages of 200000 bytes, 3125 packets of 16 phits each.
    assert!(
        shown.contains("progress: started, 19.2 Mphits to go"),
        "{shown}"
    );
    assert!(shown.contains("progress: finished in"), "{shown}");
    // Not a terminal and not asked for: silent; --quiet: silent.
    assert_eq!(run(&[]), "");
    assert_eq!(run(&["--quiet"]), "");
    let out = netreplay(&[
        "run",
        "--progress",
        "--quiet",
        "--topology",
        "fat-tree:k=2,n=1",
    ]);
    assert!(!out.status.success());
    let out = netreplay(&[
        "load-latency",
        "--topology",
        "fat-tree:k=2,n=2",
        "--loads",
        "0.1,0.2",
        "--measure",
        "1000",
        "--progress",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("progress: started, 2 points to go"), "{err}");
    // A campaign says how many runs it has before it starts, and shows progress only when asked.
    let dir = std::env::temp_dir().join(format!(
        "netreplay-campaign-progress-{}",
        std::process::id()
    ));
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick-campaign.toml");
    let campaign = |extra: &str| {
        let _ = std::fs::remove_dir_all(&dir);
        let out = netreplay(&[
            "campaign",
            config,
            "--jobs",
            "1",
            "--out",
            dir.to_str().unwrap(),
            extra,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = campaign("--progress");
    assert!(
        err.contains("campaign: 24 runs to run on 1 thread (0 of 24 runs already done)"),
        "{err}"
    );
    assert!(err.contains("progress: started, 24 runs to go"), "{err}");
    assert!(!campaign("--quiet").contains("progress:"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn p6_a_sweep_too_large_for_memory_is_refused_at_once() {
    let started = Instant::now();
    let out = netreplay(&[
        "load-latency",
        "--topology",
        "fat-tree:k=16,n=3",
        "--loads",
        "0.1,0.2",
        "--max-memory",
        "1M",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("would need about") && err.contains("open-loop runs at once"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// Beyond the list: graph families inside their parameter ranges built hundreds of millions of
/// links (minutes, gigabytes) before any check; now refused from their parameters.
#[test]
fn p6_huge_explicit_switch_graphs_are_refused_before_building() {
    for spec in ["slimfly:q=512,p=6", "flex:x=100,y=100,z=100,p=10"] {
        let started = Instant::now();
        let out = netreplay(&["topology", spec]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{spec}");
        assert!(err.contains("switch-to-switch links"), "{spec}: {err}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{spec}: {:?}",
            started.elapsed()
        );
    }
}

/// Beyond the list: `--trials 4000000000` ran for hours without a word.
#[test]
fn p6_fault_tolerance_trials_are_bounded() {
    let out = netreplay(&[
        "topology",
        "fat-tree:k=4,n=2",
        "--fault-tolerance",
        "--trials",
        "4000000000",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("--trials") && err.contains("100000"), "{err}");
}

/// A native trace declaring 16,777,216 ranks (the largest count the format accepts) replayed on a
/// 16-node network: refused from its header, before a program of 16 M ranks is built (it took 8 GB
/// and 30 s to say the same thing after reading it whole).
#[test]
fn p6_a_trace_declaring_more_ranks_than_nodes_is_refused_before_it_is_read() {
    let dir = std::env::temp_dir().join(format!("netreplay-ranks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("big.nrt");
    std::fs::write(
        &trace,
        "netreplay-trace 1\nranks 16777216 # every rank\n0 send 1 64 0\n1 recv 0 0\n",
    )
    .unwrap();
    let spec = format!("trace:file={}", trace.display());
    let out = netreplay(&["run", "--topology", "fat-tree:k=4,n=2", "--workload", &spec]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("declares 16777216 ranks") && err.contains("only 16 nodes"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A shared-machine run (`[[jobs]]`) shows its progress too: the messages of every job.
#[test]
fn p9_a_run_of_several_jobs_shows_progress() {
    let dir = std::env::temp_dir().join(format!("netreplay-jobs-progress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("jobs.toml");
    std::fs::write(
        &cfg,
        "topology = \"fat-tree:k=4,n=3\"\n\
         [[jobs]]\nworkload = \"bu:size=1000,ranks=32\"\n\
         [[jobs]]\nworkload = \"bt:size=1000,ranks=16\"\n",
    )
    .unwrap();
    let out = netreplay(&["run", cfg.to_str().unwrap(), "--progress"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // BU on 32 ranks: 5 stages x 32 sends; BT on 16 ranks: one send per tree edge, 15; each of
    // 1000 bytes, 16 packets of 16 phits: 175 x 256 = 44800 phits.
    assert!(
        err.contains("progress: started, 44.8 kphits to go"),
        "{err}"
    );
    assert!(err.contains("progress: finished in"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The memory bound `run` and `generate` check before generating a pattern holds for every seed-004
/// pattern: no rank issues more than 2⌈log2 N⌉ + 16 operations (WF: four per repetition, its own).
#[test]
fn p6_the_pattern_memory_bound_holds_for_every_pattern() {
    use netreplay::workload;
    for name in ["2w", "3w", "2m", "3m", "bu", "bt", "wf"] {
        let mut checked = 0;
        for ranks in [16u32, 27, 64, 256, 512, 1024, 4096] {
            let wl = workload::build(&format!("{name}:size=1000")).unwrap();
            let Ok(program) = wl.generator.generate(ranks) else {
                continue; // a count the pattern does not take (2w on 27 ranks)
            };
            let most = (0..ranks)
                .map(|r| program.rank_ops(r).len() as u64)
                .max()
                .unwrap();
            if name != "wf" {
                assert!(
                    most <= netreplay::program::pattern_ops_bound(ranks),
                    "{name} on {ranks} ranks: {most} ops"
                );
            }
            assert!(
                wl.generator.bytes_bound(ranks).unwrap()
                    >= netreplay::replay::program_bytes(&program)
            );
            checked += 1;
        }
        assert!(checked >= 2, "{name}");
    }
}

/// `generate` of 2^20 ranks of BU (about 1.8 GiB of operations) under a 1 GiB memory limit is refused
/// at once with the estimate, instead of being killed by the kernel; more ranks than a trace may hold
/// are refused before anything is written (a reader would refuse the file).
#[test]
fn p6_generate_too_large_for_memory_or_a_trace_is_refused_at_once() {
    let out_file = std::env::temp_dir().join(format!("netreplay-big-{}.nrt", std::process::id()));
    let start = Instant::now();
    let out = netreplay(&[
        "generate",
        "bu:size=10",
        "--ranks",
        "1048576",
        "--max-memory",
        "1G",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("would need about 1.8 GiB") && err.contains("--max-memory"),
        "{err}"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(!out_file.exists());
    for ranks in ["1048577", "16777216"] {
        let args = ["generate", "bu:size=10", "--ranks", ranks, "--out"];
        let out = netreplay(&[&args[..], &[out_file.to_str().unwrap()]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(err.contains("at most 1048576 ranks"), "{err}");
        assert!(!out_file.exists());
    }
}
