//! How many ranks a trace may make the readers allocate for.
//!
//! A rank costs a few hundred bytes while a trace is lowered even when it makes no call, and most
//! formats take their rank count from a number in the file (a `ranks` line, the largest rank or node
//! named, `numprocs`, the locations defined). So every reader checks that count before it allocates
//! anything per rank: against [`crate::mpi::MAX_RANKS`] always, and, for a run, against the network's
//! nodes ([`check_ranks`], a streaming pass that stops at the offending line). A refusal names the
//! file and the line (and column) where the count comes from.

use super::Format;
use crate::error::{Error, Result};
use crate::mpi::MAX_RANKS;
use std::io::BufRead;
use std::path::Path;

/// The largest rank count a trace may have, and what sets it (for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankLimit {
    max: u64,
    of: String,
}

impl Default for RankLimit {
    /// Any trace: at most [`MAX_RANKS`].
    fn default() -> Self {
        RankLimit {
            max: u64::from(MAX_RANKS),
            of: format!("a trace may have at most {MAX_RANKS}"),
        }
    }
}

impl RankLimit {
    /// A trace run on a network of `nodes` nodes (`topology` names it in messages).
    pub fn network(nodes: u32, topology: &str) -> RankLimit {
        if nodes >= MAX_RANKS {
            return RankLimit::default();
        }
        RankLimit {
            max: u64::from(nodes),
            of: format!("`{topology}` has only {nodes} nodes"),
        }
    }

    /// The largest rank count allowed.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Refuses the trace at `path` when its `ranks` (read from its header) are over the limit.
    pub fn check_count(&self, path: &Path, ranks: u64) -> Result<()> {
        self.count(ranks)
            .map_err(|m| Error::Invalid(format!("{}: {m}", path.display())))
    }

    /// `Err(message)` when a trace of `ranks` ranks is over the limit.
    pub fn count(&self, ranks: u64) -> std::result::Result<(), String> {
        if ranks > self.max {
            return Err(format!("the trace has {ranks} ranks, but {}", self.of));
        }
        Ok(())
    }

    /// `Err(message)` when naming rank (or node) `rank` makes the trace too large.
    pub fn rank(&self, rank: u64) -> std::result::Result<(), String> {
        if rank >= self.max {
            return Err(format!(
                "rank {rank} makes the trace {} ranks, but {}",
                rank.saturating_add(1),
                self.of
            ));
        }
        Ok(())
    }
}

/// Refuses the trace at `path` (in `format`, or detected) when it has more ranks than `limit`,
/// without building its program: a native trace by its `ranks` line, a SimGrid or FSIN trace by a
/// pass that stops at the first rank over the limit, OTF2 by its locations, DUMPI by `numprocs`.
/// Other problems of the trace are left to the full read, which reports them with their positions.
pub fn check_ranks(path: &Path, format: Option<Format>, limit: &RankLimit) -> Result<()> {
    let format = match format {
        Some(f) => f,
        None => Format::detect(path)?,
    };
    (format.descriptor().check_ranks)(path, limit)
}

/// [`check_ranks`] of a native trace: its `ranks` line, refused at the count's column.
pub(crate) fn check_native_ranks(path: &Path, limit: &RankLimit) -> Result<()> {
    match native_ranks(path)? {
        Some((n, line, column)) if n > limit.max => Err(Error::File {
            path: path.display().to_string(),
            line,
            column,
            message: format!("the trace declares {n} ranks, but {}", limit.of),
        }),
        _ => Ok(()),
    }
}

/// The rank count a native trace declares on its `ranks N` line, with that line and the count's
/// column, read from its first lines only (`None` when the header is not there: the full read then
/// says what is wrong).
fn native_ranks(path: &Path) -> Result<Option<(u64, usize, usize)>> {
    let mut input = super::open(path)?;
    let mut line = Vec::new();
    for no in 1..=64 {
        line.clear();
        let n = std::io::Read::take(&mut input, 4096)
            .read_until(b'\n', &mut line)
            .map_err(Error::io(path.display()))?;
        if n == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        let content = text.split('#').next().unwrap_or("");
        if let Some(rest) = content.trim_start().strip_prefix("ranks") {
            let column = content.len() - rest.trim_start().len() + 1;
            return Ok(rest.trim().parse().ok().map(|n| (n, no, column)));
        }
    }
    Ok(None)
}
