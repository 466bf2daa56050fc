//! The waterfall pattern (WF) of seed 004 §3.3 and its Fig. 5, modelled on NAS LU: many small
//! messages flowing from rank 0 to rank N-1 over a virtual square mesh, with long causal chains.
//!
//! `size` is the total bytes, sent as messages of mlength = 8 * 2^(log10 size) bytes (rounded to
//! the nearest byte, at least 1; exact for the seed's sizes: 10 -> 16, 100 -> 32, 1K -> 64, 10K ->
//! 128, 100K -> 256), repeated ceil(size / mlength) times. Each repetition, with s = sqrt(N), rank
//! r: receives from r-1 if r mod s != 0; receives from r-s if r >= s; sends to r+1 if r mod s !=
//! s-1; sends to r+s if r + s < N. Fig. 5 prints that last condition as `node <= N - sqrt(N)`,
//! which for r = N - s would address rank N; we take the evident intent, r + s < N (the next row
//! exists). Repetition k uses tag k, so a rank that runs ahead cannot have its messages taken for
//! an earlier repetition's. Only rank 0 starts with messages; the run ends when rank N-1 consumes
//! the last one. N must be a square >= 4.

use super::{VirtualMesh, size_param};
use crate::error::{Error, Result};
use crate::program::{Generator, Op, Program};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Generator>> = Entry {
    name: "wf",
    keys: &["size"],
    help: "waterfall (NAS LU): size bytes as many small-message sweeps (seed 004 §3.3, Fig. 5)",
    build: |p| {
        Ok(Box::new(Waterfall {
            size: size_param(p)?,
        }))
    },
};

/// Largest program (total ops) WF builds; its length grows with `size`, so a huge `size` on many
/// ranks is refused rather than exhausting memory.
pub const MAX_OPS: u64 = 1 << 28;

/// The waterfall with `size` total bytes per link.
#[derive(Debug, Clone)]
pub struct Waterfall {
    size: u64,
}

/// The message length for a total of `size` bytes: 8 * 2^(log10 size), rounded, at least 1.
pub fn mlength(size: u64) -> u64 {
    let m = (8.0 * (size as f64).log10().exp2()).round();
    (m as u64).max(1)
}

impl Generator for Waterfall {
    fn spec(&self) -> String {
        format!("wf:size={}", self.size)
    }

    /// At most two receives and two sends per repetition per rank.
    fn bytes_bound(&self, ranks: u32) -> Option<u64> {
        let reps = self.size.div_ceil(mlength(self.size));
        let per_rank = reps.saturating_mul(4 * std::mem::size_of::<Op>() as u64) + 8;
        Some(u64::from(ranks).saturating_mul(per_rank))
    }

    fn check_ranks(&self, ranks: u32) -> Result<()> {
        let s = VirtualMesh::new("wf", ranks, 2)?.side;
        let reps = self.size.div_ceil(mlength(self.size));
        // Each repetition sends one message per mesh edge, and every message is one send and one
        // recv.
        let ops = reps * 4 * u64::from(s) * u64::from(s - 1);
        if ops > MAX_OPS {
            return Err(Error::Invalid(format!(
                "wf:size={} on {ranks} ranks would need {reps} repetitions, {ops} ops in all; \
                 the limit is {MAX_OPS}: use a smaller size or fewer ranks",
                self.size
            )));
        }
        Ok(())
    }

    fn generate(&self, ranks: u32) -> Result<Program> {
        self.check_ranks(ranks)?;
        let s = VirtualMesh::new("wf", ranks, 2)?.side;
        let bytes = mlength(self.size);
        let reps = self.size.div_ceil(bytes);
        let reps = reps as u32; // reps * 4 <= MAX_OPS, so it fits.
        Ok(Program::from_fn(ranks, |r, ops| {
            for tag in 0..u64::from(reps) {
                if r % s != 0 {
                    ops.push(Op::Recv { from: r - 1, tag });
                }
                if r >= s {
                    ops.push(Op::Recv { from: r - s, tag });
                }
                if r % s != s - 1 {
                    ops.push(Op::Send {
                        to: r + 1,
                        bytes,
                        tag,
                    });
                }
                if r + s < ranks {
                    ops.push(Op::Send {
                        to: r + s,
                        bytes,
                        tag,
                    });
                }
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{causal_depth, generate, generate_err, messages};
    use super::{MAX_OPS, mlength};
    use crate::program::Op;

    #[test]
    fn message_lengths_follow_the_seed() {
        for (size, m) in [
            (10, 16),
            (100, 32),
            (1000, 64),
            (10_000, 128),
            (100_000, 256),
        ] {
            assert_eq!(mlength(size), m, "size {size}");
        }
        assert_eq!(mlength(1), 8);
        assert_eq!(mlength(1_000_000_000), 4096);
        // 8 * 2^(log10 500) = 8 * 500^0.30103 = 51.9...
        assert_eq!(mlength(500), 52);
        for size in [1, 2, 7, 99, 101, 999_999_999] {
            let m = mlength(size);
            assert!(m >= 1 && m <= mlength(size + 1), "size {size}");
        }
    }

    #[test]
    fn message_counts_match_closed_forms() {
        // ceil(100/32) = 4 repetitions of 2*s*(s-1) = 12 messages, all of 32 bytes.
        let p = generate("wf:size=100", 9);
        assert_eq!(messages(&p), 48);
        assert!(p.sends().all(|(_, _, bytes, _)| bytes == 32));
        for (size, reps) in [
            (10u64, 1u64),
            (100, 4),
            (1000, 16),
            (10_000, 79),
            (100_000, 391),
        ] {
            for s in [2u64, 3, 5] {
                let p = generate(&format!("wf:size={size}"), (s * s) as u32);
                assert_eq!(
                    messages(&p) as u64,
                    reps * 2 * s * (s - 1),
                    "size {size} s={s}"
                );
            }
        }
    }

    #[test]
    fn op_sequences_follow_fig_5() {
        let recv = |from, tag| Op::Recv { from, tag };
        let send = |to, tag| Op::Send { to, bytes: 16, tag };
        // size 10: mlength 16, one repetition.
        let p = generate("wf:size=10", 9);
        assert_eq!(p.rank_ops(0), [send(1, 0), send(3, 0)]);
        assert_eq!(
            p.rank_ops(4),
            [recv(3, 0), recv(1, 0), send(5, 0), send(7, 0)]
        );
        assert_eq!(p.rank_ops(5), [recv(4, 0), recv(2, 0), send(8, 0)]);
        assert_eq!(p.rank_ops(6), [recv(3, 0), send(7, 0)]);
        assert_eq!(p.rank_ops(8), [recv(7, 0), recv(5, 0)]);
        // size 20: mlength 8 * 2^1.301 = 19.7 -> 20, still one repetition; size 40: 8 * 2^1.602 =
        // 24.3 -> 24 bytes, two.
        assert_eq!(messages(&generate("wf:size=20", 4)), 4);
        let p = generate("wf:size=40", 4);
        let send = |to, tag| Op::Send { to, bytes: 24, tag };
        assert_eq!(
            p.rank_ops(0),
            [send(1, 0), send(2, 0), send(1, 1), send(2, 1)]
        );
        assert_eq!(
            p.rank_ops(3),
            [recv(2, 0), recv(1, 0), recv(2, 1), recv(1, 1)]
        );
    }

    #[test]
    fn sends_match_receives_and_chains_cross_the_mesh() {
        // Every chain runs from rank 0 to rank N-1: 2*(s-1) messages, whatever the repetitions.
        for s in [2u64, 3, 4, 8] {
            for size in ["10", "1K", "100K"] {
                let p = generate(&format!("wf:size={size}"), (s * s) as u32);
                assert_eq!(causal_depth(&p), 2 * (s - 1), "s={s} size={size}");
            }
        }
    }

    #[test]
    fn bad_rank_counts_and_huge_programs_are_refused() {
        let e = generate_err("wf", 10);
        assert!(
            e.contains("wf") && e.contains("got 10") && e.contains("nearest: 9 or 16"),
            "{e}"
        );
        assert!(generate_err("wf", 2).contains("nearest: 4"));
        let e = generate_err("wf:size=1G", 4096);
        assert!(e.contains(&MAX_OPS.to_string()), "{e}");
    }
}
