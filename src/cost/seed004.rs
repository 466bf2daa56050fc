//! Seed 004 §5.1's cost model: Cost = C_l * links + sum of C_s(ports) over switches, with C_l = $150 (a
//! 25 m Myrinet-2000 fibre pair) for every link, node links included, and
//! C_s(p) = 5625 / 16^2 * p^2 (a 16-port switch costs $5625, cost grows with the square of the ports).
//!
//! A switch's port count is its radix (unplugged top-level ports included: the switch is bought whole).
//! The paper prints C_s(12) = $3167 but its Table 3 totals use the exact 3164.0625 (e.g. the
//! 8:4,4-thin-tree: 960 * 3164.0625 + 7680 * 150 = 4189500), so the formula is kept unrounded.
//! Adapters (NICs) are excluded, as in the paper.

use super::{Cost, CostModel, Inventory};
use crate::error::Result;
use crate::spec::Entry;
use crate::topology::Topology;

/// Registry line.
pub const ENTRY: Entry<Box<dyn CostModel>> = Entry {
    name: "seed004",
    keys: &["link", "switch", "ports"],
    help: "link $150 each; a switch of p ports costs switch*(p/ports)^2, $5625 for 16 ports (seed 004 §5.1)",
    build: |p| {
        Ok(Box::new(Seed004 {
            link: p.u64_in("link", Some(150), 0, 1 << 40)?,
            switch: p.u64_in("switch", Some(5625), 0, 1 << 40)?,
            ports: p.u32_in("ports", Some(16), 1, 1 << 16)?,
        }))
    },
};

/// The quadratic switch-cost model of seed 004.
#[derive(Debug, Clone, Copy)]
pub struct Seed004 {
    /// Dollars per link.
    link: u64,
    /// Dollars for a switch of the reference port count.
    switch: u64,
    /// The reference port count.
    ports: u32,
}

impl CostModel for Seed004 {
    fn spec(&self) -> String {
        if (self.link, self.switch, self.ports) == (150, 5625, 16) {
            "seed004".to_string()
        } else {
            format!(
                "seed004:link={},switch={},ports={}",
                self.link, self.switch, self.ports
            )
        }
    }

    fn price(&self, topo: &dyn Topology, inventory: &Inventory) -> Result<Cost> {
        let per_port2 = self.switch as f64 / f64::from(self.ports).powi(2);
        let switches: f64 = inventory
            .switches
            .iter()
            .map(|&s| per_port2 * f64::from(topo.ports(s)).powi(2))
            .sum();
        let total = switches + self.link as f64 * inventory.links() as f64;
        Ok(Cost::new(self.spec(), total, inventory))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, complete};

    /// §5.1: C_s(10) = $2197.27 (printed as 2199) and a custom link price changes only the link term.
    #[test]
    fn switch_and_link_terms() {
        let t = crate::topology::build("thin-tree:k=8,up=2,n=4").unwrap();
        let inv = complete(t.as_ref());
        let base = build("seed004").unwrap().price(t.as_ref(), &inv).unwrap();
        let free_links = build("seed004:link=0")
            .unwrap()
            .price(t.as_ref(), &inv)
            .unwrap();
        assert!((free_links.total - 680.0 * 5625.0 * 100.0 / 256.0).abs() < 1e-6);
        assert!((base.total - free_links.total - 5440.0 * 150.0).abs() < 1e-6);
        assert_eq!(free_links.model, "seed004:link=0,switch=5625,ports=16");
    }
}
