//! The binary cache of parsed traces: reused when its key matches, never stale when the source, the
//! options or the format version change, ignored and rebuilt when corrupt; by default in the user's
//! cache folder, which `.cargo/config.toml` points into the build folder for tests.

use netreplay::program::{Op, Program};
use netreplay::trace::cache::{self, Location};
use netreplay::trace::{self, Format, ReadOptions};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cache")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const TRACE: &str = "netreplay-trace 2\nranks 3\n0 send 1 100\n1 recv 0\n0 allreduce 8\n1 allreduce 8\n2 allreduce 8\n";

fn read(path: &Path, opts: &ReadOptions, loc: &Location) -> Program {
    cache::read(path, opts, loc).unwrap()
}

#[test]
fn a_valid_cache_is_served_and_a_changed_source_is_not_stale() {
    let dir = scratch("beside");
    let t = dir.join("app.trc");
    std::fs::write(&t, TRACE).unwrap();
    let opts = ReadOptions::default();
    let first = read(&t, &opts, &Location::Beside);
    let cache_file = dir.join(".app.trc.nrcache");
    assert!(
        cache_file.is_file(),
        "the cache is written beside the trace"
    );
    assert_eq!(read(&t, &opts, &Location::Beside), first);

    // A cache under the right key is served without parsing: plant a different program under it.
    let key = cache::key(&t, Format::NATIVE, &opts).unwrap();
    let planted = Program::from_fn(2, |r, ops| {
        if r == 0 {
            ops.push(Op::Compute { cycles: 5 })
        }
    });
    std::fs::write(&cache_file, cache::encode(&planted, key)).unwrap();
    assert_eq!(read(&t, &opts, &Location::Beside), planted);

    // A changed source (same length, one digit) is read afresh and the cache rewritten.
    std::fs::write(&t, TRACE.replace("send 1 100", "send 1 900")).unwrap();
    let changed = read(&t, &opts, &Location::Beside);
    assert_eq!(changed.sends().next().unwrap().2, 900);
    let new_key = cache::key(&t, Format::NATIVE, &opts).unwrap();
    assert_ne!(new_key, key);
    assert_eq!(
        cache::decode(&std::fs::read(&cache_file).unwrap(), new_key),
        Some(changed.clone())
    );

    // Other options (another allreduce algorithm) are another key.
    let mut ring = ReadOptions::default();
    ring.algorithms.set("allreduce", "ring").unwrap();
    let with_ring = read(&t, &ring, &Location::Beside);
    assert_ne!(with_ring, changed);
    assert_eq!(with_ring, trace::read_any(&t, &ring).unwrap());
}

#[test]
fn a_corrupt_or_other_version_cache_is_ignored_and_rebuilt() {
    let dir = scratch("corrupt");
    let t = dir.join("app.trc");
    std::fs::write(&t, TRACE).unwrap();
    let opts = ReadOptions::default();
    let truth = trace::read_any(&t, &opts).unwrap();
    let cache_file = dir.join(".app.trc.nrcache");
    let key = cache::key(&t, Format::NATIVE, &opts).unwrap();
    let good = cache::encode(&truth, key);
    let mut other_version = good.clone();
    other_version[12..16].copy_from_slice(&1u32.to_le_bytes());
    let mut flipped = good.clone();
    *flipped.last_mut().unwrap() ^= 0x40;
    for bad in [
        b"garbage".to_vec(),
        Vec::new(),
        good[..good.len() / 2].to_vec(),
        other_version,
        flipped,
    ] {
        std::fs::write(&cache_file, &bad).unwrap();
        assert_eq!(read(&t, &opts, &Location::Beside), truth);
        assert_eq!(
            std::fs::read(&cache_file).unwrap(),
            good,
            "the cache is rebuilt"
        );
    }
}

#[test]
fn cache_folder_off_and_simgrid_per_rank_files() {
    let dir = scratch("folder");
    let t = dir.join("app.trc");
    std::fs::write(&t, TRACE).unwrap();
    let store = dir.join("store");
    let opts = ReadOptions::default();
    read(&t, &opts, &Location::Dir(store.clone()));
    assert_eq!(std::fs::read_dir(&store).unwrap().count(), 1);
    assert!(!dir.join(".app.trc.nrcache").exists());
    read(&t, &opts, &Location::Off);
    assert!(!dir.join(".app.trc.nrcache").exists());

    // A SimGrid index is keyed on its per-rank files too: changing one is not served stale.
    std::fs::write(dir.join("r0.txt"), "0 init\n0 send 1 0 10\n").unwrap();
    std::fs::write(dir.join("r1.txt"), "1 init\n1 recv 0 0 10\n").unwrap();
    let idx = dir.join("index.txt");
    std::fs::write(&idx, "r0.txt\nr1.txt\n").unwrap();
    let a = read(&idx, &opts, &Location::Beside);
    assert_eq!(a.sends().next().unwrap().2, 10);
    std::fs::write(dir.join("r0.txt"), "0 init\n0 send 1 0 77\n").unwrap();
    let b = read(&idx, &opts, &Location::Beside);
    assert_eq!(b.sends().next().unwrap().2, 77);
}

/// The default cache goes to `$XDG_CACHE_HOME/netreplay`, which `.cargo/config.toml` points into the
/// build folder for every test: no test writes into the user's own cache.
#[test]
fn default_cache_is_the_users_folder_and_same_names_do_not_collide() {
    let xdg = PathBuf::from(std::env::var_os("XDG_CACHE_HOME").expect("set by .cargo/config.toml"));
    assert!(
        xdg.starts_with(env!("CARGO_MANIFEST_DIR")),
        "tests must not use the user's cache: XDG_CACHE_HOME = {}",
        xdg.display()
    );
    let store = xdg.join("netreplay");
    let dir = scratch("user");
    let opts = ReadOptions::default();
    let mut files = Vec::new();
    for (sub, bytes) in [("a", 100), ("b", 900)] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        let t = dir.join(sub).join("same-name.trc");
        std::fs::write(&t, TRACE.replace("send 1 100", &format!("send 1 {bytes}"))).unwrap();
        // The store outlives a run: start without the cache an earlier run planted below.
        let _ = std::fs::remove_file(cache::path_for(&t, &Location::User).unwrap());
        let p = read(&t, &opts, &Location::User);
        assert_eq!(p.sends().next().unwrap().2, bytes);
        let file = cache::path_for(&t, &Location::User).unwrap();
        assert_eq!(file.parent(), Some(store.as_path()));
        assert!(file.is_file(), "{} written", file.display());
        assert!(!dir.join(sub).join(".same-name.trc.nrcache").exists());
        files.push(file);
    }
    assert_ne!(files[0], files[1], "one cache per trace, not per name");
    // Each is served from its own cache: plant a program under the second one's key.
    let t = dir.join("b").join("same-name.trc");
    let key = cache::key(&t, Format::NATIVE, &opts).unwrap();
    let planted = Program::from_fn(2, |r, ops| {
        if r == 1 {
            ops.push(Op::Compute { cycles: 9 })
        }
    });
    std::fs::write(&files[1], cache::encode(&planted, key)).unwrap();
    assert_eq!(read(&t, &opts, &Location::User), planted);
    assert_eq!(
        read(&dir.join("a").join("same-name.trc"), &opts, &Location::User)
            .sends()
            .next()
            .unwrap()
            .2,
        100
    );
}

/// A run of the binary: `HOME` is the fallback when `XDG_CACHE_HOME` is unset, and with neither the
/// run still works, with a one-line notice and no cache anywhere.
#[test]
fn home_fallback_and_no_cache_with_a_notice() {
    let dir = scratch("home");
    let t = dir.join("app.trc");
    std::fs::write(&t, TRACE).unwrap();
    let spec = format!("trace:file={}", t.display());
    let run = |home: Option<&Path>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_netreplay"));
        cmd.args(["run", "--topology", "fat-tree:k=4,n=2", "--workload", &spec])
            .env_remove("XDG_CACHE_HOME")
            .env_remove("HOME")
            .env_remove("RUST_LOG");
        if let Some(h) = home {
            cmd.env("HOME", h);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let home = dir.join("home");
    let err = run(Some(&home));
    assert!(!err.contains("no trace cache"), "{err}");
    let store = home.join(".cache").join("netreplay");
    assert_eq!(std::fs::read_dir(&store).unwrap().count(), 1);
    let err = run(None);
    let notices: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("no trace cache"))
        .collect();
    assert_eq!(notices.len(), 1, "{err}");
    assert!(!dir.join(".app.trc.nrcache").exists());
    assert_eq!(std::fs::read_dir(&store).unwrap().count(), 1);
}
