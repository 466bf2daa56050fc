//! Messages in and out: the driver's steps, packets formed at the injection link, deliveries, and
//! the view of the queues a routing algorithm reads when it chooses a packet's intermediate.

use super::*;

impl<D: Driver> Engine<'_, D> {
    // ---- drivers and messages ----

    /// Carries out what the driver asked for.
    pub(super) fn apply(&mut self, steps: &mut Vec<Step>) {
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
                    match crate::network::cycle_after(self.now, cycles.max(1)) {
                        Some(at) => self.wheel.schedule(at, Event::WakeRank(rank)),
                        None => {
                            let now = self.now;
                            self.past_limit(|| {
                                format!(
                                    "rank {rank} asks to wait {cycles} cycles at cycle {now} (a \
                                     computation, self-copy or job start too large for the \
                                     simulator)"
                                )
                            });
                        }
                    }
                }
            }
        }
    }

    pub(super) fn issue(&mut self, from: u32, to: u32, bytes: u64, token: u64, note: u32) {
        if self.now >= crate::network::MAX_CYCLE {
            // It could not arrive by the limit; the run ends with the error before its next cycle.
            let now = self.now;
            self.past_limit(|| format!("rank {from} sends a message at cycle {now}"));
            return;
        }
        let packets = bytes.div_ceil(self.packet_bytes).max(1);
        let msg = Message {
            dest_node: self.rank_node[to as usize],
            src_rank: from,
            dst_rank: to,
            token,
            note,
            packets_to_send: packets,
            packets_to_deliver: packets,
            issued_at: self.now,
            packets,
        };
        let id = slab_insert(&mut self.msgs, &mut self.free_msgs, msg);
        let node = self.rank_node[from as usize];
        self.node_queues.push(node, id);
        self.mark_dirty(self.inj_base + node);
        self.outcome.messages += 1;
        self.outcome.packets += packets;
        self.messages_open += 1;
    }

    pub(super) fn deliver(&mut self, pkt: u32) {
        if let Some(c) = self.counters.as_deref_mut() {
            c.received(self.now);
        }
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
        let latency = self.outcome.message_consumed(self.now, msg.issued_at);
        self.latency_sum += u128::from(latency);
        let consumed = Consumed {
            from: msg.src_rank,
            to: msg.dst_rank,
            token: msg.token,
            note: msg.note,
            issued_at: msg.issued_at,
            hops: self.pkts[pkt as usize].hops,
            extra_fly: u64::from(self.pkts[pkt as usize].extra_fly),
            packets: msg.packets,
        };
        let mut steps = std::mem::take(&mut self.steps);
        self.driver.consumed(self.now, &consumed, &mut steps);
        self.apply(&mut steps);
        self.steps = steps;
    }

    /// Takes the next packet of the front message of `node`'s queue.
    pub(super) fn new_packet(&mut self, node: u32) -> u32 {
        let id = self
            .node_queues
            .front(node)
            .expect("injecting from an empty node");
        let msg = &mut self.msgs[id as usize];
        msg.packets_to_send -= 1;
        let dest = msg.dest_node;
        if msg.packets_to_send == 0 {
            // Its last packet leaves: the next message is the node's front.
            self.node_queues.pop(node);
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
            extra_fly: 0,
            salt,
            ready: 0,
            fixed: NO_FIX,
            msg: id,
            dest,
        };
        slab_insert(&mut self.pkts, &mut self.free_pkts, packet)
    }

    /// The intermediate node of a new packet from `src` to `dest` under the run's routing algorithm.
    pub(super) fn choose_intermediate(&mut self, src: u32, dest: u32) -> u32 {
        let mut view = View {
            topo: self.topo,
            now: self.now,
            node_switch: &self.node_switch,
            node_port: &self.node_port,
            port_start: &self.port_start,
            chan_down: &self.chan_down,
            bufs: &self.bufs,
            chan_waiters: &self.chan_waiters,
            demand: &self.demand,
            scratch: &mut self.route_scratch,
            output_queues: self.output_queues,
            xbar_base: self.xbar_base,
            inj_base: self.inj_base,
            out_base: self.out_base,
            queue_packets: (self.input_fifo_cap, self.output_fifo_cap),
            vcs: self.vcs,
            copies: self.copies,
            packet_phits: self.packet_phits,
            queue_phits: self.queue_phits,
        };
        self.paths
            .intermediate(&mut view, &mut self.rng, src, dest)
            .unwrap_or(NO_VIA)
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
    chan_waiters: &'e super::channel_lists::ChannelLists<u32>,
    demand: &'e [Demand],
    scratch: &'e mut Vec<RouteChoice>,
    output_queues: bool,
    xbar_base: u32,
    inj_base: u32,
    out_base: u32,
    /// Packets an input queue and an output queue hold.
    queue_packets: (u16, u16),
    vcs: u32,
    copies: u32,
    packet_phits: u32,
    queue_phits: u64,
}

impl NetView for View<'_> {
    fn nodes(&self) -> u32 {
        self.node_switch.len() as u32
    }
    fn switch_of(&self, node: u32) -> u32 {
        self.node_switch[node as usize]
    }
    fn group_of(&self, node: u32) -> u32 {
        self.topo.valiant_group(self.node_switch[node as usize])
    }
    fn now(&self) -> u64 {
        self.now
    }
    fn queue_phits(&self) -> u64 {
        self.queue_phits
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
        let window = self.now / u64::from(self.packet_phits);
        self.scratch
            .iter()
            .map(|c| {
                let channel = port_channel(base + c.port, self.output_queues, self.xbar_base);
                let held = match self.chan_down[channel as usize] {
                    SINK | NOWHERE => 0,
                    down => {
                        let d = down + c.vc * self.copies;
                        let cap = super::alloc::class_fifo_cap(
                            d,
                            (self.inj_base, self.out_base),
                            self.queue_packets,
                        );
                        u32::from(cap) * self.packet_phits - self.bufs[d as usize].free
                    }
                };
                // The heads of this switch asking for the link: in an input-queued switch they are
                // the output's queue, which the next buffer's credits do not show.
                let c = channel as usize;
                let asking = self.demand.get(c).map_or(0, |d| d.last_window(window));
                let waiting =
                    self.chan_waiters.list(channel).len() as u64 * u64::from(self.packet_phits);
                u64::from(held) + u64::from(asking) + waiting
            })
            .min()
            .unwrap_or(0)
    }
}
