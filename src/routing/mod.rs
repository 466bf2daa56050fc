//! Routing algorithms: how a packet's path is chosen at injection, on top of the topology's own
//! (minimal) routing function (seed 003 §III-C compares minimal, UGAL and its LBR).
//!
//! A [`PathChoice`] picks, per packet, either the minimal path or an *intermediate node*: the packet
//! then travels to the intermediate's switch and on to its destination, each leg by the topology's
//! routing function (Valiant and Brebner's scheme, which UGAL and LBR choose among). The engine gives the
//! second leg its own copy of the topology's virtual channels, so a deadlock-free topology routing stays
//! deadlock-free: every channel dependency goes within one leg's set or from the first set to the second.
//!
//! One file per algorithm, one line in [`REGISTRY`]; the engine sees only the trait and a [`NetView`]
//! of its queues. Algorithms are named in configs and on the command line by a spec string
//! ([`Routing`]): `minimal`, `valiant`, `ugal`, `lbr:period=32,valiant=3`.

mod lbr;
mod minimal;
mod ugal;
mod valiant;

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::spec::Registry;
use crate::topology::{Endpoint, OneWay, Topology};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Every routing algorithm, by spec name. One line per algorithm.
pub static REGISTRY: Registry<Box<dyn PathChoice>> = Registry {
    kind: "routing",
    entries: &[minimal::ENTRY, valiant::ENTRY, ugal::ENTRY, lbr::ENTRY],
};

/// What an algorithm may look at when a packet is injected: the engine's queues, read-only.
pub trait NetView {
    /// Number of compute nodes.
    fn nodes(&self) -> u32;
    /// The switch `node` hangs on.
    fn switch_of(&self, node: u32) -> u32;
    /// The Valiant group of `node`'s switch ([`Topology::valiant_group`]).
    fn group_of(&self, node: u32) -> u32;
    /// Current cycle.
    fn now(&self) -> u64;
    /// UGAL-L's local queue length, in phits, of the first hop from `src`'s switch towards node
    /// `target` (the least of its candidates): what the next buffer holds or has been promised, plus
    /// the heads of the switch asking for the link (their mean over the last packet time, and those
    /// waiting for credits). In an input-queued switch those heads are the output's queue; without
    /// them a switch whose own link is the bottleneck sees no queue.
    fn first_hop_queue(&mut self, src: u32, target: u32) -> u64;
    /// Phits one switch input queue holds (the model's `input_queue_packets` x packet phits): the
    /// scale of [`NetView::first_hop_queue`], which UGAL's default minimal bias is a fraction of.
    fn queue_phits(&self) -> u64;
    /// Packets queued on the link leaving `port` of `switch`: in its output queue, if the model has
    /// them, and in the input queues (every virtual channel) at its far end (LBR's channel queues).
    fn link_packets(&self, switch: u32, port: u32) -> u32;
}

/// A routing algorithm's per-packet decision, with whatever state it keeps across packets.
pub trait PathChoice: Send + Sync + fmt::Debug + CloneChoice {
    /// The canonical spec string (`ugal`, `lbr:period=32,valiant=3`).
    fn spec(&self) -> String;
    /// Whether paths may go through an intermediate (two legs, two sets of virtual channels).
    fn non_minimal(&self) -> bool {
        true
    }
    /// Builds what the algorithm needs of the topology (distance tables); called once per run.
    fn prepare(&mut self, _topo: &dyn Topology) -> Result<()> {
        Ok(())
    }
    /// The intermediate node of a new packet from node `src` to node `dest`, or `None` for the
    /// minimal path. Random choices draw from `rng`, the run's stream, so runs stay deterministic.
    /// By default Valiant's ([`random_intermediate`]), as the other defaults are: the scheme that
    /// UGAL and LBR weigh against the minimal path.
    fn intermediate(
        &mut self,
        net: &mut dyn NetView,
        rng: &mut Rng,
        src: u32,
        dest: u32,
    ) -> Option<u32> {
        random_intermediate(net, rng, src, dest)
    }
}

/// Copies a boxed algorithm, so that each run starts from a copy of the one parsed (or prepared for a
/// topology) once rather than parsing or preparing it again. Every `Clone` algorithm has it.
pub trait CloneChoice {
    /// A copy of this algorithm with its state.
    fn clone_box(&self) -> Box<dyn PathChoice>;
}

impl<T: PathChoice + Clone + 'static> CloneChoice for T {
    fn clone_box(&self) -> Box<dyn PathChoice> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn PathChoice> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A routing algorithm parsed from its spec string once, at the edge (config, `--routing`): the
/// algorithm with its typed parameters, not yet prepared for a topology, and its canonical spec, so
/// configs, reports and `--routing` all print the same text and nothing below re-parses it.
#[derive(Debug, Clone)]
pub struct Routing {
    spec: String,
    choice: Box<dyn PathChoice>,
}

impl Routing {
    /// The topology's own routing, alone.
    pub fn minimal() -> Self {
        Routing::from_choice(Box::new(minimal::Minimal))
    }
    fn from_choice(choice: Box<dyn PathChoice>) -> Self {
        Routing {
            spec: choice.spec(),
            choice,
        }
    }
    /// Parses and validates a routing spec.
    pub fn parse(text: &str) -> Result<Self> {
        Ok(Routing::from_choice(REGISTRY.build_str(text)?))
    }
    /// The canonical spec text.
    pub fn name(&self) -> &str {
        &self.spec
    }
    /// Whether paths may go through an intermediate: the engine then keeps two sets of virtual
    /// channels (what its memory estimate needs to know, without preparing the algorithm).
    pub fn non_minimal(&self) -> bool {
        self.choice.non_minimal()
    }
    /// Refuses a topology the algorithm cannot run on, without preparing it: a non-minimal
    /// algorithm needs every node to receive on the switch it injects from.
    pub fn check(&self, topo: &dyn Topology) -> Result<()> {
        if self.non_minimal() {
            // A leg ends at the switch its intermediate node injects from; with one-way links a node
            // is delivered to by another switch, so the leg could end at the node itself.
            let one_way = (0..topo.switches())
                .any(|s| (0..topo.ports(s)).any(|p| topo.one_way(s, p) != OneWay::No));
            if one_way {
                return Err(Error::Invalid(format!(
                    "`{}` has one-way links (RUFT); routing `{}` needs every node to receive on the \
                     switch it injects from",
                    topo.spec(),
                    self.spec
                )));
            }
        }
        Ok(())
    }
    /// The per-run decision maker prepared for `topo`, rejecting topologies it cannot run on.
    pub fn build(&self, topo: &dyn Topology) -> Result<Box<dyn PathChoice>> {
        self.check(topo)?;
        let mut choice = self.choice.clone();
        choice.prepare(topo)?;
        Ok(choice)
    }
}

impl PartialEq for Routing {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
    }
}

impl Eq for Routing {}

impl std::hash::Hash for Routing {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.spec.hash(state);
    }
}

impl Serialize for Routing {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.spec)
    }
}

impl<'de> Deserialize<'de> for Routing {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Routing::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl Default for Routing {
    fn default() -> Self {
        Routing::minimal()
    }
}

impl fmt::Display for Routing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec)
    }
}

impl FromStr for Routing {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self> {
        Routing::parse(text)
    }
}

/// Valiant's intermediate for a packet from node `src` to node `dest`: a uniformly random node whose
/// Valiant group ([`Topology::valiant_group`]: its switch, or a dragonfly's group) is neither end's,
/// by a few draws from `rng`. `None` (the minimal path) when both ends share a group or the draws all
/// miss (tiny networks).
pub fn random_intermediate(net: &dyn NetView, rng: &mut Rng, src: u32, dest: u32) -> Option<u32> {
    let (src_group, dst_group) = (net.group_of(src), net.group_of(dest));
    if src_group == dst_group {
        return None;
    }
    let nodes = net.nodes();
    (0..8).map(|_| rng.below(nodes)).find(|&n| {
        let group = net.group_of(n);
        group != src_group && group != dst_group
    })
}

/// Largest switch count for which UGAL and LBR keep switch-to-switch distances (u16, `switches^2`).
pub const MAX_DISTANCE_SWITCHES: u32 = 8192;

/// All-pairs switch hop distances and the switch-to-switch links of a topology, for the algorithms
/// that weigh paths by length (UGAL) or sum queues along them (LBR).
#[derive(Debug, Clone, Default)]
pub struct SwitchPaths {
    n: u32,
    dist: Vec<u16>,
    /// Links of each switch to its neighbour switches, `links[link_start[s]..link_start[s + 1]]`, in
    /// port order, one per neighbour (the first port of parallel links): (neighbour, port).
    links: Vec<(u32, u32)>,
    link_start: Vec<u32>,
    /// The switch each link leaves from.
    link_from: Vec<u32>,
}

impl SwitchPaths {
    /// Breadth-first distances from every switch (`what` names the algorithm in errors).
    pub fn new(what: &str, topo: &dyn Topology) -> Result<Self> {
        use rayon::prelude::*;
        let n = topo.switches();
        if n > MAX_DISTANCE_SWITCHES {
            return Err(Error::Invalid(format!(
                "routing `{what}` keeps a switch-to-switch distance table and handles at most \
                 {MAX_DISTANCE_SWITCHES} switches; `{}` has {n}",
                topo.spec()
            )));
        }
        let dist: Vec<u16> = (0..n)
            .into_par_iter()
            .map(|s| crate::topology::switch_distances(topo, s))
            .collect::<Vec<_>>()
            .concat()
            .into_iter()
            .map(|d| d.min(u32::from(u16::MAX)) as u16)
            .collect();
        let mut links: Vec<(u32, u32)> = Vec::new();
        let mut link_start = vec![0];
        let mut link_from = Vec::new();
        for s in 0..n {
            let first = links.len();
            for p in 0..topo.ports(s) {
                if let Endpoint::Switch { switch, .. } = topo.neighbour(s, p)
                    && !links[first..].iter().any(|&(t, _)| t == switch)
                {
                    links.push((switch, p));
                }
            }
            link_start.push(links.len() as u32);
            link_from.resize(links.len(), s);
        }
        Ok(SwitchPaths {
            n,
            dist,
            links,
            link_start,
            link_from,
        })
    }

    /// Number of links (each direction of a switch-to-switch link once).
    pub fn links(&self) -> usize {
        self.links.len()
    }

    /// The (switch, port) link `l` leaves from.
    pub fn link(&self, l: usize) -> (u32, u32) {
        (self.link_from[l], self.links[l].1)
    }

    /// Switch-to-switch hops.
    #[inline]
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        u32::from(self.dist[(a * self.n + b) as usize])
    }

    /// Sum of `weight` over the links of one shortest path from switch `a` to switch `b` (the first
    /// neighbour one hop closer at each step); `weight` takes a link index (see [`SwitchPaths::link`]).
    pub fn sum_along(&self, a: u32, b: u32, weight: impl Fn(usize) -> u64) -> u64 {
        let mut sum = 0;
        let mut here = a;
        while here != b {
            let left = self.distance(here, b);
            let first = self.link_start[here as usize] as usize;
            let last = self.link_start[here as usize + 1] as usize;
            let l = (first..last)
                .find(|&l| self.distance(self.links[l].0, b) + 1 == left)
                .expect("a connected topology has a neighbour one hop closer");
            sum += weight(l);
            here = self.links[l].0;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_validate_and_print_canonically() {
        assert_eq!(Routing::parse("ugal").unwrap().name(), "ugal");
        assert_eq!(Routing::default(), Routing::parse(" minimal ").unwrap());
        assert_eq!(
            Routing::parse("lbr").unwrap().name(),
            "lbr:period=32,valiant=3"
        );
        let e = Routing::parse("dal").unwrap_err().to_string();
        assert!(e.contains("minimal, valiant, ugal, lbr"), "{e}");
        assert!(Routing::parse("lbr:period=0").is_err());
        for text in [
            "minimal",
            "valiant",
            "ugal:threshold=8",
            "lbr:period=16,valiant=2",
        ] {
            let routing = Routing::parse(text).unwrap();
            assert_eq!(routing.to_string(), text);
            assert_eq!(Routing::parse(&routing.to_string()).unwrap(), routing);
        }
        assert!(Routing::parse("ugal").unwrap().non_minimal());
        assert!(!Routing::minimal().non_minimal());
    }

    /// A network of `nodes` nodes, two per switch, whose Valiant groups are `group` switches wide.
    struct Groups {
        nodes: u32,
        group: u32,
    }

    impl NetView for Groups {
        fn nodes(&self) -> u32 {
            self.nodes
        }
        fn switch_of(&self, node: u32) -> u32 {
            node / 2
        }
        fn group_of(&self, node: u32) -> u32 {
            node / 2 / self.group
        }
        fn now(&self) -> u64 {
            0
        }
        fn first_hop_queue(&mut self, _src: u32, _target: u32) -> u64 {
            0
        }
        fn queue_phits(&self) -> u64 {
            64
        }
        fn link_packets(&self, _switch: u32, _port: u32) -> u32 {
            0
        }
    }

    #[test]
    fn intermediates_avoid_both_ends_groups() {
        let mut rng = Rng::new(3);
        // Dragonfly-like: 9 groups of 4 switches (8 nodes).
        let net = Groups {
            nodes: 72,
            group: 4,
        };
        let mut seen = [false; 9];
        for _ in 0..2000 {
            let via = random_intermediate(&net, &mut rng, 3, 12).unwrap();
            let g = net.group_of(via);
            assert!(g != 0 && g != 1, "node {via} is in an end's group");
            seen[g as usize] = true;
        }
        assert!(seen[2..].iter().all(|&s| s), "every other group is drawn");
        // Both ends in one group: minimal.
        assert_eq!(random_intermediate(&net, &mut rng, 0, 7), None);
        // Groups of one switch: any other switch.
        let net = Groups {
            nodes: 72,
            group: 1,
        };
        assert!(random_intermediate(&net, &mut rng, 0, 2).is_some());
        assert_eq!(random_intermediate(&net, &mut rng, 0, 1), None);
    }

    #[test]
    fn paths_sum_queues_along_a_shortest_path() {
        let topo = crate::topology::build("torus:k=4,n=1").unwrap();
        let paths = SwitchPaths::new("test", topo.as_ref()).unwrap();
        assert_eq!((paths.distance(0, 2), paths.distance(3, 0)), (2, 1));
        assert_eq!(
            paths.links(),
            8,
            "a ring of 4: two links out of each switch"
        );
        // Weight of a link: 10^(its source switch), +1 if it goes to the next switch clockwise.
        let w = |l: usize| {
            let (s, p) = paths.link(l);
            let next = matches!(topo.neighbour(s, p), Endpoint::Switch { switch, .. } if switch == (s + 1) % 4);
            10u64.pow(s) + u64::from(next)
        };
        // 0 -> 2 goes through 1 (clockwise: 1 + 1 + 10 + 1) or 3 (1 + 1000).
        let sum = paths.sum_along(0, 2, w);
        assert!(sum == 13 || sum == 1001, "{sum}");
        assert_eq!(paths.sum_along(2, 2, w), 0);
    }
}
