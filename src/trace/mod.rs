//! Traces: programs stored in files, in the native text format of `traces/FORMAT.md` (version 1).
//!
//! [`read`] streams a trace (plain or zstd-compressed, told apart by the zstd magic bytes, not the file
//! name) through the line parser of [`parser`] into a [`Program`]; [`write`] emits one atomically,
//! compressed when the name ends in `.zst`. [`ENTRY`] is the `trace:file=PATH` workload, so a written
//! trace replays exactly like the generator that produced it.

pub mod collectives;
pub mod parser;

use crate::error::{Error, Result};
use crate::spec::{Entry, Params};
use crate::workload::{Generator, Op, Program};
use collectives::Algorithms;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

/// The first four bytes of every zstd frame; a file starting with them is decompressed on the fly.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// zstd level for written traces: the library default, fast and already ~10x on traces.
const ZSTD_LEVEL: i32 = 3;

/// Reads the trace at `path`, decompressing it if it starts with the zstd magic bytes.
pub fn read(path: &Path) -> Result<Program> {
    read_with(path, &Algorithms::default())
}

/// Like [`read`], expanding collectives with `algorithms`.
pub fn read_with(path: &Path, algorithms: &Algorithms) -> Result<Program> {
    let name = path.display().to_string();
    let io = |source| Error::Io {
        path: name.clone(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let mut input = BufReader::new(file);
    let compressed = input.fill_buf().map_err(io)?.starts_with(&ZSTD_MAGIC);
    if compressed {
        let decoder = zstd::stream::read::Decoder::with_buffer(input).map_err(io)?;
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
    let compress = path.extension().is_some_and(|e| e == "zst");
    crate::report::write_atomic_with(path, |file| {
        let mut out = BufWriter::new(file);
        if compress {
            let mut encoder = zstd::stream::write::Encoder::new(out, ZSTD_LEVEL)?;
            write_text(program, &mut encoder)?;
            encoder.finish()?.flush()
        } else {
            write_text(program, &mut out)?;
            out.flush()
        }
    })
}

/// The text of a trace: header, rank count, then each rank's events in program order.
fn write_text(program: &Program, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "{} {}", parser::MAGIC, parser::VERSION)?;
    writeln!(out, "ranks {}", program.ranks())?;
    for r in 0..program.ranks() {
        for op in program.rank_ops(r) {
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
                Op::Wait { req } => writeln!(out, "{r} wait {req}")?,
                Op::WaitAll => writeln!(out, "{r} waitall")?,
            }
        }
    }
    Ok(())
}

/// The `trace:file=PATH` workload: a program read from a file, replayed on as many ranks as it has.
#[derive(Debug)]
pub struct TraceWorkload {
    file: String,
    /// Non-default parameters, as they go in the canonical spec.
    extra: String,
    program: Program,
}

impl TraceWorkload {
    /// Reads the trace at `file` now, so errors in it surface before any simulation starts.
    pub fn open(file: &str) -> Result<TraceWorkload> {
        TraceWorkload::open_with(file, &Algorithms::default(), String::new())
    }

    /// Like [`TraceWorkload::open`], expanding collectives with `algorithms`; `extra` is the rest of
    /// the canonical spec (`,allreduce=ring`...).
    pub fn open_with(file: &str, algorithms: &Algorithms, extra: String) -> Result<TraceWorkload> {
        Ok(TraceWorkload {
            file: file.to_string(),
            program: read_with(Path::new(file), algorithms)?,
            extra,
        })
    }
}

impl Generator for TraceWorkload {
    fn spec(&self) -> String {
        format!("trace:file={}{}", self.file, self.extra)
    }

    fn ranks(&self) -> Option<u32> {
        Some(self.program.ranks())
    }

    fn generate(&self, ranks: u32) -> Result<Program> {
        let own = self.program.ranks();
        if ranks != own {
            return Err(Error::Invalid(format!(
                "trace `{}` has {own} ranks but the run asks for {ranks}; drop `ranks=` to replay it \
                 on its own {own} ranks",
                self.file
            )));
        }
        Ok(self.program.clone())
    }
}

/// The registry line of the trace workload (listed in `generators/mod.rs`).
pub const ENTRY: Entry<Box<dyn Generator>> = Entry {
    name: "trace",
    keys: &["file", "allreduce", "allgather", "barrier"],
    help: "replay a trace file (traces/FORMAT.md; plain or zstd); ranks come from the file; \
           allreduce=recursive-doubling|ring, allgather=recursive-doubling|ring, \
           barrier=dissemination|tree choose the collective algorithms",
    build: build_workload,
};

fn build_workload(p: &Params) -> Result<Box<dyn Generator>> {
    let file = p.raw("file").ok_or_else(|| Error::BadValue {
        kind: "workload",
        name: p.name().to_string(),
        key: "file".to_string(),
        problem: "is required (the path of a trace file)".to_string(),
    })?;
    let mut algorithms = Algorithms::default();
    let mut extra = String::new();
    for key in ["allreduce", "allgather", "barrier"] {
        if let Some(v) = p.raw(key) {
            algorithms.set(key, v)?;
            extra.push_str(&format!(",{key}={v}"));
        }
    }
    Ok(Box::new(TraceWorkload::open_with(
        file,
        &algorithms,
        extra,
    )?))
}
