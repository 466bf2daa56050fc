//! The network model: the switch and node parameters of seed 004 §3.1 as config values, the presets
//! that reproduce other simulators' routers (FSIN, Booksim2), and the checks run before a simulation.

use super::{Model, Routing, Selection};
use crate::error::{Error, Result};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};

/// The parameters of the network model; defaults are seed 004 §3.1's (the contract's "Default network
/// model"). Every field is a config value (`[network]` in a run config); `preset = "NAME"` there starts
/// from one of [`PRESETS`] instead of the defaults, and the keys given beside it override its values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "NetworkConfig")]
pub struct NetworkModel {
    /// Phits per packet (16). Messages are split into packets of this size, the last one padded.
    pub packet_phits: u32,
    /// Bytes per phit (4: "one phit is ... fixed to 32 bits").
    pub phit_bytes: u32,
    /// Transit queue at each switch input port (per virtual channel), in packets (4).
    pub input_queue_packets: u32,
    /// Injection queue of each node, in packets (8). A node drains it in FIFO order over its one link,
    /// so it bounds how many packets are staged, not when they leave; packets are staged lazily.
    pub injection_queue_packets: u32,
    /// Output queue at each switch output port, in packets; 0 (default) means none, as in seed 004.
    /// With output queues (seed 000 uses 2) crossing the switch into the output queue takes one cycle and
    /// the link another, both at one phit per cycle.
    pub output_queue_packets: u32,
    /// Cycles a packet head spends being routed at each switch before it can request an output (0; seed
    /// 000 uses 20).
    pub routing_delay: u32,
    /// Cycles a head at the front of a switch input queue waits, counted from the cycle the packet before
    /// it in that queue has left, before it can request an output (0). It models a router pipeline whose
    /// allocation stages start only at the front of a queue (Booksim's VC and switch allocation); a head
    /// is ready at max(arrival + `routing_delay`, front + `allocation_delay`), so on an idle queue only
    /// the larger of the two counts.
    pub allocation_delay: u32,
    /// Cycles from a packet's tail leaving a buffer to the upstream channel seeing its room again (0: the
    /// credits are back at the very cycle the tail leaves). Booksim's credits cross a credit channel of
    /// the link's latency plus its `credit_delay`.
    pub credit_delay: u32,
    /// Extra cycles a phit spends on each link beyond the one cycle to cross it (0; seed 000 uses 8).
    pub fly_time: u32,
    /// Routing algorithm on top of the topology's own routing, a spec string of
    /// [`crate::routing::REGISTRY`]: `minimal` (default), `valiant`, `ugal`, `lbr:period=T,valiant=M`.
    pub routing: Routing,
    /// Which offered output a head asks for ([`crate::network::selection::POLICIES`]): `fsin` (default: the least
    /// occupied downstream queue, busy or not, as FSIN, whose results seed 004 reports), `fixed`
    /// (Booksim: chosen once when routed) or `free` (free outputs only).
    pub selection: Selection,
    /// How a channel chooses among the buffers bidding for it in one cycle.
    pub arbitration: Arbitration,
    /// When a buffer that lost an arbitration asks again.
    pub loser_retry: LoserRetry,
    /// Parallel virtual channels per virtual channel the topology's routing uses (1). Each is a
    /// separate input queue of `input_queue_packets`; a head may take any of them (FSIN's `nchan`, whose
    /// trees choose the (port, VC) pair with [`crate::network::selection`]). The physical link still carries one packet
    /// at a time (FSIN interleaves VCs phit by phit; the throughput is the same). Not with bubble flow
    /// control, whose rings must not be entered sideways.
    pub virtual_channels: u32,
    /// Which engine replays the traffic: `flit` (default, the packet engine above) or `flow` (max-min
    /// fair flows, [`crate::network::flow`]). Left out of serialised configs when `flit`, so the hashes of campaign
    /// configs written before the key existed do not change.
    #[serde(default, skip_serializing_if = "Model::is_flit")]
    pub model: Model,
    /// When the room a leaving packet frees may be used: once its tail has left (`packet`, default:
    /// virtual cut-through with whole-packet credits) or phit by phit as it leaves (`phit`: Booksim's
    /// per-flit credits, so a packet may start into a full buffer whose front packet is leaving). Left
    /// out of serialised configs when `packet`, so existing campaign hashes stand.
    #[serde(default, skip_serializing_if = "CreditUnit::is_packet")]
    pub credits: CreditUnit,
}

/// The unit in which a buffer's room is returned to the channel feeding it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CreditUnit {
    /// The whole packet's room, `credit_delay` cycles after its tail has left (seed 004 §3.1, FSIN).
    #[default]
    Packet,
    /// Each phit's room, `credit_delay` cycles after that phit has left (Booksim2's flit credits). A
    /// packet is a rigid train here, so a packet may start into a buffer as soon as the front packet's
    /// first credits are back: the room it lacks is the leaving packet's, freed one phit per cycle
    /// ahead of its own phits arriving. At most one packet borrows against each leaving packet. On
    /// topologies with bubble flow control credits stay whole packets: the bubble rule, whose
    /// deadlock freedom rests on a free packet slot in every ring, counts packets.
    Phit,
}

impl CreditUnit {
    /// The default, left out of serialised configs.
    pub fn is_packet(&self) -> bool {
        *self == CreditUnit::Packet
    }
}

/// How a channel chooses among the buffers that bid for it in the same cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// Each bidder with equal probability (seed 004 §3.1; FSIN `amode=random`).
    #[default]
    Random,
    /// The next bidder after the last one granted, in buffer order (FSIN's default `amode`).
    RoundRobin,
}

/// When a buffer that lost an arbitration, or whose chosen output is busy, asks again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LoserRetry {
    /// Next cycle, as in FSIN and Booksim (each cycle's requests are made once).
    #[default]
    NextCycle,
    /// In the same cycle, among the outputs still free (netreplay's first switch).
    SameCycle,
}

impl Default for NetworkModel {
    fn default() -> Self {
        NetworkModel {
            packet_phits: 16,
            phit_bytes: 4,
            input_queue_packets: 4,
            injection_queue_packets: 8,
            output_queue_packets: 0,
            routing_delay: 0,
            allocation_delay: 0,
            credit_delay: 0,
            fly_time: 0,
            routing: Routing::minimal(),
            selection: Selection::fsin(),
            arbitration: Arbitration::Random,
            loser_retry: LoserRetry::NextCycle,
            virtual_channels: 1,
            model: Model::Flit,
            credits: CreditUnit::Packet,
        }
    }
}

/// A named starting point for `[network]`: the model another simulator uses, so that its figures can be
/// reproduced (`preset = "booksim-iq"`).
pub struct Preset {
    /// Its name in configs.
    pub name: &'static str,
    /// What it reproduces.
    pub help: &'static str,
    /// The model it stands for.
    pub model: fn() -> NetworkModel,
}

/// Every preset, in the order the CLI's registry help and errors show them.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "seed004",
        help: "seed 004 §3.1's switch (the defaults)",
        model: NetworkModel::default,
    },
    Preset {
        name: "fsin-paper",
        help: "FSIN as seed 004 §3.1 describes it: 1 VC, random arbitration (same as seed004)",
        model: NetworkModel::default,
    },
    Preset {
        name: "fsin-default",
        help: "FSIN's own defaults: 2 VCs, round-robin arbitration, 4-packet injection queue",
        model: NetworkModel::fsin_default,
    },
    Preset {
        name: "booksim-iq",
        help: "Booksim2's input-queued router, 3-stage non-speculative, 64-flit VC buffers",
        model: NetworkModel::booksim_iq,
    },
];

/// `[network]` as written: the preset to start from and the keys that override it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct NetworkConfig {
    preset: Option<String>,
    packet_phits: Option<u32>,
    phit_bytes: Option<u32>,
    input_queue_packets: Option<u32>,
    injection_queue_packets: Option<u32>,
    output_queue_packets: Option<u32>,
    routing_delay: Option<u32>,
    allocation_delay: Option<u32>,
    credit_delay: Option<u32>,
    fly_time: Option<u32>,
    routing: Option<Routing>,
    selection: Option<Selection>,
    arbitration: Option<Arbitration>,
    loser_retry: Option<LoserRetry>,
    virtual_channels: Option<u32>,
    model: Option<Model>,
    credits: Option<CreditUnit>,
}

impl TryFrom<NetworkConfig> for NetworkModel {
    type Error = Error;

    fn try_from(c: NetworkConfig) -> Result<NetworkModel> {
        let mut m = match &c.preset {
            None => NetworkModel::default(),
            Some(name) => NetworkModel::preset(name)?,
        };
        /// A key written beside the preset overrides the preset's value.
        fn set<T>(field: &mut T, value: Option<T>) {
            if let Some(v) = value {
                *field = v;
            }
        }
        set(&mut m.packet_phits, c.packet_phits);
        set(&mut m.phit_bytes, c.phit_bytes);
        set(&mut m.input_queue_packets, c.input_queue_packets);
        set(&mut m.injection_queue_packets, c.injection_queue_packets);
        set(&mut m.output_queue_packets, c.output_queue_packets);
        set(&mut m.routing_delay, c.routing_delay);
        set(&mut m.allocation_delay, c.allocation_delay);
        set(&mut m.credit_delay, c.credit_delay);
        set(&mut m.fly_time, c.fly_time);
        set(&mut m.virtual_channels, c.virtual_channels);
        set(&mut m.routing, c.routing);
        set(&mut m.selection, c.selection);
        set(&mut m.arbitration, c.arbitration);
        set(&mut m.loser_retry, c.loser_retry);
        set(&mut m.model, c.model);
        set(&mut m.credits, c.credits);
        Ok(m)
    }
}

/// A packet head's time on an empty network, were every link one unit long: per link 1 + `fly_time`,
/// per switch crossed max(`routing_delay`, `allocation_delay`) and one more with output queues (the
/// contract's L). The critical path's zero-load time and the flow model's long-link extra both read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadLatency {
    per_link: u64,
    per_switch: u64,
}

impl HeadLatency {
    /// Cycles over `hops` links (`hops - 1` switches).
    pub fn cycles(&self, hops: u32) -> u64 {
        let hops = u64::from(hops);
        hops * self.per_link + hops.saturating_sub(1) * self.per_switch
    }
}

impl NetworkModel {
    /// The head latency of this model's links and switches ([`HeadLatency`]).
    pub fn head_latency(&self) -> HeadLatency {
        HeadLatency {
            per_link: 1 + u64::from(self.fly_time),
            per_switch: u64::from(self.routing_delay.max(self.allocation_delay))
                + u64::from(self.output_queue_packets > 0),
        }
    }

    /// The model of preset `name` (see [`PRESETS`]).
    pub fn preset(name: &str) -> Result<NetworkModel> {
        PRESETS
            .iter()
            .find(|p| p.name == name)
            .map(|p| (p.model)())
            .ok_or_else(|| {
                let known: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
                Error::Invalid(format!(
                    "unknown network preset `{name}`; presets: {}",
                    known.join(", ")
                ))
            })
    }

    /// Booksim2's input-queued router as the reference runs of `validation/` configure it, in this engine's
    /// terms. A head crosses a Booksim router in routing (0), VC allocation (1), switch allocation (1)
    /// and crossbar (1) cycles, so `routing_delay` is 3 (zero-load latency agrees within 1.3%). Its VC
    /// state machine routes and allocates a packet only once the head is at the front of its VC, after
    /// the previous tail has won the switch; the next head's VC allocation overlaps that tail's crossbar
    /// cycle, so one cycle (its switch allocation) falls after the tail has left: `allocation_delay` 1
    /// (2 would overshoot Booksim's latency at load 0.3 by 5%, see `docs/network-model.md`). Credits cross a credit
    /// channel of the link's latency (1 cycle) plus the router's `credit_delay` (0): `credit_delay` 1;
    /// they are per flit (`credits = "phit"`), so a packet may follow one leaving a full buffer at
    /// once, as Booksim's VC allocator (`wait_for_tail_credit = 0`) lets it.
    /// Buffers: 64 flits per VC, i.e. 4 packets of 16 phits. Booksim's topologies decide the VCs (torus:
    /// dateline, 2; mesh: 1), as ours do.
    /// The output is fixed when the head is routed (`selection = "fixed"`), as Booksim's routing
    /// functions and VC allocator do.
    pub fn booksim_iq() -> NetworkModel {
        NetworkModel {
            packet_phits: 16,
            input_queue_packets: 4,
            routing_delay: 3,
            allocation_delay: 1,
            credit_delay: 1,
            credits: CreditUnit::Phit,
            selection: Selection::fixed(),
            ..NetworkModel::default()
        }
    }

    /// FSIN (INSEE @2140aec) run with its own defaults rather than seed 004 §3.1's text: `nchan = 2`
    /// virtual channels, round-robin arbitration (`amode`), a 4-packet injection queue. FSIN's own
    /// runs (`validation/`) give BU thin/fat ratios at 4,096 nodes that fit Table 5a only with these, so the published
    /// tables were most likely made with them (see `docs/network-model.md`).
    pub fn fsin_default() -> NetworkModel {
        NetworkModel {
            virtual_channels: 2,
            arbitration: Arbitration::RoundRobin,
            injection_queue_packets: 4,
            ..NetworkModel::default()
        }
    }

    /// Bytes of payload a packet carries.
    pub fn packet_bytes(&self) -> u64 {
        u64::from(self.packet_phits) * u64::from(self.phit_bytes)
    }

    /// Packets a message of `bytes` needs: ceil(bytes / packet bytes), at least one (seed 004 §3.1: "the
    /// last packet contains unused phits"; an empty message still sends one packet).
    pub fn packets_for(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.packet_bytes()).max(1)
    }

    /// Rejects parameters the model cannot run with (virtual cut-through needs room for a whole packet;
    /// bubble flow control for two).
    pub fn validate(&self, topo: &dyn Topology) -> Result<()> {
        self.check_values()?;
        // Errors name their key, so a config loader can point at it ([`crate::run::locate`]).
        let check = |ok: bool, key: &str, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(Error::BadValue {
                    kind: "network model",
                    name: "[network]".into(),
                    key: key.into(),
                    problem: what.into(),
                })
            }
        };
        if topo.bubble_flow_control() {
            let (ring_queue, key) = if self.output_queue_packets > 0 {
                (self.output_queue_packets, "output_queue_packets")
            } else {
                (self.input_queue_packets, "input_queue_packets")
            };
            check(
                ring_queue >= 2,
                key,
                &format!(
                    "is {ring_queue} (set, or from the preset) but must be at least 2: `{}` \
                     uses bubble flow control, which needs queues of at least 2 packets",
                    topo.spec()
                ),
            )?;
            check(
                self.virtual_channels == 1,
                "virtual_channels",
                &format!(
                    "is {} (set, or from the preset) but must be 1: `{}` uses bubble flow \
                     control, whose rings cannot take more virtual channels",
                    self.virtual_channels,
                    topo.spec()
                ),
            )?;
        }
        Ok(())
    }

    /// The checks that need no topology, as [`Error::BadValue`] naming the key, so a config loader
    /// can point at the key's `file:line:column` ([`crate::run::locate`]).
    pub fn check_values(&self) -> Result<()> {
        let check = |ok: bool, key: &str, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(Error::BadValue {
                    kind: "network model",
                    name: "[network]".into(),
                    key: key.into(),
                    problem: what.into(),
                })
            }
        };
        check(
            (1..=4096).contains(&self.packet_phits),
            "packet_phits",
            "must be 1..=4096",
        )?;
        check(
            (1..=1 << 16).contains(&self.phit_bytes),
            "phit_bytes",
            "must be 1..=65536",
        )?;
        check(
            (1..=1024).contains(&self.input_queue_packets),
            "input_queue_packets",
            "must be 1..=1024 (virtual cut-through buffers whole packets)",
        )?;
        check(
            (1..=1 << 20).contains(&self.injection_queue_packets),
            "injection_queue_packets",
            "must be 1..=1048576",
        )?;
        check(
            self.output_queue_packets <= 1024,
            "output_queue_packets",
            "must be 0..=1024",
        )?;
        check(
            self.routing_delay <= 1 << 16,
            "routing_delay",
            "must be at most 65536 cycles",
        )?;
        check(
            (1..=16).contains(&self.virtual_channels),
            "virtual_channels",
            "must be 1..=16",
        )?;
        check(
            self.model == Model::Flit || self.routing == Routing::minimal(),
            "model",
            &format!(
                "must be `flit` with routing `{}`: the flow model replays the topology's own \
                 routing function only (routing = \"minimal\"), as the other algorithms choose \
                 paths per packet from queue occupancy",
                self.routing
            ),
        )?;
        for (key, value) in [
            ("allocation_delay", self.allocation_delay),
            ("credit_delay", self.credit_delay),
            ("fly_time", self.fly_time),
        ] {
            check(value <= 1 << 16, key, "must be at most 65536 cycles")?;
        }
        Ok(())
    }
}
