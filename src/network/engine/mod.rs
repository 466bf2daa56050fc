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
//! return is one wheel event per packet per hop, never a scan). Under `credits = "phit"` a packet may
//! also borrow the room of the packet leaving a full buffer (`choose.rs`, `room`), repaid when that
//! packet's credits return; one `CreditStream` event per packet per hop wakes the buffers waiting for it.
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
//! credits returning); then every buffer whose situation changed asks the model's output selection
//! policy ([`crate::network::selection`]) which of the candidate outputs the routing function offers it
//! wants: by default FSIN's, the least occupied downstream queue (phit-exact), busy link or not. A
//! candidate can be granted only if its channel is free and its next buffer can hold the packet (two
//! packets under bubble flow control); escape channels only when no other candidate has room. Each
//! channel requested by several buffers grants one, at random or round-robin; losers, and heads whose
//! choice is busy, ask again next cycle (or, with `loser_retry = "same-cycle"`, losers choose again at
//! once among what is left). Buffers with no candidate that could ever take the packet wait on their
//! candidate channels and are looked at again only when one of them frees or gains credits.
//!
//! **Virtual channels.** Each (input port, virtual channel) buffer arbitrates on its own, as in a
//! crossbar with one input per virtual channel; the physical link is shared, one packet at a time. The
//! model's `virtual_channels` adds parallel copies of every VC the topology uses, any of which a head
//! may take.

use super::NetworkModel;
use super::driver::Step;
use super::driver::{Consumed, Driver};
use super::node_queues::NodeQueues;
use super::wheel::{Event, Wheel};
use crate::error::{DeadlockReport, Error, Result};
use crate::network::selection::Plan;
use crate::rng::Rng;
use crate::routing::{NetView, PathChoice};
use crate::topology::{Endpoint, RouteChoice, Topology};

mod alloc;
mod build;
mod channel_lists;
mod choose;
mod record;
mod routes;
mod summary;
mod traffic;
mod watch;

pub use super::outcome::Outcome;

/// Downstream of a channel that ends at a node: it consumes everything, so has unlimited credit.
const SINK: u32 = u32::MAX;
/// Downstream of a channel on an unplugged port.
const NOWHERE: u32 = u32::MAX - 1;

/// A candidate next hop for the packet at the front of a buffer, resolved to engine ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// Ask again next cycle (the policy's choice is busy, or lost an arbitration).
    Retry,
    /// The retry is planned and the candidates are watched (`watch.rs`): nothing to do now.
    Watch,
    /// Send on this candidate; `alone` when it was the only usable one.
    Go { cand: Candidate, alone: bool },
}

/// A message in flight.
#[derive(Debug, Clone, Copy)]
struct Message {
    dest_node: u32,
    src_rank: u32,
    dst_rank: u32,
    /// The driver's second label, handed back on delivery.
    note: u32,
    token: u64,
    packets_to_send: u64,
    packets_to_deliver: u64,
    issued_at: u64,
    /// Packets of the message (reported to the driver with it).
    packets: u64,
}

/// The hot state of one channel, kept together so that touching a channel costs one cache line
/// (two records to a line).
#[derive(Debug, Clone, Copy)]
#[repr(align(32))]
struct Channel {
    /// Cycles from a head starting on it to being ready in the next buffer.
    latency: u32,
    /// Buffer sending on it now.
    sender: u32,
    /// Allocation round in which it was last bid for, the bids in that round and the index of the
    /// proposal holding it (reservoir sampling: each bidder wins with equal probability).
    round: u32,
    bids: u32,
    pick: u32,
    /// The buffer it last granted (round-robin arbitration starts after it).
    rr_last: u32,
    /// Cycles from a head starting on it to its first phit being in the next buffer (fly time; the
    /// routing delay is not part of it): the phit-level occupancy FSIN's selection reads.
    lag: u32,
    /// Fly time beyond a link of one unit (RUFT's return links: `fly_time` per unit of length).
    extra: u32,
}

/// Requests for one channel by the heads of its switch (one per head per cycle it asks), summed over
/// windows of one packet time. Kept only for non-minimal routing: UGAL-L's local queue reads it
/// ([`crate::routing::NetView::first_hop_queue`]).
#[derive(Debug, Clone, Copy, Default)]
struct Demand {
    /// Window (cycle / P) of the requests in `current`.
    window: u64,
    /// Requests in window `window - 1` (0 if none were counted then) and in `window` so far.
    last: u32,
    current: u32,
}

impl Demand {
    /// Counts one request in `window`.
    fn count(&mut self, window: u64) {
        if self.window != window {
            self.last = if self.window + 1 == window {
                self.current
            } else {
                0
            };
            self.current = 0;
            self.window = window;
        }
        self.current = self.current.saturating_add(1);
    }

    /// Requests in the last whole window before `window`: a head asking through all of it counts P,
    /// so this is the mean number of heads asking, in phits.
    fn last_window(&self, window: u64) -> u32 {
        if self.window == window {
            self.last
        } else if self.window + 1 == window {
            self.current
        } else {
            0
        }
    }
}

/// The state of one buffer (a FIFO of whole packets) and its credits, in one cache line: a head's
/// choice reads, per candidate, its downstream buffer's credits and occupancy trend together.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
struct Buffer {
    /// Free phits: the credits its feeding channel sees.
    free: u32,
    /// Cycle at which it was last marked for allocation (deduplicates the dirty list).
    dirty_at: u64,
    /// The channel that feeds it.
    feeder: u32,
    /// Its FIFO ring is `fifo_slots[fifo_start..fifo_start + capacity]`, the capacity being its
    /// class's ([`Engine::fifo_cap`]).
    fifo_start: u32,
    fifo_head: u16,
    fifo_len: u16,
    /// Its front packet is leaving (the tail has not left yet).
    sending: bool,
    /// Its front packet's head is routed (`Packet::ready` has passed); meaningful while it is not
    /// `sending`. Kept here so that a head asking again reads one cache line, not its packet's.
    front_ready: bool,
    /// Registered on its candidate channels' waiter lists.
    waiting: bool,
    /// Cycle the last packet into it started arriving (its first phit is in at `in_at + 1`).
    in_at: u64,
    /// Cycle its current (or last) packet started leaving.
    out_at: u64,
    /// Cycle of the last planned look at its head (a planned retry; [`watch::NO_PLAN`] if none),
    /// the candidate it is then granted ([`watch::NO_PICK`] for a fresh look, [`watch::DROPPED`]
    /// when the plan was dropped), and whether that look's `Select` event waits in the wheel's heap
    /// rather than its buckets (`watch.rs`, `select_at`).
    select_at: u64,
    select_pick: u32,
    select_far: bool,
    /// Generation of its watch registrations (older ones are stale), and the occupancy a candidate's
    /// draining queue must fall below to wake it (0: never; `watch.rs`).
    watch_gen: u32,
    watch_level: u32,
}

/// No intermediate node (minimal routing, or past it).
const NO_VIA: u32 = u32::MAX;
/// No output fixed yet.
const NO_FIX: u32 = u32::MAX;

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
    /// Fly time its links took beyond one unit of length each (the critical path's zero-load time).
    extra_fly: u32,
    /// Random bits fixed for the packet, for routing functions that break ties per packet.
    salt: u32,
    /// Cycle at which its head is routed in its current buffer and may request an output.
    ready: u64,
    /// Index of the candidate fixed for it in its current buffer (policies that fix the output when
    /// the head is routed), or [`NO_FIX`].
    fixed: u32,
    msg: u32,
    dest: u32,
}

/// All simulation state, in flat vectors indexed by small integer ids.
pub(super) struct Engine<'a, D: Driver> {
    topo: &'a dyn Topology,
    /// The run's routing algorithm (chooses a packet's intermediate at injection).
    paths: Box<dyn PathChoice>,
    non_minimal: bool,
    /// Virtual channels the topology's routing uses; `vcs` is this times the routing's legs times
    /// `copies`.
    topo_vcs: u32,
    /// Parallel copies of each virtual channel (the model's `virtual_channels`).
    copies: u32,
    /// The output selection policy and whether it fixes a packet's output when routed.
    selection: &'static dyn crate::network::selection::OutputSelection,
    fixes: bool,
    round_robin: bool,
    /// Arbitration losers (and FSIN heads whose choice is busy) ask again next cycle.
    retry_next_cycle: bool,
    /// Switch and local port each node hangs on.
    node_switch: Vec<u32>,
    node_port: Vec<u32>,
    packet_phits: u32,
    packet_bytes: u64,
    /// Phits one switch input queue holds (`input_queue_packets` x P): the scale of UGAL's default bias.
    queue_phits: u64,
    /// Cycles from a packet's tail leaving a buffer to its credits reaching the feeding channel.
    credit_delay: u32,
    /// Credits come back phit by phit (`credits = "phit"`): a packet may start into a buffer whose
    /// front packet is leaving, borrowing the room that packet frees (see `room`).
    phit_credits: bool,
    /// Cycles a switch input queue's head waits once it is at the front (see the module notes).
    allocation_delay: u32,
    /// What the allocation delay adds to a head arriving at an idle queue (beyond the routing delay).
    arrival_extra: u32,
    /// Some link is longer than one unit (RUFT's return links): packets then add up the extra fly
    /// time of their links for the critical path; other networks skip it.
    long_links: bool,
    vcs: u32,
    nodes: u32,
    /// Total switch ports; global port id = `port_start[switch] + local port`.
    ports: u32,
    port_start: Vec<u32>,
    port_switch: Vec<u32>,
    /// Each link's class for the run summary, found while the wiring is read.
    link_classes: crate::network::stats::LinkClasses,
    output_queues: bool,

    // Buffer ids: input queues [0, ports*vcs), injection queues [inj_base, inj_base + nodes),
    // output queues [out_base, out_base + ports*vcs) when enabled.
    inj_base: u32,
    out_base: u32,
    /// Packets a switch input queue and an output queue hold (injection queues hold none here: a
    /// node's packets wait in its message queue, `node_queues`).
    input_fifo_cap: u16,
    output_fifo_cap: u16,
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
    chan_waiters: channel_lists::ChannelLists<u32>,
    /// Buffers whose planned retry depends on each channel: (buffer, generation and tag), `watch.rs`.
    chan_watchers: channel_lists::ChannelLists<(u32, u32)>,
    /// The policy's retries are planned rather than asked every cycle (not when a routing algorithm
    /// reads per-cycle requests).
    plans: bool,
    /// Allocation is running (changes then are looked at next cycle).
    allocating: bool,
    /// Arbitration losers of the current round, planned once its grants are made.
    losers: Vec<u32>,
    /// Requests per channel, kept only for non-minimal routing (empty otherwise).
    demand: Vec<Demand>,
    bufs: Vec<Buffer>,
    /// Phits of room a packet borrowed against each buffer's leaving packet, repaid when that packet's
    /// credits return (`credits = "phit"` only; empty otherwise).
    lent: Vec<u16>,
    /// Packet slots of every buffer's FIFO ring, `Buffer::fifo_start..+Engine::fifo_cap`.
    fifo_slots: Vec<u32>,
    pkts: Vec<Packet>,
    free_pkts: Vec<u32>,

    msgs: Vec<Message>,
    free_msgs: Vec<u32>,
    /// Each node's messages with packets left to send, in program order; it injects its front's.
    node_queues: NodeQueues,
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
    /// The candidates of switch input queues' heads, kept until the head leaves.
    routes: routes::RouteCache,
    candidates: Vec<Candidate>,
    /// What the selection policy is told about each of `candidates`.
    states: Vec<crate::network::selection::CandidateState>,
    /// How each candidate's queue moves, and what a plan depended on (planned retries).
    trends: Vec<crate::network::selection::Trend>,
    /// Counts changes to what `states` and `trends` read (a channel's busy time, a buffer's
    /// packets, credits and streaming); with the cycle, it says when they can be reused.
    epoch: u64,
    /// The (cycle, epoch) and candidates `states` and `trends` were last filled for: heads of one
    /// switch that share candidates and ask in the same cycle read them once.
    filled_at: (u64, u64),
    filled_for: Vec<Candidate>,
    /// Counts the fills of `states` and `trends` that read the queues (not those reused).
    fills: u64,
    /// The fill that the last plan read, when that plan drew no random number, and its answer: a
    /// plan is a function of the states, trends and random stream it is given, so a head planned on
    /// the same fill gets the same answer and `watch`, which still holds that plan's, without asking.
    /// Arbitration losers of one switch that share candidates are planned one after another on one
    /// fill, and most of their plans wait for a change without a draw.
    planned: Option<(u64, Plan)>,
    watch: crate::network::selection::Watch,
    dirty: Vec<u32>,
    proposals: Vec<(u32, Candidate, bool)>,
    round: u32,
    steps: Vec<Step>,

    outcome: Outcome,
    latency_sum: u128,
    messages_open: u64,
    /// What first asked for simulated time past [`super::MAX_CYCLE`] (a wake-up, a message sent at
    /// the limit), said for the error that ends the run.
    too_late: Option<String>,
    /// Where the run publishes its cycle and delivered messages for an observer, if any.
    progress: Option<&'a super::Progress>,
    /// Link load over time, when asked for (`record.rs`): fed once per packet start on a link.
    load: Option<&'a mut super::load_bins::LoadBins>,
    /// Output-port conflicts and packets received, when asked for (`record.rs`).
    counters: Option<&'a mut super::counters::Counters>,
}

/// Bytes the kept candidates take per switch input queue, for the memory estimate.
pub(super) use routes::QUEUE_BYTES as ROUTE_BYTES;

/// Bytes of one buffer, channel, packet and message record, for the memory estimate
/// ([`super::memory`]).
pub(super) const RECORD_BYTES: [usize; 4] = [
    std::mem::size_of::<Buffer>(),
    std::mem::size_of::<Channel>(),
    std::mem::size_of::<Packet>(),
    std::mem::size_of::<Message>(),
];

impl<'a, D: Driver> Engine<'a, D> {
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
            if now >= super::MAX_CYCLE && events.iter().any(|e| !matches!(e, Event::WakeRank(_))) {
                // Packets still moving at the limit: their times would pass it (a rank may only
                // finish there).
                self.past_limit(|| {
                    format!(
                        "the network is still busy at cycle {now} (messages sent too close to the \
                         limit, after a computation or job start that long)"
                    )
                });
                self.check_time()?;
            }
            self.now = now;
            publish = publish.wrapping_add(1);
            if publish.is_multiple_of(1024)
                && let Some(p) = self.progress
            {
                p.publish(
                    now,
                    self.outcome.messages - self.messages_open,
                    self.outcome.phits_delivered,
                );
            }
            self.outcome.events += events.len() as u64;
            for &event in &events {
                // Credits coming home after the last delivery do not lengthen the run.
                match event {
                    Event::CreditReturn(b) => {
                        self.return_credit(b);
                        continue;
                    }
                    Event::CreditStream(b) => {
                        let feeder = self.bufs[b as usize].feeder;
                        self.wake_waiters(feeder);
                        self.notify(feeder, watch::Change::Credit);
                        continue;
                    }
                    Event::Select(b) => {
                        self.select_due(b);
                        continue;
                    }
                    _ => {}
                }
                self.active_at = now;
                match event {
                    Event::HeadReady(b) => {
                        self.refresh_front_ready(b);
                        self.mark_dirty(b);
                    }
                    Event::TransmitDone(c) => self.transmit_done(c),
                    Event::Deliver(pkt) => self.deliver(pkt),
                    Event::CreditReturn(_) | Event::CreditStream(_) | Event::Select(_) => {
                        unreachable!("handled above")
                    }
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

    /// Refuses a run that asked for time past [`super::MAX_CYCLE`] (a compute, self-copy or job
    /// start too long, a message sent at the limit), naming the values, instead of wrapping the clock.
    fn check_time(&self) -> Result<()> {
        match &self.too_late {
            None => Ok(()),
            Some(what) => Err(Error::Invalid(format!(
                "simulated time would pass {} cycles: {what}",
                super::MAX_CYCLE
            ))),
        }
    }

    /// Records the first reason the run would pass [`super::MAX_CYCLE`].
    fn past_limit(&mut self, what: impl FnOnce() -> String) {
        if self.too_late.is_none() {
            self.too_late = Some(what());
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
