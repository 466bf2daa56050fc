//! The binary tree pattern (BT) of seed 004 §3.3: an N-to-1 reduction to rank 0, as in MPI_Reduce
//! or MPI_Gather.
//!
//! Stages i = 0, 1, ...: if bit i is the lowest set bit of rank r, r sends to r - 2^i (tag i) and
//! stops; otherwise (bit i clear) r first receives from r + 2^i (tag i) when that rank exists. So
//! odd ranks start with a message, and the run ends when rank 0 has received from 1, 2, 4, ... up
//! to the largest power of two below N. This is a binomial tree, so it works for any N >= 2 (not
//! only powers of two): N-1 messages, the longest causal chain is at most ceil(log2 N) messages
//! (the largest popcount of a rank), and distances range from 1 to the largest power of two below
//! N.

use super::{at_least_two, size_param};
use crate::error::Result;
use crate::program::{Generator, Op, Program};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Generator>> = Entry {
    name: "bt",
    keys: &["size"],
    help: "binary (binomial) tree: N-to-1 reduce to rank 0 in log2 N steps (seed 004 §3.3)",
    build: |p| {
        Ok(Box::new(BinaryTree {
            size: size_param(p)?,
        }))
    },
};

/// The binary tree reduction with messages of `size` bytes.
#[derive(Debug, Clone)]
pub struct BinaryTree {
    size: u64,
}

impl Generator for BinaryTree {
    fn spec(&self) -> String {
        format!("bt:size={}", self.size)
    }

    fn check_ranks(&self, ranks: u32) -> Result<()> {
        at_least_two("bt", ranks)
    }

    fn generate(&self, ranks: u32) -> Result<Program> {
        self.check_ranks(ranks)?;
        let bytes = self.size;
        let n = u64::from(ranks);
        Ok(Program::from_fn(ranks, |r, ops| {
            let mut tag = 0u64;
            while (1u64 << tag) < n {
                let bit = 1u32 << tag;
                if r & bit != 0 {
                    ops.push(Op::Send {
                        to: r - bit,
                        bytes,
                        tag,
                    });
                    break;
                }
                if u64::from(r) + u64::from(bit) < n {
                    ops.push(Op::Recv { from: r + bit, tag });
                }
                tag += 1;
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{causal_depth, generate, generate_err, messages};
    use crate::program::Op;

    #[test]
    fn message_counts_match_closed_forms() {
        // Every rank but 0 sends exactly once: N-1 messages.
        for n in 2..=70u32 {
            assert_eq!(messages(&generate("bt", n)), (n - 1) as usize, "bt {n}");
        }
        assert_eq!(messages(&generate("bt", 8)), 7);
        assert_eq!(messages(&generate("bt", 6)), 5);
    }

    #[test]
    fn op_sequences_on_8_and_6() {
        let recv = |from, tag| Op::Recv { from, tag };
        let send = |to, tag| Op::Send {
            to,
            bytes: 1000,
            tag,
        };
        let p = generate("bt", 8);
        assert_eq!(p.rank_ops(0), [recv(1, 0), recv(2, 1), recv(4, 2)]);
        assert_eq!(p.rank_ops(4), [recv(5, 0), recv(6, 1), send(0, 2)]);
        assert_eq!(p.rank_ops(6), [recv(7, 0), send(4, 1)]);
        assert_eq!(p.rank_ops(7), [send(6, 0)]);
        let p = generate("bt", 6);
        assert_eq!(p.rank_ops(0), [recv(1, 0), recv(2, 1), recv(4, 2)]);
        assert_eq!(p.rank_ops(2), [recv(3, 0), send(0, 1)]);
        assert_eq!(p.rank_ops(4), [recv(5, 0), send(0, 2)]);
        assert_eq!(p.rank_ops(5), [send(4, 0)]);
    }

    #[test]
    fn sends_match_receives_in_log_steps() {
        // Rank m's message reaches rank 0 after popcount(m) hops (m -> m minus its lowest bit ->
        // ...), so the longest chain is the largest popcount below N: log2 N for powers of two.
        for n in 2..=70u32 {
            let steps = (1..n).map(u32::count_ones).max().unwrap();
            assert_eq!(causal_depth(&generate("bt", n)), u64::from(steps), "bt {n}");
        }
        assert_eq!(causal_depth(&generate("bt", 4096)), 12);
    }

    #[test]
    fn rank_0_hears_from_every_power_of_two() {
        let p = generate("bt", 100);
        let from: Vec<u32> = p
            .rank_ops(0)
            .iter()
            .map(|op| match *op {
                Op::Recv { from, .. } => from,
                other => panic!("rank 0 only receives, got {other:?}"),
            })
            .collect();
        assert_eq!(from, [1, 2, 4, 8, 16, 32, 64]);
    }

    #[test]
    fn too_few_ranks_are_refused() {
        let e = generate_err("bt", 1);
        assert!(e.contains("bt needs at least 2 ranks; got 1"), "{e}");
    }
}
