//! Flattening a topology's wiring into the engine's channel and buffer arrays.

use super::*;

impl<'a, D: Driver> Engine<'a, D> {
    /// Flattens the topology's wiring into channel and buffer arrays.
    pub(in crate::network) fn new(
        topo: &'a dyn Topology,
        model: &NetworkModel,
        paths: Box<dyn PathChoice>,
        driver: D,
        rank_node: &'a [u32],
        seed: u64,
    ) -> Self {
        let topo_vcs = topo.virtual_channels();
        let non_minimal = paths.non_minimal();
        let copies = model.virtual_channels;
        let vcs = topo_vcs * if non_minimal { 2 } else { 1 } * copies;
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
        // Bubble flow control counts whole packets of room: credits stay per packet there.
        let phit_credits =
            model.credits == crate::network::CreditUnit::Phit && !topo.bubble_flow_control();

        let inj_base = ports * vcs;
        let out_base = inj_base + nodes;
        let buffers = out_base + if output_queues { ports * vcs } else { 0 };
        let xbar_base = ports + nodes;
        let channels = xbar_base + if output_queues { ports } else { 0 };

        let mut chan_down = vec![NOWHERE; channels as usize];
        let mut chan_latency = vec![0u32; channels as usize];
        let mut chan_lag = vec![0u32; channels as usize];
        let mut chan_extra = vec![0u32; channels as usize];
        let mut buf_feeder = vec![u32::MAX; buffers as usize];
        let mut buf_free = vec![0u32; buffers as usize];
        let mut fifo_cap = vec![0u32; buffers as usize];

        let link_to_switch = 1 + fly + routing;
        let link_to_node = 1 + fly;
        let mut wiring = Vec::new();
        let mut link_classes =
            crate::network::stats::LinkClasses::new(topo, (ports + nodes) as usize);
        for sw in 0..switches {
            topo.wiring(sw, &mut wiring);
            for (local, &end) in (0..).zip(&wiring) {
                let gp = port_start[sw as usize] + local;
                link_classes.add_port(topo, sw, local, end);
                match end {
                    Endpoint::Switch { switch, port } => {
                        let peer = port_start[switch as usize] + port;
                        chan_down[gp as usize] = peer * vcs;
                        // Longer links (RUFT's return links) take fly_time per unit of length.
                        let extra = fly * (topo.link_length(sw, local).max(1) - 1);
                        chan_latency[gp as usize] = link_to_switch + extra;
                        chan_lag[gp as usize] = fly + extra;
                        chan_extra[gp as usize] = extra;
                        for vc in 0..vcs {
                            buf_feeder[(peer * vcs + vc) as usize] = gp;
                        }
                    }
                    Endpoint::Node(_) => {
                        chan_down[gp as usize] = SINK;
                        let extra = fly * (topo.link_length(sw, local).max(1) - 1);
                        chan_latency[gp as usize] = link_to_node + extra;
                        chan_extra[gp as usize] = extra;
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
        link_classes.add_injection_links(nodes);
        for node in 0..nodes {
            let (sw, local) = topo.node_attachment(node);
            let leaf_port = port_start[sw as usize] + local;
            let link = ports + node;
            chan_down[link as usize] = leaf_port * vcs;
            chan_latency[link as usize] = link_to_switch;
            chan_lag[link as usize] = fly;
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
            // Injection queues are formed lazily and never fed by a channel, so they keep no credits
            // (their capacity times P may pass u32: 2^20 packets of 4096 phits).
            if b < inj_base || b >= out_base {
                buf_free[b as usize] = packets * p;
                fifo_cap[b as usize] = packets;
            }
        }
        let mut bufs = Vec::with_capacity(buffers as usize);
        let mut total = 0u32;
        for b in 0..buffers as usize {
            bufs.push(Buffer {
                dirty_at: u64::MAX,
                free: buf_free[b],
                feeder: buf_feeder[b],
                fifo_start: total,
                fifo_head: 0,
                fifo_len: 0,
                sending: false,
                front_ready: false,
                waiting: false,
                in_at: 0,
                out_at: 0,
                select_at: watch::NO_PLAN,
                select_pick: watch::NO_PICK,
                select_far: false,
                watch_gen: 0,
                watch_level: 0,
            });
            total += fifo_cap[b];
        }
        let chans = (0..channels as usize)
            .map(|c| Channel {
                latency: chan_latency[c],
                sender: u32::MAX,
                round: 0,
                bids: 0,
                pick: 0,
                rr_last: u32::MAX,
                lag: chan_lag[c],
                extra: chan_extra[c],
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
            copies,
            selection: model.selection.policy(),
            fixes: model.selection.policy().fixes(),
            round_robin: model.arbitration == crate::network::Arbitration::RoundRobin,
            retry_next_cycle: model.loser_retry == crate::network::LoserRetry::NextCycle,
            node_switch,
            node_port,
            packet_phits: p,
            queue_phits: u64::from(model.input_queue_packets) * u64::from(p),
            packet_bytes: model.packet_bytes(),
            credit_delay: model.credit_delay,
            phit_credits,
            allocation_delay: model.allocation_delay,
            arrival_extra,
            long_links: chan_extra.iter().any(|&e| e > 0),
            vcs,
            nodes,
            ports,
            port_start,
            link_classes,
            port_switch,
            output_queues,
            inj_base,
            out_base,
            input_fifo_cap: model.input_queue_packets as u16,
            output_fifo_cap: model.output_queue_packets as u16,
            xbar_base,
            chans,
            chan_busy_until: vec![0; channels as usize],
            chan_down,
            chan_phits: vec![0; channels as usize],
            chan_waiters: channel_lists::ChannelLists::new(channels),
            chan_watchers: channel_lists::ChannelLists::new(channels),
            plans: model.selection.policy().plans() && !non_minimal,
            allocating: false,
            losers: Vec::new(),
            demand: if non_minimal {
                vec![Demand::default(); channels as usize]
            } else {
                Vec::new()
            },
            lent: if phit_credits {
                vec![0; buffers as usize]
            } else {
                Vec::new()
            },
            bufs,
            fifo_slots: vec![0; total as usize],
            pkts: Vec::new(),
            free_pkts: Vec::new(),
            msgs: Vec::new(),
            free_msgs: Vec::new(),
            node_queues: NodeQueues::new(nodes as usize),
            rank_node,
            driver,
            wheel: Wheel::new(horizon),
            rng: Rng::new(seed),
            salt_key: crate::rng::mix64(seed ^ 0x5A17_5A17_5A17_5A17),
            packets_made: 0,
            now: 0,
            active_at: 0,
            route_scratch: Vec::new(),
            routes: routes::RouteCache::new(inj_base),
            candidates: Vec::new(),
            epoch: 0,
            filled_at: (u64::MAX, 0),
            filled_for: Vec::new(),
            fills: 0,
            planned: None,
            states: Vec::new(),
            trends: Vec::new(),
            watch: Default::default(),
            dirty: Vec::new(),
            proposals: Vec::new(),
            round: 0,
            steps: Vec::new(),
            outcome: Outcome::default(),
            latency_sum: 0,
            messages_open: 0,
            too_late: None,
            progress: None,
            load: None,
            counters: None,
        }
    }
}
