//! Link load over time as files: per-class CSV, the top links' CSV, and an SVG heat map (time x
//! class, then time x top link), from [`LinkLoadSeries`].

use super::axis;
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

/// A colour from white (`u` = 0) through orange to dark red (`u` = 1, the top of the scale).
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

/// A colour scale of the heat map: 0 to the busiest bin of its rows rounded up to a tick (1-2-5
/// steps), so that links 2% busy are not drawn almost white on a 0-100% scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// The scale's ticks; the last is its top.
    pub ticks: axis::Ticks,
    /// The busy fraction of the busiest bin of its rows.
    pub busiest: f64,
}

/// The scale of some rows of busy fractions.
pub fn scale<'a>(rows: impl Iterator<Item = &'a [f64]>) -> Scale {
    let busiest = rows.flatten().fold(0.0f64, |m, &u| m.max(u));
    let top = if busiest > 0.0 { busiest.min(1.0) } else { 1.0 };
    Scale {
        ticks: axis::ticks(0.0, top, 4),
        busiest,
    }
}

/// A legend entry: the colour ramp of `s` at (`x`, `y`), labelled at its ticks, and what it scales.
fn ramp(t: &mut String, x: f64, y: f64, s: &Scale, what: &str) {
    let (w, steps) = (220.0, 20);
    for k in 0..steps {
        let _ = writeln!(
            t,
            r#"<rect x="{:.1}" y="{y}" width="11.5" height="10" fill="{}"/>"#,
            x + w * f64::from(k) / f64::from(steps),
            heat((f64::from(k) + 0.5) / f64::from(steps))
        );
    }
    let _ = writeln!(
        t,
        r##"<rect x="{x}" y="{y}" width="{w}" height="10" fill="none" stroke="#999" stroke-width="0.5"/>"##
    );
    for &u in &s.ticks.values {
        let _ = writeln!(
            t,
            r#"<text x="{:.1}" y="{}" font-size="9" text-anchor="middle">{}</text>"#,
            x + w * u / s.ticks.high(),
            y + 19.0,
            s.ticks.percent(u)
        );
    }
    let _ = writeln!(
        t,
        r#"<text x="{}" y="{}" font-size="10">{what}: colour scale 0-{} busy (busiest bin {:.2}%)</text>"#,
        x + w + 14.0,
        y + 9.0,
        s.ticks.percent(s.ticks.high()),
        100.0 * s.busiest
    );
}

/// Heat map: one row per class (then one per top link), one column per time bin, colour = busy
/// fraction. The classes' rows and the top links' rows each have their own scale, from 0 to their
/// busiest bin (a link class averages over its links, so its rows are far less busy than the busiest
/// links'); the legend states both. Hovering a cell shows its value.
pub fn heatmap_svg(s: &LinkLoadSeries) -> String {
    let scales = [
        scale(s.classes.iter().map(|c| &c.utilisation[..])),
        scale(s.top_links.iter().map(|l| &l.utilisation[..])),
    ];
    let rows: Vec<(String, &[f64])> = s
        .classes
        .iter()
        .map(|c| {
            (
                format!("{} ({} links)", c.class, axis::number(c.links as f64, 0)),
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
    let height = top + plot_h + 84.0 + if s.top_links.is_empty() { 0.0 } else { 26.0 };
    let width = left + plot_w + 20.0;
    let mut t = String::new();
    let _ = writeln!(
        t,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = writeln!(
        t,
        r#"<text x="{left}" y="16" font-size="13">Link utilisation over time ({} bins of {} cycles)</text>"#,
        axis::number(s.bins as f64, 0),
        axis::number(s.bin_cycles as f64, 0)
    );
    for (i, (name, values)) in rows.iter().enumerate() {
        let section = usize::from(i >= s.classes.len());
        let extra = gap * section as f64;
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
                r#"<rect x="{:.2}" y="{y:.1}" width="{:.2}" height="{}" fill="{}"><title>{} cycles {}-{}: {:.2}% busy</title></rect>"#,
                left + cell_w * b as f64,
                cell_w + 0.3,
                row_h - 1.0,
                heat(u / scales[section].ticks.high()),
                esc(name),
                axis::number((b as u64 * s.bin_cycles) as f64, 0),
                axis::number(((b as u64 + 1) * s.bin_cycles) as f64, 0),
                100.0 * u
            );
        }
    }
    let axis_y = top + plot_h + 4.0;
    let span = (bins as u64 * s.bin_cycles).max(1) as f64;
    cycle_axis(&mut t, (left, plot_w), (top, axis_y), span);
    // The colour scales, one per section.
    let ly = axis_y + 38.0;
    ramp(&mut t, left, ly, &scales[0], "link classes");
    if !s.top_links.is_empty() {
        ramp(&mut t, left, ly + 26.0, &scales[1], "busiest links");
    }
    t.push_str("</svg>\n");
    t
}

/// The time axis of a chart of time bins spanning `span` cycles over `x` = (left, width) pixels:
/// ticks at 1-2-5 steps of cycles within the bins drawn, each a thin line from `y` = (top, axis) down
/// to its label, and the axis's name below.
pub(super) fn cycle_axis(t: &mut String, x: (f64, f64), y: (f64, f64), span: f64) {
    let ((left, plot_w), (top, axis_y)) = (x, y);
    let cycles = axis::ticks(0.0, span, 5);
    for &cycle in cycles.values.iter().filter(|&&c| c <= span) {
        let x = left + plot_w * cycle / span;
        let _ = writeln!(
            t,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{}" stroke="#888" stroke-width="0.5"/><text x="{x:.1}" y="{}" font-size="10" text-anchor="middle">{}</text>"##,
            axis_y,
            axis_y + 12.0,
            cycles.label(cycle)
        );
    }
    let _ = writeln!(
        t,
        r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">simulated cycle</text>"#,
        left + plot_w / 2.0,
        axis_y + 28.0
    );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::load_bins::{ClassSeries, LinkSeries};

    fn series() -> LinkLoadSeries {
        LinkLoadSeries {
            bin_cycles: 4096,
            bins: 548,
            cycles: 2_244_608,
            classes: vec![ClassSeries {
                class: "level 0 up".into(),
                links: 4096,
                phits: vec![0; 548],
                utilisation: (0..548)
                    .map(|b| if b == 7 { 0.023 } else { 0.006 })
                    .collect(),
            }],
            top_links: vec![LinkSeries {
                link: "switch 3 port 1".into(),
                class: "level 0 up".into(),
                total_phits: 1,
                utilisation: vec![0.01; 548],
            }],
            top_links_from: "per-link bins".into(),
        }
    }

    #[test]
    fn heat_map_sections_are_scaled_to_their_busiest_bin() {
        let s = series();
        let t = scale(s.classes.iter().map(|c| &c.utilisation[..])).ticks;
        assert_eq!((t.step, t.high()), (0.01, 0.03));
        let svg = heatmap_svg(&s);
        assert!(svg.contains("link classes: colour scale 0-3% busy (busiest bin 2.30%)"));
        assert!(svg.contains("busiest links: colour scale 0-1.0% busy (busiest bin 1.00%)"));
        for label in ["0%", "1%", "2%", "3%", "0.0%", "0.5%", "1.0%"] {
            assert!(svg.contains(&format!(">{label}</text>")), "{label}");
        }
        // The busiest class bin is three quarters up its scale, not 2% of the way from white; the top
        // link, always 1% busy, at the top of its own.
        assert!(svg.contains(&format!(
            "fill=\"{}\"><title>top: switch 3 port 1 cycles 0-4,096: 1.00% busy",
            heat(1.0)
        )));
        assert!(svg.contains(&format!(
            "fill=\"{}\"><title>level 0 up (4,096 links) cycles 28,672-32,768: 2.30% busy",
            heat(0.023 / 0.03)
        )));
        assert_eq!(heat(0.023 / 0.03), "#c14c19");
    }

    #[test]
    fn time_axis_ticks_are_round_and_separated() {
        let svg = heatmap_svg(&series());
        // 548 bins of 4,096 cycles: 2,244,608 cycles, ticks every 500,000 up to 2,000,000.
        assert!(svg.contains("(548 bins of 4,096 cycles)"));
        for tick in ["0", "500,000", "1,000,000", "1,500,000", "2,000,000"] {
            assert!(
                svg.contains(&format!("text-anchor=\"middle\">{tick}</text>")),
                "{tick}"
            );
        }
        assert!(!svg.contains(">2,500,000<") && !svg.contains("2244608"));
        assert!(svg.contains("level 0 up (4,096 links)"));
    }
}
