//! Chakra execution traces end to end: ASTRA-sim's microbenchmarks replay with exact bytes per
//! rank, a ring all-reduce takes its textbook time on an uncontended ring, computation and
//! dependencies give hand-derived cycles, and bad traces are refused with where.

mod common;

use netreplay::mpi::collectives::Algorithms;
use netreplay::network::NetworkModel;
use netreplay::replay::simulate;
use netreplay::trace::chakra::proto::{
    AttributeProto, CollectiveCommType, GlobalMetadata, Node, NodeType, Value,
};
use netreplay::trace::{self, Format, ReadOptions};
use netreplay::workload::Program;
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

/// Replays `p` on `spec`, rank r on node r; returns (messages, completion cycles).
fn replay(spec: &str, p: &Program) -> (u64, u64) {
    let topo = netreplay::topology::build(spec).unwrap();
    let nodes: Vec<u32> = (0..p.ranks()).collect();
    let o = simulate(topo.as_ref(), &NetworkModel::default(), p, &nodes, 1)
        .unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert_eq!(o.phits_injected, o.phits_delivered);
    (o.messages, o.completion_cycles)
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
                let (sent, cycles) = replay(topo, &p);
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
    let (messages, cycles) = replay("torus:k=8,n=1", &p);
    assert_eq!(messages, 8 * 14);
    let ideal = 2 * 7 * MB / 8 / 4;
    assert_eq!(ideal, 458_752);
    assert!(cycles * 100 <= ideal * 102, "{cycles} vs {ideal}");
    assert_eq!(cycles, 14 * (32_768 + 3));
}
