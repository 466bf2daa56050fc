//! Campaign reports laid out as seed 004 §4-5: relative times per pattern and size (Figs. 6/7 as data),
//! then per network the weighted sum of relative times, normalised phi, cost per node, normalised cost
//! and performance/cost (Tables 4 and 5), for the complete network (CN) and the used resources (U).
//! Written as Markdown, CSV and JSON; the charts are in [`super::svg`].

use crate::campaign::analysis::{Analysis, NetworkResult};
use crate::error::Result;
use std::fmt::Write as _;
use std::path::Path;

fn size_label(size: Option<u64>) -> String {
    match size {
        None => "trace".into(),
        Some(s) if s >= 1000 && s % 1000 == 0 => format!("{}K", s / 1000),
        Some(s) => s.to_string(),
    }
}

/// Markdown's inline specials, each written with a backslash before it: emphasis (`*`, `_`, `~`),
/// code (`` ` ``), links (`[`, `]`), headings' closing `#`, table cells' `|`, GitHub's math (`$`) and
/// the backslash itself.
const MD_SPECIALS: &[char] = &['\\', '`', '*', '_', '~', '[', ']', '#', '|', '$'];

/// `text` as Markdown text (a table cell, a heading): each of [`MD_SPECIALS`] escaped with a backslash,
/// line breaks made spaces, and `<`, `>` and `&` written as entities, so that a name such as
/// `a <i> *b*` is shown as written, not read as HTML or emphasis.
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            c if MD_SPECIALS.contains(&c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.digits$}"))
}

/// A CSV field of an optional number: empty when missing, as a numeric reader (pandas) expects.
fn csv_opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(String::new, |v| format!("{v:.digits$}"))
}

type Field = fn(&Analysis, &NetworkResult) -> String;

/// The rows of the performance and cost table (seed 004 Tables 4-5), in order: `report.md` and
/// `report.html` both print exactly these, so neither can lose a row the other has. Costs, and so
/// normalised costs, are known before any run; the other rows wait for the runs they sum.
const SUMMARY: [(&str, Field); 11] = [
    ("Σ weighted relative time", |_, n| {
        opt(n.index_complete.map(|x| x.weighted_sum), 2)
    }),
    ("Normalised φ", |_, n| {
        opt(n.index_complete.map(|x| x.normalised_phi), 2)
    }),
    ("Total cost-CN", |_, n| {
        format!("{:.0}", n.cost_complete.total.round())
    }),
    ("Cost/node-CN", |_, n| {
        format!("{:.0}", n.cost_complete.per_node.round())
    }),
    ("Norm cost/node-CN", |a, n| {
        opt(a.normalised_costs(n).map(|c| c.0), 2)
    }),
    ("Perf./cost-CN", |_, n| {
        opt(n.index_complete.map(|x| x.perf_per_cost), 2)
    }),
    ("Switches-U / links-U", |_, n| {
        format!("{} / {}", n.cost_used.switches, n.cost_used.links)
    }),
    ("Total cost-U", |_, n| {
        format!("{:.0}", n.cost_used.total.round())
    }),
    ("Cost/node-U", |_, n| {
        format!("{:.0}", n.cost_used.per_node.round())
    }),
    ("Norm cost/node-U", |a, n| {
        opt(a.normalised_costs(n).map(|c| c.1), 2)
    }),
    ("Perf./cost-U", |_, n| {
        opt(n.index_used.map(|x| x.perf_per_cost), 2)
    }),
];

/// The performance and cost table: each row's label and one cell per network, in config order.
pub fn summary_rows(a: &Analysis) -> Vec<(&'static str, Vec<String>)> {
    SUMMARY
        .iter()
        .map(|(name, f)| (*name, a.networks.iter().map(|n| f(a, n)).collect()))
        .collect()
}

/// The report as Markdown tables.
pub fn markdown(a: &Analysis) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "# {}\n", md(&a.name));
    let _ = writeln!(
        t,
        "Reference network: {}. Cost model: {}. Runs: {} of {} done. Config hash {}.\n",
        md(&a.reference),
        md(&a.cost_model),
        a.runs_done,
        a.runs_planned,
        md(&a.config_hash)
    );
    let _ = writeln!(
        t,
        "## Relative time (completion time / {})\n",
        md(&a.reference)
    );
    let head: Vec<String> = a.networks.iter().map(|n| md(&n.label)).collect();
    let _ = writeln!(t, "| pattern | size | weight | {} |", head.join(" | "));
    let _ = writeln!(t, "|---|---:|---:|{}", "---:|".repeat(head.len()));
    for (i, c) in a.cells.iter().enumerate() {
        let vals: Vec<String> = a.networks.iter().map(|n| opt(n.relative[i], 2)).collect();
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} |",
            md(&c.workload),
            size_label(c.size),
            c.weight,
            vals.join(" | ")
        );
    }
    let _ = writeln!(t, "\n## Performance and cost (seed 004 Tables 4-5)\n");
    let _ = writeln!(t, "| | {} |", head.join(" | "));
    let _ = writeln!(t, "|---|{}", "---:|".repeat(head.len()));
    for (name, vals) in summary_rows(a) {
        let _ = writeln!(t, "| {name} | {} |", vals.join(" | "));
    }
    t
}

/// Relative times as CSV: one line per network and cell.
pub fn relative_csv(a: &Analysis) -> String {
    let mut t =
        String::from("network,topology,workload,size,weight,completion_cycles,relative_time\n");
    for n in &a.networks {
        for (i, c) in a.cells.iter().enumerate() {
            let _ = writeln!(
                t,
                "{},{},{},{},{},{},{}",
                super::csv_field(&n.label),
                super::csv_field(&n.topology),
                super::csv_field(&c.workload),
                c.size.map_or(String::new(), |s| s.to_string()),
                c.weight,
                n.cycles[i].map_or(String::new(), |v| v.to_string()),
                n.relative[i].map_or(String::new(), |v| format!("{v:.6}"))
            );
        }
    }
    t
}

/// The summary (Tables 3-5) as CSV: one line per network; a value not known yet (runs missing) is an
/// empty field, as in `relative_times.csv`.
pub fn summary_csv(a: &Analysis) -> String {
    let mut t = String::from(
        "network,topology,weighted_sum,normalised_phi,total_cost_cn,cost_per_node_cn,normalised_cost_cn,perf_per_cost_cn,switches_u,links_u,total_cost_u,cost_per_node_u,normalised_cost_u,perf_per_cost_u\n",
    );
    for n in &a.networks {
        let (c, u) = (n.index_complete, n.index_used);
        let norm = a.normalised_costs(n);
        let _ = writeln!(
            t,
            "{},{},{},{},{:.2},{:.2},{},{},{},{},{:.2},{:.2},{},{}",
            super::csv_field(&n.label),
            super::csv_field(&n.topology),
            csv_opt(c.map(|x| x.weighted_sum), 6),
            csv_opt(c.map(|x| x.normalised_phi), 6),
            n.cost_complete.total,
            n.cost_complete.per_node,
            csv_opt(norm.map(|x| x.0), 6),
            csv_opt(c.map(|x| x.perf_per_cost), 6),
            n.cost_used.switches,
            n.cost_used.links,
            n.cost_used.total,
            n.cost_used.per_node,
            csv_opt(norm.map(|x| x.1), 6),
            csv_opt(u.map(|x| x.perf_per_cost), 6),
        );
    }
    t
}

/// Writes `report.md`, `report.html` (self-contained: tables and both charts inline),
/// `relative_times.csv`, `summary.csv`, `report.json` and the two SVG charts into `dir`, as one set
/// (all replaced or none).
pub fn write_all(a: &Analysis, dir: &Path) -> Result<()> {
    let files: [(&str, String); 7] = [
        ("report.md", markdown(a)),
        ("report.html", super::html::campaign(a)),
        ("relative_times.csv", relative_csv(a)),
        ("summary.csv", summary_csv(a)),
        ("report.json", super::json(a) + "\n"),
        ("relative_times.svg", super::svg::relative_bars(a)),
        ("phi_vs_cost.svg", super::svg::phi_cost_scatter(a)),
    ];
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    crate::output::write_set(dir, &files)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Markdown text with each backslash escape removed: what a renderer shows, entities apart.
    fn unescape(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.extend(chars.next()),
                c => out.push(c),
            }
        }
        out
    }

    /// No special is left bare: each is the second character of an escape.
    fn all_escaped(text: &str) -> bool {
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.next().is_some_and(|n| MD_SPECIALS.contains(&n)) => {}
                c if MD_SPECIALS.contains(&c) => return false,
                _ => {}
            }
        }
        true
    }

    /// A campaign and a candidate named with Markdown's specials print as written in the heading,
    /// the reference, the table heads and the cells: no emphasis, code, link or extra column.
    #[test]
    fn names_with_markdown_specials_print_literally() {
        let name = r"pipe | test *bold* `code` _it_ [link](x) #1 ~~s~~ $m$ back\slash";
        let mut a = crate::report::html::tests::analysis();
        a.name = name.into();
        a.networks[1].label = name.into();
        a.cells[0].workload = "trace:file=my_trace_[1].txt".into();
        let escaped = md(name);
        assert_eq!(unescape(&escaped), name);
        assert!(all_escaped(&escaped), "{escaped}");
        let text = markdown(&a);
        let heading = text.lines().next().unwrap();
        assert_eq!(heading, format!("# {escaped}"));
        assert_eq!(unescape(&heading[2..]), name);
        // Table rows split at their unescaped bars: every row keeps its column count, and the
        // candidate's head cell reads back as its name.
        let cells = |row: &str| -> Vec<String> {
            let (mut cells, mut cell, mut chars) = (Vec::new(), String::new(), row.chars());
            while let Some(c) = chars.next() {
                match c {
                    '\\' => {
                        cell.push(c);
                        cell.extend(chars.next());
                    }
                    '|' => cells.push(std::mem::take(&mut cell).trim().to_string()),
                    c => cell.push(c),
                }
            }
            cells
        };
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with('|')).collect();
        let head = cells(rows[0]);
        assert_eq!(head.len(), 1 + 3 + 2, "{}", rows[0]);
        assert_eq!(unescape(&head[5]), name);
        // Two tables: the relative times (head, rule, two cells), then the summary's eleven rows.
        assert_eq!(rows.len(), 4 + 2 + 11, "{text}");
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(cells(row).len(), if i < 4 { 6 } else { 4 }, "{row}");
        }
        assert_eq!(unescape(&cells(rows[4])[3]), name);
        let pattern = &cells(rows[2])[1];
        assert_eq!(unescape(pattern), "trace:file=my_trace_[1].txt");
        assert!(all_escaped(pattern), "{pattern}");
        // The reference sentence names it escaped too.
        a.reference = name.into();
        assert!(markdown(&a).contains(&format!("Reference network: {escaped}.")));
    }
}
