//! Credit delay, the allocation stage of the router pipeline and the `booksim-iq` preset:
//! exact cycles on a tiny line of switches derived by hand, and the preset's zero-load latency
//! against Booksim2's. That `credit_delay = 0` and `allocation_delay = 0` keep every earlier cycle is what
//! the rest of the suite (tests/engine_timing.rs and the workload tests) checks.

mod common;

use netreplay::network::{CreditUnit, NetworkModel, OpenLoopParams};
use netreplay::replay::simulate;
use netreplay::topology;
use netreplay::traffic;

/// Completion cycle of one message of `packets` 16-phit packets from node 0 to node 2 of a line of three
/// switches (`mesh:k=3,n=1`, one node each): L = 4 links, three switches.
fn stream(packets: u64, model: NetworkModel) -> u64 {
    common::one_message("mesh:k=3,n=1", 0, 2, 64 * packets, model).completion_cycles
}

/// With input queues of one packet, packet k+1 may start on a link only when packet k's credits are
/// back: packet k starts at switch i at cycle s, its tail leaves that buffer at s + 16 (the next link is
/// free, so it left at once), and the credits reach the upstream channel D cycles later. Every link then
/// starts a packet every 17 + D cycles (the 17th cycle is virtual cut-through's: the whole packet must
/// have left before the next may enter), and the last of N packets, leaving the node at (N-1)(17+D),
/// is consumed L + 16 = 20 cycles later.
#[test]
fn credit_delay_spaces_a_stream_through_one_packet_buffers() {
    for d in [0u32, 1, 2, 5] {
        let model = NetworkModel {
            input_queue_packets: 1,
            credit_delay: d,
            ..NetworkModel::default()
        };
        for n in [1u64, 2, 8] {
            assert_eq!(
                stream(n, model.clone()),
                (n - 1) * u64::from(17 + d) + 20,
                "credit_delay {d}, {n} packets"
            );
        }
    }
    // With the default 4-packet queues, credits of 1 cycle never hold back a lone stream: L + 16N.
    let model = NetworkModel {
        credit_delay: 1,
        ..NetworkModel::default()
    };
    assert_eq!(stream(8, model), 4 + 16 * 8);
}

/// Phit credits (`credits = "phit"`, Booksim's per-flit credits) on the same one-packet queues: packet
/// k starts on the link into a switch at cycle t, is ready there at t + 1 and starts leaving at once;
/// packet k+1 may borrow the room it frees from t + 1 + D, before the link frees at t + 16. So every
/// link starts a packet every 16 cycles, as with deep queues: L + 16N whatever the credit delay (D <=
/// 15), where whole-packet credits space them 17 + D apart. A packet that has borrowed leaves nothing
/// for a second one: with a stalled consumer the queue still holds one packet (the deadlock tests of
/// tests/routing.rs run the preset's dateline torus to completion).
#[test]
fn phit_credits_let_a_stream_follow_through_one_packet_buffers() {
    for d in [0u32, 1, 2, 5] {
        let model = NetworkModel {
            input_queue_packets: 1,
            credit_delay: d,
            credits: CreditUnit::Phit,
            ..NetworkModel::default()
        };
        for n in [1u64, 2, 8] {
            assert_eq!(
                stream(n, model.clone()),
                4 + 16 * n,
                "credit_delay {d}, {n} packets"
            );
        }
    }
    // Bubble flow control counts whole packets of room: on its rings credits stay per packet, so the
    // stream is spaced as with `credits = "packet"` (a 4-switch ring, node 0 to node 2: L = 4).
    let on_ring = |credits| {
        let model = NetworkModel {
            input_queue_packets: 2,
            credits,
            ..NetworkModel::default()
        };
        common::one_message("torus:k=4,n=1", 0, 2, 64 * 8, model).completion_cycles
    };
    assert_eq!(on_ring(CreditUnit::Phit), on_ring(CreditUnit::Packet));
    let read: NetworkModel = toml::from_str("credits = \"phit\"").unwrap();
    assert_eq!(read.credits, CreditUnit::Phit);
    assert!(toml::from_str::<NetworkModel>("credits = \"flit\"").is_err());
    assert_eq!(NetworkModel::booksim_iq().credits, CreditUnit::Phit);
}

/// With routing delay R = 3 and allocation delay A = 1: the first packet is ready R after each arrival,
/// so it is consumed at L + 16 + 3R = 29. Packet k+1 reaches the first switch (at 16(k+1) + 1) before
/// packet k has left it, so it is at the front when k's tail leaves and starts A cycles later: every
/// switch starts a packet every 16 + A cycles, and the last of N packets is consumed at 29 + 17(N-1).
/// Without the allocation delay the stream is back to back: 29 + 16(N-1).
#[test]
fn allocation_delay_is_paid_at_the_front_of_the_queue() {
    let model = |a: u32| NetworkModel {
        routing_delay: 3,
        allocation_delay: a,
        ..NetworkModel::default()
    };
    for n in [1u64, 2, 8] {
        assert_eq!(stream(n, model(1)), 29 + 17 * (n - 1), "{n} packets");
        assert_eq!(stream(n, model(0)), 29 + 16 * (n - 1), "{n} packets");
    }
    // An allocation delay longer than the routing delay also holds a head arriving at an idle queue:
    // A = 5 per switch instead of R = 3 for a lone packet.
    assert_eq!(stream(1, model(5)), 4 + 16 + 3 * 5);
}

/// Booksim2 @28f4329: 8x8 torus, dateline, uniform traffic at load 0.02, 16-flit packets,
/// 64-flit VC buffers, non-speculative 3-stage router: 38.2 cycles. The preset is within 2%.
#[test]
fn booksim_preset_zero_load_latency_on_the_torus() {
    let t = topology::build("torus:k=8,n=2,deadlock=dateline").unwrap();
    let dest = traffic::build("uniform")
        .unwrap()
        .bind(t.nodes(), 1)
        .unwrap();
    let params = OpenLoopParams {
        load: 0.02,
        measure_cycles: 20_000,
        ..OpenLoopParams::default()
    };
    let model = NetworkModel::preset("booksim-iq").unwrap();
    let p = netreplay::network::Network::new(t.as_ref(), &model)
        .and_then(|n| n.open_loop(&dest, &params, 1))
        .unwrap();
    assert!(
        (p.mean_latency / 38.2 - 1.0).abs() < 0.02,
        "{}",
        p.mean_latency
    );
}

/// `preset` in `[network]` starts from the preset; keys beside it override it; a wrong name says which
/// presets exist; a written model reads back the same.
#[test]
fn network_presets_in_config() {
    let m: NetworkModel = toml::from_str("preset = \"booksim-iq\"\ncredit_delay = 4").unwrap();
    assert_eq!(
        m,
        NetworkModel {
            credit_delay: 4,
            ..NetworkModel::booksim_iq()
        }
    );
    assert_eq!(
        (m.routing_delay, m.allocation_delay, m.input_queue_packets),
        (3, 1, 4)
    );
    let plain: NetworkModel = toml::from_str("fly_time = 2").unwrap();
    assert_eq!(
        plain,
        NetworkModel {
            fly_time: 2,
            ..NetworkModel::default()
        }
    );
    let err = toml::from_str::<NetworkModel>("preset = \"booksim\"")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("booksim-iq") && err.contains("seed004"),
        "{err}"
    );
    assert!(toml::from_str::<NetworkModel>("credit_dely = 1").is_err());
    let text = toml::to_string(&m).unwrap();
    assert_eq!(toml::from_str::<NetworkModel>(&text).unwrap(), m);
}

/// Phit credits under load: every pattern completes (no deadlock) and every phit injected is delivered
/// once, on the preset's networks and a fat-tree, with one-packet queues (every packet that follows a
/// full buffer borrows) and with the preset's own. The closing checks hold only if each buffer's
/// borrowed room was repaid exactly: a packet may not start into a buffer still owed phits.
#[test]
fn phit_credits_complete_and_conserve() {
    use netreplay::workload;
    for spec in [
        "mesh:k=4,n=2",
        "torus:k=4,n=2,deadlock=dateline",
        "fat-tree:k=4,n=2",
    ] {
        let topo = topology::build(spec).unwrap();
        let nodes: Vec<u32> = (0..16).collect();
        for queue in [1u32, 4] {
            let model = NetworkModel {
                input_queue_packets: queue,
                ..NetworkModel::booksim_iq()
            };
            for pattern in ["2m:size=1000", "bu:size=1000", "wf:size=10000"] {
                let program = workload::build(pattern)
                    .unwrap()
                    .generator
                    .generate(16)
                    .unwrap();
                let packets: u64 = program.sends().map(|s| model.packets_for(s.2)).sum();
                let o = simulate(topo.as_ref(), &model, &program, &nodes, 3)
                    .unwrap_or_else(|e| panic!("{pattern} on {spec}: {e}"));
                assert_eq!(o.packets, packets, "{pattern} on {spec}");
                assert_eq!(o.phits_injected, packets * 16, "{pattern} on {spec}");
                assert_eq!(o.phits_delivered, o.phits_injected, "{pattern} on {spec}");
                let packet_credits = NetworkModel {
                    credits: CreditUnit::Packet,
                    ..model.clone()
                };
                let slower = simulate(topo.as_ref(), &packet_credits, &program, &nodes, 3).unwrap();
                if queue == 1 {
                    assert!(
                        o.completion_cycles < slower.completion_cycles,
                        "{pattern} on {spec}: {} vs {}",
                        o.completion_cycles,
                        slower.completion_cycles
                    );
                }
            }
        }
    }
}

/// The largest values `check_values` accepts run: an injection queue of 2^20 packets of 4096 phits
/// (2^32 phits, one more than a u32 holds) overflowed when the engine counted its credits, which an
/// injection queue, never fed by a channel, does not need.
#[test]
fn the_largest_accepted_queues_run() {
    let topo = topology::build("fat-tree:k=2,n=2").unwrap();
    let model = NetworkModel {
        injection_queue_packets: 1 << 20,
        packet_phits: 4096,
        input_queue_packets: 1024,
        ..NetworkModel::default()
    };
    model.validate(topo.as_ref()).unwrap();
    let o = common::one_message("fat-tree:k=2,n=2", 0, 3, 10, model);
    // One packet from node 0 to node 3 through the top level: L = 4 links, then its 4096 phits.
    assert_eq!(o.completion_cycles, 4 + 4096);
}
