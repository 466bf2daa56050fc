//! Self-contained HTML reports: one file with inline CSS and inline SVG figures, no script, no external
//! resource, readable on a laptop screen, for `run --html FILE`, a campaign's `report.html` and
//! `load-latency --out DIR`'s `load-latency.html`.

use super::axis;
use super::load_latency::Curve;
use super::run::RunReport;
use crate::campaign::analysis::Analysis;
use crate::mpi::critical_path::CriticalPath;
use std::fmt::Write as _;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;\
max-width:1180px;padding:16px 24px;color:#222;line-height:1.4}\
h1{font-size:1.5em;margin:.2em 0 .4em}h2{font-size:1.2em;margin:1.4em 0 .5em;border-bottom:1px solid #ddd}\
p.meta{color:#555;margin:.2em 0}\
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.9em}\
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;white-space:nowrap}\
th{background:#f3f3f3}td.l,th.l{text-align:left}\
tr:nth-child(even) td{background:#fafafa}\
figure{margin:.5em 0 1.2em;overflow-x:auto}figcaption{color:#555;font-size:.85em}\
svg{max-width:100%;height:auto;display:block}\
.wide{overflow-x:auto}";

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Width in pixels up to which a chart is scaled to the page (the page's content width).
const WIDE: f64 = super::svg::PAGE_WIDTH;

/// An SVG made scalable: gives it a `viewBox` from its width and height when it has none, so CSS can
/// shrink it to the page.
fn fit(svg: &str) -> String {
    let Some(end) = svg.find('>') else {
        return svg.to_string();
    };
    let head = &svg[..end];
    let attr = |name: &str| {
        let key = format!(" {name}=\"");
        let at = head.find(&key)? + key.len();
        head[at..].split('"').next()?.parse::<f64>().ok()
    };
    let (Some(w), Some(h)) = (attr("width"), attr("height")) else {
        return svg.to_string();
    };
    // Small charts are drawn larger (their text is 10-13 px), up to the page's width; charts wider
    // than the page keep their size and scroll.
    let style = if w <= WIDE {
        format!(
            " style=\"width:{:.0}px;max-width:100%\"",
            (w * super::svg::ZOOM).min(WIDE)
        )
    } else {
        format!(" style=\"width:{w:.0}px;max-width:none\"")
    };
    let view = if head.contains("viewBox") {
        String::new()
    } else {
        format!(" viewBox=\"0 0 {w} {h}\"")
    };
    format!("{head}{view}{style}{}", &svg[end..])
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n\
<style>{STYLE}</style>\n</head>\n<body>\n{body}\n<p class=\"meta\">Written by netreplay {}.</p>\n</body>\n</html>\n",
        esc(title),
        env!("CARGO_PKG_VERSION")
    )
}

fn figure(svg: &str, caption: &str) -> String {
    format!(
        "<figure>\n{}<figcaption>{}</figcaption>\n</figure>\n",
        fit(svg),
        esc(caption)
    )
}

/// A table: a header row and rows of cells; the first column (labels) is left-aligned, the others
/// (values) right-aligned with their numbers' digits in groups of three.
fn table(head: &[String], rows: &[Vec<String>]) -> String {
    let mut t = String::from("<div class=\"wide\"><table>\n<tr>");
    for (i, h) in head.iter().enumerate() {
        let _ = write!(
            t,
            "<th{}>{}</th>",
            if i == 0 { " class=\"l\"" } else { "" },
            esc(h)
        );
    }
    t.push_str("</tr>\n");
    for row in rows {
        t.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let _ = write!(
                t,
                "<td{}>{}</td>",
                if i == 0 { " class=\"l\"" } else { "" },
                esc(&if i == 0 {
                    c.clone()
                } else {
                    axis::group_digits(c)
                })
            );
        }
        t.push_str("</tr>\n");
    }
    t.push_str("</table></div>\n");
    t
}

fn s<T: ToString>(v: T) -> String {
    v.to_string()
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The critical path's split as one stacked horizontal bar.
pub fn critical_path_svg(c: &CriticalPath) -> String {
    let (w, left, bar_h) = (820.0, 10.0, 28.0);
    let total = c.cycles.max(1) as f64;
    let parts = [
        ("compute", c.compute_cycles, "#4e79a7"),
        ("network latency (zero-load)", c.latency_cycles, "#59a14f"),
        ("contention", c.contention_cycles, "#e15759"),
    ];
    let mut t = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="86" viewBox="0 0 {w} 86" font-family="sans-serif">"#
    );
    let _ = write!(
        t,
        r#"<text x="{left}" y="14" font-size="13">Critical path: {} cycles to rank {}'s end ({})</text>"#,
        axis::number(c.cycles as f64, 0),
        c.last_rank,
        axis::group_digits(&super::progress::count(c.messages, "messages"))
    );
    let mut x = left;
    let span = w - 2.0 * left;
    for (name, v, colour) in parts {
        let bw = span * v as f64 / total;
        let _ = write!(
            t,
            r#"<rect x="{x:.2}" y="22" width="{bw:.2}" height="{bar_h}" fill="{colour}"><title>{name}: {} cycles ({:.1}%)</title></rect>"#,
            axis::number(v as f64, 0),
            100.0 * v as f64 / total
        );
        x += bw;
    }
    for (i, (name, v, colour)) in parts.iter().enumerate() {
        let lx = left + 270.0 * i as f64;
        let _ = write!(
            t,
            r#"<rect x="{lx}" y="60" width="12" height="12" fill="{colour}"/><text x="{}" y="70" font-size="11">{name}: {} ({:.1}%)</text>"#,
            lx + 16.0,
            axis::number(*v as f64, 0),
            100.0 * *v as f64 / total
        );
    }
    t.push_str("</svg>\n");
    t
}

fn critical_path_section(c: &CriticalPath) -> String {
    let mut b = String::from("<h2>Critical path</h2>\n");
    b.push_str(&figure(
        &critical_path_svg(c),
        "The chain of computations and messages that ended last; a message's latency is its \
         zero-load time, its contention the rest of its time from being issued to being consumed.",
    ));
    let shown = c.steps.len().min(40);
    let _ = writeln!(
        b,
        "<p class=\"meta\">{} steps; the last {shown} in time order:</p>",
        axis::number(c.steps_total as f64, 0)
    );
    let rows: Vec<Vec<String>> = c.steps[c.steps.len() - shown..]
        .iter()
        .map(|st| {
            vec![
                st.kind.to_string(),
                match st.from {
                    Some(f) => format!("{f} → {}", st.rank),
                    None => s(st.rank),
                },
                s(st.start),
                s(st.end),
                s(st.end - st.start),
                st.zero_load.map_or(String::new(), s),
                st.contention.map_or(String::new(), s),
            ]
        })
        .collect();
    let head = [
        "step",
        "rank",
        "start",
        "end",
        "cycles",
        "zero-load",
        "contention",
    ]
    .map(String::from);
    b.push_str(&table(&head, &rows));
    b
}

/// The HTML page of one run.
pub fn run(r: &RunReport) -> String {
    let o = &r.outcome;
    let mut b = format!(
        "<h1>{} on {}</h1>\n<p class=\"meta\">placement {}, seed {}, {} ranks on {} nodes</p>\n",
        esc(&r.workload),
        esc(&r.topology),
        esc(&r.placement),
        r.seed,
        r.ranks,
        r.nodes
    );
    b.push_str("<h2>Summary</h2>\n");
    let mut rows = vec![
        vec![s("completion cycles"), s(o.completion_cycles)],
        vec![s("messages"), s(o.messages)],
        vec![s("packets"), s(o.packets)],
        vec![s("phits"), s(o.phits)],
        vec![s("phit-hops"), s(o.phit_hops)],
        vec![s("mean hops per packet"), format!("{:.2}", o.mean_hops)],
        vec![
            s("message latency (mean / max)"),
            format!("{:.1} / {}", o.mean_message_latency, o.max_message_latency),
        ],
        vec![s("wall time"), format!("{:.3} s", r.speed.wall_seconds)],
    ];
    if let Some(m) = &r.mpi {
        let t = &m.time;
        rows.push(vec![
            s("rank time: compute / send / wait (sum)"),
            format!("{} / {} / {}", t.compute_sum, t.send_sum, t.wait_sum),
        ]);
    }
    if let Some(c) = &r.counters {
        rows.extend(super::counters::summary_rows(c));
    }
    b.push_str(&table(&[s("measure"), s("value")], &rows));
    if let Some(c) = &r.counters {
        b.push_str("<h2>Packets received</h2>\n");
        b.push_str(&figure(
            &super::counters::received_svg(c),
            "Packets consumed by their destination nodes per cycle, per time bin (seed 001 §V-B); \
             an output-port conflict is a packet head that lost the output it bid for to another \
             head of the same round.",
        ));
    }
    if let Some(c) = &r.critical_path {
        b.push_str(&critical_path_section(c));
    }
    b.push_str("<h2>Link load</h2>\n");
    if let Some(l) = &r.link_load {
        b.push_str(&figure(
            &super::link_load::heatmap_svg(l),
            &format!(
                "Busy fraction per link class and of the {} busiest links, in bins of {} cycles \
                 (top links from {}); classes and links each coloured up to their busiest bin.",
                l.top_links.len(),
                axis::number(l.bin_cycles as f64, 0),
                l.top_links_from
            ),
        ));
    }
    let rows: Vec<Vec<String>> = o
        .link_classes
        .iter()
        .map(|c| {
            vec![
                c.class.clone(),
                s(c.links),
                s(c.phits),
                s(c.packets),
                pct(c.utilisation),
            ]
        })
        .collect();
    let head = ["class", "links", "phits", "packets", "busy"].map(String::from);
    b.push_str(&table(&head, &rows));
    let rows: Vec<Vec<String>> = o
        .busiest_links
        .iter()
        .map(|l| vec![l.link.clone(), s(l.phits), pct(l.utilisation)])
        .collect();
    b.push_str(&table(&[s("busiest link"), s("phits"), s("busy")], &rows));
    page(&format!("netreplay: {} on {}", r.workload, r.topology), &b)
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.digits$}"))
}

/// The HTML page of a campaign (the Markdown report's tables and both charts).
pub fn campaign(a: &Analysis) -> String {
    let mut b = format!(
        "<h1>{}</h1>\n<p class=\"meta\">Reference network: {}. Cost model: {}. Runs: {} of {} done. \
         Config hash {}.</p>\n",
        esc(&a.name),
        esc(&a.reference),
        esc(&a.cost_model),
        a.runs_done,
        a.runs_planned,
        esc(&a.config_hash)
    );
    b.push_str("<h2>Relative time</h2>\n");
    b.push_str(&figure(
        &super::svg::relative_bars(a),
        "Completion time relative to the reference network, per pattern and message size.",
    ));
    let mut head = vec![s("pattern"), s("size"), s("weight")];
    head.extend(a.networks.iter().map(|n| n.label.clone()));
    let rows: Vec<Vec<String>> = a
        .cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut row = vec![
                c.workload.clone(),
                c.size.map_or_else(|| s("trace"), axis::bytes),
                s(c.weight),
            ];
            row.extend(a.networks.iter().map(|n| opt(n.relative[i], 2)));
            row
        })
        .collect();
    b.push_str(&table(&head, &rows));
    b.push_str("<h2>Performance and cost</h2>\n");
    b.push_str(&figure(
        &super::svg::phi_cost_scatter(a),
        "Normalised performance index against cost per node.",
    ));
    let mut head = vec![String::new()];
    head.extend(a.networks.iter().map(|n| n.label.clone()));
    let rows: Vec<Vec<String>> = super::campaign::summary_rows(a)
        .into_iter()
        .map(|(name, vals)| std::iter::once(name.to_string()).chain(vals).collect())
        .collect();
    b.push_str(&table(&head, &rows));
    page(&format!("netreplay campaign: {}", a.name), &b)
}

/// The HTML page of a load-latency sweep: the plot and one table per curve.
pub fn load_latency(curves: &[Curve]) -> String {
    let mut b = String::from("<h1>Load-latency curves</h1>\n");
    b.push_str(&figure(
        &super::load_latency::svg(curves),
        "Mean packet latency against accepted load; hollow points are unstable.",
    ));
    for c in curves {
        let _ = writeln!(
            b,
            "<h2>{} under {}, {} routing</h2>",
            esc(&c.topology),
            esc(&c.traffic),
            esc(c.routing.name())
        );
        let head = [
            "offered",
            "accepted",
            "latency",
            "max latency",
            "hops",
            "packets",
            "stability",
        ]
        .map(String::from);
        let rows: Vec<Vec<String>> = c
            .points
            .iter()
            .map(|p| {
                vec![
                    format!("{:.3}", p.offered),
                    format!("{:.4}", p.accepted),
                    format!("{:.1}", p.mean_latency),
                    s(p.max_latency),
                    format!("{:.2}", p.mean_hops),
                    s(p.packets_measured),
                    s(if p.saturated { "unstable" } else { "stable" }),
                ]
            })
            .collect();
        b.push_str(&table(&head, &rows));
    }
    page("netreplay load-latency", &b)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::campaign::analysis::{Cell, NetworkResult};
    use crate::campaign::index::Index;
    use crate::cost::Cost;

    fn cost(total: f64, nodes: u64) -> Cost {
        Cost {
            model: "seed004".into(),
            total,
            per_node: total / nodes as f64,
            switches: 80,
            links: 1280,
            nodes,
            power_watts: None,
        }
    }

    fn index(sum: f64, cost: f64) -> Index {
        Index {
            weighted_sum: sum,
            phi: 1.0 / sum,
            normalised_phi: 2.0 / sum,
            cost_per_node: cost,
            normalised_cost: cost / 2000.0,
            perf_per_cost: 2.0 / sum / (cost / 2000.0),
        }
    }

    /// Two networks, two cells: the reference and one 2.5 to 60 times slower.
    pub(crate) fn analysis() -> Analysis {
        let net = |label: &str, rel: [f64; 2], total: f64| NetworkResult {
            label: label.into(),
            topology: format!("{label}:k=4"),
            placement: "consecutive".into(),
            cycles: rel.iter().map(|r| Some((r * 89_644.0) as u64)).collect(),
            relative: rel.iter().map(|&r| Some(r)).collect(),
            cost_complete: cost(total, 4096),
            cost_used: cost(total * 0.75, 4096),
            index_complete: Some(index(rel.iter().sum(), total / 4096.0)),
            index_used: Some(index(rel.iter().sum(), total * 0.75 / 4096.0)),
        };
        Analysis {
            name: "two trees".into(),
            config_hash: "abc".into(),
            reference: "fat".into(),
            cost_model: "seed004".into(),
            cells: vec![
                Cell {
                    workload: "bu".into(),
                    size: Some(10_000),
                    weight: 1.0,
                },
                Cell {
                    workload: "2w".into(),
                    size: Some(10),
                    weight: 1.0,
                },
            ],
            networks: vec![
                net("fat", [1.0, 1.0], 8_192_000.0),
                net("thin", [60.3, 2.5], 4_321_000.0),
            ],
            runs_planned: 4,
            runs_done: 4,
        }
    }

    #[test]
    fn every_row_of_the_markdown_report_is_in_the_html() {
        let a = analysis();
        let (md, html) = (super::super::campaign::markdown(&a), campaign(&a));
        let labels: Vec<&str> = md
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| |") && !l.starts_with("| pattern"))
            .map(|l| l[2..].split(" | ").next().unwrap())
            .collect();
        // Two relative-time rows (one per cell) and the eleven rows of Tables 4-5.
        assert_eq!(labels.len(), 13, "{labels:?}");
        for label in labels {
            assert!(
                html.contains(&format!("<td class=\"l\">{}</td>", esc(label))),
                "{label} missing from the HTML"
            );
        }
        for row in ["Norm cost/node-CN", "Total cost-U", "Norm cost/node-U"] {
            assert!(html.contains(row), "{row}");
        }
        // Values with thousands separators, sizes with their unit.
        assert!(html.contains("<td>8,192,000</td>"), "total cost-CN");
        assert!(html.contains("<td>3,240,750</td>"), "total cost-U");
        assert!(html.contains("<td>80 / 1,280</td>"));
        assert!(html.contains("<td>10 KB</td>") && html.contains("<td>10 B</td>"));
        assert!(
            md.contains("| 8192000 |"),
            "the Markdown keeps plain numbers"
        );
    }

    #[test]
    fn relative_bars_fill_the_page_with_nice_ticks_and_the_reference_line() {
        let svg = super::super::svg::relative_bars(&analysis());
        let drawn = (super::super::svg::PAGE_WIDTH / super::super::svg::ZOOM).floor();
        assert!(svg.contains(&format!("width=\"{drawn}\"")));
        assert_eq!(
            fit(&svg)
                .matches("style=\"width:1130px;max-width:100%\"")
                .count(),
            1
        );
        // The largest value is 60.3: ticks 0, 20, ..., 80, never 15.08 or 60.3.
        for tick in ["0", "20", "40", "60", "80"] {
            assert!(
                svg.contains(&format!("text-anchor=\"end\">{tick}</text>")),
                "{tick}"
            );
        }
        // 1 is not a tick: it is written at the reference line, which is dashed at y = 294 - 260/80.
        assert!(svg.contains("text-anchor=\"end\">1</text>"));
        assert!(svg.contains("y1=\"290.8\" y2=\"290.8\" stroke=\"#222\" stroke-dasharray=\"5 3\""));
        assert!(svg.contains("reference = 1"));
        assert!(svg.contains(">completion time / reference's</text>"));
        assert!(svg.contains(">bu 10 KB</text>") && svg.contains(">2w 10 B</text>"));
    }

    #[test]
    fn scatter_ticks_step_by_one_two_or_five() {
        let svg = super::super::svg::phi_cost_scatter(&analysis());
        // Costs per node of 1,500 and 791 dollars (x 1.05): ticks every 500 up to 2,000.
        for tick in ["0", "500", "1,000", "1,500", "2,000"] {
            assert!(
                svg.contains(&format!("text-anchor=\"middle\">{tick}</text>")),
                "{tick}: {svg}"
            );
        }
    }
}
