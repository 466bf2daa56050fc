//! `trace check`: a trace parsed and its statistics and consistency printed.

use crate::cli::args::TraceAction;
use crate::error::Result;
use crate::{report, trace};

/// `trace check FILE [--json] [--format F] [--jobs connected|MERGE.json] [--max-memory SIZE]`: fails
/// (exit 1) when a send lacks its receive or a request is never waited on, after printing what was
/// found; the trace's lowering is kept under `--max-memory` (else the memory available).
pub(in crate::cli) fn trace(action: TraceAction) -> Result<()> {
    let TraceAction::Check {
        file,
        json,
        format,
        jobs,
        max_memory,
    } = action;
    let opts = trace::ReadOptions {
        format: trace::Format::parse(&format)?,
        ..trace::ReadOptions::default()
    };
    let split = jobs.as_deref().map(trace::jobs::Split::parse);
    let c = crate::network::memory::with_limit(max_memory, || {
        trace::check::check_file(&file, &opts, split.as_ref())
    })?;
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
