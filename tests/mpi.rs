//! The MPI layer end to end: real NPB traces, communicators, self-messages, protocols.

use netreplay::mpi::collectives::Algorithms;
use netreplay::network::NetworkModel;
use netreplay::program::MpiModel;
use netreplay::program::Program;
use netreplay::replay::simulate;
use netreplay::trace::{self, ReadOptions};
use std::path::Path;

mod common;

const TAG: &str = "mpi";

fn native(name: &str, text: &str) -> Program {
    common::native_with(TAG, name, text, Algorithms::MPICH)
}

fn native_error(name: &str, text: &str) -> String {
    common::native_error(TAG, name, text)
}

/// (network messages, network bytes, completion cycles) of a replay on `topology`.
fn replay(topology: &str, p: &Program) -> (u64, u64, u64) {
    let topo = netreplay::topology::build(topology).unwrap();
    let nodes: Vec<u32> = (0..p.ranks()).collect();
    let o = simulate(topo.as_ref(), &NetworkModel::default(), p, &nodes, 1).unwrap();
    let bytes = p.sends().filter(|s| s.0 != s.1).map(|s| s.2).sum();
    (o.messages, bytes, o.completion_cycles)
}

/// NPB 3.3 class S on 16 ranks, SimGrid TI traces (copies in `traces/simgrid/npb3.3/`): messages and
/// bytes over the network equal the figures of `shared/traces/simgrid-ti/npb3.3/README` (self-messages
/// delivered locally; collectives by the fixed algorithms those figures assume), on a fat-tree and a
/// torus, unmodified. CG's 1,664 self-messages and FT's datatype 43 used to be refused.
#[test]
fn every_npb_kernel_replays_with_the_readme_figures() {
    let cases: &[(&str, u64, u64)] = &[
        ("bt", 23_881, 52_214_420),
        ("cg", 45_534, 51_472_564),
        ("ep", 335, 6_716),
        ("ft", 2_149, 31_459_020),
        ("is", 6_044, 4_169_496),
        ("lu", 28_026, 9_932_268),
        ("mg", 12_840, 3_957_440),
        ("sp", 39_211, 44_426_780),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/simgrid/npb3.3");
    let fixed = ReadOptions {
        algorithms: Algorithms::FIXED,
        ..ReadOptions::default()
    };
    for &(k, messages, bytes) in cases {
        let index = root.join(format!("{k}.S.16/{k}.S.16.txt"));
        let p = trace::read_any(&index, &fixed).unwrap_or_else(|e| panic!("{k}: {e}"));
        assert_eq!(p.ranks(), 16, "{k}");
        for topology in ["fat-tree:k=4,n=2", "torus:k=4,n=2"] {
            let (m, b, _) = replay(topology, &p);
            assert_eq!((m, b), (messages, bytes), "{k} on {topology}");
        }
        if k == "cg" {
            let selfs = p.sends().filter(|s| s.0 == s.1).count();
            assert_eq!(selfs, 1_664, "CG's self-messages");
        }
    }
}

/// Two communicators of 4 ranks inside 8 (`comm` definitions), an alltoall on each: 2 x 12
/// messages, none across the two groups, each group's messages on its own context.
#[test]
fn alltoalls_on_two_communicators_stay_inside_them() {
    let mut text = String::from("netreplay-trace 3\nranks 8\ncomm 2 0 2 4 6\ncomm 3 1 3 5 7\n");
    for r in 0..8 {
        let c = if r % 2 == 0 { 2 } else { 3 };
        text.push_str(&format!("{r} alltoall 100 @{c}\n"));
    }
    let p = native("two-comms.trc", &text);
    let sends: Vec<_> = p.sends().collect();
    assert_eq!(sends.len(), 24);
    assert!(sends.iter().all(|s| s.0 % 2 == s.1 % 2), "{sends:?}");
    assert_eq!(replay("fat-tree:k=4,n=2", &p).0, 24);
}

/// MPI_Comm_split orders each colour's ranks by (key, parent rank): ranks 0..8 split by parity with
/// key = -rank give the even group in order 6 4 2 0. A bcast from its rank 0 (world rank 6) then
/// sends from world rank 6 first.
#[test]
fn comm_split_orders_ranks_by_colour_key_and_rank() {
    let mut text = String::from("netreplay-trace 3\nranks 8\n");
    for r in 0..8i64 {
        text.push_str(&format!("{r} comm_split 0 {} {} 5\n", r % 2, -r));
        text.push_str(&format!("{r} bcast 0 64 @5\n"));
    }
    let p = native("split.trc", &text);
    // Binomial bcast over 4 ranks from rank 0: 0->2, 0->1, 2->3 in group ranks.
    let mut even: Vec<(u32, u32)> = p
        .sends()
        .filter(|s| s.0 % 2 == 0)
        .map(|s| (s.0, s.1))
        .collect();
    even.sort_unstable();
    // Group order 6 4 2 0: 0->2 is 6->2, 0->1 is 6->4, 2->3 is 2->0.
    assert_eq!(even, [(2, 0), (6, 2), (6, 4)]);
}

/// Self-messages never enter the network and cost nothing by default; with `self_copy` they cost
/// the rank its copy time.
#[test]
fn self_messages_are_local() {
    let p = native(
        "self.trc",
        "netreplay-trace 3\nranks 2\n0 irecv 0 3 1\n0 send 0 1000 3\n0 wait 1\n0 send 1 64\n1 recv 0\n",
    );
    let (m, _, cycles) = replay("fat-tree:k=4,n=2", &p);
    assert_eq!(m, 1, "only the message to rank 1 crosses the network");
    // 0 -> 1 on one switch: 2 links + 16 phits of one packet.
    assert_eq!(cycles, 2 + 16);
    let copy = MpiModel {
        self_copy: 0.5,
        ..MpiModel::default()
    };
    let (_, _, slow) = replay("fat-tree:k=4,n=2", &p.clone().with_mpi(copy));
    assert_eq!(
        slow,
        500 + 2 + 16,
        "1000 bytes at 0.5 cycles per byte, then the message"
    );
}

/// Rendezvous on an empty network: rank 1 posts its receive at cycle 1000; the 1 MiB message's
/// request-to-send arrived long before. Clear-to-send (1 packet: L + 16 cycles) then the data
/// (P packets: L + 16 P) follow, so the receive completes at 1000 + (L + 16) + (L + 16 P), with L = 2
/// links between two nodes of one switch and P = 2^20 / 64 packets. Under eager the data arrives at
/// L + 16 P and the receive completes at 1000.
#[test]
fn rendezvous_waits_for_the_receive_then_moves_the_data() {
    let p = native(
        "rdv.trc",
        "netreplay-trace 3\nranks 2\n0 send 1 1048576\n1 compute 1000\n1 recv 0\n",
    );
    let l = 2;
    let packets = 1_048_576 / 64;
    let rendezvous = p.clone().with_mpi(MpiModel::mpich());
    assert_eq!(
        replay("fat-tree:k=4,n=2", &rendezvous).2,
        1000 + (l + 16) + (l + 16 * packets)
    );
    assert_eq!(replay("fat-tree:k=4,n=2", &p).2, l + 16 * packets);
    // A small message stays eager under the rendezvous protocol: it does not wait for the post.
    let small = native(
        "small.trc",
        "netreplay-trace 3\nranks 2\n0 send 1 64\n1 compute 1000\n1 recv 0\n",
    )
    .with_mpi(MpiModel::mpich());
    assert_eq!(replay("fat-tree:k=4,n=2", &small).2, 1000);
}

/// A rendezvous send completes once its data has moved to the receiver, not when the data starts:
/// rank 0's 200,000-byte `isend` + `wait` (3,125 packets) sends its request-to-send (0 → 18), rank 1's
/// posted receive answers clear-to-send (18 → 36), and the data is consumed at 36 + 2 + 16 × 3125 =
/// 50,038, when the wait returns. Rank 0 then computes 50,000 and sends 64 bytes to rank 2 (18
/// cycles): 100,056. Its computation no longer overlaps its own send.
#[test]
fn a_rendezvous_send_completes_when_its_data_has_moved() {
    let p = native(
        "rdv_wait.trc",
        "netreplay-trace 3\nranks 3\n0 isend 1 200000 0 7\n0 wait 7\n0 compute 50000\n0 send 2 64\n\
         1 recv 0\n2 recv 0\n",
    )
    .with_mpi(MpiModel::mpich());
    assert_eq!(replay("fat-tree:k=4,n=2", &p).2, 50_038 + 50_000 + 18);
}

/// A message's latency is the application's: from its send's posting to its data's consumption, the
/// request-to-send and clear-to-send counted in it and not as messages of their own. The 1 MiB
/// rendezvous of the test above is posted at cycle 0 and consumed at 1000 + (L + 16) + (L + 16 P), on
/// either model (no contention: the flow model times it alike); under eager at L + 16 P. Two jobs
/// sharing a network count their data messages alike.
#[test]
fn message_latency_spans_the_rendezvous_and_counts_data_only() {
    let p = native(
        "rdv_latency.trc",
        "netreplay-trace 3\nranks 2\n0 send 1 1048576\n1 compute 1000\n1 recv 0\n",
    );
    let (l, packets) = (2, 1_048_576 / 64);
    let topo = netreplay::topology::build("fat-tree:k=4,n=2").unwrap();
    let flow = NetworkModel {
        model: netreplay::network::Model::Flow,
        ..NetworkModel::default()
    };
    let rendezvous = p.clone().with_mpi(MpiModel::mpich());
    for model in [NetworkModel::default(), flow] {
        let o = simulate(topo.as_ref(), &model, &rendezvous, &[0, 1], 1).unwrap();
        let whole = 1000 + (l + 16) + (l + 16 * packets);
        assert_eq!(o.messages, 1);
        assert_eq!(o.max_message_latency, whole);
        assert_eq!(o.mean_message_latency, whole as f64);
    }
    let o = simulate(topo.as_ref(), &NetworkModel::default(), &p, &[0, 1], 1).unwrap();
    assert_eq!((o.messages, o.max_message_latency), (1, l + 16 * packets));
    let model = NetworkModel::default();
    let replay = netreplay::replay::Replay::new(topo.as_ref(), &model, 1).unwrap();
    let (first, second) = ([0, 1], [2, 3]);
    let job = |nodes, start| netreplay::replay::Job {
        program: &rendezvous,
        nodes,
        start,
    };
    let jobs = [job(&first[..], 0), job(&second[..], 500)];
    let (o, _) = replay.jobs(&jobs, None, None).unwrap();
    assert_eq!(o.messages, 2);
    assert_eq!(o.max_message_latency, 1000 + (l + 16) + (l + 16 * packets));
}

/// Bad input: collectives in different orders, an unknown communicator, a rank outside one.
#[test]
fn communicator_errors_name_file_and_line() {
    let e = native_error(
        "order.trc",
        "netreplay-trace 3\nranks 2\n0 barrier\n0 bcast 0 8\n1 bcast 0 8\n1 barrier\n",
    );
    assert!(
        e.contains("order.trc:5:") && e.contains("different orders"),
        "{e}"
    );
    let e = native_error("unknown.trc", "netreplay-trace 3\nranks 2\n0 barrier @9\n");
    assert!(
        e.contains("unknown.trc:3:") && e.contains("communicator 9"),
        "{e}"
    );
    let e = native_error(
        "outside.trc",
        "netreplay-trace 3\nranks 4\ncomm 2 0 1\n0 send 3 8 0 @2\n",
    );
    assert!(
        e.contains("outside.trc:4:") && e.contains("outside the communicator"),
        "{e}"
    );
}
