//! Link load statistics that explain results: phits per class of link and the busiest links.

use crate::topology::{Endpoint, Topology};
use serde::Serialize;
use std::collections::BTreeMap;

/// Load of one class of links (e.g. all level-1 upward links of a tree).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassLoad {
    /// `injection`, `ejection`, `level L up`, `level L down`, `dim D +` or `dim D -` (meshes and tori) or
    /// `switch-switch`.
    pub class: String,
    /// Links in the class.
    pub links: u64,
    /// Phits they carried.
    pub phits: u64,
    /// Packets they carried (phits / packet size): a message of P packets counts P times per link.
    pub packets: u64,
    /// Mean fraction of cycles a link of the class was busy (phits / (links x cycles)).
    pub utilisation: f64,
}

/// Load of one link.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkLoad {
    /// Which link, e.g. `switch 3 port 5 -> switch 17`.
    pub link: String,
    /// Phits it carried.
    pub phits: u64,
    /// Fraction of cycles it was busy.
    pub utilisation: f64,
}

/// Class (for grouping) and name (for listing) of a link, as both engines' reports and the link-load
/// recorder give them: node `node`'s injection link.
pub(crate) fn injection_link(node: u32) -> (String, String) {
    ("injection".into(), format!("node {node} -> its switch"))
}

/// Class and name of the link leaving `port` of `switch`: `ejection` towards a node, `level L up` or
/// `down` between tree levels, the family's own class (`dim 0 +`) or `switch-switch`; `None` if the
/// port is unplugged.
pub(crate) fn port_link(topo: &dyn Topology, switch: u32, port: u32) -> Option<(String, String)> {
    match topo.neighbour(switch, port) {
        Endpoint::Unplugged => None,
        Endpoint::Node(n) => Some(("ejection".into(), format!("switch {switch} -> node {n}"))),
        Endpoint::Switch { switch: far, .. } => {
            let class = match (topo.level(switch), topo.level(far)) {
                (Some(a), Some(b)) if b > a => format!("level {a} up"),
                (Some(a), Some(_)) => format!("level {a} down"),
                _ => topo
                    .link_class(switch, port)
                    .unwrap_or_else(|| "switch-switch".into()),
            };
            Some((
                class,
                format!("switch {switch} port {port} -> switch {far}"),
            ))
        }
    }
}

/// How many busiest links a report lists.
pub const BUSIEST: usize = 5;

/// Groups `(class, name, phits)` per link over a run of `cycles` cycles.
pub fn link_loads(
    links: impl Iterator<Item = (String, String, u64)>,
    cycles: u64,
    packet_phits: u64,
) -> (Vec<ClassLoad>, Vec<LinkLoad>) {
    let mut classes: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut busiest: Vec<(u64, String)> = Vec::with_capacity(BUSIEST + 1);
    for (class, name, phits) in links {
        let entry = classes.entry(class).or_default();
        entry.0 += 1;
        entry.1 += phits;
        if phits > 0 && (busiest.len() < BUSIEST || phits > busiest[BUSIEST - 1].0) {
            busiest.push((phits, name));
            busiest.sort_by_key(|l| std::cmp::Reverse(l.0));
            busiest.truncate(BUSIEST);
        }
    }
    let cycles = cycles as f64;
    let classes = classes
        .into_iter()
        .map(|(class, (links, phits))| ClassLoad {
            class,
            links,
            phits,
            packets: phits / packet_phits.max(1),
            utilisation: phits as f64 / (links as f64 * cycles),
        })
        .collect();
    let busiest = busiest
        .into_iter()
        .map(|(phits, link)| LinkLoad {
            link,
            phits,
            utilisation: phits as f64 / cycles,
        })
        .collect();
    (classes, busiest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_ranks() {
        let links = [("a", "x", 10), ("a", "y", 30), ("b", "z", 0)]
            .into_iter()
            .map(|(c, n, p)| (c.to_string(), n.to_string(), p));
        let (classes, busiest) = link_loads(links, 100, 10);
        assert_eq!(classes.len(), 2);
        assert_eq!(
            (classes[0].links, classes[0].phits, classes[0].packets),
            (2, 40, 4)
        );
        assert_eq!(classes[0].utilisation, 0.2);
        assert_eq!(
            busiest.iter().map(|l| l.link.as_str()).collect::<Vec<_>>(),
            ["y", "x"]
        );
    }
}
