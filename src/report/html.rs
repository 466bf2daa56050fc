//! Self-contained HTML reports: one file with inline CSS and inline SVG figures, no script, no external
//! resource, readable on a laptop screen, for `run --html FILE`, a campaign's `report.html` and
//! `load-latency --out DIR`'s `load-latency.html`.

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
const WIDE: f64 = 1130.0;

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
            (w * 1.4).min(WIDE)
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

/// A table: a header row and rows of cells; the first column is left-aligned.
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
                esc(c)
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
        c.cycles,
        c.last_rank,
        super::progress::count(c.messages, "messages")
    );
    let mut x = left;
    let span = w - 2.0 * left;
    for (name, v, colour) in parts {
        let bw = span * v as f64 / total;
        let _ = write!(
            t,
            r#"<rect x="{x:.2}" y="22" width="{bw:.2}" height="{bar_h}" fill="{colour}"><title>{name}: {v} cycles ({:.1}%)</title></rect>"#,
            100.0 * v as f64 / total
        );
        x += bw;
    }
    for (i, (name, v, colour)) in parts.iter().enumerate() {
        let lx = left + 270.0 * i as f64;
        let _ = write!(
            t,
            r#"<rect x="{lx}" y="60" width="12" height="12" fill="{colour}"/><text x="{}" y="70" font-size="11">{name}: {v} ({:.1}%)</text>"#,
            lx + 16.0,
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
        c.steps_total
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
    b.push_str(&table(&[s("measure"), s("value")], &rows));
    if let Some(c) = &r.critical_path {
        b.push_str(&critical_path_section(c));
    }
    b.push_str("<h2>Link load</h2>\n");
    if let Some(l) = &r.link_load {
        b.push_str(&figure(
            &super::link_load::heatmap_svg(l),
            &format!(
                "Busy fraction per link class and of the {} busiest links, in bins of {} cycles \
                 (top links from {}).",
                l.top_links.len(),
                l.bin_cycles,
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
                c.size.map_or_else(|| s("trace"), s),
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
    let n = &a.networks;
    type Field = fn(&crate::campaign::analysis::NetworkResult) -> String;
    let fields: [(&str, Field); 8] = [
        ("Σ weighted relative time", |n| {
            opt(n.index_complete.map(|x| x.weighted_sum), 2)
        }),
        ("Normalised φ", |n| {
            opt(n.index_complete.map(|x| x.normalised_phi), 2)
        }),
        ("Total cost-CN", |n| format!("{:.0}", n.cost_complete.total)),
        ("Cost/node-CN", |n| {
            format!("{:.0}", n.cost_complete.per_node)
        }),
        ("Perf./cost-CN", |n| {
            opt(n.index_complete.map(|x| x.perf_per_cost), 2)
        }),
        ("Switches-U / links-U", |n| {
            format!("{} / {}", n.cost_used.switches, n.cost_used.links)
        }),
        ("Cost/node-U", |n| format!("{:.0}", n.cost_used.per_node)),
        ("Perf./cost-U", |n| {
            opt(n.index_used.map(|x| x.perf_per_cost), 2)
        }),
    ];
    let rows: Vec<Vec<String>> = fields
        .iter()
        .map(|(name, f)| {
            let mut row = vec![name.to_string()];
            row.extend(n.iter().map(f));
            row
        })
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
