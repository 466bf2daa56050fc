//! Converting a trace with `generate trace:file=...` keeps what its replay depends on: the MPI model
//! its format replays under (a SimGrid trace's rendezvous protocol) is recorded in the native file's
//! `mpi` line, so the written trace, plain or zstd, read afresh or from its cache, replays with its
//! source's completion time; a format that cannot record the model is refused when it would replay
//! differently.

use std::process::Output;

mod common;
use common::{fresh_dir, netreplay};

/// A SimGrid time-independent trace whose one message (200,000 bytes) is above MPICH's eager limit:
/// rank 1 posts its receive 10,000 cycles late, so the rendezvous send waits for it.
const SIMGRID_RENDEZVOUS: &str = "0 init\n0 send 1 0 200000\n0 compute 1\n1 init\n1 compute 10000\n\
                                  1 recv 0 0 200000\n";

const TOPOLOGY: &str = "fat-tree:k=4,n=2";

fn ok(out: &Output) -> &Output {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// (completion cycles, rendezvous messages) of `run --json` on `workload`.
fn replay(workload: &str) -> (u64, u64) {
    let out = netreplay(&[
        "run",
        "--topology",
        TOPOLOGY,
        "--workload",
        workload,
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&ok(&out).stdout).unwrap();
    (
        v["completion_cycles"].as_u64().unwrap(),
        v["mpi"]["rendezvous_messages"].as_u64().unwrap(),
    )
}

#[test]
fn a_converted_simgrid_trace_replays_with_its_sources_completion_time() {
    let dir = fresh_dir("trace-conversion", "simgrid");
    let source = dir.join("rdv.txt");
    std::fs::write(&source, SIMGRID_RENDEZVOUS).unwrap();
    let cache = dir.join("cache");
    let spec = |file: &std::path::Path, extra: &str| {
        format!(
            "trace:file={},cache={}{extra}",
            file.display(),
            cache.display()
        )
    };
    let want = replay(&spec(&source, ""));
    assert_eq!(
        want.1, 1,
        "the source's message goes through the rendezvous"
    );
    for name in ["rdv.trc", "rdv.trc.zst"] {
        let out = dir.join(name);
        ok(&netreplay(&[
            "generate",
            &format!("trace:file={}", source.display()),
            "--ranks",
            "2",
            "--out",
            out.to_str().unwrap(),
        ]));
        // Read afresh (writing its cache), then from its cache.
        assert_eq!(replay(&spec(&out, "")), want, "{name}");
        assert_eq!(replay(&spec(&out, "")), want, "{name} from its cache");
        // The spec's keys still override what the file records.
        let eager = replay(&spec(&out, ",protocol=eager"));
        assert_eq!(eager, replay(&spec(&source, ",protocol=eager")), "{name}");
        assert_eq!(eager.1, 0);
        assert!(eager.0 < want.0, "{eager:?} {want:?}");
    }
    let text = std::fs::read_to_string(dir.join("rdv.trc")).unwrap();
    assert!(
        text.starts_with(
            "netreplay-trace 4\nranks 2\nmpi protocol=rendezvous eager_threshold=131072"
        ),
        "{text}"
    );
}

#[test]
fn a_format_that_cannot_record_the_model_is_refused_when_it_would_replay_differently() {
    let dir = fresh_dir("trace-conversion", "fsin");
    let source = dir.join("rdv.txt");
    std::fs::write(&source, SIMGRID_RENDEZVOUS).unwrap();
    let trc = dir.join("rdv.trc");
    let generate = |extra: &str| {
        netreplay(&[
            "generate",
            &format!("trace:file={}{extra}", source.display()),
            "--ranks",
            "2",
            "--out",
            trc.to_str().unwrap(),
            "--format",
            "trc",
        ])
    };
    let out = generate("");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !trc.exists());
    assert!(
        err.contains("cannot record the MPI model") && err.contains("protocol=rendezvous"),
        "{err}"
    );
    // Under FSIN's own eager model it is written, and replays as the source under that model.
    ok(&generate(",protocol=eager"));
    assert_eq!(
        replay(&format!("trace:file={},cache=off", trc.display())),
        replay(&format!(
            "trace:file={},cache=off,protocol=eager",
            source.display()
        ))
    );
    // A small message replays alike under either model, so nothing is refused.
    std::fs::write(&source, SIMGRID_RENDEZVOUS.replace("200000", "2000")).unwrap();
    ok(&generate(""));
}
