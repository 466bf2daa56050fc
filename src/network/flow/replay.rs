//! The flow model's event loop: a [`Driver`]'s sends become flows, flows get max-min rates per
//! connected component, and their ends, deliveries and the ranks' wake-ups are events on integer
//! cycles (see the module doc of [`super`]).

mod resolve;

use super::calendar::Calendar;
use super::links::{Block, LinkSet, Links};
use super::routes::Paths;
use super::solver::Solver;
use crate::error::{DeadlockReport, Error, Result};
use crate::network::driver::{Consumed, Driver, Step};
use crate::network::node_queues::NodeQueues;
use crate::network::{MAX_CYCLE, NetworkModel, Outcome, Progress};
use crate::topology::Topology;

/// Remaining phits below this are float residue: the flow is done.
const DONE_PHITS: f64 = 1e-9;

/// What happens at a cycle; ids are message ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    /// A rank (or job) asked to be woken (`Step::Sleep`).
    Wake(u32),
    /// The flow of a message may have sent its last phit: acted on if it is the message's pending
    /// finish event (its activation `generation` and cycle match), else stale.
    Finish(u32, u64),
    /// A message's last phit is consumed by its destination.
    Deliver(u32),
    /// Flows whose neighbours' rates changed are re-solved (see `resolve.rs`); not counted.
    Relax,
}

/// A message, and its flow while it is the front of its source's queue.
#[derive(Debug, Clone, Copy)]
struct Message {
    from: u32,
    to: u32,
    src_node: u32,
    dst_node: u32,
    token: u64,
    /// The driver's second label, handed back on delivery.
    note: u32,
    issued_at: u64,
    phits: u64,
    /// Chooses its path (see [`Paths::key`]).
    key: u64,
    /// Head latency of its path, once it has one.
    latency: u64,
    /// Its flow is sending (the front of its node's queue and not finished).
    active: bool,
    /// Phits still to send as of `updated_at`, at `rate` phits per cycle since.
    remaining: f64,
    rate: f64,
    updated_at: u64,
    /// Which activation of a message slot this is (a run-wide counter), so events of an earlier
    /// message in a reused slot are recognised as stale.
    generation: u64,
    /// Cycle at which the flow sends its last phit at its current rate.
    finish_at: u64,
    /// Cycle of its pending `Finish` event ([`u64::MAX`]: none). Only an earlier finish pushes a new
    /// event; a later one is rescheduled when the pending event fires, so the queue holds about one
    /// event per flow however often rates change.
    queued_at: u64,
    /// In `Replay::pending`.
    pending: bool,
}

/// What a re-solve reads of each message, apart from its record so that the component walk and the
/// solver read 16 bytes a flow (four to a cache line) instead of the whole message.
#[derive(Debug, Clone, Copy, Default)]
struct FlowMark {
    /// Its hops in [`Links`] while its flow is sending (its length stays the path's links).
    block: Block,
    /// Epoch of the last component search that reached it.
    stamp: u32,
    /// Its index in the component being solved.
    slot: u32,
}

/// All state of a flow-model run, in flat vectors indexed by message and link ids.
pub(super) struct Replay<'a, D: Driver> {
    paths: Paths<'a>,
    /// Which flows cross which links.
    links: Links,
    /// Scratch for a path being walked.
    path: Vec<u32>,
    seed: u64,
    solver: Solver,
    driver: D,
    rank_node: &'a [u32],
    packet_phits: u64,
    packet_bytes: u64,
    msgs: Vec<Message>,
    /// Per message id, what a re-solve reads of it.
    marks: Vec<FlowMark>,
    free_msgs: Vec<u32>,
    /// Each node's messages in program order; its front's is the node's flow.
    node_queues: NodeQueues,
    /// Messages each node has issued (part of their keys).
    node_sent: Vec<u64>,
    link_stamp: Vec<u32>,
    /// Phits each link carried.
    link_phits: Vec<u64>,
    /// Sum of the rates of the flows on each link.
    link_rate: Vec<f64>,
    events: Calendar<Event>,
    /// Activations so far (see `Message::generation`).
    generations: u64,
    now: u64,
    /// Last cycle with an event that counted (a wake-up, a flow's end, a delivery).
    active_at: u64,
    /// Flows whose rates must be recomputed this cycle (new ones; see `freed_links` for the others).
    seeds: Vec<u32>,
    /// Links flows left this cycle: their remaining flows are re-solved too.
    freed_links: LinkSet,
    /// Flows to re-solve at the next `Relax` because their neighbours' rates changed.
    pending: Vec<u32>,
    /// Debug builds, for the check of `resolve.rs`: new flows given their rate without a re-solve
    /// this cycle, links of flows that ended without freeing others, and whether any re-solve was
    /// approximate (a component over the exact size).
    #[cfg(debug_assertions)]
    placed: Vec<u32>,
    #[cfg(debug_assertions)]
    quiet_ends: Vec<u32>,
    #[cfg(debug_assertions)]
    approximated: bool,
    /// Cycle of the pending `Relax` event ([`u64::MAX`]: none).
    relax_at: u64,
    /// Links whose flows a re-solve has already queued for the next `Relax` (emptied after it), so
    /// that each link's list is read once however many of its flows moved.
    woken_links: LinkSet,
    component: Vec<u32>,
    epoch: u32,
    rates: Vec<f64>,
    steps: Vec<Step>,
    outcome: Outcome,
    phit_hops: u64,
    latency_sum: u128,
    messages_open: u64,
    /// The first error met inside a step (a time past [`MAX_CYCLE`], an unroutable pair).
    error: Option<Error>,
    progress: Option<&'a Progress>,
}

impl<'a, D: Driver> Replay<'a, D> {
    /// An empty network with `driver` about to start.
    pub(super) fn new(
        topo: &'a dyn Topology,
        model: &NetworkModel,
        paths: Paths<'a>,
        driver: D,
        rank_node: &'a [u32],
        seed: u64,
        progress: Option<&'a Progress>,
    ) -> Self {
        let links = paths.links();
        let solver = Solver::with_capacities(paths.capacities(model));
        Replay {
            paths,
            links: Links::new(links),
            path: Vec::new(),
            seed,
            solver,
            driver,
            rank_node,
            packet_phits: u64::from(model.packet_phits),
            packet_bytes: model.packet_bytes(),
            msgs: Vec::new(),
            marks: Vec::new(),
            free_msgs: Vec::new(),
            node_queues: NodeQueues::new(topo.nodes() as usize),
            node_sent: vec![0; topo.nodes() as usize],
            link_stamp: vec![0; links],
            link_phits: vec![0; links],
            link_rate: vec![0.0; links],
            events: Calendar::new(),
            generations: 0,
            now: 0,
            active_at: 0,
            seeds: Vec::new(),
            freed_links: LinkSet::new(links),
            pending: Vec::new(),
            #[cfg(debug_assertions)]
            placed: Vec::new(),
            #[cfg(debug_assertions)]
            quiet_ends: Vec::new(),
            #[cfg(debug_assertions)]
            approximated: false,
            relax_at: u64::MAX,
            woken_links: LinkSet::new(links),
            component: Vec::new(),
            epoch: 0,
            rates: Vec::new(),
            steps: Vec::new(),
            outcome: Outcome::default(),
            phit_hops: 0,
            latency_sum: 0,
            messages_open: 0,
            error: None,
            progress,
        }
    }

    /// Runs until every rank is done and every message consumed, or reports a deadlock.
    pub(super) fn run(mut self) -> Result<(Outcome, D)> {
        let mut steps = std::mem::take(&mut self.steps);
        self.driver.start(&mut steps);
        self.apply(&mut steps);
        self.resolve();
        let mut loops = 0u32;
        while let Some(cycle) = self.events.next_cycle() {
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            self.now = cycle;
            while let Some(event) = self.events.next_event() {
                match event {
                    Event::Wake(who) => {
                        self.driver.wake(cycle, who, &mut steps);
                        self.apply(&mut steps);
                    }
                    Event::Finish(m, generation) => {
                        let msg = &mut self.msgs[m as usize];
                        if !msg.active || msg.generation != generation || msg.queued_at != cycle {
                            continue;
                        }
                        if msg.finish_at == u64::MAX {
                            // No rate now: it waits for a re-solve.
                            msg.queued_at = u64::MAX;
                            continue;
                        }
                        if msg.finish_at > cycle {
                            // Its rate fell since: the end moved later.
                            msg.queued_at = msg.finish_at;
                            let at = msg.finish_at;
                            self.schedule(at, Event::Finish(m, generation));
                            continue;
                        }
                        self.finish(m);
                    }
                    Event::Deliver(m) => self.deliver(m, &mut steps),
                    Event::Relax => {
                        self.relax_at = u64::MAX;
                        continue;
                    }
                }
                self.outcome.events += 1;
                self.active_at = cycle;
            }
            self.resolve();
            loops = loops.wrapping_add(1);
            if loops.is_multiple_of(1024)
                && let Some(p) = self.progress
            {
                p.publish(cycle, self.outcome.messages - self.messages_open, 0);
            }
            if self.driver.stop(cycle) {
                return Ok(self.summarise());
            }
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.end()
    }

    /// Schedules `event` at cycle `at` (FIFO among events of one cycle).
    fn schedule(&mut self, at: u64, event: Event) {
        self.events.schedule(at, event);
    }

    /// `now + cycles`, or the run's error when it passes [`MAX_CYCLE`] (`what` says what asked).
    fn later(&mut self, cycles: u64, what: impl FnOnce() -> String) -> Option<u64> {
        match super::super::cycle_after(self.now, cycles) {
            Some(at) => Some(at),
            None => {
                if self.error.is_none() {
                    self.error = Some(Error::Invalid(format!(
                        "simulated time would pass {MAX_CYCLE} cycles: {} at cycle {} (too large \
                         for the simulator)",
                        what(),
                        self.now
                    )));
                }
                None
            }
        }
    }

    /// Carries out what the driver asked for.
    fn apply(&mut self, steps: &mut Vec<Step>) {
        for step in steps.drain(..) {
            match step {
                Step::Send {
                    from,
                    to,
                    bytes,
                    token,
                    note,
                } => self.issue(from, to, bytes, token, note),
                Step::Sleep { rank, cycles } => {
                    let what = || format!("rank {rank} asks to wait {cycles} cycles");
                    if let Some(at) = self.later(cycles.max(1), what) {
                        self.schedule(at, Event::Wake(rank));
                    }
                }
            }
        }
    }

    /// A new message: queued at its source node, a flow at once if the node is idle.
    fn issue(&mut self, from: u32, to: u32, bytes: u64, token: u64, note: u32) {
        let (Some(&src), Some(&dst)) = (
            self.rank_node.get(from as usize),
            self.rank_node.get(to as usize),
        ) else {
            self.error.get_or_insert(Error::Invalid(format!(
                "a message from rank {from} to rank {to}, but only {} ranks are placed",
                self.rank_node.len()
            )));
            return;
        };
        let packets = bytes.div_ceil(self.packet_bytes).max(1);
        let Some(phits) = packets.checked_mul(self.packet_phits) else {
            self.error.get_or_insert(Error::Invalid(format!(
                "a message of {bytes} bytes from rank {from} has more phits than 64 bits count"
            )));
            return;
        };
        let msg = Message {
            from,
            to,
            src_node: src,
            dst_node: dst,
            token,
            note,
            issued_at: self.now,
            phits,
            key: Paths::key(self.seed, from, to, self.node_sent[src as usize]),
            latency: 0,
            active: false,
            remaining: 0.0,
            rate: 0.0,
            updated_at: self.now,
            generation: 0,
            finish_at: u64::MAX,
            queued_at: u64::MAX,
            pending: false,
        };
        let id = match self.free_msgs.pop() {
            Some(id) => {
                self.msgs[id as usize] = msg;
                self.marks[id as usize] = FlowMark::default();
                id
            }
            None => {
                self.msgs.push(msg);
                self.marks.push(FlowMark::default());
                (self.msgs.len() - 1) as u32
            }
        };
        self.node_sent[src as usize] += 1;
        if self.node_queues.push(src, id) {
            self.activate(id);
        }
        self.outcome.messages += 1;
        self.outcome.packets += packets;
        self.messages_open += 1;
    }

    /// Message `m` starts sending: its path is chosen, its flow joins its links and its component
    /// is re-solved.
    fn activate(&mut self, m: u32) {
        let msg = &self.msgs[m as usize];
        let walked = self.paths.walk(
            msg.src_node,
            msg.dst_node,
            msg.key,
            self.links.counts(),
            &mut self.path,
        );
        let walked = match walked {
            Ok(w) => w,
            Err(e) => {
                self.error.get_or_insert(e);
                return;
            }
        };
        self.marks[m as usize].block = self.links.join(m, &self.path);
        let msg = &mut self.msgs[m as usize];
        msg.latency = walked.latency;
        msg.active = true;
        msg.remaining = msg.phits as f64;
        msg.rate = 0.0;
        msg.updated_at = self.now;
        self.generations += 1;
        msg.generation = self.generations;
        msg.finish_at = u64::MAX;
        msg.queued_at = u64::MAX;
        self.seeds.push(m);
    }

    /// Message `m`'s last phit has left its source: its links are freed for their other flows, its
    /// delivery is scheduled after the route's head latency, and its node starts its next message.
    fn finish(&mut self, m: u32) {
        let msg = &mut self.msgs[m as usize];
        msg.active = false;
        msg.remaining = 0.0;
        let (phits, src, latency) = (msg.phits, msg.src_node, msg.latency);
        let block = self.marks[m as usize].block;
        let frees_others = self.end_frees_others(m);
        let rate = std::mem::replace(&mut self.msgs[m as usize].rate, 0.0);
        self.outcome.phits_injected += phits;
        for &l in self.links.path(block) {
            let l = l as usize;
            if frees_others {
                self.freed_links.insert(l as u32);
            }
            #[cfg(debug_assertions)]
            if !frees_others && self.links.counts()[l] > 1 {
                self.quiet_ends.push(l as u32);
            }
            self.link_phits[l] += phits;
            // Exactly 0 once the link is empty, so float residue does not build up.
            self.link_rate[l] = if self.links.counts()[l] == 1 {
                0.0
            } else {
                self.link_rate[l] - rate
            };
        }
        self.links.leave(block);
        self.phit_hops += phits * u64::from(block.len);
        if let Some(at) = self.later(latency, || {
            format!("a message delivered {latency} cycles on")
        }) {
            self.schedule(at, Event::Deliver(m));
        }
        // The message ending is its node's front; the next one starts.
        debug_assert_eq!(self.node_queues.front(src), Some(m));
        if let Some(next) = self.node_queues.pop(src) {
            self.activate(next);
        }
    }

    /// Message `m` is consumed: the driver hears of it.
    fn deliver(&mut self, m: u32, steps: &mut Vec<Step>) {
        let msg = self.msgs[m as usize];
        self.outcome.phits_delivered += msg.phits;
        self.messages_open -= 1;
        let latency = self.outcome.message_consumed(self.now, msg.issued_at);
        self.latency_sum += u128::from(latency);
        let consumed = Consumed {
            from: msg.from,
            to: msg.to,
            token: msg.token,
            note: msg.note,
            issued_at: msg.issued_at,
            // The path's links (its block keeps its length after the flow left them).
            hops: self.marks[m as usize].block.len,
            extra_fly: self
                .paths
                .extra_fly(msg.latency, self.marks[m as usize].block.len),
            packets: msg.phits / self.packet_phits,
        };
        self.free_msgs.push(m);
        self.driver.consumed(self.now, &consumed, steps);
        self.apply(steps);
    }

    /// The event queue ran dry: done, or ranks wait for messages nobody will send.
    fn end(self) -> Result<(Outcome, D)> {
        if self.driver.complete() && self.messages_open == 0 {
            return Ok(self.summarise());
        }
        let blocked = self.driver.blocked();
        Err(Error::Deadlock(Box::new(DeadlockReport {
            cycle: self.now,
            packets_in_network: 0,
            stuck_buffers: Vec::new(),
            blocked_total: blocked.len(),
            blocked_ranks: blocked.into_iter().take(8).collect(),
        })))
    }

    /// Final counters, with link loads grouped by class and the busiest links.
    fn summarise(mut self) -> (Outcome, D) {
        self.outcome.phit_hops = self.phit_hops;
        self.outcome.close(
            self.active_at,
            self.packet_phits,
            self.latency_sum,
            self.messages_open,
            self.paths
                .link_classes()
                .run_links(self.paths.topo(), &self.link_phits, |l| {
                    self.paths.link_name(l)
                }),
        );
        (self.outcome, self.driver)
    }
}

/// Whole cycles to send `remaining` phits at `rate` phits per cycle, rounded up but forgiving float
/// residue (144.0000001 cycles is 144); `None` past [`MAX_CYCLE`] or for a rate of 0.
fn cycles_to_send(remaining: f64, rate: f64) -> Option<u64> {
    if remaining <= DONE_PHITS {
        return Some(0);
    }
    let exact = remaining / rate;
    if !exact.is_finite() {
        return None;
    }
    let cycles = (exact - (1e-6 + exact * 1e-12)).ceil().max(0.0);
    (cycles.is_finite() && cycles <= MAX_CYCLE as f64).then_some(cycles as u64)
}

#[cfg(test)]
mod tests {
    use super::cycles_to_send;

    #[test]
    fn cycles_round_up_but_forgive_float_residue() {
        assert_eq!(cycles_to_send(48.0, 1.0 / 3.0), Some(144));
        assert_eq!(cycles_to_send(48.5, 1.0 / 3.0), Some(146));
        assert_eq!(cycles_to_send(32.0, 0.5), Some(64));
        assert_eq!(cycles_to_send(1e-12, 0.5), Some(0));
        assert_eq!(cycles_to_send(1.0, 0.0), None);
        assert_eq!(cycles_to_send(1e300, 1e-300), None);
    }
}
