//! Every seed-004 workload on every topology family at small scale (64-128 nodes) for message sizes of
//! 10, 1000 and 100000 bytes: it completes without deadlock, every phit injected is delivered exactly
//! once, the counters agree with the program, and the same seed gives the same result.

use netreplay::network::{NetworkModel, Outcome};
use netreplay::replay::simulate;
use netreplay::{placement, topology, workload};

const WORKLOADS: [&str; 7] = ["2w", "3w", "2m", "3m", "bu", "bt", "wf"];
const SIZES: [u64; 3] = [10, 1000, 100_000];
/// 64 = 8^2 = 4^3 = 2^6 suits every pattern's rank-count rule.
const RANKS: u32 = 64;

fn replay(topo_spec: &str, placement_spec: &str, workload_spec: &str, seed: u64) -> Outcome {
    let topo = topology::build(topo_spec).unwrap();
    let wl = workload::build(workload_spec).unwrap();
    let program = wl.generator.generate(RANKS).unwrap();
    let nodes = placement::build(placement_spec)
        .unwrap()
        .place(RANKS, topo.as_ref(), seed)
        .unwrap();
    let model = NetworkModel::default();
    let o = simulate(topo.as_ref(), &model, &program, &nodes, seed)
        .unwrap_or_else(|e| panic!("{workload_spec} on {topo_spec}: {e}"));

    let what = format!("{workload_spec} on {topo_spec} ({placement_spec})");
    let sends: Vec<_> = program.sends().collect();
    let packets: u64 = sends.iter().map(|s| model.packets_for(s.2)).sum();
    assert_eq!(o.messages, sends.len() as u64, "{what}: messages");
    assert_eq!(o.packets, packets, "{what}: packets");
    assert_eq!(o.phits, packets * 16, "{what}: phits");
    assert_eq!(o.phits_injected, o.phits, "{what}: injected");
    assert_eq!(o.phits_delivered, o.phits_injected, "{what}: conservation");
    // Every packet crosses at least its two node links.
    assert!(o.phit_hops >= 2 * o.phits, "{what}: phit_hops");
    assert!(
        o.completion_cycles >= o.max_message_latency && o.max_message_latency > 0,
        "{what}"
    );
    o
}

fn every_workload_on(topo_spec: &str, placement_spec: &str) {
    for wl in WORKLOADS {
        for size in SIZES {
            let spec = format!("{wl}:size={size}");
            let a = replay(topo_spec, placement_spec, &spec, 7);
            let b = replay(topo_spec, placement_spec, &spec, 7);
            assert_eq!(a, b, "{spec} on {topo_spec}: same seed, same outcome");
        }
    }
}

#[test]
fn fat_tree() {
    every_workload_on("fat-tree:k=4,n=3", "consecutive");
}

#[test]
fn fat_tree_binary_random_placement() {
    every_workload_on("fat-tree:k=2,n=7", "random");
}

#[test]
fn thin_tree() {
    every_workload_on("thin-tree:k=4,up=2,n=3", "consecutive");
}

#[test]
fn thin_tree_central() {
    every_workload_on("thin-tree:k=5,up=2,n=3", "central");
}

#[test]
fn slender_tree() {
    every_workload_on("slender-tree:k=4,up=2,n=5", "central");
}

#[test]
fn mesh() {
    every_workload_on("mesh:k=8,n=2", "consecutive");
}

#[test]
fn torus_bubble() {
    every_workload_on("torus:k=4,n=3", "consecutive");
}

#[test]
fn torus_dateline() {
    every_workload_on("torus:k=8,n=2,deadlock=dateline", "random:seed=3");
}

#[test]
fn hypercube() {
    every_workload_on("hypercube:n=6", "consecutive");
}

#[test]
fn seed_changes_arbitration_not_counts() {
    let a = replay("thin-tree:k=4,up=2,n=3", "consecutive", "2m:size=100000", 1);
    let b = replay("thin-tree:k=4,up=2,n=3", "consecutive", "2m:size=100000", 2);
    assert_eq!(
        (a.messages, a.packets, a.phits),
        (b.messages, b.packets, b.phits)
    );
}

/// Recursive doubling on a hypercube with rank r on router r: at stage i every rank exchanges with its
/// neighbour across dimension i, over its own injection link, the one link of that dimension and the
/// partner's ejection link, so nothing contends. Each stage is one message of 1000 bytes = 16 packets
/// over L = 3 links: 3 + 16 * 16 = 259 cycles, and the next stage's send is released by the receive
/// (no extra cycle). Six stages on 64 ranks: 6 * 259.
#[test]
fn butterfly_on_a_hypercube_is_stages_times_message_time() {
    let o = replay("hypercube:n=6", "consecutive", "bu:size=1000", 1);
    assert_eq!(o.completion_cycles, 6 * 259);
    assert_eq!(o.max_message_latency, 259);
    assert_eq!(o.phit_hops, 64 * 6 * 16 * 16 * 3);
    assert_eq!(o.mean_hops, 3.0);
    // Every packet crosses one injection and one ejection link; the rest are router-to-router.
    let class = |name: &str| {
        o.link_classes
            .iter()
            .find(|c| c.class == name)
            .unwrap()
            .packets
    };
    assert_eq!(
        (class("injection"), class("ejection")),
        (o.packets, o.packets)
    );
    assert_eq!(class("switch-switch"), o.packets);
}

/// In 2w a rank's two sends share its injection link, and a rank's two receives its ejection link.
/// A 2x2 virtual mesh on four nodes of one leaf switch shows both, derived cycle by cycle below.
#[test]
fn wavefront_2x2_on_one_switch() {
    // L = 2 links, 16 packets: a message takes 2 + 256 = 258 cycles on an empty path.
    // Forward: 1 gets its message at 258, 2 at 256 + 258 = 514. 1 sends to 3 at 258 (arrives 516),
    // 2 sends to 3 at 514 (arrives 772). 3 sends back to 2 at 772 (arrives 1030) and to 1 at 1028
    // (arrives 1286). 2 returns to 0 at 1030: its head takes rank 0's ejection link at 1031, which
    // stays busy until 1031 + 256 = 1287 (consumed at 1288). 1 returns to 0 at 1286: its head reaches
    // the switch at 1287, takes the link as it frees, and is consumed at 1287 + 1 + 256 = 1544.
    let topo = topology::build("fat-tree:k=4,n=2").unwrap();
    let program = workload::build("2w:size=1000")
        .unwrap()
        .generator
        .generate(4)
        .unwrap();
    let o = simulate(
        topo.as_ref(),
        &NetworkModel::default(),
        &program,
        &[0, 1, 2, 3],
        1,
    )
    .unwrap();
    assert_eq!(o.completion_cycles, 1544);
}
