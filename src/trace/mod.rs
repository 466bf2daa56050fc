//! Traces: programs stored in files, in the native text format of `traces/FORMAT.md` (version 3) or
//! imported from other tools (SimGrid, FSIN).
//!
//! Readers only decode: [`read`] streams a trace (plain or zstd-compressed, told apart by the zstd magic
//! bytes, not the file name) through the line parser of [`parser`], whose MPI calls the MPI layer
//! ([`crate::mpi::Builder`]) lowers into a [`Program`]; [`write()`] emits one atomically, compressed when
//! the name ends in `.zst`. [`ENTRY`] is the `trace:file=PATH` workload, so a written trace replays
//! exactly like the generator that produced it.

pub mod cache;
pub mod chakra;
pub mod check;
pub mod dumpi;
pub mod formats;
pub mod fsin;
pub mod goal;
pub mod jobs;
pub mod limits;
pub mod otf2;
pub mod parser;
pub mod simgrid;

pub use formats::Format;
pub use limits::RankLimit;
#[cfg(test)]
mod tests_compute;

use crate::error::{Error, Result};
use crate::mpi::collectives::Algorithms;
use crate::program::MpiModel;
use crate::program::{Generator, Op, Program};
use crate::spec::{Entry, Params};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

/// The first four bytes of every zstd frame; a file starting with them is decompressed on the fly.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// zstd level for written traces: the library default, fast and already ~10x on traces.
const ZSTD_LEVEL: i32 = 3;

/// A zstd encoder for a written trace: level [`ZSTD_LEVEL`], with the frame's content checksum, so
/// that a flipped bit in the file is refused by every reader (the decoder checks it at the end of
/// the frame) rather than read as other message sizes. The content size is not recorded: the text
/// is streamed, so its length is not known when the frame header is written.
pub(crate) fn zstd_encoder<W: Write>(
    out: W,
) -> std::io::Result<zstd::stream::write::Encoder<'static, W>> {
    let mut encoder = zstd::stream::write::Encoder::new(out, ZSTD_LEVEL)?;
    encoder.include_checksum(true)?;
    Ok(encoder)
}

/// Reads the trace at `path`, decompressing it if it starts with the zstd magic bytes.
pub fn read(path: &Path) -> Result<Program> {
    read_with(path, &Algorithms::default())
}

/// Opens `path` for reading lines, decompressing it on the fly if it starts with the zstd magic
/// bytes; a truncated or corrupt zstd stream surfaces as an error naming the file when read.
pub(crate) fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    let io = Error::io(path.display());
    let file = crate::input::open(path, "a trace")?;
    let mut input = BufReader::new(file);
    if input.fill_buf().map_err(&io)?.starts_with(&ZSTD_MAGIC) {
        let decoder = zstd::stream::read::Decoder::with_buffer(input).map_err(&io)?;
        Ok(Box::new(BufReader::new(ZstdReader {
            inner: decoder,
            path: path.display().to_string(),
        })))
    } else {
        Ok(Box::new(input))
    }
}

/// A zstd decoder whose read errors say the stream is truncated or corrupt.
struct ZstdReader<R: std::io::Read> {
    inner: R,
    path: String,
}

impl<R: std::io::Read> std::io::Read for ZstdReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!(
                    "the zstd stream of {} is truncated or corrupt ({e})",
                    self.path
                ),
            )
        })
    }
}

/// Like [`read`], expanding collectives with `algorithms`.
pub fn read_with(path: &Path, algorithms: &Algorithms) -> Result<Program> {
    let name = path.display().to_string();
    let io = Error::io(&name);
    let file = crate::input::open(path, "a trace")?;
    let mut input = BufReader::new(file);
    let compressed = input.fill_buf().map_err(&io)?.starts_with(&ZSTD_MAGIC);
    if compressed {
        let decoder = zstd::stream::read::Decoder::with_buffer(input).map_err(&io)?;
        parser::parse_with(&name, BufReader::new(decoder), algorithms).map_err(|e| match e {
            Error::Io { path, source } => Error::Invalid(format!(
                "{path}: the zstd stream is truncated or corrupt ({source}); the trace was not read"
            )),
            other => other,
        })
    } else {
        parser::parse_with(&name, input, algorithms)
    }
}

/// Writes `program` to `path` in the native format, rank by rank, compressed with zstd when the name
/// ends in `.zst`; atomically, so a reader never sees a partial trace.
pub fn write(program: &Program, path: &Path) -> Result<()> {
    write_as(program, path, Format::NATIVE)
}

/// Writes `program` to `path` in `format` (native, or FSIN for blocking point-to-point and
/// computation), atomically, zstd-compressed when the name ends in `.zst`.
pub fn write_as(program: &Program, path: &Path, format: Format) -> Result<()> {
    let Some(writer) = &format.descriptor().write else {
        return Err(Error::Invalid(format!(
            "netreplay reads {} traces but does not write them",
            format.name()
        )));
    };
    if program.graph().is_some() {
        return Err(Error::Invalid(format!(
            "a dependency graph (GOAL, Chakra) cannot be written as a {} trace, which runs each rank's \
             operations in order",
            format.name()
        )));
    }
    if (0..program.ranks())
        .any(|r| (program.rank_ops(r).iter()).any(|op| matches!(op, Op::Schedule { .. })))
    {
        return Err(Error::Invalid(format!(
            "non-blocking collectives cannot be written as a {} trace: their schedules run beside \
             the rank's program, and a trace's lines run in order",
            format.name()
        )));
    }
    if program
        .recvs()
        .any(|(from, _, _)| from == crate::program::ANY_SOURCE)
    {
        return Err(Error::Invalid(format!(
            "receives of any source left to the replay (SimGrid's -333) cannot be written as a {} \
             trace, which names every receive's source",
            format.name()
        )));
    }
    if !format.descriptor().records_mpi && !replays_alike(program, &format.default_mpi()) {
        return Err(Error::Invalid(format!(
            "a {} trace cannot record the MPI model this program runs under ({}), and under its \
             default model it would replay differently; write the native format, which records it, or \
             give the spec the model to convert under (e.g. `,protocol=eager`)",
            format.name(),
            parser::mpi_line(program.mpi())
                .trim_start_matches("mpi ")
                .replace(' ', ",")
        )));
    }
    // Refuse what the format cannot express before touching the file system.
    (writer.check)(program)?;
    let compress = path.extension().is_some_and(|e| e == "zst");
    crate::output::write_atomic_with(path, |file| {
        let mut out = BufWriter::new(file);
        if compress {
            let mut encoder = zstd_encoder(out)?;
            (writer.body)(program, &mut encoder)?;
            encoder.finish()?.flush()
        } else {
            (writer.body)(program, &mut out)?;
            out.flush()
        }
    })
}

/// Whether `program` replays the same under `other` as under its own MPI model: the models agree on
/// every message it sends (eager or rendezvous, the control messages' size), on its self-messages'
/// copy cost and on its computation's scale.
fn replays_alike(program: &Program, other: &MpiModel) -> bool {
    let own = program.mpi();
    if own == other {
        return true;
    }
    (0..program.ranks()).all(|r| {
        program.rank_ops(r).iter().all(|op| match *op {
            Op::Compute { cycles } => own.compute_cycles(cycles) == other.compute_cycles(cycles),
            Op::Send { to, bytes, .. } | Op::Isend { to, bytes, .. } => {
                let rendezvous = own.rendezvous(bytes);
                rendezvous == other.rendezvous(bytes)
                    && (!rendezvous || own.control_bytes == other.control_bytes)
                    && (to != r || own.self_copy_cycles(bytes) == other.self_copy_cycles(bytes))
            }
            Op::Issend { to, bytes, .. } => {
                own.control_bytes == other.control_bytes
                    && (to != r || own.self_copy_cycles(bytes) == other.self_copy_cycles(bytes))
            }
            Op::Recv { .. }
            | Op::Irecv { .. }
            | Op::Wait { .. }
            | Op::WaitAll
            | Op::WaitAny { .. }
            | Op::Schedule { .. } => true,
        })
    })
}

/// The text of a trace: header, rank count, then each rank's events in program order.
pub(crate) fn write_text(program: &Program, out: &mut dyn Write) -> std::io::Result<()> {
    let version = parser::version_for(program.mpi());
    writeln!(out, "{} {version}", parser::MAGIC)?;
    writeln!(out, "ranks {}", program.ranks())?;
    if version >= parser::MPI_LINE_VERSION {
        writeln!(out, "{}", parser::mpi_line(program.mpi()))?;
    }
    for r in 0..program.ranks() {
        let mut ops = program.rank_ops(r).iter();
        while let Some(op) = ops.next() {
            match *op {
                Op::Send { to, bytes, tag: 0 } => writeln!(out, "{r} send {to} {bytes}")?,
                Op::Send { to, bytes, tag } => writeln!(out, "{r} send {to} {bytes} {tag}")?,
                Op::Recv { from, tag: 0 } => writeln!(out, "{r} recv {from}")?,
                Op::Recv { from, tag } => writeln!(out, "{r} recv {from} {tag}")?,
                Op::Compute { cycles } => writeln!(out, "{r} compute {cycles}")?,
                Op::Isend {
                    to,
                    bytes,
                    tag,
                    req,
                } => writeln!(out, "{r} isend {to} {bytes} {tag} {req}")?,
                Op::Irecv { from, tag, req } => writeln!(out, "{r} irecv {from} {tag} {req}")?,
                Op::Issend {
                    to,
                    bytes,
                    tag,
                    req,
                } => writeln!(out, "{r} issend {to} {bytes} {tag} {req}")?,
                Op::Wait { req } => writeln!(out, "{r} wait {req}")?,
                Op::WaitAll => writeln!(out, "{r} waitall")?,
                Op::WaitAny { len } => {
                    write!(out, "{r} waitany")?;
                    for listed in ops.by_ref().take(len as usize) {
                        if let Op::Wait { req } = listed {
                            write!(out, " {req}")?;
                        }
                    }
                    writeln!(out)?
                }
                Op::Schedule { .. } => unreachable!("write_as refuses schedules"),
            }
        }
    }
    Ok(())
}

/// How a trace file is read: its format (`None`: detect) and the conversions of its importers.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReadOptions {
    /// The format, or `None` to detect it.
    pub format: Option<Format>,
    /// Collective algorithms.
    pub algorithms: Algorithms,
    /// SimGrid flops and seconds to cycles.
    pub units: simgrid::Units,
}

/// Reads a trace of any supported format, under the MPI model its file records (native, version 4)
/// or else its format's default.
pub fn read_any(path: &Path, opts: &ReadOptions) -> Result<Program> {
    let format = match opts.format {
        Some(f) => f,
        None => Format::detect(path)?,
    };
    let program = (format.descriptor().read)(path, opts)?;
    if format.descriptor().records_mpi {
        return Ok(program);
    }
    Ok(program.with_mpi(format.default_mpi()))
}

/// The `trace:file=PATH` workload: a program read from a file, replayed on as many ranks as it has.
#[derive(Debug)]
pub struct TraceWorkload {
    file: String,
    /// Non-default parameters, as they go in the canonical spec.
    extra: String,
    program: Program,
    cycles_per_second: f64,
    /// The jobs of a merged multi-job GOAL schedule (`jobs=`), each its ranks in job order.
    jobs: Option<Vec<Vec<u32>>>,
}

impl TraceWorkload {
    /// Reads the trace at `file` now, so errors in it surface before any simulation starts.
    pub fn open(file: &str) -> Result<TraceWorkload> {
        TraceWorkload::open_with(
            file,
            &ReadOptions::default(),
            &cache::Location::default(),
            String::new(),
        )
    }

    /// Like [`TraceWorkload::open`] with explicit options; `extra` is the rest of the canonical spec
    /// (`,allreduce=ring`...).
    pub fn open_with(
        file: &str,
        opts: &ReadOptions,
        cache: &cache::Location,
        extra: String,
    ) -> Result<TraceWorkload> {
        // A pipe can be read once, but a trace is read more than once (to detect its format, to
        // hash it for the cache, to parse it): say so instead of "the file has no content".
        // A folder is a trace of a foldered format (OTF2, DUMPI), or nothing netreplay reads.
        let meta = std::fs::metadata(file).map_err(Error::io(file))?;
        if meta.is_dir() {
            if Format::detect_path(Path::new(file)).is_none() {
                return Err(Error::Invalid(format!(
                    "{file}: a folder, but {}; give the trace file itself",
                    Format::folder_kinds()
                )));
            }
        } else if !meta.is_file() {
            return Err(Error::Invalid(format!(
                "{file}: not a regular file ({}); netreplay reads a trace more than once, so save \
                 it to a file first (e.g. `cat ... > trace.txt`)",
                crate::input::kind(&meta)
            )));
        }
        Ok(TraceWorkload {
            file: file.to_string(),
            program: cache::read(Path::new(file), opts, cache)?,
            extra,
            cycles_per_second: opts.units.cycles_per_second,
            jobs: None,
        })
    }
}

impl Generator for TraceWorkload {
    fn spec(&self) -> String {
        format!("trace:file={}{}", self.file, self.extra)
    }

    fn bytes_bound(&self, _ranks: u32) -> Option<u64> {
        None
    }

    fn ranks(&self) -> Option<u32> {
        Some(self.program.ranks())
    }

    fn cycles_per_second(&self) -> f64 {
        self.cycles_per_second
    }

    fn jobs(&self) -> Option<&[Vec<u32>]> {
        self.jobs.as_deref()
    }

    fn generate(&self, ranks: u32) -> Result<Program> {
        let own = self.program.ranks();
        if ranks != own {
            return Err(Error::Invalid(format!(
                "trace `{}` has {own} ranks but the run asks for {ranks}; drop `ranks=` (`--ranks` \
                 of `generate`) to replay it on its own {own} ranks",
                self.file
            )));
        }
        Ok(self.program.clone())
    }
}

/// The keys the reader itself takes; `format` is also checked here, the others are forwarded.
const READER_KEYS: &[&str] = &[
    "file",
    "format",
    "flops_per_cycle",
    "cycles_per_second",
    "dtsize",
    "cache",
    "jobs",
];

/// Every key of the trace workload: the reader's, the collective algorithms' and the MPI model's, one
/// list each in its own module.
const KEYS: [&str; READER_KEYS.len() + Algorithms::KEYS.len() + MpiModel::KEYS.len()] =
    concat_keys([READER_KEYS, Algorithms::KEYS, MpiModel::KEYS]);

/// The key lists `parts` one after another, at compile time.
const fn concat_keys<const N: usize>(parts: [&[&'static str]; 3]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut part, mut at) = (0, 0);
    while part < parts.len() {
        let mut i = 0;
        while i < parts[part].len() {
            out[at] = parts[part][i];
            at += 1;
            i += 1;
        }
        part += 1;
    }
    out
}

/// The registry line of the trace workload (listed in `generators/mod.rs`).
pub const ENTRY: Entry<Box<dyn Generator>> = Entry {
    name: "trace",
    keys: &KEYS,
    help: "replay a trace file (plain or zstd); ranks come from the file; \
           format=auto (detect) or one of the trace formats listed below; select=mpich|fixed and one key per collective \
           (bcast=, allreduce=, alltoall=, ... see traces/FORMAT.md) choose the collective \
           algorithms; protocol=eager|rendezvous, eager_threshold=BYTES, control_bytes=BYTES, \
           self_copy=CYCLES_PER_BYTE set the MPI model (native and FSIN traces default to eager, \
           SimGrid traces to MPICH's rendezvous above 128 KiB); compute_scale=X multiplies compute \
           times, compute=off drops them; flops_per_cycle (default 1) and cycles_per_second (default 1e9) convert \
           SimGrid compute and sleep, and OTF2 and DUMPI timestamps (the time between MPI calls is compute); \
           dtsize=ID:BYTES/ID:BYTES gives SimGrid derived datatypes (id -1...) their sizes; cache=beside|off|DIR keeps the parsed trace in a binary cache \
           (default $XDG_CACHE_HOME/netreplay, else ~/.cache/netreplay; beside: .NAME.nrcache next to it); \
           jobs=connected|MERGE.json replays a GOAL schedule merged by ATLAHS's merge_goals.py as jobs \
           sharing the network (each group of communicating ranks, or the jobs of the merge's configuration)",
    build: build_workload,
};

fn build_workload(p: &Params) -> Result<Box<dyn Generator>> {
    let file = p.raw("file").ok_or_else(|| Error::BadValue {
        kind: "workload",
        name: p.name().to_string(),
        key: "file".to_string(),
        problem: "is required (the path of a trace file)".to_string(),
    })?;
    let mut opts = ReadOptions::default();
    let mut extra = String::new();
    opts.format = Format::parse(p.choice("format", "auto", &Format::names())?)?;
    if let Some(v) = p.raw("format") {
        extra.push_str(&format!(",format={v}"));
    }
    for &key in Algorithms::KEYS {
        if let Some(v) = p.raw(key) {
            opts.algorithms.set(key, v)?;
            extra.push_str(&format!(",{key}={v}"));
        }
    }
    for key in ["flops_per_cycle", "cycles_per_second"] {
        if let Some(v) = p.raw(key) {
            let x = v
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x > 0.0)
                .ok_or_else(|| Error::BadValue {
                    kind: "workload",
                    name: p.name().to_string(),
                    key: key.to_string(),
                    problem: format!("= `{v}` is not a positive number"),
                })?;
            if key == "flops_per_cycle" {
                opts.units.flops_per_cycle = x;
            } else {
                opts.units.cycles_per_second = x;
            }
            extra.push_str(&format!(",{key}={v}"));
        }
    }
    if let Some(v) = p.raw("dtsize") {
        opts.units.derived =
            simgrid::DerivedSizes::parse(v).map_err(|problem| Error::BadValue {
                kind: "workload",
                name: p.name().to_string(),
                key: "dtsize".to_string(),
                problem,
            })?;
        extra.push_str(&format!(",dtsize={v}"));
    }
    let mut mpi_overrides = Vec::new();
    for &key in MpiModel::KEYS {
        if let Some(v) = p.raw(key) {
            // Check the value now; it is applied on top of the format's default once it is known.
            MpiModel::default().set(key, v)?;
            mpi_overrides.push((key, v.to_string()));
            extra.push_str(&format!(",{key}={v}"));
        }
    }
    let location = match p.raw("cache") {
        None => cache::Location::User,
        Some("beside") => cache::Location::Beside,
        Some("off") => cache::Location::Off,
        Some(dir) => cache::Location::Dir(dir.into()),
    };
    let split = p.raw("jobs").map(jobs::Split::parse);
    if let Some(v) = p.raw("jobs") {
        extra.push_str(&format!(",jobs={v}"));
    }
    let mut workload = TraceWorkload::open_with(file, &opts, &location, extra)?;
    // What the reader skipped changes what is replayed: say so on every run (`trace check` lists
    // the same sentences as notes).
    for note in workload.program.notes() {
        log::warn!("{file}: {note}");
    }
    // A run replays only what `trace check` accepts: an unmatched send or receive, or a collective
    // some ranks skip, is refused now rather than ending in a short or deadlocked run.
    check::check(&workload.program)?.require_ok(file)?;
    if let Some(split) = split {
        let format = match opts.format {
            Some(f) => f,
            None => Format::detect(Path::new(file))?,
        };
        workload.jobs = Some(jobs::of_trace(&workload.program, format, file, &split)?);
    }
    let mut mpi = *workload.program.mpi();
    for (key, v) in &mpi_overrides {
        mpi.set(key, v)?;
    }
    workload.program = workload.program.with_mpi(mpi);
    Ok(Box::new(workload))
}
