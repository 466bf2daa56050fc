//! Load-latency outputs: a text table, CSV, and an SVG plot of mean latency against accepted load,
//! one polyline per curve, saturated points drawn hollow and clamped to the top of the plot; and
//! [`Curve`], what a sweep measured, the data they are made of.

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
        "topology,traffic,routing,offered,generated,accepted,mean_latency,max_latency,mean_hops,packets_measured,saturated\n",
    );
    for c in curves {
        for p in &c.points {
            let _ = writeln!(
                t,
                "{},{},{},{},{},{},{},{},{},{},{}",
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
                p.saturated
            );
        }
    }
    t
}

const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// SVG plot: x = accepted load (phits/node/cycle), y = mean latency (cycles).
pub fn svg(curves: &[Curve]) -> String {
    let (w, h, left, bottom, top, right) = (720.0, 480.0, 70.0, 50.0, 30.0, 220.0);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let points = curves.iter().flat_map(|c| c.points.iter());
    let max_x = points
        .clone()
        .map(|p| p.accepted.max(p.offered))
        .fold(0.0f64, f64::max)
        .max(0.05);
    // Scale to the unsaturated points; saturated ones (latency growing without bound) sit on the top edge.
    let stable = points
        .clone()
        .filter(|p| !p.saturated)
        .map(|p| p.mean_latency);
    let max_y = stable.fold(0.0f64, f64::max).max(1.0) * 1.5;
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
    for i in 0..=5 {
        let (x, y) = (max_x * i as f64 / 5.0, max_y * i as f64 / 5.0);
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{x:.2}</text>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{y:.0}</text>",
            sx(x),
            top + ph + 18.0,
            left - 6.0,
            sy(y) + 4.0
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
            let _ = writeln!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" stroke=\"{colour}\" fill=\"{fill}\"/>",
                sx(p.accepted),
                sy(p.mean_latency)
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{colour}\">{} ({}, {})</text>",
            left + pw + 12.0,
            top + 16.0 + 18.0 * i as f64,
            c.topology,
            c.traffic,
            c.routing.name()
        );
    }
    s.push_str("</svg>\n");
    s
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
