//! Seed 003 §IV-A's cost and power model (InfiniBand EDR): cable cost per Gbps linear in length,
//! f(x) = 0.1167 x + 4.3410 $/Gbps for x metres, times the link bandwidth (100 Gbps); router cost linear
//! in radix, f(k) = 128 k + 15029 $; port power 4 lanes x 0.7 W per connected port. Routers and their
//! terminals share a rack, so node links are 1 m; links between racks are the Manhattan distance between
//! them plus 2 m of overhead.
//!
//! The seed lays out its own families only (FleX: one rack per y-column of each layer). For the families
//! here we choose one generic layout (`layout::SEED003`), documented in `docs/modelling-choices.md`:
//! switches fill racks of `per_rack` in the family's layout order (ids: a tree's run level by level, a
//! mesh's in coordinate order; DSN-F's super-node by super-node), racks stand on a square grid `pitch`
//! metres apart, and a link inside one rack is 2 m (the overhead alone).

use super::layout::{self, FloorLayout};
use super::{Cost, CostModel, Inventory};
use crate::error::Result;
use crate::spec::Entry;
use crate::topology::{Endpoint, Topology};

/// Registry line.
pub const ENTRY: Entry<Box<dyn CostModel>> = Entry {
    name: "seed003",
    keys: &["gbps", "per_rack", "pitch"],
    help: "EDR cables (0.1167x+4.341 $/Gbps, Manhattan rack layout + 2 m), routers 128k+15029 $, 2.8 W/port (seed 003 §IV-A)",
    build: |p| {
        Ok(Box::new(Seed003 {
            gbps: p.u32_in("gbps", Some(100), 1, 1 << 20)?,
            per_rack: p.u32_in("per_rack", Some(1), 1, 1 << 20)?,
            pitch: p.u32_in("pitch", Some(1), 1, 1000)?,
        }))
    },
};

/// Seed 003's linear cable and router prices over a generic rack layout.
#[derive(Debug, Clone, Copy)]
pub struct Seed003 {
    /// Link bandwidth in Gbps.
    gbps: u32,
    /// Switches per rack.
    per_rack: u32,
    /// Metres between neighbouring rack positions.
    pitch: u32,
}

/// Watts per connected router port: 4 lanes of 0.7 W.
const PORT_WATTS: f64 = 4.0 * 0.7;

impl Seed003 {
    fn cable(&self, metres: f64) -> f64 {
        (0.1167 * metres + 4.3410) * f64::from(self.gbps)
    }

    /// The rack grid: `per_rack` switches a rack, `pitch` metres apart (`layout::SEED003`).
    fn layout(&self) -> FloorLayout {
        FloorLayout {
            per_cabinet: self.per_rack,
            width_m: f64::from(self.pitch),
            depth_m: f64::from(self.pitch),
            ..layout::SEED003
        }
    }
}

impl CostModel for Seed003 {
    fn spec(&self) -> String {
        format!(
            "seed003:gbps={},per_rack={},pitch={}",
            self.gbps, self.per_rack, self.pitch
        )
    }

    fn price(&self, topo: &dyn Topology, inventory: &Inventory) -> Result<Cost> {
        let placed = self.layout().place(topo);
        let routers: f64 = inventory
            .switches
            .iter()
            .map(|&s| 128.0 * f64::from(topo.ports(s)) + 15029.0)
            .sum();
        let node_cables = inventory.node_links.len() as f64 * self.cable(1.0);
        let switch_cables: f64 = inventory
            .switch_links
            .iter()
            .map(|&(a, b)| self.cable(placed.cable_m(a, b)))
            .sum();
        let connected_ports: usize = inventory
            .switches
            .iter()
            .map(|&s| {
                (0..topo.ports(s))
                    .filter(|&p| topo.neighbour(s, p) != Endpoint::Unplugged)
                    .count()
            })
            .sum();
        let mut cost = Cost::new(
            self.spec(),
            routers + node_cables + switch_cables,
            inventory,
        );
        cost.power_watts = Some(connected_ports as f64 * PORT_WATTS);
        Ok(cost)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, complete};

    /// The 2,2-fat-tree priced by hand: 4 nodes, 2 leaf and 2 top switches of 4 ports in one rack.
    #[test]
    fn hand_priced_small_tree() {
        let t = crate::topology::build("fat-tree:k=2,n=2").unwrap();
        let c = build("seed003:per_rack=4")
            .unwrap()
            .price(t.as_ref(), &complete(t.as_ref()))
            .unwrap();
        let router = 128.0 * 4.0 + 15029.0;
        let node_cable = (0.1167 + 4.3410) * 100.0;
        let rack_cable = (0.1167 * 2.0 + 4.3410) * 100.0;
        let want = 4.0 * router + 4.0 * node_cable + 4.0 * rack_cable;
        assert!((c.total - want).abs() < 1e-6, "{} vs {want}", c.total);
        // 4 node ports + 8 switch-link ends are connected; top switches' up ports are unplugged.
        assert_eq!(c.power_watts, Some(12.0 * 2.8));
    }
}
