//! A head's choice among the outputs its routing function offers: the candidates resolved to engine
//! ids (with the model's parallel virtual channels), what the selection policy is told about each, and
//! its answer (see [`crate::network::selection`]).

use super::*;
use crate::network::selection::{CandidateState, Choice};

impl<D: Driver> Engine<'_, D> {
    /// The virtual channel index of topology VC `vc` in routing leg `phase`, copy `copy`.
    #[inline]
    fn vc_index(&self, phase: u32, vc: u32, copy: u32) -> u32 {
        (phase * self.topo_vcs + vc) * self.copies + copy
    }

    /// Fills `self.candidates` with the next hops of the packet at the front of buffer `b`.
    pub(super) fn fill_candidates(&mut self, b: u32) {
        self.candidates.clear();
        let p = self.packet_phits;
        if let Some(kept) = self.routes.get(b) {
            self.candidates.extend_from_slice(kept);
            return;
        }
        if b < self.inj_base {
            let port = b / self.vcs;
            let sw = self.port_switch[port as usize];
            let base = self.port_start[sw as usize];
            let pkt = self.pkts[self.front(b).expect("routing an empty buffer") as usize];
            let local_vc = ((b % self.vcs) / self.copies) % self.topo_vcs;
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
            for i in 0..self.route_scratch.len() {
                let choice = self.route_scratch[i];
                let channel = port_channel(base + choice.port, self.output_queues, self.xbar_base);
                let down = self.chan_down[channel as usize];
                debug_assert!(
                    down != NOWHERE,
                    "switch {sw} routed to unplugged port {}",
                    choice.port
                );
                let need = if choice.bubble { 2 * p } else { p };
                if down == SINK {
                    self.candidates.push(Candidate {
                        channel,
                        down: SINK,
                        need,
                        escape: choice.escape,
                    });
                    continue;
                }
                for copy in 0..self.copies {
                    let down = down + self.vc_index(phase, choice.vc, copy);
                    self.candidates.push(Candidate {
                        channel,
                        down,
                        need,
                        escape: choice.escape,
                    });
                }
            }
            self.routes.keep(b, &self.candidates);
        } else if b < self.out_base {
            let channel = self.ports + (b - self.inj_base);
            let down = self.chan_down[channel as usize];
            for copy in 0..self.copies {
                self.candidates.push(Candidate {
                    channel,
                    down: down + copy,
                    need: p,
                    escape: false,
                });
            }
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

    /// What buffer `b`'s head does now: nothing (not ready), bid for an output, wait for a change, or
    /// ask again next cycle, as the model's selection policy decides.
    pub(super) fn decide(&mut self, b: u32) -> Decision {
        if self.bufs[b as usize].sending {
            return Decision::NotReady;
        }
        let injection = self.is_injection(b);
        if injection {
            if self.node_queues.front(b - self.inj_base).is_none() {
                return Decision::NotReady;
            }
        } else {
            debug_assert_eq!(
                self.bufs[b as usize].front_ready,
                self.front_is_ready(b),
                "buffer {b}'s front_ready is stale"
            );
            if !self.bufs[b as usize].front_ready {
                return Decision::NotReady;
            }
        }
        // A planned grant is due now, or any other look replaces the plan.
        let planned = if self.plans {
            let pick = self.due_now(b);
            self.unwatch(b);
            pick.filter(|&p| p != watch::NO_PICK)
        } else {
            None
        };
        self.outcome.decisions += 1;
        self.fill_candidates(b);
        if self.candidates.is_empty() {
            return Decision::Blocked;
        }
        if self.fixes {
            // The packet the output is fixed for (a node's packets are formed as they leave).
            let front = if injection { None } else { self.front(b) };
            let kept = front.map_or(NO_FIX, |pkt| self.pkts[pkt as usize].fixed);
            let index = if kept != NO_FIX {
                kept as usize
            } else {
                self.fill_states();
                let i = self.selection.fix(&self.states, &mut self.rng).unwrap_or(0);
                if let Some(pkt) = front {
                    self.pkts[pkt as usize].fixed = i as u32;
                }
                i
            };
            // The fixed output first, then the escape channels it may still fall back on (a deadlock-free
            // escape path must stay reachable, as in Booksim, whose VC allocator is offered them too).
            let fixed = self.candidates[index];
            self.candidates.retain(|c| c.escape && !fixed.escape);
            self.candidates.insert(0, fixed);
        }
        self.fill_states();
        if let Some(pick) = planned {
            let pick = pick as usize;
            // The plan read every change that could make its candidate unusable.
            debug_assert!(self.states[pick].usable(), "a planned grant is not usable");
            if self.states[pick].usable() {
                let usable = self.states.iter().filter(|s| s.usable()).count();
                return Decision::Go {
                    cand: self.candidates[pick],
                    alone: usable == 1,
                };
            }
        }
        let choice = self.selection.choose(&self.states, &mut self.rng);
        if let Choice::Take { index, .. } | Choice::Retry { index } = choice {
            self.count_request(self.candidates[index].channel);
        }
        match choice {
            Choice::Take { index, alone } => Decision::Go {
                cand: self.candidates[index],
                alone,
            },
            Choice::Wait => Decision::Blocked,
            Choice::Retry { .. } if self.plans => {
                self.plan_retry(b);
                Decision::Watch
            }
            Choice::Retry { .. } => Decision::Retry,
        }
    }

    /// Counts a head's request for `channel` this cycle, when a routing algorithm reads requests.
    #[inline]
    fn count_request(&mut self, channel: u32) {
        let window = self.now / u64::from(self.packet_phits);
        if let Some(d) = self.demand.get_mut(channel as usize) {
            d.count(window);
        }
    }

    /// Fills `self.states` for `self.candidates`, and `self.trends` with their queues' trends (read
    /// together, as a plan needs both), unless they were filled for the same candidates in this
    /// cycle with nothing they read changed since (`epoch`).
    pub(super) fn fill_states(&mut self) {
        if self.filled_at == (self.now, self.epoch) && self.filled_for == self.candidates {
            return;
        }
        self.filled_at = (self.now, self.epoch);
        self.fills += 1;
        self.filled_for.clone_from(&self.candidates);
        self.states.clear();
        self.trends.clear();
        for i in 0..self.candidates.len() {
            let c = self.candidates[i];
            let trend = self.trend(c.down);
            let state = CandidateState {
                busy: self.chan_busy_until[c.channel as usize] > self.now,
                credit: self.credit(c),
                need: c.need,
                occupancy: trend.at(0),
                escape: c.escape,
            };
            self.states.push(state);
            self.trends.push(trend);
        }
    }

    /// Free phits in the buffer a candidate feeds (unbounded at a node).
    #[inline]
    pub(super) fn credit(&self, cand: Candidate) -> u32 {
        if cand.down == SINK {
            u32::MAX
        } else {
            self.room(cand.down)
        }
    }

    /// Phits a packet starting now may count on in buffer `d`: its free phits and, with phit credits,
    /// the room of the packet leaving it once that packet's first credits are back and nobody has
    /// borrowed them yet. That packet leaves one phit per cycle from `out_at`, `credit_delay` cycles
    /// ahead of its credits, so a packet started now finds a free slot for every phit it sends.
    #[inline]
    pub(super) fn room(&self, d: u32) -> u32 {
        let free = self.bufs[d as usize].free;
        if !self.phit_credits {
            return free;
        }
        let buf = &self.bufs[d as usize];
        let streaming = buf.sending
            && self.lent[d as usize] == 0
            && self.now >= buf.out_at + u64::from(self.credit_delay);
        if streaming {
            free + self.packet_phits
        } else {
            free
        }
    }
}
