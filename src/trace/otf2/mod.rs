//! Import of OTF2 traces (the Open Trace Format 2 that Score-P writes), versions 2.x and 3.x, in pure
//! Rust: no OTF2 library is needed.
//!
//! An archive is a folder holding the anchor file `NAME.otf2`, the global definitions `NAME.def` and a
//! folder `NAME/` with one event file `<location>.evt` (and local definitions `<location>.def`) per
//! location. [`read`] takes the anchor file or the folder; [`is_otf2`] tells an archive from other
//! trace formats by the anchor file's first bytes.
//!
//! The reader only decodes: the records of each MPI rank become [`Call`]s in program order (see
//! `events.rs` for what each record becomes, `coll.rs` for Score-P's collective byte counts), which
//! the MPI layer ([`crate::mpi::Builder`]) lowers. Definitions give the ranks (the MPI locations
//! group), the communicators (defined in the builder up front, see `world.rs`) and the timer
//! resolution; computation between MPI calls becomes `seconds x cycles_per_second` cycles.
//!
//! Not replayed, with the reason: non-blocking collectives that Score-P records as regions only
//! (MPI_Iallreduce... before Score-P 7: nothing says what they moved; the time inside those regions,
//! like that of every MPI call, is not computation either), and in later Score-P versions their
//! NonBlockingCollective records; one-sided (RMA) communication; intercommunicators; events of
//! locations that are not MPI ranks (OpenMP threads, GPUs); time spent with measurement switched off;
//! the clock offsets of the local definitions (a rank's durations are differences of its own clock).
//! [`Notes`] counts what was skipped. Encoding details, streaming and robustness are in `buffer.rs`:
//! event files are read one chunk at a time, and any byte sequence gives a positioned error, never a
//! panic.

mod buffer;
mod coll;
mod defs;
mod events;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_input;
mod world;
#[cfg(test)]
pub(crate) mod writer;

use super::limits::RankLimit;
use crate::error::{Error, Result};
use crate::mpi::collectives::Algorithms;
use crate::mpi::{Builder, Call, CommHandle, Pos};
use crate::program::MpiModel;
use crate::program::Program;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// OTF2 in the registry of [`crate::trace::formats`]: told by its anchor file or folder.
pub const FORMAT: super::formats::Descriptor = super::formats::Descriptor {
    name: "otf2",
    aliases: &[],
    help: "OTF2 archives as Score-P writes them (the anchor traces.otf2 or its folder)",
    cache_tag: "Otf2",
    detect_path: Some(is_otf2),
    detect_line: None,
    folder: Some("an OTF2 archive (no anchor file `*.otf2`)"),
    read: |path, opts| read(path, &opts.algorithms, opts.units.cycles_per_second),
    check_ranks: |path, limit| limit.check_count(path, u64::from(ranks(path)?)),
    sources,
    mpi: MpiModel::mpich,
    records_mpi: false,
    write: None,
    collectives_note: None,
};

/// The files of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Archive {
    anchor: PathBuf,
    global_defs: PathBuf,
    /// Folder of the per-location files.
    locations: PathBuf,
}

impl Archive {
    /// The archive of an anchor file, or of a folder holding `traces.otf2` (or a single `*.otf2`).
    fn locate(path: &Path) -> Result<Archive> {
        let anchor = if path.is_dir() {
            let default = path.join("traces.otf2");
            if default.is_file() {
                default
            } else {
                let found: Vec<PathBuf> = std::fs::read_dir(path)
                    .map_err(Error::io(path.display()))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "otf2") && p.is_file())
                    .collect();
                match <[PathBuf; 1]>::try_from(found) {
                    Ok([one]) => one,
                    Err(v) => {
                        return Err(Error::Invalid(format!(
                            "{}: no OTF2 archive here (expected traces.otf2{})",
                            path.display(),
                            if v.is_empty() {
                                String::new()
                            } else {
                                format!(", or a single .otf2 anchor file instead of {}", v.len())
                            }
                        )));
                    }
                }
            }
        } else {
            path.to_path_buf()
        };
        let stem = anchor.with_extension("");
        Ok(Archive {
            global_defs: stem.with_extension("def"),
            locations: stem,
            anchor,
        })
    }

    fn events(&self, location: u64) -> PathBuf {
        self.locations.join(format!("{location}.evt"))
    }

    fn local_defs(&self, location: u64) -> PathBuf {
        self.locations.join(format!("{location}.def"))
    }
}

/// Whether `path` is an OTF2 archive: an anchor file (by its first bytes: OTF2's chunk header and the
/// magic string `OTF2`), or a folder holding one (`traces.otf2`, or a single `*.otf2` file).
pub fn is_otf2(path: &Path) -> bool {
    let Ok(archive) = Archive::locate(path) else {
        return false;
    };
    let mut head = [0u8; 7];
    crate::input::open(&archive.anchor, "an OTF2 anchor file")
        .is_ok_and(|mut f| std::io::Read::read_exact(&mut f, &mut head).is_ok())
        && defs::is_anchor_start(&head)
}

/// The files of the archive at `path` (anchor, global definitions, every per-location file), sorted:
/// what a cache of the decoded trace must depend on.
pub fn sources(path: &Path) -> Result<Vec<PathBuf>> {
    let archive = Archive::locate(path)?;
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&archive.locations) {
        Ok(dir) => dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "evt" || e == "def"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files.splice(0..0, [archive.anchor, archive.global_defs]);
    Ok(files)
}

/// What the decoder skipped or approximated, for reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Notes {
    /// Non-blocking collective regions (MPI_Iallreduce...): no records tell their traffic.
    pub nonblocking_collectives: u64,
    /// Receive requests never completed in the trace.
    pub unfinished_requests: u64,
    /// Completions of requests the trace never posted (posted while measurement was off).
    pub unknown_completions: u64,
    /// Cancelled requests.
    pub cancelled: u64,
    /// Cancellations of sends whose call had already been handed on (kept: a replayed send).
    pub cancelled_too_late: u64,
    /// Collective records of operations this reader does not know.
    pub unknown_collectives: u64,
    /// Spans with measurement off.
    pub measurement_off: u64,
}

impl Notes {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Notes) {
        self.nonblocking_collectives += other.nonblocking_collectives;
        self.unfinished_requests += other.unfinished_requests;
        self.unknown_completions += other.unknown_completions;
        self.cancelled += other.cancelled;
        self.cancelled_too_late += other.cancelled_too_late;
        self.unknown_collectives += other.unknown_collectives;
        self.measurement_off += other.measurement_off;
    }

    /// One sentence per kind of thing skipped, for `trace check` and a run's warnings (the docs
    /// promise each is counted with a message).
    pub fn sentences(&self) -> Vec<String> {
        [
            (
                self.nonblocking_collectives,
                "non-blocking collective calls (MPI_Iallreduce...) that Score-P recorded as regions \
                 only, with no record of their traffic: not replayed",
            ),
            (
                self.measurement_off,
                "spans with measurement switched off (MeasurementOnOff records): the MPI calls in them \
                 were not recorded and their time is not replayed",
            ),
            (
                self.unfinished_requests,
                "receive requests the trace never completes: not replayed",
            ),
            (
                self.unknown_completions,
                "completions of requests the trace never posted (posted while measurement was \
                 off): ignored",
            ),
            (self.cancelled, "cancelled requests: not replayed"),
            (
                self.cancelled_too_late,
                "cancellations of sends already handed on: the sends are replayed",
            ),
            (
                self.unknown_collectives,
                "collective records of operations this reader does not know: not replayed",
            ),
        ]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, what)| format!("OTF2: {n} {what}"))
        .collect()
    }
}

/// Where decoded calls go: the MPI layer's builder, or a collection for statistics.
trait Sink {
    /// Registers a source file for positions.
    fn file(&mut self, name: &str) -> u32;
    /// Defines a communicator of world ranks known as `handle` to its members.
    fn comm(&mut self, handle: CommHandle, members: Vec<u32>) -> Result<()>;
    /// Appends a call of world rank `rank`.
    fn push(&mut self, rank: u32, call: Call, pos: Pos);
}

impl Sink for Builder {
    fn file(&mut self, name: &str) -> u32 {
        Builder::file(self, name, true)
    }
    fn comm(&mut self, handle: CommHandle, members: Vec<u32>) -> Result<()> {
        self.define_comm(handle, members)
    }
    fn push(&mut self, rank: u32, call: Call, pos: Pos) {
        Builder::push(self, rank, call, pos)
    }
}

/// The decoded calls of a trace, before lowering: for statistics, checks and tests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calls {
    /// Number of ranks.
    pub ranks: u32,
    /// Communicators as defined in the builder: (handle, world ranks in communicator order); a
    /// handle appears once per member for single-rank communicators.
    pub comms: Vec<(CommHandle, Vec<u32>)>,
    /// Each rank's calls in program order.
    pub calls: Vec<Vec<Call>>,
    /// What was skipped.
    pub notes: Notes,
}

impl Sink for Calls {
    fn file(&mut self, _: &str) -> u32 {
        0
    }
    fn comm(&mut self, handle: CommHandle, members: Vec<u32>) -> Result<()> {
        self.comms.push((handle, members));
        Ok(())
    }
    fn push(&mut self, rank: u32, call: Call, _: Pos) {
        self.calls[rank as usize].push(call);
    }
}

/// Counts over the decoded calls of a trace (what `trace stats` and the tests compare with the
/// summaries of the samples).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Point-to-point messages (sends, and the send half of each sendrecv).
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Messages a rank sends to itself.
    pub self_messages: u64,
    /// Collective calls by MPI name (one per rank and call).
    pub collectives: BTreeMap<&'static str, u64>,
    /// Messages and bytes per (source, destination) pair of world ranks.
    pub pairs: BTreeMap<(u32, u32), (u64, u64)>,
    /// Computation calls.
    pub computes: u64,
    /// Total computation cycles.
    pub compute_cycles: u64,
}

impl Calls {
    /// Counts messages, bytes, self-messages, collectives and computation.
    pub fn stats(&self) -> Stats {
        let mut members = ahash::AHashMap::new();
        for (h, m) in &self.comms {
            for &r in m {
                members.insert((*h, r), m.as_slice());
            }
        }
        let mut s = Stats::default();
        for (rank, calls) in self.calls.iter().enumerate() {
            let rank = rank as u32;
            for call in calls {
                let (comm, dest, bytes) = match *call {
                    Call::Send {
                        comm, dest, bytes, ..
                    }
                    | Call::Sendrecv {
                        comm, dest, bytes, ..
                    } => (comm, dest, bytes),
                    Call::Collective { ref op, .. } => {
                        *s.collectives.entry(op.name()).or_default() += 1;
                        continue;
                    }
                    Call::Compute { cycles } => {
                        s.computes += 1;
                        s.compute_cycles = s.compute_cycles.saturating_add(cycles);
                        continue;
                    }
                    _ => continue,
                };
                s.messages += 1;
                s.bytes = s.bytes.saturating_add(bytes);
                let world_dest = if comm == crate::mpi::WORLD {
                    Some(dest)
                } else {
                    members
                        .get(&(comm, rank))
                        .and_then(|m| m.get(dest as usize).copied())
                };
                s.self_messages += u64::from(world_dest == Some(rank));
                if let Some(d) = world_dest {
                    let e = s.pairs.entry((rank, d)).or_default();
                    e.0 += 1;
                    e.1 = e.1.saturating_add(bytes);
                }
            }
        }
        s
    }
}

/// An archive with its definitions read.
struct Opened {
    archive: Archive,
    anchor: defs::Anchor,
    defs: defs::Defs,
    world: world::World,
}

impl Opened {
    fn new(path: &Path) -> Result<Opened> {
        let archive = Archive::locate(path)?;
        let anchor = defs::read_anchor(&archive.anchor)?;
        let defs = defs::read_global(&archive.global_defs, anchor.def_chunk)?;
        let world = world::World::new(&defs)
            .map_err(|m| Error::Invalid(format!("{}: {m}", archive.global_defs.display())))?;
        // The definitions already hold a record per location; this bounds what lowering allocates.
        RankLimit::default()
            .count(world.ranks.len() as u64)
            .map_err(|m| Error::Invalid(format!("{}: {m}", archive.global_defs.display())))?;
        Ok(Opened {
            archive,
            anchor,
            defs,
            world,
        })
    }

    fn ranks(&self) -> u32 {
        self.world.ranks.len() as u32
    }

    /// Decodes every rank's events into `sink`.
    fn decode(&self, cycles_per_second: f64, sink: &mut impl Sink) -> Result<Notes> {
        for (handle, members) in &self.world.defined {
            sink.comm(*handle, members.clone())?;
        }
        let mut notes = Notes::default();
        for (rank, &location) in self.world.ranks.iter().enumerate() {
            let rank = rank as u32;
            let evt = self.archive.events(location);
            let Some(mut file) =
                buffer::ChunkFile::open_if_present(&evt, self.anchor.event_chunk, true)?
            else {
                if self
                    .defs
                    .locations
                    .get(&location)
                    .is_some_and(|l| l.events == 0)
                {
                    continue;
                }
                return Err(Error::Invalid(format!(
                    "{}: the event file of location {location} (rank {rank}) is missing",
                    evt.display()
                )));
            };
            let local = self.archive.local_defs(location);
            let maps = defs::read_local(&local, self.anchor.def_chunk)?;
            let name = file.path().to_string();
            let fid = sink.file(&name);
            let mut dec = events::RankDecoder::new(&self.world, rank, maps, cycles_per_second);
            let mut push = |call, at| sink.push(rank, call, Pos { file: fid, at });
            while let Some(mut rec) = file.next()? {
                dec.record(rec.kind, rec.at, rec.time, &mut rec.body)
                    .map_err(|f| f.into_error(&name))?;
                dec.drain(&mut push);
            }
            notes.add(&dec.finish(push));
        }
        Ok(notes)
    }
}

fn check_rate(cycles_per_second: f64) -> Result<()> {
    if cycles_per_second.is_finite() && cycles_per_second > 0.0 {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "cycles_per_second = {cycles_per_second} is not a positive number"
        )))
    }
}

/// Reads the OTF2 archive at `path` (its anchor file or its folder) into a program whose collectives
/// expand with `algorithms` and whose computation takes `cycles_per_second` cycles per traced second,
/// under MPICH's protocols (a real MPI run).
pub fn read(path: &Path, algorithms: &Algorithms, cycles_per_second: f64) -> Result<Program> {
    check_rate(cycles_per_second)?;
    let opened = Opened::new(path)?;
    let mut builder = Builder::new(opened.ranks(), algorithms)?;
    let notes = opened.decode(cycles_per_second, &mut builder)?;
    Ok(builder
        .finish()?
        .with_mpi(MpiModel::mpich())
        .with_notes(notes.sentences()))
}

/// The rank count of the archive at `path` (its MPI locations), read from its definitions only.
pub fn ranks(path: &Path) -> Result<u32> {
    Ok(Opened::new(path)?.ranks())
}

/// Decodes the archive at `path` without lowering: every rank's calls, the communicators and what was
/// skipped (for `trace stats`, checks and tests).
pub fn read_calls(path: &Path, cycles_per_second: f64) -> Result<Calls> {
    check_rate(cycles_per_second)?;
    let opened = Opened::new(path)?;
    let mut calls = Calls {
        ranks: opened.ranks(),
        calls: vec![Vec::new(); opened.ranks() as usize],
        ..Calls::default()
    };
    calls.notes = opened.decode(cycles_per_second, &mut calls)?;
    Ok(calls)
}
