//! The butterfly pattern (BU, "recursive doubling") of seed 004 §3.3, the usual implementation of
//! N-to-N collectives such as MPI_Allreduce.
//!
//! log2(N) stages i = 0, 1, ...: at stage i rank r sends to its partner r XOR 2^i (tag i), then
//! waits for the partner's message (tag i). Every rank starts with one message; N*log2(N) messages
//! in log2(N) steps, at distances 1 to N/2. N must be a power of two >= 2.

use super::{at_least_two, nearest, size_param};
use crate::error::{Error, Result};
use crate::program::{Generator, Op, Program};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Generator>> = Entry {
    name: "bu",
    keys: &["size"],
    help: "butterfly (recursive doubling): log2 N pairwise exchange stages (seed 004 §3.3)",
    build: |p| {
        Ok(Box::new(Butterfly {
            size: size_param(p)?,
        }))
    },
};

/// The butterfly with messages of `size` bytes.
#[derive(Debug, Clone)]
pub struct Butterfly {
    size: u64,
}

impl Generator for Butterfly {
    fn spec(&self) -> String {
        format!("bu:size={}", self.size)
    }

    fn check_ranks(&self, ranks: u32) -> Result<()> {
        at_least_two("bu", ranks)?;
        if !ranks.is_power_of_two() {
            let upper = u64::from(ranks).next_power_of_two();
            return Err(Error::Invalid(format!(
                "bu needs a power-of-two number of ranks (2, 4, 8, ...); got {ranks}; {}",
                nearest(Some(upper / 2), upper)
            )));
        }
        Ok(())
    }

    fn generate(&self, ranks: u32) -> Result<Program> {
        self.check_ranks(ranks)?;
        let bytes = self.size;
        let stages = ranks.trailing_zeros();
        Ok(Program::from_fn(ranks, |r, ops| {
            for tag in 0..stages {
                let partner = r ^ (1 << tag);
                let tag = u64::from(tag);
                ops.push(Op::Send {
                    to: partner,
                    bytes,
                    tag,
                });
                ops.push(Op::Recv { from: partner, tag });
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
        for k in 1..=8u32 {
            let n = 1u32 << k;
            assert_eq!(messages(&generate("bu", n)), (n * k) as usize, "bu {n}");
        }
        assert_eq!(messages(&generate("bu", 8)), 24);
    }

    #[test]
    fn op_sequence_of_rank_5_on_8() {
        let p = generate("bu:size=10", 8);
        assert_eq!(
            p.rank_ops(5),
            [
                Op::Send {
                    to: 4,
                    bytes: 10,
                    tag: 0
                },
                Op::Recv { from: 4, tag: 0 },
                Op::Send {
                    to: 7,
                    bytes: 10,
                    tag: 1
                },
                Op::Recv { from: 7, tag: 1 },
                Op::Send {
                    to: 1,
                    bytes: 10,
                    tag: 2
                },
                Op::Recv { from: 1, tag: 2 },
            ]
        );
    }

    #[test]
    fn sends_match_receives_in_log_steps() {
        for k in 1..=10u32 {
            assert_eq!(
                causal_depth(&generate("bu", 1 << k)),
                u64::from(k),
                "bu 2^{k}"
            );
        }
    }

    #[test]
    fn bad_rank_counts_are_refused() {
        let e = generate_err("bu", 12);
        assert!(
            e.contains("bu") && e.contains("got 12") && e.contains("nearest: 8 or 16"),
            "{e}"
        );
        assert!(generate_err("bu", 3).contains("nearest: 2 or 4"));
        assert!(generate_err("bu", 4095).contains("nearest: 2048 or 4096"));
        assert!(generate_err("bu", u32::MAX).contains("or 4294967296"));
    }
}
