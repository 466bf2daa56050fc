//! The record stream of one rank file: each record's common prefix and its arguments, decoded by the
//! layouts of [`super::functions`] into reusable buffers (no allocation per record once warm).
//!
//! A record is (sst-dumpi `STARTREAD` in `dumpi/common/iodefs.h`):
//! ```text
//! id (u16)  mask (u8)  [thread (u16) if mask & 0x40]
//! [CPU start s (u16), ns (u32), stop s (u16), ns (u32)  if mask & 0x04]
//! [wall start s (u16), ns (u32), stop s (u16), ns (u32) if mask & 0x08]
//! [counter count (u8), then per counter of the label table its value in and out (u64 each) if mask & 0x80]
//! arguments (statuses only if mask & 0x03)
//! ```
//! Seconds are 16-bit offsets from the body's 32-bit base; the reader unwraps them (a later time is
//! taken to be within 2^15 s of the one before) so traces longer than 18 hours keep their gaps.

use super::functions::{self, ALL_FUNCTIONS, END_OF_STREAM, FUNCTIONS};
use super::header::Layout;
use super::input::Input;
use crate::error::Error;

/// One status as DUMPI stores it (`dumpi_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawStatus {
    /// Bytes received (`MPI_Get_count` with MPI_CHAR); meaningless for sends.
    pub(crate) bytes: i32,
    /// Source rank; MPI_PROC_NULL's value (negative) for a receive from MPI_PROC_NULL.
    pub(crate) source: i32,
    /// Whether the request was cancelled.
    pub(crate) cancelled: u8,
    /// Error code.
    pub(crate) error: u8,
    /// Tag; -1 (unknown) before format 0.6.3.
    pub(crate) tag: i32,
}

/// One decoded argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// A scalar (sign-extended `int`, or an unsigned handle or enumeration value).
    Int(i64),
    /// An array: `len` values from `start` in the pool.
    Array { start: usize, len: usize },
    /// Statuses: `len` from `start` in the status pool (0 for MPI_STATUS_IGNORE).
    Statuses { start: usize, len: usize },
    /// Statuses the trace was configured not to write.
    NoStatuses,
    /// Not present in this record (a root-only argument on another rank), or not kept (strings,
    /// irregular nested arrays).
    Absent,
}

/// The arguments of the current record.
#[derive(Debug, Default)]
pub(crate) struct Args {
    fields: Vec<Field>,
    pool: Vec<i64>,
    statuses: Vec<RawStatus>,
}

impl Args {
    fn clear(&mut self) {
        self.fields.clear();
        self.pool.clear();
        self.statuses.clear();
    }

    /// Argument `k` as a scalar (`None` if absent or not a scalar).
    pub(crate) fn get(&self, k: usize) -> Option<i64> {
        match self.fields.get(k) {
            Some(Field::Int(v)) => Some(*v),
            _ => None,
        }
    }

    /// Argument `k` as a scalar, 0 if absent (layouts fix every index a caller uses).
    pub(crate) fn int(&self, k: usize) -> i64 {
        self.get(k).unwrap_or(0)
    }

    /// Argument `k` as an array (empty if absent).
    pub(crate) fn array(&self, k: usize) -> &[i64] {
        match self.fields.get(k) {
            Some(&Field::Array { start, len }) => &self.pool[start..start + len],
            _ => &[],
        }
    }

    /// Whether argument `k` was read (root-only arguments are absent elsewhere).
    pub(crate) fn present(&self, k: usize) -> bool {
        !matches!(self.fields.get(k), None | Some(Field::Absent))
    }

    /// Argument `k` as statuses: `None` if the trace does not record statuses, else the recorded ones
    /// (empty for MPI_STATUS_IGNORE).
    pub(crate) fn statuses(&self, k: usize) -> Option<&[RawStatus]> {
        match self.fields.get(k) {
            Some(&Field::Statuses { start, len }) => Some(&self.statuses[start..start + len]),
            _ => None,
        }
    }
}

/// A time interval in nanoseconds since the epoch of the trace's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// Call entry.
    pub(crate) start: u64,
    /// Call exit.
    pub(crate) stop: u64,
}

/// Unwraps DUMPI's 16-bit seconds into a running count.
#[derive(Debug, Default)]
struct Clock {
    base: u64,
    last: Option<(u16, i64)>,
}

impl Clock {
    fn time(&mut self, sec: u16, nsec: u32) -> u64 {
        let full = match self.last {
            None => i64::from(sec),
            Some((last, full)) => (full + i64::from(sec.wrapping_sub(last) as i16)).max(0),
        };
        self.last = Some((sec, full));
        self.base
            .saturating_add(full as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add(u64::from(nsec))
    }
}

/// The common part of the record just read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head {
    /// Function id.
    pub(crate) id: u16,
    /// Byte offset of the record.
    pub(crate) at: u64,
    /// Wall-clock interval of the call, else its CPU-time interval, if the trace has either.
    pub(crate) time: Option<Span>,
}

/// Reads the records of one rank file in order.
pub(crate) struct Records {
    /// The file.
    pub(crate) input: Input,
    /// Its fixed sections.
    pub(crate) layout: Layout,
    cpu: Clock,
    wall: Clock,
    finalized: bool,
    /// Whether the current record holds statuses (its mask's low bits).
    statuses: bool,
    /// Arguments of the last record.
    pub(crate) args: Args,
}

impl Records {
    /// Starts reading the records of `input` (whose `layout` was read).
    pub(crate) fn new(mut input: Input, layout: Layout) -> Result<Records, Error> {
        input.seek(layout.body)?;
        input.set_limit(layout.body_end);
        let what = "the time offsets at the start of the body";
        let cpu = u64::from(input.u32(what)?);
        let wall = u64::from(input.u32(what)?);
        Ok(Records {
            input,
            layout,
            cpu: Clock {
                base: cpu,
                last: None,
            },
            wall: Clock {
                base: wall,
                last: None,
            },
            finalized: false,
            statuses: false,
            args: Args::default(),
        })
    }

    /// The next record's common part (its arguments in [`Records::args`]), or `None` at the end.
    pub(crate) fn next(&mut self) -> Result<Option<Head>, Error> {
        if self.input.room() == 0 {
            return Ok(None);
        }
        let at = self.input.pos();
        let id = self.input.u16("a function id")?;
        if id == END_OF_STREAM {
            return Ok(None);
        }
        // Streams of early DUMPI versions end with a zero id after MPI_Finalize.
        if self.finalized && (id == 0 || id == ALL_FUNCTIONS) {
            return Ok(None);
        }
        let spec = match FUNCTIONS.get(id as usize) {
            Some((_, "-")) => {
                return Err(self.input.place.error(
                    at,
                    format!(
                        "{} (function id {id}) is not a call record DUMPI writes, and has no \
                         layout; the file is corrupt",
                        functions::name(id)
                    ),
                ));
            }
            Some((_, spec)) => *spec,
            None => {
                return Err(self.input.place.error(
                    at,
                    format!(
                        "unknown function id {id} (DUMPI's go up to {}, and {END_OF_STREAM} ends \
                         the stream); the file is corrupt or from a DUMPI this reader does not \
                         know, and records carry no length to skip it",
                        END_OF_STREAM - 1
                    ),
                ));
            }
        };
        if id == functions::FINALIZE {
            self.finalized = true;
        }
        let time = self.prefix().map_err(|e| self.context(e, id, at))?;
        self.arguments(spec).map_err(|e| self.context(e, id, at))?;
        Ok(Some(Head { id, at, time }))
    }

    /// Names the record in an error from inside it.
    fn context(&self, e: Error, id: u16, at: u64) -> Error {
        match e {
            Error::Invalid(m) => Error::Invalid(format!(
                "{m} (in the {} record at byte {at})",
                functions::name(id)
            )),
            other => other,
        }
    }

    fn prefix(&mut self) -> Result<Option<Span>, Error> {
        let what = "a record's prefix";
        let mask = self.input.u8(what)?;
        self.statuses = mask & 0x03 != 0;
        if mask & 0x40 != 0 {
            self.input.u16(what)?;
        }
        let mut cpu = None;
        let mut wall = None;
        for (bit, slot) in [(0x04u8, &mut cpu), (0x08, &mut wall)] {
            if mask & bit != 0 {
                let b: [u8; 12] = self.input.array(what)?;
                let sec = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
                let nsec = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
                *slot = Some((sec(0), nsec(2), sec(6), nsec(8)));
            }
        }
        if mask & 0x80 != 0 {
            self.input.u8(what)?;
            let n = u64::from(self.layout.perf_counters);
            self.input.check_room(n, 16, "performance counter values")?;
            self.input.skip(n * 16, "performance counter values")?;
        }
        let span = |c: &mut Clock, (s0, n0, s1, n1): (u16, u32, u16, u32)| Span {
            start: c.time(s0, n0),
            stop: c.time(s1, n1),
        };
        let c = cpu.map(|t| span(&mut self.cpu, t));
        let w = wall.map(|t| span(&mut self.wall, t));
        Ok(w.or(c))
    }
}

impl Records {
    fn int(&mut self, what: &str) -> Result<i64, Error> {
        Ok(i64::from(self.input.i32(what)?))
    }

    /// An `int` array; `keep` stores it in the pool, else it is only skipped.
    fn int_array(&mut self, keep: bool, what: &str) -> Result<Field, Error> {
        let n = self.input.i32(what)?.max(0) as u64;
        self.input.check_room(n, 4, what)?;
        if !keep {
            self.input.skip(n * 4, what)?;
            return Ok(Field::Absent);
        }
        let start = self.args.pool.len();
        for _ in 0..n {
            let v = self.int(what)?;
            self.args.pool.push(v);
        }
        Ok(Field::Array {
            start,
            len: n as usize,
        })
    }

    fn string(&mut self, what: &str) -> Result<(), Error> {
        let n = self.input.i32(what)?.max(0) as u64;
        self.input.skip(n, what)
    }

    fn strings(&mut self, what: &str) -> Result<(), Error> {
        let n = self.input.i32(what)?.max(0);
        for _ in 0..n {
            self.string(what)?;
        }
        Ok(())
    }

    /// Decodes the arguments of layout `spec` into [`Records::args`].
    fn arguments(&mut self, spec: &str) -> Result<(), Error> {
        self.args.clear();
        let what = "the arguments";
        let (mut commrank, mut root) = (None, None);
        let mut at_root_only = false;
        for c in spec.bytes() {
            match c {
                b' ' => continue,
                b'^' => {
                    at_root_only = true;
                    continue;
                }
                _ => {}
            }
            if std::mem::take(&mut at_root_only) && commrank != root {
                self.args.fields.push(Field::Absent);
                continue;
            }
            let field = match c {
                b'i' => Field::Int(self.int(what)?),
                b'k' => {
                    let v = self.int(what)?;
                    commrank = Some(v);
                    Field::Int(v)
                }
                b'r' => {
                    let v = self.int(what)?;
                    root = Some(v);
                    Field::Int(v)
                }
                b'l' => Field::Int(self.input.u64(what)? as i64),
                b'h' => Field::Int(i64::from(self.input.u16(what)?)),
                b'b' => Field::Int(i64::from(self.input.u8(what)?)),
                b'I' => self.int_array(true, what)?,
                b'X' | b'Y' => {
                    let newer = if c == b'X' { 9 } else { 8 };
                    if self.layout.at_least(0, 6, newer) {
                        self.int_array(true, what)?
                    } else {
                        Field::Int(self.int(what)?)
                    }
                }
                b'H' | b'B' => {
                    let n = self.input.i32(what)?.max(0) as u64;
                    let size = if c == b'H' { 2 } else { 1 };
                    self.input.check_room(n, size, what)?;
                    let start = self.args.pool.len();
                    for _ in 0..n {
                        let v = if c == b'H' {
                            i64::from(self.input.u16(what)?)
                        } else {
                            i64::from(self.input.u8(what)?)
                        };
                        self.args.pool.push(v);
                    }
                    Field::Array {
                        start,
                        len: n as usize,
                    }
                }
                b'J' => {
                    // Arrays of arrays: kept flat when every row has three values (group ranges).
                    let rows = self.input.i32(what)?.max(0);
                    let start = self.args.pool.len();
                    let mut regular = true;
                    for _ in 0..rows {
                        let before = self.args.pool.len();
                        self.int_array(true, what)?;
                        regular &= self.args.pool.len() - before == 3;
                    }
                    if regular {
                        Field::Array {
                            start,
                            len: self.args.pool.len() - start,
                        }
                    } else {
                        Field::Absent
                    }
                }
                b'c' => {
                    self.string(what)?;
                    Field::Absent
                }
                b'C' => {
                    self.strings(what)?;
                    Field::Absent
                }
                b'D' => {
                    let n = self.input.i32(what)?.max(0);
                    for _ in 0..n {
                        self.strings(what)?;
                    }
                    Field::Absent
                }
                b'A' => {
                    let argc = self.input.i32(what)?;
                    if !self.layout.at_least(0, 6, 2) {
                        self.input.u32(what)?;
                    }
                    for _ in 0..argc.max(0) {
                        self.string(what)?;
                    }
                    Field::Int(i64::from(argc))
                }
                b'S' => self.status_field()?,
                other => {
                    return Err(self.input.place.error(
                        self.input.pos(),
                        format!("internal: unknown layout letter {:?}", other as char),
                    ));
                }
            };
            self.args.fields.push(field);
        }
        Ok(())
    }

    fn status_field(&mut self) -> Result<Field, Error> {
        if !self.statuses {
            return Ok(Field::NoStatuses);
        }
        let what = "statuses";
        let n = self.input.i32(what)?.max(0) as u64;
        let tagged = self.layout.at_least(0, 6, 3);
        self.input
            .check_room(n, if tagged { 14 } else { 10 }, what)?;
        let start = self.args.statuses.len();
        for _ in 0..n {
            let bytes = self.input.i32(what)?;
            let source = self.input.i32(what)?;
            let cancelled = self.input.u8(what)?;
            let error = self.input.u8(what)?;
            let tag = if tagged { self.input.i32(what)? } else { -1 };
            self.args.statuses.push(RawStatus {
                bytes,
                source,
                cancelled,
                error,
                tag,
            });
        }
        Ok(Field::Statuses {
            start,
            len: n as usize,
        })
    }
}
