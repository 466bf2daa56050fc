//! The packet-granular event engine, phit-exact under virtual cut-through (seed 004 §3.1).
//!
//! Under VCT every buffer holds whole packets and every channel moves one phit per cycle, so a packet's
//! phits travel as a rigid train: once its head wins a channel at cycle s, the channel is busy until
//! s + P (P phits per packet), the head is ready in the next buffer at s + latency, and the tail leaves
//! the sending buffer at s + P. One event per packet per hop reproduces phit-level timing exactly.
//!
//! **Elements.** A *buffer* is a FIFO of whole packets: a switch input queue per (port, virtual
//! channel), a node's injection queue, or (optionally) a switch output queue. A *channel* moves packets
//! from a buffer into the next buffer: a switch output link, a node's injection link, or (with output
//! queues) a crossbar path into an output queue. Credits are counted in phits per buffer and returned
//! out of band `credit_delay` cycles after the tail leaves (at that very cycle by default; a delayed
//! return is one wheel event per packet per hop, never a scan).
//!
//! **Timing.** A head crossing a link is in the next switch one cycle later plus the fly time, and may
//! request an output after the routing delay; a destination node consumes the tail one cycle after it
//! arrives. A head behind another packet in a switch input queue also waits `allocation_delay` cycles
//! from the cycle the packet before it has left (Booksim's VC and switch allocation, which start only at
//! the front of the queue): it is ready at max(arrival + routing delay, front + allocation delay). On an empty network with the default model, a message of P packets of 16 phits over L links
//! takes L + 16P cycles from its first phit leaving the node to its last phit being consumed (the
//! contract's "Default network model").
//!
//! **Arbitration.** All events of a cycle are applied first (heads becoming ready, channels freeing,
//! credits returning); then every buffer whose situation changed chooses, among the candidate outputs
//! the routing function offers, a free one whose next buffer can hold the packet (two packets under
//! bubble flow control), preferring most credits with random tie-breaks (escape channels only when
//! every other candidate's next buffer is full). Each channel requested by
//! several buffers grants one at random; losers choose again among what is left in the same cycle.
//! Buffers with no usable candidate wait on their candidate channels and are looked at again only when
//! one of them frees or gains credits: nothing is scanned per cycle.
//!
//! **Virtual channels.** Each (input port, virtual channel) buffer arbitrates on its own, as in a
//! crossbar with one input per virtual channel; the physical link is shared, one packet at a time.

use super::NetworkModel;
use super::driver::Step;
use super::driver::{Consumed, Driver};
use super::wheel::{Event, Wheel};
use crate::error::{DeadlockReport, Error, Result};
use crate::rng::Rng;
use crate::routing::{NetView, PathChoice};
use crate::topology::{Endpoint, RouteChoice, Topology};
use serde::Serialize;
use std::collections::VecDeque;

/// Downstream of a channel that ends at a node: it consumes everything, so has unlimited credit.
const SINK: u32 = u32::MAX;
/// Downstream of a channel on an unplugged port.
const NOWHERE: u32 = u32::MAX - 1;

/// What a simulation measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// Cycle at which the last message was consumed and the network was empty again.
    pub completion_cycles: u64,
    /// Messages sent (and consumed).
    pub messages: u64,
    /// Packets sent.
    pub packets: u64,
    /// Phits sent, padding included (packets x packet size).
    pub phits: u64,
    /// Phits injected into the network by nodes.
    pub phits_injected: u64,
    /// Phits consumed by destination nodes.
    pub phits_delivered: u64,
    /// Phit-link traversals, node links included.
    pub phit_hops: u64,
    /// Mean links crossed per packet, node links included (phit_hops / phits).
    pub mean_hops: f64,
    /// Longest time from a send being issued to its message being consumed, in cycles.
    pub max_message_latency: u64,
    /// Mean of the same, in cycles.
    pub mean_message_latency: f64,
    /// Events the engine processed.
    pub events: u64,
    /// Load per class of link (injection, ejection, tree level up/down, switch-switch).
    pub link_classes: Vec<super::stats::ClassLoad>,
    /// The most loaded links.
    pub busiest_links: Vec<super::stats::LinkLoad>,
    /// What the MPI layer did (protocol messages, self-messages, the ranks' time split), for runs of
    /// rank programs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi: Option<crate::mpi::runtime::MpiStats>,
}

impl Outcome {
    /// Adds the MPI runtime's counters; `messages` then counts application data messages only (the
    /// rendezvous control messages are in `mpi.control_messages`, their packets still in `packets`).
    pub fn attach_mpi(&mut self, stats: crate::mpi::runtime::MpiStats) {
        self.messages -= stats.control_messages;
        self.mpi = Some(stats);
    }
}

/// A candidate next hop for the packet at the front of a buffer, resolved to engine ids.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    channel: u32,
    /// Buffer it feeds, [`SINK`] at a node.
    down: u32,
    /// Free phits the next buffer must have.
    need: u32,
    /// An escape channel: used only when every other candidate's next buffer is full.
    escape: bool,
}

enum Decision {
    /// Nothing to send, or the head is still being routed or the buffer is busy sending.
    NotReady,
    /// A packet waits but no candidate can take it now.
    Blocked,
    /// Send on this candidate; `alone` when it was the only usable one.
    Go { cand: Candidate, alone: bool },
}

/// A message in flight.
#[derive(Debug, Clone, Copy)]
struct Message {
    dest_node: u32,
    src_rank: u32,
    dst_rank: u32,
    token: u64,
    packets_to_send: u64,
    packets_to_deliver: u64,
    issued_at: u64,
}

/// The hot state of one channel, kept together so that touching a channel costs one cache line.
#[derive(Debug, Clone, Copy)]
struct Channel {
    /// Cycles from a head starting on it to being ready in the next buffer.
    latency: u32,
    /// Buffer sending on it now.
    sender: u32,
    /// Buffers registered in `chan_waiters`.
    waiters: u32,
    /// Allocation round in which it was last bid for, the bids in that round and the index of the
    /// proposal holding it (reservoir sampling: each bidder wins with equal probability).
    round: u32,
    bids: u32,
    pick: u32,
}

/// The state of one buffer (a FIFO of whole packets) and its credits.
#[derive(Debug, Clone, Copy)]
struct Buffer {
    /// Cycle at which it was last marked for allocation (deduplicates the dirty list).
    dirty_at: u64,
    /// The channel that feeds it.
    feeder: u32,
    fifo_start: u32,
    fifo_cap: u16,
    fifo_head: u16,
    fifo_len: u16,
    /// Its front packet is leaving (the tail has not left yet).
    sending: bool,
    /// Registered on its candidate channels' waiter lists.
    waiting: bool,
}

/// No intermediate node (minimal routing, or past it).
const NO_VIA: u32 = u32::MAX;

/// A packet in flight.
#[derive(Debug, Clone, Copy)]
struct Packet {
    /// Intermediate node of a Valiant path still to be reached, or [`NO_VIA`].
    via: u32,
    /// Which set of virtual channels it uses: 0 before its intermediate (or all along a minimal path),
    /// 1 after it.
    phase: u32,
    /// Links crossed so far, node links included.
    hops: u32,
    /// Random bits fixed for the packet, for routing functions that break ties per packet.
    salt: u32,
    /// Cycle at which its head is routed in its current buffer and may request an output.
    ready: u64,
    msg: u32,
    dest: u32,
}

/// All simulation state, in flat vectors indexed by small integer ids.
pub(super) struct Engine<'a, D: Driver> {
    topo: &'a dyn Topology,
    /// The run's routing algorithm (chooses a packet's intermediate at injection).
    paths: Box<dyn PathChoice>,
    non_minimal: bool,
    /// Virtual channels the topology's routing uses; `vcs` is this times the routing's legs.
    topo_vcs: u32,
    /// Switch and local port each node hangs on.
    node_switch: Vec<u32>,
    node_port: Vec<u32>,
    packet_phits: u32,
    packet_bytes: u64,
    /// Cycles from a packet's tail leaving a buffer to its credits reaching the feeding channel.
    credit_delay: u32,
    /// Cycles a switch input queue's head waits once it is at the front (see the module notes).
    allocation_delay: u32,
    /// What the allocation delay adds to a head arriving at an idle queue (beyond the routing delay).
    arrival_extra: u32,
    vcs: u32,
    nodes: u32,
    /// Total switch ports; global port id = `port_start[switch] + local port`.
    ports: u32,
    port_start: Vec<u32>,
    port_switch: Vec<u32>,
    output_queues: bool,

    // Buffer ids: input queues [0, ports*vcs), injection queues [inj_base, inj_base + nodes),
    // output queues [out_base, out_base + ports*vcs) when enabled.
    inj_base: u32,
    out_base: u32,
    // Channel ids: links [0, ports), node injection links [ports, ports + nodes),
    // crossbar paths into output queues [xbar_base, xbar_base + ports) when enabled.
    xbar_base: u32,

    chans: Vec<Channel>,
    /// Cycle at which each channel's current packet has left it (compact: scanned per candidate).
    chan_busy_until: Vec<u64>,
    /// Phits each channel has carried.
    chan_phits: Vec<u64>,
    /// Buffer each channel feeds (of virtual channel 0; VC v is `down + v`), [`SINK`] or [`NOWHERE`].
    chan_down: Vec<u32>,
    /// Buffers waiting for each channel to free or gain credits.
    chan_waiters: Vec<Vec<u32>>,
    bufs: Vec<Buffer>,
    /// Free phits of each buffer: the credits its feeding channel sees (compact: scanned per candidate).
    buf_free: Vec<u32>,
    /// Packet slots of every buffer's FIFO ring, `Buffer::fifo_start..+fifo_cap`.
    fifo_slots: Vec<u32>,
    pkts: Vec<Packet>,
    free_pkts: Vec<u32>,

    msgs: Vec<Message>,
    free_msgs: Vec<u32>,
    node_queue: Vec<VecDeque<u32>>,
    rank_node: &'a [u32],
    driver: D,

    wheel: Wheel,
    rng: Rng,
    /// Key of the packets' salts: salt = hash(key, packets made so far), so drawing them leaves `rng`'s
    /// stream (and so every run that does not read salts) unchanged.
    salt_key: u64,
    packets_made: u64,
    now: u64,
    /// Last cycle with an event other than a credit return: the run's end when the queue runs dry.
    active_at: u64,
    route_scratch: Vec<RouteChoice>,
    candidates: Vec<Candidate>,
    dirty: Vec<u32>,
    proposals: Vec<(u32, Candidate, bool)>,
    round: u32,
    steps: Vec<Step>,

    outcome: Outcome,
    latency_sum: u128,
    messages_open: u64,
    /// The first wake-up asked for past [`super::MAX_CYCLE`]: (rank or source, cycles asked, cycle).
    too_late: Option<(u32, u64, u64)>,
    /// Where the run publishes its cycle and delivered messages for an observer, if any.
    progress: Option<&'a super::Progress>,
}

/// Bytes of one buffer, channel, packet and message record, for the memory estimate
/// ([`super::memory`]).
pub(super) const RECORD_BYTES: [usize; 4] = [
    std::mem::size_of::<Buffer>(),
    std::mem::size_of::<Channel>(),
    std::mem::size_of::<Packet>(),
    std::mem::size_of::<Message>(),
];

impl<'a, D: Driver> Engine<'a, D> {
    /// Flattens the topology's wiring into channel and buffer arrays.
    pub(super) fn new(
        topo: &'a dyn Topology,
        model: &NetworkModel,
        paths: Box<dyn PathChoice>,
        driver: D,
        rank_node: &'a [u32],
        seed: u64,
    ) -> Self {
        let topo_vcs = topo.virtual_channels();
        let non_minimal = paths.non_minimal();
        let vcs = topo_vcs * if non_minimal { 2 } else { 1 };
        let nodes = topo.nodes();
        let switches = topo.switches();
        let mut port_start = Vec::with_capacity(switches as usize + 1);
        let mut port_switch = Vec::new();
        port_start.push(0u32);
        for sw in 0..switches {
            let n = topo.ports(sw);
            port_switch.extend(std::iter::repeat_n(sw, n as usize));
            port_start.push(port_start[sw as usize] + n);
        }
        let ports = port_switch.len() as u32;
        let output_queues = model.output_queue_packets > 0;
        let p = model.packet_phits;
        let (fly, routing) = (model.fly_time, model.routing_delay);

        let inj_base = ports * vcs;
        let out_base = inj_base + nodes;
        let buffers = out_base + if output_queues { ports * vcs } else { 0 };
        let xbar_base = ports + nodes;
        let channels = xbar_base + if output_queues { ports } else { 0 };

        let mut chan_down = vec![NOWHERE; channels as usize];
        let mut chan_latency = vec![0u32; channels as usize];
        let mut buf_feeder = vec![u32::MAX; buffers as usize];
        let mut buf_free = vec![0u32; buffers as usize];
        let mut fifo_cap = vec![0u32; buffers as usize];

        let link_to_switch = 1 + fly + routing;
        let link_to_node = 1 + fly;
        for sw in 0..switches {
            for local in 0..topo.ports(sw) {
                let gp = port_start[sw as usize] + local;
                match topo.neighbour(sw, local) {
                    Endpoint::Switch { switch, port } => {
                        let peer = port_start[switch as usize] + port;
                        chan_down[gp as usize] = peer * vcs;
                        // Longer links (RUFT's return links) take fly_time per unit of length.
                        let extra = fly * (topo.link_length(sw, local).max(1) - 1);
                        chan_latency[gp as usize] = link_to_switch + extra;
                        for vc in 0..vcs {
                            buf_feeder[(peer * vcs + vc) as usize] = gp;
                        }
                    }
                    Endpoint::Node(_) => {
                        chan_down[gp as usize] = SINK;
                        let extra = fly * (topo.link_length(sw, local).max(1) - 1);
                        chan_latency[gp as usize] = link_to_node + extra;
                    }
                    Endpoint::Unplugged => {}
                }
                if output_queues {
                    let xbar = xbar_base + gp;
                    chan_down[xbar as usize] = out_base + gp * vcs;
                    chan_latency[xbar as usize] = 1;
                    for vc in 0..vcs {
                        buf_feeder[(out_base + gp * vcs + vc) as usize] = xbar;
                    }
                }
            }
        }
        for node in 0..nodes {
            let (sw, local) = topo.node_attachment(node);
            let leaf_port = port_start[sw as usize] + local;
            let link = ports + node;
            chan_down[link as usize] = leaf_port * vcs;
            chan_latency[link as usize] = link_to_switch;
            for vc in 0..vcs {
                buf_feeder[(leaf_port * vcs + vc) as usize] = link;
            }
        }
        for b in 0..buffers {
            let packets = if b < inj_base {
                model.input_queue_packets
            } else if b < out_base {
                model.injection_queue_packets
            } else {
                model.output_queue_packets
            };
            buf_free[b as usize] = packets * p;
            if b < inj_base || b >= out_base {
                fifo_cap[b as usize] = packets;
            }
        }
        let mut bufs = Vec::with_capacity(buffers as usize);
        let mut total = 0u32;
        for b in 0..buffers as usize {
            bufs.push(Buffer {
                dirty_at: u64::MAX,
                feeder: buf_feeder[b],
                fifo_start: total,
                fifo_cap: fifo_cap[b] as u16,
                fifo_head: 0,
                fifo_len: 0,
                sending: false,
                waiting: false,
            });
            total += fifo_cap[b];
        }
        let chans = (0..channels as usize)
            .map(|c| Channel {
                latency: chan_latency[c],
                sender: u32::MAX,
                waiters: 0,
                round: 0,
                bids: 0,
                pick: 0,
            })
            .collect();

        let arrival_extra = model.allocation_delay.saturating_sub(routing);
        let horizon = u64::from(p)
            + u64::from(fly)
            + u64::from(routing)
            + u64::from(arrival_extra)
            + u64::from(model.credit_delay.max(model.allocation_delay))
            + 2;
        let (node_switch, node_port): (Vec<u32>, Vec<u32>) =
            (0..nodes).map(|n| topo.node_attachment(n)).unzip();
        Engine {
            topo,
            paths,
            non_minimal,
            topo_vcs,
            node_switch,
            node_port,
            packet_phits: p,
            packet_bytes: model.packet_bytes(),
            credit_delay: model.credit_delay,
            allocation_delay: model.allocation_delay,
            arrival_extra,
            vcs,
            nodes,
            ports,
            port_start,
            port_switch,
            output_queues,
            inj_base,
            out_base,
            xbar_base,
            chans,
            chan_busy_until: vec![0; channels as usize],
            chan_down,
            chan_phits: vec![0; channels as usize],
            chan_waiters: vec![Vec::new(); channels as usize],
            bufs,
            buf_free,
            fifo_slots: vec![0; total as usize],
            pkts: Vec::new(),
            free_pkts: Vec::new(),
            msgs: Vec::new(),
            free_msgs: Vec::new(),
            node_queue: vec![VecDeque::new(); nodes as usize],
            rank_node,
            driver,
            wheel: Wheel::new(horizon),
            rng: Rng::new(seed),
            salt_key: crate::rng::mix64(seed ^ 0x5A17_5A17_5A17_5A17),
            packets_made: 0,
            now: 0,
            active_at: 0,
            route_scratch: Vec::new(),
            candidates: Vec::new(),
            dirty: Vec::new(),
            proposals: Vec::new(),
            round: 0,
            steps: Vec::new(),
            outcome: Outcome {
                completion_cycles: 0,
                messages: 0,
                packets: 0,
                phits: 0,
                phits_injected: 0,
                phits_delivered: 0,
                phit_hops: 0,
                max_message_latency: 0,
                mean_message_latency: 0.0,
                mean_hops: 0.0,
                events: 0,
                link_classes: Vec::new(),
                busiest_links: Vec::new(),
                mpi: None,
            },
            latency_sum: 0,
            messages_open: 0,
            too_late: None,
            progress: None,
        }
    }

    /// Publishes the run's progress into `progress` while it runs.
    pub(super) fn observed(mut self, progress: Option<&'a super::Progress>) -> Self {
        self.progress = progress;
        self
    }

    /// Runs to completion, or reports a deadlock.
    pub(super) fn run(mut self) -> Result<(Outcome, D)> {
        let mut steps = std::mem::take(&mut self.steps);
        self.driver.start(&mut steps);
        self.apply(&mut steps);
        self.allocate();
        let mut events = Vec::new();
        let mut publish = 0u32;
        while let Some(now) = self.wheel.pop_cycle(&mut events) {
            self.check_time()?;
            self.now = now;
            publish = publish.wrapping_add(1);
            if publish.is_multiple_of(1024)
                && let Some(p) = self.progress
            {
                p.publish(now, self.outcome.messages - self.messages_open);
            }
            self.outcome.events += events.len() as u64;
            for &event in &events {
                if let Event::CreditReturn(b) = event {
                    // Credits coming home after the last delivery do not lengthen the run.
                    self.return_credit(b);
                    continue;
                }
                self.active_at = now;
                match event {
                    Event::HeadReady(b) => self.mark_dirty(b),
                    Event::TransmitDone(c) => self.transmit_done(c),
                    Event::Deliver(pkt) => self.deliver(pkt),
                    Event::CreditReturn(_) => unreachable!("credits are returned above"),
                    Event::WakeRank(who) => {
                        self.driver.wake(now, who, &mut steps);
                        self.apply(&mut steps);
                    }
                }
            }
            self.wheel.recycle(std::mem::take(&mut events));
            self.allocate();
            if self.driver.stop(now) {
                return Ok(self.summarise());
            }
        }
        self.check_time()?;
        self.finish()
    }

    /// Refuses a run that asked for a wake-up past [`super::MAX_CYCLE`] (a compute, self-copy or job
    /// start too long), naming the value, instead of wrapping the clock.
    fn check_time(&self) -> Result<()> {
        match self.too_late {
            None => Ok(()),
            Some((who, cycles, at)) => Err(Error::Invalid(format!(
                "simulated time would pass {} cycles: rank {who} asks to wait {cycles} cycles at \
                 cycle {at} (a computation, self-copy or job start too large for the simulator)",
                super::MAX_CYCLE
            ))),
        }
    }

    // ---- drivers and messages ----

    /// Carries out what the driver asked for.
    fn apply(&mut self, steps: &mut Vec<Step>) {
        for step in steps.drain(..) {
            match step {
                Step::Send {
                    from,
                    to,
                    bytes,
                    token,
                } => self.issue(from, to, bytes, token),
                Step::Sleep { rank, cycles } => match self.now.checked_add(cycles.max(1)) {
                    Some(at) if at <= super::MAX_CYCLE => {
                        self.wheel.schedule(at, Event::WakeRank(rank))
                    }
                    _ => {
                        self.too_late.get_or_insert((rank, cycles, self.now));
                    }
                },
            }
        }
    }

    fn issue(&mut self, from: u32, to: u32, bytes: u64, token: u64) {
        let packets = bytes.div_ceil(self.packet_bytes).max(1);
        let msg = Message {
            dest_node: self.rank_node[to as usize],
            src_rank: from,
            dst_rank: to,
            token,
            packets_to_send: packets,
            packets_to_deliver: packets,
            issued_at: self.now,
        };
        let id = slab_insert(&mut self.msgs, &mut self.free_msgs, msg);
        let node = self.rank_node[from as usize];
        self.node_queue[node as usize].push_back(id);
        self.mark_dirty(self.inj_base + node);
        self.outcome.messages += 1;
        self.outcome.packets += packets;
        self.messages_open += 1;
    }

    fn deliver(&mut self, pkt: u32) {
        self.outcome.phits_delivered += u64::from(self.packet_phits);
        self.free_pkts.push(pkt);
        let id = self.pkts[pkt as usize].msg;
        let msg = &mut self.msgs[id as usize];
        msg.packets_to_deliver -= 1;
        if msg.packets_to_deliver > 0 {
            return;
        }
        let msg = *msg;
        self.free_msgs.push(id);
        self.messages_open -= 1;
        let latency = self.now - msg.issued_at;
        self.latency_sum += u128::from(latency);
        self.outcome.max_message_latency = self.outcome.max_message_latency.max(latency);
        self.outcome.completion_cycles = self.now;
        let consumed = Consumed {
            from: msg.src_rank,
            to: msg.dst_rank,
            token: msg.token,
            issued_at: msg.issued_at,
            hops: self.pkts[pkt as usize].hops,
        };
        let mut steps = std::mem::take(&mut self.steps);
        self.driver.consumed(self.now, &consumed, &mut steps);
        self.apply(&mut steps);
        self.steps = steps;
    }

    // ---- buffers ----

    /// Whether buffer `b` is a node's injection queue (whose packets are formed lazily from messages).
    #[inline]
    fn is_injection(&self, b: u32) -> bool {
        (self.inj_base..self.out_base).contains(&b)
    }

    #[inline]
    fn mark_dirty(&mut self, b: u32) {
        if self.bufs[b as usize].dirty_at != self.now {
            self.bufs[b as usize].dirty_at = self.now;
            self.dirty.push(b);
        }
    }

    #[inline]
    fn front(&self, b: u32) -> Option<u32> {
        let buf = &self.bufs[b as usize];
        (buf.fifo_len > 0)
            .then(|| self.fifo_slots[(buf.fifo_start + u32::from(buf.fifo_head)) as usize])
    }

    #[inline]
    fn pop_front(&mut self, b: u32) -> u32 {
        let buf = &mut self.bufs[b as usize];
        let pkt = self.fifo_slots[(buf.fifo_start + u32::from(buf.fifo_head)) as usize];
        buf.fifo_head += 1;
        if buf.fifo_head == buf.fifo_cap {
            buf.fifo_head = 0;
        }
        buf.fifo_len -= 1;
        pkt
    }

    #[inline]
    fn push_back(&mut self, b: u32, pkt: u32) {
        let buf = &mut self.bufs[b as usize];
        debug_assert!(
            buf.fifo_len < buf.fifo_cap,
            "credit accounting let a buffer overflow"
        );
        let mut slot = buf.fifo_head + buf.fifo_len;
        if slot >= buf.fifo_cap {
            slot -= buf.fifo_cap;
        }
        self.fifo_slots[(buf.fifo_start + u32::from(slot)) as usize] = pkt;
        buf.fifo_len += 1;
    }

    /// Fills `self.candidates` with the next hops of the packet at the front of buffer `b`.
    fn fill_candidates(&mut self, b: u32) {
        self.candidates.clear();
        let p = self.packet_phits;
        if b < self.inj_base {
            let port = b / self.vcs;
            let sw = self.port_switch[port as usize];
            let base = self.port_start[sw as usize];
            let pkt = self.pkts[self.front(b).expect("routing an empty buffer") as usize];
            let local_vc = (b % self.vcs) % self.topo_vcs;
            // A Valiant packet heads for its intermediate's switch; there it starts its second leg as
            // if injected by the intermediate node (the topology's VC and bubble rules start afresh).
            let (target, in_port, in_vc, phase) = match pkt.via {
                NO_VIA => (pkt.dest, port - base, local_vc, pkt.phase),
                via if self.node_switch[via as usize] == sw => {
                    (pkt.dest, self.node_port[via as usize], 0, 1)
                }
                via => (via, port - base, local_vc, 0),
            };
            self.route_scratch.clear();
            self.topo.route_salted(
                sw,
                in_port,
                in_vc,
                target,
                pkt.salt,
                &mut self.route_scratch,
            );
            let vc_base = phase * self.topo_vcs;
            for choice in &self.route_scratch {
                let channel = port_channel(base + choice.port, self.output_queues, self.xbar_base);
                let down = self.chan_down[channel as usize];
                debug_assert!(
                    down != NOWHERE,
                    "switch {sw} routed to unplugged port {}",
                    choice.port
                );
                self.candidates.push(Candidate {
                    channel,
                    down: if down == SINK {
                        SINK
                    } else {
                        down + vc_base + choice.vc
                    },
                    need: if choice.bubble { 2 * p } else { p },
                    escape: choice.escape,
                });
            }
        } else if b < self.out_base {
            let channel = self.ports + (b - self.inj_base);
            self.candidates.push(Candidate {
                channel,
                down: self.chan_down[channel as usize],
                need: p,
                escape: false,
            });
        } else {
            let q = b - self.out_base;
            let channel = q / self.vcs;
            let down = self.chan_down[channel as usize];
            self.candidates.push(Candidate {
                channel,
                down: if down == SINK {
                    SINK
                } else {
                    down + q % self.vcs
                },
                need: p,
                escape: false,
            });
        }
    }

    fn decide(&mut self, b: u32) -> Decision {
        if self.bufs[b as usize].sending {
            return Decision::NotReady;
        }
        if self.is_injection(b) {
            if self.node_queue[(b - self.inj_base) as usize].is_empty() {
                return Decision::NotReady;
            }
        } else {
            match self.front(b) {
                Some(pkt) if self.pkts[pkt as usize].ready <= self.now => {}
                _ => return Decision::NotReady,
            }
        }
        self.fill_candidates(b);
        let mut best: Option<Candidate> = None;
        // Escape channels rank below every other candidate, then most credits wins.
        let mut best_rank = (false, 0u32);
        let mut ties = 0u32;
        let mut usable = 0u32;
        for i in 0..self.candidates.len() {
            let cand = self.candidates[i];
            if self.chan_busy_until[cand.channel as usize] > self.now {
                continue;
            }
            let credit = self.credit(cand);
            if credit < cand.need {
                continue;
            }
            usable += 1;
            let rank = (!cand.escape, credit);
            if best.is_none() || rank > best_rank {
                best = Some(cand);
                best_rank = rank;
                ties = 1;
            } else if rank == best_rank {
                ties += 1;
                if self.rng.below(ties) == 0 {
                    best = Some(cand);
                }
            }
        }
        match best {
            // An escape choice is taken only when no other candidate has room, busy or not: a packet
            // waits for a busy adaptive link rather than escape, so the escape path stays lightly used.
            Some(cand)
                if cand.escape
                    && self
                        .candidates
                        .iter()
                        .any(|c| !c.escape && self.credit(*c) >= c.need) =>
            {
                Decision::Blocked
            }
            Some(cand) => Decision::Go {
                cand,
                alone: usable == 1,
            },
            None => Decision::Blocked,
        }
    }

    /// Free phits in the buffer a candidate feeds (unbounded at a node).
    #[inline]
    fn credit(&self, cand: Candidate) -> u32 {
        if cand.down == SINK {
            u32::MAX
        } else {
            self.buf_free[cand.down as usize]
        }
    }

    /// Registers blocked buffer `b` (whose candidates are in `self.candidates`) on its channels.
    fn wait_on_candidates(&mut self, b: u32) {
        if !self.bufs[b as usize].waiting {
            self.bufs[b as usize].waiting = true;
            for cand in &self.candidates {
                self.chan_waiters[cand.channel as usize].push(b);
                self.chans[cand.channel as usize].waiters += 1;
            }
        }
    }

    fn stop_waiting(&mut self, b: u32) {
        if self.bufs[b as usize].waiting {
            self.bufs[b as usize].waiting = false;
            self.fill_candidates(b);
            for cand in &self.candidates {
                let waiters = &mut self.chan_waiters[cand.channel as usize];
                if let Some(i) = waiters.iter().position(|&w| w == b) {
                    waiters.swap_remove(i);
                    self.chans[cand.channel as usize].waiters -= 1;
                }
            }
        }
    }

    /// Marks the buffers waiting on `channel` for another look, but only if the channel is free and its
    /// next buffer has room for a packet: a waiter needs both, and the event that completes the pair
    /// (the channel freeing, or credits returning) is the one that wakes it.
    fn wake_waiters(&mut self, channel: u32) {
        let (waiters, down) = (
            self.chans[channel as usize].waiters,
            self.chan_down[channel as usize],
        );
        if waiters == 0 || self.chan_busy_until[channel as usize] > self.now {
            return;
        }
        let vcs = if channel < self.ports || channel >= self.xbar_base {
            self.vcs
        } else {
            1
        };
        let room = down == SINK
            || (down..down + vcs).any(|d| self.buf_free[d as usize] >= self.packet_phits);
        if !room {
            return;
        }
        for i in 0..self.chan_waiters[channel as usize].len() {
            let b = self.chan_waiters[channel as usize][i];
            self.mark_dirty(b);
        }
    }

    // ---- allocation and transmission ----

    /// Grants channels to the buffers that changed this cycle (random arbitration per channel, adaptive
    /// choice per packet), repeating for the losers until nobody else can move.
    fn allocate(&mut self) {
        while !self.dirty.is_empty() {
            let round = std::mem::take(&mut self.dirty);
            self.round = self.round.wrapping_add(1);
            if self.round == 0 {
                // After 2^32 rounds, forget old bids so a stale round number never matches.
                self.chans.iter_mut().for_each(|c| c.round = 0);
                self.round = 1;
            }
            self.proposals.clear();
            for &b in &round {
                match self.decide(b) {
                    Decision::NotReady => {}
                    Decision::Blocked => self.wait_on_candidates(b),
                    Decision::Go { cand, alone } => {
                        // Reservoir sampling: the k-th bidder for a channel takes it with probability
                        // 1/k, so every bidder of the round wins with equal probability.
                        let c = cand.channel as usize;
                        let index = self.proposals.len() as u32;
                        if self.chans[c].round != self.round {
                            self.chans[c].round = self.round;
                            self.chans[c].bids = 1;
                            self.chans[c].pick = index;
                        } else {
                            self.chans[c].bids += 1;
                            if self.rng.below(self.chans[c].bids) == 0 {
                                self.chans[c].pick = index;
                            }
                        }
                        self.proposals.push((b, cand, alone));
                    }
                }
            }
            self.dirty = round;
            self.dirty.clear();
            for i in 0..self.proposals.len() {
                let (b, cand, alone) = self.proposals[i];
                if self.chans[cand.channel as usize].pick == i as u32 {
                    self.start(b, cand);
                } else if alone {
                    // Its one usable output is taken: it waits for its candidates to change.
                    self.fill_candidates(b);
                    self.wait_on_candidates(b);
                } else {
                    // A loser with other usable outputs chooses again in this same cycle.
                    self.dirty.push(b);
                }
            }
        }
    }

    /// Starts sending the front packet of buffer `b` on `cand.channel`.
    fn start(&mut self, b: u32, cand: Candidate) {
        let now = self.now;
        let p = self.packet_phits;
        self.stop_waiting(b);
        let pkt = if self.is_injection(b) {
            self.new_packet(b - self.inj_base)
        } else {
            self.pop_front(b)
        };
        if b < self.inj_base {
            let packet = &mut self.pkts[pkt as usize];
            let sw = self.port_switch[(b / self.vcs) as usize];
            if packet.via != NO_VIA && self.node_switch[packet.via as usize] == sw {
                packet.via = NO_VIA;
                packet.phase = 1;
            }
        }
        let c = cand.channel as usize;
        self.bufs[b as usize].sending = true;
        self.chans[c].sender = b;
        self.chan_busy_until[c] = now + u64::from(p);
        self.wheel
            .schedule(now + u64::from(p), Event::TransmitDone(cand.channel));
        if cand.channel < self.xbar_base {
            self.outcome.phit_hops += u64::from(p);
            self.chan_phits[c] += u64::from(p);
            self.pkts[pkt as usize].hops += 1;
        }
        let ready = now + u64::from(self.chans[c].latency);
        if cand.down == SINK {
            self.wheel
                .schedule(ready + u64::from(p), Event::Deliver(pkt));
        } else {
            let down = cand.down;
            self.buf_free[down as usize] -= p;
            let ready = if down < self.inj_base {
                ready + u64::from(self.arrival_extra)
            } else {
                ready
            };
            self.pkts[pkt as usize].ready = ready;
            let was_empty = self.bufs[down as usize].fifo_len == 0;
            self.push_back(down, pkt);
            if was_empty && !self.bufs[down as usize].sending {
                self.wheel.schedule(ready, Event::HeadReady(down));
            }
        }
    }

    /// Takes the next packet of the front message of `node`'s queue.
    fn new_packet(&mut self, node: u32) -> u32 {
        let queue = &mut self.node_queue[node as usize];
        let id = *queue.front().expect("injecting from an empty node");
        let msg = &mut self.msgs[id as usize];
        msg.packets_to_send -= 1;
        let dest = msg.dest_node;
        if msg.packets_to_send == 0 {
            queue.pop_front();
        }
        self.outcome.phits_injected += u64::from(self.packet_phits);
        let via = if self.non_minimal {
            self.choose_intermediate(node, dest)
        } else {
            NO_VIA
        };
        self.packets_made += 1;
        let salt = crate::rng::mix64(self.salt_key ^ self.packets_made) as u32;
        let packet = Packet {
            via,
            phase: 0,
            hops: 0,
            salt,
            ready: 0,
            msg: id,
            dest,
        };
        slab_insert(&mut self.pkts, &mut self.free_pkts, packet)
    }

    /// The intermediate node of a new packet from `src` to `dest` under the run's routing algorithm.
    fn choose_intermediate(&mut self, src: u32, dest: u32) -> u32 {
        let mut view = View {
            topo: self.topo,
            now: self.now,
            node_switch: &self.node_switch,
            node_port: &self.node_port,
            port_start: &self.port_start,
            chan_down: &self.chan_down,
            bufs: &self.bufs,
            buf_free: &self.buf_free,
            scratch: &mut self.route_scratch,
            output_queues: self.output_queues,
            xbar_base: self.xbar_base,
            out_base: self.out_base,
            vcs: self.vcs,
            packet_phits: self.packet_phits,
        };
        self.paths
            .intermediate(&mut view, &mut self.rng, src, dest)
            .unwrap_or(NO_VIA)
    }

    fn transmit_done(&mut self, channel: u32) {
        let b = self.chans[channel as usize].sender;
        self.bufs[b as usize].sending = false;
        self.wake_waiters(channel);
        if self.is_injection(b) {
            self.mark_dirty(b);
            return;
        }
        if self.credit_delay == 0 {
            self.return_credit(b);
        } else {
            self.wheel.schedule(
                self.now + u64::from(self.credit_delay),
                Event::CreditReturn(b),
            );
        }
        if let Some(pkt) = self.front(b) {
            let mut ready = self.pkts[pkt as usize].ready;
            if b < self.inj_base && self.allocation_delay > 0 {
                ready = ready.max(self.now + u64::from(self.allocation_delay));
                self.pkts[pkt as usize].ready = ready;
            }
            if ready <= self.now {
                self.mark_dirty(b);
            } else {
                self.wheel.schedule(ready, Event::HeadReady(b));
            }
        }
    }

    /// The room a packet left in buffer `b` becomes credits its feeding channel sees.
    fn return_credit(&mut self, b: u32) {
        self.buf_free[b as usize] += self.packet_phits;
        self.wake_waiters(self.bufs[b as usize].feeder);
    }

    // ---- end of run ----

    /// The queue ran dry: either every source finished and every message was consumed, or nothing can
    /// move any more (a deadlock, reported with who waits on what).
    fn finish(self) -> Result<(Outcome, D)> {
        if self.driver.complete() && self.messages_open == 0 {
            return Ok(self.summarise());
        }
        let in_network = self.outcome.phits_injected - self.outcome.phits_delivered;
        let mut stuck_buffers = Vec::new();
        for b in 0..self.inj_base {
            if self.bufs[b as usize].fifo_len > 0 && stuck_buffers.len() < 6 {
                let port = b / self.vcs;
                let sw = self.port_switch[port as usize];
                stuck_buffers.push(format!(
                    "switch {sw} port {} vc {} holds {} packets",
                    port - self.port_start[sw as usize],
                    b % self.vcs,
                    self.bufs[b as usize].fifo_len
                ));
            }
        }
        let blocked = self.driver.blocked();
        Err(Error::Deadlock(Box::new(DeadlockReport {
            cycle: self.now,
            packets_in_network: in_network / u64::from(self.packet_phits),
            stuck_buffers,
            blocked_total: blocked.len(),
            blocked_ranks: blocked.into_iter().take(8).collect(),
        })))
    }

    /// Final counters, with link loads grouped by class and the busiest links.
    fn summarise(mut self) -> (Outcome, D) {
        let o = &mut self.outcome;
        o.completion_cycles = o.completion_cycles.max(self.active_at);
        o.phits = o.packets * u64::from(self.packet_phits);
        if o.phits > 0 {
            o.mean_hops = o.phit_hops as f64 / o.phits as f64;
        }
        let done = o.messages - self.messages_open;
        if done > 0 {
            o.mean_message_latency = self.latency_sum as f64 / done as f64;
        }
        let links = (0..self.xbar_base).filter_map(|c| {
            let (class, name) = self.describe_link(c)?;
            Some((class, name, self.chan_phits[c as usize]))
        });
        let (classes, busiest) =
            super::stats::link_loads(links, self.active_at.max(1), u64::from(self.packet_phits));
        self.outcome.link_classes = classes;
        self.outcome.busiest_links = busiest;
        (self.outcome, self.driver)
    }

    /// Class (for grouping) and name (for listing) of link channel `c`; `None` if it is unplugged.
    fn describe_link(&self, c: u32) -> Option<(String, String)> {
        if c >= self.ports {
            let node = c - self.ports;
            return Some(("injection".into(), format!("node {node} -> its switch")));
        }
        let sw = self.port_switch[c as usize];
        let local = c - self.port_start[sw as usize];
        match self.topo.neighbour(sw, local) {
            Endpoint::Unplugged => None,
            Endpoint::Node(n) => Some(("ejection".into(), format!("switch {sw} -> node {n}"))),
            Endpoint::Switch { switch, .. } => {
                let class = match (self.topo.level(sw), self.topo.level(switch)) {
                    (Some(a), Some(b)) if b > a => format!("level {a} up"),
                    (Some(a), Some(_)) => format!("level {a} down"),
                    _ => self
                        .topo
                        .link_class(sw, local)
                        .unwrap_or_else(|| "switch-switch".into()),
                };
                Some((
                    class,
                    format!("switch {sw} port {local} -> switch {switch}"),
                ))
            }
        }
    }
}

impl<D: Driver> std::fmt::Debug for Engine<'_, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("topology", &self.topo.spec())
            .field("nodes", &self.nodes)
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

/// The channel a packet leaving through global port `gp` takes first: the crossbar path into the
/// port's output queue when the model has output queues, else the link itself.
#[inline]
fn port_channel(gp: u32, output_queues: bool, xbar_base: u32) -> u32 {
    if output_queues { xbar_base + gp } else { gp }
}

/// Stores `item` in a free slot of `slab` (reusing one from `free`, else growing), returning its id: the
/// packet and message slabs, so the steady state allocates nothing.
#[inline]
fn slab_insert<T>(slab: &mut Vec<T>, free: &mut Vec<u32>, item: T) -> u32 {
    match free.pop() {
        Some(id) => {
            slab[id as usize] = item;
            id
        }
        None => {
            slab.push(item);
            (slab.len() - 1) as u32
        }
    }
}

/// The engine's queues as a routing algorithm sees them at a packet's injection (see [`NetView`]).
struct View<'e> {
    topo: &'e dyn Topology,
    now: u64,
    node_switch: &'e [u32],
    node_port: &'e [u32],
    port_start: &'e [u32],
    chan_down: &'e [u32],
    bufs: &'e [Buffer],
    buf_free: &'e [u32],
    scratch: &'e mut Vec<RouteChoice>,
    output_queues: bool,
    xbar_base: u32,
    out_base: u32,
    vcs: u32,
    packet_phits: u32,
}

impl NetView for View<'_> {
    fn nodes(&self) -> u32 {
        self.node_switch.len() as u32
    }
    fn switch_of(&self, node: u32) -> u32 {
        self.node_switch[node as usize]
    }
    fn now(&self) -> u64 {
        self.now
    }
    fn link_packets(&self, switch: u32, port: u32) -> u32 {
        let gp = self.port_start[switch as usize] + port;
        let held = |first: u32| {
            (first..first + self.vcs)
                .map(|b| u32::from(self.bufs[b as usize].fifo_len))
                .sum::<u32>()
        };
        let queued = if self.output_queues {
            held(self.out_base + gp * self.vcs)
        } else {
            0
        };
        match self.chan_down[gp as usize] {
            SINK | NOWHERE => queued,
            down => queued + held(down),
        }
    }
    fn first_hop_queue(&mut self, src: u32, target: u32) -> u64 {
        let (sw, port) = (self.node_switch[src as usize], self.node_port[src as usize]);
        self.scratch.clear();
        self.topo.route(sw, port, 0, target, self.scratch);
        let base = self.port_start[sw as usize];
        self.scratch
            .iter()
            .map(|c| {
                let channel = port_channel(base + c.port, self.output_queues, self.xbar_base);
                match self.chan_down[channel as usize] {
                    SINK | NOWHERE => 0,
                    down => {
                        let d = (down + c.vc) as usize;
                        u64::from(
                            u32::from(self.bufs[d].fifo_cap) * self.packet_phits - self.buf_free[d],
                        )
                    }
                }
            })
            .min()
            .unwrap_or(0)
    }
}
