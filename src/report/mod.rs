//! Reports: the only module that knows output formats (human text, JSON, CSV, SVG); files are
//! written through `crate::output`.

pub mod growth;
pub mod html;
pub mod link_load;
pub mod load_latency;
pub mod progress;
pub mod run;

pub mod axis;
pub mod campaign;
pub mod chart;
pub mod counters;
pub mod svg;
pub mod timeline;

use crate::cost::Cost;
use crate::topology::metrics::{Budget, Metrics};
use crate::topology::{Structure, Topology};
use run::RunReport;
use serde::Serialize;
use std::fmt::Write as _;

/// `topology --json`: the contract's counts plus the spec that built them.
#[derive(Debug, Clone, Serialize)]
pub struct TopologyReport {
    /// Canonical spec.
    pub topology: String,
    /// Counts (nodes, switches, links, switch_links, radix, unplugged_ports).
    #[serde(flatten)]
    pub structure: Structure,
    /// Switch-to-switch degree: min, max, mean.
    #[serde(flatten)]
    pub degrees: crate::topology::Degrees,
    /// Virtual channels per input port the routing uses.
    pub virtual_channels: u32,
    /// Cost of the complete network under the default model (seed 004 §5.1), when it applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// Diameter, average distance and route hop counts, when computed.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Metrics>,
    /// Bisection width (exact closed form, partitioner bound or skipped), when computed.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub bisection: Option<crate::topology::bisection::BisectionReport>,
    /// Worst-case link fault tolerance (seed 000 §5.4), when computed.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub link_faults: Option<crate::topology::link_faults::LinkFaults>,
    /// Switch-to-switch cable counts and lengths in seed 002's machine room (`cost/layout.rs`).
    pub cables: crate::cost::layout::CableReport,
    /// Seed 003's random-link-failure measure, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault_tolerance: Option<crate::topology::fault_tolerance::FaultTolerance>,
}

impl TopologyReport {
    /// Counts the wiring of `topo`.
    pub fn new(topo: &dyn Topology) -> Self {
        let whole = crate::cost::complete(topo);
        TopologyReport {
            topology: topo.spec(),
            structure: crate::topology::structure(topo),
            degrees: crate::topology::degrees(topo),
            virtual_channels: topo.virtual_channels(),
            cost: crate::cost::build(crate::cost::DEFAULT)
                .and_then(|m| m.price(topo, &whole))
                .ok(),
            metrics: None,
            bisection: None,
            link_faults: None,
            cables: crate::cost::layout::SEED002
                .place(topo)
                .report(&whole.switch_links),
            fault_tolerance: None,
        }
    }

    /// Adds the graph metrics of `topo` (exact within `budget`, sampled above it).
    pub fn with_metrics(mut self, topo: &dyn Topology, budget: Budget) -> Self {
        self.metrics = Some(crate::topology::metrics::metrics(topo, budget, 1));
        self
    }

    /// Adds the worst-case link fault tolerance of `topo` (`topology/link_faults.rs`), by maximum flow
    /// up to `max_work` where the family has no closed form.
    pub fn with_link_faults(mut self, topo: &dyn Topology, max_work: u64) -> Self {
        self.link_faults = Some(crate::topology::link_faults::report(topo, max_work));
        self
    }

    /// Adds the bisection width of `topo` (see `topology/bisection.rs`).
    pub fn with_bisection(mut self, topo: &dyn Topology) -> Self {
        self.bisection = Some(crate::topology::bisection::report(topo));
        self
    }

    /// Aligned `key  value` lines.
    pub fn text(&self) -> String {
        let s = &self.structure;
        let cost = self.cost.as_ref().map_or(String::new(), |c| {
            format!(
                "cost              {:.0} ({:.0} per node, {})\n",
                c.total.round(),
                c.per_node.round(),
                c.model
            )
        });
        let routers = s
            .routers
            .map_or(String::new(), |r| format!("routers           {r}\n"));
        let d = &self.degrees;
        format!(
            "topology          {}\nnodes             {}\nswitches          {}\n{routers}links             {}\nswitch_links      {}\nradix             {}\nunplugged_ports   {}\ndegree            {} to {}, mean {:.2}\nvirtual_channels  {}\n{cost}",
            self.topology,
            s.nodes,
            s.switches,
            s.links,
            s.switch_links,
            s.radix,
            s.unplugged_ports,
            d.degree_min,
            d.degree_max,
            d.degree_mean,
            self.virtual_channels
        ) + &self.metrics.as_ref().map_or(String::new(), metrics_text)
            + &self.bisection.as_ref().map_or(String::new(), bisection_text)
            + &self.link_faults.as_ref().map_or(String::new(), link_faults_text)
            + &cables_text(&self.cables)
            + &self.fault_tolerance.as_ref().map_or(String::new(), |f| {
                if f.links == 0 {
                    return "fault_tolerance   no switch-to-switch links to fail\n".into();
                }
                format!(
                    "fault_tolerance   {:.0}% of {} switch links (connected in > half of {} trials)\n",
                    100.0 * f.tolerated,
                    f.links,
                    f.trials
                )
            })
    }
}

/// `text` as one double-quoted CSV field, inner quotes doubled (RFC 4180): labels, specs and link
/// names may hold commas and quotes.
pub(crate) fn csv_field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

fn cables_text(c: &crate::cost::layout::CableReport) -> String {
    format!(
        "cables            {} switch-to-switch, {} inside a cabinet; {:.1} m, mean {:.2} m ({} layout: {} cabinets of {} in {} rows)\n",
        c.cables, c.intra_cabinet, c.total_m, c.mean_m, c.layout, c.cabinets, c.per_cabinet, c.rows
    )
}

fn bisection_text(b: &crate::topology::bisection::BisectionReport) -> String {
    use crate::topology::bisection::{MAX_LINKS, MAX_SWITCHES, Method};
    let sides = b
        .bisection_sides
        .map_or(String::new(), |[a, c]| format!("; {a} + {c} nodes"));
    match (b.bisection_width, b.bisection_method) {
        (Some(w), Method::ClosedForm) => {
            format!("bisection_width   {w} switch links (exact, closed form{sides})\n")
        }
        (Some(w), _) => {
            format!("bisection_width   {w} switch links (upper bound, partitioner{sides})\n")
        }
        (None, _) => format!(
            "bisection_width   not computed (no closed form; the partitioner runs up to {MAX_SWITCHES} switches and {MAX_LINKS} switch links, and needs nodes on both sides of a cut)\n"
        ),
    }
}

fn link_faults_text(f: &crate::topology::link_faults::LinkFaults) -> String {
    use crate::topology::link_faults::Method;
    let how = match f.link_faults_method {
        Method::ClosedForm => "closed form, seed 000 §5.4",
        Method::MaxFlow => "exact, max flow",
        Method::OneSwitch => return "link_faults       none can separate two nodes (all nodes on one switch)\n".into(),
        Method::Skipped => return "link_faults       not computed (no closed form; max flow over its work limit, see --exact)\n".into(),
    };
    match (f.link_faults_tolerated, f.link_faults_to_disconnect) {
        (Some(t), Some(d)) => {
            format!(
                "link_faults       {t} tolerated in the worst case; {d} can disconnect ({how})\n"
            )
        }
        _ => "link_faults       0 tolerated: some nodes are already disconnected\n".into(),
    }
}

fn metrics_text(m: &Metrics) -> String {
    let diameter = m.diameter.map_or("unreachable pairs".to_string(), |d| {
        format!(
            "{d}{}",
            if m.diameter_sampled {
                " (at least; sampled)"
            } else {
                ""
            }
        )
    });
    let average = if m.average_distance_sampled {
        format!(
            "{:.4} ± {:.4} (95%, sampled)",
            m.average_distance, m.average_distance_error
        )
    } else {
        format!("{:.4}", m.average_distance)
    };
    format!(
        "diameter          {diameter}\naverage_distance  {average}\nroute_hops        mean {:.4}, max {}{}\n",
        m.route_hops_mean,
        m.route_hops_max,
        if m.route_hops_sampled {
            " (sampled)"
        } else {
            ""
        }
    )
}

/// `secs` with the unit that keeps 1 to 999 before the point: `8.9 ms`, `1.5 µs`, `12.0 s`.
fn seconds(secs: f64) -> String {
    let (value, unit) = match secs {
        s if s >= 1.0 || s == 0.0 => (s, "s"),
        s if s >= 1e-3 => (s * 1e3, "ms"),
        s if s >= 1e-6 => (s * 1e6, "µs"),
        s => (s * 1e9, "ns"),
    };
    format!("{value:.1} {unit}")
}

/// Human-readable summary of one run.
pub fn run_text(r: &RunReport) -> String {
    let o = &r.outcome;
    let mut t = String::new();
    let _ = writeln!(t, "topology             {} ({} nodes)", r.topology, r.nodes);
    let _ = writeln!(t, "workload             {}", r.workload);
    let _ = writeln!(t, "placement            {} (seed {})", r.placement, r.seed);
    if r.network.model == crate::network::Model::Flow {
        let _ = writeln!(t, "network model        flow (max-min fair flows)");
    }
    let _ = writeln!(t, "completion_cycles    {}", o.completion_cycles);
    if let Some(rt) = &r.real_time {
        let _ = writeln!(
            t,
            "completion time      {} at {} cycles per second",
            seconds(rt.completion_seconds),
            rt.cycles_per_second
        );
    }
    let _ = writeln!(t, "messages             {}", o.messages);
    let _ = writeln!(t, "packets              {}", o.packets);
    let _ = writeln!(t, "phits                {}", o.phits);
    let _ = writeln!(t, "phit_hops            {}", o.phit_hops);
    let _ = writeln!(
        t,
        "message latency      mean {:.1}, max {} cycles",
        o.mean_message_latency, o.max_message_latency
    );
    for (i, j) in r.jobs.iter().enumerate() {
        let _ = writeln!(
            t,
            "job {i:<3}              {} on {} from cycle {}: done at {} ({} cycles; alone {}, slowdown {:.3})",
            j.workload,
            j.placement,
            j.start,
            j.completion_cycles,
            j.duration,
            j.alone_cycles,
            j.slowdown
        );
    }
    let _ = writeln!(
        t,
        "mean hops            {:.2} links per packet",
        o.mean_hops
    );
    for c in &o.link_classes {
        let _ = writeln!(
            t,
            "  {:<18} {:>6} links, {:>10} packets, {:5.1}% busy",
            c.class,
            c.links,
            c.packets,
            100.0 * c.utilisation
        );
    }
    if let Some(hot) = o.busiest_links.first() {
        let _ = writeln!(
            t,
            "busiest link         {} ({:.1}% busy)",
            hot.link,
            100.0 * hot.utilisation
        );
    }
    if let Some(c) = &r.critical_path {
        let _ = writeln!(
            t,
            "critical path        {} cycles to rank {}'s end: compute {} ({:.1}%), latency {} ({:.1}%), contention {} ({:.1}%); {}",
            c.cycles,
            c.last_rank,
            c.compute_cycles,
            100.0 * c.compute_share,
            c.latency_cycles,
            100.0 * c.latency_share,
            c.contention_cycles,
            100.0 * c.contention_share,
            progress::count(c.messages, "messages")
        );
    }
    if let Some(l) = &r.link_load {
        let _ = writeln!(
            t,
            "link load            {} bins of {} cycles, {} classes, top {} links ({})",
            l.bins,
            l.bin_cycles,
            l.classes.len(),
            l.top_links.len(),
            l.top_links_from
        );
    }
    let _ = writeln!(
        t,
        "wall time            {:.3} s ({:.1} M phit-hops/s, {:.1} M node-cycles/s)",
        r.speed.wall_seconds,
        r.speed.phit_hops_per_second / 1e6,
        r.speed.node_cycles_per_second / 1e6
    );
    t
}

/// Pretty JSON of any report.
pub fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("reports serialise")
}

#[cfg(test)]
mod tests {
    /// Each duration gets the unit that keeps its value from 1 to 999.
    #[test]
    fn seconds_pick_their_unit() {
        let cases = [
            (8.9e-3, "8.9 ms"),
            (1.5e-6, "1.5 µs"),
            (12.0, "12.0 s"),
            (3e-9, "3.0 ns"),
            (0.0, "0.0 s"),
        ];
        for (secs, text) in cases {
            assert_eq!(super::seconds(secs), text, "{secs}");
        }
    }
}
