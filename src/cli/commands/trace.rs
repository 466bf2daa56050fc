//! `trace check`: a trace parsed and its statistics and consistency printed.

use crate::cli::args::TraceAction;
use crate::error::Result;
use crate::{report, trace};

/// `trace check FILE [--json] [--format F] [--jobs connected|MERGE.json]`: fails (exit 1) when a send lacks its receive or a
/// request is never waited on, after printing what was found.
pub(in crate::cli) fn trace(action: TraceAction) -> Result<()> {
    let TraceAction::Check {
        file,
        json,
        format,
        jobs,
    } = action;
    let opts = trace::ReadOptions {
        format: trace::Format::parse(&format)?,
        ..trace::ReadOptions::default()
    };
    let split = jobs.as_deref().map(trace::jobs::Split::parse);
    let c = trace::check::check_file(&file, &opts, split.as_ref())?;
    print!(
        "{}",
        if json {
            report::json(&c) + "\n"
        } else {
            trace::check::text(&c)
        }
    );
    c.require_ok(&file.display().to_string())
}
