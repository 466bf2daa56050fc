//! The k-ary n-mesh (seed 000's mesh baseline): a k-ary n-cube without wraparound links.
//!
//! Links: (k-1) * k^(n-1) * n between routers plus N node links (seed 000 Table 3). Dimension-order
//! routing on a mesh is deadlock-free without virtual channels (no cyclic channel dependency).

use super::bisection::Bisection;
use super::kary_ncube::{Cube, wired_by_cube};
use super::{RouteChoice, Topology};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "mesh",
    keys: &["k", "n"],
    help: "k-ary n-mesh, one node per router, dimension-order routing",
    build: |p| {
        let k = p.u32_in("k", None, 2, 1 << 20)?;
        let n = p.u32_in("n", None, 1, 16)?;
        Ok(Box::new(Mesh {
            cube: Cube::new(&format!("mesh:k={k},n={n}"), k, n, false)?,
        }))
    },
};

/// A k-ary n-mesh.
#[derive(Debug, Clone)]
pub struct Mesh {
    cube: Cube,
}

impl Topology for Mesh {
    fn spec(&self) -> String {
        format!("mesh:k={},n={}", self.cube.k, self.cube.n)
    }
    wired_by_cube!();
    /// Even k: k^(n-1), one plane of links across the middle of one dimension (seed 000 Table 1's
    /// bisection bandwidth 2N/k_d counts these N/k links in both directions).
    fn bisection(&self) -> Option<Bisection> {
        let (k, n) = (u64::from(self.cube.k), self.cube.n);
        (k % 2 == 0).then(|| Bisection::closed_form(k.pow(n - 1), self.nodes()))
    }
    /// n - 1: a corner router has n links (seed 000 §5.4).
    fn link_faults_tolerated(&self) -> Option<u64> {
        Some(u64::from(self.cube.n) - 1)
    }
    fn route_to(&self, switch: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        out.push(RouteChoice::port(
            self.cube.dor_hop(switch, dest, 0).map_or(0, |h| h.port),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, structure};

    /// Seed 000 Table 3: links = (k-1) k^(n-1) n + N.
    #[test]
    fn table_3_links() {
        for (k, n) in [(4u64, 2u64), (16, 2), (5, 3), (256, 2)] {
            let s = structure(build(&format!("mesh:k={k},n={n}")).unwrap().as_ref());
            let nodes = k.pow(n as u32);
            assert_eq!(
                s.links,
                (k - 1) * k.pow(n as u32 - 1) * n + nodes,
                "k={k} n={n}"
            );
            assert_eq!((s.nodes, s.switches, s.radix), (nodes, nodes, 2 * n + 1));
        }
    }
}
