//! Seed 001's counters (§V-B, Figs. 10-12) on tiny networks, derived by hand: output-port conflicts
//! (a head that bid for an output and lost it to another head of the same round), contested outputs
//! (an output two or more heads bid for in one round, counted once) and packets received
//! over time, under the default model (16-phit packets; a packet crossing L links from an empty network
//! is consumed L + 16 cycles after it leaves its node).

mod common;

use netreplay::network::counters::{CounterSeries, Counters};
use netreplay::network::{NetworkModel, OpenLoopParams, Outcome};
use netreplay::program::{Op, Program};
use netreplay::replay::{Instruments, Replay};
use netreplay::topology;

/// Ranks 0..senders each send one 64-byte packet to rank `senders`, which receives them in order.
fn many_to_one(senders: u32) -> Program {
    Program::from_fn(senders + 1, |r, ops| {
        if r == senders {
            for from in 0..senders {
                ops.push(Op::Recv { from, tag: 0 });
            }
        } else {
            ops.push(Op::Send {
                to: senders,
                bytes: 64,
                tag: 0,
            });
        }
    })
}

fn counted(spec: &str, program: &Program) -> (Outcome, CounterSeries) {
    let topo = topology::build(spec).unwrap();
    let model = NetworkModel::default();
    let replay = Replay::new(topo.as_ref(), &model, 1).unwrap();
    let nodes: Vec<u32> = (0..program.ranks()).collect();
    let mut counters = Counters::new(200);
    let instruments = Instruments {
        counters: Some(&mut counters),
        ..Instruments::default()
    };
    let r = replay.program(program, &nodes, instruments).unwrap();
    let end = r.outcome.completion_cycles;
    (r.outcome, counters.finish(end))
}

/// Two routers joined by one link (`flattened-butterfly:k=2,n=1,p=2`). Nodes 0 and 1 on router 0 send
/// to node 2 on router 1 at cycle 0: both heads ask for the one link to router 1 at cycle 1, so one
/// conflict. The winner is consumed at 1 + 1 + 1 + 16 = 19 (3 links); the loser starts when the link
/// frees at 17, is at router 1 at 18, when the winner's ejection has just freed, and is consumed at 35.
#[test]
fn two_packets_for_one_output_make_one_conflict() {
    let (o, s) = counted("flattened-butterfly:k=2,n=1,p=2", &many_to_one(2));
    assert_eq!(o.completion_cycles, 35);
    assert_eq!(
        (s.totals.output_port_conflicts, s.totals.packets_received),
        (2 - 1, 2)
    );
    assert_eq!(s.bin_cycles, 1);
    assert_eq!((s.received[19], s.received[35]), (1, 1));
    assert_eq!(s.conflicts[1], 1);
    assert_eq!(s.totals.received_per_cycle, 2.0 / 35.0);
}

/// Three senders on router 0 (`p=3`): three heads bid at cycle 1 (two conflicts); the two losers wait
/// for the link and bid again together when it frees at 17 (one more); the last goes at 33. Consumed
/// at 19, 35 and 51; three conflicts in all.
#[test]
fn k_heads_for_one_output_make_k_minus_one_conflicts_per_round() {
    let (o, s) = counted("flattened-butterfly:k=2,n=1,p=3", &many_to_one(3));
    assert_eq!(o.completion_cycles, 51);
    assert_eq!(
        (s.totals.output_port_conflicts, s.totals.packets_received),
        (3, 3)
    );
    assert_eq!((s.conflicts[1], s.conflicts[17]), (2, 1));
    assert_eq!((s.received[19], s.received[35], s.received[51]), (1, 1, 1));
    // The other reading: one contested output per round, at 1 and 17; the last head bids alone at 33.
    assert_eq!(s.totals.contested_outputs, 2);
    assert_eq!(
        (s.contested[1], s.contested[17], s.contested[33]),
        (1, 1, 0)
    );
}

/// Packets to different outputs never conflict: node 0 to node 2 and node 1 to node 3 leave router 0 on
/// the same link only if they bid together; here one sender per router, each to the other router.
#[test]
fn no_shared_output_no_conflict() {
    let program = Program::from_fn(2, |r, ops| {
        ops.push(Op::Send {
            to: 1 - r,
            bytes: 64,
            tag: 0,
        });
        ops.push(Op::Recv {
            from: 1 - r,
            tag: 0,
        });
    });
    let (o, s) = counted("flattened-butterfly:k=2,n=1,p=1", &program);
    assert_eq!(o.completion_cycles, 19);
    assert_eq!(
        (s.totals.output_port_conflicts, s.totals.packets_received),
        (0, 2)
    );
    assert_eq!(s.totals.contested_outputs, 0);
}

/// In an open-loop point every message is one packet, so the packets received per cycle in the window
/// are the accepted load in packets: received_per_cycle x P = accepted x nodes; and conflicts appear on
/// a loaded network.
#[test]
fn open_loop_points_count_in_the_measurement_window() {
    let params = OpenLoopParams {
        load: 0.4,
        warmup_cycles: 500,
        measure_cycles: 2000,
        ..OpenLoopParams::default()
    };
    let p = common::point(
        "fat-tree:k=2,n=3",
        "uniform",
        &NetworkModel::default(),
        &params,
        1,
    );
    let nodes = 8.0;
    assert!((p.received_per_cycle * 16.0 - p.accepted * nodes).abs() < 1e-9);
    assert!(p.received_ratio > 0.9 && p.received_ratio < 1.1, "{p:?}");
    assert!(p.conflicts_per_cycle > 0.0, "{p:?}");
    // A contested output has at least one loser: never more contested outputs than conflicts.
    assert!(
        p.contested_per_cycle > 0.0 && p.contested_per_cycle <= p.conflicts_per_cycle,
        "{p:?}"
    );
}
