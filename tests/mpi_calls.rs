//! The MPI call set end to end, one test per call family: exact message counts and bytes, and for
//! calls that change timing exact completion cycles on an empty network.
//!
//! Timing model (the default `NetworkModel`, see `tests/engine_timing.rs`): a message of P packets
//! (64 bytes each, 16 phits of 4 bytes; a message of 0 bytes is still one packet) crossing L links
//! takes L + 16P cycles from injection to consumption, with no routing delay and no fly time. Every
//! replay here places rank r on node r of `fat-tree:k=4,n=2`, so ranks 0..4 share one leaf switch:
//! L = 2 between any two of them, and a one-packet message (data, request-to-send or clear-to-send,
//! `control_bytes` = 64) takes 2 + 16 = 18 cycles. A rank answers a message in the cycle it is
//! consumed, so the legs of a handshake add up.

use netreplay::mpi::collectives::Algorithms;
use netreplay::mpi::runtime::MpiStats;
use netreplay::network::{NetworkModel, Outcome};
use netreplay::program::MpiModel;
use netreplay::program::Program;
use netreplay::replay::{Instruments, Replay, simulate};
use std::path::PathBuf;
use std::process::Command;

mod common;

const TAG: &str = "mpi_calls";

fn scratch(name: &str) -> PathBuf {
    common::scratch(TAG, name)
}

fn native(name: &str, text: &str) -> Program {
    common::native_with(TAG, name, text, Algorithms::MPICH)
}

fn native_error(name: &str, text: &str) -> String {
    common::native_error(TAG, name, text)
}

fn native_fixed(name: &str, text: &str) -> Program {
    common::native_with(TAG, name, text, Algorithms::FIXED)
}

const TOPOLOGY: &str = "fat-tree:k=4,n=2";

/// One packet between two ranks of one leaf switch: L = 2 links + 16 phits.
const HOP: u64 = 2 + 16;

/// The engine's outcome of `p` on [`TOPOLOGY`], rank r on node r.
fn outcome(p: &Program) -> Outcome {
    let topo = netreplay::topology::build(TOPOLOGY).unwrap();
    let nodes: Vec<u32> = (0..p.ranks()).collect();
    simulate(topo.as_ref(), &NetworkModel::default(), p, &nodes, 1).unwrap()
}

/// [`outcome`] with what the MPI layer reports beside it.
fn with_mpi(p: &Program) -> (Outcome, MpiStats) {
    let topo = netreplay::topology::build(TOPOLOGY).unwrap();
    let nodes: Vec<u32> = (0..p.ranks()).collect();
    let model = NetworkModel::default();
    let replay = Replay::new(topo.as_ref(), &model, 1).unwrap();
    let r = replay.program(p, &nodes, Instruments::default()).unwrap();
    (r.outcome, r.mpi)
}

/// (network messages, network bytes, completion cycles).
fn replay(p: &Program) -> (u64, u64, u64) {
    let o = outcome(p);
    let bytes = p.sends().filter(|s| s.0 != s.1).map(|s| s.2).sum();
    (o.messages, bytes, o.completion_cycles)
}

/// (network messages, network bytes).
fn net(p: &Program) -> (u64, u64) {
    let (m, b, _) = replay(p);
    (m, b)
}

/// `netreplay run --json` of the trace `text` with extra workload keys `extra` (`,compute=off`).
fn run_json(name: &str, text: &str, extra: &str) -> serde_json::Value {
    let path = scratch(name);
    std::fs::write(&path, text).unwrap();
    let workload = format!("trace:file={}{extra}", path.to_str().unwrap());
    let out = Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args([
            "run",
            "--topology",
            TOPOLOGY,
            "--workload",
            &workload,
            "--json",
        ])
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{workload}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// Self-messages never enter the network, with or without a copy cost. Rank 0 sends 1001 bytes to
/// itself, receives them, then sends 64 bytes to rank 1: one network message, 18 cycles. With
/// `self_copy=0.25` the copy costs ceil(1001 × 0.25) = 251 cycles before the network message
/// leaves (251 + 18), and the report books them as rank 0's sending time.
#[test]
fn self_message_costs_only_its_copy() {
    let text = "netreplay-trace 3\nranks 2\n0 send 0 1001 3\n0 recv 0 3\n0 send 1 64\n1 recv 0\n";
    let p = native("self.trc", text);
    let (o, mpi) = with_mpi(&p);
    assert_eq!((o.messages, o.completion_cycles), (1, HOP));
    assert_eq!((mpi.self_messages, mpi.self_bytes), (1, 1001));
    assert_eq!(mpi.time.send_sum, 0);
    let copy = MpiModel {
        self_copy: 0.25,
        ..MpiModel::default()
    };
    let (o, mpi) = with_mpi(&p.with_mpi(copy));
    assert_eq!((o.messages, o.completion_cycles), (1, 251 + HOP));
    assert_eq!((mpi.time.send_sum, mpi.time.send_max), (251, 251));
    // Rank 0's receive finds the self-message already delivered (unexpected queue): it never
    // waits. Rank 1 waits in its receive for the copy and the network message: 251 + 18.
    assert_eq!(
        (mpi.time.wait_sum, mpi.time.wait_max),
        (251 + HOP, 251 + HOP)
    );
    // The key through the CLI gives the same.
    let v = run_json("self-cli.trc", text, ",self_copy=0.25");
    assert_eq!(v["completion_cycles"], 251 + HOP);
    assert_eq!(v["mpi"]["self_messages"], 1);
}

/// `sendrecv` puts its receive and its send in flight together: two ranks exchanging 64 bytes both
/// finish at 18 (not 2 × 18), two messages. Under rendezvous, 1 MiB each way (P = 16384 packets)
/// cannot deadlock: both receives are posted before the sends, so each request-to-send (0 → 18) is
/// answered at once by a clear-to-send (18 → 36), then the data (36 → 36 + 2 + 16P).
#[test]
fn sendrecv_exchanges_both_ways_at_once() {
    let text = |b: u64| {
        format!("netreplay-trace 3\nranks 2\n0 sendrecv 1 {b} 5 1 6\n1 sendrecv 0 {b} 6 0 5\n")
    };
    let (m, bytes, cycles) = replay(&native("sendrecv.trc", &text(64)));
    assert_eq!((m, bytes, cycles), (2, 128, HOP));
    let big = native("sendrecv-big.trc", &text(1 << 20)).with_mpi(MpiModel::mpich());
    let (o, mpi) = with_mpi(&big);
    let packets = (1u64 << 20) / 64;
    assert_eq!(o.completion_cycles, 2 * HOP + 2 + 16 * packets);
    assert_eq!(
        (o.messages, mpi.rendezvous_messages, mpi.control_messages),
        (2, 2, 4)
    );
}

/// A wildcard `sendrecv` (`any any`) takes its source and tag from the recorded status `-> SRC TAG`
/// and replays exactly as the explicit one; without a status it is an error naming file and line.
#[test]
fn sendrecv_with_a_wildcard_takes_the_recorded_status() {
    let p = native(
        "sendrecv-any.trc",
        "netreplay-trace 3\nranks 2\n0 sendrecv 1 64 5 any any -> 1 6\n1 sendrecv 0 64 6 0 5\n",
    );
    assert_eq!(replay(&p), (2, 128, HOP));
    let recvs: Vec<_> = p.sends().collect();
    assert!(recvs.iter().any(|s| (s.0, s.1) == (1, 0)), "{recvs:?}");
    let e = native_error(
        "sendrecv-nostatus.trc",
        "netreplay-trace 3\nranks 2\n0 sendrecv 1 64 5 any 6\n1 sendrecv 0 64 6 0 5\n",
    );
    assert!(
        e.contains("sendrecv-nostatus.trc:3:") && e.contains("MPI_ANY_SOURCE"),
        "{e}"
    );
}

/// `ssend` completes only once the receive has matched and the data has moved to the receiver,
/// whatever the size and protocol: rank 0's 64-byte `ssend` sends a request-to-send (0 → 18,
/// unexpected at rank 1); rank 1 posts its receive at 1000 and answers clear-to-send (1000 → 1018),
/// and the data (1018 → 1036) releases rank 0. Rank 0 then computes 500: it ends at 1036 + 500 =
/// 1536, delayed by exactly the receive post, the clear-to-send and the data. With a standard
/// `isend` + `wait` (eager) rank 0 ends at 500 and the run at 1000. With the receive posted at once
/// the handshake and the data still cost 3 × 18 + 500.
#[test]
fn ssend_waits_for_the_receive() {
    let late = native(
        "ssend.trc",
        "netreplay-trace 3\nranks 2\n0 ssend 1 64\n0 compute 500\n1 compute 1000\n1 recv 0\n",
    );
    let (o, mpi) = with_mpi(&late);
    assert_eq!(o.completion_cycles, 1000 + 2 * HOP + 500);
    assert_eq!(
        (o.messages, mpi.rendezvous_messages, mpi.control_messages),
        (1, 1, 2)
    );
    assert_eq!(
        mpi.time.send_max,
        1000 + 2 * HOP,
        "rank 0 blocked in its ssend"
    );
    let eager = native(
        "ssend-std.trc",
        "netreplay-trace 3\nranks 2\n0 isend 1 64 0 4\n0 wait 4\n0 compute 500\n\
         1 compute 1000\n1 recv 0\n",
    );
    let (o, mpi) = with_mpi(&eager);
    assert_eq!((o.messages, o.completion_cycles), (1, 1000));
    assert_eq!(mpi.control_messages, 0);
    let early = native(
        "ssend-early.trc",
        "netreplay-trace 3\nranks 2\n0 ssend 1 64\n0 compute 500\n1 recv 0\n",
    );
    assert_eq!(outcome(&early).completion_cycles, 3 * HOP + 500);
    // `issend` + `wait` behaves the same as `ssend`.
    let issend = native(
        "issend.trc",
        "netreplay-trace 3\nranks 2\n0 issend 1 64 0 4\n0 wait 4\n0 compute 500\n\
         1 compute 1000\n1 recv 0\n",
    );
    assert_eq!(outcome(&issend).completion_cycles, 1000 + 2 * HOP + 500);
}

/// Rank 1 posts receives 10 (tag 1) and 11 (tag 2), waits for one, computes 100, then waits for
/// request 10. Rank 0 sends tag 2 at once (arrives at 18) and tag 1 after computing 1000 (arrives
/// at 1018). Waiting first for 11 ends the run at 1018 (18 + 100 < 1018); first for 10 at
/// 1018 + 100 = 1118.
fn waitany_case(name: &str, waitany: &str) -> u64 {
    let text = format!(
        "netreplay-trace 3\nranks 2\n0 send 1 64 2\n0 compute 1000\n0 send 1 64 1\n\
         1 irecv 0 1 10\n1 irecv 0 2 11\n1 {waitany}\n1 compute 100\n1 wait 10\n"
    );
    let (m, _, cycles) = replay(&native(name, &text));
    assert_eq!(m, 2, "{waitany}");
    cycles
}

/// `waitany` follows the completion the trace records (`-> REQ`); with none it completes whichever
/// of its requests completes first in simulated time (`traces/FORMAT.md`), whatever the list order,
/// and the others stay open for a later wait. A request a recorded `waitany` completed is gone:
/// waiting on it again is an error with file and line.
#[test]
fn waitany_follows_the_record_or_the_first_request_to_complete() {
    // Rank 1's later `wait 10` must not name a completed request: with `-> 10` it waits on 11.
    let recorded_11 = waitany_case("waitany-11.trc", "waitany 10 11 -> 11");
    assert_eq!(recorded_11, 1000 + HOP);
    let text = "netreplay-trace 3\nranks 2\n0 send 1 64 2\n0 compute 1000\n0 send 1 64 1\n\
                1 irecv 0 1 10\n1 irecv 0 2 11\n1 waitany 10 11 -> 10\n1 compute 100\n1 wait 11\n";
    assert_eq!(replay(&native("waitany-10.trc", text)).2, 1000 + HOP + 100);
    // No record: the first to complete, 11 (at 18), in either list order; the later `wait 10`
    // waits for the other (1018). Completing the first listed, 10, would end at 1118.
    for list in ["waitany 11 10", "waitany 10 11"] {
        assert_eq!(
            waitany_case("waitany-first.trc", list),
            1000 + HOP,
            "{list}"
        );
    }
    // Both complete before the waitany: it does not block, and the later wait finds its request
    // done (the second packet from rank 0 leaves at 16: 16 + 18).
    let text = "netreplay-trace 3\nranks 2\n0 send 1 64 2\n0 send 1 64 1\n\
                1 compute 100\n1 irecv 0 1 10\n1 irecv 0 2 11\n1 waitany 10 11\n1 wait 10\n";
    assert_eq!(replay(&native("waitany-done.trc", text)), (2, 128, 100));
    // Rank 0 waits for either of ranks 1 and 2, answers rank 1, then waits on the other request:
    // rank 2's message completes the waitany at 18, rank 0's reply reaches rank 1 at 36, rank 1's
    // answer completes request 1 at 54. A reposted handle (the trace saw it complete) is no error.
    let text = "netreplay-trace 3\nranks 3\n0 irecv 1 0 1\n0 irecv 2 0 2\n0 waitany 1 2\n\
                0 send 1 64 9\n0 wait 1\n0 irecv 2 4 2\n0 wait 2\n1 recv 0 9\n1 send 0 64 0\n\
                2 send 0 64 0\n2 send 0 64 4\n";
    assert_eq!(
        replay(&native("waitany-then-wait.trc", text)),
        (4, 256, 3 * HOP)
    );
    let e = native_error(
        "waitany-bad.trc",
        "netreplay-trace 3\nranks 2\n0 send 1 64 2\n1 irecv 0 2 11\n1 waitany 11 -> 12\n",
    );
    assert!(
        e.contains("waitany-bad.trc:5:") && e.contains("not in the list"),
        "{e}"
    );
}

/// `testall` with recorded completions (`-> 10 11`) completes both there, as a wait would: rank 1
/// blocks until rank 0's two messages, sent after 1000 cycles of compute, have arrived (the second
/// packet leaves 16 cycles after the first: 1000 + 16 + 18 = 1034), then computes 100: 1134. A
/// `testall` with no record completes nothing (the documented rule): the compute overlaps the
/// messages and the later `wait`s end the run at 1034.
#[test]
fn testall_completes_what_the_trace_records_and_nothing_otherwise() {
    let text = |test: &str, waits: &str| {
        format!(
            "netreplay-trace 3\nranks 2\n0 compute 1000\n0 send 1 64 1\n0 send 1 64 2\n\
             1 irecv 0 1 10\n1 irecv 0 2 11\n1 {test}\n1 compute 100\n{waits}"
        )
    };
    let recorded = native("testall.trc", &text("testall 10 11 -> 10 11", ""));
    assert_eq!(replay(&recorded), (2, 128, 1000 + 16 + HOP + 100));
    let unrecorded = native(
        "testall-none.trc",
        &text("testall 10 11", "1 wait 10\n1 wait 11\n"),
    );
    assert_eq!(replay(&unrecorded), (2, 128, 1000 + 16 + HOP));
    // After a recorded testall the requests are complete: a wait on one is an error.
    let e = native_error(
        "testall-twice.trc",
        &text("testall 10 11 -> 10 11", "1 wait 11\n"),
    );
    assert!(
        e.contains("testall-twice.trc:10:") && e.contains("request 11"),
        "{e}"
    );
}

/// MPICH's recursive-doubling scan and exscan (`traces/FORMAT.md`): Σ over masks 2^k < n of
/// |{r < n : r xor 2^k < n}| messages of the whole vector. 6 ranks (not a power of two): mask 1
/// pairs all 6, mask 2 pairs 0-2 and 1-3 (4 messages), mask 4 pairs 0-4 and 1-5 (4): 14. 8 ranks:
/// n·log2 n = 24. 5 ranks: 4 + 4 + 2 = 10.
#[test]
fn scan_and_exscan_count_recursive_doubling_messages() {
    let formula = |n: u64| -> u64 {
        let mut total = 0;
        let mut mask = 1;
        while mask < n {
            total += (0..n).filter(|r| r ^ mask < n).count() as u64;
            mask <<= 1;
        }
        total
    };
    for (n, want) in [(5u32, 10u64), (6, 14), (8, 24)] {
        assert_eq!(formula(u64::from(n)), want);
        for op in ["scan", "exscan"] {
            let mut text = format!("netreplay-trace 3\nranks {n}\n");
            for r in 0..n {
                text.push_str(&format!("{r} {op} 96\n"));
            }
            let p = native(&format!("{op}{n}.trc"), &text);
            let (m, b, _) = replay(&p);
            assert_eq!((m, b), (want, want * 96), "{op} on {n}");
            assert!(p.sends().all(|s| (s.0 ^ s.1).is_power_of_two()));
        }
    }
}

/// One line per rank: `R NAME ARGS` for every rank of `n`.
fn collective_trace(n: u32, line: impl Fn(u32) -> String) -> String {
    let mut text = format!("netreplay-trace 3\nranks {n}\n");
    for r in 0..n {
        text.push_str(&format!("{r} {}\n", line(r)));
    }
    text
}

/// Gatherv and scatterv are linear (n − 1 messages) with each rank's own count; a zero count is
/// still an (empty, one-packet) message, as documented: the root of a gatherv cannot know the
/// others' counts from its own line.
#[test]
fn gatherv_and_scatterv_move_each_ranks_count() {
    let counts = [10u64, 20, 0, 40];
    let p = native(
        "gatherv.trc",
        &collective_trace(4, |r| format!("gatherv 1 {}", counts[r as usize])),
    );
    let (m, b, _) = replay(&p);
    assert_eq!(
        (m, b),
        (3, 10 + 40),
        "gatherv to rank 1: ranks 0, 2 (empty), 3"
    );
    assert!(p.sends().all(|s| s.1 == 1));
    let p = native(
        "scatterv.trc",
        &collective_trace(4, |_| "scatterv 0 5 0 7 9".to_string()),
    );
    let (m, b, _) = replay(&p);
    assert_eq!((m, b), (3, 16), "scatterv from rank 0 to 1 (empty), 2, 3");
    let mut sent: Vec<_> = p.sends().map(|s| (s.0, s.1, s.2)).collect();
    sent.sort_unstable();
    assert_eq!(sent, [(0, 1, 0), (0, 2, 7), (0, 3, 9)]);
}

/// Allgatherv with per-rank counts 100, 0, 300, 400 (T = 800 on 4 ranks): MPICH's selection runs
/// recursive doubling (T < 524288, n a power of two), n·log2 n = 8 messages; `select=fixed` the
/// unpipelined ring, n(n − 1) = 12. Either way every rank receives every block but its own:
/// 700 + 800 + 500 + 400 = 2400 bytes. Every count 0 moves nothing under `select=mpich` (MPICH
/// returns at once) and 12 empty messages under `select=fixed`.
#[test]
fn allgatherv_moves_every_block_to_every_other_rank() {
    let text = collective_trace(4, |_| "allgatherv 100 0 300 400".to_string());
    let p = native("allgatherv.trc", &text);
    assert_eq!(net(&p), (8, 2400));
    let p = native_fixed("allgatherv-fixed.trc", &text);
    assert_eq!(net(&p), (12, 2400));
    let zeros = collective_trace(4, |_| "allgatherv 0 0 0 0".to_string());
    let p = native("allgatherv-0.trc", &zeros);
    assert_eq!((p.sends().count(), replay(&p).0), (0, 0));
    let p = native_fixed("allgatherv-0-fixed.trc", &zeros);
    assert_eq!(net(&p), (12, 0));
}

/// Alltoallv: rank r sends `10·r + d` bytes to rank d except 0 bytes from rank 1 to rank 2; n(n − 1)
/// = 12 messages (the empty pair included, as documented: the receiver cannot know it is empty)
/// under both algorithms, and the bytes of every ordered pair r ≠ d.
#[test]
fn alltoallv_sends_every_pair_its_count() {
    let count = |r: u32, d: u32| {
        if (r, d) == (1, 2) {
            0
        } else {
            u64::from(10 * r + d)
        }
    };
    let text = collective_trace(4, |r| {
        let c: Vec<String> = (0..4).map(|d| count(r, d).to_string()).collect();
        format!("alltoallv {}", c.join(" "))
    });
    let want: u64 = (0..4)
        .flat_map(|r| (0..4).filter(move |&d| d != r).map(move |d| count(r, d)))
        .sum();
    // 10 × 3 × (0 + 1 + 2 + 3) + Σ_r (6 − r) − 12 (rank 1's empty block to rank 2).
    assert_eq!(want, 180 + 18 - 12);
    for p in [
        native("alltoallv.trc", &text),
        native_fixed("alltoallv-fixed.trc", &text),
    ] {
        assert_eq!(net(&p), (12, want));
        let mut pairs: Vec<_> = p
            .sends()
            .filter(|s| s.0 != s.1)
            .map(|s| (s.0, s.1, s.2))
            .collect();
        pairs.sort_unstable();
        let expect: Vec<_> = (0..4)
            .flat_map(|r| {
                (0..4)
                    .filter(move |&d| d != r)
                    .map(move |d| (r, d, count(r, d)))
            })
            .collect();
        assert_eq!(pairs, expect);
    }
}

/// Non-blocking collectives start where they are posted and progress on their own
/// (`traces/FORMAT.md`): completing two of them in different orders on two ranks, in `wait`s or
/// a `waitall`, does not deadlock. Both schedules start at 0 on both ranks: each rank sends its
/// barrier message (one packet, 0..16), rank 1 then its bcast message (16..32), which rank 0 has at
/// 32 + 2 = 34.
#[test]
fn nonblocking_collectives_complete_in_any_order() {
    let waits = "netreplay-trace 3\nranks 2\n0 ibarrier 1\n0 ibcast 2 1 64\n0 wait 2\n0 wait 1\n\
                 1 ibarrier 1\n1 ibcast 2 1 64\n1 wait 1\n1 wait 2\n";
    assert_eq!(replay(&native("nbc-waits.trc", waits)), (3, 64, 16 + HOP));
    let waitall = "netreplay-trace 3\nranks 2\n0 ibarrier 1\n0 ibcast 2 1 64\n0 waitall 2 1\n\
                   1 ibarrier 1\n1 ibcast 2 1 64\n1 waitall 1 2\n";
    assert_eq!(
        replay(&native("nbc-waitall.trc", waitall)),
        (3, 64, 16 + HOP)
    );
}

/// A receive between a non-blocking collective and its wait, whose sender waits on the collective
/// first: the collective progresses while rank 0 is blocked in the receive. Recursive doubling of
/// 800 bytes (13 packets each way) completes on both ranks at 2 + 13 × 16 = 210; rank 1's message
/// reaches rank 0 at 210 + 18.
#[test]
fn a_nonblocking_collective_progresses_during_a_blocking_receive() {
    let text = "netreplay-trace 3\nranks 2\n0 iallreduce 1 800\n0 recv 1 7\n0 wait 1\n\
                1 iallreduce 1 800\n1 wait 1\n1 send 0 64 7\n";
    assert_eq!(
        replay(&native("nbc-p2p.trc", text)),
        (3, 1664, 2 + 13 * 16 + HOP)
    );
}

/// A computing rank's schedule still forwards: the binomial ibcast of 64 bytes from rank 0 on 4
/// ranks sends 0 -> 2 (arrives 18), 0 -> 1 (leaves at 16, arrives 34), and 2 -> 3 as soon as rank
/// 2 has the data (18, arrives 36), though rank 2 computes until 1000 before its wait. So ranks 1
/// and 3 wait 34 and 36 cycles (run where the request completes, rank 3 would wait past 1000).
#[test]
fn a_nonblocking_collective_progresses_while_its_rank_computes() {
    let mut text = String::from("netreplay-trace 3\nranks 4\n");
    for r in 0..4 {
        text += &format!("{r} ibcast 5 0 64\n");
        if r == 2 {
            text += "2 compute 1000\n";
        }
        text += &format!("{r} wait 5\n");
    }
    let (o, mpi) = with_mpi(&native("nbc-compute.trc", &text));
    assert_eq!((o.messages, o.completion_cycles), (3, 1000));
    assert_eq!((mpi.time.wait_sum, mpi.time.wait_max), (34 + 36, 36));
}

/// A rank whose program ends with a non-blocking collective never waited on still takes part: it
/// waits at its end (MPI_Finalize) for its schedule. Rank 0 computes 100, then broadcasts 64 bytes
/// to rank 1, which posts the ibcast and ends at once: it finishes when the data arrives, 100 + 18,
/// all of it waiting.
#[test]
fn a_rank_ending_with_a_running_collective_waits_for_it() {
    let text = "netreplay-trace 3\nranks 2\n0 compute 100\n0 ibcast 5 0 64\n0 wait 5\n\
                1 ibcast 5 0 64\n";
    let (o, mpi) = with_mpi(&native("nbc-drain.trc", text));
    assert_eq!((o.messages, o.completion_cycles), (1, 100 + HOP));
    assert_eq!(
        (mpi.time.wait_sum, mpi.time.wait_max),
        (100 + HOP, 100 + HOP)
    );
}

/// A trace file's lines run in order, so a program with non-blocking collectives (whose schedules
/// run beside it) cannot be written as one: `generate` refuses it and writes nothing.
#[test]
fn generate_refuses_to_write_nonblocking_collectives() {
    let src = scratch("nbc-generate.trc");
    std::fs::write(
        &src,
        "netreplay-trace 3\nranks 2\n0 ibarrier 1\n0 wait 1\n1 ibarrier 1\n1 wait 1\n",
    )
    .unwrap();
    let out_path = scratch("nbc-generated.trc");
    let _ = std::fs::remove_file(&out_path);
    let workload = format!("trace:file={}", src.to_str().unwrap());
    let out = Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(["generate", &workload, "--ranks", "2", "--out"])
        .arg(&out_path)
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "generate wrote it: {err}");
    assert!(
        err.contains("non-blocking collectives cannot be written"),
        "{err}"
    );
    assert!(!out_path.exists());
}
