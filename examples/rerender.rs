//! Redraws the HTML pages and SVG charts of stored results with the current report code, from the
//! JSON they were written with, without running anything again: `cargo run --release --example
//! rerender -- DIR...`. A campaign directory is redrawn from its `report.json` (`report.html`,
//! `relative_times.svg`, `phi_vs_cost.svg`; the JSON must read back to the same text, so nothing but
//! the drawing changes; its floats may read back a bit off in their 17th digit), a load-latency directory from its `load-latency.json` (`load-latency.html`,
//! `load-latency.svg`). For the results whose `results.jsonl` is not kept, or was made by an earlier
//! model, where `netreplay report DIR` cannot redraw them.

use netreplay::campaign::analysis::Analysis;
use netreplay::load_latency::Curve;
use netreplay::network::LoadPoint;
use netreplay::report;
use netreplay::routing::Routing;
use serde::Deserialize;
use std::path::Path;
use std::process::ExitCode;

/// A curve as `load-latency.json` stores it: the fields the pages draw.
#[derive(Deserialize)]
struct StoredCurve {
    topology: String,
    traffic: String,
    routing: Routing,
    points: Vec<StoredPoint>,
}

#[derive(Deserialize)]
struct StoredPoint {
    offered: f64,
    generated: f64,
    accepted: f64,
    packets_measured: u64,
    mean_latency: f64,
    max_latency: u64,
    mean_hops: f64,
    hop_histogram: Vec<u64>,
    saturated: bool,
    sample_latencies: Vec<f64>,
    cycles: u64,
}

fn curve(c: StoredCurve) -> Curve {
    Curve::new(
        c.topology,
        c.traffic,
        c.routing,
        c.points
            .into_iter()
            .map(|p| LoadPoint {
                offered: p.offered,
                generated: p.generated,
                accepted: p.accepted,
                packets_measured: p.packets_measured,
                mean_latency: p.mean_latency,
                max_latency: p.max_latency,
                mean_hops: p.mean_hops,
                hop_histogram: p.hop_histogram,
                saturated: p.saturated,
                sample_latencies: p.sample_latencies,
                cycles: p.cycles,
                // Not drawn: the pages show latency, load, hops and packets.
                link_classes: Vec::new(),
                conflicts_per_cycle: 0.0,
                contested_per_cycle: 0.0,
                received_per_cycle: 0.0,
                received_ratio: 0.0,
            })
            .collect(),
        // Pages draw no cost; the stored JSON keeps whatever it had.
        None,
    )
}

/// Two lines of a report's JSON say the same: equal, or the same number up to the last bits that
/// serde_json's fast float parsing may lose (a relative 1e-14, far below any digit a page prints).
fn same(old: &str, new: &str) -> bool {
    // A line is `"key": value,` or `value,`: the key (if any) and the number apart.
    let split = |l: &str| {
        let l = l.trim().trim_end_matches(',');
        let (key, value) = l.rsplit_once(": ").unwrap_or(("", l));
        (key.to_string(), value.parse::<f64>().ok())
    };
    let ((k1, a), (k2, b)) = (split(old), split(new));
    old == new
        || (k1 == k2 && matches!((a, b), (Some(a), Some(b)) if (a - b).abs() <= 1e-14 * a.abs()))
}

fn rerender(dir: &Path) -> Result<&'static str, String> {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    if dir.join("report.json").is_file() {
        let text = read("report.json")?;
        let a: Analysis = serde_json::from_str(&text).map_err(|e| format!("report.json: {e}"))?;
        let again = report::json(&a) + "\n";
        let lines = (text.lines().count(), again.lines().count());
        if let Some((old, new)) = text.lines().zip(again.lines()).find(|(o, n)| !same(o, n)) {
            return Err(format!("report.json reads back as {new:?}, not {old:?}"));
        } else if lines.0 != lines.1 {
            return Err(format!(
                "report.json reads back as {} lines, not {}",
                lines.1, lines.0
            ));
        }
        let files = [
            ("report.html", report::html::campaign(&a)),
            ("relative_times.svg", report::svg::relative_bars(&a)),
            ("phi_vs_cost.svg", report::svg::phi_cost_scatter(&a)),
        ];
        let files: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
        netreplay::output::write_set(dir, &files).map_err(|e| format!("{e:#}"))?;
        Ok("campaign")
    } else {
        let text = read("load-latency.json")?;
        let stored: Vec<StoredCurve> =
            serde_json::from_str(&text).map_err(|e| format!("load-latency.json: {e}"))?;
        let curves: Vec<Curve> = stored.into_iter().map(curve).collect();
        let html = report::html::load_latency(&curves);
        let svg = report::load_latency::svg(&curves);
        netreplay::output::write_set(
            dir,
            &[
                ("load-latency.html", html.as_bytes()),
                ("load-latency.svg", svg.as_bytes()),
            ],
        )
        .map_err(|e| format!("{e:#}"))?;
        Ok("load-latency")
    }
}

fn main() -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    for dir in std::env::args().skip(1) {
        match rerender(Path::new(&dir)) {
            Ok(kind) => println!("{dir}: {kind} pages redrawn"),
            Err(e) => {
                eprintln!("error: {dir}: {e}");
                code = ExitCode::FAILURE;
            }
        }
    }
    code
}
