//! The flow-level model: every message is a fluid flow along its route, and link bandwidth is shared
//! max-min fairly among the flows crossing it.
//!
//! **What it implements.** Max-min fair sharing computed by *progressive filling* (Bertsekas and
//! Gallager, *Data Networks*, 2nd ed., §6.5.2): all rates of a set of flows grow together until a link
//! saturates; the flows crossing it are frozen at that rate; the others keep growing until every flow
//! is frozen. It is the sharing SimGrid's network model solves with its linear max-min system (LMM,
//! `src/kernel/lmm/maxmin.cpp`; Velho et al., "On the validity of flow-level TCP network models for
//! grid and cloud simulations", ACM TOMACS 2013), without TCP's RTT-dependent weighting: every link
//! carries 1 phit per cycle, like the flit model's links.
//!
//! **Links.** The flit model's channels: every switch output port (switch-to-switch and
//! switch-to-node) and every node's injection link, each of capacity 1 phit per cycle, less what
//! the flit model's buffers pass (allocation delay, and queues too shallow for their credits'
//! round trip: `Paths::capacities`).
//!
//! **Paths** (`routes.rs`). When a message starts sending, the topology's routing function
//! ([`crate::topology::Topology::route_salted`]) is walked from the source's switch to the
//! destination, as the flit engine walks it per packet, taking *one* candidate per hop: the one whose
//! link carries the fewest flows now (the flit model's adaptive choice of the output with most
//! credits), ties broken by the message's key, a salted hash of the run seed and its ranks plus the
//! count of messages its source sent before (so one pair's messages rotate over the equal-cost
//! paths). The key also salts per-packet random tie-breaks (a torus's half-way rings). Escape
//! channels (Duato) are used only where a switch offers nothing else. A path costs O(hops) and lives
//! only while its message does (`links.rs`: a flat arena whose hops are nodes of per-link flow
//! lists). Only the topology's own routing is replayed (`routing = "minimal"`): Valiant, UGAL and
//! LBR choose per packet from queue occupancy, which flows do not have.
//!
//! **Timing.** A message of `bytes` becomes P = ceil(bytes / packet bytes) packets (at least one), i.e.
//! P × `packet_phits` phits, the flit model's padding included. Its flow holds its share of bandwidth
//! from the cycle it starts until those phits have left the source at its max-min rate; it is
//! delivered the route's head latency later (the flit model's per-link latency: 1 cycle plus
//! `fly_time` per length unit, plus `max(routing_delay, allocation_delay)` entering a switch and one
//! crossbar cycle per switch with output queues). Alone on a
//! network with the default model a message over L links thus takes exactly L + 16P cycles, the flit
//! model's zero-load time. A node injects its messages in program order, one at a time, as the flit
//! model's injection queue does: only the front message of a node's queue is a flow.
//!
//! **Events.** Flow starts (a send), flow ends (its last phit left the source), deliveries and rank
//! wake-ups, on integer cycles. Rates are recomputed once per cycle with changes. A change that
//! cannot move another flow's rate needs no re-solve: a new flow whose links have room for it at
//! the least capacity left on its path, without filling a link where another flow runs faster,
//! takes that rate; a flow that ends crossing no saturated link it shares leaves every other rate
//! as it was (both exact for max-min fairness, checked against whole re-solves in debug builds).
//! Other changes re-solve the flows connected to a changed flow through shared links (its connected
//! component) while that has at most 256 flows, else for the changed flows' neighbourhood against
//! what the others keep, the change spreading one link per cycle while it moves rates by more than
//! 10% (`replay/resolve.rs`); the other flows keep their rates. Remaining phits advance lazily
//! (remaining -= rate × elapsed) when a flow's rate is recomputed. A flow's end is rounded up to a
//! whole cycle, so a flow may hold bandwidth for less than one cycle longer than the fluid model
//! says. Everything is deterministic: state is flat `Vec`s indexed by message and link ids,
//! iterated in id or insertion order, and ties of the event queue are broken by insertion order.
//!
//! **What it does not model** (why its error against the flit model grows with contention at small
//! messages): packets, and buffers and credits beyond the rate they bound. A flow's bandwidth is shared perfectly and instantly, so
//! head-of-line blocking in input queues, backpressure through full buffers, arbitration losses and
//! the pipelining of a message's packets behind another's head are absent; see `docs/network-model.md`
//! ("Flow model") and `results/flow-vs-flit/` for the measured error.

mod calendar;
mod level_heap;
mod links;
mod replay;
mod routes;
mod solver;

use super::driver::Driver;
use super::node_queues::NodeQueues;
use super::{NetworkModel, Outcome, Progress};
use crate::error::{Error, Result};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};

/// Which engine replays the traffic (`[network] model`, `--model`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// The packet-granular, phit-exact virtual cut-through engine (the default).
    #[default]
    Flit,
    /// Max-min fair flows: far faster for large messages, approximate under contention.
    Flow,
}

impl Model {
    /// True for the default model (configs leave it out when serialised).
    pub fn is_flit(&self) -> bool {
        *self == Model::Flit
    }

    /// The name configs and the command line use.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Flit => "flit",
            Model::Flow => "flow",
        }
    }
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Model {
    type Err = Error;
    fn from_str(text: &str) -> Result<Model> {
        match text.trim() {
            "flit" => Ok(Model::Flit),
            "flow" => Ok(Model::Flow),
            other => Err(Error::Invalid(format!(
                "unknown network model `{other}`; models: flit, flow"
            ))),
        }
    }
}

/// Bytes the flow model allocates for `topo` before any message: per link id (switch ports and
/// injection links) its latency, capacity, class, the solver's and the component search's scratch,
/// its phit count, the sum of its flows' rates and its list of flows; per switch port its far end;
/// per node the ends of its message queue and its count; per switch its first port id. Messages in
/// flight and their paths grow with the workload's parallelism and are left out, as for the flit
/// engine.
pub fn memory_bytes(topo: &dyn Topology) -> u64 {
    // latency 8, capacity 8, left 8, unfrozen count 4, solver stamp 4, search stamp 4, phits 8,
    // rate sum 8, freed and woken flags 1 each, class 2, the flow list's head and count, and the
    // solver heap's slot.
    const PER_LINK: u64 = 8
        + 8
        + 8
        + 4
        + 4
        + 4
        + 8
        + 8
        + 1
        + 1
        + super::stats::CLASS_BYTES_PER_LINK
        + links::Links::BYTES_PER_LINK
        + level_heap::BYTES_PER_LINK;
    let nodes = u64::from(topo.nodes());
    let switches = u64::from(topo.switches());
    let ports: u64 = (0..topo.switches()).map(|s| u64::from(topo.ports(s))).sum();
    // Per switch port, besides: what it is wired to (8). Per node: its message queue's ends and
    // its count of messages sent (8). Per switch: its first port id (4).
    (ports + nodes) * PER_LINK + ports * 8 + nodes * (NodeQueues::BYTES_PER_NODE + 8) + switches * 4
}

/// Replays what `driver` asks for with the flow model (rank r on node `rank_node[r]`), publishing
/// progress into `progress` if given; `seed` salts the hash that picks each message's path among
/// equally loaded candidates. [`super::Network::flow`] calls it with a model already checked on
/// `topo`. Returns the outcome and the driver (for its statistics).
pub(super) fn simulate_driver<D: Driver>(
    topo: &dyn Topology,
    model: &NetworkModel,
    driver: D,
    rank_node: &[u32],
    seed: u64,
    progress: Option<&Progress>,
) -> Result<(Outcome, D)> {
    if let Some(&n) = rank_node.iter().find(|&&n| n >= topo.nodes()) {
        return Err(Error::Invalid(format!(
            "placement puts a rank on node {n}, but `{}` has {} nodes",
            topo.spec(),
            topo.nodes()
        )));
    }
    let paths = routes::Paths::new(topo, model);
    replay::Replay::new(topo, model, paths, driver, rank_node, seed, progress).run()
}
