//! The critical path of a replay: the chain of computations and messages that determined when the
//! last rank finished, split into compute, network latency and contention.
//!
//! Walking back from the last rank to finish: a computation ends where it started on the same rank; a
//! blocked interval ends when the message that released the rank (the "last event that unblocked
//! me") was consumed, so the path continues at that message's sender, at the cycle it was issued
//! (or, for a rendezvous clear-to-send or data message, at the protocol message whose arrival issued
//! it). Zero-time ops in between add nothing. Rather than keep every interval to walk back at the
//! end, the tracker builds the walk forward: every rank's current point and every message in flight
//! (through the note the network hands back with it) holds its own critical chain as a node of a
//! shared, reference-counted tree (a node's parent is the event before it), so memory follows the
//! chains still alive, not the run's length. Consecutive computations of a rank merge into one node.
//!
//! Every chain covers [0, t] exactly, so compute + latency + contention = the last rank's finishing
//! cycle. A message's *latency* is its zero-load time on an empty network (links x (1 + fly_time) +
//! switches x (max(routing_delay, allocation_delay) + 1 with output queues) + packets x packet
//! phits, plus `allocation_delay` between packets: the contract's L + 16P by default), its
//! *contention* the rest of its time from being issued to being consumed (busy links, full queues, its
//! node's earlier messages), with the extra fly time of links longer than one unit (RUFT's return
//! links, `fly_time` per unit of length) that the engines report per message. Latency is capped at
//! the measured time.

use crate::network::{Consumed, HeadLatency, NetworkModel};
use serde::Serialize;

/// No node: an empty chain, and the note of a message the tracker did not see issued.
const NONE: u32 = crate::network::NO_NOTE;

/// How many steps of the chain the report lists (the last ones, nearest the end).
pub const STEPS_LISTED: usize = 200;

/// Zero-load time of a message, from the network model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZeroLoad {
    head: HeadLatency,
    packet_phits: u64,
    /// Cycles between a message's packets on a link into a switch (`allocation_delay`: such links
    /// carry P / (P + A)), and whether the first packet is spaced too (the flow model's rate).
    spacing: u64,
    spaced_first: bool,
}

impl ZeroLoad {
    /// The zero-load timing of `model`.
    pub fn new(model: &NetworkModel) -> ZeroLoad {
        ZeroLoad {
            head: model.head_latency(),
            packet_phits: u64::from(model.packet_phits),
            spacing: u64::from(model.allocation_delay),
            spaced_first: model.model == crate::network::Model::Flow,
        }
    }

    /// Cycles a message of `packets` packets over `hops` links, whose links took `extra_fly` cycles
    /// of fly time beyond one unit of length each, takes on an empty network: its head's way, then
    /// its phits, with `allocation_delay` between packets (the flit engine spaces the packets behind
    /// the first; the flow model's rate P / (P + A) spaces every one).
    pub fn cycles(&self, hops: u32, extra_fly: u64, packets: u64) -> u64 {
        let gaps = if self.spaced_first {
            packets
        } else {
            packets.saturating_sub(1)
        };
        self.head.cycles(hops)
            + packets.saturating_mul(self.packet_phits)
            + gaps.saturating_mul(self.spacing)
            + extra_fly
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Compute,
    Message,
}

/// One event of a chain, with the chain's totals up to and including it.
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    refs: u32,
    kind: Kind,
    /// The rank it happened on (for a message, the receiver).
    rank: u32,
    /// The sender, for a message.
    from: u32,
    start: u64,
    end: u64,
    zero_load: u64,
    packets: u64,
    compute: u64,
    latency: u64,
    contention: u64,
    messages: u64,
    steps: u64,
}

/// Builds every rank's critical chain during the run (see the module notes).
#[derive(Debug)]
pub struct Tracker {
    zero: ZeroLoad,
    nodes: Vec<Node>,
    free: Vec<u32>,
    head: Vec<u32>,
    finish: Vec<u64>,
}

/// One step of the critical path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathStep {
    /// `compute` or `message`.
    pub kind: &'static str,
    /// Rank it happened on (a message: its receiver).
    pub rank: u32,
    /// A message's sender.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<u32>,
    /// First cycle (a message: when it was issued).
    pub start: u64,
    /// Last cycle (a message: when it was consumed).
    pub end: u64,
    /// A message's packets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets: Option<u64>,
    /// A message's zero-load time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zero_load: Option<u64>,
    /// A message's time beyond zero-load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contention: Option<u64>,
}

/// The critical path of a run: the run report's `critical_path` section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CriticalPath {
    /// The rank that finished last (lowest such rank on a tie).
    pub last_rank: u32,
    /// Its finishing cycle: the path's length (compute + latency + contention).
    pub cycles: u64,
    /// Cycles of computation (and self-message copies) on the path.
    pub compute_cycles: u64,
    /// Zero-load time of the path's messages.
    pub latency_cycles: u64,
    /// Time of the path's messages beyond zero-load: waiting for busy links and queues.
    pub contention_cycles: u64,
    /// Shares of `cycles` (0 when it is 0).
    pub compute_share: f64,
    /// Share of latency.
    pub latency_share: f64,
    /// Share of contention.
    pub contention_share: f64,
    /// Messages on the path.
    pub messages: u64,
    /// Steps on the path (merged computations count once).
    pub steps_total: u64,
    /// The last [`STEPS_LISTED`] steps, in time order.
    pub steps: Vec<PathStep>,
}

impl Tracker {
    /// A tracker for `ranks` ranks on a network of `model`.
    pub fn new(ranks: u32, model: &NetworkModel) -> Tracker {
        Tracker {
            zero: ZeroLoad::new(model),
            nodes: Vec::new(),
            free: Vec::new(),
            head: vec![NONE; ranks as usize],
            finish: vec![0; ranks as usize],
        }
    }

    fn retain(&mut self, n: u32) {
        if n != NONE {
            self.nodes[n as usize].refs += 1;
        }
    }

    fn release(&mut self, mut n: u32) {
        while n != NONE {
            let node = &mut self.nodes[n as usize];
            node.refs -= 1;
            if node.refs > 0 {
                return;
            }
            let parent = node.parent;
            self.free.push(n);
            n = parent;
        }
    }

    /// A new node after `parent` (totals carried over), referenced once by its creator.
    fn push(&mut self, parent: u32, mut node: Node) -> u32 {
        let base = (parent != NONE).then(|| self.nodes[parent as usize]);
        node.parent = parent;
        node.refs = 1;
        if let Some(p) = base {
            node.compute += p.compute;
            node.latency += p.latency;
            node.contention += p.contention;
            node.messages += p.messages;
            node.steps += p.steps;
        }
        self.retain(parent);
        match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    fn set_head(&mut self, rank: u32, n: u32) {
        let old = std::mem::replace(&mut self.head[rank as usize], n);
        self.release(old);
    }

    /// `rank` computed (or copied a self-message) over `start..end`.
    pub fn compute(&mut self, rank: u32, start: u64, end: u64) {
        let h = self.head[rank as usize];
        if h != NONE {
            let n = &mut self.nodes[h as usize];
            if n.kind == Kind::Compute && n.refs == 1 && n.rank == rank && n.end == start {
                n.end = end;
                n.compute += end - start;
                return;
            }
        }
        let node = Node {
            parent: NONE,
            refs: 0,
            kind: Kind::Compute,
            rank,
            from: rank,
            start,
            end,
            zero_load: 0,
            packets: 0,
            compute: end - start,
            latency: 0,
            contention: 0,
            messages: 0,
            steps: 1,
        };
        let n = self.push(h, node);
        self.set_head(rank, n);
    }

    /// A message is issued now by `rank`'s own program: it carries the rank's chain. Returns the
    /// message's note ([`crate::network::Step::Send`]), which holds the chain until it arrives.
    pub fn issue_by_rank(&mut self, rank: u32) -> u32 {
        let h = self.head[rank as usize];
        self.issue(h)
    }

    /// A message is issued with chain `chain` (a protocol reply: the chain of the message whose
    /// arrival issued it). Returns the message's note, a hold on `chain` until it arrives.
    pub fn issue(&mut self, chain: u32) -> u32 {
        self.retain(chain);
        chain
    }

    /// A message was consumed at `now`: returns its chain (the message as the last step), held once
    /// by the caller, who passes it on with [`Tracker::released`] or drops it with
    /// [`Tracker::drop_chain`]. The message's note is the chain it was issued with
    /// ([`crate::network::NO_NOTE`], an empty chain, for a message the tracker did not see issued).
    pub fn arrived(&mut self, now: u64, msg: &Consumed) -> u32 {
        let parent = msg.note;
        let took = now - msg.issued_at;
        let zero = self
            .zero
            .cycles(msg.hops, msg.extra_fly, msg.packets)
            .min(took);
        let node = Node {
            parent: NONE,
            refs: 0,
            kind: Kind::Message,
            rank: msg.to,
            from: msg.from,
            start: msg.issued_at,
            end: now,
            zero_load: zero,
            packets: msg.packets,
            compute: 0,
            latency: zero,
            contention: took - zero,
            messages: 1,
            steps: 1,
        };
        let n = self.push(parent, node);
        // The message's hold ends (the new node holds its own).
        self.release(parent);
        n
    }

    /// `rank` was released by the message whose chain is `chain` (from [`Tracker::arrived`]).
    pub fn released(&mut self, rank: u32, chain: u32) {
        self.retain(chain);
        self.set_head(rank, chain);
    }

    /// The caller's hold on `chain` ends.
    pub fn drop_chain(&mut self, chain: u32) {
        self.release(chain);
    }

    /// `rank` finished at `at`.
    pub fn finished(&mut self, rank: u32, at: u64) {
        self.finish[rank as usize] = at;
    }

    /// The critical path ending at the last rank to finish.
    pub fn result(&self) -> CriticalPath {
        let (mut last, mut cycles) = (0u32, 0u64);
        for (r, &f) in self.finish.iter().enumerate() {
            if f > cycles {
                (last, cycles) = (r as u32, f);
            }
        }
        let h = self.head.get(last as usize).copied().unwrap_or(NONE);
        let total = (h != NONE).then(|| self.nodes[h as usize]);
        let mut steps = Vec::new();
        let mut n = h;
        while n != NONE && steps.len() < STEPS_LISTED {
            let node = self.nodes[n as usize];
            let message = node.kind == Kind::Message;
            steps.push(PathStep {
                kind: if message { "message" } else { "compute" },
                rank: node.rank,
                from: message.then_some(node.from),
                start: node.start,
                end: node.end,
                packets: message.then_some(node.packets),
                zero_load: message.then_some(node.zero_load),
                contention: message.then_some(node.end - node.start - node.zero_load),
            });
            n = node.parent;
        }
        steps.reverse();
        let t = total.unwrap_or(Node {
            parent: NONE,
            refs: 0,
            kind: Kind::Compute,
            rank: 0,
            from: 0,
            start: 0,
            end: 0,
            zero_load: 0,
            packets: 0,
            compute: 0,
            latency: 0,
            contention: 0,
            messages: 0,
            steps: 0,
        });
        let share = |x: u64| {
            if cycles == 0 {
                0.0
            } else {
                x as f64 / cycles as f64
            }
        };
        CriticalPath {
            last_rank: last,
            cycles,
            compute_cycles: t.compute,
            latency_cycles: t.latency,
            contention_cycles: t.contention,
            compute_share: share(t.compute),
            latency_share: share(t.latency),
            contention_share: share(t.contention),
            messages: t.messages,
            steps_total: t.steps,
            steps,
        }
    }
}
