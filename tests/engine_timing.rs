//! Exact completion times on tiny empty networks, derived by hand from the model of seed 004 §3.1 as
//! the contract states it: a message of P packets of 16 phits crossing L links (both node links
//! counted) takes L + 16P cycles from its first phit leaving the node to its last phit being consumed;
//! routing delay R and fly time F add R per switch and F per link.

mod common;

use common::one_message;
use netreplay::error::Error;
use netreplay::network::{NetworkModel, Outcome};
use netreplay::program::{Op, Program};
use netreplay::replay::simulate;
use netreplay::topology::{self, Endpoint, RouteChoice, Topology};

/// Replays `program` on the topology `spec` with the default model, rank r on node `nodes[r]`.
fn on_default_model(spec: &str, program: &Program, nodes: &[u32]) -> Result<Outcome, Error> {
    let topo = topology::build(spec).unwrap();
    simulate(topo.as_ref(), &NetworkModel::default(), program, nodes, 1)
}

#[test]
fn one_packet_within_a_leaf_switch() {
    // node 0 -> leaf switch -> node 1: L = 2 links; 64 bytes = one 16-phit packet. 2 + 16 = 18.
    let o = one_message("fat-tree:k=4,n=3", 0, 1, 64, NetworkModel::default());
    assert_eq!(o.completion_cycles, 18);
    assert_eq!(
        (o.messages, o.packets, o.phits, o.phit_hops),
        (1, 1, 16, 2 * 16)
    );
}

#[test]
fn one_packet_between_the_farthest_nodes() {
    // 4,3-fat-tree, node 0 -> node 63: up three levels and down again, L = 6 links. 6 + 16 = 22.
    let o = one_message("fat-tree:k=4,n=3", 0, 63, 10, NetworkModel::default());
    assert_eq!(o.completion_cycles, 22);
    assert_eq!(o.phit_hops, 6 * 16);
    // 8:4,8-slender-tree's 4096 nodes, 0 -> 4095: 8 levels, L = 16 links. 16 + 16 = 32.
    let o = one_message(
        "slender-tree:k=8,up=4,n=8",
        0,
        4095,
        1,
        NetworkModel::default(),
    );
    assert_eq!(o.completion_cycles, 32);
    // 4x4 mesh corner to corner: 6 router-to-router links + 2 node links = 8. 8 + 16 = 24.
    let o = one_message("mesh:k=4,n=2", 0, 15, 64, NetworkModel::default());
    assert_eq!(o.completion_cycles, 24);
    // 8-ary 1-torus, 0 -> 4 (half-way, taken the + way): 4 + 2 = 6 links. 6 + 16 = 22.
    let o = one_message("torus:k=8,n=1", 0, 4, 64, NetworkModel::default());
    assert_eq!(o.completion_cycles, 22);
}

#[test]
fn multi_packet_message_pipelines_back_to_back() {
    // 130 bytes = 3 packets (the last padded); same leaf, L = 2. Packets leave 16 cycles apart:
    // the last leaves at 32 and is consumed at 32 + 2 + 16 = 50 = L + 16 * 3.
    let o = one_message("fat-tree:k=4,n=3", 0, 1, 130, NetworkModel::default());
    assert_eq!(o.completion_cycles, 50);
    assert_eq!(
        (o.packets, o.phits, o.phits_injected, o.phits_delivered),
        (3, 48, 48, 48)
    );
    // Farthest pair, 100 packets: 6 + 1600.
    let o = one_message("fat-tree:k=4,n=3", 0, 63, 6400, NetworkModel::default());
    assert_eq!(o.completion_cycles, 6 + 1600);
}

#[test]
fn routing_delay_and_fly_time() {
    // Seed 000's timing: R = 20 per switch, F = 8 per link. Farthest pair of a 4,2-fat-tree: 4 links,
    // 3 switches. The head reaches each switch after 1 + F and waits R: 3 * (1 + 8 + 20); the last link
    // takes 1 + 8; the tail follows 16 cycles behind. 87 + 9 + 16 = 112.
    let model = NetworkModel {
        routing_delay: 20,
        fly_time: 8,
        ..NetworkModel::default()
    };
    assert_eq!(
        one_message("fat-tree:k=4,n=2", 0, 15, 64, model.clone()).completion_cycles,
        112
    );
    // With 2-packet output queues (seed 000), each switch adds one cycle to cross into the output queue.
    let model = NetworkModel {
        output_queue_packets: 2,
        input_queue_packets: 2,
        ..model
    };
    assert_eq!(
        one_message("fat-tree:k=4,n=2", 0, 15, 64, model.clone()).completion_cycles,
        115
    );
}

#[test]
fn a_receive_that_releases_a_send_adds_no_cycle() {
    // Ping-pong within a leaf: 18 cycles each way.
    let program = Program::from_fn(2, |r, ops| {
        let other = 1 - r;
        if r == 0 {
            ops.push(Op::Send {
                to: other,
                bytes: 64,
                tag: 0,
            });
            ops.push(Op::Recv {
                from: other,
                tag: 0,
            });
        } else {
            ops.push(Op::Recv {
                from: other,
                tag: 0,
            });
            ops.push(Op::Send {
                to: other,
                bytes: 64,
                tag: 0,
            });
        }
    });
    let o = on_default_model("fat-tree:k=4,n=2", &program, &[0, 1]).unwrap();
    assert_eq!(o.completion_cycles, 36);
    assert_eq!(o.max_message_latency, 18);
}

#[test]
fn contention_for_one_ejection_link_serialises() {
    // Nodes 0 and 1 each send one packet to node 2 at cycle 0 (same leaf). Both heads reach the switch
    // at cycle 1; one wins the link to node 2 (consumed at 18), the other starts when the link frees at
    // 17 and is consumed at 17 + 1 + 16 = 34. Compute between receives is added exactly.
    let program = Program::from_fn(3, |r, ops| match r {
        2 => {
            ops.push(Op::Recv { from: 0, tag: 0 });
            ops.push(Op::Recv { from: 1, tag: 0 });
            ops.push(Op::Compute { cycles: 1000 });
        }
        _ => ops.push(Op::Send {
            to: 2,
            bytes: 64,
            tag: 0,
        }),
    });
    let o = on_default_model("fat-tree:k=4,n=2", &program, &[0, 1, 2]).unwrap();
    assert_eq!(o.completion_cycles, 34 + 1000);
    assert_eq!(o.max_message_latency, 34);
    assert_eq!(o.mean_message_latency, 26.0);
}

#[test]
fn a_receive_nobody_sends_is_reported_with_the_blocked_rank() {
    let program = Program::from_fn(3, |r, ops| match r {
        0 => ops.push(Op::Send {
            to: 1,
            bytes: 64,
            tag: 0,
        }),
        1 => ops.push(Op::Recv { from: 0, tag: 0 }),
        _ => ops.push(Op::Recv { from: 0, tag: 5 }),
    });
    let e = on_default_model("fat-tree:k=4,n=2", &program, &[0, 1, 2]).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(&e, Error::Deadlock(r) if r.blocked_ranks == [(2, 0, 5)]),
        "{text}"
    );
    assert!(text.contains("rank 2 waits for rank 0 tag 5"), "{text}");
}

/// A unidirectional ring whose routing ignores deadlock: every router forwards + until the
/// destination. With one-packet queues and everyone sending far, the ring fills and locks.
#[derive(Debug)]
struct NaiveRing(u32);

impl Topology for NaiveRing {
    fn spec(&self) -> String {
        format!("naive-ring:{}", self.0)
    }
    fn nodes(&self) -> u32 {
        self.0
    }
    fn switches(&self) -> u32 {
        self.0
    }
    fn ports(&self, _: u32) -> u32 {
        3
    }
    fn neighbour(&self, s: u32, p: u32) -> Endpoint {
        match p {
            0 => Endpoint::Node(s),
            1 => Endpoint::Switch {
                switch: (s + 1) % self.0,
                port: 2,
            },
            _ => Endpoint::Switch {
                switch: (s + self.0 - 1) % self.0,
                port: 1,
            },
        }
    }
    fn node_attachment(&self, n: u32) -> (u32, u32) {
        (n, 0)
    }
    fn route(&self, s: u32, _: u32, _: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        out.push(RouteChoice::port(if s == dest { 0 } else { 1 }));
    }
}

#[test]
fn routing_deadlock_is_detected_and_named() {
    // Every node sends 50 packets three hops ahead, + direction, on an 8-ring.
    let program = Program::from_fn(8, |r, ops| {
        ops.push(Op::Send {
            to: (r + 3) % 8,
            bytes: 64 * 50,
            tag: 0,
        });
        ops.push(Op::Recv {
            from: (r + 5) % 8,
            tag: 0,
        });
    });
    let nodes: Vec<u32> = (0..8).collect();
    let one = NetworkModel {
        input_queue_packets: 1,
        ..NetworkModel::default()
    };
    let e = simulate(&NaiveRing(8), &one, &program, &nodes, 1).unwrap_err();
    assert!(
        matches!(&e, Error::Deadlock(r) if r.packets_in_network > 0),
        "{e}"
    );
    assert!(e.to_string().contains("routing deadlock"), "{e}");
    // The same traffic on an 8-ary 1-torus (DOR takes the same + paths) completes under bubble flow
    // control with 2-packet queues, and under the dateline rule even with 1-packet queues.
    let two = NetworkModel {
        input_queue_packets: 2,
        ..NetworkModel::default()
    };
    for (spec, model) in [
        ("torus:k=8,n=1", two),
        ("torus:k=8,n=1,deadlock=dateline", one.clone()),
    ] {
        let torus = topology::build(spec).unwrap();
        let o = simulate(torus.as_ref(), &model, &program, &nodes, 1).unwrap();
        assert_eq!(o.phits_injected, o.phits_delivered, "{spec}");
        assert_eq!(
            o.phit_hops,
            8 * 50 * 16 * 5,
            "{spec}: 3 ring links + 2 node links per packet"
        );
    }
    // Bubble flow control with 1-packet queues could never enter a ring: rejected up front.
    let torus = topology::build("torus:k=8,n=1").unwrap();
    let e = simulate(torus.as_ref(), &one, &program, &nodes, 1).unwrap_err();
    assert!(e.to_string().contains("bubble"), "{e}");
}
