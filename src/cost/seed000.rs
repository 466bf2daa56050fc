//! Seed 000 §5.3's list-price model (Mellanox FDR InfiniBand, February 2015): switches at the list
//! price of the next size up among edge (12, 18, 36 ports) and chassis (108, 216, 324, 648 ports)
//! switches (Table 5); links by length (Table 6): cables inside a cabinet are 2 m copper ($107),
//! between cabinets 10 m fibre ($580), a torus's neighbouring cabinets 5 m copper ($172); a
//! single-port NIC per node ($1314, Table 7), or a dual-port NIC ($2378) that replaces the router and
//! its node link in a 2-dimensional KNS with one node per router.
//!
//! Cabinets follow §5.3 family by family: the nodes of a tree's leaf switch share a cabinet, so node
//! links are local and every switch-to-switch link is global; a mesh, torus, flattened butterfly or
//! KNS keeps each line of its first dimension in one cabinet (links of dimension 0 local, the others
//! global), and a KNS subnet fits in a cabinet (its inter-stage links local). A torus's global links
//! join neighbouring cabinets, so §5.3 prices them as 5 m copper; seed 000 prices no mesh, and a mesh
//! is that torus without its wrap-around links, so its global links are priced the same (as 10 m
//! fibre a mesh would cost more than the torus that has more links). A family without such a
//! rule is refused by name. With these rules Table 8's totals come out as the paper prints them for
//! seven of its eight 64K-node networks (235 M, 420 M, 376 M, 266 M, 412 M, 1,062 M, 463 M); for the FB
//! 4-ary 7-cube 4-p we get 386 M against 371 M. Its dimension 0 is 24,576 of its 172,032 switch links;
//! 371 M is what one third of them local would cost (57,344 links: 370.96 M), the share dimension 0 has
//! in the FB 16-ary 3-cube, and no set of whole dimensions gives it (dimensions 0 and 1: 375 M).
//! The model prices the whole network: the used-resource inventory of seed 004 has no layout.

use super::{Cost, CostModel, Inventory};
use crate::error::{Error, Result};
use crate::spec::{Entry, Spec};
use crate::topology::{Endpoint, OneWay, Topology};

/// Registry line.
pub const ENTRY: Entry<Box<dyn CostModel>> = Entry {
    name: "seed000",
    keys: &[],
    help: "list prices of switches, copper/fibre links by cabinet layout and NICs (seed 000 §5.3)",
    build: |_| Ok(Box::new(Seed000)),
};

/// Table 5: (ports, list price).
const SWITCHES: [(u32, f64); 7] = [
    (12, 5361.0),
    (18, 9850.0),
    (36, 12523.0),
    (108, 32650.0),
    (216, 48778.0),
    (324, 65875.0),
    (648, 110177.0),
];
/// Table 6: 2 m copper inside a cabinet, 10 m fibre between cabinets, 5 m copper between a torus's
/// (or a mesh's) neighbouring cabinets.
const LOCAL: f64 = 107.0;
const GLOBAL: f64 = 580.0;
const GLOBAL_NEAR: f64 = 172.0;
/// Table 7.
const NIC: f64 = 1314.0;
const DUAL_NIC: f64 = 2378.0;

/// The list-price model.
#[derive(Debug, Clone, Copy)]
pub struct Seed000;

/// How the family lays out its cabinets.
enum Layout {
    /// Trees: node links local, switch links global.
    Tree,
    /// A k-ary n-cube of routers (mesh, torus): port 1 + 2d is dimension d; `near` prices global links.
    Cube { near: bool },
    /// Flattened butterfly with k routers per dimension: a link's dimension is the differing digit.
    Flat { k: u32 },
    /// KNS: routers 0..r with p nodes on ports 0..p and dimension d on port p + d.
    Kns {
        routers: u32,
        p: u32,
        dual_nic: bool,
    },
}

fn layout(topo: &dyn Topology) -> Result<Layout> {
    let spec = Spec::parse("topology", &topo.spec())?;
    let param = |k: &str| {
        spec.params
            .iter()
            .find(|(key, _)| key == k)
            .and_then(|(_, v)| v.parse::<u32>().ok())
    };
    Ok(match spec.name.as_str() {
        "fat-tree" | "thin-tree" | "slender-tree" | "mikant" | "clos" | "ruft" => Layout::Tree,
        "mesh" | "torus" => Layout::Cube { near: true },
        "flattened-butterfly" => Layout::Flat {
            k: param("k").unwrap_or(2),
        },
        "kns" => {
            let (n, p) = (param("n").unwrap_or(1), param("p").unwrap_or(1));
            Layout::Kns {
                routers: topo.routers().unwrap_or(0),
                p,
                dual_nic: n == 2 && p == 1,
            }
        }
        other => {
            return Err(Error::Invalid(format!(
                "cost model seed000 has no cabinet layout for `{other}` (it covers trees, mesh, torus, flattened butterfly and KNS: seed 000 §5.3's families and the mesh)"
            )));
        }
    })
}

fn switch_price(ports: u32) -> Result<f64> {
    SWITCHES
        .iter()
        .find(|(p, _)| *p >= ports)
        .map(|(_, price)| *price)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "cost model seed000: no switch has {ports} ports (the largest has 648)"
            ))
        })
}

impl CostModel for Seed000 {
    fn spec(&self) -> String {
        "seed000".into()
    }

    fn price(&self, topo: &dyn Topology, inventory: &Inventory) -> Result<Cost> {
        let layout = layout(topo)?;
        let is_router = |s: u32| matches!(layout, Layout::Kns { routers, .. } if s < routers);
        let dual = matches!(layout, Layout::Kns { dual_nic: true, .. });
        let nic = if dual { DUAL_NIC } else { NIC };
        let mut total = nic * f64::from(topo.nodes());
        for sw in 0..topo.switches() {
            if !(dual && is_router(sw)) {
                total += switch_price(topo.ports(sw))?;
            }
            for port in 0..topo.ports(sw) {
                if topo.one_way(sw, port) == OneWay::Return {
                    continue; // a RUFT return link is priced with its injection link (Table 3)
                }
                let price = match topo.neighbour(sw, port) {
                    Endpoint::Unplugged => continue,
                    Endpoint::Node(_) if dual => continue,
                    Endpoint::Node(_) => LOCAL,
                    Endpoint::Switch { switch, port: back } => {
                        if (switch, back) < (sw, port)
                            && topo.neighbour(switch, back)
                                == (Endpoint::Switch { switch: sw, port })
                        {
                            continue; // a two-way link, counted from its other end
                        }
                        match layout {
                            Layout::Tree => GLOBAL,
                            Layout::Cube { near } => match (port - 1) / 2 {
                                0 => LOCAL,
                                _ if near => GLOBAL_NEAR,
                                _ => GLOBAL,
                            },
                            Layout::Flat { k } => {
                                let (a, b) = (sw.min(switch), sw.max(switch));
                                if a / k == b / k { LOCAL } else { GLOBAL }
                            }
                            Layout::Kns { p, .. } => match (is_router(sw), is_router(switch)) {
                                (true, _) if port - p == 0 => LOCAL,
                                (false, true) if back - p == 0 => LOCAL,
                                (true, _) | (_, true) => GLOBAL,
                                (false, false) => LOCAL,
                            },
                        }
                    }
                };
                total += price;
            }
        }
        Ok(Cost::new(self.spec(), total, inventory))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 000 Table 8: total cost of 64K-node networks, in millions of dollars as printed (all but the
    /// FB 4-ary 7-cube, printed 371).
    #[test]
    fn table_8_totals() {
        for (spec, millions) in [
            ("kns:k=256,n=2,s=1,sub=xbar,p=1", 235),
            ("kns:k=256,n=2,s=2,sub=ft,p=1", 420),
            ("kns:k=256,n=2,s=2,sub=ruft,p=1", 376),
            ("flattened-butterfly:k=16,n=3,p=16", 266),
            ("fat-tree:k=16,n=4", 412),
            ("fat-tree:k=4,n=8", 1062),
            ("torus:k=256,n=2", 463),
            ("flattened-butterfly:k=4,n=7,p=4", 386),
        ] {
            let topo = crate::topology::build(spec).unwrap();
            let cost = Seed000
                .price(topo.as_ref(), &super::super::complete(topo.as_ref()))
                .unwrap();
            assert_eq!(
                (cost.total / 1e6).round() as u64,
                millions,
                "{spec}: {}",
                cost.total
            );
        }
        let hyperx = crate::topology::build("hyperx:l=2,s=4,t=1").unwrap();
        let e = Seed000
            .price(hyperx.as_ref(), &super::super::complete(hyperx.as_ref()))
            .unwrap_err();
        assert!(
            e.to_string().contains("no cabinet layout for `hyperx`"),
            "{e}"
        );
    }

    /// A mesh is its torus without the wrap-around links, laid out in the same cabinets: it costs
    /// the torus less those cables. 256 x 256: 131,072 - 130,560 = 512 links fewer, 256 of
    /// dimension 0 (2 m copper, in a cabinet) and 256 of dimension 1 (5 m copper to the neighbouring
    /// cabinet), so 256 x ($107 + $172) = $71,424 less (the switches are the same size and price).
    #[test]
    fn a_mesh_costs_its_torus_less_the_wrap_around_links() {
        let price = |spec: &str| {
            let topo = crate::topology::build(spec).unwrap();
            Seed000
                .price(topo.as_ref(), &super::super::complete(topo.as_ref()))
                .unwrap()
                .total
        };
        let (mesh, torus) = (price("mesh:k=256,n=2"), price("torus:k=256,n=2"));
        assert_eq!(
            torus - mesh,
            256.0 * (LOCAL + GLOBAL_NEAR),
            "mesh {mesh}, torus {torus}"
        );
    }
}
