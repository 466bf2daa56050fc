//! Load-latency outputs: a text table, CSV, and an SVG plot of mean latency against accepted load,
//! one polyline per curve, unstable points drawn hollow, points above the axis marked with their
//! value; and [`Curve`], what a sweep measured, the data they are made of.

use super::axis;
use super::html::esc;
use crate::network::{LoadPoint, Routing};
use serde::Serialize;
use std::fmt::Write as _;

/// One curve: a topology under the traffic pattern, a point per load.
#[derive(Debug, Clone, Serialize)]
pub struct Curve {
    /// Canonical topology spec.
    pub topology: String,
    /// Canonical traffic spec.
    pub traffic: String,
    /// Routing algorithm.
    pub routing: Routing,
    /// Points in increasing offered load, up to and including the first unstable one.
    pub points: Vec<LoadPoint>,
    /// The highest accepted load of its points, in phits per node per cycle.
    pub peak_accepted: f64,
    /// The whole network's price under the sweep's cost model, when the model prices this family.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<crate::cost::Cost>,
    /// `peak_accepted` per dollar of `cost`: seed 000 Table 8's throughput/cost, in
    /// flits/cycle/node/$ (a flit is a phit here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_per_dollar: Option<f64>,
}

impl Curve {
    /// A curve of `points`, with its peak accepted load and, given the network's price, that load
    /// per dollar.
    pub fn new(
        topology: String,
        traffic: String,
        routing: Routing,
        points: Vec<LoadPoint>,
        cost: Option<crate::cost::Cost>,
    ) -> Curve {
        let peak_accepted = points.iter().map(|p| p.accepted).fold(0.0, f64::max);
        let throughput_per_dollar = cost
            .as_ref()
            .filter(|c| c.total > 0.0)
            .map(|c| peak_accepted / c.total);
        Curve {
            topology,
            traffic,
            routing,
            points,
            peak_accepted,
            cost,
            throughput_per_dollar,
        }
    }
}

/// Aligned text table, one block per curve.
pub fn text(curves: &[Curve]) -> String {
    let mut t = String::new();
    for c in curves {
        let _ = writeln!(
            t,
            "{} under {}, {} routing",
            c.topology,
            c.traffic,
            c.routing.name()
        );
        let _ = writeln!(
            t,
            "  offered  accepted  latency  max-lat  hops   packets  stability"
        );
        for p in &c.points {
            let _ = writeln!(
                t,
                "  {:7.3}  {:8.4}  {:7.1}  {:7}  {:5.2}  {:8}  {}",
                p.offered,
                p.accepted,
                p.mean_latency,
                p.max_latency,
                p.mean_hops,
                p.packets_measured,
                if p.saturated { "unstable" } else { "" }
            );
        }
        let _ = write!(t, "  peak accepted {:.4}", c.peak_accepted);
        if let (Some(cost), Some(per)) = (&c.cost, c.throughput_per_dollar) {
            let _ = write!(
                t,
                "; network ${} ({}): {per:.3e} per $",
                super::axis::number(cost.total, 0),
                cost.model
            );
        }
        t.push('\n');
    }
    t
}

/// An offered load as the user wrote it: the range's arithmetic (0.1 + 2 x 0.1 is
/// 0.30000000000000004) rounded to twelve decimals, far above that noise (about 1e-16).
fn load(x: f64) -> f64 {
    let rounded = (x * 1e12).round() / 1e12;
    if rounded.is_finite() { rounded } else { x }
}

/// CSV with one row per point.
pub fn csv(curves: &[Curve]) -> String {
    let mut t = String::from(
        "topology,traffic,routing,offered,generated,accepted,mean_latency,max_latency,mean_hops,packets_measured,saturated,conflicts_per_cycle,received_per_cycle,received_ratio,contested_per_cycle\n",
    );
    for c in curves {
        for p in &c.points {
            let _ = writeln!(
                t,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                super::csv_field(&c.topology),
                super::csv_field(&c.traffic),
                super::csv_field(c.routing.name()),
                load(p.offered),
                p.generated,
                p.accepted,
                p.mean_latency,
                p.max_latency,
                p.mean_hops,
                p.packets_measured,
                p.saturated,
                p.conflicts_per_cycle,
                p.received_per_cycle,
                p.received_ratio,
                p.contested_per_cycle
            );
        }
    }
    t
}

const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// SVG plot: x = accepted load (phits/node/cycle), y = mean latency (cycles). The y axis is scaled to
/// the stable points; a point above it (an unstable one, whose latency grows without bound) is drawn
/// at the top edge as a triangle pointing up, with its latency written beside it.
pub fn svg(curves: &[Curve]) -> String {
    let (w, h, left, bottom, top, right) = (900.0, 480.0, 70.0, 50.0, 30.0, 400.0);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let points = curves.iter().flat_map(|c| c.points.iter());
    let xs = axis::ticks(
        0.0,
        points
            .clone()
            .map(|p| p.accepted.max(p.offered))
            .fold(0.0f64, f64::max)
            .max(0.05),
        5,
    );
    let stable = points
        .clone()
        .filter(|p| !p.saturated)
        .map(|p| p.mean_latency);
    let ys = axis::ticks(0.0, stable.fold(0.0f64, f64::max).max(1.0) * 1.5, 5);
    let (max_x, max_y) = (xs.high(), ys.high());
    let sx = |x: f64| left + x / max_x * pw;
    let sy = |y: f64| top + ph - y.min(max_y) / max_y * ph;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    let _ = writeln!(
        s,
        "<path d=\"M{left},{top} V{} H{}\" stroke=\"black\" fill=\"none\"/>",
        top + ph,
        left + pw
    );
    for &x in &xs.values {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            sx(x),
            top + ph + 18.0,
            xs.label(x)
        );
    }
    for &y in &ys.values {
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#eee\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left + pw,
            sy(y),
            sy(y),
            left - 6.0,
            sy(y) + 4.0,
            ys.label(y)
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">accepted load (phits/node/cycle)</text>\n<text x=\"16\" y=\"{:.1}\" transform=\"rotate(-90 16 {:.1})\" text-anchor=\"middle\">mean latency (cycles)</text>",
        left + pw / 2.0,
        h - 10.0,
        top + ph / 2.0,
        top + ph / 2.0
    );
    // Points above the axis: (x, colour, latency), labelled once every curve is drawn.
    let mut clamped: Vec<(f64, &str, f64)> = Vec::new();
    for (i, c) in curves.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let path: Vec<String> = c
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", sx(p.accepted), sy(p.mean_latency)))
            .collect();
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" stroke=\"{colour}\" fill=\"none\" stroke-width=\"2\"/>",
            path.join(" ")
        );
        for p in &c.points {
            let fill = if p.saturated { "white" } else { colour };
            let (x, y) = (sx(p.accepted), sy(p.mean_latency));
            if p.mean_latency > max_y {
                clamped.push((x, colour, p.mean_latency));
                let _ = writeln!(
                    s,
                    "<path class=\"clamped\" d=\"M{x:.1},{:.1} l5,9 h-10 z\" stroke=\"{colour}\" fill=\"{fill}\"><title>latency {:.1} cycles, above the axis</title></path>",
                    y - 4.0,
                    p.mean_latency
                );
            } else {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3.5\" stroke=\"{colour}\" fill=\"{fill}\"/>"
                );
            }
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{colour}\">{} ({}, {})</text>",
            left + pw + 12.0,
            top + 16.0 + 18.0 * i as f64,
            esc(&c.topology),
            esc(&c.traffic),
            esc(c.routing.name())
        );
    }
    let ky = top + 16.0 + 18.0 * curves.len() as f64 + 8.0;
    let _ = writeln!(
        s,
        "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" stroke=\"#555\" fill=\"white\"/><text x=\"{:.1}\" y=\"{ky:.1}\" font-size=\"11\">unstable (latency a lower bound)</text>",
        left + pw + 16.0,
        ky - 4.0,
        left + pw + 26.0
    );
    clamp_labels(&mut s, &mut clamped, top);
    if !clamped.is_empty() {
        let _ = writeln!(
            s,
            "<path d=\"M{:.1},{:.1} l5,9 h-10 z\" stroke=\"#555\" fill=\"white\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">above the axis: latency beside it</text>",
            left + pw + 16.0,
            ky + 6.0,
            left + pw + 26.0,
            ky + 16.0
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Writes the latency of each point above the axis beside its mark at the top edge, in rows below
/// the edge so that labels of points close together do not overlap.
fn clamp_labels(s: &mut String, clamped: &mut [(f64, &str, f64)], top: f64) {
    clamped.sort_by(|a, b| a.0.total_cmp(&b.0));
    // The right end of the last label in each row.
    let mut rows: Vec<f64> = Vec::new();
    for &(x, colour, latency) in clamped.iter() {
        let text = axis::number(latency, 0);
        let (start, width) = (x + 7.0, 7.0 * text.len() as f64);
        let row = match rows.iter().position(|&end| end + 3.0 <= start) {
            Some(r) => r,
            None => {
                rows.push(f64::NEG_INFINITY);
                rows.len() - 1
            }
        };
        rows[row] = start + width;
        let _ = writeln!(
            s,
            "<text x=\"{start:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"{colour}\">{text}</text>",
            top + 12.0 + 12.0 * row as f64
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_hold_commas_and_loads_read_as_written() {
        use crate::report::csv_field;
        assert_eq!(
            csv_field("lbr:period=8,valiant=3"),
            "\"lbr:period=8,valiant=3\""
        );
        assert_eq!(csv_field("a\"b"), "\"a\"\"b\"");
        assert_eq!(load(0.1 + 0.1 + 0.1).to_string(), "0.3");
        assert_eq!(load(0.05).to_string(), "0.05");
    }
}

#[cfg(test)]
mod plot_tests {
    use super::*;

    fn point(offered: f64, latency: f64, saturated: bool) -> LoadPoint {
        LoadPoint {
            offered,
            generated: offered,
            accepted: offered.min(0.42),
            packets_measured: 12_345,
            mean_latency: latency,
            max_latency: latency as u64 * 2,
            mean_hops: 3.5,
            hop_histogram: Vec::new(),
            saturated,
            sample_latencies: Vec::new(),
            cycles: 10_000,
            link_classes: Vec::new(),
            conflicts_per_cycle: 0.0,
            contested_per_cycle: 0.0,
            received_per_cycle: 0.0,
            received_ratio: 0.0,
        }
    }

    #[test]
    fn a_point_above_the_axis_is_marked_with_its_value() {
        // Stable up to 52.7 cycles: the axis ends at 80 (52.7 x 1.5 = 79 rounded up to a tick of 20);
        // the unstable point's 116 cycles lie above it.
        let curves = [Curve::new(
            "fat-tree:k=4,n=2".into(),
            "uniform".into(),
            Routing::minimal(),
            vec![
                point(0.1, 20.0, false),
                point(0.3, 52.7, false),
                point(0.5, 116.0, true),
            ],
            None,
        )];
        let svg = svg(&curves);
        for tick in ["0", "20", "40", "60", "80"] {
            assert!(
                svg.contains(&format!("text-anchor=\"end\">{tick}</text>")),
                "{tick}"
            );
        }
        for tick in ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5"] {
            assert!(
                svg.contains(&format!("text-anchor=\"middle\">{tick}</text>")),
                "{tick}"
            );
        }
        assert_eq!(svg.matches("class=\"clamped\"").count(), 1);
        assert!(svg.contains("<title>latency 116.0 cycles, above the axis</title>"));
        assert!(svg.contains(">116</text>"));
        assert!(svg.contains("above the axis: latency beside it"));
        // Two stable points drawn as circles, and the legend's hollow one.
        assert_eq!(svg.matches("<circle").count(), 3);
    }

    #[test]
    fn no_clamp_mark_when_every_point_fits() {
        let curves = [Curve::new(
            "mesh:k=4,n=2".into(),
            "uniform".into(),
            Routing::minimal(),
            vec![point(0.1, 20.0, false), point(0.2, 25.0, true)],
            None,
        )];
        let svg = svg(&curves);
        assert!(!svg.contains("clamped") && !svg.contains("above the axis"));
    }

    #[test]
    fn labels_of_points_above_the_axis_at_one_load_do_not_overlap() {
        let curve = |name: &str, latency| {
            Curve::new(
                name.into(),
                "uniform".into(),
                Routing::minimal(),
                vec![point(0.1, 20.0, false), point(0.5, latency, true)],
                None,
            )
        };
        // Both unstable points are at accepted load 0.42: their labels take two rows below the edge.
        let svg = svg(&[curve("a", 242.0), curve("b", 1294.0)]);
        assert!(svg.contains("y=\"42.0\" font-size=\"10\" fill=\"#1f77b4\">242</text>"));
        assert!(svg.contains("y=\"54.0\" font-size=\"10\" fill=\"#d62728\">1,294</text>"));
    }

    /// Seed 000 Table 8's throughput/cost is the peak accepted load over the total price: 0.47
    /// flits/cycle/node on a $235 M network is 2.0e-9 per dollar.
    #[test]
    fn throughput_per_dollar_is_the_peak_over_the_price() {
        let cost = crate::cost::Cost {
            model: "table8".into(),
            total: 235e6,
            per_node: 235e6 / 65536.0,
            switches: 0,
            links: 0,
            nodes: 65536,
            power_watts: None,
        };
        let mut low = point(0.3, 30.0, false);
        low.accepted = 0.30;
        let mut peak = point(0.5, 90.0, false);
        peak.accepted = 0.47;
        let mut past = point(0.7, 400.0, true);
        past.accepted = 0.44;
        let c = Curve::new(
            "kns".into(),
            "uniform".into(),
            Routing::minimal(),
            vec![low, peak, past],
            Some(cost),
        );
        assert_eq!(c.peak_accepted, 0.47);
        let per = c.throughput_per_dollar.unwrap();
        assert!((per - 2.0e-9).abs() < 1e-12, "{per}");
        assert!(
            text(&[c])
                .contains("peak accepted 0.4700; network $235,000,000 (table8): 2.000e-9 per $")
        );
    }
}
