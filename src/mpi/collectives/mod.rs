//! Collectives expanded into point-to-point messages, by the algorithms MPI libraries use.
//!
//! A trace lists each rank's own collective calls, in the same order on every rank (as MPI requires on
//! one communicator). The reader expands each call, for the calling rank only, into `Send`/`Recv` ops:
//! every rank's expansion is computed independently, and the expansions agree because each algorithm is
//! a deterministic function of (ranks, root, bytes). One file per algorithm family:
//! [`binomial`] (bcast, reduce, gather, scatter; MPICH's binomial trees), [`dissemination`] (barrier,
//! MPICH's default), [`recursive_doubling`] (allreduce and allgather, with MPICH's fold of the ranks
//! above the largest power of two), [`ring`] (allreduce as ring reduce-scatter + ring allgather, and
//! allgather), [`pairwise`] (alltoall, MPICH's pairwise exchange) and [`linear`] (the `v` variants that
//! SimGrid traces carry). Which algorithm serves allreduce, allgather and barrier is an
//! [`Algorithms`] value (`trace:...,allreduce=ring`).
//!
//! Collective traffic uses tags from [`COLLECTIVE_TAG_BASE`] up: the k-th collective call of a rank
//! uses tag `2^31 + (k mod 2^31)`. MPI tags are non-negative C `int`s, so no user tag of a real
//! application reaches that range, and consecutive collectives never match each other's messages.
//! Reductions are modelled as communication only (the arithmetic is not timed).

pub mod binomial;
pub mod dissemination;
pub mod linear;
pub mod pairwise;
pub mod recursive_doubling;
pub mod ring;

use crate::error::{Error, Result};
use crate::workload::Op;

pub use super::call::Collective;

/// The matching tag of a rank's `seq`-th collective call on MPI_COMM_WORLD (counting from 0).
pub fn tag_for(seq: u64) -> u64 {
    super::collective_tag(0, seq)
}

/// Allreduce algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AllreduceAlg {
    /// MPICH's recursive doubling (latency-optimal; the default).
    #[default]
    RecursiveDoubling,
    /// Ring reduce-scatter then ring allgather (bandwidth-optimal).
    Ring,
}

/// Allgather algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AllgatherAlg {
    /// Recursive doubling with the allreduce fold for non-powers of two (the default).
    #[default]
    RecursiveDoubling,
    /// Ring: n-1 steps to the right neighbour.
    Ring,
}

/// Barrier algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BarrierAlg {
    /// Dissemination, ceil(log2 n) rounds of 0-byte messages (MPICH's default).
    #[default]
    Dissemination,
    /// Binomial reduce to rank 0 then binomial bcast, both of 0 bytes.
    Tree,
}

/// The algorithm per collective, a workload parameter of the trace readers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Algorithms {
    /// `allreduce=recursive-doubling|ring`.
    pub allreduce: AllreduceAlg,
    /// `allgather=recursive-doubling|ring`.
    pub allgather: AllgatherAlg,
    /// `barrier=dissemination|tree`.
    pub barrier: BarrierAlg,
}

impl Algorithms {
    /// Sets one choice from its spec key and value; errors name the accepted values.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let bad = |accepted: &str| {
            Err(Error::BadValue {
                kind: "workload",
                name: "trace".to_string(),
                key: key.to_string(),
                problem: format!("`{value}` is not an algorithm; accepted: {accepted}"),
            })
        };
        match (key, value) {
            ("allreduce", "recursive-doubling") => self.allreduce = AllreduceAlg::RecursiveDoubling,
            ("allreduce", "ring") => self.allreduce = AllreduceAlg::Ring,
            ("allreduce", _) => return bad("recursive-doubling, ring"),
            ("allgather", "recursive-doubling") => self.allgather = AllgatherAlg::RecursiveDoubling,
            ("allgather", "ring") => self.allgather = AllgatherAlg::Ring,
            ("allgather", _) => return bad("recursive-doubling, ring"),
            ("barrier", "dissemination") => self.barrier = BarrierAlg::Dissemination,
            ("barrier", "tree") => self.barrier = BarrierAlg::Tree,
            ("barrier", _) => return bad("dissemination, tree"),
            _ => return bad("(no such collective)"),
        }
        Ok(())
    }
}

/// Appends the ops of rank `me` (of `n`, ranks of the collective's communicator) for collective `c`
/// with matching tag `tag`.
pub fn expand(c: &Collective, n: u32, me: u32, tag: u64, alg: &Algorithms, out: &mut Vec<Op>) {
    match *c {
        Collective::Barrier => match alg.barrier {
            BarrierAlg::Dissemination => dissemination::barrier(n, me, tag, out),
            BarrierAlg::Tree => {
                binomial::reduce(n, me, 0, 0, tag, out);
                binomial::bcast(n, me, 0, 0, tag, out);
            }
        },
        Collective::Bcast { root, bytes } => binomial::bcast(n, me, root, bytes, tag, out),
        Collective::Reduce { root, bytes } => binomial::reduce(n, me, root, bytes, tag, out),
        Collective::Gather { root, bytes } => binomial::gather(n, me, root, bytes, tag, out),
        Collective::Scatter { root, bytes } => binomial::scatter(n, me, root, bytes, tag, out),
        Collective::Allreduce { bytes } => match alg.allreduce {
            AllreduceAlg::RecursiveDoubling => {
                recursive_doubling::allreduce(n, me, bytes, tag, out)
            }
            AllreduceAlg::Ring => ring::allreduce(n, me, bytes, tag, out),
        },
        Collective::Allgather { bytes } => match alg.allgather {
            AllgatherAlg::RecursiveDoubling => {
                recursive_doubling::allgather(n, me, bytes, tag, out)
            }
            AllgatherAlg::Ring => ring::allgather(n, me, bytes, tag, out),
        },
        Collective::Alltoall { bytes } => pairwise::alltoall(n, me, bytes, tag, out),
        Collective::Scan { bytes } => linear::scan(n, me, bytes, false, tag, out),
        Collective::Exscan { bytes } => linear::scan(n, me, bytes, true, tag, out),
        Collective::ReduceScatterBlock { bytes } => {
            linear::reducescatter(n, me, &vec![bytes; n as usize], tag, out)
        }
        Collective::ReduceScatter { ref counts } => linear::reducescatter(n, me, counts, tag, out),
        Collective::Gatherv { root, bytes } => linear::gatherv(n, me, root, bytes, tag, out),
        Collective::Scatterv { root, ref counts } => {
            linear::scatterv(n, me, root, counts, tag, out)
        }
        Collective::Allgatherv { ref counts } => linear::allgatherv(n, me, counts, tag, out),
        Collective::Alltoallv { ref send } => linear::alltoallv(n, me, send, tag, out),
    }
}

/// Appends a send.
pub(crate) fn send(out: &mut Vec<Op>, to: u32, bytes: u64, tag: u64) {
    out.push(Op::Send { to, bytes, tag });
}

/// Appends a blocking receive.
pub(crate) fn recv(out: &mut Vec<Op>, from: u32, tag: u64) {
    out.push(Op::Recv { from, tag });
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::workload::Program;

    /// Every rank's expansion of `c`, as one program.
    pub fn program(c: Collective, n: u32, alg: &Algorithms) -> Program {
        Program::from_fn(n, |me, ops| expand(&c, n, me, tag_for(0), alg, ops))
    }

    /// (src, dst, bytes) of every message, sorted.
    pub fn messages(p: &Program) -> Vec<(u32, u32, u64)> {
        let mut m: Vec<_> = p.sends().map(|(s, d, b, _)| (s, d, b)).collect();
        m.sort_unstable();
        m
    }

    /// Every send has its receive, and a causal run (unbounded buffers) completes every rank.
    pub fn check_replays(p: &Program) {
        p.validate().unwrap();
        let mut sends: Vec<_> = p.sends().map(|(s, d, _, t)| (s, d, t)).collect();
        let mut recvs: Vec<_> = p.recvs().collect();
        sends.sort_unstable();
        recvs.sort_unstable();
        assert_eq!(sends, recvs, "unmatched messages");
        // Causal run: sends go to mailboxes, receives wait.
        let n = p.ranks() as usize;
        let mut pc = vec![0usize; n];
        let mut mail: ahash::AHashMap<(u32, u32, u64), u32> = Default::default();
        let mut progress = true;
        while progress {
            progress = false;
            for r in 0..p.ranks() {
                let ops = p.rank_ops(r);
                while let Some(op) = ops.get(pc[r as usize]) {
                    match *op {
                        Op::Send { to, tag, .. } => *mail.entry((r, to, tag)).or_default() += 1,
                        Op::Recv { from, tag } => match mail.get_mut(&(from, r, tag)) {
                            Some(c) if *c > 0 => *c -= 1,
                            _ => break,
                        },
                        _ => {}
                    }
                    pc[r as usize] += 1;
                    progress = true;
                }
            }
        }
        for (r, &at) in pc.iter().enumerate() {
            assert_eq!(at, p.rank_ops(r as u32).len(), "rank {r} stuck");
        }
    }

    #[test]
    fn every_collective_replays_on_every_small_rank_count_with_every_algorithm() {
        let algs = [
            Algorithms::default(),
            Algorithms {
                allreduce: AllreduceAlg::Ring,
                allgather: AllgatherAlg::Ring,
                barrier: BarrierAlg::Tree,
            },
        ];
        for n in 2..=17 {
            for root in [0, n - 1, n / 2] {
                for alg in &algs {
                    for c in [
                        Collective::Barrier,
                        Collective::Bcast { root, bytes: 100 },
                        Collective::Reduce { root, bytes: 100 },
                        Collective::Allreduce { bytes: 100 },
                        Collective::Gather { root, bytes: 100 },
                        Collective::Allgather { bytes: 100 },
                        Collective::Alltoall { bytes: 100 },
                        Collective::Scatter { root, bytes: 100 },
                    ] {
                        check_replays(&program(c, n, alg));
                    }
                }
            }
        }
    }

    #[test]
    fn collective_tags_live_in_the_collective_context() {
        assert_eq!(tag_for(0), 1 << 32);
        assert_eq!(tag_for(5), (1 << 32) + 5);
        assert_eq!(tag_for(1 << 32), 1 << 32);
        let mut a = Algorithms::default();
        a.set("allreduce", "ring").unwrap();
        assert_eq!(a.allreduce, AllreduceAlg::Ring);
        assert!(a.set("allreduce", "bruck").is_err());
        assert!(a.set("scan", "ring").is_err());
    }
}
