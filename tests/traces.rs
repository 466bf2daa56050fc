//! Traces end to end: every generator written as a trace (plain and zstd) reads back as the same
//! program and replays through the binary with the same completion time; zstd is recognised by its
//! magic bytes; truncated or malformed traces are clear errors with their position; a receive nobody
//! sends reports the blocked rank.

use netreplay::error::Error;
use netreplay::program::Program;
use netreplay::trace;
use netreplay::workload::REGISTRY;
use std::path::PathBuf;

mod common;
use common::netreplay;

const PATTERNS: [&str; 7] = ["2w", "3w", "2m", "3m", "bu", "bt", "wf"];

/// The 64-node network every replay here runs on (64 = 8^2 = 4^3 = 2^6 suits every pattern).
const TOPOLOGY: &str = "fat-tree:k=4,n=3";

/// A fresh path in this test target's scratch folder.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("traces");
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn generate(spec: &str, ranks: u32) -> Program {
    REGISTRY
        .build_str(spec)
        .unwrap()
        .generate(ranks)
        .unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// `run --json` of `workload` on [`TOPOLOGY`].
fn run_json(workload: &str) -> serde_json::Value {
    let out = netreplay(&[
        "run",
        "--topology",
        TOPOLOGY,
        "--workload",
        workload,
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{workload}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// The stderr of a run that must fail without a panic.
fn run_error(workload: &str) -> String {
    let out = netreplay(&["run", "--topology", TOPOLOGY, "--workload", workload]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{workload} should fail");
    assert!(!err.contains("panicked"), "{workload} panicked: {err}");
    assert!(out.stdout.is_empty(), "{workload} printed a partial result");
    err
}

fn path_str(p: &std::path::Path) -> &str {
    p.to_str().expect("scratch paths are UTF-8")
}

#[test]
fn every_generator_round_trips_and_replays_with_the_same_completion_time() {
    for (name, size) in PATTERNS.iter().flat_map(|n| [(n, 10), (n, 1000)]) {
        let spec = format!("{name}:size={size}");
        let program = generate(&spec, 64);
        let plain = scratch(&format!("{name}-{size}.trc"));
        trace::write(&program, &plain).unwrap();
        assert_eq!(trace::read(&plain).unwrap(), program, "{name} plain");
        assert!(
            std::fs::read_to_string(&plain)
                .unwrap()
                .starts_with("netreplay-trace 3\nranks 64\n")
        );

        // The compressed one through the `generate` command.
        let zst = scratch(&format!("{name}-{size}.trc.zst"));
        let out = netreplay(&["generate", &spec, "--ranks", "64", "--out", path_str(&zst)]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&zst).unwrap();
        assert_eq!(bytes[..4], trace::ZSTD_MAGIC, "{name}: not compressed");
        assert_eq!(trace::read(&zst).unwrap(), program, "{name} zst");

        let direct = run_json(&format!("{spec},ranks=64"));
        assert!(direct["completion_cycles"].as_u64().unwrap() > 0, "{name}");
        for file in [&plain, &zst] {
            let replay = run_json(&format!("trace:file={}", path_str(file)));
            for field in [
                "completion_cycles",
                "messages",
                "packets",
                "phit_hops",
                "ranks",
            ] {
                assert_eq!(replay[field], direct[field], "{name} {field} via {file:?}");
            }
        }
    }
}

#[test]
fn a_trace_replays_on_its_own_rank_count_and_refuses_another() {
    let path = scratch("bt16.trc");
    trace::write(&generate("bt:size=1000", 16), &path).unwrap();
    let file = format!("trace:file={}", path_str(&path));
    let v = run_json(&file);
    assert_eq!(v["ranks"], 16);
    assert_eq!(v["nodes"], 64);
    let direct = run_json("bt:size=1000,ranks=16");
    assert_eq!(v["completion_cycles"], direct["completion_cycles"]);
    let err = run_error(&format!("{file},ranks=32"));
    assert!(
        err.contains("has 16 ranks but the run asks for 32"),
        "{err}"
    );
}

#[test]
fn zstd_is_recognised_by_its_magic_bytes_not_the_name() {
    let program = generate("bu:size=100", 16);
    let zst = scratch("magic.zst");
    trace::write(&program, &zst).unwrap();
    let renamed = scratch("compressed-but-named.trc");
    std::fs::copy(&zst, &renamed).unwrap();
    assert_eq!(trace::read(&renamed).unwrap(), program);
    // And a plain trace named .zst is read as text.
    let plain = scratch("plain.trc");
    trace::write(&program, &plain).unwrap();
    let misnamed = scratch("plain-but-named.zst");
    std::fs::copy(&plain, &misnamed).unwrap();
    assert_eq!(trace::read(&misnamed).unwrap(), program);
}

#[test]
fn a_truncated_zstd_trace_is_an_error_naming_the_file() {
    let zst = scratch("full.trc.zst");
    trace::write(&generate("3m:size=1000", 64), &zst).unwrap();
    let bytes = std::fs::read(&zst).unwrap();
    let cut = scratch("cut.trc.zst");
    let name = path_str(&cut).to_string();
    for len in [4, 5, 10, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        let e = trace::read(&cut).expect_err("a truncated trace must not read");
        let msg = e.to_string();
        assert!(msg.contains(&name), "{len}: {msg}");
        assert!(
            msg.contains("truncated or corrupt") || matches!(e, Error::File { .. }),
            "{len}: {msg}"
        );
    }
    let err = run_error(&format!("trace:file={name}"));
    assert!(err.contains("truncated or corrupt"), "{err}");
}

/// A written zstd trace carries zstd's content checksum, so a single flipped bit is refused (or, in
/// the few header bits that do not change the content, reads the same program), never read as other
/// message sizes.
#[test]
fn a_flipped_bit_in_a_written_zstd_trace_is_refused() {
    let zst = scratch("flip.trc.zst");
    let program = generate("bu:size=1000", 4);
    trace::write(&program, &zst).unwrap();
    let bytes = std::fs::read(&zst).unwrap();
    // The frame header descriptor's Content_Checksum_flag (RFC 8878, 3.1.1.1.1).
    assert_ne!(
        bytes[4] & 0x04,
        0,
        "no content checksum in the frame header"
    );
    let flipped = scratch("flipped.trc.zst");
    let mut refused = 0;
    for i in 4..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            std::fs::write(&flipped, &b).unwrap();
            match trace::read(&flipped) {
                Err(_) => refused += 1,
                Ok(p) => assert_eq!(p, program, "bit {bit} of byte {i} read as another program"),
            }
        }
    }
    assert!(
        refused > 7 * (bytes.len() - 4),
        "{refused} of {} flips refused",
        8 * (bytes.len() - 4)
    );
    // Through the binary, a flip in the compressed data is an error naming the file.
    let mut b = bytes.clone();
    b[bytes.len() / 2] ^= 0x10;
    std::fs::write(&flipped, &b).unwrap();
    let out = netreplay(&["trace", "check", path_str(&flipped)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a corrupt trace was accepted");
    assert!(err.contains(path_str(&flipped)), "{err}");
}

#[test]
fn malformed_traces_report_file_line_and_column() {
    let path = scratch("bad.trc");
    std::fs::write(
        &path,
        "netreplay-trace 1\n# ping\nranks 8\n\n0 send 1 64\n1 sned 0 64\n",
    )
    .unwrap();
    let err = run_error(&format!("trace:file={}", path_str(&path)));
    let want = format!(
        "{}:6:3: expected an event (`send`, `recv`, `compute`, `isend`",
        path_str(&path)
    );
    assert!(err.contains(&want), "{err}");

    std::fs::write(&path, "netreplay-trace 1\nranks 8\n0 recv 9\n").unwrap();
    let err = run_error(&format!("trace:file={}", path_str(&path)));
    assert!(err.contains(":3:8: rank 9 out of range 0..8"), "{err}");

    std::fs::write(&path, "netreplay-trace 5\nranks 8\n").unwrap();
    let err = run_error(&format!("trace:file={}", path_str(&path)));
    assert!(err.contains(":1:17: unsupported version 5"), "{err}");

    let err = run_error("trace:file=/nonexistent/trace.trc");
    assert!(err.contains("/nonexistent/trace.trc"), "{err}");
}

#[test]
fn a_receive_nobody_sends_reports_the_blocked_rank() {
    let path = scratch("orphan.trc");
    std::fs::write(
        &path,
        "netreplay-trace 1\nranks 4\n0 send 1 64\n1 recv 0\n3 recv 2 7  # never sent\n",
    )
    .unwrap();
    // Refused before simulating, as `trace check` refuses it (a run would wait forever).
    let err = run_error(&format!("trace:file={}", path_str(&path)));
    assert!(
        err.contains("cannot complete") && err.contains("at rank 3 from rank 2 tag 7 have no send"),
        "{err}"
    );
}

#[test]
fn generate_refuses_bad_requests_cleanly() {
    let out_path = scratch("never.trc");
    for (args, needle) in [
        (vec!["bu", "--ranks", "12"], "power-of-two"),
        (vec!["bu:ranks=8", "--ranks", "16"], "give the count once"),
        (vec!["nope", "--ranks", "16"], "unknown workload"),
    ] {
        let mut a = vec!["generate"];
        a.extend(args.iter().copied());
        a.extend(["--out", path_str(&out_path)]);
        let out = netreplay(&a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{a:?}");
        assert!(err.contains(needle), "{a:?}: {err}");
        assert!(!out_path.exists(), "{a:?} left a file");
    }
}

#[test]
fn the_sample_trace_is_bt_on_16_ranks() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/bt-size1000-16.trc");
    let program = trace::read(std::path::Path::new(sample)).unwrap();
    assert_eq!(program, generate("bt:size=1000", 16));
}

#[test]
fn a_wait_nobody_completes_reports_the_blocked_rank() {
    let path = scratch("orphan-wait.trc");
    std::fs::write(
        &path,
        "netreplay-trace 2\nranks 4\n0 isend 1 64 0\n1 irecv 0 0\n1 irecv 2 5 1\n1 waitall\n",
    )
    .unwrap();
    let err = run_error(&format!("trace:file={}", path_str(&path)));
    assert!(
        err.contains("cannot complete") && err.contains("at rank 1 from rank 2 tag 5 have no send"),
        "{err}"
    );
}

/// Non-blocking receives overlap computation: with the default model a 64-byte message inside one
/// leaf switch takes 2 + 16 = 18 cycles. Rank 1 posts its irecv, computes 100 cycles, then waits: the
/// message arrived long before, so the run ends at 100. With a blocking recv before the compute it
/// would end at 18 + 100 = 118.
#[test]
fn irecv_overlaps_computation_exactly() {
    let overlapped = "netreplay-trace 2\nranks 2\n0 isend 1 64 9 0\n0 wait 0\n\
                      1 irecv 0 9 3\n1 compute 100\n1 wait 3\n";
    let serial = "netreplay-trace 2\nranks 2\n0 send 1 64 9\n1 recv 0 9\n1 compute 100\n";
    let topo = netreplay::topology::build(TOPOLOGY).unwrap();
    let model = netreplay::network::NetworkModel::default();
    for (text, cycles) in [(overlapped, 100), (serial, 118)] {
        let p = trace::parser::parse("t", text.as_bytes()).unwrap();
        let o = netreplay::replay::simulate(topo.as_ref(), &model, &p, &[0, 1], 1).unwrap();
        assert_eq!(o.completion_cycles, cycles, "{text}");
        assert_eq!(o.messages, 1);
    }
}

/// Every collective, in a 6-rank trace (not a power of two) with every algorithm choice, replays
/// with the message count its algorithms give.
#[test]
fn collectives_in_a_trace_replay_with_their_message_counts() {
    let n = 6u32;
    let mut text = String::from("netreplay-trace 2\nranks 6\n");
    for r in 0..n {
        for line in [
            "barrier",
            "bcast 2 1000",
            "reduce 5 1000",
            "allreduce 600",
            "gather 0 100",
            "allgather 100",
            "alltoall 100",
            "scatter 3 100",
        ] {
            text.push_str(&format!("{r} {line}\n"));
        }
    }
    let path = scratch("collectives6.trc");
    std::fs::write(&path, &text).unwrap();
    // select=fixed: dissemination 3 rounds x 6 = 18; bcast, reduce, gather, scatter 5 each;
    // recursive doubling allreduce and allgather 2 + 2x4 + 2 = 12 each; alltoall 30.
    let fixed_msgs = 18 + 5 * 4 + 12 * 2 + 30;
    // tree barrier 10; ring allreduce 2 x 6 x 5 = 60; ring allgather 30.
    let ring_msgs = 10 + 5 * 4 + 60 + 30 + 30;
    // MPICH's selection (traces/FORMAT.md): the same but for allgather, whose 600 B total on 6 ranks
    // (not a power of two, below 524288 B) runs Bruck's algorithm: ceil(log2 6) = 3 rounds x 6 = 18.
    let mpich_msgs = 18 + 5 * 4 + 12 + 18 + 30;
    for (extra, msgs) in [
        ("", mpich_msgs),
        (",select=fixed", fixed_msgs),
        (
            ",select=fixed,allreduce=ring,allgather=ring,barrier=tree",
            ring_msgs,
        ),
    ] {
        let spec = format!("trace:file={}{extra}", path_str(&path));
        assert_eq!(run_json(&spec)["messages"], msgs, "{spec}");
    }
}

/// `generate --format trc` writes INSEE/FSIN traces that replay like the generator, and `trace check`
/// summarises a trace and fails (exit 1) on one that cannot complete.
#[test]
fn fsin_output_round_trips_and_trace_check_reports() {
    let dir = std::env::temp_dir().join(format!("netreplay-fsin-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = env!("CARGO_BIN_EXE_netreplay");
    let run = |args: &[&str]| std::process::Command::new(bin).args(args).output().unwrap();
    let trc = dir.join("wf.trc");
    let out = run(&[
        "generate",
        "wf:size=1000",
        "--ranks",
        "64",
        "--out",
        trc.to_str().unwrap(),
        "--format",
        "trc",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&trc).unwrap();
    assert!(
        text.starts_with("r ") || text.starts_with("s "),
        "{}",
        &text[..40]
    );
    let cycles = |workload: &str| -> serde_json::Value {
        let out = run(&[
            "run",
            "--topology",
            "fat-tree:k=4,n=3",
            "--workload",
            workload,
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["completion_cycles"].clone()
    };
    assert_eq!(
        cycles(&format!("trace:file={}", trc.display())),
        cycles("wf:size=1000")
    );

    let out = run(&["trace", "check", trc.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (c["ranks"].as_u64(), c["ok"].as_bool()),
        (Some(64), Some(true))
    );

    let broken = dir.join("broken.trace");
    std::fs::write(
        &broken,
        "netreplay-trace 1\nranks 3\n0 send 1 64\n1 recv 0\n2 recv 0 5\n",
    )
    .unwrap();
    let out = run(&["trace", "stats", broken.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("cannot complete") && err.contains("rank 2 from rank 0 tag 5"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 unmatched receives"));

    let out = run(&[
        "generate",
        "bu",
        "--ranks",
        "4",
        "--out",
        dir.join("x").to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(
        !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("native and trc")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
