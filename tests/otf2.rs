//! The OTF2 importer end to end on the Score-P samples of `traces/otf2/` (copies of
//! `shared/traces/otf2/`, see `traces/README.md`): every sample decodes to the ranks, messages, bytes,
//! self-messages, rank pairs and collective counts its `SUMMARY.txt` gives (made with the reference
//! OTF2 library), and replays to completion on a 64-node fat tree. Bad inputs are positioned errors,
//! and no mutation of a sample's bytes makes the reader panic.

use netreplay::mpi::collectives::Algorithms;
use netreplay::network::NetworkModel;
use netreplay::replay::simulate;
use netreplay::trace::otf2;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/otf2")
        .join(name)
}

/// A copy of sample `name` in a fresh folder of the test target's scratch space.
fn copy(name: &str, tag: &str) -> PathBuf {
    let dst = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("otf2-{}", std::process::id()))
        .join(tag);
    let _ = std::fs::remove_dir_all(&dst);
    copy_dir(&sample(name), &dst);
    dst
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
            let mut perm = std::fs::metadata(&to).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perm.set_readonly(false);
            std::fs::set_permissions(&to, perm).unwrap();
        }
    }
}

/// What a sample's SUMMARY.txt says.
struct Expected {
    name: &'static str,
    ranks: u32,
    messages: u64,
    bytes: u64,
    self_messages: u64,
    pairs: usize,
    /// Some rank pairs: (source, destination, messages, bytes).
    some_pairs: &'static [(u32, u32, u64, u64)],
    /// MpiCollectiveEnd records per operation (handle operations excluded).
    collectives: &'static [(&'static str, u64)],
}

const SAMPLES: &[Expected] = &[
    Expected {
        name: "sst-elements-test_emberotf2",
        ranks: 4,
        messages: 0,
        bytes: 0,
        self_messages: 0,
        pairs: 0,
        some_pairs: &[],
        collectives: &[("bcast", 4)],
    },
    Expected {
        name: "sst-macro-otf2_test_traces",
        ranks: 10,
        messages: 1440,
        bytes: 23_592_600,
        self_messages: 952,
        pairs: 60,
        some_pairs: &[
            (0, 0, 95, 1_572_836),
            (0, 1, 1, 4),
            (4, 0, 11, 122_328),
            (4, 4, 96, 1_572_840),
            (6, 0, 13, 227_192),
            (9, 0, 1, 4),
            (9, 7, 12, 244_664),
        ],
        collectives: &[
            ("allgather", 360),
            ("allreduce", 360),
            ("alltoall", 360),
            ("bcast", 30),
            ("gather", 30),
            ("reduce", 30),
            ("scatter", 30),
        ],
    },
    Expected {
        name: "tracer-stencil4d-32",
        ranks: 32,
        messages: 512,
        bytes: 67_108_864,
        self_messages: 0,
        pairs: 160,
        some_pairs: &[(0, 1, 4, 524_288), (0, 8, 2, 262_144), (31, 30, 4, 524_288)],
        collectives: &[("barrier", 96)],
    },
    Expected {
        name: "tracer-stencil4d-64",
        ranks: 64,
        messages: 1024,
        bytes: 268_435_456,
        self_messages: 0,
        pairs: 0,
        some_pairs: &[],
        collectives: &[("barrier", 192)],
    },
];

#[test]
fn every_sample_decodes_to_the_figures_of_its_summary() {
    for e in SAMPLES {
        let c = otf2::read_calls(&sample(e.name), 1e9)
            .unwrap_or_else(|err| panic!("{}: {err}", e.name));
        let s = c.stats();
        assert_eq!(c.ranks, e.ranks, "{}", e.name);
        assert_eq!(
            (s.messages, s.bytes, s.self_messages),
            (e.messages, e.bytes, e.self_messages),
            "{}",
            e.name
        );
        let colls: Vec<(&str, u64)> = s.collectives.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(colls, e.collectives, "{}", e.name);
        if e.pairs > 0 {
            assert_eq!(s.pairs.len(), e.pairs, "{}", e.name);
        }
        for &(from, to, n, b) in e.some_pairs {
            assert_eq!(
                s.pairs.get(&(from, to)),
                Some(&(n, b)),
                "{} {from}->{to}",
                e.name
            );
        }
        // Every rank sends the same share (the summaries' per-rank lines).
        if e.messages > 0 {
            let per = e.messages / u64::from(e.ranks);
            for r in 0..e.ranks {
                let sent: u64 = s.pairs.range((r, 0)..(r + 1, 0)).map(|(_, v)| v.0).sum();
                assert_eq!(sent, per, "{} rank {r}", e.name);
            }
        }
        assert!(s.computes > 0 && s.compute_cycles > 0, "{}", e.name);
    }
}

#[test]
fn skipped_parts_are_counted() {
    // sst-macro: MPI_Iallgather / MPI_Ialltoall / MPI_Iallreduce, 36 calls each per rank, regions only.
    let c = otf2::read_calls(&sample("sst-macro-otf2_test_traces"), 1e9).unwrap();
    assert_eq!(c.notes.nonblocking_collectives, 1080);
    assert_eq!(c.notes.unfinished_requests + c.notes.unknown_completions, 0);
    // stencil: recording switched off twice per rank.
    let c = otf2::read_calls(&sample("tracer-stencil4d-32"), 1e9).unwrap();
    assert_eq!(c.notes.measurement_off, 64);
}

/// What the reader skips reaches the user: `trace check` (text and JSON) lists it as notes, and a
/// run warns on stderr, also when the trace comes from its cache.
#[test]
fn skipped_parts_are_reported_by_trace_check_and_run() {
    let bin = env!("CARGO_BIN_EXE_netreplay");
    for (name, needle) in [
        (
            "sst-macro-otf2_test_traces",
            "OTF2: 1080 non-blocking collective calls",
        ),
        (
            "tracer-stencil4d-32",
            "OTF2: 64 spans with measurement switched off",
        ),
    ] {
        let path = sample(name);
        let out = std::process::Command::new(bin)
            .args(["trace", "check", "--json"])
            .arg(&path)
            .output()
            .unwrap();
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let notes = j["notes"].as_array().unwrap();
        assert!(
            notes
                .iter()
                .any(|n| n.as_str().unwrap().starts_with(needle)),
            "{name}: {notes:?}"
        );
        let out = std::process::Command::new(bin)
            .args(["trace", "check"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(needle),
            "{name}"
        );
        let cache = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("otf2-notes-{}", std::process::id()))
            .join(name);
        let _ = std::fs::remove_dir_all(&cache);
        for read in ["afresh", "from its cache"] {
            let out = std::process::Command::new(bin)
                .args([
                    "run",
                    "--topology",
                    "fat-tree:k=8,n=2",
                    "--model",
                    "flow",
                    "--workload",
                ])
                .arg(format!(
                    "trace:file={},cache={}",
                    path.display(),
                    cache.display()
                ))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{name}: {err}");
            assert!(err.contains(needle), "{name}, {read}: {err}");
        }
    }
}

/// Every sample replays to completion on a fat tree and a torus, read through the workload spec
/// (format detected from the folder or the anchor file); every message of the program is delivered.
#[test]
fn every_sample_replays_on_a_fat_tree_and_a_torus() {
    let model = NetworkModel {
        phit_bytes: 1 << 12,
        ..NetworkModel::default()
    };
    for e in SAMPLES {
        // Both the folder and the anchor file name the archive.
        for path in [sample(e.name), sample(e.name).join("traces.otf2")] {
            let spec = format!("trace:file={},cache=off", path.display());
            let w = netreplay::workload::build(&spec).unwrap_or_else(|err| panic!("{spec}: {err}"));
            let p = w.generator.generate(e.ranks).unwrap();
            assert_eq!(p.ranks(), e.ranks);
            assert_eq!(p.mpi().protocol, netreplay::program::Protocol::Rendezvous);
            // Point-to-point messages all travel; collectives add their algorithms' messages.
            assert!(p.sends().count() as u64 >= e.messages, "{}", e.name);
            for topology in ["fat-tree:k=4,n=3", "torus:k=8,n=2"] {
                let topo = netreplay::topology::build(topology).unwrap();
                let nodes: Vec<u32> = (0..p.ranks()).collect();
                let o = simulate(topo.as_ref(), &model, &p, &nodes, 1)
                    .unwrap_or_else(|err| panic!("{} on {topology}: {err}", e.name));
                assert!(o.completion_cycles > 0, "{}", e.name);
                let local = p.sends().filter(|s| s.0 == s.1).count() as u64;
                assert_eq!(o.messages + local, p.sends().count() as u64, "{}", e.name);
            }
        }
    }
}

#[test]
fn computation_follows_the_cycles_per_second() {
    let a = otf2::read_calls(&sample("tracer-stencil4d-32"), 1e9)
        .unwrap()
        .stats();
    let b = otf2::read_calls(&sample("tracer-stencil4d-32"), 2e9)
        .unwrap()
        .stats();
    let ratio = b.compute_cycles as f64 / a.compute_cycles as f64;
    assert!((ratio - 2.0).abs() < 1e-3, "{ratio}");
}

#[test]
fn archives_are_recognised_by_their_anchor_file() {
    for e in SAMPLES {
        assert!(otf2::is_otf2(&sample(e.name)), "{}", e.name);
        assert!(otf2::is_otf2(&sample(e.name).join("traces.otf2")));
        assert!(!otf2::is_otf2(&sample(e.name).join("traces.def")));
    }
    assert!(!otf2::is_otf2(&sample("../bt-size1000-16.trc")));
    assert!(!otf2::is_otf2(&sample("../simgrid")));
    let files = otf2::sources(&sample("tracer-stencil4d-32")).unwrap();
    assert_eq!(files.len(), 2 + 2 * 32);
    assert!(files[0].ends_with("traces.otf2") && files[1].ends_with("traces.def"));
    assert!(!otf2::is_otf2(&sample("no-such-archive")));
}

#[test]
fn wrong_magic_is_refused() {
    let dir = copy("sst-elements-test_emberotf2", "magic");
    let anchor = dir.join("traces.otf2");
    let mut b = std::fs::read(&anchor).unwrap();
    b[2] = b'X';
    std::fs::write(&anchor, b).unwrap();
    let e = otf2::read_calls(&dir, 1e9).unwrap_err().to_string();
    assert!(e.contains("traces.otf2: not an OTF2 anchor file"), "{e}");
    // A file of another format read as OTF2 says so too.
    let e = otf2::read_calls(&sample("../bt-size1000-16.trc"), 1e9)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not an OTF2 anchor file"), "{e}");
}

#[test]
fn truncated_event_file_is_a_positioned_error() {
    let dir = copy("sst-macro-otf2_test_traces", "truncated");
    let evt = dir.join("traces/3.evt");
    let b = std::fs::read(&evt).unwrap();
    std::fs::write(&evt, &b[..b.len() / 2]).unwrap();
    let e = otf2::read(&dir, &Algorithms::default(), 1e9)
        .unwrap_err()
        .to_string();
    assert!(e.contains("3.evt (byte ") && e.contains("truncated"), "{e}");
}

#[test]
fn missing_files_are_named() {
    let dir = copy("tracer-stencil4d-32", "missing");
    std::fs::remove_file(dir.join("traces/17.evt")).unwrap();
    let e = otf2::read_calls(&dir, 1e9).unwrap_err().to_string();
    assert!(
        e.contains("17.evt: the event file of location 17 (rank 17) is missing"),
        "{e}"
    );
    std::fs::remove_file(dir.join("traces.def")).unwrap();
    let e = otf2::read_calls(&dir, 1e9).unwrap_err().to_string();
    assert!(e.contains("traces.def"), "{e}");
    let e = otf2::read_calls(&dir.join("traces"), 1e9)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no OTF2 archive here"), "{e}");
}

#[test]
fn a_communicator_used_but_never_defined_is_named() {
    // Rank 3 of sst-macro maps its local communicators 0..3 to global 0, 5, 4, 6 in its local
    // definitions; point local 3 at global 99 instead.
    let dir = copy("sst-macro-otf2_test_traces", "undefined");
    let local = dir.join("traces/3.def");
    let mut b = std::fs::read(&local).unwrap();
    let map = [
        0x05, 0x0b, 0x06, 0x01, 0x04, 0x00, 0x00, 0x01, 0x05, 0x01, 0x04, 0x01, 0x06,
    ];
    let at = b
        .windows(map.len())
        .position(|w| w == map)
        .expect("comm map");
    b[at + map.len() - 1] = 99;
    std::fs::write(&local, b).unwrap();
    let e = otf2::read_calls(&dir, 1e9).unwrap_err().to_string();
    assert!(
        e.contains("3.evt (byte ") && e.contains("communicator 99 is used but never defined"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Changed bytes or a cut in any file of a sample give an error or calls, never a panic.
    #[test]
    fn mutated_samples_never_panic(
        which in 0usize..4,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let dir = copy("sst-elements-test_emberotf2", "proptest");
        let file = dir.join(["traces.otf2", "traces.def", "traces/2.def", "traces/2.evt"][which]);
        let mut b = std::fs::read(&file).unwrap();
        for (i, v) in edits {
            let i = i.index(b.len());
            b[i] = v;
        }
        if let Some(c) = cut {
            let n = c.index(b.len());
            b.truncate(n);
        }
        std::fs::write(&file, &b).unwrap();
        let _ = otf2::read_calls(&dir, 1e9);
        let _ = otf2::read(&dir, &Algorithms::default(), 1e9);
    }
}

/// `trace stats` on an OTF2 archive: the calls of the TraceR 4-D stencil (32 ranks) by kind, with
/// the sample's message and byte counts, and the matching check passes.
#[test]
fn trace_stats_counts_the_calls_of_an_otf2_trace() {
    let e = SAMPLES
        .iter()
        .find(|e| e.name == "tracer-stencil4d-32")
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(["trace", "stats", "--json"])
        .arg(sample(e.name).join("traces.otf2"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["ranks"], e.ranks);
    assert_eq!(j["ok"], true);
    let p2p = j["calls"]["point_to_point"].as_object().unwrap();
    let (calls, bytes) = p2p.values().fold((0, 0), |(c, b), t| {
        (
            c + t["calls"].as_u64().unwrap(),
            b + t["bytes"].as_u64().unwrap(),
        )
    });
    assert_eq!((calls, bytes), (e.messages, e.bytes));
}
