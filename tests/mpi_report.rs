//! The MPI model's compute keys and the run JSON's `mpi` section through the CLI, and bad MPI input
//! (collective order, communicators) reported with file and line, never a panic.
//!
//! Timing: every run places rank r on node r of `fat-tree:k=4,n=2`; ranks 0 and 1 share a leaf
//! switch, so a one-packet message (64 bytes: 16 phits of 4 bytes) crosses L = 2 links and takes
//! 2 + 16 = 18 cycles on the empty network (`tests/engine_timing.rs`).

use std::path::PathBuf;
use std::process::{Command, Output};

const TOPOLOGY: &str = "fat-tree:k=4,n=2";

/// One packet between two ranks of one leaf switch: L = 2 links + 16 phits.
const HOP: u64 = 2 + 16;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mpi_report");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `netreplay run` of the trace `text` (written to `name`) with extra workload keys `extra`.
fn run(name: &str, text: &str, extra: &str, json: bool) -> Output {
    let path = scratch(name);
    std::fs::write(&path, text).unwrap();
    let workload = format!("trace:file={}{extra}", path.to_str().unwrap());
    let mut args = vec!["run", "--topology", TOPOLOGY, "--workload", &workload];
    if json {
        args.push("--json");
    }
    Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(&args)
        .output()
        .expect("the binary runs")
}

fn run_json(name: &str, text: &str, extra: &str) -> serde_json::Value {
    let out = run(name, text, extra, true);
    assert!(
        out.status.success(),
        "{name}{extra}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// The stderr of a run that must fail cleanly: non-zero exit, no panic, no partial result.
fn run_error(name: &str, text: &str) -> String {
    let out = run(name, text, "", false);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{name} should fail");
    assert!(!err.contains("panicked"), "{name} panicked: {err}");
    assert!(out.stdout.is_empty(), "{name} printed a partial result");
    err
}

/// Rank 0 computes 1000 then sends 64 bytes; rank 1 receives them and computes 300. The compute
/// part (1000 + 300) and the message (18) add up: 1318. `compute_scale=0.5` halves the compute part
/// exactly: 500 + 18 + 150 = 668; `compute=off` removes it: 18. The `mpi` section's compute times
/// follow the scale (sum over ranks, max over ranks).
#[test]
fn compute_scale_and_compute_off_scale_only_the_compute() {
    let text = "netreplay-trace 3\nranks 2\n0 compute 1000\n0 send 1 64\n1 recv 0\n1 compute 300\n";
    for (extra, cycles, sum, max) in [
        ("", 1000 + HOP + 300, 1300, 1000),
        (",compute_scale=0.5", 500 + HOP + 150, 650, 500),
        (",compute=off", HOP, 0, 0),
        (",compute_scale=2", 2000 + HOP + 600, 2600, 2000),
    ] {
        let v = run_json("compute.trc", text, extra);
        assert_eq!(v["completion_cycles"], cycles, "{extra}");
        assert_eq!(v["messages"], 1, "{extra}");
        let t = &v["mpi"]["time"];
        assert_eq!(
            (&t["compute_sum"], &t["compute_max"]),
            (&sum.into(), &max.into()),
            "{extra}"
        );
        // Rank 1 waits in its receive from 0 until the message arrives: rank 0's (scaled) compute
        // plus 18; rank 0 never waits.
        assert_eq!(t["wait_sum"], max + HOP, "{extra}");
    }
}

/// The time split on a hand-derived case. Rank 0: `ssend 1 64`, compute 500. Rank 1: compute 1000,
/// `recv 0`. The request-to-send arrives at 18 and waits; rank 1 posts at 1000 and answers
/// clear-to-send, consumed at 1018, when the data leaves; the data is consumed at 1036, which
/// completes both the receive and rank 0's ssend. Rank 0: sending 1036 (blocked in the ssend),
/// computing 500, ends at 1536. Rank 1: computing 1000, waiting 36 (1000..1036). Each rank's three
/// parts add up to its end.
#[test]
fn time_split_of_a_synchronous_send() {
    let text =
        "netreplay-trace 3\nranks 2\n0 ssend 1 64\n0 compute 500\n1 compute 1000\n1 recv 0\n";
    let v = run_json("split.trc", text, "");
    assert_eq!(v["completion_cycles"], 1000 + 2 * HOP + 500);
    assert_eq!(v["messages"], 1, "application messages only");
    let mpi = &v["mpi"];
    assert_eq!(mpi["rendezvous_messages"], 1);
    assert_eq!(mpi["control_messages"], 2);
    assert_eq!(mpi["self_messages"], 0);
    let t = &mpi["time"];
    let got: Vec<u64> = [
        "compute_sum",
        "compute_max",
        "send_sum",
        "send_max",
        "wait_sum",
        "wait_max",
    ]
    .iter()
    .map(|k| t[k].as_u64().unwrap_or_else(|| panic!("{k} in {t}")))
    .collect();
    assert_eq!(
        got,
        [1500, 1000, 1000 + 2 * HOP, 1000 + 2 * HOP, 2 * HOP, 2 * HOP]
    );
    // Rank 0: 1036 + 500 = 1536; rank 1: 1000 + 36 = 1036. Their sum is every part summed.
    assert_eq!(got[0] + got[2] + got[4], 1536 + 1036);
}

/// Collectives called in different orders on a sub-communicator (not only on world), including the
/// same collective with different roots: errors name the file and line of the disagreeing call and
/// the line of the call it disagrees with.
#[test]
fn collectives_in_different_orders_on_a_communicator() {
    let e = run_error(
        "order-comm.trc",
        "netreplay-trace 3\nranks 4\ncomm 2 3 1\n\
         3 allreduce 8 @2\n3 barrier @2\n1 barrier @2\n1 allreduce 8 @2\n",
    );
    // Ranks are checked in world order, so rank 3's line 4 is the disagreeing call, and the
    // message names the line of rank 1's call it disagrees with.
    assert!(
        e.contains("order-comm.trc:4:")
            && e.contains("different orders")
            && e.contains("rank 1 called barrier (line 6)"),
        "{e}"
    );
    let e = run_error(
        "order-root.trc",
        "netreplay-trace 3\nranks 2\n0 bcast 0 8\n1 bcast 1 8\n",
    );
    assert!(e.contains("order-root.trc:4:") && e.contains("root"), "{e}");
    // Collectives are sequenced per communicator: rank 0 calls world's bcast before comm 2's
    // barrier and rank 1 after it, which the check accepts (and which completes, the root's
    // one-message bcast being eager).
    let v = run_json(
        "order-two.trc",
        "netreplay-trace 3\nranks 2\ncomm 2 0 1\n\
         0 bcast 0 8\n0 barrier @2\n1 barrier @2\n1 bcast 0 8\n",
        "",
    );
    // Dissemination barrier on 2 ranks: 2 messages; binomial bcast: 1.
    assert_eq!(v["messages"], 3);
}

/// Unknown communicators: never defined, freed, or defined without the rank; each an error with file
/// and line.
#[test]
fn unknown_communicators_are_errors_with_the_line() {
    for (name, text, line) in [
        (
            "never.trc",
            "netreplay-trace 3\nranks 2\n0 send 1 8 0 @7\n1 recv 0 0 @7\n",
            3,
        ),
        (
            "freed.trc",
            "netreplay-trace 3\nranks 2\ncomm 2 0 1\n0 comm_free 2\n0 barrier @2\n1 barrier @2\n",
            5,
        ),
        (
            "not-member.trc",
            "netreplay-trace 3\nranks 3\ncomm 2 0 1\n2 barrier @2\n",
            4,
        ),
    ] {
        let e = run_error(name, text);
        assert!(
            e.contains(&format!("{name}:{line}:")) && e.contains("communicator"),
            "{name}: {e}"
        );
    }
}

/// Ranks outside a communicator: a receive's source, a collective's root, v counts for another
/// size, and a `comm` line naming a world rank that does not exist. Each is an error with file and
/// line.
#[test]
fn ranks_outside_a_communicator_are_errors_with_the_line() {
    for (name, text, line, what) in [
        (
            "source.trc",
            "netreplay-trace 3\nranks 4\ncomm 2 0 1\n0 recv 2 0 @2\n",
            4,
            "outside the communicator",
        ),
        (
            "root.trc",
            "netreplay-trace 3\nranks 4\ncomm 2 0 1\n0 bcast 3 8 @2\n1 bcast 3 8 @2\n",
            4,
            "outside the communicator",
        ),
        (
            "counts.trc",
            "netreplay-trace 3\nranks 4\ncomm 2 0 1\n0 alltoallv 1 2 3 @2\n1 alltoallv 1 2 @2\n",
            4,
            "counts",
        ),
        (
            "define.trc",
            "netreplay-trace 3\nranks 4\ncomm 2 0 9\n",
            3,
            "9",
        ),
    ] {
        let e = run_error(name, text);
        assert!(
            e.contains(&format!("{name}:{line}:")) && e.contains(what),
            "{name}: {e}"
        );
    }
}
