//! The binary cache of parsed traces: reused when its key matches, never stale when the source, the
//! options or the format version change, ignored and rebuilt when corrupt.

use netreplay::trace::cache::{self, Location};
use netreplay::trace::{self, Format, ReadOptions};
use netreplay::workload::{Op, Program};
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
