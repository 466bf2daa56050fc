//! `topology dsnf:n=N --grow-to M`: the rows of a DSN-F growth (`topology/dsnf_growth.rs`) as a text
//! table, CSV, and an SVG of diameter and average shortest path length against the nodes added, as
//! seed 002 Fig. 4 plots them.

use crate::topology::dsnf_growth::GrowthStep;
use std::fmt::Write as _;

/// A plotted line: its name, colour and value per step.
type Series = (&'static str, &'static str, fn(&GrowthStep) -> f64);

const HEADER: &str =
    "nodes,added_nodes,p,cables,cables_added,cables_removed,transformed,diameter,aspl,as_built";

/// One line per step, aligned.
pub fn text(rows: &[GrowthStep]) -> String {
    let mut t = format!(
        "{:>7} {:>6} {:>3} {:>7} {:>6} {:>8} {:>8} {:>7}  note\n",
        "nodes", "added", "p", "cables", "+", "-", "diameter", "ASPL"
    );
    for r in rows {
        let note = match (r.transformed, r.as_built) {
            (true, _) => "transformed to DLN-p super-nodes",
            (false, false) => "layer 2 two by two (not as dsnf:n= builds it)",
            _ => "",
        };
        let _ = writeln!(
            t,
            "{:>7} {:>6} {:>3} {:>7} {:>6} {:>8} {:>8} {:>7.3}  {note}",
            r.nodes,
            r.added_nodes,
            r.p,
            r.cables,
            r.cables_added,
            r.cables_removed,
            r.diameter,
            r.aspl
        );
    }
    t
}

/// RFC 4180 CSV with a header line.
pub fn csv(rows: &[GrowthStep]) -> String {
    let mut t = format!("{HEADER}\n");
    for r in rows {
        let _ = writeln!(
            t,
            "{},{},{},{},{},{},{},{},{:.6},{}",
            r.nodes,
            r.added_nodes,
            r.p,
            r.cables,
            r.cables_added,
            r.cables_removed,
            r.transformed,
            r.diameter,
            r.aspl,
            r.as_built
        );
    }
    t
}

/// Diameter and ASPL against nodes added, on one axis of hops from 0 (Fig. 4's layout).
pub fn svg(rows: &[GrowthStep]) -> String {
    let (w, h, left, right, top, bottom) = (640.0, 360.0, 56.0, 150.0, 20.0, 44.0);
    let max_x = f64::from(rows.last().map_or(1, |r| r.added_nodes).max(1));
    let max_y = f64::from(rows.iter().map(|r| r.diameter).max().unwrap_or(1).max(1));
    let top_y = (max_y / 5.0).ceil() * 5.0;
    let x = |v: f64| left + v / max_x * (w - left - right);
    let y = |v: f64| h - bottom - v / top_y * (h - top - bottom);
    let mut t = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = write!(
        t,
        r#"<line x1="{left}" y1="{0}" x2="{1}" y2="{0}" stroke="black"/><line x1="{left}" y1="{top}" x2="{left}" y2="{0}" stroke="black"/>"#,
        h - bottom,
        w - right
    );
    for i in 0..=5 {
        let v = top_y * f64::from(i) / 5.0;
        let _ = write!(
            t,
            r#"<text x="{}" y="{}" text-anchor="end">{v}</text>"#,
            left - 4.0,
            y(v) + 4.0
        );
        // Quarters of the nodes added (Fig. 4's 256-node ticks for 1,024).
        if i == 5 {
            continue;
        }
        let a = max_x * f64::from(i) / 4.0;
        let _ = write!(
            t,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            x(a),
            h - bottom + 14.0,
            a.round()
        );
    }
    let _ = write!(
        t,
        r#"<text x="{}" y="{}" text-anchor="middle">nodes added to dsnf:n={}</text><text x="14" y="{}" transform="rotate(-90 14 {})" text-anchor="middle">hops</text>"#,
        (left + w - right) / 2.0,
        h - 8.0,
        rows.first().map_or(0, |r| r.nodes),
        (top + h - bottom) / 2.0,
        (top + h - bottom) / 2.0
    );
    let series: [Series; 2] = [
        ("diameter", "#e15759", |r| f64::from(r.diameter)),
        ("ASPL", "#4e79a7", |r| r.aspl),
    ];
    for (i, (name, colour, value)) in series.iter().enumerate() {
        let points: Vec<String> = rows
            .iter()
            .map(|r| format!("{:.1},{:.1}", x(f64::from(r.added_nodes)), y(value(r))))
            .collect();
        let ly = top + 16.0 * i as f64 + 6.0;
        let _ = write!(
            t,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{}"/><line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="2"/><text x="{}" y="{}">{name}</text>"#,
            points.join(" "),
            w - right + 10.0,
            w - right + 26.0,
            w - right + 30.0,
            ly + 4.0
        );
    }
    t + "</svg>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_has_a_row_per_step_and_the_svg_both_series() {
        let rows = crate::topology::dsnf_growth::grow(64, 160, 32).unwrap();
        let csv = csv(&rows);
        assert_eq!(csv.lines().count(), 1 + 4, "{csv}");
        assert!(csv.starts_with(HEADER));
        assert!(
            csv.lines().last().unwrap().starts_with("160,96,5,"),
            "{csv}"
        );
        let svg = svg(&rows);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(text(&rows).contains("transformed"));
    }
}
