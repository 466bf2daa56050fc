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

/// The top of the heat map's colour scale: the busiest bin of any row, rounded up to a tick (1-2-5
/// steps), so that a run whose links are 2% busy is not drawn almost white on a 0-100% scale.
pub fn scale(s: &LinkLoadSeries) -> axis::Ticks {
    let top = busiest(s);
    axis::ticks(0.0, if top > 0.0 { top.min(1.0) } else { 1.0 }, 4)
}

/// The busy fraction of the busiest bin of any class or top link.
fn busiest(s: &LinkLoadSeries) -> f64 {
    s.classes
        .iter()
        .flat_map(|c| c.utilisation.iter())
        .chain(s.top_links.iter().flat_map(|l| l.utilisation.iter()))
        .fold(0.0f64, |m, &u| m.max(u))
}

/// Heat map: one row per class (then one per top link), one column per time bin, colour = busy
/// fraction on a scale from 0 to the run's busiest bin (the legend states it); hovering a cell shows
/// its value.
pub fn heatmap_svg(s: &LinkLoadSeries) -> String {
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
    let height = top + plot_h + 84.0;
    let width = left + plot_w + 20.0;
    let colours = scale(s);
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
                r#"<rect x="{:.2}" y="{y:.1}" width="{:.2}" height="{}" fill="{}"><title>{} cycles {}-{}: {:.2}% busy</title></rect>"#,
                left + cell_w * b as f64,
                cell_w + 0.3,
                row_h - 1.0,
                heat(u / colours.high()),
                esc(name),
                axis::number((b as u64 * s.bin_cycles) as f64, 0),
                axis::number(((b as u64 + 1) * s.bin_cycles) as f64, 0),
                100.0 * u
            );
        }
    }
    // Time axis: ticks at 1-2-5 steps of cycles, within the bins drawn.
    let axis_y = top + plot_h + 4.0;
    let span = (bins as u64 * s.bin_cycles).max(1) as f64;
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
    // Colour scale: a ramp from 0 to the scale's top, labelled at its ticks.
    let (ly, ramp_w) = (axis_y + 38.0, 220.0);
    for k in 0..20 {
        let _ = writeln!(
            t,
            r#"<rect x="{:.1}" y="{ly}" width="11.5" height="10" fill="{}"/>"#,
            left + ramp_w * f64::from(k) / 20.0,
            heat((f64::from(k) + 0.5) / 20.0)
        );
    }
    let _ = writeln!(
        t,
        r##"<rect x="{left}" y="{ly}" width="{ramp_w}" height="10" fill="none" stroke="#999" stroke-width="0.5"/>"##
    );
    for &u in &colours.values {
        let _ = writeln!(
            t,
            r#"<text x="{:.1}" y="{}" font-size="9" text-anchor="middle">{}</text>"#,
            left + ramp_w * u / colours.high(),
            ly + 21.0,
            colours.percent(u)
        );
    }
    let _ = writeln!(
        t,
        r#"<text x="{}" y="{}" font-size="10">busy fraction, colour scale 0-{} (the busiest bin: {:.2}%)</text>"#,
        left + ramp_w + 14.0,
        ly + 9.0,
        colours.percent(colours.high()),
        100.0 * busiest(s)
    );
    t.push_str("</svg>\n");
    t
}

/// Writes `link_load.csv`, `top_links.csv` and `link_load.svg` into `dir` as one set: all three
/// replaced, or (on a failure such as a full disk) none.
pub fn write_all(s: &LinkLoadSeries, dir: &Path) -> Result<()> {
    super::write_set(
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
    fn heat_map_is_scaled_to_the_runs_busiest_bin() {
        let s = series();
        let t = scale(&s);
        assert_eq!((t.step, t.high()), (0.01, 0.03));
        let svg = heatmap_svg(&s);
        assert!(
            svg.contains("colour scale 0-3% (the busiest bin: 2.30%)"),
            "{svg}"
        );
        for label in ["0%", "1%", "2%", "3%"] {
            assert!(svg.contains(&format!(">{label}</text>")), "{label}");
        }
        // The busiest bin is three quarters up the scale, not 2% of the way from white.
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
