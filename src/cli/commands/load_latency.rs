//! `load-latency`: open-loop sweeps, printed as a table or JSON and written as CSV, JSON, SVG and
//! HTML.

use crate::cli::args::LoadLatencyArgs;
use crate::cli::overlay;
use crate::error::Result;
use crate::{load_latency, output, report};

/// `load-latency [CONFIG] --topology ...`: the output directory checked before the sweep, the
/// curves printed, then the files written together.
pub(in crate::cli) fn load_latency(args: LoadLatencyArgs) -> Result<()> {
    let (cfg, options) = overlay::sweep(&args)?;
    if let Some(dir) = &args.out {
        output::prepare_dir(dir)?;
    }
    let curves = load_latency::sweep_with(&cfg, &options)?;
    let text = report::json(&curves) + "\n";
    if args.json {
        print!("{text}");
    } else {
        print!("{}", report::load_latency::text(&curves));
    }
    if let Some(dir) = args.out {
        let csv = report::load_latency::csv(&curves);
        let svg = report::load_latency::svg(&curves);
        let html = report::html::load_latency(&curves);
        output::write_set(
            &dir,
            &[
                ("load-latency.json", text.as_bytes()),
                ("load-latency.csv", csv.as_bytes()),
                ("load-latency.svg", svg.as_bytes()),
                ("load-latency.html", html.as_bytes()),
            ],
        )?;
    }
    Ok(())
}
