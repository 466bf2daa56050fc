//! A user-supplied price table (the `[cost_table]` of a campaign config): switches priced by port
//! count, taking the next listed size up as seed 000 §5.3 does with vendor price lists (a 12-port switch
//! is bought as the smallest listed model with at least 12 ports), plus a price per link and per node
//! adapter.

use super::{Cost, CostModel, Inventory};
use crate::error::{Error, Result};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Prices given in a config file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PriceTable {
    /// Dollars per switch model, keyed by its port count (as a string, TOML keys being strings).
    pub switch: BTreeMap<String, f64>,
    /// Dollars per link between switches.
    #[serde(default)]
    pub link: f64,
    /// Dollars per node-to-switch link (default: `link`).
    #[serde(default)]
    pub node_link: Option<f64>,
    /// Dollars per node adapter (NIC) counted.
    #[serde(default)]
    pub nic: f64,
}

/// The largest price accepted for one item (a switch, a link, a NIC), in dollars: far above any
/// real price, and low enough that a network's total stays finite.
pub const MAX_PRICE: f64 = 1e12;

impl PriceTable {
    /// Checks every price before anything is priced or written: finite, at least 0 and at most
    /// `MAX_PRICE` (a `nan` would be written to `campaign.json` as `null`, which cannot be read
    /// back), and every switch key a port count.
    pub fn validate(&self) -> Result<()> {
        let check = |key: &str, v: f64| {
            if v.is_finite() && (0.0..=MAX_PRICE).contains(&v) {
                Ok(())
            } else {
                Err(Error::Invalid(format!(
                    "cost_table.{key} = {v:?}: a price is a finite number of dollars from 0 to {MAX_PRICE:e}"
                )))
            }
        };
        for (k, &v) in &self.switch {
            k.trim().parse::<u32>().map_err(|_| {
                Error::Invalid(format!("cost_table.switch: key `{k}` is not a port count"))
            })?;
            check(&format!("switch.{k}"), v)?;
        }
        check("link", self.link)?;
        if let Some(v) = self.node_link {
            check("node_link", v)?;
        }
        check("nic", self.nic)
    }

    /// The price of a switch with `ports` ports: the cheapest listed model with enough ports.
    fn switch_price(&self, ports: u32) -> Result<f64> {
        let mut best: Option<(u32, f64)> = None;
        for (k, &v) in &self.switch {
            let size: u32 = k.trim().parse().map_err(|_| {
                Error::Invalid(format!("cost_table.switch: key `{k}` is not a port count"))
            })?;
            if size >= ports && best.is_none_or(|(s, _)| size < s) {
                best = Some((size, v));
            }
        }
        best.map(|(_, v)| v).ok_or_else(|| {
            Error::Invalid(format!(
                "cost_table.switch lists no switch with {ports} or more ports (listed: {})",
                self.switch.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
        })
    }
}

impl CostModel for PriceTable {
    fn spec(&self) -> String {
        "table".to_string()
    }

    fn price(&self, topo: &dyn Topology, inventory: &Inventory) -> Result<Cost> {
        let mut total = 0.0;
        for &s in &inventory.switches {
            total += self.switch_price(topo.ports(s))?;
        }
        total += inventory.switch_links.len() as f64 * self.link;
        total +=
            inventory.node_links.len() as f64 * (self.node_link.unwrap_or(self.link) + self.nic);
        Ok(Cost::new(self.spec(), total, inventory))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Next size up: a 12-port switch is priced as the 16-port model; too few ports is an error.
    #[test]
    fn next_size_up_and_missing_sizes() {
        let t = crate::topology::build("thin-tree:k=8,up=4,n=4").unwrap();
        let inv = super::super::complete(t.as_ref());
        let table = PriceTable {
            switch: [("8".into(), 1.0), ("16".into(), 10.0), ("36".into(), 99.0)].into(),
            link: 2.0,
            node_link: Some(1.0),
            nic: 0.5,
        };
        let c = table.price(t.as_ref(), &inv).unwrap();
        assert_eq!(c.total, 960.0 * 10.0 + 3584.0 * 2.0 + 4096.0 * 1.5);
        let small = PriceTable {
            switch: [("8".into(), 1.0)].into(),
            ..PriceTable::default()
        };
        let e = small.price(t.as_ref(), &inv).unwrap_err().to_string();
        assert!(e.contains("12 or more ports"), "{e}");
    }

    /// NaN, infinite, negative and absurd prices are refused, naming the key.
    #[test]
    fn prices_are_finite_and_in_range() {
        let ok = PriceTable {
            switch: [("8".into(), 1.0)].into(),
            ..PriceTable::default()
        };
        ok.validate().unwrap();
        for (v, key) in [
            (f64::NAN, "link"),
            (f64::INFINITY, "nic"),
            (-1.0, "node_link"),
            (1e300, "switch.8"),
        ] {
            let mut t = ok.clone();
            match key {
                "link" => t.link = v,
                "nic" => t.nic = v,
                "node_link" => t.node_link = Some(v),
                _ => {
                    t.switch.insert("8".into(), v);
                }
            }
            let e = t.validate().unwrap_err().to_string();
            assert!(e.contains(&format!("cost_table.{key}")), "{e}");
        }
    }
}
