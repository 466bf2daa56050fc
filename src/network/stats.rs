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

/// What class a link falls in, without spelling it: every link of a run is classed, and only the
/// few classes are spelled ([`LinkClass::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum LinkClass {
    /// A node's link into its switch.
    Injection,
    /// A switch's link to a node.
    Ejection,
    /// Between tree levels: from level L up.
    Up(u32),
    /// Between tree levels: from level L down.
    Down(u32),
    /// One of the family's own classes ([`Topology::link_class`]).
    Family(u32),
    /// Any other link between switches.
    SwitchSwitch,
}

impl LinkClass {
    /// The class of the link leaving `port` of `switch`, whose far end is `end` (`None` if the
    /// port is unplugged): `ejection` towards a node, `level L up` or `down` between tree levels
    /// (switch levels read through `level`), the family's own class (`dim 0 +`) or
    /// `switch-switch`.
    pub(crate) fn of_end(
        topo: &dyn Topology,
        switch: u32,
        port: u32,
        end: Endpoint,
        level: impl Fn(u32) -> Option<u32>,
    ) -> Option<LinkClass> {
        match end {
            Endpoint::Unplugged => None,
            Endpoint::Node(_) => Some(LinkClass::Ejection),
            Endpoint::Switch { switch: far, .. } => Some(match (level(switch), level(far)) {
                (Some(a), Some(b)) if b > a => LinkClass::Up(a),
                (Some(a), Some(_)) => LinkClass::Down(a),
                _ => topo
                    .link_class(switch, port)
                    .map_or(LinkClass::SwitchSwitch, LinkClass::Family),
            }),
        }
    }

    /// The class as reports spell it.
    pub(crate) fn name(self, topo: &dyn Topology) -> String {
        match self {
            LinkClass::Injection => "injection".into(),
            LinkClass::Ejection => "ejection".into(),
            LinkClass::Up(a) => format!("level {a} up"),
            LinkClass::Down(a) => format!("level {a} down"),
            LinkClass::Family(c) => topo.link_class_name(c),
            LinkClass::SwitchSwitch => "switch-switch".into(),
        }
    }
}

/// Every link's class, found once while a model reads the wiring: per link id (the switch ports in
/// global order, then the nodes' injection links, as both models number links) a small index into
/// the run's handful of classes. A run's summary groups its links by reading this table instead of
/// asking the topology about every link again.
#[derive(Debug, Default)]
pub(crate) struct LinkClasses {
    /// Per link, its index into `classes` ([`NO_CLASS`]: an unplugged port).
    of: Vec<u16>,
    classes: Vec<LinkClass>,
    /// Each switch's level (trees), read once: classing a port reads both ends' levels. Needed
    /// only while the ports are added, so dropped with the injection links, which come last.
    levels: Vec<Option<u32>>,
    /// The last port's class and index: a switch's ports come in runs of one class.
    last: Option<(LinkClass, u16)>,
}

/// Bytes per link of a [`LinkClasses`] (for the memory estimates).
pub(crate) const CLASS_BYTES_PER_LINK: u64 = 2;

/// The class index of an unplugged port.
const NO_CLASS: u16 = u16::MAX;

impl LinkClasses {
    /// An empty table for `links` links of `topo`.
    pub(crate) fn new(topo: &dyn Topology, links: usize) -> Self {
        LinkClasses {
            of: Vec::with_capacity(links),
            levels: (0..topo.switches()).map(|sw| topo.level(sw)).collect(),
            ..LinkClasses::default()
        }
    }

    /// Classes the next link: the one leaving `port` of `switch`, whose far end is `end` (ports
    /// are added in global port order).
    pub(crate) fn add_port(&mut self, topo: &dyn Topology, switch: u32, port: u32, end: Endpoint) {
        let levels = &self.levels;
        let index = match LinkClass::of_end(topo, switch, port, end, |s| levels[s as usize]) {
            None => NO_CLASS,
            Some(class) => match self.last {
                Some((c, i)) if c == class => i,
                _ => {
                    let i = self.index(class);
                    self.last = Some((class, i));
                    i
                }
            },
        };
        self.of.push(index);
    }

    /// Classes the `nodes` injection links, which follow the switch ports: the table is complete.
    pub(crate) fn add_injection_links(&mut self, nodes: u32) {
        self.levels = Vec::new();
        let injection = self.index(LinkClass::Injection);
        self.of
            .extend(std::iter::repeat_n(injection, nodes as usize));
    }

    /// The index of `class`, added if new.
    fn index(&mut self, class: LinkClass) -> u16 {
        let i = match self.classes.iter().position(|&c| c == class) {
            Some(i) => i,
            None => {
                self.classes.push(class);
                self.classes.len() - 1
            }
        };
        u16::try_from(i)
            .ok()
            .filter(|&i| i != NO_CLASS)
            .expect("a network has a handful of link classes")
    }

    /// The class of link `link` (`None`: an unplugged port).
    pub(crate) fn get(&self, link: u32) -> Option<u16> {
        self.of
            .get(link as usize)
            .copied()
            .filter(|&c| c != NO_CLASS)
    }

    /// Every plugged link with its class, in link order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, u16)> + '_ {
        (0..)
            .zip(&self.of)
            .filter(|&(_, &c)| c != NO_CLASS)
            .map(|(l, &c)| (l, c))
    }

    /// Class `class` as reports spell it.
    pub(crate) fn spell(&self, class: u16, topo: &dyn Topology) -> String {
        self.classes[usize::from(class)].name(topo)
    }

    /// Every plugged link of a run of `topo` for its report: its class, the phits it carried
    /// (`phits`, by link id), classes spelled from this table and links named by `name`.
    pub(crate) fn run_links<'a, N: Fn(u32) -> String>(
        &'a self,
        topo: &'a dyn Topology,
        phits: &'a [u64],
        name: N,
    ) -> RunLinks<impl Iterator<Item = (u32, u16, u64)> + 'a, impl Fn(u16) -> String + 'a, N> {
        RunLinks {
            links: self
                .iter()
                .map(|(link, class)| (link, class, phits[link as usize])),
            spell: move |class| self.spell(class, topo),
            name,
        }
    }
}

/// The name of node `node`'s injection link in reports.
pub(crate) fn injection_name(node: u32) -> String {
    format!("node {node} -> its switch")
}

/// The name of the link leaving `port` of `switch` in reports (an unplugged port is named as such).
pub(crate) fn port_name(topo: &dyn Topology, switch: u32, port: u32) -> String {
    match topo.neighbour(switch, port) {
        Endpoint::Unplugged => format!("switch {switch} port {port} (unplugged)"),
        Endpoint::Node(n) => format!("switch {switch} -> node {n}"),
        Endpoint::Switch { switch: far, .. } => {
            format!("switch {switch} port {port} -> switch {far}")
        }
    }
}

/// How many busiest links a report lists.
pub const BUSIEST: usize = 5;

/// Every link of a run for its report: `(link, class, phits carried)` per link, how a class is
/// spelled, and the names of links (asked only of the busiest). A class is any small key: a
/// [`LinkClass`], or an index into a table of them that the run built once.
pub(crate) struct RunLinks<I, S, N> {
    /// `(link, class, phits carried)` of every plugged link.
    pub links: I,
    /// Spells a class (as [`LinkClass::name`]).
    pub spell: S,
    /// Names a link.
    pub name: N,
}

/// Groups the links' phits per class over a run of `cycles` cycles and lists the busiest links;
/// each class is spelled once and only the listed links are named.
pub(crate) fn link_loads<K, I, S, N>(
    run: RunLinks<I, S, N>,
    cycles: u64,
    packet_phits: u64,
) -> (Vec<ClassLoad>, Vec<LinkLoad>)
where
    K: Copy + PartialEq,
    I: Iterator<Item = (u32, K, u64)>,
    S: Fn(K) -> String,
    N: Fn(u32) -> String,
{
    let RunLinks { links, spell, name } = run;
    let mut per_class: Vec<(K, u64, u64)> = Vec::new();
    let mut busiest: Vec<(u64, u32)> = Vec::with_capacity(BUSIEST + 1);
    for (link, class, phits) in links {
        // A run has a handful of classes, and links of one class mostly come together.
        let entry = match per_class.iter().rposition(|e| e.0 == class) {
            Some(i) => &mut per_class[i],
            None => {
                per_class.push((class, 0, 0));
                per_class.last_mut().expect("just pushed")
            }
        };
        entry.1 += 1;
        entry.2 += phits;
        if phits > 0 && (busiest.len() < BUSIEST || phits > busiest[BUSIEST - 1].0) {
            busiest.push((phits, link));
            busiest.sort_by_key(|l| std::cmp::Reverse(l.0));
            busiest.truncate(BUSIEST);
        }
    }
    // Classes in the order of their names (two classes spelled alike count as one).
    let mut classes: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (class, links, phits) in per_class {
        let entry = classes.entry(spell(class)).or_default();
        entry.0 += links;
        entry.1 += phits;
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
            link: name(link),
            phits,
            utilisation: phits as f64 / cycles,
        })
        .collect();
    (classes, busiest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table built from the wiring classes each link as asking the topology about that one
    /// port does.
    #[test]
    fn the_table_classes_each_port_as_its_topology_does() {
        for spec in [
            "fat-tree:k=4,n=3",
            "thin-tree:k=4,up=2,n=3",
            "torus:k=4,n=2",
            "dragonfly:p=2,a=4,h=2",
        ] {
            let topo = crate::topology::build(spec).unwrap();
            let topo = topo.as_ref();
            let ports: u32 = (0..topo.switches()).map(|s| topo.ports(s)).sum();
            let mut table = LinkClasses::new(topo, (ports + topo.nodes()) as usize);
            let mut wiring = Vec::new();
            let mut expected = Vec::new();
            for sw in 0..topo.switches() {
                topo.wiring(sw, &mut wiring);
                for (port, &end) in (0..).zip(&wiring) {
                    table.add_port(topo, sw, port, end);
                    let asked = topo.neighbour(sw, port);
                    expected.push(
                        LinkClass::of_end(topo, sw, port, asked, |s| topo.level(s))
                            .map(|c| c.name(topo)),
                    );
                }
            }
            table.add_injection_links(topo.nodes());
            expected.extend((0..topo.nodes()).map(|_| Some("injection".to_string())));
            let got: Vec<Option<String>> = (0..ports + topo.nodes())
                .map(|l| table.get(l).map(|c| table.spell(c, topo)))
                .collect();
            assert_eq!(got, expected, "{spec}");
            assert_eq!(
                table.iter().count(),
                expected.iter().filter(|c| c.is_some()).count(),
                "{spec}"
            );
        }
    }

    #[test]
    fn groups_and_ranks() {
        let links = [
            (0, LinkClass::Up(0), 10),
            (1, LinkClass::Up(0), 30),
            (2, LinkClass::Ejection, 0),
        ];
        let names = ["x", "y", "z"];
        let topo = crate::topology::build("fat-tree:k=2,n=2").unwrap();
        let run = RunLinks {
            links: links.into_iter(),
            spell: |c: LinkClass| c.name(topo.as_ref()),
            name: |l: u32| names[l as usize].to_string(),
        };
        let (classes, busiest) = link_loads(run, 100, 10);
        // Spelled classes in name order: "ejection" before "level 0 up".
        assert_eq!(classes.len(), 2);
        assert_eq!(
            (
                classes[0].class.as_str(),
                classes[0].links,
                classes[0].phits
            ),
            ("ejection", 1, 0)
        );
        assert_eq!(classes[1].class, "level 0 up");
        assert_eq!(
            (classes[1].links, classes[1].phits, classes[1].packets),
            (2, 40, 4)
        );
        assert_eq!(classes[1].utilisation, 0.2);
        assert_eq!(
            busiest.iter().map(|l| l.link.as_str()).collect::<Vec<_>>(),
            ["y", "x"]
        );
    }
}
