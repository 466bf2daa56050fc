//! Seed 001's counters (§V-B, Figs. 10-12) in a run's HTML page: the summary rows (output-port
//! conflicts, packets received, per cycle) and the packets received per cycle over time as a bar
//! chart, one bar per time bin of [`CounterSeries`], with the run's mean as a dashed line.

use super::axis;
use super::link_load::cycle_axis;
use super::svg::y_axis;
use crate::network::counters::CounterSeries;
use std::fmt::Write as _;

/// The counters' rows of a run's summary table: (measure, value), values as the page prints them.
pub fn summary_rows(s: &CounterSeries) -> Vec<Vec<String>> {
    let t = &s.totals;
    vec![
        vec![
            "output-port conflicts (total / per cycle)".into(),
            format!("{} / {:.3}", t.output_port_conflicts, t.conflicts_per_cycle),
        ],
        vec![
            "contested outputs (total / per cycle)".into(),
            format!("{} / {:.3}", t.contested_outputs, t.contested_per_cycle),
        ],
        vec![
            "packets received (total)".into(),
            t.packets_received.to_string(),
        ],
        vec![
            "packets received per cycle (mean / peak bin)".into(),
            format!(
                "{:.3} / {:.3}",
                t.received_per_cycle, t.peak_received_per_cycle
            ),
        ],
    ]
}

/// Bars of the packets received per cycle in each time bin (its packets over its cycles), on a y axis
/// from 0 to the peak bin rounded up to a tick (1-2-5 steps), against simulated cycles; a dashed line
/// marks the mean over the run. Hovering a bar shows its bin's cycles and packets.
pub fn received_svg(s: &CounterSeries) -> String {
    let (left, top, plot_w, plot_h) = (64.0, 34.0, 640.0, 150.0);
    let (width, height) = (left + plot_w + 96.0, top + plot_h + 46.0);
    let bins = s.received.len().max(1);
    let w = s.bin_cycles.max(1) as f64;
    let ys = axis::ticks(0.0, s.totals.peak_received_per_cycle, 4);
    let y = |v: f64| top + plot_h - plot_h * v / ys.high();
    let mut t = String::new();
    let _ = writeln!(
        t,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = writeln!(
        t,
        r#"<text x="{left}" y="16" font-size="13">Packets received per cycle ({} bins of {} cycles; {} packets, {} output-port conflicts)</text>"#,
        axis::number(bins as f64, 0),
        axis::number(w, 0),
        axis::number(s.totals.packets_received as f64, 0),
        axis::number(s.totals.output_port_conflicts as f64, 0)
    );
    let name = ("packets / cycle", top + plot_h / 2.0);
    y_axis(&mut t, &ys, (left, plot_w), y, name);
    let axis_y = top + plot_h + 4.0;
    cycle_axis(&mut t, (left, plot_w), (top, axis_y), bins as f64 * w);
    let bar = plot_w / bins as f64;
    for (b, &n) in s.received.iter().enumerate().filter(|(_, n)| **n > 0) {
        let rate = n as f64 / w;
        let _ = writeln!(
            t,
            r##"<rect x="{:.2}" y="{:.1}" width="{:.2}" height="{:.1}" fill="#4e79a7"><title>cycles {}-{}: {} packets, {} per cycle</title></rect>"##,
            left + bar * b as f64,
            y(rate),
            bar,
            top + plot_h - y(rate),
            axis::number(b as f64 * w, 0),
            axis::number((b + 1) as f64 * w, 0),
            axis::number(n as f64, 0),
            axis::number(rate, 3)
        );
    }
    let mean = y(s.totals.received_per_cycle);
    let _ = writeln!(
        t,
        r##"<line x1="{left}" x2="{}" y1="{mean:.1}" y2="{mean:.1}" stroke="#222" stroke-dasharray="5 3"/><text x="{}" y="{:.1}" font-size="10">mean {}</text>"##,
        left + plot_w,
        left + plot_w + 4.0,
        mean + 3.0,
        axis::number(s.totals.received_per_cycle, 3)
    );
    t.push_str("</svg>\n");
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::counters::CounterTotals;

    /// Four 250-cycle bins holding 50, 400, 0 and 100 packets: rates 0.2, 1.6, 0, 0.4 per cycle; the
    /// peak 1.6 gives y ticks every 0.5 up to 2.0; 1,000 cycles give x ticks every 200.
    #[test]
    fn bars_are_rates_per_cycle_on_round_ticks() {
        let s = CounterSeries {
            totals: CounterTotals {
                output_port_conflicts: 1234,
                packets_received: 550,
                conflicts_per_cycle: 1.234,
                received_per_cycle: 0.55,
                peak_received_per_cycle: 1.6,
                contested_outputs: 600,
                contested_per_cycle: 0.6,
            },
            bin_cycles: 250,
            cycles: 1000,
            received: vec![50, 400, 0, 100],
            conflicts: vec![0, 1234, 0, 0],
            contested: vec![0, 600, 0, 0],
        };
        let svg = received_svg(&s);
        assert!(svg.contains("(4 bins of 250 cycles; 550 packets, 1,234 output-port conflicts)"));
        for tick in ["0.0", "0.5", "1.0", "1.5", "2.0"] {
            assert!(
                svg.contains(&format!("text-anchor=\"end\">{tick}</text>")),
                "{tick}"
            );
        }
        for tick in ["0", "200", "400", "600", "800", "1,000"] {
            assert!(
                svg.contains(&format!("text-anchor=\"middle\">{tick}</text>")),
                "{tick}"
            );
        }
        // Three bars (the empty bin draws none); 1.6 of 2.0 is 120 of the plot's 150 pixels.
        assert_eq!(svg.matches("<rect").count(), 3);
        assert!(svg.contains(
            "<rect x=\"224.00\" y=\"64.0\" width=\"160.00\" height=\"120.0\" fill=\"#4e79a7\">\
             <title>cycles 250-500: 400 packets, 1.600 per cycle</title>"
        ));
        assert!(svg.contains(">mean 0.550</text>") && svg.contains(">packets / cycle</text>"));
        assert_eq!(
            summary_rows(&s)[0][1].as_str(),
            "1234 / 1.234",
            "the table groups digits itself"
        );
    }
}
