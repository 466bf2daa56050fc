//! The flow model's event loop: a [`Driver`]'s sends become flows, flows get max-min rates per
//! connected component, and their ends, deliveries and the ranks' wake-ups are events on integer
//! cycles (see the module doc of [`super`]).

use super::routes::Routes;
use super::solver::Solver;
use crate::error::{DeadlockReport, Error, Result};
use crate::network::driver::{Consumed, Driver, Step};
use crate::network::{MAX_CYCLE, NetworkModel, Outcome, Progress};
use crate::topology::Topology;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Remaining phits below this are float residue: the flow is done.
const DONE_PHITS: f64 = 1e-9;

/// What happens at a cycle; ids are message ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// A rank (or job) asked to be woken (`Step::Sleep`).
    Wake(u32),
    /// The flow of a message may have sent its last phit: acted on if it is the message's pending
    /// finish event (its activation `generation` and cycle match), else stale.
    Finish(u32, u64),
    /// A message's last phit is consumed by its destination.
    Deliver(u32),
}

/// A message, and its flow while it is the front of its source's queue.
#[derive(Debug, Clone, Copy)]
struct Message {
    from: u32,
    to: u32,
    src_node: u32,
    token: u64,
    issued_at: u64,
    phits: u64,
    route: u32,
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
    /// Epoch of the last component search that reached it.
    stamp: u32,
    /// Its index in the component being solved.
    slot: u32,
}

/// All state of a flow-model run, in flat vectors indexed by message and link ids.
pub(super) struct Replay<'a, D: Driver> {
    routes: Routes<'a>,
    solver: Solver,
    driver: D,
    rank_node: &'a [u32],
    packet_phits: u64,
    packet_bytes: u64,
    msgs: Vec<Message>,
    free_msgs: Vec<u32>,
    /// Messages of each node in program order; the front one is the node's flow.
    node_queue: Vec<VecDeque<u32>>,
    /// Flows crossing each link.
    link_flows: Vec<Vec<u32>>,
    link_stamp: Vec<u32>,
    /// Phits each link carried (fractions of split routes summed).
    link_phits: Vec<f64>,
    events: BinaryHeap<Reverse<(u64, u64, Event)>>,
    seq: u64,
    /// Activations so far (see `Message::generation`).
    generations: u64,
    now: u64,
    /// Last cycle with an event that counted (a wake-up, a flow's end, a delivery).
    active_at: u64,
    /// Flows whose rates must be recomputed this cycle (new ones; see `freed_links` for the others).
    seeds: Vec<u32>,
    /// Links flows left this cycle (each once): their remaining flows are re-solved too.
    freed_links: Vec<u32>,
    link_freed: Vec<bool>,
    component: Vec<u32>,
    epoch: u32,
    rates: Vec<f64>,
    steps: Vec<Step>,
    outcome: Outcome,
    phit_hops: f64,
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
        routes: Routes<'a>,
        driver: D,
        rank_node: &'a [u32],
        progress: Option<&'a Progress>,
    ) -> Self {
        let links = routes.links();
        let solver = Solver::with_capacities(routes.capacities(model));
        Replay {
            routes,
            solver,
            driver,
            rank_node,
            packet_phits: u64::from(model.packet_phits),
            packet_bytes: model.packet_bytes(),
            msgs: Vec::new(),
            free_msgs: Vec::new(),
            node_queue: vec![VecDeque::new(); topo.nodes() as usize],
            link_flows: vec![Vec::new(); links],
            link_stamp: vec![0; links],
            link_phits: vec![0.0; links],
            events: BinaryHeap::new(),
            seq: 0,
            generations: 0,
            now: 0,
            active_at: 0,
            seeds: Vec::new(),
            freed_links: Vec::new(),
            link_freed: vec![false; links],
            component: Vec::new(),
            epoch: 0,
            rates: Vec::new(),
            steps: Vec::new(),
            outcome: Outcome::default(),
            phit_hops: 0.0,
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
        while let Some(&Reverse((cycle, _, _))) = self.events.peek() {
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            self.now = cycle;
            while let Some(&Reverse((c, _, event))) = self.events.peek() {
                if c != cycle {
                    break;
                }
                self.events.pop();
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
                }
                self.outcome.events += 1;
                self.active_at = cycle;
            }
            self.resolve();
            loops = loops.wrapping_add(1);
            if loops.is_multiple_of(1024)
                && let Some(p) = self.progress
            {
                p.publish(cycle, self.outcome.messages - self.messages_open);
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
        self.seq += 1;
        self.events.push(Reverse((at, self.seq, event)));
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
                } => self.issue(from, to, bytes, token),
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
    fn issue(&mut self, from: u32, to: u32, bytes: u64, token: u64) {
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
        let route = match self.routes.route(from, to, src, dst) {
            Ok(r) => r,
            Err(e) => {
                self.error.get_or_insert(e);
                return;
            }
        };
        let msg = Message {
            from,
            to,
            src_node: src,
            token,
            issued_at: self.now,
            phits,
            route,
            active: false,
            remaining: 0.0,
            rate: 0.0,
            updated_at: self.now,
            generation: 0,
            finish_at: u64::MAX,
            queued_at: u64::MAX,
            stamp: 0,
            slot: 0,
        };
        let id = match self.free_msgs.pop() {
            Some(id) => {
                self.msgs[id as usize] = msg;
                id
            }
            None => {
                self.msgs.push(msg);
                (self.msgs.len() - 1) as u32
            }
        };
        let queue = &mut self.node_queue[src as usize];
        queue.push_back(id);
        if queue.len() == 1 {
            self.activate(id);
        }
        self.outcome.messages += 1;
        self.outcome.packets += packets;
        self.messages_open += 1;
    }

    /// Message `m` starts sending: its flow joins its links and its component is re-solved.
    fn activate(&mut self, m: u32) {
        let msg = &mut self.msgs[m as usize];
        msg.active = true;
        msg.remaining = msg.phits as f64;
        msg.rate = 0.0;
        msg.updated_at = self.now;
        self.generations += 1;
        msg.generation = self.generations;
        msg.finish_at = u64::MAX;
        msg.queued_at = u64::MAX;
        for &(l, _) in &self.routes.get(msg.route).links {
            self.link_flows[l as usize].push(m);
        }
        self.seeds.push(m);
    }

    /// Message `m`'s last phit has left its source: its links are freed for their other flows, its
    /// delivery is scheduled after the route's head latency, and its node starts its next message.
    fn finish(&mut self, m: u32) {
        let msg = &mut self.msgs[m as usize];
        msg.active = false;
        msg.remaining = 0.0;
        let (phits, route, src) = (msg.phits, msg.route, msg.src_node);
        self.outcome.phits_injected += phits;
        let r = self.routes.get(route);
        for &(l, w) in &r.links {
            let flows = &mut self.link_flows[l as usize];
            if let Some(i) = flows.iter().position(|&f| f == m) {
                flows.swap_remove(i);
            }
            if !std::mem::replace(&mut self.link_freed[l as usize], true) {
                self.freed_links.push(l);
            }
            self.link_phits[l as usize] += phits as f64 * w;
            self.phit_hops += phits as f64 * w;
        }
        let latency = r.latency;
        if let Some(at) = self.later(latency, || {
            format!("a message delivered {latency} cycles on")
        }) {
            self.schedule(at, Event::Deliver(m));
        }
        let queue = &mut self.node_queue[src as usize];
        queue.pop_front();
        if let Some(&next) = queue.front() {
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
            issued_at: msg.issued_at,
            hops: self.routes.get(msg.route).hops,
            packets: msg.phits / self.packet_phits,
        };
        self.routes.release(msg.route);
        self.free_msgs.push(m);
        self.driver.consumed(self.now, &consumed, steps);
        self.apply(steps);
    }

    /// Recomputes the rates of every flow connected to a seed through shared links (and of those
    /// only), advancing their remaining phits to now first, and reschedules the flows whose rate
    /// changed.
    fn resolve(&mut self) {
        if self.seeds.is_empty() && self.freed_links.is_empty() {
            return;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.msgs.iter_mut().for_each(|m| m.stamp = 0);
            self.link_stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        let epoch = self.epoch;
        self.component.clear();
        for &s in &self.seeds {
            let msg = &mut self.msgs[s as usize];
            if msg.active && msg.stamp != epoch {
                msg.stamp = epoch;
                self.component.push(s);
            }
        }
        self.seeds.clear();
        let mut visit = Visit {
            epoch,
            link_stamp: &mut self.link_stamp,
            link_flows: &self.link_flows,
            msgs: &mut self.msgs,
            component: &mut self.component,
        };
        for &l in &self.freed_links {
            self.link_freed[l as usize] = false;
            visit.link(l);
        }
        self.freed_links.clear();
        let mut i = 0;
        while i < visit.component.len() {
            let route = visit.msgs[visit.component[i] as usize].route;
            for &(l, _) in &self.routes.get(route).links {
                visit.link(l);
            }
            i += 1;
        }
        for (i, &m) in self.component.iter().enumerate() {
            self.msgs[m as usize].slot = i as u32;
        }
        let (routes, msgs, component, link_flows) =
            (&self.routes, &self.msgs, &self.component, &self.link_flows);
        self.solver.solve(
            component.len(),
            |i| &routes.get(msgs[component[i] as usize].route).links,
            |l, out| {
                out.extend(
                    link_flows[l as usize]
                        .iter()
                        .map(|&f| msgs[f as usize].slot as usize),
                )
            },
            &mut self.rates,
        );
        for i in 0..self.component.len() {
            let m = self.component[i];
            let now = self.now;
            let rate = self.rates[i];
            let msg = &mut self.msgs[m as usize];
            msg.remaining -= msg.rate * (now - msg.updated_at) as f64;
            msg.updated_at = now;
            if rate == msg.rate {
                continue; // same rate: its scheduled end still holds
            }
            msg.rate = rate;
            let (remaining, generation) = (msg.remaining, msg.generation);
            let cycles = cycles_to_send(remaining, rate);
            let at = cycles.and_then(|c| {
                self.later(c, || {
                    format!("a flow of {remaining:.0} phits at rate {rate:e}")
                })
            });
            let Some(at) = at else {
                if cycles.is_none() && self.error.is_none() {
                    self.error = Some(Error::Invalid(format!(
                        "a flow of {remaining:.0} phits at rate {rate:e} phits/cycle would end past \
                         {MAX_CYCLE} cycles"
                    )));
                }
                continue;
            };
            let msg = &mut self.msgs[m as usize];
            msg.finish_at = at;
            if at < msg.queued_at {
                msg.queued_at = at;
                self.schedule(at, Event::Finish(m, generation));
            }
        }
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
        self.outcome.phit_hops = self.phit_hops.round() as u64;
        let routes = &self.routes;
        let links = (0..routes.links() as u32).filter_map(|l| {
            let (class, name) = routes.describe(l)?;
            Some((class, name, self.link_phits[l as usize].round() as u64))
        });
        self.outcome.close(
            self.active_at,
            self.packet_phits,
            self.latency_sum,
            self.messages_open,
            links,
        );
        (self.outcome, self.driver)
    }
}

/// The walk that gathers the flows connected through shared links in one epoch of
/// `Replay::resolve`: every link and every flow is taken once.
struct Visit<'a> {
    epoch: u32,
    link_stamp: &'a mut [u32],
    link_flows: &'a [Vec<u32>],
    msgs: &'a mut [Message],
    component: &'a mut Vec<u32>,
}

impl Visit<'_> {
    /// Adds the flows on link `l` not yet in the component (nothing if `l` was seen this epoch).
    fn link(&mut self, l: u32) {
        if self.link_stamp[l as usize] == self.epoch {
            return;
        }
        self.link_stamp[l as usize] = self.epoch;
        for &f in &self.link_flows[l as usize] {
            let msg = &mut self.msgs[f as usize];
            if msg.stamp != self.epoch {
                msg.stamp = self.epoch;
                self.component.push(f);
            }
        }
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
