//! The 2D and 3D mesh (nearest-neighbour exchange) patterns (2M, 3M) of seed 004 §3.3, as in
//! finite-difference codes.
//!
//! With rank = x + s*y (+ s^2*z), s = sqrt(N) (cbrt(N)) and no wraparound, every rank first sends
//! one message (tag 0) to each existing neighbour, in the order x-1, x+1, y-1, y+1 (, z-1, z+1),
//! then receives one message from each, in the same order: 2-4 neighbours in 2M, 3-6 in 3M. All
//! ranks inject at once, so the load is heavy. 2M needs N a square >= 4, 3M a cube >= 8.

use super::{VirtualMesh, size_param};
use crate::error::Result;
use crate::program::{Generator, Op, Program};
use crate::spec::Entry;

/// Registry line of 2M.
pub const ENTRY_2M: Entry<Box<dyn Generator>> = Entry {
    name: "2m",
    keys: &["size"],
    help: "2D mesh: every rank exchanges with its 2-4 square-mesh neighbours (seed 004 §3.3)",
    build: |p| Ok(Box::new(MeshExchange::new(2, size_param(p)?))),
};

/// Registry line of 3M.
pub const ENTRY_3M: Entry<Box<dyn Generator>> = Entry {
    name: "3m",
    keys: &["size"],
    help: "3D mesh: every rank exchanges with its 3-6 cubic-mesh neighbours (seed 004 §3.3)",
    build: |p| Ok(Box::new(MeshExchange::new(3, size_param(p)?))),
};

/// A neighbour exchange over a virtual mesh of `dims` dimensions (2 or 3), messages of `size`
/// bytes.
#[derive(Debug, Clone)]
pub struct MeshExchange {
    dims: u32,
    size: u64,
}

impl MeshExchange {
    /// The 2M (`dims` = 2) or 3M (`dims` = 3) pattern.
    pub fn new(dims: u32, size: u64) -> Self {
        MeshExchange { dims, size }
    }

    fn name(&self) -> &'static str {
        if self.dims == 2 { "2m" } else { "3m" }
    }
}

impl Generator for MeshExchange {
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
            ops.extend(mesh.neighbours(r).map(|to| Op::Send { to, bytes, tag: 0 }));
            ops.extend(mesh.neighbours(r).map(|from| Op::Recv { from, tag: 0 }));
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{causal_depth, generate, generate_err, messages};
    use crate::program::Op;

    #[test]
    fn message_counts_match_closed_forms() {
        // One message each way per mesh edge: 2M has 2*s*(s-1) edges, 3M 3*s^2*(s-1).
        for s in [2u64, 3, 4, 6] {
            let p = generate("2m", (s * s) as u32);
            assert_eq!(messages(&p) as u64, 4 * s * (s - 1), "2m s={s}");
        }
        assert_eq!(messages(&generate("2m", 16)), 48);
        for s in [2u64, 3, 4] {
            let p = generate("3m", (s * s * s) as u32);
            assert_eq!(messages(&p) as u64, 6 * s * s * (s - 1), "3m s={s}");
        }
        assert_eq!(messages(&generate("3m", 64)), 288);
    }

    #[test]
    fn op_sequences_of_small_meshes() {
        let recv = |from| Op::Recv { from, tag: 0 };
        let send = |to| Op::Send {
            to,
            bytes: 100,
            tag: 0,
        };
        let p = generate("2m:size=100", 16);
        assert_eq!(
            p.rank_ops(5),
            [
                send(4),
                send(6),
                send(1),
                send(9),
                recv(4),
                recv(6),
                recv(1),
                recv(9)
            ]
        );
        assert_eq!(p.rank_ops(0), [send(1), send(4), recv(1), recv(4)]);
        assert_eq!(
            p.rank_ops(7),
            [send(6), send(3), send(11), recv(6), recv(3), recv(11)]
        );
        let p = generate("3m:size=100", 27);
        assert_eq!(
            p.rank_ops(13)[..6],
            [send(12), send(14), send(10), send(16), send(4), send(22)]
        );
        assert_eq!(
            p.rank_ops(13)[6..],
            [recv(12), recv(14), recv(10), recv(16), recv(4), recv(22)]
        );
        // Corners have 3 neighbours in 3M, the centre 6.
        assert_eq!(p.rank_ops(26).len(), 6);
    }

    #[test]
    fn sends_match_receives_in_one_step() {
        for n in [4, 9, 16, 25, 100] {
            assert_eq!(causal_depth(&generate("2m", n)), 1, "2m {n}");
        }
        for n in [8, 27, 64] {
            assert_eq!(causal_depth(&generate("3m", n)), 1, "3m {n}");
        }
    }

    #[test]
    fn bad_rank_counts_are_refused() {
        let e = generate_err("2m", 1000);
        assert!(e.contains("2m") && e.contains("961 or 1024"), "{e}");
        let e = generate_err("3m", 100);
        assert!(e.contains("3m") && e.contains("64 or 125"), "{e}");
        assert!(generate_err("3m", 16).contains("cubic"));
    }
}
