//! FleX (seed 003, section III): N_z layers of N_x x N_y routers with inter-layer links only, p terminals
//! per router, and Algorithm 1's minimal routing for three layers.
//!
//! Router (x, y, z) has id `N_x N_y z + N_x y + x` (eq. 6) and links to every router of the next layer
//! `(z + 1) mod N_z` that differs from it in exactly one of x and y (eqs. 4, 5; eq. 7). With N_z >= 3 the
//! layers form a ring, so the radix is `2 N_x + 2 N_y + p - 4` and there are `N_x N_y N_z (k - p) / 2`
//! inter-router links (section III-A). Choices where the seed is garbled:
//! - N_z = 2: the "next" and "previous" layers coincide and eq. (4) read literally links the same pair
//!   twice; we build each link once, which matches the text's radix `N_x + N_y + p - 2` and link count
//!   `N_x N_y N_z (k - p) / 2`, not eq. (7)'s index bound with `L_z = 2` (which counts each link twice).
//! - Section III-B-2 writes `(k - p) = (2N_x + 2N_y - 1)`; with the radix of III-A it is `2N_x + 2N_y - 4`.
//!
//! Routing: with N_z = 3 and N_x, N_y >= 3 (Algorithm 1's assumptions), Algorithm 1 of section III-C-1,
//! where every "select one x_intm / y_intm / z_intm" offers all admissible intermediates and the engine
//! picks the one with most credits. Otherwise, minimal routing over BFS distance tables (every neighbour
//! one hop closer). Deadlock freedom by hop-indexed virtual channels (see `table_routing.rs`): the
//! diameter (2 for three layers) virtual channels.

use super::bisection::Bisection;
use super::table_routing::{DistanceTable, SwitchGraph, wired_by_graph};
use super::{Packaging, RouteChoice, Topology, check_size};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "flex",
    keys: &["x", "y", "z", "p"],
    help: "FleX: z layers of x*y routers, inter-layer links only, p terminals/router; Algorithm 1 (seed 003)",
    build: |p| {
        let x = p.u32_in("x", None, 2, 4096)?;
        let y = p.u32_in("y", None, 2, 4096)?;
        let z = p.u32_in("z", None, 2, 4096)?;
        let t = p.u32_in("p", None, 1, 4096)?;
        let spec = format!("flex:x={x},y={y},z={z},p={t}");
        check_size(
            &spec,
            u64::from(x) * u64::from(y) * u64::from(z) * u64::from(t),
        )?;
        // Each router links to x - 1 + y - 1 routers of the next layer.
        let (x64, y64) = (u64::from(x), u64::from(y));
        super::table_routing::check_links(&spec, x64 * y64 * u64::from(z) * (x64 + y64 - 2))?;
        Ok(Box::new(Flex::new(&spec, x, y, z, t)?))
    },
};

/// A FleX network.
#[derive(Debug, Clone)]
pub struct Flex {
    nx: u32,
    ny: u32,
    nz: u32,
    p: u32,
    graph: SwitchGraph,
    /// Distance tables, when Algorithm 1 does not apply.
    table: Option<DistanceTable>,
}

impl Flex {
    fn new(spec: &str, nx: u32, ny: u32, nz: u32, p: u32) -> crate::error::Result<Self> {
        let id = |x: u32, y: u32, z: u32| nx * ny * z + nx * y + x;
        let mut edges = Vec::new();
        // With two layers the ring has one pair of layers: link them once.
        let linked_layers = if nz == 2 { 1 } else { nz };
        for z in 0..linked_layers {
            let z2 = (z + 1) % nz;
            for y in 0..ny {
                for x in 0..nx {
                    let a = id(x, y, z);
                    edges.extend((0..nx).filter(|&x2| x2 != x).map(|x2| (a, id(x2, y, z2))));
                    edges.extend((0..ny).filter(|&y2| y2 != y).map(|y2| (a, id(x, y2, z2))));
                }
            }
        }
        let graph = SwitchGraph::new(spec, &vec![p; (nx * ny * nz) as usize], &edges)?;
        let table = if nz == 3 && nx >= 3 && ny >= 3 {
            None
        } else {
            Some(DistanceTable::new(spec, &graph)?)
        };
        Ok(Flex {
            nx,
            ny,
            nz,
            p,
            graph,
            table,
        })
    }

    fn coords(&self, r: u32) -> (u32, u32, u32) {
        (
            r % self.nx,
            (r / self.nx) % self.ny,
            r / (self.nx * self.ny),
        )
    }

    fn id(&self, x: u32, y: u32, z: u32) -> u32 {
        self.nx * self.ny * z + self.nx * y + x
    }

    /// Algorithm 1's next routers from `c` towards router `d` (three layers), every admissible
    /// intermediate included.
    fn algorithm_1(&self, c: u32, d: u32, next: &mut Vec<u32>) {
        let ((xc, yc, zc), (xd, yd, zd)) = (self.coords(c), self.coords(d));
        let prev = (zc + self.nz - 1) % self.nz;
        // With zc != zd, the layer that is neither of them (layers 0, 1, 2 sum to 3).
        let third = 3u32.saturating_sub(zc + zd);
        if zc == zd {
            if xc == xd {
                next.extend(
                    (0..self.ny)
                        .filter(|&y| y != yc && y != yd)
                        .map(|y| self.id(xc, y, prev)),
                );
            } else if yc == yd {
                next.extend(
                    (0..self.nx)
                        .filter(|&x| x != xc && x != xd)
                        .map(|x| self.id(x, yc, prev)),
                );
            } else {
                next.push(self.id(xc, yd, prev));
            }
        } else if xc == xd && yc == yd {
            next.extend(
                (0..self.nx)
                    .filter(|&x| x != xc && x != xd)
                    .map(|x| self.id(x, yd, third)),
            );
        } else if xc == xd || yc == yd {
            next.push(d);
        } else {
            next.push(self.id(xc, yd, third));
        }
    }
}

impl Topology for Flex {
    fn spec(&self) -> String {
        format!(
            "flex:x={},y={},z={},p={}",
            self.nx, self.ny, self.nz, self.p
        )
    }
    wired_by_graph!();
    /// Three layers, min(N_x, N_y) even: 3 N_x N_y min(N_x, N_y) / 2, seed 003 eq. 8 (§III-A-3; Table 3
    /// confirms it with METIS for even smallest axes and finds more when it is odd, so odd ones and other
    /// layer counts are left to the partitioner). Not for 2 x 2 layers, below §III-C's N_x, N_y >= 3:
    /// eq. 8 gives 12 there, and a 6 + 6 split cutting 8 links exists.
    fn bisection(&self) -> Option<Bisection> {
        let m = self.nx.min(self.ny);
        (self.nz == 3 && m.is_multiple_of(2) && self.nx.max(self.ny) > 2).then(|| {
            let per_layer = u64::from(self.nx) * u64::from(self.ny);
            Bisection::closed_form(3 * per_layer * u64::from(m) / 2, self.nodes())
        })
    }
    /// Fig. 7 (seed 003 §IV-A): the routers of each y-axis of each layer in one rack, bottom to top
    /// in y; the racks of a layer in one row in x order; one row per layer.
    fn packaging(&self) -> Option<Packaging> {
        let (nx, ny) = (self.nx, self.ny);
        let order = (0..self.nz)
            .flat_map(|z| (0..nx).flat_map(move |x| (0..ny).map(move |y| nx * ny * z + nx * y + x)))
            .collect();
        Some(Packaging {
            order,
            per_rack: ny,
            per_row: nx,
        })
    }
    /// The terminals of one router: routers of a row or layer are not linked to each other.
    fn locality_blocks(&self) -> Vec<u32> {
        vec![self.p]
    }
    fn virtual_channels(&self) -> u32 {
        self.table.as_ref().map_or(2, |t| t.diameter().max(1))
    }
    fn route(&self, switch: u32, in_port: u32, in_vc: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        if let Some(t) = &self.table {
            t.route(&self.graph, switch, in_port, in_vc, dest, out);
            return;
        }
        let Some(dsw) = self.graph.target_or_eject(switch, dest, out) else {
            return;
        };
        let mut next = Vec::with_capacity(self.nx.max(self.ny) as usize);
        self.algorithm_1(switch, dsw, &mut next);
        for r in next {
            out.extend(self.graph.hop_to(switch, in_port, in_vc, r));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, structure, switch_distances};

    /// Section III-A: radix and inter-router link count, for several (N_x, N_y, N_z, p).
    #[test]
    fn section_iii_a_formulas() {
        for (x, y, z, p) in [
            (6u64, 6u64, 3u64, 10u64),
            (4, 5, 3, 3),
            (3, 7, 4, 2),
            (5, 5, 2, 4),
            (4, 4, 6, 1),
            (20, 20, 3, 13),
        ] {
            let s = structure(
                build(&format!("flex:x={x},y={y},z={z},p={p}"))
                    .unwrap()
                    .as_ref(),
            );
            let k = if z == 2 {
                x + y + p - 2
            } else {
                2 * x + 2 * y + p - 4
            };
            let routers = x * y * z;
            assert_eq!(s.radix, k, "{x},{y},{z},{p}");
            assert_eq!(s.switch_links, routers * (k - p) / 2, "{x},{y},{z},{p}");
            assert_eq!((s.nodes, s.switches), (routers * p, routers));
            assert_eq!(s.unplugged_ports, 0);
        }
    }

    /// Three layers have diameter 2 (Table 6's FleX among them; its counts are in
    /// `topology::tests::seed_003_table_6`).
    #[test]
    fn three_layers_have_diameter_2() {
        for spec in ["flex:x=6,y=6,z=3,p=10", "flex:x=3,y=5,z=3,p=1"] {
            let t = build(spec).unwrap();
            let d = (0..t.switches())
                .map(|s| *switch_distances(t.as_ref(), s).iter().max().unwrap())
                .max();
            assert_eq!(d, Some(2), "{spec}");
            assert_eq!(t.virtual_channels(), 2);
        }
    }

    /// Section III-C-1 counts the minimal paths Algorithm 1 chooses among: same layer, one axis equal:
    /// the intermediate on the other axis in the previous layer (N - 2 choices here).
    #[test]
    fn algorithm_1_offers_every_intermediate() {
        let t = build("flex:x=6,y=5,z=3,p=1").unwrap();
        let mut out = Vec::new();
        // Node 0 on router (0,0,0) to router (0,3,0) = id 18: same x, same layer: y_intm in {1,2,4}.
        t.route(0, 0, 0, 18, &mut out);
        assert_eq!(out.len(), 3);
        assert!(out.iter().all(|c| c.vc == 0));
        // Different layers, x and y equal: (0,0,0) -> (0,0,1) = id 30: x_intm in {1..5} on layer 2.
        out.clear();
        t.route(0, 0, 0, 30, &mut out);
        assert_eq!(out.len(), 5);
    }
}
