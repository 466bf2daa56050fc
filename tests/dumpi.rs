//! The DUMPI reader end to end on the samples in `traces/dumpi/` (copies of `shared/traces/dumpi/`, see
//! `traces/README.md`): every figure of each sample's `SUMMARY.txt` (ranks, point-to-point messages and
//! bytes, collectives per rank and their volumes, MPI calls by function and in total) is reproduced,
//! every sample replays on a fat tree and a torus, the NPB kernels agree with their SimGrid traces,
//! and corrupt copies are positioned errors.

use netreplay::mpi::Call;
use netreplay::mpi::call::Collective;
use netreplay::mpi::collectives::Algorithms;
use netreplay::network::NetworkModel;
use netreplay::program::MpiModel;
use netreplay::program::Program;
use netreplay::replay::simulate;
use netreplay::trace::dumpi;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/dumpi")
        .join(rel)
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("dumpi")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a sample's SUMMARY.txt says an importer must reproduce.
struct Summary {
    dir: &'static str,
    ranks: u32,
    /// Point-to-point messages and bytes (all send calls).
    messages: u64,
    bytes: u64,
    /// Collective calls per rank, by name (the same on every rank).
    collectives: &'static [(&'static str, u64)],
    /// Collective volume summed over every call of every rank, in SUMMARY's terms.
    volumes: &'static [(&'static str, u64)],
    /// MPI calls in all, and a few functions' counts.
    calls: u64,
    functions: &'static [(&'static str, u64)],
}

const SAMPLES: [Summary; 4] = [
    Summary {
        dir: "sst-dumpi-tests",
        ranks: 4,
        messages: 4,
        bytes: 16,
        collectives: &[("allreduce", 1), ("barrier", 1)],
        volumes: &[("allreduce", 16)],
        calls: 36,
        functions: &[
            ("MPI_Isend", 4),
            ("MPI_Recv", 4),
            ("MPI_Wait", 4),
            ("MPI_Init", 4),
        ],
    },
    Summary {
        dir: "sst-macro-testbgp",
        ranks: 7,
        messages: 588,
        bytes: 418_656,
        collectives: &[("alltoall", 7), ("barrier", 3)],
        volumes: &[("alltoall", 244_216)],
        calls: 1589,
        functions: &[
            ("MPI_Irecv", 588),
            ("MPI_Waitall", 98),
            ("MPI_Comm_rank", 203),
            ("MPI_Comm_create", 7),
            ("MPI_Group_incl", 7),
        ],
    },
    Summary {
        dir: "npb3.3-mpich/is.S.16",
        ranks: 16,
        messages: 15,
        bytes: 60,
        collectives: &[
            ("allreduce", 11),
            ("alltoall", 11),
            ("alltoallv", 11),
            ("reduce", 2),
            ("bcast", 1),
        ],
        volumes: &[
            ("allreduce", 363_968),
            ("alltoall", 11_264),
            ("alltoallv", 2_883_584),
            ("bcast", 64),
            ("reduce", 192),
        ],
        calls: 717,
        functions: &[("MPI_Irecv", 15), ("MPI_Wtime", 32), ("MPI_Alltoallv", 176)],
    },
    Summary {
        dir: "npb3.3-mpich/mg.S.16",
        ranks: 16,
        messages: 6704,
        bytes: 3_890_944,
        collectives: &[
            ("allreduce", 88),
            ("bcast", 7),
            ("barrier", 6),
            ("reduce", 1),
        ],
        volumes: &[("allreduce", 16_384), ("bcast", 896), ("reduce", 128)],
        calls: 21_872,
        functions: &[("MPI_Irecv", 6704), ("MPI_Wait", 6704), ("MPI_Wtime", 64)],
    },
];

/// Point-to-point messages and bytes of decoded calls.
fn p2p(calls: &[(Call, u64)]) -> (u64, u64) {
    calls.iter().fold((0, 0), |(m, b), (c, _)| match c {
        Call::Send { bytes, .. } | Call::Sendrecv { bytes, .. } => (m + 1, b + bytes),
        _ => (m, b),
    })
}

/// A collective call's volume as SUMMARY.txt counts it (alltoall: the block times the communicator
/// size; alltoallv: every send count).
fn volume(op: &Collective, ranks: u64) -> u64 {
    match op {
        Collective::Bcast { bytes, .. }
        | Collective::Reduce { bytes, .. }
        | Collective::Allreduce { bytes } => *bytes,
        Collective::Alltoall { bytes } => bytes * ranks,
        Collective::Alltoallv { send } => send.iter().sum(),
        _ => 0,
    }
}

#[test]
fn every_sample_reproduces_its_summary() {
    for s in &SAMPLES {
        let d = dumpi::read_calls(&sample(s.dir), 1e9).unwrap_or_else(|e| panic!("{}: {e}", s.dir));
        assert_eq!(d.ranks, s.ranks, "{}", s.dir);
        let (m, b) = d
            .calls
            .iter()
            .map(|r| p2p(r))
            .fold((0, 0), |a, x| (a.0 + x.0, a.1 + x.1));
        assert_eq!(
            (m, b),
            (s.messages, s.bytes),
            "{}: messages and bytes",
            s.dir
        );
        let mut volumes: BTreeMap<&str, u64> = BTreeMap::new();
        for (r, calls) in d.calls.iter().enumerate() {
            let mut per_rank: BTreeMap<&str, u64> = BTreeMap::new();
            for (c, _) in calls {
                if let Call::Collective { op, .. } = c {
                    *per_rank.entry(op.name()).or_default() += 1;
                    *volumes.entry(op.name()).or_default() += volume(op, u64::from(d.ranks));
                }
            }
            let want: BTreeMap<&str, u64> = s.collectives.iter().copied().collect();
            assert_eq!(per_rank, want, "{} rank {r}: collectives", s.dir);
        }
        for &(name, v) in s.volumes {
            assert_eq!(volumes[name], v, "{}: {name} volume", s.dir);
        }
        assert_eq!(d.total_calls(), s.calls, "{}: MPI calls", s.dir);
        for &(f, n) in s.functions {
            assert_eq!(d.counts[f], n, "{}: {f}", s.dir);
        }
        // Every record the footers count was decoded, and nothing else.
        assert_eq!(d.counts, d.footer_counts, "{}", s.dir);
    }
}

#[test]
fn per_rank_and_per_pair_figures_match() {
    // The ring of the sst-dumpi test trace: r -> r+1, one int each.
    let d = dumpi::read_calls(&sample("sst-dumpi-tests/testtrace.meta"), 1e9).unwrap();
    for (r, calls) in d.calls.iter().enumerate() {
        let dests: Vec<u32> = calls
            .iter()
            .filter_map(|(c, _)| match c {
                Call::Send {
                    dest,
                    bytes: 4,
                    tag: 1337,
                    ..
                } => Some(*dest),
                _ => None,
            })
            .collect();
        assert_eq!(dests, [(r as u32 + 1) % 4]);
    }
    // MG: ranks 0-3 and 8-11 send 384 messages (241,184 B), ranks 4-7 and 12-15 send 454 (245,184 B).
    let d = dumpi::read_calls(&sample("npb3.3-mpich/mg.S.16"), 1e9).unwrap();
    for (r, calls) in d.calls.iter().enumerate() {
        let want = if (r / 4) % 2 == 0 {
            (384, 241_184)
        } else {
            (454, 245_184)
        };
        assert_eq!(p2p(calls), want, "mg rank {r}");
    }
}

/// Network messages and bytes of point-to-point traffic in a lowered program (collective traffic
/// carries an odd context in the upper tag bits), and the replay's completion time.
fn replay(topology: &str, p: &Program) -> (u64, u64, u64) {
    let topo = netreplay::topology::build(topology).unwrap();
    let nodes: Vec<u32> = (0..p.ranks()).collect();
    let o = simulate(topo.as_ref(), &NetworkModel::default(), p, &nodes, 1)
        .unwrap_or_else(|e| panic!("{topology}: {e}"));
    let network = p.sends().filter(|s| s.0 != s.1).count() as u64;
    assert_eq!(o.messages, network, "{topology}");
    let (m, b) = point_to_point(p);
    assert!(o.completion_cycles > 0);
    (m, b, o.completion_cycles)
}

fn point_to_point(p: &Program) -> (u64, u64) {
    p.sends()
        .filter(|s| (s.3 >> 32) % 2 == 0)
        .fold((0, 0), |(m, b), s| (m + 1, b + s.2))
}

#[test]
fn every_sample_replays_on_a_fat_tree_and_a_torus() {
    for s in &SAMPLES {
        let p = dumpi::read(&sample(s.dir), &Algorithms::default(), 1e9)
            .unwrap_or_else(|e| panic!("{}: {e}", s.dir));
        assert_eq!(p.ranks(), s.ranks);
        for topology in ["fat-tree:k=4,n=2", "torus:k=4,n=2"] {
            let (m, b, _) = replay(topology, &p);
            assert_eq!((m, b), (s.messages, s.bytes), "{} on {topology}", s.dir);
        }
        // Under MPICH's protocols (the library the NPB samples ran on): rendezvous for large messages.
        let mpich = p.with_mpi(MpiModel::mpich());
        let (m, b, _) = replay("fat-tree:k=4,n=2", &mpich);
        assert_eq!((m, b), (s.messages, s.bytes), "{} under MPICH", s.dir);
    }
}

/// The same NPB runs traced by SimGrid (`traces/simgrid/npb3.3/`): equal point-to-point messages and
/// bytes (IS 15 / 60, MG 6,704 / 3,890,944), and equal totals once collectives are expanded by the
/// same algorithms, under MPICH's selection and under `select=fixed`, where they are the figures of
/// the SimGrid samples' README (IS 6,044 / 4,169,496, MG 12,840 / 3,957,440).
#[test]
fn npb_kernels_traced_by_dumpi_and_simgrid_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/simgrid/npb3.3");
    for (k, readme) in [("is", (6_044, 4_169_496)), ("mg", (12_840, 3_957_440))] {
        for algorithms in [Algorithms::MPICH, Algorithms::FIXED] {
            let d =
                dumpi::read(&sample(&format!("npb3.3-mpich/{k}.S.16")), &algorithms, 1e9).unwrap();
            let index = root.join(format!("{k}.S.16/{k}.S.16.txt"));
            let s = netreplay::trace::simgrid::read(&index, &algorithms, Default::default())
                .unwrap_or_else(|e| panic!("{k}: {e}"));
            assert_eq!(
                point_to_point(&d),
                point_to_point(&s),
                "{k}: point-to-point"
            );
            let all = |p: &Program| p.sends().fold((0, 0), |(m, b), s| (m + 1, b + s.2));
            assert_eq!(all(&d), all(&s), "{k}: all messages, {algorithms:?}");
            if algorithms == Algorithms::FIXED {
                assert_eq!(all(&d), readme, "{k}: the README's figures");
            }
        }
    }
}

/// Copies sample `dir` into a scratch folder for corruption.
fn copy(dir: &str, name: &str) -> PathBuf {
    let to = scratch(name);
    for e in std::fs::read_dir(sample(dir)).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
    }
    to
}

fn error(dir: &Path) -> String {
    dumpi::read(dir, &Algorithms::default(), 1e9)
        .unwrap_err()
        .to_string()
}

#[test]
fn corrupt_samples_are_positioned_errors() {
    let rank1 = "testtrace-0001.bin";
    let edit = |name: &str, f: &dyn Fn(&mut Vec<u8>)| {
        let dir = copy("sst-dumpi-tests", name);
        let mut bytes = std::fs::read(dir.join(rank1)).unwrap();
        f(&mut bytes);
        std::fs::write(dir.join(rank1), bytes).unwrap();
        error(&dir)
    };
    let e = edit("magic", &|b| b[3] ^= 0xff);
    assert!(
        e.contains("testtrace-0001.bin (byte 0): rank 1: not a DUMPI file"),
        "{e}"
    );
    let e = edit("truncated", &|b| b.truncate(b.len() - 100));
    assert!(
        e.contains("testtrace-0001.bin") && e.contains("rank 1: truncated"),
        "{e}"
    );
    // The second record (MPI_Comm_rank, at byte 58: the MPI_Init record from byte 16 is 29 + 4 + 4 + 5 bytes) given an id DUMPI never had.
    let e = edit("unknown", &|b| b[58..60].copy_from_slice(&[0x03, 0x00]));
    assert!(
        e.contains("(byte 58): rank 1: unknown function id 768"),
        "{e}"
    );
    let dir = copy("sst-dumpi-tests", "missing");
    std::fs::remove_file(dir.join("testtrace-0003.bin")).unwrap();
    let e = error(&dir);
    assert!(e.contains("rank file of rank 3 of 4 is missing"), "{e}");
    assert!(!dumpi::is_dumpi(&sample(
        "../simgrid/replay/actions_bcast.txt"
    )));
    assert!(dumpi::is_dumpi(&sample("npb3.3-mpich/is.S.16")));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 100, ..Default::default() })]

    /// A real rank file cut anywhere or with bytes overwritten anywhere reads or fails, never panics.
    #[test]
    fn mutated_samples_never_panic(
        cut in 0usize..3000,
        flips in proptest::collection::vec((0usize..3000, 0u8..=255), 0..8),
    ) {
        let dir = scratch_once("prop");
        let mut bytes = std::fs::read(sample("sst-dumpi-tests/testtrace-0002.bin")).unwrap();
        let n = bytes.len();
        for (at, v) in flips {
            bytes[at % n] = v;
        }
        bytes.truncate(n - cut % n);
        std::fs::write(dir.join("testtrace-0002.bin"), bytes).unwrap();
        let _ = dumpi::read_calls(&dir, 1e9);
        let _ = dumpi::read(&dir, &Algorithms::default(), 1e9);
    }
}

/// A copy of the sst-dumpi test trace made once per process, whose rank 2 file the property test
/// overwrites.
fn scratch_once(name: &str) -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| copy("sst-dumpi-tests", name)).clone()
}

/// `trace stats` on a DUMPI folder: the MPI calls of NPB IS by kind and communicator, as its
/// `SUMMARY.txt` counts them (15 MPI_Send of 4 bytes, 15 receives; per call on MPI_COMM_WORLD:
/// allreduce 11, alltoall 11, alltoallv 11, reduce 2, bcast 1), and the matching check passes.
#[test]
fn trace_stats_counts_the_calls_of_a_dumpi_trace() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(["trace", "stats", "--json"])
        .arg(sample("npb3.3-mpich/is.S.16"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["ranks"], 16);
    assert_eq!(j["ok"], true);
    let calls = &j["calls"];
    assert_eq!(calls["point_to_point"]["send"]["calls"], 15);
    assert_eq!(calls["point_to_point"]["send"]["bytes"], 60);
    assert_eq!(calls["receives"], 15);
    assert_eq!(calls["communicators"], 0);
    let world = &calls["collectives"][0];
    assert_eq!(
        (world["comm"].clone(), world["size"].clone()),
        (0.into(), 16.into())
    );
    for (kind, n) in [
        ("allreduce", 11),
        ("alltoall", 11),
        ("alltoallv", 11),
        ("reduce", 2),
        ("bcast", 1),
    ] {
        assert_eq!(world["calls"][kind], n, "{kind}");
    }
    // No cache file was written beside the trace.
    assert!(!sample("npb3.3-mpich/.is.S.16.nrcache").exists());
}

/// The binary cache serves DUMPI traces too: a second read of a folder is a cache hit giving the
/// same program, and changing any rank file (not only the `.meta`) makes it a miss.
#[test]
fn the_cache_serves_dumpi_traces_and_follows_every_rank_file() {
    use netreplay::trace::{ReadOptions, cache};
    let dir = copy("sst-dumpi-tests", "cached");
    let store = dir.parent().unwrap().join("cache-store");
    let _ = std::fs::remove_dir_all(&store);
    let loc = cache::Location::Dir(store.clone());
    let opts = ReadOptions::default();
    let first = cache::read(&dir, &opts, &loc).unwrap();
    let files = || std::fs::read_dir(&store).unwrap().count();
    assert_eq!(files(), 1, "the first read writes the cache");
    let key = cache::key(&dir, netreplay::trace::Format::DUMPI, &opts).unwrap();
    let second = cache::read(&dir, &opts, &loc).unwrap();
    assert_eq!(second, first);
    assert_eq!(
        second.mpi(),
        &MpiModel::mpich(),
        "a hit keeps the format's MPI model"
    );
    // Touch the last byte of the last rank's file: the key changes.
    let last = netreplay::trace::dumpi::sources(&dir)
        .unwrap()
        .pop()
        .unwrap();
    let mut bytes = std::fs::read(&last).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    std::fs::write(&last, &bytes).unwrap();
    assert_ne!(
        cache::key(&dir, netreplay::trace::Format::DUMPI, &opts).unwrap(),
        key
    );
}
