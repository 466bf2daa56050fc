//! Hand-written SVG charts of a campaign (seed 004 Figs. 6/7 and §5): grouped bars of relative time per
//! pattern and size, one bar per network, and a scatter of normalised phi against cost per node.

use super::axis;
use crate::campaign::analysis::Analysis;
use std::fmt::Write as _;

const COLOURS: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn legend(t: &mut String, a: &Analysis, x: f64, y: f64) {
    for (i, n) in a.networks.iter().enumerate() {
        let yy = y + 16.0 * i as f64;
        let _ = writeln!(
            t,
            r#"<rect x="{x}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{}" font-size="11">{}</text>"#,
            yy - 9.0,
            COLOURS[i % COLOURS.len()],
            x + 14.0,
            yy,
            esc(&n.label)
        );
    }
}

/// The HTML page's content width, in pixels.
pub const PAGE_WIDTH: f64 = 1130.0;

/// How much the HTML page enlarges a chart narrower than the page (their text is drawn at 9-13 px).
pub const ZOOM: f64 = 1.4;

/// The y axis of a chart `plot` = (left, width) pixels: at each tick a light grid line across the
/// plot and its label (`y` maps a value to its pixel row), and `name` = (text, row) written upwards.
pub(super) fn y_axis(
    t: &mut String,
    ticks: &axis::Ticks,
    plot: (f64, f64),
    y: impl Fn(f64) -> f64,
    name: (&str, f64),
) {
    let ((left, plot_w), (name, mid)) = (plot, name);
    for &v in &ticks.values {
        let _ = writeln!(
            t,
            r##"<line x1="{left}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" font-size="10" text-anchor="end">{}</text>"##,
            left + plot_w,
            left - 4.0,
            y(v) + 3.0,
            ticks.label(v),
            y = y(v)
        );
    }
    let _ = writeln!(
        t,
        r#"<text x="14" y="{mid}" font-size="11" text-anchor="middle" transform="rotate(-90 14 {mid})">{name}</text>"#
    );
}

/// Grouped bars: for each (pattern, size) a group of one bar per network, height = relative time;
/// a dashed line marks the reference's 1.0. Drawn to fill the HTML page's width once enlarged by
/// [`ZOOM`] (bars at least 2 px wide: a campaign with more bars is wider, and shrinks to the page).
pub fn relative_bars(a: &Analysis) -> String {
    let nets = a.networks.len().max(1);
    let cells = a.cells.len().max(1);
    let (left, top, h, legend_w) = (64.0, 34.0, 260.0, 170.0);
    let page = (PAGE_WIDTH / ZOOM).floor();
    let group = ((page - left - legend_w) / cells as f64).max(2.0 * nets as f64 + 4.0);
    // Bars fill four fifths of a group; the rest separates the groups.
    let bar = group * 0.8 / nets as f64;
    let plot_w = group * cells as f64;
    let width = (left + plot_w + legend_w).max(page);
    let max = a
        .networks
        .iter()
        .flat_map(|n| n.relative.iter().flatten())
        .fold(1.0f64, |m, &v| m.max(v));
    let ticks = axis::ticks(0.0, max, 5);
    let y = |v: f64| top + h - h * v / ticks.high();
    let mut t = String::new();
    let _ = writeln!(
        t,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{}" font-family="sans-serif">"#,
        top + h + 90.0
    );
    let _ = writeln!(
        t,
        r#"<text x="{left}" y="14" font-size="12">Relative time (reference {}), per pattern and message size</text>"#,
        esc(&a.reference)
    );
    let name = ("completion time / reference's", top + h / 2.0);
    y_axis(&mut t, &ticks, (left, plot_w), y, name);
    for (ci, c) in a.cells.iter().enumerate() {
        let gx = left + group * ci as f64 + group * 0.1;
        for (ni, n) in a.networks.iter().enumerate() {
            if let Some(v) = n.relative[ci] {
                let bh = h * v / ticks.high();
                let _ = writeln!(
                    t,
                    r#"<rect x="{:.1}" y="{:.1}" width="{bar:.2}" height="{bh:.1}" fill="{}"><title>{} {} {}: {v:.3}</title></rect>"#,
                    gx + bar * ni as f64,
                    top + h - bh,
                    COLOURS[ni % COLOURS.len()],
                    esc(&n.label),
                    esc(&c.workload),
                    c.size.map_or("trace".into(), axis::bytes)
                );
            }
        }
        let label = format!(
            "{} {}",
            c.workload,
            c.size.map_or("trace".into(), axis::bytes)
        );
        let (lx, ly) = (left + group * ci as f64 + group / 2.0, top + h + 8.0);
        let _ = writeln!(
            t,
            r#"<text x="{lx:.1}" y="{ly}" font-size="9" transform="rotate(60 {lx:.1} {ly})">{}</text>"#,
            esc(&label)
        );
    }
    // The reference's level, drawn over the bars, with its own legend entry (and its value on the
    // axis when no tick has it).
    let y1 = y(1.0);
    let _ = writeln!(
        t,
        r##"<line x1="{left}" x2="{}" y1="{y1:.1}" y2="{y1:.1}" stroke="#222" stroke-dasharray="5 3"/>"##,
        left + plot_w
    );
    if !ticks.values.iter().any(|v| (v - 1.0).abs() < 1e-9) {
        let _ = writeln!(
            t,
            r#"<text x="{}" y="{:.1}" font-size="10" text-anchor="end">1</text>"#,
            left - 4.0,
            y1 + 3.0
        );
    }
    let (lx, ly) = (left + plot_w + 20.0, top + 10.0);
    legend(&mut t, a, lx, ly);
    let ry = ly + 16.0 * a.networks.len() as f64 - 4.0;
    let _ = writeln!(
        t,
        r##"<line x1="{lx}" x2="{}" y1="{ry}" y2="{ry}" stroke="#222" stroke-dasharray="5 3"/><text x="{}" y="{}" font-size="11">reference = 1</text>"##,
        lx + 10.0,
        lx + 14.0,
        ry + 4.0
    );
    t.push_str("</svg>\n");
    t
}

/// Scatter: x = cost per node (used resources), y = normalised phi; one labelled point per network.
pub fn phi_cost_scatter(a: &Analysis) -> String {
    // (cost, phi, label, colour index: the network's, as the legend lists them).
    let pts: Vec<(f64, f64, &str, usize)> = a
        .networks
        .iter()
        .enumerate()
        .filter_map(|(k, n)| {
            n.index_used
                .map(|i| (n.cost_used.per_node, i.normalised_phi, n.label.as_str(), k))
        })
        .collect();
    let xs = axis::ticks(
        0.0,
        pts.iter().map(|p| p.0).fold(1.0f64, f64::max) * 1.05,
        5,
    );
    let ys = axis::ticks(
        0.0,
        pts.iter().map(|p| p.1).fold(1.0f64, f64::max) * 1.05,
        5,
    );
    let (xmax, ymax) = (xs.high(), ys.high());
    let (left, top, w, h) = (70.0, 20.0, 420.0, 300.0);
    let mut t = String::new();
    let _ = writeln!(
        t,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif">"#,
        left + w + 200.0,
        top + h + 50.0
    );
    for &v in &xs.values {
        let x = left + w * v / xmax;
        let _ = writeln!(
            t,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{}" stroke="#eee"/><text x="{x:.1}" y="{}" font-size="10" text-anchor="middle">{}</text>"##,
            top + h,
            top + h + 13.0,
            xs.label(v)
        );
    }
    for &v in &ys.values {
        let y = top + h - h * v / ymax;
        let _ = writeln!(
            t,
            r##"<line x1="{left}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" font-size="10" text-anchor="end">{}</text>"##,
            left + w,
            left - 4.0,
            y + 3.0,
            ys.label(v)
        );
    }
    let _ = writeln!(
        t,
        r#"<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        t,
        r#"<text x="{}" y="{}" font-size="12" text-anchor="middle">cost per node, used resources ($)</text>"#,
        left + w / 2.0,
        top + h + 35.0
    );
    let _ = writeln!(
        t,
        r#"<text x="14" y="{}" font-size="12" transform="rotate(-90 14 {})" text-anchor="middle">normalised φ</text>"#,
        top + h / 2.0,
        top + h / 2.0
    );
    for &(x, y, label, i) in &pts {
        let px = left + w * x / xmax;
        let py = top + h - h * y / ymax;
        let _ = writeln!(
            t,
            r#"<circle cx="{px:.1}" cy="{py:.1}" r="5" fill="{}" fill-opacity="0.85"><title>{}: φ {y:.2}, ${}/node</title></circle>"#,
            COLOURS[i % COLOURS.len()],
            esc(label),
            axis::number(x, 0),
        );
    }
    legend(&mut t, a, left + w + 20.0, top + 10.0);
    t.push_str("</svg>\n");
    t
}
