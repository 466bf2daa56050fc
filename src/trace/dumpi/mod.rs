//! Import of SST DUMPI traces (sst-dumpi's binary format, versions 0.6 to 13), without sst-dumpi.
//!
//! A DUMPI trace is a text `PREFIX.meta` (`key=value` lines: `numprocs`, `fileprefix`, host, user,
//! start time, format version) and one binary `PREFIX-NNNN.bin` per rank (rank number in at least four
//! digits) beside it. Each rank file is read on its own, streamed through a buffered reader (no file is
//! held in memory, only the calls decoded from it), and turned into the MPI layer's [`Call`]s, which
//! [`crate::mpi::Builder`] lowers to a [`Program`]: this reader only decodes.
//!
//! - `input.rs`: checked big-endian reads with positions; `header.rs`: the file's fixed sections
//!   (magic, index, header, footer, datatype sizes);
//! - `record.rs`: the record stream (id, mask, thread, CPU and wall times, counters, arguments);
//! - `functions.rs`: the id and argument layout of every function sst-dumpi records;
//! - `calls.rs`: records to calls (message sizes, computation), with `requests.rs` (posting and
//!   completion, wildcards, MPI_PROC_NULL, persistent requests), `collective.rs` and `comms.rs`
//!   (communicators and groups);
//! - `writer.rs` (tests only): writes small DUMPI traces.
//!
//! DUMPI records carry no length, so every function id has its layout here, and a record that cannot
//! be decoded (an unknown id, a truncated file) is an error naming the function, the rank and the
//! byte offset: nothing is skipped silently. Computation is the wall-clock gap between consecutive
//! MPI calls of a rank, converted at `cycles_per_second`. Not replayed, with an error: one-sided
//! communication, inter-communicators and dynamic processes; ignored: MPI-IO, probes and everything
//! that moves no data.

mod calls;
mod collective;
mod comms;
pub(crate) mod functions;
mod header;
mod input;
mod record;
mod requests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_bad;
#[cfg(test)]
pub(crate) mod writer;

use crate::error::{Error, Result};
use crate::mpi::collectives::Algorithms;
use crate::mpi::{Builder, Call, Pos};
use crate::program::Program;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// DUMPI in the registry of [`crate::trace::formats`]: told by its `.meta` file, folder or magic.
pub const FORMAT: super::formats::Descriptor = super::formats::Descriptor {
    name: "dumpi",
    aliases: &[],
    help: "SST DUMPI traces (the .meta file or its folder)",
    cache_tag: "Dumpi",
    detect_path: Some(is_dumpi),
    detect_line: None,
    folder: Some("a DUMPI trace (no `.meta` file)"),
    read: |path, opts| read(path, &opts.algorithms, opts.units.cycles_per_second),
    check_ranks: |path, limit| limit.check_count(path, u64::from(ranks(path)?)),
    sources,
    mpi: crate::program::MpiModel::mpich,
    records_mpi: false,
    write: None,
    collectives_note: None,
};

use super::limits::RankLimit;

/// Reads the DUMPI trace at `path` (a `.meta` file, a directory holding exactly one, or one of its
/// rank files) into a program whose collectives expand with `algorithms` and whose computation runs
/// at `cycles_per_second` network cycles per traced second.
pub fn read(path: &Path, algorithms: &Algorithms, cycles_per_second: f64) -> Result<Program> {
    let meta = Meta::find(path)?;
    check_rate(cycles_per_second)?;
    let mut builder = Builder::new(meta.ranks, algorithms)?;
    for r in 0..meta.ranks {
        let name = meta.rank_file(r).display().to_string();
        let file = builder.file(&name, true);
        let rank = decode_rank(&meta, r, cycles_per_second)?;
        for (call, at) in rank.calls {
            if let Some(call) = call {
                builder.push(r, call, Pos { file, at });
            }
        }
    }
    builder.finish()
}

/// Every rank's calls as decoded, with call counts: what [`read`] hands to the MPI layer, for tests,
/// statistics and cross-checks against sst-dumpi's own tools.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// Number of ranks (`numprocs` of the meta file).
    pub ranks: u32,
    /// The rank files, by rank.
    pub files: Vec<PathBuf>,
    /// Each rank's calls with the byte offset of the record each came from.
    pub calls: Vec<Vec<(Call, u64)>>,
    /// Records decoded per MPI function (`MPI_Send`...), over all ranks: every MPI call the trace
    /// holds, including those that produce no call (MPI_Comm_rank, MPI_Wtime...).
    pub counts: BTreeMap<&'static str, u64>,
    /// The same counts as the rank files' footers state them (calls made minus calls not written),
    /// for checking that every record was decoded.
    pub footer_counts: BTreeMap<&'static str, u64>,
    /// Bytes of rank files read.
    pub bytes: u64,
}

impl Decoded {
    /// Total MPI calls decoded.
    pub fn total_calls(&self) -> u64 {
        self.counts.values().sum()
    }
}

/// Decodes the DUMPI trace at `path` (as [`read`] accepts it) without lowering it.
pub fn read_calls(path: &Path, cycles_per_second: f64) -> Result<Decoded> {
    let meta = Meta::find(path)?;
    check_rate(cycles_per_second)?;
    let mut out = Decoded {
        ranks: meta.ranks,
        files: Vec::with_capacity(meta.ranks as usize),
        calls: Vec::with_capacity(meta.ranks as usize),
        counts: BTreeMap::new(),
        footer_counts: BTreeMap::new(),
        bytes: 0,
    };
    for r in 0..meta.ranks {
        let rank = decode_rank(&meta, r, cycles_per_second)?;
        for (map, counts) in [
            (&mut out.counts, &rank.counts),
            (&mut out.footer_counts, &rank.footer_counts),
        ] {
            for (id, &n) in counts.iter().enumerate() {
                if n > 0 && id < usize::from(functions::ALL_FUNCTIONS) {
                    *map.entry(functions::FUNCTIONS[id].0).or_insert(0) += n;
                }
            }
        }
        out.files.push(meta.rank_file(r));
        let calls = rank.calls.into_iter();
        out.calls
            .push(calls.filter_map(|(c, at)| c.map(|c| (c, at))).collect());
        out.bytes += rank.bytes;
    }
    Ok(out)
}

/// Whether `path` is meant as a DUMPI trace: a `.meta` file, a directory holding one, or a file
/// starting with the DUMPI magic (a rank file). [`read`] then says precisely what is wrong with it
/// (a rank file missing, `numprocs` absent or wrong, a rank file given without its `.meta`) instead
/// of another format's reader failing on it. Reads at most a directory listing and eight bytes.
pub fn is_dumpi(path: &Path) -> bool {
    if path.is_dir() {
        return std::fs::read_dir(path).is_ok_and(|mut d| {
            d.any(|e| {
                e.is_ok_and(|e| {
                    let p = e.path();
                    p.extension().is_some_and(|x| x == "meta") && p.is_file()
                })
            })
        });
    }
    (path.extension().is_some_and(|x| x == "meta") && path.exists()) || starts_with_magic(path)
}

/// Whether the regular file at `path` starts with the DUMPI magic bytes.
fn starts_with_magic(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    crate::input::open(path, "a DUMPI file")
        .is_ok_and(|mut f| std::io::Read::read_exact(&mut f, &mut magic).is_ok())
        && u64::from_be_bytes(magic) == header::MAGIC
}

/// The rank count (`numprocs`) of the DUMPI trace at `path`, its rank files checked to exist.
pub fn ranks(path: &Path) -> Result<u32> {
    Ok(Meta::find(path)?.ranks)
}

/// The files the DUMPI trace at `path` (as [`read`] accepts it) is read from: its `.meta` file, then
/// each rank's file in rank order; for cache keys, which must change when any of them does.
pub fn sources(path: &Path) -> Result<Vec<PathBuf>> {
    let meta = Meta::find(path)?;
    let mut files = vec![meta.path.clone()];
    files.extend((0..meta.ranks).map(|r| meta.rank_file(r)));
    Ok(files)
}

fn check_rate(cycles_per_second: f64) -> Result<()> {
    if cycles_per_second.is_finite() && cycles_per_second > 0.0 {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "DUMPI import: cycles_per_second must be a positive number, not {cycles_per_second}"
        )))
    }
}

/// The meta file: rank count and where the rank files are.
#[derive(Debug, Clone)]
struct Meta {
    path: PathBuf,
    ranks: u32,
    prefix: PathBuf,
}

impl Meta {
    /// The meta file of `path` (see [`read`]), parsed, its rank files checked to exist.
    fn find(path: &Path) -> Result<Meta> {
        let meta = if path.is_dir() {
            let listing = std::fs::read_dir(path).map_err(Error::io(path.display()))?;
            let mut metas: Vec<PathBuf> = listing
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "meta") && p.is_file())
                .collect();
            metas.sort();
            match metas.len() {
                1 => metas.pop().unwrap_or_default(),
                0 => {
                    return Err(Error::Invalid(format!(
                        "{}: no DUMPI .meta file in this directory",
                        path.display()
                    )));
                }
                _ => {
                    let names: Vec<String> =
                        metas.iter().map(|m| m.display().to_string()).collect();
                    return Err(Error::Invalid(format!(
                        "{}: several DUMPI .meta files ({}); name one",
                        path.display(),
                        names.join(", ")
                    )));
                }
            }
        } else if path.extension().is_some_and(|x| x == "meta") {
            path.to_path_buf()
        } else {
            Meta::of_rank_file(path)?
        };
        let m = Meta::parse(&meta)?;
        for r in 0..m.ranks {
            let f = m.rank_file(r);
            if !f.exists() {
                return Err(Error::Invalid(format!(
                    "{}: the rank file of rank {r} of {} is missing: {} (numprocs = {})",
                    meta.display(),
                    m.ranks,
                    f.display(),
                    m.ranks
                )));
            }
        }
        let extra = m.rank_file(m.ranks);
        if extra.exists() {
            return Err(Error::Invalid(format!(
                "{}: numprocs = {} but there is also a rank file for rank {}: {} (is numprocs \
                 wrong?)",
                meta.display(),
                m.ranks,
                m.ranks,
                extra.display()
            )));
        }
        Ok(m)
    }

    /// The meta file beside rank file `path` (`PREFIX-NNNN.bin` → `PREFIX.meta`).
    fn of_rank_file(path: &Path) -> Result<PathBuf> {
        let not = || {
            Error::Invalid(format!(
                "{}: not a DUMPI trace (give its .meta file or the directory holding it)",
                path.display()
            ))
        };
        crate::input::open(path, "a DUMPI trace")?;
        if !starts_with_magic(path) {
            return Err(not());
        }
        let lone = |expected: &str| {
            Error::Invalid(format!(
                "{}: a DUMPI rank file; give the trace's .meta file instead ({expected})",
                path.display()
            ))
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Some((prefix, digits)) = name.strip_suffix(".bin").and_then(|s| s.rsplit_once('-'))
        else {
            return Err(lone(
                "its name is not PREFIX-NNNN.bin, so the .meta cannot be found",
            ));
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(lone(
                "its name is not PREFIX-NNNN.bin, so the .meta cannot be found",
            ));
        }
        let meta = path.with_file_name(format!("{prefix}.meta"));
        if meta.exists() {
            Ok(meta)
        } else {
            Err(lone(&format!("{} is not beside it", meta.display())))
        }
    }

    fn parse(path: &Path) -> Result<Meta> {
        let text = crate::input::read(path, "a DUMPI meta file", 1 << 20)?;
        let text = String::from_utf8_lossy(&text);
        let (mut ranks, mut prefix) = (None, None);
        for (i, line) in text.lines().enumerate() {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let value = value.trim();
            match key.trim() {
                "numprocs" => {
                    let at = |message| Error::File {
                        path: path.display().to_string(),
                        line: i + 1,
                        column: line.find('=').unwrap_or(0) + 2,
                        message,
                    };
                    // Parsed wide, so that a count past u32 is told too large, not malformed.
                    let n = value
                        .parse::<u64>()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| {
                            at(format!("numprocs `{value}` is not a positive rank count"))
                        })?;
                    RankLimit::default()
                        .count(n)
                        .map_err(|m| at(format!("numprocs: {m}")))?;
                    // Within the rank limit (2^20), so it fits.
                    ranks = Some(n as u32);
                }
                "fileprefix" if !value.is_empty() => prefix = Some(value.to_string()),
                _ => {}
            }
        }
        let missing = |key: &str| {
            Error::Invalid(format!(
                "{}: no `{key}=` line, which a DUMPI meta file must have",
                path.display()
            ))
        };
        let ranks = ranks.ok_or_else(|| missing("numprocs"))?;
        let prefix = prefix.ok_or_else(|| missing("fileprefix"))?;
        let dir = path.parent().unwrap_or(Path::new(""));
        // The prefix is the rank files' name; a path in it (as some tracers write) is taken by its
        // last component, beside the meta file.
        let base = Path::new(&prefix)
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_default();
        Ok(Meta {
            path: path.to_path_buf(),
            ranks,
            prefix: dir.join(base),
        })
    }

    /// Rank file of rank `r`: `PREFIX-NNNN.bin`.
    fn rank_file(&self, r: u32) -> PathBuf {
        let mut name = self.prefix.clone().into_os_string();
        name.push(format!("-{r:04}.bin"));
        PathBuf::from(name)
    }
}

/// One rank decoded.
struct RankDecoded {
    /// Calls and their records' offsets; `None` for a receive found to be from MPI_PROC_NULL.
    calls: Vec<(Option<Call>, u64)>,
    counts: Vec<u64>,
    footer_counts: Vec<u64>,
    bytes: u64,
}

/// Decodes rank `r` of `meta`.
fn decode_rank(meta: &Meta, r: u32, cycles_per_second: f64) -> Result<RankDecoded> {
    let path = meta.rank_file(r);
    let mut input = input::Input::open(&path, r)?;
    let layout = header::read_layout(&mut input)?;
    let bytes = input.len();
    let footer_counts = layout.recorded.clone();
    let mut records = record::Records::new(input, layout)?;
    let mut rank = calls::RankCalls::new(r, meta.ranks, cycles_per_second);
    let mut counts = vec![0u64; functions::FUNCTIONS.len()];
    while let Some(head) = records.next()? {
        if head.id < functions::ALL_FUNCTIONS
            && let Some(c) = counts.get_mut(head.id as usize)
        {
            *c += 1;
        }
        rank.record(&head, &records.args, &records.layout)
            .map_err(|m| {
                records
                    .input
                    .place
                    .error(head.at, format!("{}: {m}", functions::name(head.id)))
            })?;
    }
    Ok(RankDecoded {
        calls: rank.calls,
        counts,
        footer_counts,
        bytes,
    })
}
