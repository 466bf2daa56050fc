//! Hand-written SVG charts of a campaign (seed 004 Figs. 6/7 and §5): grouped bars of relative time per
//! pattern and size, one bar per network, and a scatter of normalised phi against cost per node.

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

/// Grouped bars: for each (pattern, size) a group of one bar per network, height = relative time.
pub fn relative_bars(a: &Analysis) -> String {
    let nets = a.networks.len().max(1);
    let bar = 8.0;
    let group = bar * nets as f64 + 8.0;
    let (left, top, h) = (50.0, 34.0, 260.0);
    let width = left + group * a.cells.len() as f64 + 200.0;
    let max = a
        .networks
        .iter()
        .flat_map(|n| n.relative.iter().flatten())
        .fold(1.0f64, |m, &v| m.max(v))
        .ceil();
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
    for k in 0..=4 {
        let v = max * f64::from(k) / 4.0;
        let y = top + h - h * v / max;
        let _ = writeln!(
            t,
            r##"<line x1="{left}" x2="{}" y1="{y}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" font-size="10" text-anchor="end">{v:.2}</text>"##,
            left + group * a.cells.len() as f64,
            left - 4.0,
            y + 3.0
        );
    }
    for (ci, c) in a.cells.iter().enumerate() {
        let gx = left + group * ci as f64;
        for (ni, n) in a.networks.iter().enumerate() {
            if let Some(v) = n.relative[ci] {
                let bh = h * v / max;
                let _ = writeln!(
                    t,
                    r#"<rect x="{:.1}" y="{:.1}" width="{bar}" height="{bh:.1}" fill="{}"><title>{} {} {:?}: {v:.3}</title></rect>"#,
                    gx + bar * ni as f64,
                    top + h - bh,
                    COLOURS[ni % COLOURS.len()],
                    esc(&n.label),
                    esc(&c.workload),
                    c.size
                );
            }
        }
        let label = format!(
            "{} {}",
            c.workload,
            c.size.map_or("trace".into(), |s| s.to_string())
        );
        let (lx, ly) = (gx + group / 2.0, top + h + 8.0);
        let _ = writeln!(
            t,
            r#"<text x="{lx:.1}" y="{ly}" font-size="9" transform="rotate(60 {lx:.1} {ly})">{}</text>"#,
            esc(&label)
        );
    }
    legend(
        &mut t,
        a,
        left + group * a.cells.len() as f64 + 20.0,
        top + 10.0,
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
    let xmax = pts.iter().map(|p| p.0).fold(1.0f64, f64::max) * 1.1;
    let ymax = pts.iter().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
    let (left, top, w, h) = (70.0, 20.0, 420.0, 300.0);
    let mut t = String::new();
    let _ = writeln!(
        t,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif">"#,
        left + w + 200.0,
        top + h + 50.0
    );
    // Ticks and grid lines at fifths of each axis.
    for k in 0..=5 {
        let f = f64::from(k) / 5.0;
        let (x, y) = (left + w * f, top + h - h * f);
        let _ = writeln!(
            t,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{}" stroke="#eee"/><text x="{x:.1}" y="{}" font-size="10" text-anchor="middle">{:.0}</text>"##,
            top + h,
            top + h + 13.0,
            xmax * f
        );
        let _ = writeln!(
            t,
            r##"<line x1="{left}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" font-size="10" text-anchor="end">{:.2}</text>"##,
            left + w,
            left - 4.0,
            y + 3.0,
            ymax * f
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
            r#"<circle cx="{px:.1}" cy="{py:.1}" r="5" fill="{}" fill-opacity="0.85"><title>{}: φ {y:.2}, ${x:.0}/node</title></circle>"#,
            COLOURS[i % COLOURS.len()],
            esc(label),
        );
    }
    legend(&mut t, a, left + w + 20.0, top + 10.0);
    t.push_str("</svg>\n");
    t
}
