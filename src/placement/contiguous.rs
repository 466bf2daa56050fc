//! `contiguous`: topology-aware placement on the smallest block of the machine that holds the job, as
//! BlueGene/L's scheduler assigns rectangular blocks (seed 004 §5.3): a subtree of a tree, a sub-mesh of
//! whole rows or planes of a mesh or torus, a subcube of a hypercube ([`Topology::locality_blocks`]).
//! Blocks are aligned ranges of the family's [`Topology::locality_order`], which is the node ids
//! themselves except where a family numbers its locality units apart (MiKANT, the Clos). Among blocks
//! of the smallest size with enough free nodes, the one with the fewest free nodes wins (best fit,
//! keeping larger holes for later jobs), then the first; ranks go on its free nodes in that order.

use super::{Available, Placement, plain};
use crate::error::{Error, Result};
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Placement>> = plain!(
    "contiguous",
    "the smallest subtree / sub-mesh / subcube with room, best fit",
    contiguous
);

/// Best-fit block placement.
fn contiguous(ranks: u32, topo: &dyn Topology, available: &Available) -> Result<Vec<u32>> {
    let order = topo.locality_order();
    let mut sizes = topo.locality_blocks();
    sizes.push(topo.nodes());
    for size in sizes.into_iter().filter(|&s| s >= ranks && s > 0) {
        let best = order
            .chunks(size as usize)
            .enumerate()
            .map(|(b, block)| {
                let free = block.iter().filter(|&&n| available.is_free(n)).count();
                (free, b, block)
            })
            .filter(|(free, _, _)| *free >= ranks as usize)
            .min_by_key(|(free, b, _)| (*free, *b));
        if let Some((_, _, block)) = best {
            return Ok(block
                .iter()
                .copied()
                .filter(|&n| available.is_free(n))
                .take(ranks as usize)
                .collect());
        }
    }
    Err(Error::Invalid(format!(
        "no block of `{}` holds {ranks} free nodes",
        topo.spec()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_block_that_fits_best_fit_first() {
        let p = super::super::build("contiguous").unwrap();
        let topo = crate::topology::build("fat-tree:k=4,n=3").unwrap();
        // 16-node subtrees; with nodes 0..20 taken, subtree 1 (16..32) has 12 free: 10 ranks go there.
        let rest = Available::all(64).without(&(0..20).collect::<Vec<_>>());
        assert_eq!(
            p.place_on(10, topo.as_ref(), &rest, 0).unwrap(),
            (20..30).collect::<Vec<_>>()
        );
        // 3 ranks fit in the partly used leaf 20..24.
        assert_eq!(
            p.place_on(3, topo.as_ref(), &rest, 0).unwrap(),
            [20, 21, 22]
        );
        // 13 ranks need a whole free subtree: 32..48.
        assert_eq!(p.place_on(13, topo.as_ref(), &rest, 0).unwrap()[0], 32);
        // A 4x4 block of a 8x8 mesh is two whole rows.
        assert_eq!(
            super::super::tests::place("contiguous", "mesh:k=8,n=2", 16),
            (0..16).collect::<Vec<_>>()
        );
    }
}
