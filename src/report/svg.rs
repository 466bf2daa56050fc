//! Hand-written SVG charts of a campaign (seed 004 Figs. 6/7 and §5): grouped bars of relative time per
//! pattern and size, one bar per network, and a scatter of normalised phi against cost per node.

use super::axis;
use super::chart::{self, Style};
use crate::campaign::analysis::Analysis;
use std::fmt::Write as _;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Font size of the legends' text, and the distance between their lines.
const LEGEND_FONT: f64 = 11.0;
const LEGEND_LINE: f64 = 16.0;

/// Width of a legend of `a`'s networks at least `min` wide: its swatch, gap and longest label.
fn legend_width(a: &Analysis, min: f64) -> f64 {
    a.networks
        .iter()
        .map(|n| 20.0 + 14.0 + chart::text_width(&n.label, LEGEND_FONT) + 10.0)
        .fold(min, f64::max)
}

/// One line per network from (`x`, `y`), each with the swatch `swatch` draws for its style at the
/// line's centre-left (x, y of the swatch's centre).
fn legend(
    t: &mut String,
    a: &Analysis,
    x: f64,
    y: f64,
    swatch: impl Fn(&Style, f64, f64) -> String,
) {
    for (i, n) in a.networks.iter().enumerate() {
        let yy = y + LEGEND_LINE * i as f64;
        let _ = writeln!(
            t,
            r#"{}<text x="{}" y="{}" font-size="{LEGEND_FONT}">{}</text>"#,
            swatch(&chart::style(i), x + 5.0, yy - 4.0),
            x + 14.0,
            yy,
            esc(&n.label)
        );
    }
}

/// A note written across a plot that has nothing to show yet, instead of axes with a made-up scale.
fn no_data(t: &mut String, a: &Analysis, (x, y): (f64, f64), what: &str) {
    let text = if a.runs_done == 0 {
        "no completed runs yet".to_string()
    } else {
        format!(
            "no {what} yet ({} of {} runs done)",
            a.runs_done, a.runs_planned
        )
    };
    let _ = writeln!(
        t,
        r##"<text x="{x:.1}" y="{y:.1}" font-size="13" fill="#555" text-anchor="middle">{text}</text>"##
    );
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

/// The rotation of the x-axis labels under the bars, in degrees clockwise from the horizontal.
const LABEL_ANGLE: f64 = 60.0;
const LABEL_FONT: f64 = 9.0;

/// How far a label of `width` px, drawn from its anchor at [`LABEL_ANGLE`], reaches right of and
/// below the anchor (its glyphs' ascent and descent included).
fn label_reach(width: f64) -> (f64, f64) {
    let (sin, cos) = LABEL_ANGLE.to_radians().sin_cos();
    (
        width * cos + LABEL_FONT * sin,
        width * sin + LABEL_FONT * cos,
    )
}

/// Grouped bars: for each (pattern, size) a group of one bar per network, height = relative time;
/// a dashed line marks the reference's 1.0. Drawn to fill the HTML page's width once enlarged by
/// [`ZOOM`] (bars at least 2 px wide: a campaign with more bars is wider, and shrinks to the page),
/// and tall enough for the longest workload label and the legend. Traces are labelled short
/// ([`chart::workload_labels`]), their whole spec in the label's tooltip.
pub fn relative_bars(a: &Analysis) -> String {
    let nets = a.networks.len().max(1);
    let cells = a.cells.len().max(1);
    let (left, top, h) = (64.0, 34.0, 260.0);
    let legend_w = legend_width(a, 170.0);
    let page = (PAGE_WIDTH / ZOOM).floor();
    let group = ((page - left - legend_w) / cells as f64).max(2.0 * nets as f64 + 4.0);
    // Bars fill four fifths of a group; the rest separates the groups.
    let bar = group * 0.8 / nets as f64;
    let plot_w = group * cells as f64;
    let styles: Vec<Style> = (0..a.networks.len()).map(chart::style).collect();
    let short = chart::workload_labels(&a.cells);
    let labels: Vec<(String, String)> = a
        .cells
        .iter()
        .zip(&short)
        .map(|(c, s)| {
            let size = c.size.map_or("trace".into(), axis::bytes);
            (format!("{s} {size}"), format!("{} {size}", c.workload))
        })
        .collect();
    let label_y = top + h + 8.0;
    // The labels' reach right of and below their anchors, the legend's height with its
    // reference line: the drawing covers them all.
    let (reach_x, reach_y) = labels
        .iter()
        .enumerate()
        .map(|(ci, (l, _))| {
            let (dx, dy) = label_reach(chart::text_width(l, LABEL_FONT));
            (group * (ci as f64 + 0.5) + dx, dy)
        })
        .fold((0.0f64, 0.0f64), |(x, y), (dx, dy)| (x.max(dx), y.max(dy)));
    let (lx, ly) = (left + plot_w + 20.0, top + 10.0);
    let ry = ly + LEGEND_LINE * a.networks.len() as f64 - 4.0;
    let width = (left + plot_w + legend_w)
        .max(left + reach_x + 4.0)
        .max(page)
        .ceil();
    let height = (label_y + reach_y + 6.0)
        .max(ry + 14.0)
        .max(top + h + 90.0)
        .ceil();
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
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">"#
    );
    t.push_str(&chart::hatch_defs(&styles));
    let _ = writeln!(
        t,
        r#"<text x="{left}" y="14" font-size="12">Relative time (reference {}), per pattern and message size</text>"#,
        esc(&a.reference)
    );
    let drawn = a
        .networks
        .iter()
        .any(|n| n.relative.iter().any(Option::is_some));
    let name = ("completion time / reference's", top + h / 2.0);
    if drawn {
        y_axis(&mut t, &ticks, (left, plot_w), y, name);
    } else {
        no_data(
            &mut t,
            a,
            (left + plot_w / 2.0, top + h / 2.0),
            "relative times",
        );
    }
    for (ci, c) in a.cells.iter().enumerate() {
        let gx = left + group * ci as f64 + group * 0.1;
        for (ni, n) in a.networks.iter().enumerate() {
            if let Some(v) = n.relative[ci] {
                let bh = h * v / ticks.high();
                let _ = writeln!(
                    t,
                    r#"<rect x="{:.1}" y="{:.1}" width="{bar:.2}" height="{bh:.1}" {}><title>{} {} {}: {v:.3}</title></rect>"#,
                    gx + bar * ni as f64,
                    top + h - bh,
                    styles[ni].bar(),
                    esc(&n.label),
                    esc(&c.workload),
                    c.size.map_or("trace".into(), axis::bytes)
                );
            }
        }
        let (label, full) = &labels[ci];
        let title = if label == full {
            String::new()
        } else {
            format!("<title>{}</title>", esc(full))
        };
        let lx = left + group * ci as f64 + group / 2.0;
        let _ = writeln!(
            t,
            r#"<text x="{lx:.1}" y="{label_y}" font-size="{LABEL_FONT}" transform="rotate({LABEL_ANGLE} {lx:.1} {label_y})">{title}{}</text>"#,
            esc(label)
        );
    }
    // The reference's level, drawn over the bars, with its own legend entry (and its value on the
    // axis when no tick has it).
    let y1 = y(1.0);
    if drawn {
        let _ = writeln!(
            t,
            r##"<line x1="{left}" x2="{}" y1="{y1:.1}" y2="{y1:.1}" stroke="#222" stroke-dasharray="5 3"/>"##,
            left + plot_w
        );
    }
    if drawn && !ticks.values.iter().any(|v| (v - 1.0).abs() < 1e-9) {
        let _ = writeln!(
            t,
            r#"<text x="{}" y="{:.1}" font-size="10" text-anchor="end">1</text>"#,
            left - 4.0,
            y1 + 3.0
        );
    }
    legend(&mut t, a, lx, ly, |s, x, y| {
        format!(
            r#"<rect x="{}" y="{}" width="10" height="10" {}/>"#,
            x - 5.0,
            y - 5.0,
            s.bar()
        )
    });
    let _ = writeln!(
        t,
        r##"<line x1="{lx}" x2="{}" y1="{ry}" y2="{ry}" stroke="#222" stroke-dasharray="5 3"/><text x="{}" y="{}" font-size="{LEGEND_FONT}">reference = 1</text>"##,
        lx + 10.0,
        lx + 14.0,
        ry + 4.0
    );
    t.push_str("</svg>\n");
    t
}

/// Scatter: x = cost per node (used resources), y = normalised phi; one point per network, in its
/// legend's colour and shape, its values in its tooltip. Before any network has its index, a note
/// says so instead of axes with a made-up scale.
pub fn phi_cost_scatter(a: &Analysis) -> String {
    // (cost, phi, label, style index: the network's, as the legend lists them).
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
    let (left, top, w, h): (f64, f64, f64, f64) = (70.0, 20.0, 420.0, 300.0);
    let legend_top = top + 10.0;
    let styles: Vec<Style> = (0..a.networks.len()).map(chart::style).collect();
    let mut t = String::new();
    let _ = writeln!(
        t,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif">"#,
        (left + w + legend_width(a, 200.0)).ceil(),
        (top + h + 50.0)
            .max(legend_top + LEGEND_LINE * a.networks.len() as f64)
            .ceil()
    );
    t.push_str(&chart::marker_defs(&styles));
    if pts.is_empty() {
        no_data(
            &mut t,
            a,
            (left + w / 2.0, top + h / 2.0),
            "network has all its runs",
        );
    }
    for &v in xs.values.iter().filter(|_| !pts.is_empty()) {
        let x = left + w * v / xmax;
        let _ = writeln!(
            t,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{}" stroke="#eee"/><text x="{x:.1}" y="{}" font-size="10" text-anchor="middle">{}</text>"##,
            top + h,
            top + h + 13.0,
            xs.label(v)
        );
    }
    for &v in ys.values.iter().filter(|_| !pts.is_empty()) {
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
        let title = format!(
            "<title>{}: φ {y:.2}, ${}/node</title>",
            esc(label),
            axis::number(x, 0)
        );
        let (px, py) = (left + w * x / xmax, top + h - h * y / ymax);
        let _ = writeln!(t, "{}", styles[i].marker(px, py, &title));
    }
    legend(&mut t, a, left + w + 20.0, legend_top, |s, x, y| {
        s.marker(x, y, "")
    });
    t.push_str("</svg>\n");
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::analysis::{Cell, NetworkResult};

    /// The two-network analysis of the HTML tests with `n` networks, each a bit slower and cheaper.
    fn networks(n: usize) -> Analysis {
        let mut a = super::super::html::tests::analysis();
        let model = a.networks[1].clone();
        a.networks.truncate(1);
        for i in 1..n {
            let mut net: NetworkResult = model.clone();
            net.label = format!("net {i}");
            net.relative = vec![Some(1.0 + i as f64 / 10.0); 2];
            net.cost_used.per_node = 2000.0 - 40.0 * i as f64;
            a.networks.push(net);
        }
        a
    }

    /// An element's start tag as drawn, without its position and size: tag name, fill, stroke,
    /// shape referenced.
    fn look(tag: &str) -> String {
        let tag = tag.trim_start_matches('<');
        let mut out = tag.split([' ', '>', '/']).next().unwrap().to_string();
        for attr in tag.split("\" ") {
            let attr = attr.rsplit(' ').next().unwrap_or(attr);
            let name = attr.split('=').next().unwrap();
            if !["x", "y", "cx", "cy", "width", "height"].contains(&name) && attr.contains('=') {
                out.push(' ');
                out.push_str(attr.trim_end_matches(['>', '/', '"']));
            }
        }
        out
    }

    /// The start tag of the element on the line of `svg` that contains `marker`, before it.
    fn tag_before<'s>(svg: &'s str, marker: &str) -> &'s str {
        let at = svg
            .find(marker)
            .unwrap_or_else(|| panic!("{marker} missing"));
        let line_start = svg[..at].rfind('\n').map_or(0, |i| i + 1);
        let tag = &svg[line_start..at];
        &tag[..tag.find('>').unwrap_or(tag.len())]
    }

    fn all_distinct(looks: &[String]) {
        for (i, l) in looks.iter().enumerate() {
            assert!(
                !looks[..i].contains(l),
                "network {i} is drawn as an earlier one: {l}"
            );
        }
    }

    /// Past the palette's 8 colours of old (candidate 9 drew as candidate 1) and past its 20, every
    /// network's bars, point and legend swatches look different from every other's, and every
    /// hatch or marker they use is defined.
    #[test]
    fn every_network_has_its_own_style_past_eight_and_twenty() {
        for n in [9, 21, 40] {
            let a = networks(n);
            let (bars, scatter) = (relative_bars(&a), phi_cost_scatter(&a));
            let label = |i: usize| a.networks[i].label.clone();
            let mut looks = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
            for i in 0..n {
                looks[0].push(look(tag_before(&bars, &format!("<title>{} bu ", label(i)))));
                looks[1].push(look(tag_before(
                    &scatter,
                    &format!("<title>{}: ", label(i)),
                )));
                for (k, svg) in [(2, &bars), (3, &scatter)] {
                    let text = format!(r#"font-size="11">{}</text>"#, label(i));
                    looks[k].push(look(tag_before(svg, &text)));
                }
            }
            for l in &looks {
                all_distinct(l);
            }
            assert_eq!(looks[0], looks[2], "the bars' legend shows the bars");
            assert_eq!(looks[1], looks[3], "the scatter's legend shows its points");
            for svg in [&bars, &scatter] {
                let refs = svg.split("url(#").skip(1);
                for id in refs.chain(svg.split("href=\"#").skip(1)) {
                    let id = id.split(['"', ')']).next().unwrap();
                    assert!(svg.contains(&format!("id=\"{id}\"")), "{id} undefined");
                }
            }
        }
    }

    /// The labels of the bars' groups (long trace specs among them) fit in the drawing as the code
    /// estimates their extent, two traces read differently, and each keeps its whole spec as a
    /// tooltip.
    #[test]
    fn workload_labels_fit_and_tell_traces_apart() {
        let mut a = networks(3);
        let trace = |k: &str| {
            format!(
                "trace:file=traces/simgrid/npb3.3/{k}.S.16/{k}.S.16.txt,cache=off,compute_scale=0.5,protocol=rendezvous"
            )
        };
        a.cells = ["bt", "cg"]
            .iter()
            .map(|k| Cell {
                workload: trace(k),
                size: None,
                weight: 1.0,
            })
            .collect();
        let svg = relative_bars(&a);
        let dim = |name: &str| -> f64 {
            let key = format!(" {name}=\"");
            let at = svg.find(&key).unwrap() + key.len();
            svg[at..].split('"').next().unwrap().parse().unwrap()
        };
        let (width, height) = (dim("width"), dim("height"));
        let mut labels = Vec::new();
        for line in svg.lines().filter(|l| l.contains("transform=\"rotate(60 ")) {
            let anchor: Vec<f64> = line
                .split("rotate(60 ")
                .nth(1)
                .unwrap()
                .split(')')
                .next()
                .unwrap()
                .split(' ')
                .map(|v| v.parse().unwrap())
                .collect();
            let text = line
                .strip_suffix("</text>")
                .unwrap()
                .rsplit('>')
                .next()
                .unwrap();
            let (dx, dy) = label_reach(chart::text_width(text, LABEL_FONT));
            assert!(
                anchor[1] + dy <= height,
                "{text} reaches {} below {height}",
                anchor[1] + dy
            );
            assert!(
                anchor[0] + dx <= width,
                "{text} reaches {} right of {width}",
                anchor[0] + dx
            );
            labels.push(text.to_string());
        }
        assert_eq!(
            labels,
            [
                "bt.S.16 compute_scale=0.5,protocol=rendezvous trace",
                "cg.S.16 compute_scale=0.5,protocol=rendezvous trace"
            ]
        );
        for k in ["bt", "cg"] {
            assert!(
                svg.contains(&format!("<title>{} trace</title>", trace(k))),
                "{k}"
            );
        }
        assert!(
            height > 384.0,
            "taller than the short labels' chart: {height}"
        );
    }

    /// Before any run, both charts say so instead of drawing axes with a made-up scale; a partial
    /// campaign without a complete network says how far it is.
    #[test]
    fn charts_without_data_say_so() {
        let mut a = networks(3);
        for n in &mut a.networks {
            n.relative = vec![None; 2];
            n.cycles = vec![None; 2];
            n.index_complete = None;
            n.index_used = None;
        }
        a.runs_done = 0;
        for svg in [relative_bars(&a), phi_cost_scatter(&a)] {
            assert!(svg.contains(">no completed runs yet</text>"), "{svg}");
            assert!(
                !svg.contains("text-anchor=\"end\">0</text>"),
                "a tick: {svg}"
            );
            assert!(
                !svg.contains("stroke-dasharray=\"5 3\"/>\n"),
                "reference line: {svg}"
            );
        }
        a.runs_done = 2;
        a.networks[0].relative[0] = Some(1.0);
        let scatter = phi_cost_scatter(&a);
        assert!(
            scatter.contains(">no network has all its runs yet (2 of 4 runs done)</text>"),
            "{scatter}"
        );
        assert!(!relative_bars(&a).contains("runs done"));
    }
}
