//! `run`: one workload over one topology, its report printed and written where the flags ask.

use crate::cli::args::RunArgs;
use crate::cli::overlay;
use crate::error::Result;
use crate::{output, report, run};

/// `run [CONFIG] --topology ... --workload ...`: every output checked before the simulation, the
/// report printed (text or JSON), then the files written.
pub(in crate::cli) fn run(args: RunArgs) -> Result<()> {
    let (cfg, options) = overlay::run(&args)?;
    if let Some(path) = &args.out {
        output::prepare_output(path)?;
    }
    for path in [&args.timeline, &args.html, &args.received_per_cycle]
        .into_iter()
        .flatten()
    {
        output::prepare_output(path)?;
    }
    if let Some(dir) = &args.link_load {
        output::prepare_dir(dir)?;
    }
    let r = run::execute_with(&cfg, &options)?;
    let text = report::json(&r) + "\n";
    // Printed before the file is written, so a failing write cannot lose the result.
    if args.json {
        print!("{text}");
    } else {
        print!("{}", report::run_text(&r));
    }
    if let Some(path) = args.out {
        output::write_atomic(&path, text.as_bytes())?;
    }
    if let (Some(dir), Some(series)) = (&args.link_load, &r.link_load) {
        report::link_load::write_all(series, dir)?;
    }
    if let (Some(path), Some(c)) = (&args.received_per_cycle, &r.counters) {
        output::write_atomic(path, report::run::counters_csv(c).as_bytes())?;
    }
    if let Some(path) = args.html {
        output::write_atomic(&path, report::html::run(&r).as_bytes())?;
    }
    Ok(())
}
