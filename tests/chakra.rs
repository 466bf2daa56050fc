//! Chakra execution traces end to end: ASTRA-sim's microbenchmarks replay with exact bytes per
//! rank, a ring all-reduce takes its textbook time on an uncontended ring, computation and
//! dependencies give hand-derived cycles, and bad traces are refused with where.

mod common;

use netreplay::mpi::collectives::Algorithms;
use netreplay::program::Program;
use netreplay::trace::chakra::proto::{
    AttributeProto, CollectiveCommType, GlobalMetadata, Node, NodeType, Value,
};
use netreplay::trace::{self, Format, ReadOptions};
use prost::Message;
use std::path::{Path, PathBuf};

fn sample(coll: &str, npus: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("traces")
        .join("chakra")
        .join(coll)
        .join(format!("{npus}npus_1MB"))
}

fn read_with(path: &Path, opts: &ReadOptions) -> Program {
    trace::read_any(path, opts).unwrap_or_else(|e| panic!("{e}"))
}

fn read(path: &Path) -> Program {
    read_with(path, &ReadOptions::default())
}

const MB: u64 = 1 << 20;

/// (collective, messages per rank at p ranks, bytes each rank sends at p ranks), by the algorithm
/// MPICH's selection (the default) picks for a 1 MB buffer. `comm_size` is the whole buffer, as in
/// ASTRA-sim, so blocks are S/p:
/// - all_reduce: 1 MB is past MPICH's short-message limit and p is a power of two, so
///   Rabenseifner: a recursive-halving reduce-scatter (S/2 + S/4 + ... + S/p) then a
///   recursive-doubling all-gather (the same back): 2 log2 p messages, 2 (p-1)/p S bytes;
/// - all_gather of S/p per rank, S in all: past MPICH's long limit (512 KiB total), so the ring:
///   p - 1 messages of S/p, (p-1)/p S bytes;
/// - all_to_all of S/p per pair: past the medium limit (32 KiB blocks), so pairwise exchange:
///   p - 1 messages of S/p;
/// - reduce_scatter (S/p each) of a commutative reduction past the long limit: pairwise, p - 1
///   messages of S/p.
fn expected(coll: &str, p: u64) -> (u64, u64) {
    let log2 = u64::from(p.trailing_zeros());
    match coll {
        "all_reduce" => (2 * log2, 2 * (p - 1) * MB / p),
        _ => (p - 1, (p - 1) * MB / p),
    }
}

#[test]
fn astra_sim_microbenchmarks_replay_with_exact_bytes_per_rank() {
    for coll in ["all_reduce", "all_gather", "all_to_all", "reduce_scatter"] {
        for npus in [4u32, 8, 16] {
            let dir = sample(coll, npus);
            let what = format!("{coll} at {npus}");
            assert_eq!(Format::detect(&dir).unwrap(), Format::CHAKRA, "{what}");
            let file = dir.join(format!("{coll}.1.et"));
            assert_eq!(Format::detect(&file).unwrap(), Format::CHAKRA, "{what}");
            let p = read(&dir);
            assert_eq!(read(&file), p, "{what}: a rank's file reads as its folder");
            assert!(p.graph().is_some(), "{what}");
            assert_eq!(p.ranks(), npus, "{what}");
            // One collective node per rank: one call on the world group.
            let calls = p.call_stats().unwrap().collectives_by_kind();
            let mpi_name = match coll {
                "reduce_scatter" => "reduce_scatter_block",
                other => &other.replace('_', ""),
            };
            assert_eq!(
                calls.into_iter().collect::<Vec<_>>(),
                vec![(mpi_name, 1)],
                "{what}"
            );
            let (messages, bytes) = expected(coll, u64::from(npus));
            for r in 0..npus {
                let sent: Vec<u64> = p.sends().filter(|s| s.0 == r).map(|s| s.2).collect();
                assert_eq!(sent.len() as u64, messages, "{what}: rank {r}");
                assert_eq!(sent.iter().sum::<u64>(), bytes, "{what}: rank {r}");
                let got: u64 = p.sends().filter(|s| s.1 == r).map(|s| s.2).sum();
                assert_eq!(got, bytes, "{what}: rank {r} receives what it sends");
            }
            let c = trace::check::check(&p).unwrap();
            assert!(c.ok, "{what}: {:?}", c.problems);
            assert_eq!(c.bytes, bytes * u64::from(npus), "{what}");
            for topo in ["fat-tree:k=4,n=3", "torus:k=4,n=2"] {
                let (sent, cycles) = common::replay_on(topo, &p);
                assert_eq!(sent, messages * u64::from(npus), "{what} on {topo}");
                assert!(cycles > 0, "{what} on {topo}");
            }
        }
    }
}

/// A ring all-reduce (`allreduce=ring`, NCCL's algorithm) of S = 1 MB over p = 8 ranks on a
/// ring of 8 switches, rank r on node r: every step each rank sends S/p = 131072 bytes to rank
/// r + 1, one link of the ring each, so no two messages share a link. 2(p-1) = 14 steps, each
/// waiting for the previous receive: 14 x (S/p / 4 bytes per phit = 32768 phits at 1 phit/cycle,
/// plus the 3-link head latency L: node, switch to switch, node), so 2(p-1)/p x S / bandwidth =
/// 458752 cycles plus 14 L = 42: 458794 exactly (each receive completes as its last phit is
/// consumed, and the next send leaves that cycle), within 2% of the bandwidth term.
#[test]
fn a_ring_all_reduce_takes_its_textbook_time_on_an_uncontended_ring() {
    let mut algorithms = Algorithms::default();
    algorithms.set("allreduce", "ring").unwrap();
    let opts = ReadOptions {
        algorithms,
        ..ReadOptions::default()
    };
    let p = read_with(&sample("all_reduce", 8), &opts);
    assert_eq!(p.sends().count(), 8 * 14);
    let (messages, cycles) = common::replay_on("torus:k=8,n=1", &p);
    assert_eq!(messages, 8 * 14);
    let ideal = 2 * 7 * MB / 8 / 4;
    assert_eq!(ideal, 458_752);
    assert!(cycles * 100 <= ideal * 102, "{cycles} vs {ideal}");
    assert_eq!(cycles, 14 * (32_768 + 3));
}

fn attr(name: &str, value: Value) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        value: Some(value),
    }
}

fn node(id: u64, kind: NodeType, deps: &[u64], attrs: Vec<AttributeProto>) -> Node {
    Node {
        id,
        name: format!("n{id}"),
        r#type: kind as i32,
        ctrl_deps: vec![],
        data_deps: deps.to_vec(),
        duration_micros: 0,
        attr: attrs,
    }
}

fn comp(id: u64, micros: u64, deps: &[u64]) -> Node {
    Node {
        duration_micros: micros,
        ..node(id, NodeType::CompNode, deps, vec![])
    }
}

/// Writes one `t.r.et` per rank into a fresh folder `name`, as chakra's `protolib` does.
fn write_trace(name: &str, ranks: &[Vec<Node>]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("chakra")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (r, nodes) in ranks.iter().enumerate() {
        let meta = GlobalMetadata {
            version: "0.0.4".into(),
            attr: vec![],
        };
        let mut bytes = meta.encode_length_delimited_to_vec();
        for n in nodes {
            bytes.extend(n.encode_length_delimited_to_vec());
        }
        std::fs::write(dir.join(format!("t.{r}.et")), bytes).unwrap();
    }
    dir
}

/// Rank 0 computes 1 µs (1000 cycles at the default 1e9 cycles per second), then sends 64 bytes
/// (one 16-phit packet, eager) with tag 3. Rank 1's file lists a computation of 2 µs *before* the
/// receive it depends on (through a metadata node, which passes the dependency on): the reader
/// orders by dependency. The message leaves node 0 at 1000 and, nodes 0 and 1 sharing a leaf
/// switch (L = 2 links), its last phit is consumed at 1000 + 2 + 16 = 1018; the computation runs
/// 1018..3018. With an independent 5 µs computation on rank 1 as well, that one holds the CPU
/// 0..5000 and the dependent one runs 5000..7000.
#[test]
fn computation_and_dependencies_give_hand_derived_cycles() {
    let send = node(
        11,
        NodeType::CommSendNode,
        &[10],
        vec![
            attr("comm_dst", Value::Int64(1)),
            attr("comm_size", Value::Int64(64)),
            attr("comm_tag", Value::Int64(3)),
        ],
    );
    let recv = node(
        20,
        NodeType::CommRecvNode,
        &[],
        vec![
            attr("comm_src", Value::Int64(0)),
            attr("comm_size", Value::Uint64(64)),
            attr("comm_tag", Value::Int32(3)),
        ],
    );
    let mut meta = node(21, NodeType::MetadataNode, &[], vec![]);
    meta.ctrl_deps = vec![20];
    let rank0 = vec![comp(10, 1, &[]), send];
    let dir = write_trace(
        "p2p",
        &[
            rank0.clone(),
            vec![comp(22, 2, &[21]), meta.clone(), recv.clone()],
        ],
    );
    let p = read(&dir);
    assert_eq!(p.sends().collect::<Vec<_>>(), vec![(0, 1, 64, 3)]);
    let calls = p.call_stats().unwrap();
    assert_eq!(
        (calls.sends().calls, calls.sends().bytes, calls.receives),
        (1, 64, 1)
    );
    assert_eq!((calls.computes, calls.compute_cycles), (2, 3000));
    assert_eq!(common::replay_on("fat-tree:k=4,n=2", &p), (1, 3018));
    let dir = write_trace(
        "p2p-cpu",
        &[
            rank0,
            vec![comp(22, 2, &[21]), meta, recv, comp(23, 5, &[])],
        ],
    );
    assert_eq!(
        common::replay_on("fat-tree:k=4,n=2", &read(&dir)),
        (1, 7000)
    );
}

/// An all-reduce of 1 MB over the process group `g` = ranks 1 and 3 of 4 (`comm_group.json`):
/// Rabenseifner on 2 ranks is one exchange of S/2 each way, then the all-gather's one exchange of
/// S/2 back: ranks 1 and 3 each send S, ranks 0 and 2 nothing.
#[test]
fn a_collective_runs_over_its_process_group() {
    let coll = |id| {
        node(
            id,
            NodeType::CommCollNode,
            &[],
            vec![
                attr(
                    "comm_type",
                    Value::Int64(CollectiveCommType::AllReduce as i64),
                ),
                attr("comm_size", Value::Int64(MB as i64)),
                attr("pg_name", Value::String("g".into())),
            ],
        )
    };
    let idle = || vec![node(0, NodeType::MetadataNode, &[], vec![])];
    let dir = write_trace("group", &[idle(), vec![coll(5)], idle(), vec![coll(7)]]);
    let missing = trace::read_any(&dir, &ReadOptions::default()).unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("process group `g` is not in a process-group file"),
        "{missing}"
    );
    std::fs::write(dir.join("comm_group.json"), r#"{"g": [1, 3]}"#).unwrap();
    let p = read(&dir);
    let mut sends: Vec<(u32, u32, u64)> = p.sends().map(|s| (s.0, s.1, s.2)).collect();
    sends.sort_unstable();
    assert_eq!(
        sends,
        vec![
            (1, 3, MB / 2),
            (1, 3, MB / 2),
            (3, 1, MB / 2),
            (3, 1, MB / 2)
        ]
    );
    assert_eq!(common::replay_on("fat-tree:k=4,n=2", &p).0, 4);
    // ASTRA-sim's naming, the file named after the traces, is preferred.
    std::fs::write(dir.join("t.json"), r#"{"g": [0, 2]}"#).unwrap();
    let e = trace::read_any(&dir, &ReadOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("rank 1 is not in the collective's process group"),
        "{e}"
    );
}

#[test]
fn bad_traces_are_refused_with_where() {
    let err = |name: &str, ranks: &[Vec<Node>]| {
        let dir = write_trace(name, ranks);
        trace::read_any(&dir, &ReadOptions::default())
            .unwrap_err()
            .to_string()
    };
    let ok = vec![comp(1, 1, &[])];
    let e = err("dangling", &[ok.clone(), vec![comp(1, 1, &[99])]]);
    assert!(
        e.contains("t.1.et: byte 8: node 1 `n1`: depends on node 99"),
        "{e}"
    );
    let e = err(
        "cycle",
        &[ok.clone(), vec![comp(1, 1, &[2]), comp(2, 1, &[1])]],
    );
    assert!(e.contains("form a cycle"), "{e}");
    let no_peer = node(
        1,
        NodeType::CommSendNode,
        &[],
        vec![attr("comm_size", Value::Int64(8))],
    );
    let e = err("no-peer", &[ok.clone(), vec![no_peer]]);
    assert!(e.contains("no `comm_dst` attribute"), "{e}");
    let far = node(
        1,
        NodeType::CommRecvNode,
        &[],
        vec![attr("comm_src", Value::Int64(9))],
    );
    let e = err("far-peer", &[ok.clone(), vec![far]]);
    assert!(e.contains("`comm_src` = 9 is out of range 0..=1"), "{e}");

    let dir = write_trace("cut", &[ok.clone(), ok.clone(), ok]);
    let file = dir.join("t.2.et");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
    let e = trace::read_any(&dir, &ReadOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("t.2.et: byte 8: the file ends inside"),
        "{e}"
    );
    std::fs::remove_file(dir.join("t.1.et")).unwrap();
    let e = trace::read_any(&dir, &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("no t.1.et"), "{e}");
}

#[test]
fn trace_check_reads_a_chakra_folder() {
    let dir = sample("all_to_all", 4);
    let out = common::netreplay(&["trace", "check", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    // Pairwise: 4 x 3 messages of 256 KiB.
    assert!(
        text.contains("messages           12 (3145728 bytes)"),
        "{text}"
    );
    assert!(
        text.contains("collectives on world (4 ranks): alltoall 1"),
        "{text}"
    );
    assert!(
        text.contains("Chakra's comm_size is the whole buffer"),
        "{text}"
    );
}

/// Every truncation and every one-byte corruption of a sample's rank file reads or is refused,
/// never a panic.
#[test]
fn corrupted_rank_files_never_panic() {
    let src = sample("all_reduce", 4);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("chakra")
        .join("corrupt");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for r in 0..4 {
        let name = format!("all_reduce.{r}.et");
        std::fs::copy(src.join(&name), dir.join(&name)).unwrap();
    }
    let target = dir.join("all_reduce.0.et");
    let good = std::fs::read(&target).unwrap();
    let mut refused = 0;
    let mut variants: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
    for i in 0..good.len() {
        let mut v = good.clone();
        v[i] ^= 0xff;
        variants.push(v);
    }
    for v in &variants {
        std::fs::write(&target, v).unwrap();
        if let Err(e) = trace::read_any(&dir, &ReadOptions::default()) {
            assert!(e.to_string().contains("all_reduce.0.et"), "{e}");
            refused += 1;
        }
    }
    // Every truncation but the one at a message boundary (the metadata alone: rank 0 then has no
    // collective, and its peers' messages find no receive, which `trace check` reports) is refused.
    assert!(refused >= good.len() - 1, "{refused}");
}
