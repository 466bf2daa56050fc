//! Link load over time as files: per-class CSV, the top links' CSV, and an SVG heat map (time x
//! class, then time x top link), from [`LinkLoadSeries`].

use super::html::esc;
use crate::error::Result;
use crate::network::load_bins::LinkLoadSeries;
use std::fmt::Write as _;
use std::path::Path;

/// One line per (bin, class): `bin,start_cycle,class,links,phits,utilisation`.
pub fn classes_csv(s: &LinkLoadSeries) -> String {
    let mut t = String::from("bin,start_cycle,class,links,phits,utilisation\n");
    for b in 0..s.bins {
        for c in &s.classes {
            let _ = writeln!(
                t,
                "{b},{},{},{},{},{:.6}",
                b as u64 * s.bin_cycles,
                super::csv_field(&c.class),
                c.links,
                c.phits.get(b).copied().unwrap_or(0),
                c.utilisation.get(b).copied().unwrap_or(0.0)
            );
        }
    }
    t
}

/// One line per (bin, top link): `bin,start_cycle,link,class,utilisation`.
pub fn top_links_csv(s: &LinkLoadSeries) -> String {
    let mut t = String::from("bin,start_cycle,link,class,utilisation\n");
    for b in 0..s.bins {
        for l in &s.top_links {
            let _ = writeln!(
                t,
                "{b},{},{},{},{:.6}",
                b as u64 * s.bin_cycles,
                super::csv_field(&l.link),
                super::csv_field(&l.class),
                l.utilisation.get(b).copied().unwrap_or(0.0)
            );
        }
    }
    t
}

/// A colour from white (idle) through orange to dark red (always busy).
fn heat(u: f64) -> String {
    let u = u.clamp(0.0, 1.0);
    let (r, g, b) = if u < 0.5 {
        let k = u / 0.5;
        (255.0, 255.0 - 90.0 * k, 255.0 - 200.0 * k)
    } else {
        let k = (u - 0.5) / 0.5;
        (255.0 - 115.0 * k, 165.0 - 165.0 * k, 55.0 - 55.0 * k)
    };
    format!("#{:02x}{:02x}{:02x}", r as u8, g as u8, b as u8)
}

/// Heat map: one row per class (then one per top link), one column per time bin, colour = busy
/// fraction; hovering a cell shows its value.
pub fn heatmap_svg(s: &LinkLoadSeries) -> String {
    let rows: Vec<(String, &[f64])> = s
        .classes
        .iter()
        .map(|c| {
            (
                format!("{} ({} links)", c.class, c.links),
                &c.utilisation[..],
            )
        })
        .chain(
            s.top_links
                .iter()
                .map(|l| (format!("top: {}", l.link), &l.utilisation[..])),
        )
        .collect();
    let (left, top, plot_w, row_h) = (250.0, 34.0, 640.0, 18.0);
    let gap = if s.top_links.is_empty() { 0.0 } else { 10.0 };
    let bins = s.bins.max(1);
    let cell_w = plot_w / bins as f64;
    let plot_h = row_h * rows.len() as f64 + gap;
    let height = top + plot_h + 70.0;
    let width = left + plot_w + 20.0;
    let mut t = String::new();
    let _ = writeln!(
        t,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = writeln!(
        t,
        r#"<text x="{left}" y="16" font-size="13">Link utilisation over time ({} bins of {} cycles)</text>"#,
        s.bins, s.bin_cycles
    );
    for (i, (name, values)) in rows.iter().enumerate() {
        let extra = if i >= s.classes.len() { gap } else { 0.0 };
        let y = top + row_h * i as f64 + extra;
        let _ = writeln!(
            t,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text>"#,
            left - 6.0,
            y + row_h * 0.7,
            esc(name)
        );
        for (b, &u) in values.iter().enumerate().take(bins) {
            let _ = writeln!(
                t,
                r#"<rect x="{:.2}" y="{y:.1}" width="{:.2}" height="{}" fill="{}"><title>{} cycles {}-{}: {:.1}% busy</title></rect>"#,
                left + cell_w * b as f64,
                cell_w + 0.3,
                row_h - 1.0,
                heat(u),
                esc(name),
                b as u64 * s.bin_cycles,
                (b as u64 + 1) * s.bin_cycles,
                100.0 * u
            );
        }
    }
    let axis_y = top + plot_h + 4.0;
    for k in 0..=4 {
        let x = left + plot_w * f64::from(k) / 4.0;
        let cycle = (s.bins as u64 * s.bin_cycles) as f64 * f64::from(k) / 4.0;
        let _ = writeln!(
            t,
            r##"<line x1="{x}" x2="{x}" y1="{top}" y2="{}" stroke="#888" stroke-width="0.5"/><text x="{x}" y="{}" font-size="10" text-anchor="middle">{cycle:.0}</text>"##,
            axis_y,
            axis_y + 12.0
        );
    }
    let _ = writeln!(
        t,
        r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">simulated cycle</text>"#,
        left + plot_w / 2.0,
        axis_y + 28.0
    );
    // Colour scale.
    let ly = axis_y + 38.0;
    for k in 0..=10 {
        let u = f64::from(k) / 10.0;
        let _ = writeln!(
            t,
            r##"<rect x="{}" y="{ly}" width="20" height="10" fill="{}" stroke="#ccc" stroke-width="0.3"/>"##,
            left + 20.0 * f64::from(k),
            heat(u)
        );
    }
    let _ = writeln!(
        t,
        r#"<text x="{}" y="{}" font-size="10">0% to 100% busy</text>"#,
        left + 230.0,
        ly + 9.0
    );
    t.push_str("</svg>\n");
    t
}

/// Writes `link_load.csv`, `top_links.csv` and `link_load.svg` into `dir` as one set: all three
/// replaced, or (on a failure such as a full disk) none.
pub fn write_all(s: &LinkLoadSeries, dir: &Path) -> Result<()> {
    crate::output::write_set(
        dir,
        &[
            ("link_load.csv", classes_csv(s).as_bytes()),
            ("top_links.csv", top_links_csv(s).as_bytes()),
            ("link_load.svg", heatmap_svg(s).as_bytes()),
        ],
    )
}
