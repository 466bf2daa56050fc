//! Open-loop synthetic traffic against hand-computed answers: zero-load latency, throughput below and
//! above saturation, hop histograms, determinism, and the `load-latency` command's outputs.

use netreplay::network::{LoadPoint, NetworkModel, OpenLoopParams};
use netreplay::{topology, traffic};

fn point(topo: &str, pattern: &str, load: f64, measure: u64, model: &NetworkModel) -> LoadPoint {
    let t = topology::build(topo).unwrap();
    let dest = traffic::build(pattern).unwrap().bind(t.nodes(), 1).unwrap();
    let params = OpenLoopParams {
        load,
        measure_cycles: measure,
        ..OpenLoopParams::default()
    };
    netreplay::network::Network::new(t.as_ref(), model)
        .and_then(|n| n.open_loop(&dest, &params, 1))
        .unwrap()
}

fn within(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance * want
}

/// Zero-load latency of a 16-phit packet over L links is L(1 + F) + (L - 1)R + 16 (the engine's
/// timing, see tests/engine_timing.rs). Averaged over uniform destinations:
/// - 4,3-fat-tree (64 nodes): 3 others share the leaf (L = 2), 12 the level-1 subtree (L = 4),
///   48 are across the top (L = 6);
/// - 4-ary 2-cube torus (16 nodes): mean router distance over the 15 others is 32/15, plus 2 node links.
#[test]
fn zero_load_latency_matches_the_hand_computed_average() {
    let fat_l = |f: f64, r: f64| {
        (3.0 * lat(2.0, f, r) + 12.0 * lat(4.0, f, r) + 48.0 * lat(6.0, f, r)) / 63.0
    };
    fn lat(l: f64, f: f64, r: f64) -> f64 {
        l * (1.0 + f) + (l - 1.0) * r + 16.0
    }
    let default = NetworkModel::default();
    let p = point("fat-tree:k=4,n=3", "uniform", 0.002, 100_000, &default);
    assert!(p.packets_measured > 500, "{}", p.packets_measured);
    assert!(
        within(p.mean_latency, fat_l(0.0, 0.0), 0.02),
        "{} vs {}",
        p.mean_latency,
        fat_l(0.0, 0.0)
    );
    let seed000 = NetworkModel {
        routing_delay: 20,
        fly_time: 8,
        ..default.clone()
    };
    let p = point("fat-tree:k=4,n=3", "uniform", 0.002, 100_000, &seed000);
    assert!(
        within(p.mean_latency, fat_l(8.0, 20.0), 0.02),
        "{} vs {}",
        p.mean_latency,
        fat_l(8.0, 20.0)
    );
    let p = point("torus:k=4,n=2", "uniform", 0.002, 200_000, &default);
    let torus = 32.0 / 15.0 + 2.0 + 16.0;
    assert!(
        within(p.mean_latency, torus, 0.02),
        "{} vs {torus}",
        p.mean_latency
    );
    assert!(
        within(p.mean_hops, 32.0 / 15.0 + 2.0, 0.03),
        "{}",
        p.mean_hops
    );
}

/// On a 4-ary 2-cube torus with FIFO input queues, uniform traffic saturates between 0.6 and 0.8
/// phits/node/cycle (head-of-line blocking keeps it below the links' limit). Below, every generated
/// phit is accepted; above, accepted throughput flattens and the points are flagged. (Since half-way
/// destinations pick their direction at random per packet, the + and - links share the load
/// and offered 0.9 is accepted at 0.78; it was below 0.765 with every tie going the + way.)
#[test]
fn accepted_equals_offered_below_saturation_and_flattens_above() {
    let model = NetworkModel::default();
    for load in [0.1, 0.3, 0.5] {
        let p = point("torus:k=4,n=2", "uniform", load, 50_000, &model);
        assert!(!p.saturated, "{load}");
        // The Bernoulli sources generate the offered load up to sampling noise (thousands of packets)...
        assert!(
            within(p.generated, load, 0.05),
            "offered {load}, generated {}",
            p.generated
        );
        // ...and the network delivers what was generated.
        assert!(
            within(p.accepted, p.generated, 0.02),
            "generated {}, accepted {}",
            p.generated,
            p.accepted
        );
    }
    let high: Vec<LoadPoint> = [0.9, 1.0]
        .iter()
        .map(|&l| point("torus:k=4,n=2", "uniform", l, 20_000, &model))
        .collect();
    for p in &high {
        assert!(
            p.saturated && p.accepted < 0.9 * p.offered,
            "{} -> {}",
            p.offered,
            p.accepted
        );
    }
    assert!(
        (high[0].accepted - high[1].accepted).abs() < 0.05,
        "flat: {} {}",
        high[0].accepted,
        high[1].accepted
    );
}

/// Loads are per sending node. Bit complement on the 100-node 5,2-slim fly runs on 128 addresses: the
/// 28 sources whose complement is past node 99 send nothing, and bit reversal on 64 nodes leaves its 8
/// palindromic addresses idle. Below saturation the 72 and 56 senders generate the offered load and
/// the network accepts it; counted over every node, 0.1 read 0.072 and 0.0875, as if traffic were lost.
#[test]
fn loads_are_per_sending_node() {
    let model = NetworkModel::default();
    for (topo, pattern, senders) in [
        ("slimfly:q=5,p=2", "bit-complement", 72),
        ("fat-tree:k=4,n=3", "bit-reversal", 56),
    ] {
        let t = topology::build(topo).unwrap();
        let dest = traffic::build(pattern).unwrap().bind(t.nodes(), 1).unwrap();
        assert_eq!(dest.sources(), senders, "{pattern} on {topo}");
        let p = point(topo, pattern, 0.1, 20_000, &model);
        assert!(!p.saturated, "{pattern} on {topo}");
        assert!(
            within(p.generated, 0.1, 0.05) && within(p.accepted, p.generated, 0.02),
            "{pattern} on {topo}: generated {}, accepted {}",
            p.generated,
            p.accepted
        );
    }
}

/// Bit-complement on a 4,3-fat-tree sends every packet across the top: 6 links each, exactly.
#[test]
fn hop_histogram_of_bit_complement_on_a_fat_tree() {
    let p = point(
        "fat-tree:k=4,n=3",
        "bit-complement",
        0.1,
        10_000,
        &NetworkModel::default(),
    );
    assert_eq!(p.hop_histogram.len(), 7);
    assert_eq!(p.hop_histogram[6], p.packets_measured);
    assert_eq!(p.mean_hops, 6.0);
    let top_down = p
        .link_classes
        .iter()
        .find(|c| c.class == "level 2 down")
        .unwrap();
    assert!(top_down.phits > 0);
}

#[test]
fn same_seed_same_point() {
    let a = point(
        "thin-tree:k=4,up=2,n=3",
        "hotspot",
        0.3,
        5_000,
        &NetworkModel::default(),
    );
    let b = point(
        "thin-tree:k=4,up=2,n=3",
        "hotspot",
        0.3,
        5_000,
        &NetworkModel::default(),
    );
    assert_eq!(a, b);
}

#[test]
fn load_latency_command_writes_csv_json_and_svg() {
    let dir = std::env::temp_dir().join(format!("netreplay-ll-{}", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args([
            "load-latency",
            "--topology",
            "torus:k=4,n=2",
            "--topology",
            "mesh:k=4,n=2",
        ])
        .args([
            "--traffic",
            "tornado:k=4,n=2",
            "--loads",
            "0.1,0.3",
            "--measure",
            "2000",
        ])
        .args(["--out", dir.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let curves: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(curves.as_array().unwrap().len(), 2);
    assert_eq!(curves[0]["points"].as_array().unwrap().len(), 2);
    let csv = std::fs::read_to_string(dir.join("load-latency.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4);
    let svg = std::fs::read_to_string(dir.join("load-latency.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.matches("<polyline").count() == 2);
    std::fs::remove_dir_all(&dir).unwrap();

    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args([
            "load-latency",
            "--topology",
            "mesh:k=3,n=2",
            "--traffic",
            "transpose",
        ])
        .output()
        .unwrap();
    // 9 nodes run on 8 addresses, whose 3 bits have no halves to swap.
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success()
            && err.contains("even number of address bits")
            && !err.contains("panicked"),
        "{err}"
    );
}

/// Seed 001 Fig. 9 compares MiKANT and the Clos under one routing, Algorithm 1 (§V-B: "by the proposed
/// routing algorithm"), and the two families' defaults differ (MiKANT `det`, the Clos `adaptive`), so
/// the config names the route. Algorithm 1 climbs by the destination's leaf digits only, so every
/// packet for a leaf switch's k nodes comes down one chain of links: under uniform traffic both
/// networks saturate below 1/k phits per node per cycle, where the adaptive climb carries the load. On
/// the 4-ary 3-trees (128 nodes) with the config's switch, offered 0.3.
#[test]
fn seed001_fig9_routes_both_networks_by_algorithm_1() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/seed001-fig9.toml");
    let cfg = netreplay::load_latency::SweepConfig::load(std::path::Path::new(path)).unwrap();
    assert_eq!(cfg.topologies.len(), 2);
    for spec in &cfg.topologies {
        let built = topology::build(spec).unwrap().spec();
        assert!(built.ends_with(",route=det"), "{built}");
    }
    for family in ["mikant", "clos"] {
        let at = |route: &str| {
            let spec = format!("{family}:k=4,n=3,route={route}");
            point(&spec, "uniform", 0.3, 10_000, &cfg.network)
        };
        let (det, adaptive) = (at("det"), at("adaptive"));
        assert!(
            det.saturated && det.accepted < 0.25,
            "{family} det {}",
            det.accepted
        );
        assert!(
            !adaptive.saturated && within(adaptive.accepted, 0.3, 0.03),
            "{family} adaptive {}",
            adaptive.accepted
        );
    }
}
