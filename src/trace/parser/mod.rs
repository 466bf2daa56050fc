//! The streaming reader of the native trace format (`traces/FORMAT.md`, versions 1 to 3).
//!
//! Input comes line by line from any `BufRead` (a plain file, or a zstd stream decoded on the fly), so a
//! trace is never held in memory as text. Each line is the header, the `ranks` line, a `comm` definition
//! (version 3) or one event; events decode to MPI [`crate::mpi::Call`]s (`events.rs`, with a fast path for the common
//! lines in `fast.rs`) that go to the MPI layer's [`Builder`], which lowers them to the program. Every
//! problem on a line is an [`Error::File`] with the path, the 1-based line and the column of the
//! offending token, saying what was expected and what was found; problems only the MPI layer can see
//! (an unknown communicator, collectives in different orders) name the file and line.

mod events;
mod fast;
mod fields;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::mpi::{Builder, Pos, collectives::Algorithms};
use crate::program::{MpiModel, Program};
use events::RankState;
use fields::{Fields, LineError};
use std::io::{BufRead, Read};

/// The format name written on the header line.
pub const MAGIC: &str = "netreplay-trace";

/// The newest format version: the reader accepts every version from 1 up to it (version 1 lacks the
/// non-blocking and collective events, version 2 communicators and the MPI call set of 3, version 3
/// the `mpi` line of 4). The writer emits the oldest version that holds the program
/// ([`version_for`]), so a file older readers can replay stays readable by them.
pub const VERSION: u32 = 4;

/// The first version with the `mpi` line, which records the MPI model a program runs under.
pub const MPI_LINE_VERSION: u32 = 4;

/// The version the writer emits for a program under `mpi`: 3 under the native default model (no
/// `mpi` line needed), else [`MPI_LINE_VERSION`], so that a reader that predates the line refuses
/// the file instead of replaying it under another protocol.
pub fn version_for(mpi: &MpiModel) -> u32 {
    if *mpi == MpiModel::default() {
        3
    } else {
        MPI_LINE_VERSION
    }
}

/// The `mpi` line recording `mpi` (every key [`MpiModel::set`] reads back), for the writer.
pub fn mpi_line(mpi: &MpiModel) -> String {
    let protocol = match mpi.protocol {
        crate::program::Protocol::Eager => "eager",
        crate::program::Protocol::Rendezvous => "rendezvous",
    };
    format!(
        "mpi protocol={protocol} eager_threshold={} control_bytes={} self_copy={} compute_scale={}",
        mpi.eager_threshold, mpi.control_bytes, mpi.self_copy, mpi.compute_scale
    )
}

/// The native format in the registry of [`crate::trace::formats`]: told by its header line.
pub const FORMAT: crate::trace::formats::Descriptor = crate::trace::formats::Descriptor {
    name: "native",
    aliases: &[],
    help: "netreplay's own text format (traces/FORMAT.md), as `generate` writes it",
    cache_tag: "Native",
    detect_path: None,
    detect_line: Some(|_, line| line.starts_with(MAGIC)),
    folder: None,
    read: |path, opts| crate::trace::read_with(path, &opts.algorithms),
    check_ranks: crate::trace::limits::check_native_ranks,
    sources: |path| Ok(vec![path.to_path_buf()]),
    mpi: crate::program::MpiModel::default,
    records_mpi: true,
    write: Some(crate::trace::formats::Writer {
        check: |_| Ok(()),
        body: |program, out| crate::trace::write_text(program, out),
    }),
    collectives_note: None,
};

/// Longest accepted line in bytes: far above any valid event, so a binary file fed by mistake is
/// refused on its first line instead of being read whole. (Version 3's per-rank count lists make
/// lines longer: 24 bytes per rank of the largest `v` collective.)
const MAX_LINE: usize = 1 << 20;

/// Largest rank count a trace may declare (what the MPI layer lowers).
const MAX_RANKS: u64 = crate::mpi::MAX_RANKS as u64;

/// Where the reader is in the file.
enum State {
    /// Before the header line.
    Header,
    /// After the header (of this version), before the `ranks` line.
    Ranks(u32),
    /// Reading events of this version: each rank's state so far, and the calls so far.
    Events(u32, Vec<RankState>, Box<Builder>),
}

/// Parses one trace from `input`, line by line, with the default collective algorithms; `path` only
/// names the file in errors.
pub fn parse(path: &str, input: impl BufRead) -> Result<Program> {
    parse_with(path, input, &Algorithms::default())
}

/// Parses one trace from `input`, expanding collectives with `algorithms`.
pub fn parse_with(path: &str, mut input: impl BufRead, algorithms: &Algorithms) -> Result<Program> {
    let at = |line: usize, (column, message): LineError| Error::File {
        path: path.to_string(),
        line,
        column,
        message,
    };
    let mut state = State::Header;
    let mut calls = Vec::new();
    let mut buf = Vec::new();
    // The fast path reads whole lines from the buffer; a large one keeps per-refill overhead small.
    let mut input = std::io::BufReader::with_capacity(1 << 17, &mut input);
    let mut line_no = 0;
    // The model an `mpi` line records, and whether an event or `comm` line has been read (the
    // `mpi` line comes before them).
    let mut model: Option<MpiModel> = None;
    let mut past_head = false;
    loop {
        // Fast path: whole lines of common events straight from the reader's buffer, no copy.
        if let State::Events(version, per_rank, builder) = &mut state {
            let avail = input.fill_buf().map_err(Error::io(path))?;
            let mut used = 0;
            while let Some(nl) = memchr::memchr(b'\n', &avail[used..]) {
                let pos = line_pos(line_no + 1);
                let push = |rank, call| builder.push(rank, call, pos);
                if fast::fast_event(&avail[used..used + nl + 1], per_rank, *version, push).is_none()
                {
                    break;
                }
                used += nl + 1;
                line_no += 1;
            }
            if used > 0 {
                past_head = true;
                input.consume(used);
                continue;
            }
        }
        buf.clear();
        let read = (&mut input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(Error::io(path))?;
        if read == 0 {
            break;
        }
        line_no += 1;
        if buf.last() != Some(&b'\n') && buf.len() > MAX_LINE {
            return Err(at(
                line_no,
                (
                    1,
                    format!("line longer than {MAX_LINE} bytes; is this a trace?"),
                ),
            ));
        }
        let text = std::str::from_utf8(&buf).map_err(|e| {
            let col = String::from_utf8_lossy(&buf[..e.valid_up_to()])
                .chars()
                .count()
                + 1;
            at(
                line_no,
                (col, "expected text, found a byte that is not UTF-8".into()),
            )
        })?;
        let text = text.trim_end_matches(['\n', '\r']);
        let content = text.split('#').next().unwrap_or("");
        let mut fields = Fields::new(content);
        let Some((col, first)) = fields.next() else {
            continue; // blank or comment-only line
        };
        match &mut state {
            State::Header => {
                if first != MAGIC {
                    return Err(at(
                        line_no,
                        (
                            col,
                            format!("missing header `{MAGIC} {VERSION}`, found `{first}`"),
                        ),
                    ));
                }
                let (vcol, v) = fields
                    .number("a format version", u64::from(u32::MAX))
                    .map_err(|e| at(line_no, e))?;
                if v == 0 || v > u64::from(VERSION) {
                    return Err(at(
                        line_no,
                        (
                            vcol,
                            format!(
                                "unsupported version {v} (this netreplay reads versions 1 to {VERSION})"
                            ),
                        ),
                    ));
                }
                fields.finish().map_err(|e| at(line_no, e))?;
                state = State::Ranks(v as u32);
            }
            State::Ranks(version) => {
                let version = *version;
                if first != "ranks" {
                    return Err(at(
                        line_no,
                        (
                            col,
                            format!("expected `ranks N` after the header, found `{first}`"),
                        ),
                    ));
                }
                let (ncol, n) = fields
                    .number("a rank count", u64::MAX)
                    .map_err(|e| at(line_no, e))?;
                if !(2..=MAX_RANKS).contains(&n) {
                    return Err(at(
                        line_no,
                        (ncol, format!("rank count {n} out of range 2..={MAX_RANKS}")),
                    ));
                }
                fields.finish().map_err(|e| at(line_no, e))?;
                let mut builder = Builder::new(n as u32, algorithms)
                    .map_err(|e| at(line_no, (ncol, e.to_string())))?;
                builder.file(path, false);
                state = State::Events(
                    version,
                    vec![RankState::default(); n as usize],
                    Box::new(builder),
                );
            }
            State::Events(version, per_rank, builder) => {
                if first == "mpi" {
                    model = Some(
                        read_mpi_line(&mut fields, *version, past_head || model.is_some())
                            .map_err(|e| at(line_no, e))?,
                    );
                    continue;
                }
                past_head = true;
                if first == "comm" {
                    define_comm(&mut fields, *version, builder).map_err(|e| at(line_no, e))?;
                    continue;
                }
                let rank = events::event(content, per_rank, *version, &mut calls)
                    .map_err(|e| at(line_no, e))?;
                for call in calls.drain(..) {
                    builder.push(rank, call, line_pos(line_no));
                }
            }
        }
    }
    match state {
        State::Header => Err(at(
            line_no.max(1),
            (
                1,
                format!("missing header `{MAGIC} {VERSION}`: the file has no content"),
            ),
        )),
        State::Ranks(_) => Err(at(
            line_no + 1,
            (1, "missing `ranks N` line after the header".into()),
        )),
        State::Events(_, _, builder) => Ok((*builder)
            .finish()?
            .with_mpi(model.unwrap_or_else(|| (FORMAT.mpi)()))),
    }
}

/// `mpi KEY=VALUE...` (version 4): the MPI model the program runs under, each key one of the trace
/// workload's ([`MpiModel::set`]); keys not given keep the native default. `late`: an event, a
/// `comm` line or another `mpi` line came before it.
fn read_mpi_line(fields: &mut Fields, version: u32, late: bool) -> Result<MpiModel, LineError> {
    if version < MPI_LINE_VERSION {
        return Err((
            1,
            format!("`mpi` lines need format version {MPI_LINE_VERSION}"),
        ));
    }
    if late {
        return Err((
            1,
            "the `mpi` line comes once, after the `ranks` line and before any event".into(),
        ));
    }
    let mut mpi = (FORMAT.mpi)();
    while let Some((col, field)) = fields.next() {
        let Some((key, value)) = field.split_once('=') else {
            return Err((
                col,
                format!("expected KEY=VALUE (protocol=rendezvous, ...), found `{field}`"),
            ));
        };
        mpi.set(key, value).map_err(|e| (col, e.to_string()))?;
    }
    Ok(mpi)
}

/// Line `line_no` of the trace (its only file, index 0 of the builder).
fn line_pos(line_no: usize) -> Pos {
    Pos {
        file: 0,
        at: line_no as u64,
    }
}

/// `comm ID RANK...` (version 3): a communicator of these world ranks, in order, named `ID` on each.
fn define_comm(fields: &mut Fields, version: u32, builder: &mut Builder) -> Result<(), LineError> {
    if version < 3 {
        return Err((1, "`comm` definitions need format version 3".into()));
    }
    let (col, id) = fields.number("a communicator handle", u64::from(u32::MAX))?;
    if id < 2 {
        return Err((
            col,
            "handles 0 and 1 are MPI_COMM_WORLD and MPI_COMM_SELF".into(),
        ));
    }
    let n = u64::from(builder.ranks());
    let members = fields.numbers("a world rank", n.saturating_sub(1))?;
    if members.is_empty() {
        return Err((col, "a communicator needs at least one rank".into()));
    }
    builder
        .define_comm(id as u32, members.into_iter().map(|m| m as u32).collect())
        .map_err(|e| (col, e.to_string()))
}
