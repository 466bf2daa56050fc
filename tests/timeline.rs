//! The replay timeline (Chrome trace-event JSON), link load over time and the critical path.
//!
//! Timelines of a 64-rank seed-004 workload and of a SimGrid NPB trace are checked against the
//! trace-event rules (required fields, matched B/E, X with dur, time order per track), every rank's
//! intervals must sum to its finishing cycle, the link-load series must sum to the run's phits per
//! class, and the critical path of BU is checked against its hand-derived length.

use netreplay::network::NetworkModel;
use netreplay::network::load_bins::LoadBins;
use netreplay::replay::{Instruments, Replay, simulate};
mod common;

use common::timeline::{Checked, validate};
use netreplay::report::timeline::{TimelineMeta, TimelineWriter};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("timeline");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn run_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(args)
        .args(["--json", "--quiet"])
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn npb(kernel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!(
            "traces/simgrid/npb3.3/{kernel}.S.16/{kernel}.S.16.txt"
        ))
        .display()
        .to_string()
}

/// Every rank's intervals sum to its finishing cycle, the latest of which is the critical path's.
fn check_ranks(c: &Checked, report: &Value, ranks: u64) {
    assert_eq!(c.ranks.len() as u64, ranks);
    let mut latest = 0;
    for (tid, (sum, end)) in &c.ranks {
        let end = end.unwrap_or_else(|| panic!("rank track {tid} has no end"));
        assert_eq!(
            *sum, end,
            "rank track {tid}: intervals sum to {sum}, end at {end}"
        );
        latest = latest.max(end);
    }
    assert_eq!(report["critical_path"]["cycles"], latest);
    assert!(latest <= report["completion_cycles"].as_u64().unwrap());
}

/// Each class's series sums to the phits the class carried; the top links' series to theirs.
fn check_link_load(report: &Value) {
    let ll = &report["link_load"];
    let width = ll["bin_cycles"].as_u64().unwrap() as f64;
    for c in report["link_classes"].as_array().unwrap() {
        let series = ll["classes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["class"] == c["class"])
            .unwrap_or_else(|| panic!("no series for {}", c["class"]));
        let sum: u64 = series["phits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_u64().unwrap())
            .sum();
        assert_eq!(sum, c["phits"].as_u64().unwrap(), "{}", c["class"]);
        assert_eq!(series["phits"].as_array().unwrap().len(), ll["bins"]);
    }
    let top = ll["top_links"].as_array().unwrap();
    assert!(!top.is_empty());
    assert_eq!(top[0]["link"], report["busiest_links"][0]["link"]);
    for l in top {
        let sum: f64 = l["utilisation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u.as_f64().unwrap() * width)
            .sum();
        let total = l["total_phits"].as_u64().unwrap() as f64;
        assert!((sum - total).abs() < 1e-6 * total.max(1.0), "{l}");
    }
}

#[test]
fn bu_on_64_ranks_timeline_is_valid_and_adds_up() {
    let file = scratch("bu64.json");
    let dir = scratch("bu64-load");
    let r = run_json(&[
        "run",
        "--topology",
        "fat-tree:k=4,n=3",
        "--workload",
        "bu:size=1000",
        "--timeline",
        file.to_str().unwrap(),
        "--link-load",
        dir.to_str().unwrap(),
    ]);
    let c = validate(&file);
    check_ranks(&c, &r, 64);
    check_link_load(&r);
    // The critical-path track covers the whole path.
    assert_eq!(c.critical, r["critical_path"]["cycles"].as_u64().unwrap());
    assert_eq!(
        c.other["time_unit"],
        "ts in microseconds of simulated time at 1000000000 cycles per second"
    );
    assert_eq!(c.other["ranks_shown"], 64);
    // Every message of BU is point to point: 64 ranks x 6 stages, each with its arrow.
    assert_eq!(c.flows, 64 * 6);
    assert_eq!(c.other["flows"], 64 * 6);
    for f in ["link_load.csv", "top_links.csv", "link_load.svg"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let csv = std::fs::read_to_string(dir.join("link_load.csv")).unwrap();
    let bins = r["link_load"]["bins"].as_u64().unwrap();
    assert_eq!(csv.lines().count() as u64, 1 + bins * 6);
    eprintln!(
        "bu 64-rank timeline: {} bytes",
        std::fs::metadata(&file).unwrap().len()
    );
}

#[test]
fn mesh_exchange_timeline_is_valid() {
    let file = scratch("2m64.json");
    let r = run_json(&[
        "run",
        "--topology",
        "fat-tree:k=4,n=3",
        "--workload",
        "2m:size=5000",
        "--timeline",
        file.to_str().unwrap(),
    ]);
    let c = validate(&file);
    check_ranks(&c, &r, 64);
    // A timeline alone adds no `link_load` to the report.
    assert!(r.get("link_load").is_none());
}

/// Under the flow model the timeline has the ranks' and messages' tracks (no packets, so no link
/// load): valid, adding up, one arrow per message.
#[test]
fn flow_model_timeline_is_valid_and_adds_up() {
    let file = scratch("bu64-flow.json");
    let r = run_json(&[
        "run",
        "--topology",
        "fat-tree:k=4,n=3",
        "--workload",
        "bu:size=1000",
        "--model",
        "flow",
        "--timeline",
        file.to_str().unwrap(),
    ]);
    let c = validate(&file);
    check_ranks(&c, &r, 64);
    assert_eq!(c.flows, 64 * 6);
    assert!(r.get("link_load").is_none());
}

#[test]
fn npb_trace_timeline_has_collectives_and_adds_up() {
    let file = scratch("cg16.json");
    let spec = format!("trace:file={},cache=off", npb("cg"));
    let r = run_json(&[
        "run",
        "--topology",
        "fat-tree:k=4,n=3",
        "--workload",
        &spec,
        "--timeline",
        file.to_str().unwrap(),
        "--link-load",
        scratch("cg16-load").to_str().unwrap(),
    ]);
    let c = validate(&file);
    check_ranks(&c, &r, 16);
    check_link_load(&r);
    assert!(c.collectives > 0, "CG's allreduces are collective slices");
    assert_eq!(c.other["collectives"], "slices from the trace's MPI calls");
    // CG's point-to-point messages outnumber the cap: the first 10,000 have arrows.
    assert_eq!(c.flows, 10_000);
    let cp = &r["critical_path"];
    let parts: u64 = ["compute_cycles", "latency_cycles", "contention_cycles"]
        .iter()
        .map(|k| cp[k].as_u64().unwrap())
        .sum();
    assert_eq!(parts, cp["cycles"].as_u64().unwrap());
    assert!(cp["compute_cycles"].as_u64().unwrap() > 0);
    eprintln!(
        "cg.S.16 timeline: {} bytes",
        std::fs::metadata(&file).unwrap().len()
    );
}

#[test]
fn collective_slices_survive_the_trace_cache() {
    // The first run reads the trace and writes its cache, the second reads the cache: the same
    // timeline either way.
    let store = scratch("cache-store");
    let _ = std::fs::remove_dir_all(&store);
    let spec = format!("trace:file={},cache={}", npb("mg"), store.display());
    let mut timelines = Vec::new();
    for round in 0..2 {
        let file = scratch(&format!("mg16-{round}.json"));
        run_json(&[
            "run",
            "--topology",
            "fat-tree:k=4,n=3",
            "--workload",
            &spec,
            "--timeline",
            file.to_str().unwrap(),
        ]);
        let c = validate(&file);
        assert!(c.collectives > 0);
        timelines.push(std::fs::read_to_string(&file).unwrap());
    }
    assert_eq!(
        std::fs::read_dir(&store).unwrap().count(),
        1,
        "one cache file"
    );
    assert_eq!(timelines[0], timelines[1]);
}

/// A run config of `bu:size=1000` on the 4-ary 3-tree under free-output selection with same-cycle
/// retry (conflict-free stages), its `[network]` table ending in `extra`.
fn free_bu_config(name: &str, extra: &str) -> PathBuf {
    let config = scratch(name);
    std::fs::write(
        &config,
        format!(
            "topology = \"fat-tree:k=4,n=3\"\nworkload = \"bu:size=1000\"\n\
             [network]\nselection = \"free\"\nloser_retry = \"same-cycle\"\n{extra}"
        ),
    )
    .unwrap();
    config
}

#[test]
fn bu_critical_path_without_contention_is_the_sum_of_its_stages() {
    // bu:size=1000 on the 4-ary 3-tree: 1000 bytes are ceil(1000 / 64) = 16 packets of 16 phits, so a
    // message takes L + 16 x 16 = L + 256 cycles on an empty network (the contract's L + 16P). Rank r's
    // partner at stage s is r XOR 2^s: stages 0-1 stay under one leaf switch (L = 2 links), stages
    // 2-3 turn at level 1 (L = 4), stages 4-5 at the top (L = 6). Each stage is a permutation that
    // adaptive up-routing over free outputs only, losers choosing again in the same cycle (the model
    // netreplay's first switch), spreads without conflict, so the critical path is 6 messages and
    // 6 x 256 + 2 x (2 + 4 + 6) = 1560 cycles, all of it latency. (FSIN's selection, the default,
    // may send a head to a busy but less occupied output: 62 cycles of contention, tested below.)
    let config = free_bu_config("bu-free.toml", "");
    let r = run_json(&["run", config.to_str().unwrap()]);
    let cp = &r["critical_path"];
    assert_eq!(r["completion_cycles"], 1560);
    assert_eq!(cp["cycles"], 1560);
    assert_eq!(cp["latency_cycles"], 1560);
    assert_eq!(cp["contention_cycles"], 0);
    assert_eq!(cp["compute_cycles"], 0);
    assert_eq!(cp["messages"], 6);
    let steps = cp["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 6);
    let zero: Vec<u64> = steps
        .iter()
        .map(|s| s["zero_load"].as_u64().unwrap())
        .collect();
    assert_eq!(zero, [258, 258, 260, 260, 262, 262]);
    // A timeline off leaves no `link_load` in the report.
    assert!(r.get("link_load").is_none());
}

/// The same BU with `allocation_delay = 2` on both models: a head waits 2 cycles at each switch, and a
/// link into a switch carries a packet every 16 + 2 cycles, so a stage-0 message (2 links, 1 switch, 16
/// packets) takes 2 + 2 + 256 and 15 x 2 more cycles under the flit model (its packets behind the
/// first are spaced), 16 x 2 under the flow model (rate 16 / 18), with nothing to contend with. That
/// spacing is zero-load latency, not contention.
#[test]
fn packet_spacing_is_latency_not_contention() {
    let config = free_bu_config("bu-spaced.toml", "allocation_delay = 2\n");
    for (model, gaps) in [("flit", 15), ("flow", 16)] {
        let r = run_json(&["run", config.to_str().unwrap(), "--model", model]);
        let cp = &r["critical_path"];
        assert_eq!(cp["contention_cycles"], 0, "{model}: {cp}");
        let zero: Vec<u64> = cp["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["zero_load"].as_u64().unwrap())
            .collect();
        assert_eq!(zero[0], 2 + 2 + 256 + gaps * 2, "{model}");
        assert_eq!(cp["cycles"], r["completion_cycles"], "{model}");
    }
}

/// RUFT's return links are `fly_time` per unit of length long (seed 000): a lone message on an
/// `n`-stage RUFT with `fly_time = 8` crosses one link n - 1 units longer than the rest, and both
/// engines report that extra fly time with the message, so its critical path shows no contention.
#[test]
fn long_links_are_latency_not_contention() {
    let trace = scratch("ruft-one.trc");
    std::fs::write(
        &trace,
        "netreplay-trace 3\nranks 8\n0 send 7 1600\n7 recv 0\n",
    )
    .unwrap();
    for topology in ["ruft:k=4,n=3", "kns:k=4,n=2,s=2,sub=ruft,p=1"] {
        let config = scratch("ruft.toml");
        std::fs::write(
            &config,
            format!(
                "topology = \"{topology}\"\nworkload = \"trace:file={}\"\n[network]\nfly_time = 8\n",
                trace.display()
            ),
        )
        .unwrap();
        for model in ["flit", "flow"] {
            let r = run_json(&["run", config.to_str().unwrap(), "--model", model]);
            let cp = &r["critical_path"];
            assert_eq!(cp["contention_cycles"], 0, "{topology} {model}: {cp}");
            assert_eq!(cp["cycles"], r["completion_cycles"], "{topology} {model}");
        }
    }
}

#[test]
fn bu_critical_path_under_fsin_selection_shows_its_contention() {
    // The default model (FSIN's least-occupied-queue selection, next-cycle retry) sends some heads to
    // a busy output: the same 1560 cycles of zero-load latency, and the rest of the completion time is
    // contention on the path.
    let r = run_json(&[
        "run",
        "--topology",
        "fat-tree:k=4,n=3",
        "--workload",
        "bu:size=1000",
    ]);
    let cp = &r["critical_path"];
    assert_eq!(cp["latency_cycles"], 1560);
    assert_eq!(cp["messages"], 6);
    let contention = cp["contention_cycles"].as_u64().unwrap();
    assert_eq!(cp["cycles"].as_u64().unwrap(), 1560 + contention);
    assert_eq!(cp["cycles"], r["completion_cycles"]);
}

#[test]
fn bu_critical_path_on_a_thin_tree_shows_contention() {
    // The 4:2,3-thin-tree halves the upward links: stages 2-5 cross levels with half the bandwidth,
    // so messages wait for busy links.
    let r = run_json(&[
        "run",
        "--topology",
        "thin-tree:k=4,up=2,n=3",
        "--workload",
        "bu:size=1000",
    ]);
    let cp = &r["critical_path"];
    let contention = cp["contention_cycles"].as_u64().unwrap();
    assert!(contention > 0, "{cp}");
    assert!(cp["contention_share"].as_f64().unwrap() > 0.0);
    assert_eq!(cp["latency_cycles"], 1560);
    assert_eq!(cp["cycles"].as_u64().unwrap(), 1560 + contention);
    assert_eq!(cp["cycles"], r["completion_cycles"]);
}

#[test]
fn instruments_do_not_change_the_run() {
    // The same run with and without every instrument: identical outcome.
    let topo = netreplay::topology::build("thin-tree:k=4,up=2,n=3").unwrap();
    let wl = netreplay::workload::build("2m:size=3000").unwrap();
    let program = wl.generator.generate(64).unwrap();
    let nodes: Vec<u32> = (0..64).collect();
    let model = NetworkModel::default();
    let plain = simulate(topo.as_ref(), &model, &program, &nodes, 7).unwrap();
    let mut load = LoadBins::new(50);
    let meta = TimelineMeta {
        topology: topo.spec(),
        workload: "2m".into(),
        rank_node: nodes.clone(),
        collectives_known: false,
        max_tracks: 16,
        max_events: 100,
        max_flows: 10,
        cycles_per_second: 1e9,
    };
    let mut writer = TimelineWriter::new(Vec::new(), &meta).unwrap();
    let mut counters = netreplay::network::counters::Counters::new(200);
    let instruments = Instruments {
        load: Some(&mut load),
        observer: Some(&mut writer),
        critical_path: true,
        progress: None,
        counters: Some(&mut counters),
    };
    let replay = Replay::new(topo.as_ref(), &model, 7).unwrap();
    let r = replay.program(&program, &nodes, instruments).unwrap();
    let watched = r.outcome;
    assert_eq!(plain, watched);
    // Every packet sent is received once.
    let counted = counters.finish(watched.completion_cycles);
    assert_eq!(counted.totals.packets_received, watched.packets);
    let cp = r.critical_path.unwrap();
    assert_eq!(
        cp.compute_cycles + cp.latency_cycles + cp.contention_cycles,
        cp.cycles
    );
    let series = load.finish(watched.completion_cycles, None);
    assert!(series.bins <= 50 && series.bins >= 25, "{}", series.bins);
    // Bounded: 16 of 64 ranks shown (every 4th), detail stopped after 100 events, and the file says so.
    let bytes = writer
        .finish(watched.completion_cycles, Some(&series), Some(&cp))
        .unwrap();
    let path = scratch("bounded.json");
    std::fs::write(&path, &bytes).unwrap();
    let c = validate(&path);
    assert_eq!(c.other["rank_stride"], 4);
    assert_eq!(c.other["ranks_shown"], 16);
    assert!(c.other["truncated_at_cycle"].as_u64().is_some());
    assert_eq!(c.other["rank_events"], 100);
}

#[test]
fn top_links_from_a_second_pass_match_their_totals() {
    // 384 links x 10000 bins is past the per-link budget: the run is replayed for the top links.
    let r = run_json(&[
        "run",
        "--topology",
        "fat-tree:k=4,n=3",
        "--workload",
        "bu:size=1000",
        "--link-load",
        scratch("second-pass").to_str().unwrap(),
        "--bins",
        "10000",
    ]);
    assert_eq!(r["link_load"]["top_links_from"], "second pass");
    check_link_load(&r);
}

/// Rendezvous on an empty 4,2-fat-tree, two nodes of one switch (L = 2 links): the critical path
/// follows the protocol's chain through the messages' notes. With the receive posted at once it is
/// request-to-send, clear-to-send (one 64-byte packet each: L + 16 cycles) and the 1 MiB data (P =
/// 16,384 packets: L + 16 P), all latency. With rank 1 computing 1,000 cycles first, the
/// clear-to-send leaves at its post and carries that computation: compute, clear-to-send, data.
/// The flow model times a lone message the same way, so both models give the same path.
#[test]
fn rendezvous_critical_path_follows_the_protocol_messages() {
    let (l, p) = (2u64, 16_384u64);
    let cases = [
        ("rdv-now.trc", "", 0u64, 3u64),
        ("rdv-later.trc", "1 compute 1000\n", 1000, 2),
    ];
    for (name, compute, compute_cycles, messages) in cases {
        let trace = scratch(name);
        std::fs::write(
            &trace,
            format!("netreplay-trace 3\nranks 2\n0 send 1 1048576\n{compute}1 recv 0\n"),
        )
        .unwrap();
        let workload = format!(
            "trace:file={},protocol=rendezvous,cache=off",
            trace.display()
        );
        let latency = (messages - 1) * (l + 16) + l + 16 * p;
        for model in ["flit", "flow"] {
            let r = run_json(&[
                "run",
                "--topology",
                "fat-tree:k=4,n=2",
                "--workload",
                &workload,
                "--model",
                model,
            ]);
            let cp = &r["critical_path"];
            let what = format!("{name} {model}");
            assert_eq!(r["completion_cycles"], compute_cycles + latency, "{what}");
            assert_eq!(cp["cycles"], compute_cycles + latency, "{what}");
            assert_eq!(cp["compute_cycles"], compute_cycles, "{what}");
            assert_eq!(cp["latency_cycles"], latency, "{what}");
            assert_eq!(cp["contention_cycles"], 0, "{what}");
            assert_eq!(cp["messages"], messages, "{what}");
            let froms: Vec<u64> = cp["steps"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|s| s["from"].as_u64())
                .collect();
            let expected: &[u64] = if messages == 3 { &[0, 1, 0] } else { &[1, 0] };
            assert_eq!(froms, expected, "{what}");
        }
    }
}
