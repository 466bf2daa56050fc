//! The 2D and 3D wave-front patterns (2W, 3W) of seed 004 §3.3: a diagonal sweep from rank 0 to
//! rank N-1 over a virtual square (cubic) mesh, then a return sweep back to rank 0, as in SSOR.
//!
//! With rank = x + s*y (+ s^2*z), s = sqrt(N) (cbrt(N)) and no wraparound, each rank runs a forward
//! phase (tag 0): receive from each existing lower neighbour (x-1, y-1, z-1), then send to each
//! existing upper neighbour (x+1, y+1, z+1); and a backward phase (tag 1): receive from each upper
//! neighbour, then send to each lower one. So rank 0 starts with two (three) messages, rank N-1
//! turns the sweep around, and the run ends when rank 0 has received the return messages. Message
//! distances are 1 and s (and s^2). 2W needs N a square >= 4, 3W a cube >= 8.

use super::{VirtualMesh, size_param};
use crate::error::Result;
use crate::program::{Generator, Op, Program};
use crate::spec::Entry;

/// Registry line of 2W.
pub const ENTRY_2W: Entry<Box<dyn Generator>> = Entry {
    name: "2w",
    keys: &["size"],
    help: "2D wave-front: sweep 0 -> N-1 and back over a square virtual mesh (seed 004 §3.3)",
    build: |p| Ok(Box::new(Wavefront::new(2, size_param(p)?))),
};

/// Registry line of 3W.
pub const ENTRY_3W: Entry<Box<dyn Generator>> = Entry {
    name: "3w",
    keys: &["size"],
    help: "3D wave-front: sweep 0 -> N-1 and back over a cubic virtual mesh (seed 004 §3.3)",
    build: |p| Ok(Box::new(Wavefront::new(3, size_param(p)?))),
};

/// A wave-front over a virtual mesh of `dims` dimensions (2 or 3) with messages of `size` bytes.
#[derive(Debug, Clone)]
pub struct Wavefront {
    dims: u32,
    size: u64,
}

impl Wavefront {
    /// The 2W (`dims` = 2) or 3W (`dims` = 3) pattern.
    pub fn new(dims: u32, size: u64) -> Self {
        Wavefront { dims, size }
    }

    fn name(&self) -> &'static str {
        if self.dims == 2 { "2w" } else { "3w" }
    }
}

impl Generator for Wavefront {
    fn spec(&self) -> String {
        format!("{}:size={}", self.name(), self.size)
    }

    fn check_ranks(&self, ranks: u32) -> Result<()> {
        VirtualMesh::new(self.name(), ranks, self.dims).map(drop)
    }

    fn generate(&self, ranks: u32) -> Result<Program> {
        let mesh = VirtualMesh::new(self.name(), ranks, self.dims)?;
        let bytes = self.size;
        Ok(Program::from_fn(ranks, |r, ops| {
            // Forward sweep, tag 0.
            ops.extend(mesh.lower(r).map(|from| Op::Recv { from, tag: 0 }));
            ops.extend(mesh.upper(r).map(|to| Op::Send { to, bytes, tag: 0 }));
            // Return sweep, tag 1.
            ops.extend(mesh.upper(r).map(|from| Op::Recv { from, tag: 1 }));
            ops.extend(mesh.lower(r).map(|to| Op::Send { to, bytes, tag: 1 }));
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{causal_depth, generate, generate_err, messages};
    use crate::program::Op;

    #[test]
    fn message_counts_match_closed_forms() {
        // 2W: one message per mesh edge each way, 2*s*(s-1) edges.
        for s in [2u64, 3, 4, 7] {
            let p = generate("2w", (s * s) as u32);
            assert_eq!(messages(&p) as u64, 2 * 2 * s * (s - 1), "2w s={s}");
        }
        assert_eq!(messages(&generate("2w", 16)), 48);
        // 3W: 3*s^2*(s-1) edges.
        for s in [2u64, 3, 4] {
            let p = generate("3w", (s * s * s) as u32);
            assert_eq!(messages(&p) as u64, 2 * 3 * s * s * (s - 1), "3w s={s}");
        }
        assert_eq!(messages(&generate("3w", 27)), 108);
    }

    #[test]
    fn op_sequences_of_small_meshes() {
        let recv = |from, tag| Op::Recv { from, tag };
        let send = |to, tag| Op::Send {
            to,
            bytes: 1000,
            tag,
        };
        let p = generate("2w", 16);
        assert_eq!(
            p.rank_ops(5),
            [
                recv(4, 0),
                recv(1, 0),
                send(6, 0),
                send(9, 0),
                recv(6, 1),
                recv(9, 1),
                send(4, 1),
                send(1, 1)
            ]
        );
        // Rank 0 starts the sweep with two messages and ends it by receiving two.
        assert_eq!(
            p.rank_ops(0),
            [send(1, 0), send(4, 0), recv(1, 1), recv(4, 1)]
        );
        // Rank N-1 turns it around.
        assert_eq!(
            p.rank_ops(15),
            [recv(14, 0), recv(11, 0), send(14, 1), send(11, 1)]
        );
        let p = generate("3w", 8);
        assert_eq!(
            p.rank_ops(0),
            [
                send(1, 0),
                send(2, 0),
                send(4, 0),
                recv(1, 1),
                recv(2, 1),
                recv(4, 1)
            ]
        );
        assert_eq!(
            p.rank_ops(3),
            [
                recv(2, 0),
                recv(1, 0),
                send(7, 0),
                recv(7, 1),
                send(2, 1),
                send(1, 1)
            ]
        );
    }

    #[test]
    fn sends_match_receives_and_the_sweep_completes() {
        // The causal chain crosses the mesh diagonal twice: 2*dims*(s-1) messages.
        for s in [2u64, 3, 5, 8] {
            let p = generate("2w:size=10", (s * s) as u32);
            assert_eq!(causal_depth(&p), 4 * (s - 1), "2w s={s}");
        }
        for s in [2u64, 3, 4] {
            let p = generate("3w:size=10", (s * s * s) as u32);
            assert_eq!(causal_depth(&p), 6 * (s - 1), "3w s={s}");
        }
    }

    #[test]
    fn distances_are_one_and_powers_of_the_side() {
        let p = generate("3w", 64);
        for (src, dst, _, _) in p.sends() {
            assert!([1, 4, 16].contains(&src.abs_diff(dst)), "{src} -> {dst}");
        }
    }

    #[test]
    fn bad_rank_counts_are_refused() {
        let e = generate_err("2w", 1000);
        assert!(
            e.contains("2w") && e.contains("got 1000") && e.contains("961 or 1024"),
            "{e}"
        );
        let e = generate_err("3w", 100);
        assert!(
            e.contains("3w") && e.contains("got 100") && e.contains("64 or 125"),
            "{e}"
        );
        assert!(generate_err("2w", 1).contains("nearest: 4"));
        assert!(generate_err("2w", 3).contains("nearest: 4"));
        assert!(generate_err("3w", 9).contains("nearest: 8 or 27"));
        assert!(generate_err("3w", 4).contains("nearest: 8"));
    }
}
