//! Buffers, candidate outputs, arbitration and transmission: the allocation that runs once per cycle
//! with events, touching only the buffers whose situation changed.

use super::*;

/// Packets the FIFO of buffer `b` holds, by its class: switch input queues below `inj_base` hold
/// `input`, node injection queues (below `out_base`) none (a node's packets wait in its message
/// queue), output queues `output`.
#[inline]
pub(super) fn class_fifo_cap(
    b: u32,
    (inj_base, out_base): (u32, u32),
    (input, output): (u16, u16),
) -> u16 {
    if b < inj_base {
        input
    } else if b < out_base {
        0
    } else {
        output
    }
}

impl<D: Driver> Engine<'_, D> {
    // ---- buffers ----

    /// Whether buffer `b` is a node's injection queue (whose packets are formed lazily from messages).
    #[inline]
    pub(super) fn is_injection(&self, b: u32) -> bool {
        (self.inj_base..self.out_base).contains(&b)
    }

    #[inline]
    pub(super) fn mark_dirty(&mut self, b: u32) {
        if self.bufs[b as usize].dirty_at != self.now {
            self.bufs[b as usize].dirty_at = self.now;
            self.dirty.push(b);
        }
    }

    #[inline]
    pub(super) fn front(&self, b: u32) -> Option<u32> {
        let buf = &self.bufs[b as usize];
        (buf.fifo_len > 0)
            .then(|| self.fifo_slots[(buf.fifo_start + u32::from(buf.fifo_head)) as usize])
    }

    /// Packets buffer `b`'s FIFO holds: every buffer of a class holds the same.
    #[inline]
    pub(super) fn fifo_cap(&self, b: u32) -> u16 {
        class_fifo_cap(
            b,
            (self.inj_base, self.out_base),
            (self.input_fifo_cap, self.output_fifo_cap),
        )
    }

    /// Whether the front packet of buffer `b` is routed by now, read from its packet.
    pub(super) fn front_is_ready(&self, b: u32) -> bool {
        self.front(b)
            .is_some_and(|pkt| self.pkts[pkt as usize].ready <= self.now)
    }

    /// Sets `front_ready` of buffer `b` from its front packet (a head became ready, or a retry).
    pub(super) fn refresh_front_ready(&mut self, b: u32) {
        self.bufs[b as usize].front_ready = self.front_is_ready(b);
    }

    #[inline]
    pub(super) fn pop_front(&mut self, b: u32) -> u32 {
        let cap = self.fifo_cap(b);
        let buf = &mut self.bufs[b as usize];
        let pkt = self.fifo_slots[(buf.fifo_start + u32::from(buf.fifo_head)) as usize];
        buf.fifo_head += 1;
        if buf.fifo_head == cap {
            buf.fifo_head = 0;
        }
        buf.fifo_len -= 1;
        // The next packet is looked at once its head is ready (`transmit_done`, `HeadReady`).
        buf.front_ready = false;
        pkt
    }

    #[inline]
    pub(super) fn push_back(&mut self, b: u32, pkt: u32) {
        let cap = self.fifo_cap(b);
        let buf = &mut self.bufs[b as usize];
        debug_assert!(
            buf.fifo_len < cap,
            "credit accounting let a buffer overflow"
        );
        let mut slot = buf.fifo_head + buf.fifo_len;
        if slot >= cap {
            slot -= cap;
        }
        self.fifo_slots[(buf.fifo_start + u32::from(slot)) as usize] = pkt;
        if buf.fifo_len == 0 {
            // A packet starting into an empty queue is ready only after its link and routing delay.
            buf.front_ready = false;
        }
        buf.fifo_len += 1;
    }

    /// Registers blocked buffer `b` (whose candidates are in `self.candidates`) on its channels.
    pub(super) fn wait_on_candidates(&mut self, b: u32) {
        if !self.bufs[b as usize].waiting {
            self.bufs[b as usize].waiting = true;
            for cand in &self.candidates {
                self.chan_waiters.push(cand.channel, b);
            }
        }
    }

    pub(super) fn stop_waiting(&mut self, b: u32) {
        if self.bufs[b as usize].waiting {
            self.fill_candidates(b);
            self.leave_waiters(b);
        }
    }

    /// Unregisters waiting buffer `b` from its candidates' channels (in `self.candidates`).
    pub(super) fn leave_waiters(&mut self, b: u32) {
        self.bufs[b as usize].waiting = false;
        for cand in &self.candidates {
            self.chan_waiters
                .swap_remove_first(cand.channel, |&w| w == b);
        }
    }

    /// Marks the buffers waiting on `channel` for another look, but only if the channel is free and its
    /// next buffer has room for a packet: a waiter needs both, and the event that completes the pair
    /// (the channel freeing, or credits returning) is the one that wakes it.
    pub(super) fn wake_waiters(&mut self, channel: u32) {
        if !self.chan_waiters.any(channel) || self.chan_busy_until[channel as usize] > self.now {
            return;
        }
        let down = self.chan_down[channel as usize];
        let vcs = if channel < self.ports || channel >= self.xbar_base {
            self.vcs
        } else {
            1
        };
        let room = down == SINK || (down..down + vcs).any(|d| self.room(d) >= self.packet_phits);
        if !room {
            return;
        }
        for i in 0..self.chan_waiters.list(channel).len() {
            let b = self.chan_waiters.list(channel)[i];
            self.mark_dirty(b);
        }
    }

    // ---- allocation and transmission ----

    /// Grants channels to the buffers that changed this cycle (random arbitration per channel, adaptive
    /// choice per packet), repeating for the losers until nobody else can move.
    pub(super) fn allocate(&mut self) {
        self.allocating = true;
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
                    Decision::NotReady | Decision::Watch => {}
                    Decision::Blocked => self.wait_on_candidates(b),
                    Decision::Retry => self.retry_next_cycle(b),
                    Decision::Go { cand, alone } => {
                        self.bid(b, cand.channel);
                        self.proposals.push((b, cand, alone));
                    }
                }
            }
            self.dirty = round;
            self.dirty.clear();
            for i in 0..self.proposals.len() {
                let (b, cand, alone) = self.proposals[i];
                let chan = &self.chans[cand.channel as usize];
                let (won, contested) = (chan.pick == i as u32, chan.bids > 1);
                if let Some(c) = self.counters.as_deref_mut() {
                    if !won {
                        c.conflict(self.now);
                    } else if contested {
                        c.contested(self.now);
                    }
                }
                if won {
                    self.chans[cand.channel as usize].rr_last = b;
                    self.start(b, cand);
                } else if self.retry_next_cycle && self.plans {
                    // Planned once this round's grants are made (below).
                    self.losers.push(b);
                } else if self.retry_next_cycle {
                    // As in FSIN and Booksim: this cycle's requests are spent; ask again next cycle.
                    self.retry_next_cycle(b);
                } else if alone {
                    // Its one usable output is taken: it waits for its candidates to change.
                    self.fill_candidates(b);
                    self.wait_on_candidates(b);
                } else {
                    // A loser with other usable outputs chooses again in this same cycle.
                    self.dirty.push(b);
                }
            }
            let mut losers = std::mem::take(&mut self.losers);
            for &b in &losers {
                self.plan_loser(b);
            }
            losers.clear();
            self.losers = losers;
        }
        self.allocating = false;
    }

    /// Registers buffer `b`'s bid for `channel` in this round (its index is the next proposal's).
    /// Random arbitration keeps each bidder with equal probability by reservoir sampling (the k-th
    /// bidder takes the channel with probability 1/k); round-robin keeps the first bidder after the
    /// buffer last granted, in buffer-id order.
    fn bid(&mut self, b: u32, channel: u32) {
        let c = channel as usize;
        let index = self.proposals.len() as u32;
        let chan = &mut self.chans[c];
        if chan.round != self.round {
            chan.round = self.round;
            chan.bids = 1;
            chan.pick = index;
        } else {
            chan.bids += 1;
            if self.round_robin {
                let after = |x: u32| x.wrapping_sub(chan.rr_last).wrapping_sub(1);
                if after(b) < after(self.proposals[chan.pick as usize].0) {
                    chan.pick = index;
                }
            } else if self.rng.below(chan.bids) == 0 {
                chan.pick = index;
            }
        }
    }

    /// Looks at buffer `b` again next cycle.
    fn retry_next_cycle(&mut self, b: u32) {
        self.wheel.schedule(self.now + 1, Event::HeadReady(b));
    }

    /// Starts sending the front packet of buffer `b` on `cand.channel`.
    pub(super) fn start(&mut self, b: u32, cand: Candidate) {
        let now = self.now;
        let p = self.packet_phits;
        self.epoch += 1;
        self.stop_waiting(b);
        self.unwatch(b);
        let pkt = if self.is_injection(b) {
            self.new_packet(b - self.inj_base)
        } else {
            self.routes.release(b);
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
        self.bufs[b as usize].out_at = now;
        if !self.is_injection(b) {
            self.notify(self.bufs[b as usize].feeder, watch::Change::Drain(b));
        }
        if self.phit_credits && !self.is_injection(b) {
            // Its first credits reach the feeding channel `credit_delay` cycles from now.
            if self.credit_delay == 0 {
                self.wake_waiters(self.bufs[b as usize].feeder);
                self.notify(self.bufs[b as usize].feeder, watch::Change::Credit);
            } else {
                self.wheel
                    .schedule(now + u64::from(self.credit_delay), Event::CreditStream(b));
            }
        }
        self.pkts[pkt as usize].fixed = NO_FIX;
        self.chans[c].sender = b;
        self.chan_busy_until[c] = now + u64::from(p);
        self.wheel
            .schedule(now + u64::from(p), Event::TransmitDone(cand.channel));
        if cand.channel < self.xbar_base {
            self.outcome.phit_hops += u64::from(p);
            self.chan_phits[c] += u64::from(p);
            self.pkts[pkt as usize].hops += 1;
            if self.long_links {
                self.pkts[pkt as usize].extra_fly += self.chans[c].extra;
            }
            // Link load over time: off unless a recorder is attached.
            if let Some(load) = self.load.as_deref_mut() {
                load.add(cand.channel, now, p);
            }
        }
        let ready = now + u64::from(self.chans[c].latency);
        if cand.down == SINK {
            self.wheel
                .schedule(ready + u64::from(p), Event::Deliver(pkt));
        } else {
            let down = cand.down;
            let free = self.bufs[down as usize].free;
            if free >= p {
                self.bufs[down as usize].free = free - p;
            } else {
                // Phit credits: the rest is the leaving packet's room, repaid by its credit return.
                debug_assert!(self.phit_credits && self.room(down) >= p);
                self.lent[down as usize] = (p - free) as u16;
                self.bufs[down as usize].free = 0;
            }
            self.bufs[down as usize].in_at = now + u64::from(self.chans[c].lag);
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
        self.notify(cand.channel, watch::Change::Taken);
    }

    pub(super) fn transmit_done(&mut self, channel: u32) {
        let b = self.chans[channel as usize].sender;
        self.epoch += 1;
        self.bufs[b as usize].sending = false;
        self.wake_waiters(channel);
        self.notify(channel, watch::Change::Freed);
        if self.is_injection(b) {
            self.mark_dirty(b);
            return;
        }
        if self.phit_credits {
            // The room of the packet that streamed out is no longer lent until its credits return.
            self.notify(self.bufs[b as usize].feeder, watch::Change::Taken);
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
                self.bufs[b as usize].front_ready = true;
                self.mark_dirty(b);
            } else {
                self.wheel.schedule(ready, Event::HeadReady(b));
            }
        }
    }

    /// The room a packet left in buffer `b` becomes credits its feeding channel sees (less what a
    /// packet already borrowed of it under phit credits).
    pub(super) fn return_credit(&mut self, b: u32) {
        let lent = match self.lent.get_mut(b as usize) {
            Some(lent) => u32::from(std::mem::take(lent)),
            None => 0,
        };
        self.epoch += 1;
        self.bufs[b as usize].free += self.packet_phits - lent;
        let feeder = self.bufs[b as usize].feeder;
        self.wake_waiters(feeder);
        self.notify(feeder, watch::Change::Credit);
    }
}
