//! Every seed-004 workload (sizes 10 and 1000 bytes, 64 ranks) on the families of seeds 000 and 001 at
//! 64-256 nodes: it completes without deadlock, every phit injected is delivered exactly once, the
//! counters agree with the program, and the same seed gives the same result.

use netreplay::network::{NetworkModel, Outcome};
use netreplay::replay::simulate;
use netreplay::{placement, topology, workload};

const WORKLOADS: [&str; 7] = ["2w", "3w", "2m", "3m", "bu", "bt", "wf"];
const SIZES: [u64; 2] = [10, 1000];
const RANKS: u32 = 64;

fn replay(
    topo_spec: &str,
    placement_spec: &str,
    workload_spec: &str,
    model: &NetworkModel,
) -> Outcome {
    let topo = topology::build(topo_spec).unwrap();
    let wl = workload::build(workload_spec).unwrap();
    let program = wl.generator.generate(RANKS).unwrap();
    let nodes = placement::build(placement_spec)
        .unwrap()
        .place(RANKS, topo.as_ref(), 7)
        .unwrap();
    let o = simulate(topo.as_ref(), model, &program, &nodes, 7)
        .unwrap_or_else(|e| panic!("{workload_spec} on {topo_spec}: {e}"));
    let what = format!("{workload_spec} on {topo_spec} ({placement_spec})");
    let packets: u64 = program.sends().map(|s| model.packets_for(s.2)).sum();
    assert_eq!(o.packets, packets, "{what}: packets");
    assert_eq!(o.phits_injected, o.phits, "{what}: injected");
    assert_eq!(o.phits_delivered, o.phits_injected, "{what}: conservation");
    assert!(o.phit_hops >= 2 * o.phits, "{what}: phit_hops");
    o
}

fn every_workload_on(topo_spec: &str, placement_spec: &str) {
    let model = NetworkModel::default();
    for wl in WORKLOADS {
        for size in SIZES {
            let spec = format!("{wl}:size={size}");
            let a = replay(topo_spec, placement_spec, &spec, &model);
            let b = replay(topo_spec, placement_spec, &spec, &model);
            assert_eq!(a, b, "{spec} on {topo_spec}: same seed, same outcome");
        }
    }
}

#[test]
fn flattened_butterfly() {
    every_workload_on("flattened-butterfly:k=4,n=2,p=4", "consecutive");
    every_workload_on("flattened-butterfly:k=4,n=3,p=2", "random");
}

#[test]
fn kns_crossbar() {
    every_workload_on("kns:k=8,n=2,s=1,sub=xbar,p=2", "consecutive");
    every_workload_on("kns:k=4,n=3,s=1,sub=xbar,p=1", "random");
}

#[test]
fn kns_fat_tree() {
    every_workload_on("kns:k=8,n=2,s=3,sub=ft,p=1", "consecutive");
    every_workload_on("kns:k=16,n=2,s=2,sub=ft,p=1", "random");
}

#[test]
fn kns_ruft() {
    every_workload_on("kns:k=4,n=2,s=2,sub=ruft,p=4", "consecutive");
    every_workload_on("kns:k=16,n=2,s=4,sub=ruft,p=1", "random");
}

#[test]
fn ruft() {
    every_workload_on("ruft:k=4,n=3", "consecutive");
    every_workload_on("ruft:k=2,n=7", "random");
}

/// Seed 000 §5.1's model (fly time 8, routing 20 cycles, output queues of 2 packets): RUFT's return
/// links take 8 cycles of fly time per stage, so a KNS with RUFT subnets finishes BU later than the
/// same KNS with fat-tree subnets.
#[test]
fn ruft_return_links_are_longer() {
    let model = NetworkModel {
        fly_time: 8,
        routing_delay: 20,
        output_queue_packets: 2,
        ..NetworkModel::default()
    };
    let mut wl = Vec::new();
    for spec in ["kns:k=4,n=2,s=2,sub=ruft,p=4", "kns:k=4,n=2,s=2,sub=ft,p=4"] {
        let o = replay(spec, "consecutive", "bu:size=10", &model);
        wl.push(o.completion_cycles);
    }
    assert!(wl[0] > wl[1], "RUFT {} vs FT {}", wl[0], wl[1]);
}

#[test]
fn mikant() {
    every_workload_on("mikant:k=4,n=3", "consecutive");
    every_workload_on("mikant:k=2,n=6,route=adaptive", "random");
}

#[test]
fn clos() {
    every_workload_on("clos:k=4,n=3", "consecutive");
    every_workload_on("clos:k=2,n=6,route=det", "random");
}

/// One message of `bytes` from node `src` to node `dst` on an empty network.
fn one_message(spec: &str, src: u32, dst: u32, model: &NetworkModel) -> Outcome {
    use netreplay::program::{Op, Program};
    let topo = topology::build(spec).unwrap();
    let program = Program::from_fn(2, |r, ops| {
        ops.push(if r == 0 {
            Op::Send {
                to: 1,
                bytes: 64,
                tag: 0,
            }
        } else {
            Op::Recv { from: 0, tag: 0 }
        })
    });
    simulate(topo.as_ref(), model, &program, &[src, dst], 1).unwrap()
}

/// Exact timing of RUFT's long return links (seed 000 §5.1: fly time per stage): a 16-phit packet
/// over L links through S switches takes L + 16 + F·L + R·S cycles, plus F·(s - 1) for the return
/// link of an s-stage RUFT.
#[test]
fn ruft_return_link_takes_fly_time_per_stage() {
    let model = NetworkModel {
        fly_time: 8,
        routing_delay: 20,
        ..NetworkModel::default()
    };
    // ruft:k=2,n=2: node -> stage 0 -> stage 1 -> node, L = 3, S = 2, return link 2 stages long.
    let o = one_message("ruft:k=2,n=2", 0, 3, &model);
    assert_eq!(o.completion_cycles, 3 + 16 + 8 * 3 + 20 * 2 + 8);
    // ruft:k=2,n=4: L = 5, S = 4, return link 4 stages long.
    let o = one_message("ruft:k=2,n=4", 0, 15, &model);
    assert_eq!(o.completion_cycles, 5 + 16 + 8 * 5 + 20 * 4 + 8 * 3);
    // KNS, one dimension of 4 routers joined by a 2-stage RUFT: node -> router -> stage 0 -> stage 1
    // -> router -> node, L = 5, S = 4 (two routers, two switches).
    let o = one_message("kns:k=4,n=1,s=2,sub=ruft,p=1", 0, 3, &model);
    assert_eq!(o.completion_cycles, 5 + 16 + 8 * 5 + 20 * 4 + 8);
    // The same with a fat-tree subnet (up to the top stage and down: L = 6, S = 5) has no long link.
    let o = one_message("kns:k=4,n=1,s=2,sub=ft,p=1", 0, 3, &model);
    assert_eq!(o.completion_cycles, 6 + 16 + 8 * 6 + 20 * 5);
}
