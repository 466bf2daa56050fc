//! MPICH's default algorithm selection, by message size and communicator size.
//!
//! The rules are those of MPICH 3.3.2's `MPIR_<Coll>_intra_auto` functions
//! (`src/mpi/coll/<coll>/<coll>.c`), the last MPICH release whose selection is written in C with the
//! CVAR thresholds below; they are what the CH3 device runs, and MPICH 3.4 and 4.x encode the same
//! rules in the JSON tree `maint/tuning/coll/mpir/generic.json` (with the differences noted on each
//! function). The thresholds are the CVAR defaults. Sizes are bytes, as the trace gives them.
//!
//! Assumptions, as a trace does not say:
//! - every reduction operation is commutative and built in (MPI_SUM, MPI_MAX...), so the
//!   non-commutative branches of MPICH never apply;
//! - SMP-aware algorithms are off (`MPIR_CVAR_ENABLE_SMP_COLLECTIVES` or one rank per node): the
//!   network model places ranks itself;
//! - buffers are not `MPI_IN_PLACE` (alltoall and alltoallv would use `pairwise_sendrecv_replace`);
//! - the vector of a reduction has elements of [`element_bytes`] bytes, for MPICH's `count >= pof2` test.

use super::Collective;
use super::algorithms::{
    Alg, Algorithms, AllgatherAlg, AllgathervAlg, AllreduceAlg, AlltoallAlg, AlltoallvAlg,
    BarrierAlg, BcastAlg, GatherAlg, LinearAlg, ReduceAlg, ReduceScatterAlg, ScanAlg, ScatterAlg,
    Select,
};

/// `MPIR_CVAR_BCAST_SHORT_MSG_SIZE` (default 12288): below it, binomial bcast.
pub const BCAST_SHORT_MSG_SIZE: u64 = 12288;
/// `MPIR_CVAR_BCAST_LONG_MSG_SIZE` (default 524288): from it on, scatter + ring allgather.
pub const BCAST_LONG_MSG_SIZE: u64 = 524288;
/// `MPIR_CVAR_BCAST_MIN_PROCS` (default 8): below it, binomial bcast at any size.
pub const BCAST_MIN_PROCS: u32 = 8;
/// `MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE` (default 2048): up to it, recursive doubling allreduce.
pub const ALLREDUCE_SHORT_MSG_SIZE: u64 = 2048;
/// `MPIR_CVAR_REDUCE_SHORT_MSG_SIZE` (default 2048): up to it, binomial reduce.
pub const REDUCE_SHORT_MSG_SIZE: u64 = 2048;
/// `MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE` (default 256): up to it (per pair), Bruck alltoall.
pub const ALLTOALL_SHORT_MSG_SIZE: u64 = 256;
/// `MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE` (default 32768): up to it (per pair), scattered alltoall.
pub const ALLTOALL_MEDIUM_MSG_SIZE: u64 = 32768;
/// The literal `comm_size >= 8` of `MPIR_Alltoall_intra_auto` (no CVAR): Bruck needs this many ranks.
pub const ALLTOALL_BRUCK_MIN_PROCS: u32 = 8;
/// `MPIR_CVAR_ALLTOALL_THROTTLE` (default 32): requests in flight per round of the scattered
/// alltoall and alltoallv.
pub const ALLTOALL_THROTTLE: u32 = 32;
/// `MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE` (default 81920): below it (total), Bruck allgather(v) for
/// non-powers of two.
pub const ALLGATHER_SHORT_MSG_SIZE: u64 = 81920;
/// `MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE` (default 524288): below it (total), recursive doubling
/// allgather(v) for powers of two.
pub const ALLGATHER_LONG_MSG_SIZE: u64 = 524288;
/// `MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE` (default 32768): the smallest chunk of the pipelined ring
/// allgatherv.
pub const ALLGATHERV_PIPELINE_MSG_SIZE: u64 = 32768;
/// `MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE` (default 524288; named
/// `MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE` up to MPICH 3.2): from it on (total), pairwise
/// reduce_scatter(_block).
pub const REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE: u64 = 524288;

/// The element size assumed for a reduction vector of `bytes`: the largest of 8, 4, 2 and 1 that
/// divides it (a trace gives bytes, MPICH's rules and splits count elements).
pub fn element_bytes(bytes: u64) -> u64 {
    1 << bytes.trailing_zeros().min(3)
}

/// The largest power of two <= n (MPICH's `comm_ptr->pof2`), 1 for n <= 1.
pub fn pof2(n: u32) -> u32 {
    if n <= 1 {
        1
    } else {
        1 << (31 - n.leading_zeros())
    }
}

/// The algorithm `alg` picks for collective `c` on `n` ranks: the forced one, else by `alg.select`.
pub fn choose(c: &Collective, n: u32, alg: &Algorithms) -> Alg {
    match c {
        Collective::Barrier => Alg::Barrier(barrier(alg)),
        Collective::Bcast { bytes, .. } => Alg::Bcast(bcast(alg, n, *bytes)),
        Collective::Reduce { bytes, .. } => Alg::Reduce(reduce(alg, n, *bytes)),
        Collective::Allreduce { bytes } => Alg::Allreduce(allreduce(alg, n, *bytes)),
        Collective::Gather { .. } => Alg::Gather(alg.gather.unwrap_or(GatherAlg::Binomial)),
        Collective::Scatter { .. } => Alg::Scatter(alg.scatter.unwrap_or(ScatterAlg::Binomial)),
        Collective::Allgather { bytes } => Alg::Allgather(allgather(alg, n, *bytes)),
        Collective::Alltoall { bytes } => Alg::Alltoall(alltoall(alg, n, *bytes)),
        Collective::Scan { .. } => Alg::Scan(alg.scan.unwrap_or(ScanAlg::RecursiveDoubling)),
        Collective::Exscan { .. } => Alg::Exscan(alg.exscan.unwrap_or(ScanAlg::RecursiveDoubling)),
        Collective::ReduceScatterBlock { bytes } => Alg::ReduceScatterBlock(reduce_scatter(
            alg.reduce_scatter_block,
            alg.select,
            bytes.saturating_mul(u64::from(n)),
        )),
        Collective::ReduceScatter { counts } => Alg::ReduceScatter(reduce_scatter(
            alg.reduce_scatter,
            alg.select,
            total(counts),
        )),
        Collective::Gatherv { .. } => Alg::Gatherv(alg.gatherv.unwrap_or(LinearAlg::Linear)),
        Collective::Scatterv { .. } => Alg::Scatterv(alg.scatterv.unwrap_or(LinearAlg::Linear)),
        Collective::Allgatherv { counts } => Alg::Allgatherv(allgatherv(alg, n, total(counts))),
        Collective::Alltoallv { .. } => Alg::Alltoallv(alg.alltoallv.unwrap_or(match alg.select {
            Select::Mpich => AlltoallvAlg::Scattered,
            Select::Fixed => AlltoallvAlg::Pairwise,
        })),
    }
}

/// Sum of per-rank counts.
pub fn total(counts: &[u64]) -> u64 {
    counts.iter().fold(0u64, |a, &c| a.saturating_add(c))
}

/// `MPIR_Barrier_intra_auto`: dissemination.
fn barrier(alg: &Algorithms) -> BarrierAlg {
    alg.barrier.unwrap_or(BarrierAlg::Dissemination)
}

/// `MPIR_Bcast_intra_auto`: binomial if `bytes < BCAST_SHORT_MSG_SIZE` or `n < BCAST_MIN_PROCS`;
/// else scatter + recursive doubling allgather if `bytes < BCAST_LONG_MSG_SIZE` and n is a power of
/// two; else scatter + ring allgather. (MPICH 4's JSON tests `<=` where 3.3 tests `<`.)
fn bcast(alg: &Algorithms, n: u32, bytes: u64) -> BcastAlg {
    alg.bcast.unwrap_or(match alg.select {
        Select::Fixed => BcastAlg::Binomial,
        Select::Mpich if bytes < BCAST_SHORT_MSG_SIZE || n < BCAST_MIN_PROCS => BcastAlg::Binomial,
        Select::Mpich if bytes < BCAST_LONG_MSG_SIZE && n.is_power_of_two() => {
            BcastAlg::ScatterRecursiveDoubling
        }
        Select::Mpich => BcastAlg::ScatterRing,
    })
}

/// MPICH's `count < pof2` test of reduce and allreduce (elements of [`element_bytes`]).
fn fewer_elements_than_pof2(n: u32, bytes: u64) -> bool {
    bytes / element_bytes(bytes) < u64::from(pof2(n))
}

/// `MPIR_Reduce_intra_auto`: Rabenseifner if `bytes > REDUCE_SHORT_MSG_SIZE` and `count >= pof2`
/// (built-in operation), else binomial.
fn reduce(alg: &Algorithms, n: u32, bytes: u64) -> ReduceAlg {
    alg.reduce.unwrap_or(match alg.select {
        Select::Mpich if bytes > REDUCE_SHORT_MSG_SIZE && !fewer_elements_than_pof2(n, bytes) => {
            ReduceAlg::Rabenseifner
        }
        _ => ReduceAlg::Binomial,
    })
}

/// `MPIR_Allreduce_intra_auto`: recursive doubling if `bytes <= ALLREDUCE_SHORT_MSG_SIZE` or
/// `count < pof2`, else Rabenseifner. This is the rule of MPICH 3.0 to 3.2 and of the CVAR's
/// description; 3.3's C code tests a size that is 0 unless `MPIR_CVAR_MAX_SMP_ALLREDUCE_MSG_SIZE` is
/// set (so always recursive doubling), and MPICH 3.4/4.x's JSON uses 8 bytes instead of 2048.
fn allreduce(alg: &Algorithms, n: u32, bytes: u64) -> AllreduceAlg {
    alg.allreduce.unwrap_or(match alg.select {
        Select::Mpich
            if bytes > ALLREDUCE_SHORT_MSG_SIZE && !fewer_elements_than_pof2(n, bytes) =>
        {
            AllreduceAlg::Rabenseifner
        }
        _ => AllreduceAlg::RecursiveDoubling,
    })
}

/// `MPIR_Allgather_intra_auto` on the total `n · bytes`: recursive doubling if below
/// `ALLGATHER_LONG_MSG_SIZE` and n is a power of two; else Bruck if below `ALLGATHER_SHORT_MSG_SIZE`;
/// else ring.
fn allgather(alg: &Algorithms, n: u32, bytes: u64) -> AllgatherAlg {
    let total = bytes.saturating_mul(u64::from(n));
    alg.allgather.unwrap_or(match alg.select {
        Select::Fixed => AllgatherAlg::RecursiveDoubling,
        Select::Mpich if total < ALLGATHER_LONG_MSG_SIZE && n.is_power_of_two() => {
            AllgatherAlg::RecursiveDoubling
        }
        Select::Mpich if total < ALLGATHER_SHORT_MSG_SIZE => AllgatherAlg::Bruck,
        Select::Mpich => AllgatherAlg::Ring,
    })
}

/// `MPIR_Allgatherv_intra_auto` on the sum of the counts: the allgather rule.
fn allgatherv(alg: &Algorithms, n: u32, total: u64) -> AllgathervAlg {
    alg.allgatherv.unwrap_or(match alg.select {
        Select::Fixed => AllgathervAlg::RingUnpipelined,
        Select::Mpich if total < ALLGATHER_LONG_MSG_SIZE && n.is_power_of_two() => {
            AllgathervAlg::RecursiveDoubling
        }
        Select::Mpich if total < ALLGATHER_SHORT_MSG_SIZE => AllgathervAlg::Bruck,
        Select::Mpich => AllgathervAlg::Ring,
    })
}

/// `MPIR_Alltoall_intra_auto` on the per-pair `bytes`: Bruck if `bytes <= ALLTOALL_SHORT_MSG_SIZE`
/// and `n >= 8`; else scattered if `bytes <= ALLTOALL_MEDIUM_MSG_SIZE`; else pairwise.
fn alltoall(alg: &Algorithms, n: u32, bytes: u64) -> AlltoallAlg {
    alg.alltoall.unwrap_or(match alg.select {
        Select::Fixed => AlltoallAlg::Pairwise,
        Select::Mpich if bytes <= ALLTOALL_SHORT_MSG_SIZE && n >= ALLTOALL_BRUCK_MIN_PROCS => {
            AlltoallAlg::Bruck
        }
        Select::Mpich if bytes <= ALLTOALL_MEDIUM_MSG_SIZE => AlltoallAlg::Scattered,
        Select::Mpich => AlltoallAlg::Pairwise,
    })
}

/// `MPIR_Reduce_scatter_intra_auto` / `MPIR_Reduce_scatter_block_intra_auto` for a commutative
/// operation, on the total size: recursive halving below
/// `REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE`, else pairwise.
fn reduce_scatter(
    forced: Option<ReduceScatterAlg>,
    select: Select,
    total: u64,
) -> ReduceScatterAlg {
    forced.unwrap_or(match select {
        Select::Fixed => ReduceScatterAlg::ReduceScatterv,
        Select::Mpich if total < REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE => {
            ReduceScatterAlg::RecursiveHalving
        }
        Select::Mpich => ReduceScatterAlg::Pairwise,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(c: Collective, n: u32) -> &'static str {
        choose(&c, n, &Algorithms::default()).name()
    }

    #[test]
    fn thresholds_pick_mpich_algorithms() {
        use Collective as C;
        // Bcast: short or few ranks, medium on powers of two, else ring.
        assert_eq!(
            pick(
                C::Bcast {
                    root: 0,
                    bytes: 12287
                },
                64
            ),
            "binomial"
        );
        assert_eq!(
            pick(
                C::Bcast {
                    root: 0,
                    bytes: 1 << 20
                },
                7
            ),
            "binomial"
        );
        assert_eq!(
            pick(
                C::Bcast {
                    root: 0,
                    bytes: 12288
                },
                64
            ),
            "scatter-recursive-doubling"
        );
        assert_eq!(
            pick(
                C::Bcast {
                    root: 0,
                    bytes: 12288
                },
                12
            ),
            "scatter-ring"
        );
        assert_eq!(
            pick(
                C::Bcast {
                    root: 0,
                    bytes: 524288
                },
                64
            ),
            "scatter-ring"
        );
        // Allreduce and reduce: 2048 bytes, and count >= pof2.
        assert_eq!(pick(C::Allreduce { bytes: 2048 }, 16), "recursive-doubling");
        assert_eq!(pick(C::Allreduce { bytes: 2056 }, 16), "rabenseifner");
        assert_eq!(
            pick(C::Allreduce { bytes: 4096 }, 1024),
            "recursive-doubling"
        );
        assert_eq!(pick(C::Allreduce { bytes: 8192 }, 1024), "rabenseifner");
        assert_eq!(
            pick(
                C::Reduce {
                    root: 1,
                    bytes: 2048
                },
                16
            ),
            "binomial"
        );
        assert_eq!(
            pick(
                C::Reduce {
                    root: 1,
                    bytes: 2049
                },
                16
            ),
            "rabenseifner"
        );
        assert_eq!(
            pick(
                C::Reduce {
                    root: 1,
                    bytes: 4096
                },
                1024
            ),
            "binomial"
        );
        // Alltoall: 256 and 8 ranks, 32768.
        assert_eq!(pick(C::Alltoall { bytes: 256 }, 8), "bruck");
        assert_eq!(pick(C::Alltoall { bytes: 256 }, 7), "scattered");
        assert_eq!(pick(C::Alltoall { bytes: 257 }, 64), "scattered");
        assert_eq!(pick(C::Alltoall { bytes: 32768 }, 64), "scattered");
        assert_eq!(pick(C::Alltoall { bytes: 32769 }, 64), "pairwise");
        // Allgather on the total: 524288 for powers of two, 81920 otherwise.
        assert_eq!(pick(C::Allgather { bytes: 8191 }, 64), "recursive-doubling");
        assert_eq!(pick(C::Allgather { bytes: 8192 }, 64), "ring");
        assert_eq!(pick(C::Allgather { bytes: 8191 }, 10), "bruck");
        assert_eq!(pick(C::Allgather { bytes: 8192 }, 10), "ring");
        let v = |each: u64, n: u32| C::Allgatherv {
            counts: vec![each; n as usize],
        };
        assert_eq!(pick(v(100, 16), 16), "recursive-doubling");
        assert_eq!(pick(v(100, 12), 12), "bruck");
        assert_eq!(pick(v(1 << 16, 12), 12), "ring");
        // Reduce_scatter(_block) on the total.
        assert_eq!(
            pick(C::ReduceScatterBlock { bytes: 1000 }, 16),
            "recursive-halving"
        );
        assert_eq!(
            pick(C::ReduceScatterBlock { bytes: 1 << 15 }, 16),
            "pairwise"
        );
        let rs = C::ReduceScatter {
            counts: vec![1 << 18, 1 << 18, 0],
        };
        assert_eq!(pick(rs, 3), "pairwise");
        // Fixed choices.
        for (c, name) in [
            (C::Barrier, "dissemination"),
            (C::Scan { bytes: 8 }, "recursive-doubling"),
            (C::Exscan { bytes: 8 }, "recursive-doubling"),
            (
                C::Gather {
                    root: 0,
                    bytes: 1 << 20,
                },
                "binomial",
            ),
            (
                C::Scatter {
                    root: 0,
                    bytes: 1 << 20,
                },
                "binomial",
            ),
            (C::Gatherv { root: 0, bytes: 1 }, "linear"),
            (
                C::Scatterv {
                    root: 0,
                    counts: vec![1; 4],
                },
                "linear",
            ),
            (C::Alltoallv { send: vec![1; 4] }, "scattered"),
        ] {
            assert_eq!(pick(c, 4), name);
        }
    }

    #[test]
    fn fixed_mode_and_forced_choices() {
        let fixed = Algorithms::FIXED;
        let big = 1u64 << 22;
        for (c, name) in [
            (
                Collective::Bcast {
                    root: 0,
                    bytes: big,
                },
                "binomial",
            ),
            (
                Collective::Reduce {
                    root: 0,
                    bytes: big,
                },
                "binomial",
            ),
            (Collective::Allreduce { bytes: big }, "recursive-doubling"),
            (Collective::Allgather { bytes: big }, "recursive-doubling"),
            (Collective::Alltoall { bytes: 1 }, "pairwise"),
            (
                Collective::ReduceScatterBlock { bytes: 1 },
                "reduce-scatterv",
            ),
            (
                Collective::Allgatherv {
                    counts: vec![1; 16],
                },
                "ring-unpipelined",
            ),
            (Collective::Alltoallv { send: vec![1; 16] }, "pairwise"),
        ] {
            assert_eq!(choose(&c, 16, &fixed).name(), name);
        }
        let mut forced = Algorithms::default();
        forced.set("alltoall", "bruck").unwrap();
        forced.set("allreduce", "ring").unwrap();
        assert_eq!(
            choose(&Collective::Alltoall { bytes: big }, 3, &forced).name(),
            "bruck"
        );
        assert_eq!(
            choose(&Collective::Allreduce { bytes: 8 }, 3, &forced).name(),
            "ring"
        );
        assert_eq!(
            choose(&Collective::Allreduce { bytes: 8 }, 3, &forced).function(),
            "MPIR_Allreduce_intra_ring"
        );
    }

    #[test]
    fn element_size_and_pof2() {
        assert_eq!(element_bytes(4096), 8);
        assert_eq!(element_bytes(4100), 4);
        assert_eq!(element_bytes(4098), 2);
        assert_eq!(element_bytes(4097), 1);
        assert_eq!(element_bytes(0), 8);
        assert_eq!([1, 2, 3, 4, 5, 8, 17].map(pof2), [1, 2, 2, 4, 4, 8, 16]);
    }
}
