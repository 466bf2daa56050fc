//! Collectives expanded into point-to-point messages, by the algorithms MPI libraries use.
//!
//! A trace lists each rank's own collective calls, in the same order on every rank (as MPI requires on
//! one communicator). The MPI layer expands each call, for the calling rank only, into `Send`/`Recv`
//! ops: every rank's expansion is computed independently, and the expansions agree because each
//! algorithm is a deterministic function of (ranks, root, sizes). The algorithms are MPICH's, one file
//! per family: [`binomial`] (bcast, reduce, gather, scatter), [`scatter_allgather`] (bcast for long
//! vectors), [`rabenseifner`] (allreduce and reduce for long vectors), [`recursive_doubling`]
//! (allreduce, allgather, allgatherv), [`ring`] (allgather, allgatherv, allreduce), [`bruck`]
//! (alltoall, allgather, allgatherv), [`pairwise`] and [`scattered`] (alltoall, alltoallv),
//! [`dissemination`] (barrier), [`scan`] (scan, exscan), [`reduce_scatter`] (reduce_scatter and
//! reduce_scatter_block) and [`linear`] (gatherv, scatterv, and the fixed `v` variants).
//!
//! Which algorithm serves a call is an [`Algorithms`] value (`trace:...,allreduce=ring`): the forced
//! algorithm of the collective, else MPICH's default selection by message and communicator size
//! ([`select`], `select=mpich`, the default), or netreplay's former fixed choices (`select=fixed`).
//! [`select::choose`] tells which algorithm a call gets.
//!
//! Collective traffic uses the tags of [`super::collective_tag`]: the communicator's collective
//! context in the upper 32 bits, the call's sequence number below, so consecutive collectives never
//! match each other's messages nor point-to-point traffic. Reductions are modelled as communication
//! only (the arithmetic is not timed) and assumed commutative (a trace does not say).

pub mod algorithms;
pub mod binomial;
pub mod bruck;
pub mod dissemination;
pub mod linear;
pub mod pairwise;
pub mod rabenseifner;
pub mod recursive_doubling;
pub mod reduce_scatter;
pub mod ring;
pub mod scan;
pub mod scatter_allgather;
pub mod scattered;
pub mod select;

use crate::program::Op;

pub use super::call::Collective;
use super::call::SharedSize;
pub use algorithms::{
    Alg, Algorithms, AllgatherAlg, AllgathervAlg, AllreduceAlg, AlltoallAlg, AlltoallvAlg,
    BarrierAlg, BcastAlg, GatherAlg, LinearAlg, ReduceAlg, ReduceScatterAlg, ScanAlg, ScatterAlg,
    Select,
};

/// The matching tag of a rank's `seq`-th collective call on MPI_COMM_WORLD (counting from 0).
pub fn tag_for(seq: u64) -> u64 {
    super::collective_tag(0, seq)
}

/// Whether MPICH returns from `c` at once because it moves no data (`count == 0`; every rank knows
/// the sizes of these collectives). Only under `select=mpich`: `select=fixed` expands them as before.
fn moves_nothing(c: &Collective) -> bool {
    match c.shared_size() {
        SharedSize::Bytes(bytes) => bytes == 0,
        SharedSize::Counts(counts) => counts.iter().all(|&c| c == 0),
        SharedSize::None => false,
    }
}

/// At least as many ops as [`expand`] appends for any rank of `n` for `c`, computed from the sizes
/// without expanding, so that a trace's lowering refuses a call past its memory before building it.
/// Every algorithm sends and receives O(n) messages per rank whatever the sizes (4n + 64 bounds
/// them all: the ring allreduce's 4(n - 1) is the most), except the pipelined ring allgatherv, whose
/// blocks go in chunks: two ops per chunk of every block.
pub fn ops_bound(c: &Collective, n: u32, alg: &Algorithms) -> u64 {
    let spread = 4 * u64::from(n) + 64;
    match (c, select::choose(c, n, alg)) {
        (Collective::Allgatherv { counts }, Alg::Allgatherv(AllgathervAlg::Ring)) => {
            let smallest = counts.iter().copied().min().unwrap_or(0);
            let chunk = smallest.max(select::ALLGATHERV_PIPELINE_MSG_SIZE);
            counts
                .iter()
                .fold(spread, |a, &b| a.saturating_add(2 * b.div_ceil(chunk)))
        }
        _ => spread,
    }
}

/// Appends the ops of rank `me` (of `n`, ranks of the collective's communicator) for collective `c`
/// with matching tag `tag`, by the algorithm [`select::choose`] picks.
pub fn expand(c: &Collective, n: u32, me: u32, tag: u64, alg: &Algorithms, out: &mut Vec<Op>) {
    if n < 2 || (alg.select == Select::Mpich && moves_nothing(c)) {
        return;
    }
    let chosen = select::choose(c, n, alg);
    match (c, chosen) {
        (Collective::Barrier, Alg::Barrier(BarrierAlg::Dissemination)) => {
            dissemination::barrier(n, me, tag, out)
        }
        (Collective::Barrier, _) => {
            binomial::reduce(n, me, 0, 0, tag, out);
            binomial::bcast(n, me, 0, 0, tag, out);
        }
        (&Collective::Bcast { root, bytes }, Alg::Bcast(a)) => match a {
            BcastAlg::Binomial => binomial::bcast(n, me, root, bytes, tag, out),
            BcastAlg::ScatterRecursiveDoubling => {
                scatter_allgather::bcast_recursive_doubling(n, me, root, bytes, tag, out)
            }
            BcastAlg::ScatterRing => scatter_allgather::bcast_ring(n, me, root, bytes, tag, out),
        },
        (&Collective::Reduce { root, bytes }, Alg::Reduce(ReduceAlg::Rabenseifner)) => {
            rabenseifner::reduce(n, me, root, bytes, tag, out)
        }
        (&Collective::Reduce { root, bytes }, _) => binomial::reduce(n, me, root, bytes, tag, out),
        (&Collective::Allreduce { bytes }, Alg::Allreduce(a)) => match a {
            AllreduceAlg::RecursiveDoubling => {
                recursive_doubling::allreduce(n, me, bytes, tag, out)
            }
            AllreduceAlg::Ring => ring::allreduce(n, me, bytes, tag, out),
            AllreduceAlg::Rabenseifner => rabenseifner::allreduce(n, me, bytes, tag, out),
        },
        (&Collective::Gather { root, bytes }, _) => binomial::gather(n, me, root, bytes, tag, out),
        (&Collective::Scatter { root, bytes }, _) => {
            binomial::scatter(n, me, root, bytes, tag, out)
        }
        (&Collective::Allgather { bytes }, Alg::Allgather(a)) => match a {
            AllgatherAlg::RecursiveDoubling => {
                recursive_doubling::allgather(n, me, bytes, tag, out)
            }
            AllgatherAlg::Bruck => bruck::allgather(n, me, bytes, tag, out),
            AllgatherAlg::Ring => ring::allgather(n, me, bytes, tag, out),
        },
        (&Collective::Alltoall { bytes }, Alg::Alltoall(a)) => match a {
            AlltoallAlg::Pairwise => pairwise::alltoall(n, me, bytes, tag, out),
            AlltoallAlg::Bruck => bruck::alltoall(n, me, bytes, tag, out),
            AlltoallAlg::Scattered => scattered::alltoall(n, me, bytes, tag, out),
        },
        (&Collective::Scan { bytes } | &Collective::Exscan { bytes }, _) => {
            scan::scan(n, me, bytes, tag, out)
        }
        (&Collective::ReduceScatterBlock { bytes }, Alg::ReduceScatterBlock(a)) => {
            reduce_scatter_with(a, n, me, |_| bytes, tag, out)
        }
        (Collective::ReduceScatter { counts }, Alg::ReduceScatter(a)) => {
            reduce_scatter_with(a, n, me, |i| counts[i as usize], tag, out)
        }
        (&Collective::Gatherv { root, bytes }, _) => linear::gatherv(n, me, root, bytes, tag, out),
        (Collective::Scatterv { root, counts }, _) => {
            linear::scatterv(n, me, *root, counts, tag, out)
        }
        (Collective::Allgatherv { counts }, Alg::Allgatherv(a)) => match a {
            AllgathervAlg::RecursiveDoubling => {
                recursive_doubling::allgatherv(n, me, counts, tag, out)
            }
            AllgathervAlg::Bruck => bruck::allgatherv(n, me, counts, tag, out),
            AllgathervAlg::Ring => ring::allgatherv(n, me, counts, tag, out),
            AllgathervAlg::RingUnpipelined => linear::allgatherv(n, me, counts, tag, out),
        },
        (Collective::Alltoallv { send }, Alg::Alltoallv(a)) => match a {
            AlltoallvAlg::Scattered => scattered::alltoallv(n, me, send, tag, out),
            AlltoallvAlg::Pairwise => linear::alltoallv(n, me, send, tag, out),
        },
        (c, a) => unreachable!("{} chosen for {}", a.name(), c.name()),
    }
}

/// A reduce_scatter(_block) by algorithm `a`; rank i ends with `count(i)` bytes.
fn reduce_scatter_with(
    a: ReduceScatterAlg,
    n: u32,
    me: u32,
    count: impl Fn(u32) -> u64,
    tag: u64,
    out: &mut Vec<Op>,
) {
    match a {
        ReduceScatterAlg::RecursiveHalving => {
            reduce_scatter::recursive_halving(n, me, count, tag, out)
        }
        ReduceScatterAlg::Pairwise => reduce_scatter::pairwise(n, me, count, tag, out),
        ReduceScatterAlg::ReduceScatterv => linear::reducescatter(n, me, count, tag, out),
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
    use crate::program::Program;

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

    /// One of each collective with `bytes` per block (or vector), root `root`, on n ranks.
    pub fn all_collectives(n: u32, root: u32, bytes: u64) -> Vec<Collective> {
        let v = |f: &dyn Fn(u32) -> u64| (0..n).map(f).collect::<Vec<u64>>();
        vec![
            Collective::Barrier,
            Collective::Bcast { root, bytes },
            Collective::Reduce { root, bytes },
            Collective::Allreduce { bytes },
            Collective::Gather { root, bytes },
            Collective::Scatter { root, bytes },
            Collective::Allgather { bytes },
            Collective::Alltoall { bytes },
            Collective::Scan { bytes },
            Collective::Exscan { bytes },
            Collective::ReduceScatterBlock { bytes },
            Collective::ReduceScatter {
                counts: v(&|i| bytes * u64::from(i % 3)),
            },
            Collective::Gatherv { root, bytes },
            Collective::Scatterv {
                root,
                counts: v(&|i| bytes + u64::from(i)),
            },
            Collective::Allgatherv {
                counts: v(&|i| bytes * u64::from(i % 2)),
            },
            Collective::Alltoallv {
                send: v(&|i| bytes * u64::from(i % 4)),
            },
        ]
    }

    /// Every forced algorithm of `c`'s collective, under both selection modes, and the two modes.
    pub fn every_algorithm(c: &Collective) -> Vec<Algorithms> {
        let mut all = vec![Algorithms::MPICH, Algorithms::FIXED];
        for base in [Algorithms::MPICH, Algorithms::FIXED] {
            for name in Algorithms::values(c.name()).unwrap() {
                let mut a = base;
                a.set(c.name(), name).unwrap();
                all.push(a);
            }
        }
        all
    }

    #[test]
    fn ops_bound_bounds_every_ranks_expansion() {
        for (n, bytes) in [(2, 0), (3, 1), (5, 5000), (8, 100_000), (13, 3_000_000)] {
            for c in all_collectives(n, n / 2, bytes) {
                for alg in every_algorithm(&c) {
                    for me in 0..n {
                        let mut out = Vec::new();
                        expand(&c, n, me, tag_for(0), &alg, &mut out);
                        assert!(out.len() as u64 <= ops_bound(&c, n, &alg), "{c:?} {alg:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_algorithm_replays_on_every_small_rank_count() {
        for n in 1..=17 {
            for root in [0, n - 1, n / 2] {
                for bytes in [0, 1, 100, 5000] {
                    for c in all_collectives(n, root, bytes) {
                        for alg in every_algorithm(&c) {
                            let p = program(c.clone(), n, &alg);
                            check_replays(&p);
                        }
                    }
                }
            }
        }
        for n in [31, 32, 33, 63, 100] {
            for c in all_collectives(n, n / 3, 3000) {
                for alg in every_algorithm(&c) {
                    check_replays(&program(c.clone(), n, &alg));
                }
            }
        }
    }

    /// The message count of algorithm `a` on n ranks, when every block and piece is non-empty (and
    /// allgatherv blocks no larger than the pipeline chunk).
    fn formula(c: &Collective, a: Alg, n: u32) -> u64 {
        let n64 = u64::from(n);
        let p = u64::from(select::pof2(n));
        let (rem, lg) = (n64 - p, u64::from(p.trailing_zeros()));
        let ceil_lg = u64::from(n.next_power_of_two().trailing_zeros());
        let folded_root = |root: u32| u64::from(root < 2 * n - 2 * p as u32 && root % 2 == 1);
        match (c, a) {
            (_, Alg::Barrier(BarrierAlg::Dissemination)) => n64 * ceil_lg,
            (_, Alg::Barrier(BarrierAlg::Tree)) => 2 * (n64 - 1),
            (_, Alg::Bcast(BcastAlg::Binomial)) => n64 - 1,
            (_, Alg::Bcast(BcastAlg::ScatterRecursiveDoubling)) => n64 - 1 + n64 * lg,
            (_, Alg::Bcast(BcastAlg::ScatterRing)) => n64 - 1 + n64 * (n64 - 1),
            (_, Alg::Reduce(ReduceAlg::Binomial)) => n64 - 1,
            (Collective::Reduce { root, .. }, Alg::Reduce(ReduceAlg::Rabenseifner)) => {
                rem + p * lg + p - 1 + folded_root(*root)
            }
            (_, Alg::Allreduce(AllreduceAlg::RecursiveDoubling)) => p * lg + 2 * rem,
            (_, Alg::Allreduce(AllreduceAlg::Ring)) => 2 * n64 * (n64 - 1),
            (_, Alg::Allreduce(AllreduceAlg::Rabenseifner)) => 2 * p * lg + 2 * rem,
            (_, Alg::Gather(_) | Alg::Scatter(_) | Alg::Gatherv(_) | Alg::Scatterv(_)) => n64 - 1,
            (_, Alg::Allgather(AllgatherAlg::RecursiveDoubling)) => p * lg + 2 * rem,
            (_, Alg::Allgather(AllgatherAlg::Bruck) | Alg::Alltoall(AlltoallAlg::Bruck)) => {
                n64 * ceil_lg
            }
            (_, Alg::Allgatherv(AllgathervAlg::Bruck)) => n64 * ceil_lg,
            (_, Alg::Allgatherv(AllgathervAlg::RecursiveDoubling)) => n64 * lg,
            (_, Alg::Scan(_) | Alg::Exscan(_)) => scan::messages(n),
            (_, Alg::ReduceScatter(rs) | Alg::ReduceScatterBlock(rs)) => match rs {
                ReduceScatterAlg::RecursiveHalving => 2 * rem + p * lg,
                ReduceScatterAlg::Pairwise => n64 * (n64 - 1),
                ReduceScatterAlg::ReduceScatterv => 2 * (n64 - 1),
            },
            // Ring allgather(v), pairwise and scattered alltoall(v).
            _ => n64 * (n64 - 1),
        }
    }

    /// For each collective, a small and a large size pick the algorithms of the table in
    /// traces/FORMAT.md, and their expansions have the formula's message counts.
    #[test]
    fn small_and_large_messages_pick_the_table_algorithms() {
        let table: &[(u32, u64, u64, &str, &str)] = &[
            // (n, small bytes, large bytes, small algorithm, large algorithm), per collective in
            // all_collectives' order.
            (16, 1024, 1 << 20, "dissemination", "dissemination"),
            (16, 1024, 65536, "binomial", "scatter-recursive-doubling"),
            (16, 1024, 65536, "binomial", "rabenseifner"),
            (16, 1024, 65536, "recursive-doubling", "rabenseifner"),
            (16, 1024, 65536, "binomial", "binomial"),
            (16, 1024, 65536, "binomial", "binomial"),
            (16, 1024, 65536, "recursive-doubling", "ring"),
            (16, 64, 65536, "bruck", "pairwise"),
            (16, 64, 65536, "recursive-doubling", "recursive-doubling"),
            (16, 64, 65536, "recursive-doubling", "recursive-doubling"),
            (16, 1024, 65536, "recursive-halving", "pairwise"),
            (16, 1024, 65536, "recursive-halving", "pairwise"),
            (16, 1024, 65536, "linear", "linear"),
            (16, 1024, 65536, "linear", "linear"),
            (16, 1024, 32768, "recursive-doubling", "ring"),
            (16, 1024, 65536, "scattered", "scattered"),
        ];
        let table_12: &[(&str, &str)] = &[
            ("dissemination", "dissemination"),
            ("binomial", "scatter-ring"),
            ("binomial", "rabenseifner"),
            ("recursive-doubling", "rabenseifner"),
            ("binomial", "binomial"),
            ("binomial", "binomial"),
            ("bruck", "ring"),
            ("bruck", "pairwise"),
            ("recursive-doubling", "recursive-doubling"),
            ("recursive-doubling", "recursive-doubling"),
            ("recursive-halving", "pairwise"),
            ("recursive-halving", "pairwise"),
            ("linear", "linear"),
            ("linear", "linear"),
            ("bruck", "ring"),
            ("scattered", "scattered"),
        ];
        for n in [16u32, 12] {
            for (i, &(_, small, large, s16, l16)) in table.iter().enumerate() {
                let (s, l) = if n == 16 { (s16, l16) } else { table_12[i] };
                for (bytes, want) in [(small, s), (large, l)] {
                    let c = uniform(&all_collectives(n, 3, bytes)[i], n, bytes);
                    let a = select::choose(&c, n, &Algorithms::MPICH);
                    assert_eq!(a.name(), want, "{} of {bytes} bytes on {n} ranks", c.name());
                    let count = program(c.clone(), n, &Algorithms::MPICH).sends().count();
                    assert_eq!(
                        count as u64,
                        formula(&c, a, n),
                        "{} on {n} ranks",
                        a.function()
                    );
                }
            }
        }
    }

    /// `c` with every per-rank count equal to `bytes` (non-empty blocks for the formulas).
    fn uniform(c: &Collective, n: u32, bytes: u64) -> Collective {
        let same = vec![bytes; n as usize];
        match c {
            Collective::ReduceScatter { .. } => Collective::ReduceScatter { counts: same },
            Collective::Scatterv { root, .. } => Collective::Scatterv {
                root: *root,
                counts: same,
            },
            Collective::Allgatherv { .. } => Collective::Allgatherv { counts: same },
            Collective::Alltoallv { .. } => Collective::Alltoallv { send: same },
            c => c.clone(),
        }
    }

    /// Every forced algorithm matches its formula on every n (sizes that fill every block).
    #[test]
    fn every_algorithm_has_its_message_count() {
        for n in 2..=17u32 {
            for root in [0, 1, n - 1] {
                for c in all_collectives(n, root, 8 * 256) {
                    let c = uniform(&c, n, 8 * 256);
                    for alg in every_algorithm(&c) {
                        let a = select::choose(&c, n, &alg);
                        let pof2_only = matches!(
                            a,
                            Alg::Bcast(BcastAlg::ScatterRecursiveDoubling)
                                | Alg::Allgatherv(AllgathervAlg::RecursiveDoubling)
                        );
                        if pof2_only && !n.is_power_of_two() {
                            continue;
                        }
                        let count = program(c.clone(), n, &alg).sends().count() as u64;
                        assert_eq!(count, formula(&c, a, n), "{} on {n} ranks", a.function());
                    }
                }
            }
        }
    }

    /// Data that every rank must end with arrives: allgather(v) ranks receive every other block,
    /// bcast ranks the vector, alltoall ranks one block from each peer (Bruck forwards blocks, so it
    /// moves more).
    #[test]
    fn bytes_are_conserved() {
        for n in 2..=17u32 {
            let received = |c: &Collective, alg: &Algorithms, r: u32| -> u64 {
                let p = program(c.clone(), n, alg);
                p.sends().filter(|x| x.1 == r).map(|x| x.2).sum()
            };
            for alg in every_algorithm(&Collective::Allgather { bytes: 0 }) {
                let c = Collective::Allgather { bytes: 10 };
                if matches!(
                    select::choose(&c, n, &alg),
                    Alg::Allgather(AllgatherAlg::RecursiveDoubling)
                ) && !n.is_power_of_two()
                {
                    continue; // the fold: tested in recursive_doubling
                }
                for r in 0..n {
                    assert_eq!(received(&c, &alg, r), 10 * u64::from(n - 1), "{alg:?}");
                }
            }
            let counts: Vec<u64> = (0..n).map(|i| u64::from(i) * 3 + 1).collect();
            let total: u64 = counts.iter().sum();
            let c = Collective::Allgatherv {
                counts: counts.clone(),
            };
            for alg in every_algorithm(&c) {
                for r in 0..n {
                    assert_eq!(received(&c, &alg, r), total - counts[r as usize], "{alg:?}");
                }
            }
            for root in [0, n - 1] {
                let c = Collective::Bcast { root, bytes: 1000 };
                for alg in every_algorithm(&c) {
                    // Scatter + allgather sends interior ranks their subtree's pieces twice.
                    let twice = select::choose(&c, n, &alg) != Alg::Bcast(BcastAlg::Binomial);
                    for r in (0..n).filter(|&r| r != root) {
                        let got = received(&c, &alg, r);
                        assert!(got == 1000 || twice && got > 1000 && got < 2000, "{alg:?}");
                    }
                }
            }
            let c = Collective::Alltoall { bytes: 7 };
            for alg in every_algorithm(&c) {
                let bruck = matches!(
                    select::choose(&c, n, &alg),
                    Alg::Alltoall(AlltoallAlg::Bruck)
                );
                for r in 0..n {
                    let got = received(&c, &alg, r);
                    let least = 7 * u64::from(n - 1);
                    assert!(if bruck { got >= least } else { got == least }, "{alg:?}");
                }
            }
        }
    }

    #[test]
    fn zero_sized_collectives_send_nothing_under_mpich() {
        for c in all_collectives(8, 0, 0) {
            let p = program(c.clone(), 8, &Algorithms::MPICH);
            match c {
                Collective::Barrier
                | Collective::Gatherv { .. }
                | Collective::Scatterv { .. }
                | Collective::Alltoallv { .. } => assert!(p.sends().count() > 0),
                _ => assert_eq!(p.sends().count(), 0, "{}", c.name()),
            }
            check_replays(&program(c, 8, &Algorithms::FIXED));
        }
    }

    #[test]
    fn collective_tags_live_in_the_collective_context() {
        assert_eq!(tag_for(0), 1 << 32);
        assert_eq!(tag_for(5), (1 << 32) + 5);
        assert_eq!(tag_for(1 << 32), 1 << 32);
    }
}
