//! The algorithm choices: one enum per collective, and [`Algorithms`], the workload parameter that
//! holds the selection mode and the forced choices (`trace:...,select=fixed,allreduce=ring`).
//!
//! Every enum value names one MPICH algorithm (its function is [`Alg::function`]); the spec names are
//! MPICH's with `-` for `_` and without the `intra_` prefix (`scatter-ring` for
//! `MPIR_Bcast_intra_scatter_ring_allgather`).

use crate::error::{Error, Result};

/// Declares an algorithm enum with its spec names: `ALL`, `name` and `parse`.
macro_rules! algorithm_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $var),+
        }

        impl $name {
            /// Every algorithm, in the order of the spec's accepted list.
            pub const ALL: &[$name] = &[$($name::$var),+];

            /// The spec name (`scatter-ring`...).
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$var => $s),+
                }
            }

            /// The algorithm of a spec name.
            pub fn parse(s: &str) -> Option<$name> {
                match s {
                    $($s => Some($name::$var),)+
                    _ => None,
                }
            }
        }
    };
}

algorithm_enum! {
    /// Barrier algorithms.
    BarrierAlg {
        /// `MPIR_Barrier_intra_dissemination`: ceil(log2 n) rounds of 0-byte messages.
        Dissemination = "dissemination",
        /// Binomial reduce to rank 0 then binomial bcast, both of 0 bytes (`MPIR_Reduce_intra_binomial`
        /// + `MPIR_Bcast_intra_binomial`).
        Tree = "tree",
    }
}

algorithm_enum! {
    /// Bcast algorithms.
    BcastAlg {
        /// `MPIR_Bcast_intra_binomial`.
        Binomial = "binomial",
        /// `MPIR_Bcast_intra_scatter_recursive_doubling_allgather`.
        ScatterRecursiveDoubling = "scatter-recursive-doubling",
        /// `MPIR_Bcast_intra_scatter_ring_allgather`.
        ScatterRing = "scatter-ring",
    }
}

algorithm_enum! {
    /// Reduce algorithms.
    ReduceAlg {
        /// `MPIR_Reduce_intra_binomial`.
        Binomial = "binomial",
        /// `MPIR_Reduce_intra_reduce_scatter_gather` (Rabenseifner).
        Rabenseifner = "rabenseifner",
    }
}

algorithm_enum! {
    /// Allreduce algorithms.
    AllreduceAlg {
        /// `MPIR_Allreduce_intra_recursive_doubling`.
        RecursiveDoubling = "recursive-doubling",
        /// Ring reduce-scatter + ring allgather (`MPIR_Allreduce_intra_ring`, MPICH 4).
        Ring = "ring",
        /// `MPIR_Allreduce_intra_reduce_scatter_allgather` (Rabenseifner).
        Rabenseifner = "rabenseifner",
    }
}

algorithm_enum! {
    /// Gather algorithms.
    GatherAlg {
        /// `MPIR_Gather_intra_binomial`.
        Binomial = "binomial",
    }
}

algorithm_enum! {
    /// Scatter algorithms.
    ScatterAlg {
        /// `MPIR_Scatter_intra_binomial`.
        Binomial = "binomial",
    }
}

algorithm_enum! {
    /// Allgather algorithms.
    AllgatherAlg {
        /// `MPIR_Allgather_intra_recursive_doubling`; for non-powers of two our fold (see
        /// [`super::recursive_doubling`]).
        RecursiveDoubling = "recursive-doubling",
        /// `MPIR_Allgather_intra_brucks`.
        Bruck = "bruck",
        /// `MPIR_Allgather_intra_ring`.
        Ring = "ring",
    }
}

algorithm_enum! {
    /// Alltoall algorithms.
    AlltoallAlg {
        /// `MPIR_Alltoall_intra_pairwise`.
        Pairwise = "pairwise",
        /// `MPIR_Alltoall_intra_brucks`.
        Bruck = "bruck",
        /// `MPIR_Alltoall_intra_scattered`.
        Scattered = "scattered",
    }
}

algorithm_enum! {
    /// Scan and exscan algorithms.
    ScanAlg {
        /// `MPIR_Scan_intra_recursive_doubling` / `MPIR_Exscan_intra_recursive_doubling`.
        RecursiveDoubling = "recursive-doubling",
    }
}

algorithm_enum! {
    /// Reduce_scatter and reduce_scatter_block algorithms (commutative operations).
    ReduceScatterAlg {
        /// `MPIR_Reduce_scatter_intra_recursive_halving` / `MPIR_Reduce_scatter_block_intra_recursive_halving`.
        RecursiveHalving = "recursive-halving",
        /// `MPIR_Reduce_scatter_intra_pairwise` / `MPIR_Reduce_scatter_block_intra_pairwise`.
        Pairwise = "pairwise",
        /// Binomial reduce of the whole vector to rank 0, then a linear scatterv (`select=fixed`).
        ReduceScatterv = "reduce-scatterv",
    }
}

algorithm_enum! {
    /// Gatherv and scatterv algorithms.
    LinearAlg {
        /// `MPIR_Gatherv_allcomm_linear` / `MPIR_Scatterv_allcomm_linear`.
        Linear = "linear",
    }
}

algorithm_enum! {
    /// Allgatherv algorithms.
    AllgathervAlg {
        /// `MPIR_Allgatherv_intra_recursive_doubling`, with its non-power-of-two completion.
        RecursiveDoubling = "recursive-doubling",
        /// `MPIR_Allgatherv_intra_brucks`.
        Bruck = "bruck",
        /// `MPIR_Allgatherv_intra_ring`, pipelined in chunks of `MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE`.
        Ring = "ring",
        /// The same ring, one message per block (`select=fixed`).
        RingUnpipelined = "ring-unpipelined",
    }
}

algorithm_enum! {
    /// Alltoallv algorithms.
    AlltoallvAlg {
        /// `MPIR_Alltoallv_intra_scattered`.
        Scattered = "scattered",
        /// The pairwise schedule of `MPIR_Alltoall_intra_pairwise` (`select=fixed`).
        Pairwise = "pairwise",
    }
}

algorithm_enum! {
    /// How an algorithm is chosen when none is forced.
    #[derive(Default)]
    Select {
        /// MPICH's default selection by message and communicator size ([`super::select`]).
        #[default]
        Mpich = "mpich",
        /// The fixed algorithms of netreplay before MPICH selection, to reproduce older results: binomial
        /// bcast, reduce, gather and scatter; recursive doubling allreduce, allgather, scan and exscan;
        /// dissemination barrier; pairwise alltoall; linear gatherv and scatterv; unpipelined ring
        /// allgatherv; pairwise alltoallv; binomial reduce + scatterv for the reduce_scatters.
        Fixed = "fixed",
    }
}

/// The algorithm chosen for one call, tagged by collective (see [`super::select::choose`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Alg {
    /// MPI_Barrier.
    Barrier(BarrierAlg),
    /// MPI_Bcast.
    Bcast(BcastAlg),
    /// MPI_Reduce.
    Reduce(ReduceAlg),
    /// MPI_Allreduce.
    Allreduce(AllreduceAlg),
    /// MPI_Gather.
    Gather(GatherAlg),
    /// MPI_Scatter.
    Scatter(ScatterAlg),
    /// MPI_Allgather.
    Allgather(AllgatherAlg),
    /// MPI_Alltoall.
    Alltoall(AlltoallAlg),
    /// MPI_Scan.
    Scan(ScanAlg),
    /// MPI_Exscan.
    Exscan(ScanAlg),
    /// MPI_Reduce_scatter_block.
    ReduceScatterBlock(ReduceScatterAlg),
    /// MPI_Reduce_scatter.
    ReduceScatter(ReduceScatterAlg),
    /// MPI_Gatherv.
    Gatherv(LinearAlg),
    /// MPI_Scatterv.
    Scatterv(LinearAlg),
    /// MPI_Allgatherv.
    Allgatherv(AllgathervAlg),
    /// MPI_Alltoallv.
    Alltoallv(AlltoallvAlg),
}

impl Alg {
    /// The spec name of the algorithm (`rabenseifner`...).
    pub fn name(self) -> &'static str {
        match self {
            Alg::Barrier(a) => a.name(),
            Alg::Bcast(a) => a.name(),
            Alg::Reduce(a) => a.name(),
            Alg::Allreduce(a) => a.name(),
            Alg::Gather(a) => a.name(),
            Alg::Scatter(a) => a.name(),
            Alg::Allgather(a) => a.name(),
            Alg::Alltoall(a) => a.name(),
            Alg::Scan(a) | Alg::Exscan(a) => a.name(),
            Alg::ReduceScatterBlock(a) | Alg::ReduceScatter(a) => a.name(),
            Alg::Gatherv(a) | Alg::Scatterv(a) => a.name(),
            Alg::Allgatherv(a) => a.name(),
            Alg::Alltoallv(a) => a.name(),
        }
    }

    /// The MPICH function that implements it (or what it is made of), for reports and statistics.
    pub fn function(self) -> &'static str {
        use AllgatherAlg as Ag;
        use AllgathervAlg as Agv;
        use ReduceScatterAlg as Rs;
        match self {
            Alg::Barrier(BarrierAlg::Dissemination) => "MPIR_Barrier_intra_dissemination",
            Alg::Barrier(BarrierAlg::Tree) => {
                "MPIR_Reduce_intra_binomial + MPIR_Bcast_intra_binomial"
            }
            Alg::Bcast(BcastAlg::Binomial) => "MPIR_Bcast_intra_binomial",
            Alg::Bcast(BcastAlg::ScatterRecursiveDoubling) => {
                "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"
            }
            Alg::Bcast(BcastAlg::ScatterRing) => "MPIR_Bcast_intra_scatter_ring_allgather",
            Alg::Reduce(ReduceAlg::Binomial) => "MPIR_Reduce_intra_binomial",
            Alg::Reduce(ReduceAlg::Rabenseifner) => "MPIR_Reduce_intra_reduce_scatter_gather",
            Alg::Allreduce(AllreduceAlg::RecursiveDoubling) => {
                "MPIR_Allreduce_intra_recursive_doubling"
            }
            Alg::Allreduce(AllreduceAlg::Ring) => "MPIR_Allreduce_intra_ring",
            Alg::Allreduce(AllreduceAlg::Rabenseifner) => {
                "MPIR_Allreduce_intra_reduce_scatter_allgather"
            }
            Alg::Gather(GatherAlg::Binomial) => "MPIR_Gather_intra_binomial",
            Alg::Scatter(ScatterAlg::Binomial) => "MPIR_Scatter_intra_binomial",
            Alg::Allgather(Ag::RecursiveDoubling) => "MPIR_Allgather_intra_recursive_doubling",
            Alg::Allgather(Ag::Bruck) => "MPIR_Allgather_intra_brucks",
            Alg::Allgather(Ag::Ring) => "MPIR_Allgather_intra_ring",
            Alg::Alltoall(AlltoallAlg::Pairwise) => "MPIR_Alltoall_intra_pairwise",
            Alg::Alltoall(AlltoallAlg::Bruck) => "MPIR_Alltoall_intra_brucks",
            Alg::Alltoall(AlltoallAlg::Scattered) => "MPIR_Alltoall_intra_scattered",
            Alg::Scan(_) => "MPIR_Scan_intra_recursive_doubling",
            Alg::Exscan(_) => "MPIR_Exscan_intra_recursive_doubling",
            Alg::ReduceScatterBlock(Rs::RecursiveHalving) => {
                "MPIR_Reduce_scatter_block_intra_recursive_halving"
            }
            Alg::ReduceScatterBlock(Rs::Pairwise) => "MPIR_Reduce_scatter_block_intra_pairwise",
            Alg::ReduceScatter(Rs::RecursiveHalving) => {
                "MPIR_Reduce_scatter_intra_recursive_halving"
            }
            Alg::ReduceScatter(Rs::Pairwise) => "MPIR_Reduce_scatter_intra_pairwise",
            Alg::ReduceScatterBlock(Rs::ReduceScatterv)
            | Alg::ReduceScatter(Rs::ReduceScatterv) => {
                "MPIR_Reduce_intra_binomial + MPIR_Scatterv_allcomm_linear"
            }
            Alg::Gatherv(_) => "MPIR_Gatherv_allcomm_linear",
            Alg::Scatterv(_) => "MPIR_Scatterv_allcomm_linear",
            Alg::Allgatherv(Agv::RecursiveDoubling) => "MPIR_Allgatherv_intra_recursive_doubling",
            Alg::Allgatherv(Agv::Bruck) => "MPIR_Allgatherv_intra_brucks",
            Alg::Allgatherv(Agv::Ring) => "MPIR_Allgatherv_intra_ring",
            Alg::Allgatherv(Agv::RingUnpipelined) => "MPIR_Allgatherv_intra_ring (unpipelined)",
            Alg::Alltoallv(AlltoallvAlg::Scattered) => "MPIR_Alltoallv_intra_scattered",
            Alg::Alltoallv(AlltoallvAlg::Pairwise) => {
                "MPIR_Alltoall_intra_pairwise (per-pair sizes)"
            }
        }
    }
}

/// The selection mode and the algorithm forced per collective (`None`: chosen by `select`), a workload
/// parameter of the trace readers. Keys are [`Algorithms::KEYS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Algorithms {
    /// `select=mpich|fixed`.
    pub select: Select,
    /// `barrier=dissemination|tree`.
    pub barrier: Option<BarrierAlg>,
    /// `bcast=binomial|scatter-recursive-doubling|scatter-ring`.
    pub bcast: Option<BcastAlg>,
    /// `reduce=binomial|rabenseifner`.
    pub reduce: Option<ReduceAlg>,
    /// `allreduce=recursive-doubling|ring|rabenseifner`.
    pub allreduce: Option<AllreduceAlg>,
    /// `gather=binomial`.
    pub gather: Option<GatherAlg>,
    /// `scatter=binomial`.
    pub scatter: Option<ScatterAlg>,
    /// `allgather=recursive-doubling|bruck|ring`.
    pub allgather: Option<AllgatherAlg>,
    /// `alltoall=pairwise|bruck|scattered`.
    pub alltoall: Option<AlltoallAlg>,
    /// `scan=recursive-doubling`.
    pub scan: Option<ScanAlg>,
    /// `exscan=recursive-doubling`.
    pub exscan: Option<ScanAlg>,
    /// `reduce_scatter_block=recursive-halving|pairwise|reduce-scatterv`.
    pub reduce_scatter_block: Option<ReduceScatterAlg>,
    /// `reduce_scatter=recursive-halving|pairwise|reduce-scatterv`.
    pub reduce_scatter: Option<ReduceScatterAlg>,
    /// `gatherv=linear`.
    pub gatherv: Option<LinearAlg>,
    /// `scatterv=linear`.
    pub scatterv: Option<LinearAlg>,
    /// `allgatherv=recursive-doubling|bruck|ring|ring-unpipelined`.
    pub allgatherv: Option<AllgathervAlg>,
    /// `alltoallv=scattered|pairwise`.
    pub alltoallv: Option<AlltoallvAlg>,
}

impl Algorithms {
    /// Every key [`Algorithms::set`] accepts: `select` and one per collective (MPI names in lower case,
    /// as [`super::Collective::name`]).
    pub const KEYS: &[&str] = &[
        "select",
        "barrier",
        "bcast",
        "reduce",
        "allreduce",
        "gather",
        "scatter",
        "allgather",
        "alltoall",
        "scan",
        "exscan",
        "reduce_scatter_block",
        "reduce_scatter",
        "gatherv",
        "scatterv",
        "allgatherv",
        "alltoallv",
    ];

    /// The default: MPICH's selection, nothing forced.
    pub const MPICH: Algorithms = Algorithms {
        select: Select::Mpich,
        barrier: None,
        bcast: None,
        reduce: None,
        allreduce: None,
        gather: None,
        scatter: None,
        allgather: None,
        alltoall: None,
        scan: None,
        exscan: None,
        reduce_scatter_block: None,
        reduce_scatter: None,
        gatherv: None,
        scatterv: None,
        allgatherv: None,
        alltoallv: None,
    };

    /// `select=fixed`, nothing forced.
    pub const FIXED: Algorithms = Algorithms {
        select: Select::Fixed,
        ..Algorithms::MPICH
    };

    /// Sets one choice from its spec key and value; errors name the accepted values (or keys).
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        fn put<T: Copy>(slot: &mut Option<T>, parsed: Option<T>) -> bool {
            *slot = parsed.or(*slot);
            parsed.is_some()
        }
        let ok = match key {
            "select" => Select::parse(value).map(|s| self.select = s).is_some(),
            "barrier" => put(&mut self.barrier, BarrierAlg::parse(value)),
            "bcast" => put(&mut self.bcast, BcastAlg::parse(value)),
            "reduce" => put(&mut self.reduce, ReduceAlg::parse(value)),
            "allreduce" => put(&mut self.allreduce, AllreduceAlg::parse(value)),
            "gather" => put(&mut self.gather, GatherAlg::parse(value)),
            "scatter" => put(&mut self.scatter, ScatterAlg::parse(value)),
            "allgather" => put(&mut self.allgather, AllgatherAlg::parse(value)),
            "alltoall" => put(&mut self.alltoall, AlltoallAlg::parse(value)),
            "scan" => put(&mut self.scan, ScanAlg::parse(value)),
            "exscan" => put(&mut self.exscan, ScanAlg::parse(value)),
            "reduce_scatter_block" => put(
                &mut self.reduce_scatter_block,
                ReduceScatterAlg::parse(value),
            ),
            "reduce_scatter" => put(&mut self.reduce_scatter, ReduceScatterAlg::parse(value)),
            "gatherv" => put(&mut self.gatherv, LinearAlg::parse(value)),
            "scatterv" => put(&mut self.scatterv, LinearAlg::parse(value)),
            "allgatherv" => put(&mut self.allgatherv, AllgathervAlg::parse(value)),
            "alltoallv" => put(&mut self.alltoallv, AlltoallvAlg::parse(value)),
            _ => {
                return Err(self.error(
                    key,
                    format!(
                        "`{key}` is not a collective algorithm key; accepted: {}",
                        Self::KEYS.join(", ")
                    ),
                ));
            }
        };
        if ok {
            return Ok(());
        }
        let accepted = Self::values(key).unwrap_or_default().join(", ");
        Err(self.error(
            key,
            format!("`{value}` is not an algorithm; accepted: {accepted}"),
        ))
    }

    /// The values `key` accepts (`None` for an unknown key).
    pub fn values(key: &str) -> Option<Vec<&'static str>> {
        fn names<T: Copy>(all: &[T], f: fn(T) -> &'static str) -> Option<Vec<&'static str>> {
            Some(all.iter().map(|&a| f(a)).collect())
        }
        match key {
            "select" => names(Select::ALL, Select::name),
            "barrier" => names(BarrierAlg::ALL, BarrierAlg::name),
            "bcast" => names(BcastAlg::ALL, BcastAlg::name),
            "reduce" => names(ReduceAlg::ALL, ReduceAlg::name),
            "allreduce" => names(AllreduceAlg::ALL, AllreduceAlg::name),
            "gather" => names(GatherAlg::ALL, GatherAlg::name),
            "scatter" => names(ScatterAlg::ALL, ScatterAlg::name),
            "allgather" => names(AllgatherAlg::ALL, AllgatherAlg::name),
            "alltoall" => names(AlltoallAlg::ALL, AlltoallAlg::name),
            "scan" | "exscan" => names(ScanAlg::ALL, ScanAlg::name),
            "reduce_scatter_block" | "reduce_scatter" => {
                names(ReduceScatterAlg::ALL, ReduceScatterAlg::name)
            }
            "gatherv" | "scatterv" => names(LinearAlg::ALL, LinearAlg::name),
            "allgatherv" => names(AllgathervAlg::ALL, AllgathervAlg::name),
            "alltoallv" => names(AlltoallvAlg::ALL, AlltoallvAlg::name),
            _ => None,
        }
    }

    /// The value of `key` when it differs from the default (`None` for defaults and unknown keys).
    pub fn get(&self, key: &str) -> Option<&'static str> {
        fn name<T: Copy>(slot: Option<T>, f: fn(T) -> &'static str) -> Option<&'static str> {
            slot.map(f)
        }
        match key {
            "select" => (self.select != Select::default()).then(|| self.select.name()),
            "barrier" => name(self.barrier, BarrierAlg::name),
            "bcast" => name(self.bcast, BcastAlg::name),
            "reduce" => name(self.reduce, ReduceAlg::name),
            "allreduce" => name(self.allreduce, AllreduceAlg::name),
            "gather" => name(self.gather, GatherAlg::name),
            "scatter" => name(self.scatter, ScatterAlg::name),
            "allgather" => name(self.allgather, AllgatherAlg::name),
            "alltoall" => name(self.alltoall, AlltoallAlg::name),
            "scan" => name(self.scan, ScanAlg::name),
            "exscan" => name(self.exscan, ScanAlg::name),
            "reduce_scatter_block" => name(self.reduce_scatter_block, ReduceScatterAlg::name),
            "reduce_scatter" => name(self.reduce_scatter, ReduceScatterAlg::name),
            "gatherv" => name(self.gatherv, LinearAlg::name),
            "scatterv" => name(self.scatterv, LinearAlg::name),
            "allgatherv" => name(self.allgatherv, AllgathervAlg::name),
            "alltoallv" => name(self.alltoallv, AlltoallvAlg::name),
            _ => None,
        }
    }

    /// The non-default settings as `key=value` pairs joined by commas, in [`Algorithms::KEYS`] order
    /// (empty for the default); [`Algorithms::set`] on each pair rebuilds the value.
    pub fn canonical(&self) -> String {
        Self::KEYS
            .iter()
            .filter_map(|k| self.get(k).map(|v| format!("{k}={v}")))
            .collect::<Vec<_>>()
            .join(",")
    }

    fn error(&self, key: &str, problem: String) -> Error {
        Error::BadValue {
            kind: "workload",
            name: "trace".to_string(),
            key: key.to_string(),
            problem,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_and_canonical_round_trip() {
        let mut a = Algorithms::default();
        assert_eq!(a.canonical(), "");
        a.set("allreduce", "ring").unwrap();
        assert_eq!(a.allreduce, Some(AllreduceAlg::Ring));
        a.set("select", "fixed").unwrap();
        a.set("reduce_scatter", "pairwise").unwrap();
        a.set("bcast", "scatter-ring").unwrap();
        let text = a.canonical();
        assert_eq!(
            text,
            "select=fixed,bcast=scatter-ring,allreduce=ring,reduce_scatter=pairwise"
        );
        let mut b = Algorithms::default();
        for pair in text.split(',') {
            let (k, v) = pair.split_once('=').unwrap();
            b.set(k, v).unwrap();
        }
        assert_eq!(a, b);
        // Every key accepts every one of its names.
        for key in Algorithms::KEYS {
            assert!(a.set(key, "no-such-algorithm").is_err(), "{key}");
        }
        for key in &Algorithms::KEYS[1..] {
            for name in Algorithms::values(key).unwrap() {
                a.set(key, name).unwrap();
                assert_eq!(a.get(key), Some(name), "{key}");
            }
        }
    }

    #[test]
    fn errors_list_the_accepted_values() {
        let mut a = Algorithms::default();
        let e = format!("{:?}", a.set("allreduce", "bruck").unwrap_err());
        assert!(e.contains("recursive-doubling, ring, rabenseifner"), "{e}");
        let e = format!("{:?}", a.set("allgatherv", "x").unwrap_err());
        assert!(
            e.contains("recursive-doubling, bruck, ring, ring-unpipelined"),
            "{e}"
        );
        let e = format!("{:?}", a.set("reduce-scatter", "pairwise").unwrap_err());
        assert!(e.contains("reduce_scatter_block"), "{e}");
        // A failed set leaves the value as it was.
        assert_eq!(a, Algorithms::default());
    }
}
