//! The seven causal workloads of seed 004 §3.3, one file per pattern, listed in [`REGISTRY`].
//!
//! Every generator takes one key, `size`: the message size in bytes (for `wf`, the total bytes sent
//! along each virtual-mesh edge, cut into small messages). It accepts the seed's `K`/`M`/`G`
//! suffixes (1K = 1000) and defaults to [`DEFAULT_SIZE`] when absent. This file also holds what the
//! patterns share: the `size` key, exact integer roots, and the virtual square or cubic mesh of the
//! wave-front, mesh and waterfall patterns.

mod binary_tree;
mod butterfly;
mod mesh_exchange;
mod waterfall;
mod wavefront;

use crate::error::{Error, Result};
use crate::program::Generator;
use crate::spec::{Params, Registry};

/// Every workload generator, by spec name. One line per pattern, plus replay of a trace file.
pub static REGISTRY: Registry<Box<dyn Generator>> = Registry {
    kind: "workload",
    entries: &[
        wavefront::ENTRY_2W,
        wavefront::ENTRY_3W,
        mesh_exchange::ENTRY_2M,
        mesh_exchange::ENTRY_3M,
        butterfly::ENTRY,
        binary_tree::ENTRY,
        waterfall::ENTRY,
        crate::trace::ENTRY,
    ],
};

/// Message size (bytes) when a spec gives no `size`: 1K, the middle of seed 004's 10..100K range.
pub const DEFAULT_SIZE: u64 = 1000;

/// Largest accepted `size` (1G bytes); the seed goes up to 100K.
pub const MAX_SIZE: u64 = 1_000_000_000;

/// The `size` key every generator accepts: bytes in `1..=MAX_SIZE`, default [`DEFAULT_SIZE`].
fn size_param(p: &Params) -> Result<u64> {
    p.u64_in("size", Some(DEFAULT_SIZE), 1, MAX_SIZE)
}

/// `floor(n^(1/dims))`, exactly (binary search on integers, no float rounding).
fn integer_root(n: u64, dims: u32) -> u64 {
    let (mut lo, mut hi) = (0u64, n.min(1 << 32) + 1);
    // Invariant: lo^dims <= n < hi^dims.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match mid.checked_pow(dims) {
            Some(v) if v <= n => lo = mid,
            _ => hi = mid,
        }
    }
    lo
}

/// The valid counts next to a bad one, as `nearest: a or b` (or just `b` below the smallest).
fn nearest(lower: Option<u64>, upper: u64) -> String {
    match lower {
        Some(l) => format!("nearest: {l} or {upper}"),
        None => format!("nearest: {upper}"),
    }
}

/// Rejects fewer than two ranks, which no pattern can use.
fn at_least_two(pattern: &str, ranks: u32) -> Result<()> {
    if ranks < 2 {
        return Err(Error::Invalid(format!(
            "{pattern} needs at least 2 ranks; got {ranks}"
        )));
    }
    Ok(())
}

/// A virtual square (`dims` = 2) or cubic (`dims` = 3) mesh of side `side`, without wraparound:
/// rank = x + side*y (+ side^2*z).
#[derive(Debug, Clone, Copy)]
struct VirtualMesh {
    side: u32,
    dims: u32,
}

impl VirtualMesh {
    /// The mesh of `ranks` ranks, or an error naming `pattern` if `ranks` is not a square (cube)
    /// with side at least 2.
    fn new(pattern: &str, ranks: u32, dims: u32) -> Result<VirtualMesh> {
        let root = integer_root(u64::from(ranks), dims);
        if root >= 2 && root.pow(dims) == u64::from(ranks) {
            return Ok(VirtualMesh {
                side: root as u32,
                dims,
            });
        }
        let (shape, examples) = if dims == 2 {
            ("square", "4, 9, 16, ...")
        } else {
            ("cubic", "8, 27, 64, ...")
        };
        let lower = (root >= 2).then(|| root.pow(dims));
        let upper = (root + 1).max(2).pow(dims);
        Err(Error::Invalid(format!(
            "{pattern} needs a {shape} number of ranks ({examples}); got {ranks}; {}",
            nearest(lower, upper)
        )))
    }

    /// Rank distance of one step along dimension `d` (1, side, side^2).
    fn stride(&self, d: u32) -> u32 {
        self.side.pow(d)
    }

    /// Coordinate of `rank` along dimension `d`.
    fn coord(&self, rank: u32, d: u32) -> u32 {
        rank / self.stride(d) % self.side
    }

    /// The neighbour one step down dimension `d`, if inside the mesh.
    fn down(&self, rank: u32, d: u32) -> Option<u32> {
        (self.coord(rank, d) > 0).then(|| rank - self.stride(d))
    }

    /// The neighbour one step up dimension `d`, if inside the mesh.
    fn up(&self, rank: u32, d: u32) -> Option<u32> {
        (self.coord(rank, d) + 1 < self.side).then(|| rank + self.stride(d))
    }

    /// Lower neighbours in order x-1, y-1 (, z-1).
    fn lower(&self, rank: u32) -> impl Iterator<Item = u32> + '_ {
        (0..self.dims).filter_map(move |d| self.down(rank, d))
    }

    /// Upper neighbours in order x+1, y+1 (, z+1).
    fn upper(&self, rank: u32) -> impl Iterator<Item = u32> + '_ {
        (0..self.dims).filter_map(move |d| self.up(rank, d))
    }

    /// All neighbours in order x-1, x+1, y-1, y+1 (, z-1, z+1).
    fn neighbours(&self, rank: u32) -> impl Iterator<Item = u32> + '_ {
        (0..self.dims)
            .flat_map(move |d| [self.down(rank, d), self.up(rank, d)].into_iter().flatten())
    }
}

/// Shared checks for the generator tests of every file.
#[cfg(test)]
mod test_support {
    use super::REGISTRY;
    use crate::program::{Op, Program};
    use std::collections::{HashMap, VecDeque};

    /// Builds `spec` from the registry and generates `ranks` ranks, panicking on error.
    pub fn generate(spec: &str, ranks: u32) -> Program {
        REGISTRY
            .build_str(spec)
            .unwrap_or_else(|e| panic!("{spec}: {e}"))
            .generate(ranks)
            .unwrap_or_else(|e| panic!("{spec} on {ranks} ranks: {e}"))
    }

    /// The error message of generating `ranks` ranks of `spec`, panicking if it succeeds.
    pub fn generate_err(spec: &str, ranks: u32) -> String {
        match REGISTRY.build_str(spec).unwrap().generate(ranks) {
            Ok(_) => panic!("{spec} on {ranks} ranks should be refused"),
            Err(e) => e.to_string(),
        }
    }

    /// Number of messages (sends) in the program.
    pub fn messages(p: &Program) -> usize {
        p.sends().count()
    }

    /// Every send has exactly one receive with the same source, destination and tag, counted as
    /// multisets, and the program validates.
    pub fn assert_matched(p: &Program) {
        p.validate().unwrap();
        let mut sends: Vec<(u32, u32, u64)> = p.sends().map(|(s, d, _, t)| (s, d, t)).collect();
        let mut recvs: Vec<(u32, u32, u64)> = (0..p.ranks())
            .flat_map(|r| {
                p.rank_ops(r).iter().filter_map(move |op| match *op {
                    Op::Recv { from, tag } => Some((from, r, tag)),
                    _ => None,
                })
            })
            .collect();
        sends.sort_unstable();
        recvs.sort_unstable();
        if sends != recvs {
            let first = sends.iter().zip(&recvs).position(|(a, b)| a != b);
            let i = first.unwrap_or(sends.len().min(recvs.len()));
            panic!(
                "unmatched (src, dst, tag): {} sends, {} receives; sorted, they first differ at \
                 send {:?} vs receive {:?}",
                sends.len(),
                recvs.len(),
                sends.get(i),
                recvs.get(i)
            );
        }
    }

    /// Runs the program causally with unbounded buffers and no timing (sends are immediate,
    /// receives block until a matching message is there) and checks that every rank finishes and
    /// every message is consumed. Returns the longest causal chain, in messages: a message's depth
    /// is one more than the deepest message its sender had received before sending it.
    pub fn causal_depth(p: &Program) -> u64 {
        assert_matched(p);
        let n = p.ranks() as usize;
        let mut pc = vec![0usize; n];
        let mut clock = vec![0u64; n];
        let mut mailbox: HashMap<(u32, u32, u64), VecDeque<u64>> = HashMap::new();
        let mut ready: Vec<u32> = (0..p.ranks()).collect();
        let mut max_depth = 0;
        while let Some(r) = ready.pop() {
            let ops = p.rank_ops(r);
            let ru = r as usize;
            while let Some(op) = ops.get(pc[ru]) {
                match *op {
                    Op::Send { to, tag, .. } => {
                        let depth = clock[ru] + 1;
                        max_depth = max_depth.max(depth);
                        let q = mailbox.entry((r, to, tag)).or_default();
                        q.push_back(depth);
                        if q.len() == 1 {
                            ready.push(to);
                        }
                    }
                    Op::Recv { from, tag } => {
                        // Empty queues are dropped, so the map holds only messages in flight.
                        let Some(q) = mailbox.get_mut(&(from, r, tag)) else {
                            break;
                        };
                        let depth = q.pop_front().expect("empty queues are removed");
                        if q.is_empty() {
                            mailbox.remove(&(from, r, tag));
                        }
                        clock[ru] = clock[ru].max(depth);
                    }
                    Op::Compute { .. } => {}
                    other => panic!("generators emit only send, recv and compute, not {other:?}"),
                }
                pc[ru] += 1;
            }
        }
        let stuck: Vec<(u32, Op)> = (0..p.ranks())
            .filter_map(|r| p.rank_ops(r).get(pc[r as usize]).map(|op| (r, *op)))
            .take(10)
            .collect();
        assert!(stuck.is_empty(), "deadlock: ranks blocked at {stuck:?}");
        assert!(mailbox.is_empty(), "messages left unconsumed");
        max_depth
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::generate;
    use super::*;
    use crate::workload::build;

    /// The generated patterns (the registry's last entry, `trace`, reads a file instead).
    const PATTERNS: [&str; 7] = ["2w", "3w", "2m", "3m", "bu", "bt", "wf"];

    #[test]
    fn registry_order_and_specs() {
        assert_eq!(
            REGISTRY.names(),
            ["2w", "3w", "2m", "3m", "bu", "bt", "wf", "trace"]
        );
        for name in PATTERNS {
            let g = REGISTRY.build_str(name).unwrap();
            assert_eq!(g.spec(), format!("{name}:size=1000"));
            let g = REGISTRY.build_str(&format!("{name}:size=10K")).unwrap();
            assert_eq!(g.spec(), format!("{name}:size=10000"));
            // The printed spec rebuilds the same generator.
            assert_eq!(REGISTRY.build_str(&g.spec()).unwrap().spec(), g.spec());
            for bad in ["size=0", "size=2G", "size=ten", "bytes=10"] {
                assert!(
                    REGISTRY.build_str(&format!("{name}:{bad}")).is_err(),
                    "{name}:{bad}"
                );
            }
        }
    }

    #[test]
    fn every_pattern_refuses_too_few_ranks() {
        for name in PATTERNS {
            for ranks in [0, 1] {
                let e = REGISTRY
                    .build_str(name)
                    .unwrap()
                    .generate(ranks)
                    .unwrap_err();
                let msg = e.to_string();
                assert!(matches!(e, Error::Invalid(_)), "{name}: {msg}");
                assert!(
                    msg.starts_with(name) && msg.contains(&format!("got {ranks}")),
                    "{msg}"
                );
            }
        }
    }

    #[test]
    fn sizes_flow_into_messages() {
        let p = generate("bu:size=100K", 4);
        assert!(p.sends().all(|(_, _, bytes, _)| bytes == 100_000));
        let w = build("2m:ranks=9,size=10").unwrap();
        assert_eq!(w.ranks, Some(9));
        let p = w.generator.generate(9).unwrap();
        assert!(p.sends().all(|(_, _, bytes, _)| bytes == 10));
    }

    /// N = 4096 = 64^2 = 16^3 = 2^12, the seed's network size, suits every pattern.
    #[test]
    fn every_pattern_runs_at_seed_scale() {
        for (name, depth) in [
            ("2w", 4 * 63),
            ("3w", 6 * 15),
            ("2m", 1),
            ("3m", 1),
            ("bu", 12),
            ("bt", 12),
            ("wf", 2 * 63),
        ] {
            let p = generate(&format!("{name}:size=100K"), 4096);
            assert_eq!(test_support::causal_depth(&p), depth, "{name}");
        }
    }

    #[test]
    #[should_panic(expected = "unmatched")]
    fn the_matching_check_catches_a_wrong_tag() {
        let p = crate::program::Program::from_fn(2, |r, ops| {
            use crate::program::Op;
            if r == 0 {
                ops.push(Op::Send {
                    to: 1,
                    bytes: 1,
                    tag: 0,
                });
            } else {
                ops.push(Op::Recv { from: 0, tag: 1 });
            }
        });
        test_support::assert_matched(&p);
    }

    #[test]
    #[should_panic(expected = "deadlock")]
    fn the_causal_run_catches_a_deadlock() {
        // Both ranks receive before sending: matched, but neither can start.
        let p = crate::program::Program::from_fn(2, |r, ops| {
            use crate::program::Op;
            ops.push(Op::Recv {
                from: 1 - r,
                tag: 0,
            });
            ops.push(Op::Send {
                to: 1 - r,
                bytes: 1,
                tag: 0,
            });
        });
        test_support::causal_depth(&p);
    }

    #[test]
    fn integer_roots_are_exact() {
        for dims in [2, 3] {
            for r in [
                0u64, 1, 2, 3, 10, 255, 256, 4095, 4096, 65535, 65536, 2_642_245,
            ] {
                let Some(n) = r.checked_pow(dims) else {
                    continue;
                };
                assert_eq!(integer_root(n, dims), r, "{r}^{dims}");
                if n > 0 {
                    assert_eq!(integer_root(n - 1, dims), r - 1, "{r}^{dims} - 1");
                }
            }
        }
        assert_eq!(integer_root(u64::MAX, 2), u64::from(u32::MAX));
        assert_eq!(integer_root(u64::MAX, 3), 2_642_245);
        assert_eq!(integer_root(u64::from(u32::MAX), 2), 65535);
    }

    #[test]
    fn mesh_neighbours_in_order() {
        let m = VirtualMesh::new("t", 27, 3).unwrap();
        // Rank 13 is the centre (1,1,1) of the 3x3x3 cube.
        assert_eq!(
            m.neighbours(13).collect::<Vec<_>>(),
            [12, 14, 10, 16, 4, 22]
        );
        assert_eq!(m.lower(13).collect::<Vec<_>>(), [12, 10, 4]);
        assert_eq!(m.upper(13).collect::<Vec<_>>(), [14, 16, 22]);
        assert_eq!(m.neighbours(0).collect::<Vec<_>>(), [1, 3, 9]);
        assert_eq!(m.neighbours(26).collect::<Vec<_>>(), [25, 23, 17]);
        let e = VirtualMesh::new("t", u32::MAX, 2).unwrap_err().to_string();
        assert!(e.contains("nearest: 4294836225 or 4294967296"), "{e}");
    }

    /// `check_ranks` refuses exactly the rank counts `generate` refuses, with the same message, for
    /// every pattern (a campaign relies on it to check configs before writing anything).
    #[test]
    fn check_ranks_agrees_with_generate() {
        for spec in [
            "2w",
            "3w",
            "2m",
            "3m",
            "bu",
            "bt",
            "wf:size=10",
            "wf:size=1G",
        ] {
            let g = REGISTRY.build_str(spec).unwrap();
            for ranks in (0..=70).chain([256, 1000, 1024, 4096]) {
                let checked = g.check_ranks(ranks).map_err(|e| e.to_string());
                let generated = g.generate(ranks).map(drop).map_err(|e| e.to_string());
                assert_eq!(checked, generated, "{spec} on {ranks} ranks");
            }
        }
    }
}
