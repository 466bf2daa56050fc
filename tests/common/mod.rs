//! Helpers test files share: scratch files, hand-written native traces, open-loop points.
#![allow(dead_code)] // each test file uses its own subset

pub mod browser;
pub mod timeline;

use netreplay::mpi::collectives::Algorithms;
use netreplay::program::Program;
use netreplay::trace::{self, ReadOptions};
use std::path::PathBuf;

/// `name` in this test binary's own scratch folder (`tag`) of the test target.
pub fn scratch(tag: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Writes `text` as trace `name` under `tag` and reads it with `algorithms`.
pub fn native_with(tag: &str, name: &str, text: &str, algorithms: Algorithms) -> Program {
    let path = scratch(tag, name);
    std::fs::write(&path, text).unwrap();
    let opts = ReadOptions {
        algorithms,
        ..ReadOptions::default()
    };
    trace::read_any(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Writes `text` as trace `name` under `tag` and returns the reader's error.
pub fn native_error(tag: &str, name: &str, text: &str) -> String {
    let path = scratch(tag, name);
    std::fs::write(&path, text).unwrap();
    trace::read(&path).unwrap_err().to_string()
}

/// One open-loop point of `pattern` traffic on topology `spec` under `model` with `params`.
pub fn point(
    spec: &str,
    pattern: &str,
    model: &netreplay::network::NetworkModel,
    params: &netreplay::network::OpenLoopParams,
    seed: u64,
) -> netreplay::network::LoadPoint {
    let t = netreplay::topology::build(spec).unwrap();
    let dest = netreplay::traffic::build(pattern)
        .unwrap()
        .bind(t.nodes(), 1)
        .unwrap();
    netreplay::network::Network::new(t.as_ref(), model)
        .and_then(|n| n.open_loop(&dest, params, seed))
        .unwrap()
}

/// One open-loop point of `pattern` traffic at `load` on topology `spec` under `model` (default
/// 10,000-cycle window).
pub fn open_loop_point(
    spec: &str,
    pattern: &str,
    model: &netreplay::network::NetworkModel,
    load: f64,
    seed: u64,
) -> netreplay::network::LoadPoint {
    let params = netreplay::network::OpenLoopParams {
        load,
        ..netreplay::network::OpenLoopParams::default()
    };
    point(spec, pattern, model, &params, seed)
}

/// One open-loop point of `pattern` at `load` under the default model with `routing`, measured over a
/// short 5,000-cycle window (the routing comparisons).
pub fn routed_point(
    spec: &str,
    pattern: &str,
    load: f64,
    routing: &str,
) -> netreplay::network::LoadPoint {
    let model = netreplay::network::NetworkModel {
        routing: netreplay::network::Routing::parse(routing).unwrap(),
        ..netreplay::network::NetworkModel::default()
    };
    let params = netreplay::network::OpenLoopParams {
        load,
        measure_cycles: 5_000,
        ..netreplay::network::OpenLoopParams::default()
    };
    point(spec, pattern, &model, &params, 1)
}

/// One message of `bytes` from rank 0 on node `src` to rank 1 on node `dst` of topology `spec`,
/// under `model` (owned or borrowed).
pub fn one_message(
    spec: &str,
    src: u32,
    dst: u32,
    bytes: u64,
    model: impl std::borrow::Borrow<netreplay::network::NetworkModel>,
) -> netreplay::network::Outcome {
    use netreplay::program::Op;
    let topo = netreplay::topology::build(spec).unwrap();
    let program = Program::from_fn(2, |r, ops| {
        ops.push(if r == 0 {
            Op::Send {
                to: 1,
                bytes,
                tag: 0,
            }
        } else {
            Op::Recv { from: 0, tag: 0 }
        })
    });
    netreplay::replay::simulate(topo.as_ref(), model.borrow(), &program, &[src, dst], 1).unwrap()
}

/// Runs the `netreplay` binary with `args` to its end.
pub fn netreplay(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The stderr of a `netreplay` command that must fail without a panic, checked for every `needle`.
pub fn rejects(args: &[&str], needles: &[&str]) -> String {
    let out = netreplay(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for needle in needles {
        assert!(
            err.contains(needle),
            "{args:?}: `{needle}` missing from: {err}"
        );
    }
    err
}

/// A two-candidate campaign config `c.toml` in `dir` (fat trees of 16 nodes, `bu` at size 10):
/// `head` lines first, `extra` at the end; its path.
pub fn campaign_config(dir: &std::path::Path, head: &str, extra: &str) -> String {
    let path = dir.join("c.toml");
    std::fs::write(
        &path,
        format!(
            "{head}\nreference = \"a\"\nsizes = [10]\nworkloads = [\"bu\"]\n\
             [[candidate]]\nlabel = \"a\"\ntopology = \"fat-tree:k=4,n=2\"\n\
             [[candidate]]\nlabel = \"b\"\ntopology = \"fat-tree:k=2,n=4\"\n{extra}"
        ),
    )
    .unwrap();
    path.display().to_string()
}

/// A fresh, empty scratch directory `name` in this test binary's folder `tag`.
pub fn fresh_dir(tag: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(tag)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Waits for `child` at most `seconds` (a hang guard, not a timing), killing it past that; its
/// output, and whether it ended by itself.
pub fn wait_guarded(mut child: std::process::Child, seconds: u64) -> (std::process::Output, bool) {
    let start = std::time::Instant::now();
    let mut ended = true;
    while child.try_wait().expect("waitable").is_none() {
        if start.elapsed().as_secs() >= seconds {
            let _ = child.kill();
            ended = false;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    (child.wait_with_output().expect("waitable"), ended)
}

/// Runs the netreplay binary with `args` under `sh` with `ulimit -v KB` (an address-space bound; 0:
/// none), killed after `guard` seconds: a generous hang guard, not a timing. Returns the exit code
/// (`None`: killed by a signal, or the guard fired) and stderr.
pub fn netreplay_bounded(args: &[&str], kb: u64, guard: u64) -> (Option<i32>, String) {
    let limit = if kb > 0 {
        format!("ulimit -v {kb}; ")
    } else {
        String::new()
    };
    let child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{limit}exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_netreplay"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sh runs");
    let (out, ended) = wait_guarded(child, guard);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    if ended {
        (out.status.code(), err)
    } else {
        (None, format!("still running after {guard} s (hung): {err}"))
    }
}

/// Copies the folder `from` (files only, recursively) to `to`, replacing what is there.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// Replays `p` on topology `spec` under the default model, rank r on node r, checking every phit
/// injected is delivered; returns (messages, completion cycles).
pub fn replay_on(spec: &str, p: &Program) -> (u64, u64) {
    let topo = netreplay::topology::build(spec).unwrap();
    let nodes: Vec<u32> = (0..p.ranks()).collect();
    let o = netreplay::replay::simulate(
        topo.as_ref(),
        &netreplay::network::NetworkModel::default(),
        p,
        &nodes,
        1,
    )
    .unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert_eq!(o.phits_injected, o.phits_delivered);
    (o.messages, o.completion_cycles)
}
