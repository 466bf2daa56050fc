//! Routing algorithms on top of the topologies' minimal routing: Valiant, UGAL and LBR (seed 003
//! §III-C), checked against the classic dragonfly results and for deadlock freedom on every workload.

mod common;

use common::routed_point as point;
use netreplay::network::{NetworkModel, Routing};
use netreplay::replay::simulate;
use netreplay::{topology, workload};

/// Dragonfly p=2, a=4, h=2 (9 groups of 8 nodes). Under next-group traffic every packet of a group
/// needs the group's single global link to the next group: minimal routing saturates at 1/8 phit per
/// node per cycle. Valiant spreads the load over all global links; UGAL sends packets non-minimally
/// when the minimal queue is long; both carry several times more.
#[test]
fn dragonfly_adversarial_traffic() {
    let df = "dragonfly:p=2,a=4,h=2";
    let minimal = point(df, "next-group:size=8", 0.4, "minimal");
    assert!(
        minimal.saturated && (0.115..0.135).contains(&minimal.accepted),
        "{}",
        minimal.accepted
    );
    let valiant = point(df, "next-group:size=8", 0.4, "valiant");
    let ugal = point(df, "next-group:size=8", 0.4, "ugal");
    assert!(
        valiant.accepted > 2.5 * minimal.accepted,
        "valiant {}",
        valiant.accepted
    );
    assert!(
        ugal.accepted > 2.0 * minimal.accepted,
        "ugal {}",
        ugal.accepted
    );
    let lbr = point(df, "next-group:size=8", 0.4, "lbr");
    assert!(
        lbr.accepted > 2.5 * minimal.accepted,
        "lbr {}",
        lbr.accepted
    );
}

/// LBR (seed 003 §III-C-2) on a quiet network: every candidate has empty queues, so eq. 10 gives each
/// of the 1 + M paths probability 1 / (1 + M). On a dragonfly the mean hop count then lies between the
/// minimal one and Valiant's, at (minimal + M x Valiant) / (1 + M); with M = 1 half way.
#[test]
fn lbr_spreads_evenly_over_its_candidates_when_quiet() {
    let df = "dragonfly:p=2,a=4,h=2";
    let minimal = point(df, "uniform", 0.01, "minimal").mean_hops;
    let valiant = point(df, "uniform", 0.01, "valiant").mean_hops;
    for m in [1.0, 3.0] {
        let lbr = point(df, "uniform", 0.01, &format!("lbr:valiant={m}")).mean_hops;
        let expected = (minimal + m * valiant) / (1.0 + m);
        assert!(
            (lbr - expected).abs() < 0.04 * expected,
            "M = {m}: lbr {lbr}, expected {expected} (minimal {minimal}, valiant {valiant})"
        );
    }
}

/// Seed 003's FleX under tornado traffic, which minimal routing (Algorithm 1) concentrates on few
/// inter-layer links: LBR spreads it over Valiant paths and carries a third more (seed 003 Fig. 10(d)
/// shows LBR extending FleX's saturation under tornado). A longer update period T reacts later and
/// carries less at the same load (Fig. 14's trend).
#[test]
fn lbr_extends_flex_saturation_throughput() {
    let flex = "flex:x=4,y=4,z=3,p=4";
    let minimal = point(flex, "tornado", 0.6, "minimal");
    let lbr = point(flex, "tornado", 0.6, "lbr:period=8");
    assert!(minimal.saturated, "{minimal:?}");
    assert!(
        lbr.accepted > 1.25 * minimal.accepted,
        "lbr {} vs minimal {}",
        lbr.accepted,
        minimal.accepted
    );
}

/// Under uniform traffic at low load UGAL stays minimal (empty queues), Valiant takes longer paths.
#[test]
fn ugal_is_minimal_when_the_network_is_quiet() {
    let df = "dragonfly:p=2,a=4,h=2";
    let minimal = point(df, "uniform", 0.02, "minimal");
    let ugal = point(df, "uniform", 0.02, "ugal");
    let valiant = point(df, "uniform", 0.02, "valiant");
    assert!(
        (ugal.mean_hops - minimal.mean_hops).abs() < 0.05 * minimal.mean_hops,
        "{} vs {}",
        ugal.mean_hops,
        minimal.mean_hops
    );
    assert!(
        valiant.mean_hops > 1.3 * minimal.mean_hops,
        "{} vs {}",
        valiant.mean_hops,
        minimal.mean_hops
    );
}

/// Every seed-004 workload completes, phits conserved, under every non-minimal algorithm on families with and
/// without virtual channels of their own (bubble torus, dateline torus, hop-indexed dragonfly, tree).
#[test]
fn every_workload_completes_under_valiant_ugal_and_lbr() {
    for topo in [
        "torus:k=4,n=3",
        "torus:k=8,n=2,deadlock=dateline",
        "dragonfly:p=2,a=4,h=2",
        "fat-tree:k=4,n=3",
    ] {
        let t = topology::build(topo).unwrap();
        for routing in ["valiant", "ugal", "lbr", "lbr:period=1,valiant=1"] {
            let model = NetworkModel {
                routing: Routing::parse(routing).unwrap(),
                ..NetworkModel::default()
            };
            for wl in ["2w", "3w", "2m", "3m", "bu", "bt", "wf"] {
                let program = workload::build(&format!("{wl}:size=1000"))
                    .unwrap()
                    .generator
                    .generate(64)
                    .unwrap();
                let nodes: Vec<u32> = (0..64).collect();
                let o = simulate(t.as_ref(), &model, &program, &nodes, 3)
                    .unwrap_or_else(|e| panic!("{wl} on {topo} with {routing}: {e}"));
                assert_eq!(
                    o.phits_injected, o.phits_delivered,
                    "{wl} on {topo} with {routing}"
                );
            }
        }
    }
}

#[test]
fn one_way_topologies_refuse_non_minimal_routing() {
    let t = topology::build("ruft:k=2,n=3").unwrap();
    let model = NetworkModel {
        routing: Routing::parse("valiant").unwrap(),
        ..NetworkModel::default()
    };
    let program = workload::build("bu:size=10")
        .unwrap()
        .generator
        .generate(8)
        .unwrap();
    let e = simulate(t.as_ref(), &model, &program, &(0..8).collect::<Vec<_>>(), 1).unwrap_err();
    assert!(e.to_string().contains("one-way links"), "{e}");
}

#[test]
fn load_latency_draws_one_curve_per_routing() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args([
            "load-latency",
            "--topology",
            "dragonfly:p=2,a=4,h=2",
            "--traffic",
            "uniform",
        ])
        .args([
            "--routing",
            "minimal,lbr:period=8,valiant=2,ugal",
            "--loads",
            "0.1",
            "--measure",
            "1000",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let curves: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let routings: Vec<&str> = curves
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["routing"].as_str().unwrap())
        .collect();
    assert_eq!(routings, ["minimal", "lbr:period=8,valiant=2", "ugal"]);
}
