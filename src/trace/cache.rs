//! The binary cache of parsed traces (bincode 2 over serde): a re-run of the same trace skips parsing.
//!
//! A cache file holds a header (magic, cache layout version, the trace format version, a key and a
//! checksum of the payload) and the program as bincode. The key hashes the bytes of every source file
//! (the trace, or a SimGrid index and its per-rank files, as stored on disk, compressed or not) and the
//! read options (format, collective algorithms, unit conversions), so a changed source, option or
//! format version is a different key and never served stale. The checksum covers the payload, and the
//! decoded program is checked for consistency, so a corrupt cache is ignored (and rebuilt), never
//! trusted. Hashes are a 64-bit FNV-1a variant over 8-byte words (fast enough to be a small fraction of
//! parsing; change detection, not security).
//!
//! Where: by default in the user's cache folder, `$XDG_CACHE_HOME/netreplay` (else
//! `$HOME/.cache/netreplay`; with neither set to an absolute folder, no cache and a one-line notice);
//! `cache=DIR` puts it in DIR instead, `cache=beside` beside the trace as `.NAME.nrcache`, and
//! `cache=off` disables it. In a folder, a cache is named after the trace and a hash of its canonical
//! path, so traces of one name in different folders never share a file, and a trace that changes
//! replaces its own cache instead of leaving stale ones (the key inside tells a changed trace).
//! Failing to write a cache (a read-only folder) is not an error: the trace was read, only the next
//! run is slower.

use super::{Format, ReadOptions};
use crate::error::Result;
use crate::program::{Op, Program};
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// First bytes of every cache file.
const MAGIC: &[u8; 8] = b"NRCACHE\0";

/// Layout version of cache files; bump when the header or the encoded types change.
const LAYOUT: u32 = 4;

/// The largest cache file read (1 TiB): a bound for the whole-file read, far above any program the
/// simulator holds; its contents are then checked against its own length.
const MAX_CACHE_BYTES: u64 = 1 << 40;

/// The names a collective region may carry, so a decoded region gets back its `&'static str`: the
/// collectives of [`crate::mpi::collectives::Algorithms::KEYS`], which lists them after `select` (their index is what the cache
/// stores, so that list's order is part of [`LAYOUT`]).
fn collectives() -> &'static [&'static str] {
    &crate::mpi::collectives::Algorithms::KEYS[1..]
}

/// Where the cache of a trace lives.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Location {
    /// The user's cache folder, [`user_dir`] (the default).
    #[default]
    User,
    /// `.NAME.nrcache` beside the trace.
    Beside,
    /// In this folder.
    Dir(PathBuf),
    /// No cache.
    Off,
}

/// 64-bit FNV-1a over 8-byte little-endian words (the tail padded with zeros, then the length mixed in).
#[derive(Debug, Clone, Copy)]
pub struct Hasher(u64);

impl Default for Hasher {
    fn default() -> Self {
        Hasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher {
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// Mixes in one word.
    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(Self::PRIME);
        self.0 ^= self.0 >> 29;
    }

    /// Mixes in `bytes` (a whole unit: its length is mixed in too).
    pub fn bytes(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.word(u64::from_le_bytes(tail));
        self.word(bytes.len() as u64);
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// Hashes a file's bytes, streamed in 1 MiB blocks.
fn hash_file(h: &mut Hasher, path: &Path) -> std::io::Result<()> {
    let mut f = crate::input::open(path, "a trace file").map_err(std::io::Error::other)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let mut filled = 0;
        while filled < buf.len() {
            match f.read(&mut buf[filled..])? {
                0 => break,
                n => filled += n,
            }
        }
        h.bytes(&buf[..filled]);
        if filled < buf.len() {
            return Ok(());
        }
    }
}

/// The cache key of reading `path` with `opts` in `format`: the sources' bytes, the options and the
/// format versions.
pub fn key(path: &Path, format: Format, opts: &ReadOptions) -> Result<u64> {
    let sources = (format.descriptor().sources)(path)?;
    let mut h = Hasher::default();
    for s in &sources {
        hash_file(&mut h, s).map_err(crate::error::Error::io(s.display()))?;
    }
    let described = format!(
        "{format:?} {:?} {:?} {:?} {} {}",
        opts.algorithms,
        opts.units.flops_per_cycle.to_bits(),
        opts.units.cycles_per_second.to_bits(),
        super::parser::VERSION,
        LAYOUT
    );
    h.bytes(described.as_bytes());
    if !opts.units.derived.is_empty() {
        // Only then, so that the keys of existing caches stay valid.
        h.bytes(format!("{:?}", opts.units.derived).as_bytes());
    }
    Ok(h.finish())
}

/// The user's folder for trace caches: `$XDG_CACHE_HOME/netreplay`, else `$HOME/.cache/netreplay`;
/// a relative or empty value is ignored, as the XDG base directory specification says.
pub fn user_dir() -> Option<PathBuf> {
    user_dir_from(std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME"))
}

fn user_dir_from(xdg: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let absolute = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(xdg)
        .map(|d| d.join("netreplay"))
        .or_else(|| absolute(home).map(|h| h.join(".cache").join("netreplay")))
}

/// The cache file of the trace at `path`, if caching is on.
pub fn path_for(trace: &Path, location: &Location) -> Option<PathBuf> {
    let name = trace.file_name()?.to_string_lossy().into_owned();
    let in_folder = |dir: &Path| {
        let canonical = std::fs::canonicalize(trace)
            .or_else(|_| std::path::absolute(trace))
            .unwrap_or_else(|_| trace.to_path_buf());
        let mut h = Hasher::default();
        h.bytes(canonical.as_os_str().as_encoded_bytes());
        dir.join(format!("{name}-{:016x}.nrcache", h.finish()))
    };
    match location {
        Location::Off => None,
        Location::Beside => Some(trace.with_file_name(format!(".{name}.nrcache"))),
        Location::Dir(dir) => Some(in_folder(dir)),
        Location::User => {
            let dir = user_dir();
            if dir.is_none() {
                static NOTICE: std::sync::Once = std::sync::Once::new();
                NOTICE.call_once(|| {
                    log::warn!(
                        "no trace cache: neither XDG_CACHE_HOME nor HOME names an absolute folder \
                         (give cache=beside or cache=DIR to keep one)"
                    )
                });
            }
            dir.map(|d| in_folder(&d))
        }
    }
}

/// What is encoded: every rank's ops back to back, each rank's op count, the collective regions
/// as (rank, first op, end op, index in [`collectives`]) for the replay timeline, the MPI model
/// the trace was read under (a native file may record its own), and its reader's notes (what it
/// skipped, which a run read from the cache still reports).
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    mpi: crate::program::MpiModel,
    notes: Vec<String>,
    ops: Vec<Op>,
    lens: Vec<u64>,
    regions: Option<Vec<(u32, u32, u32, u8)>>,
}

/// The header: magic, layout, trace format version, key, payload checksum, payload length.
const HEADER: usize = 8 + 4 + 4 + 8 + 8 + 8;

/// Encodes `program` under `key`.
pub fn encode(program: &Program, key: u64) -> Vec<u8> {
    let n = program.ranks();
    let stored = Stored {
        mpi: *program.mpi(),
        notes: program.notes().to_vec(),
        ops: (0..n)
            .flat_map(|r| program.rank_ops(r).iter().copied())
            .collect(),
        lens: (0..n).map(|r| program.rank_ops(r).len() as u64).collect(),
        regions: program.regions().map(|all| {
            let mut flat = Vec::new();
            for (rank, list) in all.iter().enumerate() {
                for g in list {
                    if let Some(i) = collectives().iter().position(|&c| c == g.name) {
                        flat.push((rank as u32, g.first, g.end, i as u8));
                    }
                }
            }
            flat
        }),
    };
    let payload = bincode::serde::encode_to_vec(&stored, bincode::config::standard())
        .expect("encoding plain data into memory cannot fail");
    let mut h = Hasher::default();
    h.bytes(&payload);
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&LAYOUT.to_le_bytes());
    out.extend_from_slice(&super::parser::VERSION.to_le_bytes());
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&h.finish().to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Decodes a cache file's bytes if they are intact and stored under `key`; `None` otherwise.
pub fn decode(bytes: &[u8], key: u64) -> Option<Program> {
    let header = bytes.get(..HEADER)?;
    let u32_at = |i: usize| u32::from_le_bytes(header[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(header[i..i + 8].try_into().expect("8 bytes"));
    if &header[..8] != MAGIC
        || u32_at(8) != LAYOUT
        || u32_at(12) != super::parser::VERSION
        || u64_at(16) != key
    {
        return None;
    }
    let payload = &bytes[HEADER..];
    if u64_at(32) != payload.len() as u64 {
        return None;
    }
    let mut h = Hasher::default();
    h.bytes(payload);
    if h.finish() != u64_at(24) {
        return None;
    }
    let (stored, used): (Stored, usize) =
        bincode::serde::decode_from_slice(payload, bincode::config::standard()).ok()?;
    let ranks = stored.lens.len();
    let total = stored
        .lens
        .iter()
        .try_fold(0u64, |a, &l| a.checked_add(l))?;
    if used != payload.len()
        || total != stored.ops.len() as u64
        || !(2..=crate::mpi::MAX_RANKS as usize).contains(&ranks)
    {
        return None;
    }
    let mut at = 0usize;
    let program = Program::from_fn(ranks as u32, |r, ops| {
        let len = stored.lens[r as usize] as usize;
        ops.extend_from_slice(&stored.ops[at..at + len]);
        at += len;
    })
    .with_mpi(stored.mpi)
    .with_notes(stored.notes);
    program.validate().ok()?;
    let Some(flat) = stored.regions else {
        return Some(program);
    };
    let mut regions: crate::program::Regions = vec![Vec::new(); ranks];
    for (rank, first, end, name) in flat {
        let list = regions.get_mut(rank as usize)?;
        let ops = program.rank_ops(rank).len() as u32;
        let name = *collectives().get(name as usize)?;
        if first >= end || end > ops || list.last().is_some_and(|g| g.end > first) {
            return None;
        }
        list.push(crate::program::Region { first, end, name });
    }
    Some(program.with_regions(regions))
}

/// Reads the trace at `path` through the cache at `location`: a valid cache under the current key is
/// decoded; otherwise the trace is read and the cache (re)written, atomically, ignoring write failures.
pub fn read(path: &Path, opts: &ReadOptions, location: &Location) -> Result<Program> {
    let Some(cache) = path_for(path, location) else {
        return super::read_any(path, opts);
    };
    let format = match opts.format {
        Some(f) => f,
        None => Format::detect(path)?,
    };
    let key = key(path, format, opts)?;
    if let Ok(bytes) = crate::input::read(&cache, "a trace cache", MAX_CACHE_BYTES)
        && let Some(program) = decode(&bytes, key)
    {
        log::info!(
            "{}: read from its cache {}",
            path.display(),
            cache.display()
        );
        return Ok(program);
    }
    log::info!(
        "{}: no valid cache at {}, reading the trace",
        path.display(),
        cache.display()
    );
    let fixed = ReadOptions {
        format: Some(format),
        ..*opts
    };
    let program = super::read_any(path, &fixed)?;
    if program.graph().is_some() {
        // The cache stores ops only; a dependency graph is read afresh (GOAL and Chakra decode
        // quickly).
        return Ok(program);
    }
    let bytes = encode(&program, key);
    if let Some(dir) = cache.parent()
        && (dir.as_os_str().is_empty() || std::fs::create_dir_all(dir).is_ok())
    {
        match crate::output::write_atomic_with(&cache, |f| f.write_all(&bytes)) {
            Ok(()) => log::debug!("cache written: {}", cache.display()),
            Err(e) => {
                log::warn!("trace cache not written ({e}); the next run reads the trace again")
            }
        }
    }
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stored index of a collective region is its place in this list: a change of it must bump
    /// [`LAYOUT`].
    #[test]
    fn collective_indices_are_part_of_the_layout() {
        let names = collectives();
        assert_eq!(names.len(), 16);
        assert_eq!((names[0], names[15]), ("barrier", "alltoallv"));
        assert_eq!(names.iter().position(|&n| n == "reduce_scatter"), Some(11));
    }

    /// A program under a model other than every format's default, so a round trip shows it kept.
    fn sample() -> Program {
        let mut mpi = crate::program::MpiModel::mpich();
        mpi.eager_threshold = 4096;
        Program::from_fn(3, |r, ops| {
            ops.push(Op::Isend {
                to: (r + 1) % 3,
                bytes: 1 << 40,
                tag: 7,
                req: 2,
            });
            ops.push(Op::Irecv {
                from: (r + 2) % 3,
                tag: 7,
                req: 3,
            });
            ops.push(Op::WaitAll);
            ops.push(Op::Compute {
                cycles: u64::from(r),
            });
        })
        .with_mpi(mpi)
        .with_notes(vec!["a note".into()])
    }

    #[test]
    fn round_trip_and_every_corruption_is_refused() {
        let p = sample();
        let bytes = encode(&p, 42);
        let d = decode(&bytes, 42).unwrap();
        assert_eq!((d.mpi(), d.notes()), (p.mpi(), p.notes()));
        assert_eq!(decode(&bytes, 42), Some(p));
        assert_eq!(decode(&bytes, 43), None, "another key");
        for i in 0..bytes.len() {
            for bit in [0x01u8, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= bit;
                assert_eq!(decode(&b, 42), None, "flipped bit {bit:#x} of byte {i}");
            }
        }
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut], 42), None, "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer, 42), None);
    }

    #[test]
    fn user_dir_follows_xdg_then_home_and_ignores_relative_values() {
        let os = |s: &str| Some(OsString::from(s));
        assert_eq!(
            user_dir_from(os("/x/cache"), os("/home/u")),
            Some(PathBuf::from("/x/cache/netreplay"))
        );
        assert_eq!(
            user_dir_from(os("rel"), os("/home/u")),
            Some(PathBuf::from("/home/u/.cache/netreplay"))
        );
        assert_eq!(
            user_dir_from(None, os("/home/u")),
            Some(PathBuf::from("/home/u/.cache/netreplay"))
        );
        assert_eq!(user_dir_from(os(""), os("")), None);
        assert_eq!(user_dir_from(None, None), None);
    }

    #[test]
    fn hasher_sees_every_byte_and_the_length() {
        let h = |b: &[u8]| {
            let mut x = Hasher::default();
            x.bytes(b);
            x.finish()
        };
        assert_ne!(h(b"abc"), h(b"abd"));
        assert_ne!(h(b"abc"), h(b"abc\0"));
        assert_ne!(h(b""), h(b"\0"));
        assert_ne!(h(b"0123456789"), h(b"0123456788"));
    }
}
