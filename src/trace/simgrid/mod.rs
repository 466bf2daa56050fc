//! Import of SimGrid SMPI time-independent traces (the input of `smpi_replay`; semantics read from
//! SimGrid's `src/smpi/internals/smpi_replay.cpp` and `src/xbt/xbt_replay.cpp`).
//!
//! A trace is either one file holding every rank's actions (lines `RANK ACTION ARGS...`, ranks
//! interleaved) or an index file listing one action file per rank, in rank order (then, as in SimGrid,
//! the leading rank token of each line is not checked: the file's position is the rank). Index paths are
//! resolved against the index's folder, then each of its ancestors (SimGrid resolves them against the
//! working directory, which for its examples is an ancestor). Blank lines and `#` lines are skipped,
//! tokens are separated by blanks, numbers may be written as doubles (`1e6`), the last line may lack
//! its newline. A token after an action's arguments and optional datatype ids is an error at its
//! column (SimGrid ignores it; a typo there would otherwise change nothing silently), except after the
//! no-op actions and `allgatherv`'s displacements, which SimGrid's tracer writes and the replay ignores.
//!
//! Sizes are element counts of a datatype: MPI_BYTE unless the rank's `init` has an argument (then
//! MPI_DOUBLE, SimGrid's "MPE" default); an optional trailing datatype id (SimGrid's predefined ids,
//! 0 = MPI_DOUBLE, 1 = MPI_INT, 2 = MPI_CHAR, 6 = MPI_BYTE, ... up to 37) overrides it. `compute F` and
//! the computation part of `reduce`, `allreduce` and `reducescatter` become `F / flops_per_cycle`
//! cycles; `sleep S` becomes `S * cycles_per_second` cycles.
//!
//! `isend`/`irecv` post requests keyed by (source, destination, tag); `wait SRC DST TAG` completes the
//! oldest outstanding request with that key (a wait with none is a no-op, as in SimGrid, where a
//! successful `test` may have consumed it); `test` is a no-op (the request stays for a later wait, which
//! then finds it complete if its message has arrived); `waitall` waits for every outstanding request.
//! `sendRecv SENDCOUNT DST RECVCOUNT SRC [DT1 DT2]` (what SimGrid's tracer writes for MPI_Sendrecv; the
//! tags are not recorded, so both directions use tag 0) is a send and a receive in flight together.
//! Self-messages (partner = own rank) are delivered locally by the MPI layer, as SimGrid replays them.
//! Collectives are calls of the MPI layer, which chooses their algorithms ([`crate::mpi::collectives`],
//! not SimGrid's own selector); TI traces name no communicator, so every collective and message is on
//! MPI_COMM_WORLD, as SimGrid's replay does (`comm_split`, `comm_dup` are no-ops there too).
//! `init`, `finalize`, `comm_size`, `comm_split`, `comm_dup` and `location` are no-ops, as in SimGrid.
//! What SimGrid's tracer writes but its replay refuses: `Ssend`/`ISsend` are synchronous sends
//! (MPI_Ssend, MPI_Issend: complete once the receive matched); `waitAny COUNT` (MPI_Waitany, no
//! request list or outcome recorded) completes the rank's oldest outstanding request (there is no
//! list to take the first completion of); `testall`, `testany` and `testsome` are no-ops, as `test`
//! is. Every other action is refused with its name and position. Datatype ids are SimGrid 3.32's
//! predefined types 0..=59 (38..=59 the Fortran and C++ ones); a derived type (written as id -1,
//! with no size) takes the size the `dtsize=ID:BYTES/...` option gives, else is refused.
//! `MPI_ANY_SOURCE`, written `-333` (SimGrid's MPI_UNDEFINED, the world rank of "any"), in a
//! receive, `sendRecv` or `wait` is left to the replay, which matches it in arrival order
//! (`mpi/matching.rs`; SimGrid's own replay cannot replay it).

use crate::error::{Error, Result};
use crate::mpi::collectives::Algorithms;
use crate::program::Program;
use std::io::{BufRead, Read as _};
use std::path::{Path, PathBuf};

/// SimGrid TI traces in the registry of [`crate::trace::formats`]: told by an action line, or an
/// index line (naming an existing file, or one field that reads as a file's path).
pub const FORMAT: super::formats::Descriptor = super::formats::Descriptor {
    name: "simgrid",
    aliases: &[],
    help: "SimGrid SMPI time-independent traces (one action file, or an index of per-rank files)",
    cache_tag: "SimGrid",
    detect_path: None,
    detect_line: Some(|path, line| {
        is_action_line(line) || is_index_line(path, line) || names_a_file(line)
    }),
    folder: None,
    read: |path, opts| read(path, &opts.algorithms, opts.units),
    check_ranks: |path, limit| count_ranks(path, limit).map(drop),
    sources,
    mpi: crate::program::MpiModel::mpich,
    records_mpi: false,
    write: None,
    collectives_note: Some(
        "SimGrid time-independent traces record no communicators: every collective is replayed \
         over all ranks (MPI_COMM_WORLD), whatever communicator the application used",
    ),
};

/// Whether `line` is one field that reads as a file's path: a folder and a name, or a name with an
/// extension (`replay/actions0.txt`). An index whose files are missing is then read as one, and its
/// reader says which file it did not find, where the native reader would report a missing header.
fn names_a_file(line: &str) -> bool {
    let mut fields = line.split_ascii_whitespace();
    let (Some(field), None) = (fields.next(), fields.next()) else {
        return false;
    };
    let name = field.rsplit('/').next().unwrap_or(field);
    let extension = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && ext.chars().any(|c| c.is_ascii_alphabetic())
    });
    (field.contains('/') && !name.is_empty()) || extension
}

/// Whether `line` names an existing file beside `path` or in one of its ancestors (an index).
fn is_index_line(path: &Path, line: &str) -> bool {
    path.parent()
        .into_iter()
        .flat_map(Path::ancestors)
        .any(|d| d.join(line).is_file())
}
mod actions;
mod datatypes;

use super::limits::RankLimit;

pub(crate) use actions::Line;
pub use actions::MAX_BYTES;
use actions::Reader;
pub use datatypes::DerivedSizes;

/// Conversion of SimGrid's work units to network cycles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Units {
    /// Flops a rank computes per network cycle (`flops_per_cycle`, default 1: a 1 Gflop/s core against
    /// a 1 GHz network clock).
    pub flops_per_cycle: f64,
    /// Network cycles per second of `sleep` (`cycles_per_second`, default 1e9).
    pub cycles_per_second: f64,
    /// Bytes of the trace's derived datatypes (`dtsize=`), which the trace does not give.
    pub derived: DerivedSizes,
}

impl Default for Units {
    fn default() -> Self {
        Units {
            flops_per_cycle: 1.0,
            cycles_per_second: crate::program::DEFAULT_CYCLES_PER_SECOND,
            derived: DerivedSizes::default(),
        }
    }
}

/// The longest line read (64 MiB): a `v` collective lists a count per rank, so lines grow with the
/// rank count; a file with no newline is refused after this much, not held whole in memory.
const MAX_LINE: usize = 1 << 26;

/// Calls `each(line_no, text)` for every line of `input` that is not blank or a `#` comment.
pub(crate) fn lines(
    path: &str,
    mut input: impl BufRead,
    mut each: impl FnMut(usize, &str) -> Result<()>,
) -> Result<()> {
    let mut buf = Vec::new();
    let mut no = 0;
    loop {
        buf.clear();
        let read = (&mut input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(Error::io(path))?;
        if read == 0 {
            return Ok(());
        }
        no += 1;
        if buf.len() > MAX_LINE {
            return Err(Error::File {
                path: path.to_string(),
                line: no,
                column: 1,
                message: format!("line longer than {MAX_LINE} bytes; is this a trace?"),
            });
        }
        let text = std::str::from_utf8(&buf).map_err(|e| Error::File {
            path: path.to_string(),
            line: no,
            column: String::from_utf8_lossy(&buf[..e.valid_up_to()])
                .chars()
                .count()
                + 1,
            message: "expected text, found a byte that is not UTF-8".into(),
        })?;
        let text = text.trim_end_matches(['\n', '\r']);
        let trimmed = text.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        each(no, text)?;
    }
}

/// Builds the `path:line:column` error of a line reader's `(column, message)` at `line`.
pub(crate) fn located(path: &str) -> impl Fn(usize, (usize, String)) -> Error + '_ {
    move |line, (column, message)| Error::File {
        path: path.to_string(),
        line,
        column,
        message,
    }
}

/// Whether `line` (the first content line of a file) is a SimGrid action: a rank, then an action name.
pub fn is_action_line(line: &str) -> bool {
    let mut t = line.split_ascii_whitespace();
    matches!(
        (t.next().map(|r| r.parse::<u64>().is_ok()), t.next()),
        (Some(true), Some(a)) if a.chars().all(|c| c.is_ascii_lowercase() || c == '_')
    )
}

/// Resolves an index entry against the index's folder and its ancestors.
fn resolve(index: &Path, entry: &str) -> Option<PathBuf> {
    let entry = Path::new(entry);
    if entry.is_absolute() {
        return entry.exists().then(|| entry.to_path_buf());
    }
    index
        .parent()
        .into_iter()
        .flat_map(Path::ancestors)
        .map(|dir| dir.join(entry))
        .find(|p| p.is_file())
}

/// The files a SimGrid trace at `path` is read from: itself, and if it is an index, every per-rank
/// file it lists that exists (what a cache of the trace must be keyed on).
pub fn sources(path: &Path) -> Result<Vec<PathBuf>> {
    let name = path.display().to_string();
    let mut files = vec![path.to_path_buf()];
    let mut index = None;
    lines(&name, super::open(path)?, |_, text| {
        if index.is_none() {
            index = Some(!is_action_line(text));
        }
        if index == Some(true) {
            files.extend(resolve(path, text.trim()));
        }
        Ok(())
    })?;
    Ok(files)
}

/// Whether the SimGrid trace at `path` is one action file (`None`) or an index, with its entries'
/// lines and the files they name (an entry not found is an error at its line).
fn index_entries(path: &Path) -> Result<Option<Vec<(usize, PathBuf)>>> {
    let name = path.display().to_string();
    let mut first = None;
    lines(&name, super::open(path)?, |_, text| {
        first = Some(text.to_string());
        // Only the first content line is needed; an Invalid marker stops the pass.
        Err(Error::Invalid(String::new()))
    })
    .or_else(|e| match e {
        Error::Invalid(m) if m.is_empty() => Ok(()),
        e => Err(e),
    })?;
    let Some(first) = first else {
        return Err(Error::File {
            path: name,
            line: 1,
            column: 1,
            message: "empty SimGrid trace: expected actions or an index of per-rank files".into(),
        });
    };
    if is_action_line(&first) {
        return Ok(None);
    }
    let mut files = Vec::new();
    lines(&name, super::open(path)?, |no, text| {
        let entry = text.trim();
        // A limit far above any real index keeps a hostile one from growing this list unbounded.
        if files.len() as u64 >= u64::from(crate::mpi::MAX_RANKS) {
            return Err(Error::File {
                path: name.clone(),
                line: no,
                column: 1,
                message: RankLimit::default()
                    .rank(files.len() as u64)
                    .err()
                    .unwrap_or_default(),
            });
        }
        match resolve(path, entry) {
            Some(p) => {
                files.push((no, p));
                Ok(())
            }
            None => Err(Error::File {
                path: name.clone(),
                line: no,
                column: text.len() - text.trim_start().len() + 1,
                message: format!(
                    "per-rank trace file `{entry}` not found (looked beside the index and in the \
                     folders above it)"
                ),
            }),
        }
    })?;
    Ok(Some(files))
}

/// The rank count of the SimGrid trace at `path` (an index's entries, or one plus the largest rank
/// of an action file), refused at the first line that takes it past `limit`.
pub fn count_ranks(path: &Path, limit: &RankLimit) -> Result<u64> {
    let Some(files) = index_entries(path)? else {
        return shared_ranks(path, limit);
    };
    if let [(_, one)] = files.as_slice() {
        return shared_ranks(one, limit);
    }
    if let Some((line, _)) = files.get(limit.max() as usize) {
        return Err(Error::File {
            path: path.display().to_string(),
            line: *line,
            column: 1,
            message: format!(
                "this entry is rank {}: {}",
                limit.max(),
                limit.count(limit.max() + 1).err().unwrap_or_default()
            ),
        });
    }
    Ok(files.len() as u64)
}

/// Reads a SimGrid trace at `path`: an action file with every rank, or an index of action files.
pub fn read(path: &Path, algorithms: &Algorithms, units: Units) -> Result<Program> {
    let name = path.display().to_string();
    let Some(files) = index_entries(path)? else {
        return read_shared(path, algorithms, units);
    };
    if let [(_, one)] = files.as_slice() {
        return read_shared(one, algorithms, units);
    }
    if files.len() < 2 {
        return Err(Error::Invalid(format!(
            "{name}: an index lists {} files, but a replay needs at least 2 ranks",
            files.len(),
        )));
    }
    let mut reader = Reader::new(files.len(), algorithms, units)?;
    for (r, (_, file)) in files.iter().enumerate() {
        let fname = file.display().to_string();
        reader.pos.file = reader.builder.file(&fname, false);
        lines(&fname, super::open(file)?, |no, text| {
            reader.pos.at = no as u64;
            let line = Line::new(text);
            reader
                .action(&line, r as u32)
                .map_err(|(column, message)| Error::File {
                    path: fname.clone(),
                    line: no,
                    column,
                    message,
                })
        })?;
    }
    finish(reader)
}

/// One plus the largest rank of the action file at `path`, refused at the first line naming a rank
/// past `limit` (before anything per rank is allocated).
fn shared_ranks(path: &Path, limit: &RankLimit) -> Result<u64> {
    let name = path.display().to_string();
    let at = located(&name);
    let mut max = 0u64;
    lines(&name, super::open(path)?, |no, text| {
        let line = Line::new(text);
        let (col, t) = line.get(0, "a rank").map_err(|e| at(no, e))?;
        let r = t.parse::<u64>().map_err(|_| {
            at(
                no,
                (
                    col,
                    format!("expected a rank (a whole number), found `{t}`"),
                ),
            )
        })?;
        limit.rank(r).map_err(|m| at(no, (col, m)))?;
        max = max.max(r);
        Ok(())
    })?;
    Ok(max + 1)
}

/// A file holding every rank's actions: a first pass finds the rank count, the second replays.
fn read_shared(path: &Path, algorithms: &Algorithms, units: Units) -> Result<Program> {
    let name = path.display().to_string();
    let at = located(&name);
    let ranks = shared_ranks(path, &RankLimit::default())?;
    if ranks == 1 {
        return Err(Error::Invalid(format!(
            "{name}: only rank 0 has actions; a replay needs at least 2 ranks (is this one file of a \
             per-rank trace? give its index instead)"
        )));
    }
    let mut reader = Reader::new(ranks as usize, algorithms, units)?;
    reader.pos.file = reader.builder.file(&name, false);
    lines(&name, super::open(path)?, |no, text| {
        reader.pos.at = no as u64;
        let line = Line::new(text);
        let r = line.tokens[0]
            .1
            .parse::<u32>()
            .expect("checked in the first pass");
        reader.action(&line, r).map_err(|e| at(no, e))
    })?;
    finish(reader)
}

fn finish(reader: Reader) -> Result<Program> {
    let p = reader.builder.finish()?;
    p.validate()?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::datatypes::datatype_size;
    use super::*;

    #[test]
    fn datatypes_and_lines() {
        assert_eq!(datatype_size(0), Some(8));
        assert_eq!(datatype_size(6), Some(1));
        assert_eq!(datatype_size(26), Some(16));
        assert_eq!(datatype_size(43), Some(16));
        assert_eq!(datatype_size(60), None);
        let l = Line::new("  0 send\t1 0 1e6  ");
        assert_eq!(
            l.tokens,
            [(3, "0"), (5, "send"), (10, "1"), (12, "0"), (14, "1e6")]
        );
        assert!(is_action_line("0 init"));
        assert!(is_action_line("12 allgatherv 1 2"));
        assert!(!is_action_line("replay/actions0.txt"));
        assert!(!is_action_line("netreplay-trace 2"));
    }
}
