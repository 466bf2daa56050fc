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

    /// The largest distance, in links, between two of `nodes`.
    fn spread(topo: &dyn Topology, nodes: &[u32]) -> u32 {
        let pairs = nodes
            .iter()
            .flat_map(|&a| nodes.iter().map(move |&b| (a, b)));
        pairs
            .filter(|(a, b)| a != b)
            .map(|(a, b)| crate::topology::trace_route(topo, a, b, |_| 0).unwrap())
            .max()
            .unwrap_or(0)
    }

    /// MiKANT and the Clos number a leaf's nodes k^(n-1) apart (seed 001's labels): 16 ranks on a 4,3
    /// network land on the 4 leaves of one top subtree (at most 2n - 2 = 4 links apart), not on 16
    /// leaves; 32 ranks on MiKANT on a top subtree and its mirror (2n - 1 = 5, where two top subtrees
    /// of one group are 6 apart).
    #[test]
    fn follows_locality_where_node_ids_are_strided() {
        let p = super::super::build("contiguous").unwrap();
        for (spec, ranks, leaves, links) in [
            ("mikant:k=4,n=3", 16, 4, 4),
            ("clos:k=4,n=3", 16, 4, 4),
            ("mikant:k=4,n=3", 32, 8, 5),
            ("clos:k=4,n=3", 4, 1, 2),
            ("mikant:k=4,n=3,route=adaptive", 7, 2, 4),
        ] {
            let topo = crate::topology::build(spec).unwrap();
            let nodes = p.place(ranks, topo.as_ref(), 0).unwrap();
            let mut on: Vec<u32> = nodes.iter().map(|&n| topo.node_attachment(n).0).collect();
            on.sort_unstable();
            on.dedup();
            assert_eq!(on.len(), leaves, "{spec}, {ranks} ranks: {nodes:?}");
            assert_eq!(spread(topo.as_ref(), &nodes), links, "{spec}: {nodes:?}");
        }
        // Best fit in locality order: with two nodes of leaf 0 taken, 12 ranks fill the rest of its top
        // subtree; 15 do not fit there and go to its mirror, whose first node is 64 (group 1's leaf 0).
        let topo = crate::topology::build("mikant:k=4,n=3").unwrap();
        let rest = Available::all(128).without(&[0, 16]);
        let twelve = p.place_on(12, topo.as_ref(), &rest, 0).unwrap();
        assert_eq!(&twelve[..4], [32, 48, 1, 17]);
        assert_eq!(spread(topo.as_ref(), &twelve), 4);
        assert_eq!(
            p.place_on(15, topo.as_ref(), &rest, 0).unwrap()[..2],
            [64, 80]
        );
    }

    /// Families numbered router by router, dimension 0 first, take blocks of consecutive ids: after a
    /// job on the first nodes, the next goes to a whole free row / subnet group / subtree.
    #[test]
    fn blocks_of_router_major_families() {
        let p = super::super::build("contiguous").unwrap();
        for (spec, taken, ranks, want) in [
            ("flattened-butterfly:k=4,n=2,p=2", 3, 8, 8..16),
            ("kns:k=4,n=2,s=2,sub=ft,p=1", 1, 2, 2..4),
            ("kns:k=4,n=2,s=1,sub=xbar,p=2", 1, 8, 8..16),
            ("ruft:k=2,n=4", 1, 4, 4..8),
        ] {
            let topo = crate::topology::build(spec).unwrap();
            let rest = Available::all(topo.nodes()).without(&(0..taken).collect::<Vec<_>>());
            let got = p.place_on(ranks, topo.as_ref(), &rest, 0).unwrap();
            assert_eq!(got, want.collect::<Vec<_>>(), "{spec}");
        }
    }
}
