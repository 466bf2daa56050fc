//! Every seed-004 workload (sizes 10 and 1000 bytes, 64 ranks placed consecutively) on small instances
//! of the seed-002/003 families, under every routing algorithm (minimal, Valiant, UGAL, LBR): it
//! completes without deadlock (the topology's virtual channels, a second set for the second leg of a
//! non-minimal path) and every phit injected is delivered exactly once.

use netreplay::network::{NetworkModel, Routing, Selection};
use netreplay::replay::simulate;
use netreplay::{placement, topology, workload};

const WORKLOADS: [&str; 7] = ["2w", "3w", "2m", "3m", "bu", "bt", "wf"];
const SIZES: [u64; 2] = [10, 1000];
const RANKS: u32 = 64;
const ROUTINGS: [&str; 4] = ["minimal", "valiant", "ugal", "lbr:period=16"];

fn every_workload_on(topo_spec: &str) {
    let topo = topology::build(topo_spec).unwrap();
    let nodes = placement::build("consecutive")
        .unwrap()
        .place(RANKS, topo.as_ref(), 1)
        .unwrap();
    for routing in ROUTINGS {
        let model = NetworkModel {
            routing: Routing::parse(routing).unwrap(),
            ..NetworkModel::default()
        };
        every_workload_under(topo_spec, topo.as_ref(), &nodes, &model);
    }
}

fn every_workload_under(
    topo_spec: &str,
    topo: &dyn topology::Topology,
    nodes: &[u32],
    model: &NetworkModel,
) {
    let routing = &model.routing;
    for wl in WORKLOADS {
        for size in SIZES {
            let spec = format!("{wl}:size={size}");
            let program = workload::build(&spec)
                .unwrap()
                .generator
                .generate(RANKS)
                .unwrap();
            let o = simulate(topo, model, &program, nodes, 5)
                .unwrap_or_else(|e| panic!("{spec} on {topo_spec} ({routing}): {e}"));
            let packets: u64 = program.sends().map(|s| model.packets_for(s.2)).sum();
            assert_eq!(o.packets, packets, "{spec} on {topo_spec} ({routing})");
            assert_eq!(
                o.phits_injected, o.phits,
                "{spec} on {topo_spec} ({routing})"
            );
            assert_eq!(
                o.phits_delivered, o.phits_injected,
                "{spec} on {topo_spec} ({routing})"
            );
            assert!(
                o.phit_hops >= 2 * o.phits,
                "{spec} on {topo_spec} ({routing})"
            );
        }
    }
}

#[test]
fn flex_three_layers() {
    every_workload_on("flex:x=3,y=3,z=3,p=3");
}

#[test]
fn flex_two_layers_tables() {
    every_workload_on("flex:x=4,y=4,z=2,p=2");
}

#[test]
fn hyperx() {
    every_workload_on("hyperx:l=2,s=4,t=4");
}

/// Unequal widths and parallel links (seed 003 §II-B in full): 2x4x4 routers, 2 terminals each (64
/// nodes), two links per router pair in dimensions 1 and 3; dimension order stays deadlock-free.
#[test]
fn hyperx_unequal_widths_parallel_links() {
    every_workload_on("hyperx:s=2x4x4,t=2,k=2x1x2");
}

#[test]
fn dragonfly() {
    every_workload_on("dragonfly:p=2,a=4,h=2");
}

#[test]
fn slimfly() {
    every_workload_on("slimfly:q=5,p=2");
}

#[test]
fn dsnf_fig_2_routing() {
    every_workload_on("dsnf:n=64");
    every_workload_on("dsnf:n=100");
}

#[test]
fn dsn_tables() {
    every_workload_on("dsn:n=64,x=4");
}

#[test]
fn dln_tables() {
    every_workload_on("dln:n=64,x=4,seed=1");
}

/// The topology-agnostic minimal adaptive routing with its up*/down* escape path, on each irregular
/// family (two virtual channels, a second pair for the second leg of non-minimal routings).
#[test]
fn irregular_families_adaptive_with_escape() {
    every_workload_on("dln:n=64,x=4,seed=1,route=adaptive");
    every_workload_on("dsn:n=64,x=4,route=adaptive");
    every_workload_on("dsnf:n=64,route=adaptive");
}

/// Heavy contention with one-packet queues (the tightest virtual cut-through allows): 100 KB mesh
/// exchanges and butterflies saturate every link, and the adaptive channels alone could close cycles
/// on these graphs; the escape path keeps every run deadlock-free.
#[test]
fn escape_path_survives_one_packet_queues() {
    let model = NetworkModel {
        input_queue_packets: 1,
        ..NetworkModel::default()
    };
    for spec in [
        "dln:n=64,x=4,seed=2,route=adaptive",
        "dsn:n=64,x=3,route=adaptive",
    ] {
        let topo = topology::build(spec).unwrap();
        let nodes: Vec<u32> = (0..RANKS).collect();
        every_workload_under(spec, topo.as_ref(), &nodes, &model);
        for wl in ["2m:size=100000", "bu:size=100000"] {
            let program = workload::build(wl)
                .unwrap()
                .generator
                .generate(RANKS)
                .unwrap();
            // Every output selection policy keeps the escape path reachable: Booksim's fixed choice
            // falls back on it when its fixed output's buffer is full.
            for selection in [Selection::fsin(), Selection::fixed(), Selection::free()] {
                let model = NetworkModel {
                    selection,
                    ..model.clone()
                };
                let o = simulate(topo.as_ref(), &model, &program, &nodes, 9)
                    .unwrap_or_else(|e| panic!("{wl} on {spec}: {e}"));
                assert_eq!(o.phits_delivered, o.phits_injected, "{wl} on {spec}");
            }
        }
    }
}

/// An 8x8 torus read from a `graph:` file, under its default routing (minimal adaptive with the
/// up*/down* escape path) and under `route=minimal` (hop-indexed VCs).
#[test]
fn graph_file_torus() {
    let mut text = String::from("# 8-ary 2-cube\n");
    for s in 0..64u32 {
        let (x, y) = (s % 8, s / 8);
        text += &format!(
            "{s} {}\n{s} {}\n",
            y * 8 + (x + 1) % 8,
            ((y + 1) % 8) * 8 + x
        );
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("torus8x8.graph");
    std::fs::write(&path, text).unwrap();
    every_workload_on(&format!("graph:file={}", path.display()));
    every_workload_on(&format!("graph:file={},route=minimal", path.display()));
}
