//! `run`: one workload over one topology, its report printed and written where the flags ask.

use crate::cli::args::RunArgs;
use crate::cli::overlay;
use crate::error::Result;
use crate::{output, report, run};
use std::path::{Path, PathBuf};

/// `run [CONFIG] --topology ... --workload ...`: every output checked before the simulation, the
/// report printed (text or JSON), then the files written.
pub(in crate::cli) fn run(args: RunArgs) -> Result<()> {
    let (cfg, options) = overlay::run(&args)?;
    let outputs = outputs(&args);
    output::check_distinct(&outputs, &inputs(&args, &cfg))?;
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
    output::interrupt::plan(outputs.iter().map(|&(_, path)| path));
    let r = run::execute_with(&cfg, &options).map_err(|e| locate_in_config(&args, &cfg, e))?;
    if let Some(path) = &args.timeline {
        // Streamed during the simulation and complete once it returns.
        output::interrupt::written(path);
    }
    let text = report::json(&r) + "\n";
    // Printed before the file is written, so a failing write cannot lose the result.
    if args.json {
        print!("{text}");
    } else {
        print!("{}", report::run_text(&r));
    }
    if let Some(path) = &args.out {
        output::write_atomic(path, text.as_bytes())?;
        output::interrupt::written(path);
    }
    if let (Some(dir), Some(series)) = (&args.link_load, &r.link_load) {
        report::link_load::write_all(series, dir)?;
        output::interrupt::written(dir);
    }
    if let (Some(path), Some(c)) = (&args.received_per_cycle, &r.counters) {
        output::write_atomic(path, report::run::counters_csv(c).as_bytes())?;
        output::interrupt::written(path);
    }
    if let Some(path) = &args.html {
        output::write_atomic(path, report::html::run(&r).as_bytes())?;
        output::interrupt::written(path);
    }
    Ok(())
}

/// The output flags given, with their paths.
fn outputs(args: &RunArgs) -> Vec<(&'static str, &Path)> {
    [
        ("--out", &args.out),
        ("--timeline", &args.timeline),
        ("--html", &args.html),
        ("--received-per-cycle", &args.received_per_cycle),
        ("--link-load", &args.link_load),
    ]
    .into_iter()
    .filter_map(|(flag, path)| Some((flag, path.as_deref()?)))
    .collect()
}

/// The files the run reads that an output must not replace: its config and its trace.
fn inputs(args: &RunArgs, cfg: &run::RunConfig) -> Vec<PathBuf> {
    let trace = cfg
        .workload
        .as_deref()
        .and_then(|spec| crate::workload::parse(spec).ok())
        .and_then(|w| w.param("file").map(PathBuf::from));
    args.config.iter().cloned().chain(trace).collect()
}

/// An error in a spec the config file gave (not a flag) at its `file:line:column`.
fn locate_in_config(
    args: &RunArgs,
    cfg: &run::RunConfig,
    e: crate::error::Error,
) -> crate::error::Error {
    let Some(path) = &args.config else {
        return e;
    };
    // The `workload` and `placement` of each of `[[jobs]]` are placed by the run, which knows which
    // job erred (`RunOptions::config`); the run's `placement` is the one a job without its own takes.
    let from_file = [
        ("topology", &cfg.topology, args.topology.is_none()),
        (
            "workload",
            &cfg.workload,
            args.workload.is_none() && cfg.jobs.is_empty(),
        ),
        ("placement", &cfg.placement, args.placement.is_none()),
    ];
    from_file
        .into_iter()
        .filter_map(|(key, value, from_file)| Some((key, value.as_deref().filter(|_| from_file)?)))
        .fold(e, |e, (key, value)| {
            run::locate_spec(Some(path), (key, key), value, e)
        })
}
