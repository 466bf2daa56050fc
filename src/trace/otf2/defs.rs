//! The anchor file and the definitions: what the event files' references mean.
//!
//! - Anchor (`traces.otf2`, `OTF2_AnchorFile.c`): a chunk header's type and endianness bytes, the magic
//!   string `OTF2`, the anchor format, the trace format, the OTF2 version (3 bytes), the event and
//!   definition chunk sizes (full 8-byte integers), the file substrate (POSIX only here) and the
//!   compression (none only here), then counts and descriptive strings this reader does not need.
//! - Global definitions (`traces.def`, record ids of `otf2_global_definitions.h`): ClockProperties (5:
//!   timer resolution in ticks per second), String (10), LocationGroup (13), Location (14), Region (15),
//!   Group (18) and Comm (22); every other record is skipped by its length. A record's attributes are
//!   those of OTF2 1.0 in order, then the ones later versions added (Region's role and paradigm since
//!   1.1, Group's type, paradigm and flags since 1.2, ...), so a newer record simply has more bytes.
//! - Local definitions (`traces/<location>.def`): MappingTable (5) records, whose id maps turn the
//!   location's own region and communicator ids into global ones (Score-P numbers communicators per
//!   process while it runs); ClockOffset (6) is not needed (durations are differences of one location's
//!   timestamps) and skipped.

use super::buffer::{self, ChunkFile, Cursor, Fault};
use crate::error::{Error, Result};
use ahash::AHashMap;
use std::path::Path;

/// The largest anchor file read (1 MiB): a real one is a few hundred bytes of properties.
const MAX_ANCHOR_BYTES: u64 = 1 << 20;

/// `OTF2_PARADIGM_MPI`.
pub(super) const PARADIGM_MPI: u8 = 4;
/// `OTF2_GROUP_TYPE_COMM_LOCATIONS`: rank i of the paradigm's world is location `members[i]`.
pub(super) const GROUP_COMM_LOCATIONS: u8 = 4;
/// `OTF2_GROUP_TYPE_COMM_GROUP`: members are ranks of the paradigm's world.
pub(super) const GROUP_COMM_GROUP: u8 = 5;
/// `OTF2_GROUP_TYPE_COMM_SELF`: one single-rank communicator per rank that uses it.
pub(super) const GROUP_COMM_SELF: u8 = 6;
/// `OTF2_GROUP_FLAG_GLOBAL_MEMBERS`: ranks in event records are world ranks, not group ranks.
pub(super) const GROUP_FLAG_GLOBAL_MEMBERS: u32 = 1;
/// `OTF2_UNDEFINED_UINT32`, the "none" of 32-bit references.
pub(super) const UNDEFINED: u32 = u32::MAX;

/// What the anchor file says about the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Anchor {
    /// OTF2 version that wrote the archive.
    pub version: (u8, u8, u8),
    /// Chunk size of event files.
    pub event_chunk: u64,
    /// Chunk size of definition files.
    pub def_chunk: u64,
    /// Number of locations.
    pub locations: u64,
    /// Creator string (`Score-P 8.4`...).
    pub creator: String,
}

/// The bytes every anchor file starts with, little and big endian.
pub(super) fn is_anchor_start(bytes: &[u8]) -> bool {
    bytes.len() >= 7
        && bytes[0] == buffer::CHUNK_HEADER
        && matches!(bytes[1], buffer::LITTLE_ENDIAN | buffer::BIG_ENDIAN)
        && &bytes[2..7] == b"OTF2\0"
}

/// Reads the anchor file at `path`.
pub(super) fn read_anchor(path: &Path) -> Result<Anchor> {
    let name = path.display().to_string();
    let bytes = crate::input::read(path, "an OTF2 anchor file", MAX_ANCHOR_BYTES)?;
    if !is_anchor_start(&bytes) {
        return Err(Error::Invalid(format!(
            "{name}: not an OTF2 anchor file (it does not start with OTF2's chunk header and the magic \
             string \"OTF2\")"
        )));
    }
    parse_anchor(&bytes).map_err(|f| f.into_error(&name))
}

fn parse_anchor(bytes: &[u8]) -> Result<Anchor, Fault> {
    let big = bytes[1] == buffer::BIG_ENDIAN;
    let mut c = Cursor::new(&bytes[2..], 2, big);
    c.string("magic")?;
    let format = c.u8("anchor format")?;
    if format == 0 {
        return Err(c.fault("anchor format 0 is invalid"));
    }
    c.u8("trace format")?;
    let version = (
        c.u8("OTF2 version")?,
        c.u8("OTF2 version")?,
        c.u8("OTF2 version")?,
    );
    let chunk_at = c.offset();
    let event_chunk = c.u64_full("event chunk size")?;
    let def_chunk = c.u64_full("definition chunk size")?;
    let at = c.offset();
    match c.u8("file substrate")? {
        // OTF2_SUBSTRATE_POSIX, and 0 (undefined) as some writers leave it.
        0 | 1 => {}
        2 => return Err(Fault { at, what: "the archive uses the SION file substrate (one container file for all locations); only POSIX archives (one file per location) are read".into() }),
        s => return Err(Fault { at, what: format!("unknown file substrate {s}") }),
    }
    let at = c.offset();
    match c.u8("compression")? {
        0 | 1 => {}
        2 => {
            return Err(Fault {
                at,
                what: "the archive is zlib-compressed; only uncompressed OTF2 archives are read"
                    .into(),
            });
        }
        s => {
            return Err(Fault {
                at,
                what: format!("unknown compression {s}"),
            });
        }
    }
    let locations = c.u64_full("number of locations")?;
    c.u64_full("number of definitions")?;
    c.string("machine name")?;
    let creator = c.string("creator")?;
    for (what, size) in [("event", event_chunk), ("definition", def_chunk)] {
        if !buffer::CHUNK_SIZE_RANGE.contains(&size) {
            return Err(Fault {
                at: chunk_at,
                what: format!("{what} chunk size {size} is outside the sizes OTF2 writes"),
            });
        }
    }
    Ok(Anchor {
        version,
        event_chunk,
        def_chunk,
        locations,
        creator,
    })
}

/// A region definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Region {
    /// Name string id.
    pub name: u32,
    /// Paradigm (OTF2 >= 1.1), if recorded.
    pub paradigm: Option<u8>,
}

/// A group definition (OTF2 >= 1.2 layout; older groups have no paradigm and are ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Group {
    /// `OTF2_GroupType`.
    pub kind: u8,
    /// `OTF2_Paradigm`.
    pub paradigm: u8,
    /// `OTF2_GroupFlag`.
    pub flags: u32,
    /// Members: locations, or ranks of the paradigm's world.
    pub members: Vec<u64>,
}

/// A communicator definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Comm {
    /// Global id.
    pub id: u32,
    /// Name string id.
    pub name: u32,
    /// Group id.
    pub group: u32,
    /// Parent communicator id or [`UNDEFINED`].
    pub parent: u32,
}

/// A location definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Location {
    /// Number of events the location recorded.
    pub events: u64,
}

/// The global definitions this reader uses.
#[derive(Debug, Clone, Default)]
pub(super) struct Defs {
    /// Ticks per second, from ClockProperties.
    pub timer_resolution: Option<u64>,
    /// Strings by id.
    pub strings: AHashMap<u32, String>,
    /// Regions by id.
    pub regions: AHashMap<u32, Region>,
    /// Locations by id.
    pub locations: AHashMap<u64, Location>,
    /// Groups by id.
    pub groups: AHashMap<u32, Group>,
    /// Communicators in definition order.
    pub comms: Vec<Comm>,
}

impl Defs {
    /// The string `id`, or an error naming what refers to it.
    pub fn string(&self, id: u32, user: &str) -> Result<&str, String> {
        self.strings
            .get(&id)
            .map(String::as_str)
            .ok_or_else(|| format!("{user} names string {id}, which is never defined"))
    }
}

/// Reads the global definition file at `path`.
pub(super) fn read_global(path: &Path, chunk: u64) -> Result<Defs> {
    let mut file = ChunkFile::open(path, chunk, false)?;
    let mut defs = Defs::default();
    let path = file.path().to_string();
    while let Some(mut rec) = file.next()? {
        global_record(&mut defs, rec.kind, &mut rec.body).map_err(|f| f.into_error(&path))?;
    }
    Ok(defs)
}

fn global_record(defs: &mut Defs, kind: u8, c: &mut Cursor<'_>) -> Result<(), Fault> {
    match kind {
        // ClockProperties: timerResolution, globalOffset, traceLength[, realtimeTimestamp (3.0)].
        5 => {
            let res = c.u64c("timer resolution")?;
            if res == 0 || res == u64::MAX {
                return Err(c.fault(format!(
                    "timer resolution {res} ticks per second is invalid"
                )));
            }
            defs.timer_resolution = Some(res);
        }
        // String: self, string.
        10 => {
            let id = c.u32c("string id")?;
            let s = c.string("definition")?;
            defs.strings.insert(id, s);
        }
        // Location: self (u64), name, locationType (u8), numberOfEvents, locationGroup.
        14 => {
            let id = c.u64c("location id")?;
            c.u32c("location name")?;
            c.u8("location type")?;
            let events = c.u64c("number of events")?;
            defs.locations.insert(id, Location { events });
        }
        // Region: self, name, description, regionType (u8), sourceFile, beginLine, endLine,
        // [1.1: canonicalName, regionRole (u8), paradigm (u8), regionFlags].
        15 => {
            let id = c.u32c("region id")?;
            let name = c.u32c("region name")?;
            c.u32c("region description")?;
            c.u8("region type")?;
            c.u32c("region source file")?;
            c.u32c("region begin line")?;
            c.u32c("region end line")?;
            let paradigm = if c.at_end() {
                None
            } else {
                c.u32c("region canonical name")?;
                c.u8("region role")?;
                Some(c.u8("region paradigm")?)
            };
            defs.regions.insert(id, Region { name, paradigm });
        }
        // Group: self, name, groupTypePre12 (u8), numberOfMembers, members (u64 each),
        // [1.2: groupType (u8), paradigm (u8), groupFlags].
        18 => {
            let id = c.u32c("group id")?;
            c.u32c("group name")?;
            c.u8("group type")?;
            let n = c.u32c("number of group members")?;
            // Each member takes at least one byte: a count beyond the record is corrupt, and
            // checking it first keeps a corrupt count from reserving gigabytes.
            let mut members = Vec::with_capacity((n as usize).min(1 << 16));
            for _ in 0..n {
                members.push(c.u64c("group member")?);
            }
            if c.at_end() {
                return Ok(());
            }
            let kind = c.u8("group type")?;
            let paradigm = c.u8("group paradigm")?;
            let flags = c.u32c("group flags")?;
            defs.groups.insert(
                id,
                Group {
                    kind,
                    paradigm,
                    flags,
                    members,
                },
            );
        }
        // Comm: self, name, group, parent[, 3.0: flags].
        22 => {
            let id = c.u32c("communicator id")?;
            let name = c.u32c("communicator name")?;
            let group = c.u32c("communicator group")?;
            let parent = c.u32c("communicator parent")?;
            defs.comms.push(Comm {
                id,
                name,
                group,
                parent,
            });
        }
        _ => {}
    }
    Ok(())
}

/// `OTF2_MAPPING_REGION`.
const MAPPING_REGION: u8 = 3;
/// `OTF2_MAPPING_COMM`.
const MAPPING_COMM: u8 = 6;

/// A location's id maps (local id -> global id); ids a map does not list are already global.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Mappings {
    /// Region ids.
    pub regions: Option<IdMap>,
    /// Communicator ids.
    pub comms: Option<IdMap>,
}

/// An `OTF2_IdMap`: dense (global ids by local index) or sparse (pairs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum IdMap {
    /// `globals[local]`.
    Dense(Vec<u64>),
    /// local -> global.
    Sparse(AHashMap<u64, u64>),
}

impl IdMap {
    /// The global id of `local` (itself if unmapped).
    pub fn map(&self, local: u64) -> u64 {
        match self {
            IdMap::Dense(v) => usize::try_from(local)
                .ok()
                .and_then(|i| v.get(i))
                .copied()
                .unwrap_or(local),
            IdMap::Sparse(m) => m.get(&local).copied().unwrap_or(local),
        }
    }
}

/// Reads the local definitions of a location (absent file: no mappings).
pub(super) fn read_local(path: &Path, chunk: u64) -> Result<Mappings> {
    let mut maps = Mappings::default();
    let Some(mut file) = ChunkFile::open_if_present(path, chunk, false)? else {
        return Ok(maps);
    };
    let path = file.path().to_string();
    while let Some(mut rec) = file.next()? {
        if rec.kind != 5 {
            continue;
        }
        let c = &mut rec.body;
        let kind = c.u8("mapping type").map_err(|f| f.into_error(&path))?;
        let map = id_map(c).map_err(|f| f.into_error(&path))?;
        match kind {
            MAPPING_REGION => maps.regions = Some(map),
            MAPPING_COMM => maps.comms = Some(map),
            _ => {}
        }
    }
    Ok(maps)
}

/// `otf2_id_map_read`: number of entries, mode (0 dense, 1 sparse), then the ids.
fn id_map(c: &mut Cursor<'_>) -> Result<IdMap, Fault> {
    let n = c.u64c("id map size")?;
    let mode = c.u8("id map mode")?;
    let cap = usize::try_from(n).unwrap_or(usize::MAX).min(1 << 16);
    match mode {
        0 => {
            let mut v = Vec::with_capacity(cap);
            for _ in 0..n {
                v.push(c.u64c("global id")?);
            }
            Ok(IdMap::Dense(v))
        }
        1 => {
            let mut m = AHashMap::with_capacity(cap);
            for _ in 0..n {
                let local = c.u64c("local id")?;
                m.insert(local, c.u64c("global id")?);
            }
            Ok(IdMap::Sparse(m))
        }
        m => Err(c.fault(format!("unknown id map mode {m} (0 dense, 1 sparse)"))),
    }
}
