//! Sources of programs: the [`Generator`] trait that seed 004's patterns (`crate::workload`) and the
//! trace workload (`crate::trace`) implement, and the bounds a run checks before generating.

use super::{Op, Program};
use crate::error::Result;

/// A generator of application-like programs, built from a spec such as `bu:size=1000`.
pub trait Generator: Send + Sync + std::fmt::Debug {
    /// The canonical spec that rebuilds this generator (without `ranks`).
    fn spec(&self) -> String;
    /// The programs of `ranks` ranks; a rank count the pattern cannot use (2w on a non-square count,
    /// bu on a non-power of two) is an [`Error::Invalid`](crate::error::Error::Invalid) that says which counts work.
    fn generate(&self, ranks: u32) -> Result<Program>;
    /// The error [`Generator::generate`] would give for `ranks`, without generating: a campaign checks
    /// every pattern's rank count on every candidate before it writes anything.
    fn check_ranks(&self, _ranks: u32) -> Result<()> {
        Ok(())
    }
    /// The rank count the workload fixes itself, if any (a trace knows its ranks); a run uses it when
    /// the spec gives no `ranks=`, instead of every node of the topology.
    fn ranks(&self) -> Option<u32> {
        None
    }
    /// Simulated cycles per second, so outputs in real time (the replay timeline) can convert
    /// cycles: a trace's `cycles_per_second`, which also turned its recorded compute times into
    /// cycles; 1 GHz, [`DEFAULT_CYCLES_PER_SECOND`], for generated workloads.
    fn cycles_per_second(&self) -> f64 {
        DEFAULT_CYCLES_PER_SECOND
    }
    /// An upper bound on the bytes [`Generator::generate`] will hold for `ranks` ranks, known before
    /// generating, so that a run or `generate` too large for the machine is refused at once instead of
    /// being killed by the kernel. `None` when the generator cannot say (a trace's program is
    /// already in memory when its generator exists). The default covers seed 004's patterns: see
    /// [`pattern_bytes_bound`].
    fn bytes_bound(&self, ranks: u32) -> Option<u64> {
        Some(pattern_bytes_bound(ranks))
    }
    /// The jobs of a merged multi-job trace (a GOAL schedule read with `jobs=`): each job's ranks
    /// of the program, in the job's own rank order; a run replays them as jobs sharing the
    /// machine. `None`: the program is one job.
    fn jobs(&self) -> Option<&[Vec<u32>]> {
        None
    }
}

/// The network clock when a workload names none: 1 GHz, one cycle per nanosecond (the trace readers'
/// default `cycles_per_second`).
pub const DEFAULT_CYCLES_PER_SECOND: f64 = 1e9;

/// Operations one rank of a seed-004 pattern issues at most, WF aside (whose count grows with its size
/// and which bounds itself): 2⌈log2 N⌉ (BU's send and receive per stage, the largest) plus 16 (the mesh
/// exchanges' neighbours, a send and a receive each). Checked against every pattern by a test.
pub fn pattern_ops_bound(ranks: u32) -> u64 {
    2 * u64::from(ranks.max(2).next_power_of_two().trailing_zeros()) + 16
}

/// Bytes a seed-004 pattern's program holds at most for `ranks` ranks ([`pattern_ops_bound`] ops
/// per rank, plus each rank's start index).
pub fn pattern_bytes_bound(ranks: u32) -> u64 {
    u64::from(ranks) * (pattern_ops_bound(ranks) * std::mem::size_of::<Op>() as u64 + 8)
}
