//! Paths of the flow model: the topology's routing function walked from a source node to a
//! destination node, one candidate port per hop, with the path's head latency.
//!
//! Where a switch offers several candidates (adaptive routing: a tree's up ports, a mesh's productive
//! dimensions) the walk takes the one whose link carries the fewest flows now, as the flit model's
//! adaptive selection takes the output with the most credits; among equally loaded candidates the
//! message's key decides: a salted hash of its run seed and ranks plus the number of messages its
//! source node sent before, read as a mixed-radix number whose digits (one per hop with a choice,
//! lowest first) pick the candidate. Consecutive messages of one source thus rotate over the first
//! hop's candidates, then the second's, like d-mod-k routing: the messages between one pair of nodes
//! spread over the equal-cost paths as evenly as a split would, and different pairs start at
//! unrelated offsets. Per-packet random tie-breaks of the routing function (a torus's half-way rings)
//! read a hash of the key as their salt. A path is computed when its message starts sending, in O(hops),
//! and kept only while the message is alive: nothing is cached per node or rank pair.
//!
//! Link ids are the flit engine's channel ids without crossbar paths: global switch port
//! `port_start[switch] + port` for the link leaving that port, `ports + node` for a node's injection
//! link.

use crate::error::{Error, Result};
use crate::network::stats::{self, LinkClasses};
use crate::network::{CreditUnit, NetworkModel};
use crate::rng::mix64;
use crate::topology::{Endpoint, RouteChoice, Topology};

/// Link ids, latencies and capacities of a network, and the walk that turns a message into a path.
pub(super) struct Paths<'a> {
    topo: &'a dyn Topology,
    /// First global port id of each switch.
    port_start: Vec<u32>,
    /// Total switch ports (the first injection link id).
    ports: u32,
    /// Head latency of each link id.
    link_latency: Vec<u64>,
    /// A path's head latency were its links one unit long.
    unit: crate::network::HeadLatency,
    /// What each switch port is wired to, read once from the topology ([`FarEnd`]): a walk takes
    /// one per hop, where asking the topology decodes the switch's position every time.
    far_end: Vec<FarEnd>,
    /// Each link's class for the run summary, found while the wiring is read.
    link_classes: LinkClasses,
    vcs: u32,
    /// Scratch for the routing function's candidates.
    choices: Vec<RouteChoice>,
}

/// A switch port's [`Endpoint`] in 8 bytes: a neighbour switch and its port as the high and low
/// halves; a node or nothing under a high half of `u32::MAX`, which no switch id takes (nor is
/// `u32::MAX` a node id: ids are below the counts, which are `u32`s).
#[derive(Debug, Clone, Copy)]
struct FarEnd(u64);

impl FarEnd {
    const NODE: u64 = (u32::MAX as u64) << 32;
    const UNPLUGGED: u64 = u64::MAX;

    fn of(end: Endpoint) -> FarEnd {
        FarEnd(match end {
            Endpoint::Switch { switch, port } => u64::from(switch) << 32 | u64::from(port),
            Endpoint::Node(n) => Self::NODE | u64::from(n),
            Endpoint::Unplugged => Self::UNPLUGGED,
        })
    }

    #[inline]
    fn get(self) -> Endpoint {
        match self.0 {
            Self::UNPLUGGED => Endpoint::Unplugged,
            e if e >= Self::NODE => Endpoint::Node(e as u32),
            e => Endpoint::Switch {
                switch: (e >> 32) as u32,
                port: e as u32,
            },
        }
    }
}

/// What a walk found besides its links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Walked {
    /// Cycles from the first phit leaving the source to the head being consumed: the sum of the
    /// path's link latencies.
    pub latency: u64,
}

impl<'a> Paths<'a> {
    /// Flattens the wiring into link ids and latencies under `model`'s timing (see the module doc of
    /// [`super`]).
    pub(super) fn new(topo: &'a dyn Topology, model: &NetworkModel) -> Self {
        let switches = topo.switches();
        let mut port_start = Vec::with_capacity(switches as usize + 1);
        port_start.push(0u32);
        for sw in 0..switches {
            port_start.push(port_start[sw as usize] + topo.ports(sw));
        }
        let ports = port_start[switches as usize];
        let fly = u64::from(model.fly_time);
        let enter_switch = u64::from(model.routing_delay.max(model.allocation_delay));
        let crossbar = u64::from(model.output_queue_packets > 0);
        let mut link_latency = vec![0u64; (ports + topo.nodes()) as usize];
        let mut far_end = Vec::with_capacity(ports as usize);
        let mut link_classes = LinkClasses::new(topo, (ports + topo.nodes()) as usize);
        let mut wiring = Vec::new();
        for sw in 0..switches {
            topo.wiring(sw, &mut wiring);
            for (local, &end) in (0..).zip(&wiring) {
                let gp = (port_start[sw as usize] + local) as usize;
                let length = u64::from(topo.link_length(sw, local).max(1));
                link_latency[gp] = match end {
                    Endpoint::Switch { .. } => 1 + fly * length + enter_switch + crossbar,
                    Endpoint::Node(_) => 1 + fly * length + crossbar,
                    Endpoint::Unplugged => 0,
                };
                far_end.push(FarEnd::of(end));
                link_classes.add_port(topo, sw, local, end);
            }
        }
        link_classes.add_injection_links(topo.nodes());
        for node in 0..topo.nodes() {
            link_latency[(ports + node) as usize] = 1 + fly + enter_switch;
        }
        Paths {
            topo,
            port_start,
            ports,
            link_latency,
            unit: model.head_latency(),
            far_end,
            link_classes,
            vcs: topo.virtual_channels().max(1),
            choices: Vec::new(),
        }
    }

    /// Fly time a path of `hops` links whose head latency is `latency` took beyond one unit of length
    /// per link (RUFT's return links are longer): what a zero-load time counted by hops leaves out.
    pub(super) fn extra_fly(&self, latency: u64, hops: u32) -> u64 {
        latency.saturating_sub(self.unit.cycles(hops))
    }

    /// Number of link ids (switch ports, then injection links).
    pub(super) fn links(&self) -> usize {
        self.link_latency.len()
    }

    /// Capacity of every link in phits per cycle: 1, less what the flit model's buffers allow.
    /// - With `allocation_delay` A a switch input queue sends a packet of P phits at most every
    ///   P + A cycles (the next head is allocated only A cycles after the previous tail has left), so
    ///   links into switches carry P / (P + A).
    /// - Credits: a link into a switch may have at most the input queue's Q packets' room in use, and
    ///   a packet's room comes back a round trip after the packet started on the link: its head's
    ///   latency into the queue (`lat`: 1 + fly time + the switch's entry delay), then its P phits
    ///   leaving (credits per packet; per phit each phit's room comes back as it leaves), then
    ///   `credit_delay` C. So the link carries at most Q P / (lat + P + C) per packet credits, Q P /
    ///   (lat + C) per phit credits. A queue of Q = 4 under the default model (lat 1, C 0) covers
    ///   its round trip; seed 000's timing (Q = 2, lat 1 + 8 + 20, P = 16) carries 32 / 45.
    ///   Likewise a link leaving an output queue of Q' packets carries at most Q' P / (1 + P + C)
    ///   (its packets enter through a one-cycle crossbar). Bubble flow control, which needs two
    ///   packets' room to enter a ring, is not counted.
    pub(super) fn capacities(&self, model: &NetworkModel) -> Vec<f64> {
        let p = f64::from(model.packet_phits);
        let credit = f64::from(model.credit_delay);
        let leaving = match model.credits {
            CreditUnit::Packet => p,
            CreditUnit::Phit => 0.0,
        };
        // Room in use over the cycles it is held: the most a buffer of `packets` can pass on.
        let round_trip = |packets: u32, held: f64| (f64::from(packets) * p / held).min(1.0);
        let into_switch = p / (p + f64::from(model.allocation_delay));
        let crossbar = u64::from(model.output_queue_packets > 0);
        let output_queue = if model.output_queue_packets > 0 {
            round_trip(model.output_queue_packets, 1.0 + p + credit)
        } else {
            1.0
        };
        let ports = self.far_end.len();
        (0..self.links())
            .map(|l| {
                let to_switch =
                    l >= ports || matches!(self.far_end[l].get(), Endpoint::Switch { .. });
                let mut c = if l < ports { output_queue } else { 1.0 };
                if to_switch {
                    // A switch port's latency counts its own switch's crossbar cycle; an injection
                    // link's has none.
                    let lat = self.link_latency[l] - if l < ports { crossbar } else { 0 };
                    let held = lat as f64 + leaving + credit;
                    c = c
                        .min(into_switch)
                        .min(round_trip(model.input_queue_packets, held));
                }
                c
            })
            .collect()
    }

    /// The key that chooses a message's path among equally loaded candidates (see the module doc):
    /// a hash of the run's seed and the message's ranks, plus `sequence`, the number of messages its
    /// source node sent before it.
    pub(super) fn key(seed: u64, from: u32, to: u32, sequence: u64) -> u64 {
        mix64(mix64(seed) ^ (u64::from(from) << 32 | u64::from(to))).wrapping_add(sequence)
    }

    /// Walks the routing function from node `src` to node `dst` into `out` (the links in order,
    /// injection to ejection), choosing among candidates by `load` (flows per link id now; the least
    /// loaded wins) and then by `key` (see the module doc).
    pub(super) fn walk(
        &mut self,
        src: u32,
        dst: u32,
        key: u64,
        load: &[u32],
        out: &mut Vec<u32>,
    ) -> Result<Walked> {
        let topo = self.topo;
        out.clear();
        let inj = self.ports + src;
        out.push(inj);
        let mut latency = self.link_latency[inj as usize];
        let (mut switch, mut port) = topo.node_attachment(src);
        let mut vc = 0;
        let limit = 4 * topo.switches() + 8;
        // The salt of per-packet random tie-breaks: fixed for the message, as for a packet.
        let salt = (mix64(key) >> 32) as u32;
        let mut digits = key;
        for depth in 1.. {
            if depth > limit {
                return Err(self.bug(format!("the route from node {src} to node {dst} loops")));
            }
            self.choices.clear();
            topo.route_salted(switch, port, vc, dst, salt, &mut self.choices);
            let choice = match self.choices[..] {
                // A lone plain candidate (deterministic routing, a tree's way down): no choice.
                [only] if !only.escape => only,
                _ => self.least_loaded(switch, dst, load, &mut digits)?,
            };
            let link = self.port_start[switch as usize] + choice.port;
            out.push(link);
            latency += self.link_latency[link as usize];
            match self.far_end[link as usize].get() {
                Endpoint::Node(n) if n == dst => return Ok(Walked { latency }),
                Endpoint::Node(n) => {
                    return Err(self.bug(format!("the route towards node {dst} ends at node {n}")));
                }
                Endpoint::Unplugged => {
                    return Err(self.bug(format!(
                        "switch {switch} routes to its unplugged port {}",
                        choice.port
                    )));
                }
                Endpoint::Switch { .. } if choice.vc >= self.vcs => {
                    return Err(self.bug(format!(
                        "switch {switch} offers virtual channel {} of {}",
                        choice.vc, self.vcs
                    )));
                }
                Endpoint::Switch {
                    switch: next,
                    port: next_port,
                } => {
                    (switch, port, vc) = (next, next_port, choice.vc);
                }
            }
        }
        unreachable!("the walk returns or errs within `limit` hops")
    }

    /// Where switch `switch` offers several candidates (or escape channels only): the least
    /// loaded plain one (escape channels (Duato) only where the switch offers nothing else), the
    /// scan starting at the key's next base-`count` digit, taken from `digits`.
    fn least_loaded(
        &mut self,
        switch: u32,
        dst: u32,
        load: &[u32],
        digits: &mut u64,
    ) -> Result<RouteChoice> {
        let plain = self.choices.iter().filter(|c| !c.escape).count();
        let escape = plain == 0;
        if plain != self.choices.len() {
            self.choices.retain(|c| c.escape == escape);
        }
        let count = self.choices.len();
        if count == 0 {
            return Err(self.bug(format!(
                "switch {switch} offers no route towards node {dst}"
            )));
        }
        // A power-of-two count (a tree's up ports, mostly) takes its digit with a mask and a shift
        // instead of a division; a lone candidate's digit is 0 and takes nothing from `digits`.
        let mut at = if count.is_power_of_two() {
            let digit = *digits & (count as u64 - 1);
            *digits >>= count.trailing_zeros();
            digit as usize
        } else {
            let digit = *digits % count as u64;
            *digits /= count as u64;
            digit as usize
        };
        let base = self.port_start[switch as usize];
        let mut best: Option<(u32, RouteChoice)> = None;
        for _ in 0..count {
            let c = self.choices[at];
            at = if at + 1 == count { 0 } else { at + 1 };
            let flows = load.get((base + c.port) as usize).copied().unwrap_or(0);
            if best.is_none_or(|(b, _)| flows < b) {
                best = Some((flows, c));
            }
        }
        Ok(best.expect("count > 0").1)
    }

    /// A walk that went wrong: the topology's routing function has a bug.
    fn bug(&self, e: String) -> Error {
        Error::Invalid(format!(
            "flow model on `{}`: {e} (a bug in the topology's routing function)",
            self.topo.spec()
        ))
    }

    /// Each link's class, found while the wiring was read, as the flit engine classes links.
    pub(super) fn link_classes(&self) -> &LinkClasses {
        &self.link_classes
    }

    /// The network the paths cross.
    pub(super) fn topo(&self) -> &'a dyn Topology {
        self.topo
    }

    /// The name of link `l` in reports, as the flit engine names links.
    pub(super) fn link_name(&self, l: u32) -> String {
        if l >= self.ports {
            return stats::injection_name(l - self.ports);
        }
        let (sw, port) = self.port_of(l);
        stats::port_name(self.topo, sw, port)
    }

    /// The switch and port of switch link `l`.
    fn port_of(&self, l: u32) -> (u32, u32) {
        let sw = self.port_start.partition_point(|&s| s <= l) as u32 - 1;
        (sw, l - self.port_start[sw as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(topo: &str, src: u32, dst: u32, key: u64) -> (Vec<u32>, u64, u32) {
        let topo = crate::topology::build(topo).unwrap();
        let mut paths = Paths::new(topo.as_ref(), &NetworkModel::default());
        let mut out = Vec::new();
        let w = paths.walk(src, dst, key, &[], &mut out).unwrap();
        (out, w.latency, paths.ports)
    }

    /// Node 0 to node 63 of a 4-ary 3-tree climbs to the top and comes down: 6 links, one per level
    /// each way, starting with the injection link.
    #[test]
    fn a_fat_tree_path_crosses_one_link_per_level() {
        let (links, latency, ports) = path("fat-tree:k=4,n=3", 0, 63, 7);
        assert_eq!((links.len(), latency), (6, 6));
        assert_eq!(links[0], ports, "the injection link first");
        let (links, latency, _) = path("fat-tree:k=4,n=3", 0, 1, 7);
        assert_eq!((links.len(), latency), (2, 2), "same switch");
    }

    /// A different key may take a different up port; the least loaded candidate wins over the hash.
    #[test]
    fn keys_spread_and_loads_steer_the_choice() {
        let topo = crate::topology::build("fat-tree:k=4,n=3").unwrap();
        let mut paths = Paths::new(topo.as_ref(), &NetworkModel::default());
        let mut out = Vec::new();
        let mut firsts = std::collections::BTreeSet::new();
        for key in 0..64 {
            paths.walk(0, 63, key, &[], &mut out).unwrap();
            firsts.insert(out[1]);
        }
        assert_eq!(firsts.len(), 4, "every up port of the leaf switch is used");
        let mut load = vec![1u32; paths.links()];
        paths.walk(0, 63, 3, &[], &mut out).unwrap();
        let free = out[1];
        load[free as usize] = 0;
        for key in 0..16 {
            paths.walk(0, 63, key, &load, &mut out).unwrap();
            assert_eq!(out[1], free, "key {key}");
        }
    }

    /// Every endpoint survives its 8-byte form, the largest ids included.
    #[test]
    fn far_ends_keep_their_endpoints() {
        for end in [
            Endpoint::Switch { switch: 0, port: 0 },
            Endpoint::Switch {
                switch: u32::MAX - 1,
                port: u32::MAX,
            },
            Endpoint::Node(0),
            Endpoint::Node(u32::MAX - 1),
            Endpoint::Unplugged,
        ] {
            assert_eq!(FarEnd::of(end).get(), end);
        }
    }

    /// A torus destination half-way round a ring goes one way or the other by the key's salt bits.
    #[test]
    fn half_way_ring_ties_follow_the_salt() {
        let mut lengths = std::collections::BTreeSet::new();
        let mut seconds = std::collections::BTreeSet::new();
        for key in 0..32u64 {
            let (links, latency, _) = path("torus:k=4,n=1", 0, 2, mix64(key));
            lengths.insert((links.len(), latency));
            seconds.insert(links[1]);
        }
        assert_eq!(lengths.into_iter().collect::<Vec<_>>(), [(4, 4)]);
        assert_eq!(seconds.len(), 2, "both ways round the ring");
    }
}
