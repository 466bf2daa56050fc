//! OTF2's binary encoding (`OTF2_Buffer.c`): chunked files, records and compressed integers.
//!
//! Every OTF2 file but the anchor's payload is a sequence of chunks of the archive's chunk size (one
//! for event files, one for definition files; the last chunk of a file is cut short after its data).
//! A chunk starts with a header: `0x03` (`OTF2_BUFFER_CHUNK_HEADER`), the endianness byte (`0x42`
//! little, `0x23` big: how every multi-byte value of the chunk is stored), then the numbers of its
//! first and last event as two full 8-byte integers. Records follow, each a type byte and, except for
//! the singleton event records of OTF2 1.0/1.1 (see [`singleton`]), a length byte (`0xff`: the length
//! is in the following 8 bytes) and that many bytes of attributes, so records of unknown types (other
//! OTF2 and Score-P versions) are skipped by their length. Special type bytes: `0x00` ends the chunk
//! (the rest is padding, the next chunk starts at the next multiple of the chunk size), `0x01` and
//! `0x02` end the file, and in event files `0x05` is a timestamp (a full 8-byte tick count applying to
//! the records after it) and `0x06` an attribute list (a length-prefixed record, skipped).
//!
//! Integers are compressed: a size byte, then that many low-order bytes of the value (little endian
//! chunks store them first, big endian ones last); size `0x00` is 0 and `0xff` the type's maximum
//! (OTF2's "undefined"). Strings are NUL-terminated. "Full" values (timestamps, chunk header numbers)
//! take their whole width.
//!
//! The reader holds one chunk in memory at a time, so event files of any size stream in bounded memory.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// `OTF2_BUFFER_END_OF_CHUNK`.
const END_OF_CHUNK: u8 = 0x00;
/// `OTF2_BUFFER_END_OF_BUFFER`.
const END_OF_BUFFER: u8 = 0x01;
/// `OTF2_BUFFER_END_OF_FILE`.
const END_OF_FILE: u8 = 0x02;
/// `OTF2_BUFFER_CHUNK_HEADER`.
pub(super) const CHUNK_HEADER: u8 = 0x03;
/// `OTF2_BUFFER_TIMESTAMP` (event files only).
pub(super) const TIMESTAMP: u8 = 0x05;
/// `OTF2_ATTRIBUTE_LIST` (event files only).
pub(super) const ATTRIBUTE_LIST: u8 = 0x06;
/// Endianness byte of little endian chunks.
pub(super) const LITTLE_ENDIAN: u8 = 0x42;
/// Endianness byte of big endian chunks.
pub(super) const BIG_ENDIAN: u8 = 0x23;
/// Bytes of a chunk header: type, endianness, first and last event numbers.
pub(super) const CHUNK_HEADER_LEN: usize = 18;
/// Smallest and largest chunk sizes accepted from an anchor file (OTF2 itself writes 256 KiB to 16 MiB;
/// the bounds only keep a corrupt anchor from asking for absurd buffers).
pub(super) const CHUNK_SIZE_RANGE: std::ops::RangeInclusive<u64> = 64..=(1 << 30);

/// Whether an event record type has no length byte: the records of OTF2 1.0/1.1 with a single
/// compressed attribute (Enter, Leave, MpiIsendComplete, MpiIrecvRequest, MpiRequestTest,
/// MpiRequestCancelled, OmpFork, OmpTaskCreate, OmpTaskSwitch, OmpTaskComplete). OTF2 gives every
/// later record a length, so this list is closed (`otf2_evt_reader_skip` in `OTF2_EvtReader.c`).
pub(super) fn singleton(kind: u8) -> bool {
    matches!(kind, 12 | 13 | 16 | 17 | 20 | 21 | 24 | 28 | 29 | 30)
}

/// A decoding problem at a byte offset of a file; the file reader adds the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fault {
    /// Byte offset in the file.
    pub at: u64,
    /// What is wrong.
    pub what: String,
}

impl Fault {
    /// The crate error: `PATH (byte N): what`.
    pub fn into_error(self, path: &str) -> Error {
        Error::Invalid(format!("{path} (byte {}): {}", self.at, self.what))
    }
}

/// Reads the attributes of one record (or the anchor file's payload): compressed and full integers,
/// strings. Every read is bounds-checked; running past the end is a [`Fault`] naming the field.
#[derive(Debug, Clone)]
pub(super) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// File offset of `data[0]`.
    base: u64,
    big: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`, which starts at file offset `base`, in the given byte order.
    pub fn new(data: &'a [u8], base: u64, big: bool) -> Cursor<'a> {
        Cursor {
            data,
            pos: 0,
            base,
            big,
        }
    }

    /// File offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base.saturating_add(self.pos as u64)
    }

    /// Whether every byte has been read (later OTF2 versions append attributes to records: a reader
    /// that stops early has simply met a newer writer).
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// A fault at the current position.
    pub fn fault(&self, what: impl Into<String>) -> Fault {
        Fault {
            at: self.offset(),
            what: what.into(),
        }
    }

    fn take(&mut self, n: usize, field: &str) -> Result<&'a [u8], Fault> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let s = &self.data[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(self.fault(format!(
                "record ends inside its {field} ({n} bytes needed, {} left)",
                self.data.len() - self.pos
            ))),
        }
    }

    /// One byte.
    pub fn u8(&mut self, field: &str) -> Result<u8, Fault> {
        Ok(self.take(1, field)?[0])
    }

    /// An unsigned integer of `n` bytes in the chunk's byte order.
    fn uint(&self, bytes: &[u8]) -> u64 {
        if self.big {
            bytes.iter().fold(0, |v, &b| (v << 8) | u64::from(b))
        } else {
            bytes.iter().rev().fold(0, |v, &b| (v << 8) | u64::from(b))
        }
    }

    /// A full 8-byte integer (timestamps).
    pub fn u64_full(&mut self, field: &str) -> Result<u64, Fault> {
        let b = self.take(8, field)?;
        Ok(self.uint(b))
    }

    /// A compressed integer of at most `width` bytes: size byte, then its low-order bytes.
    fn compressed(&mut self, width: u8, field: &str) -> Result<u64, Fault> {
        let at = self.offset();
        let size = self.u8(field)?;
        match size {
            0 => Ok(0),
            0xff => Ok(if width == 8 {
                u64::MAX
            } else {
                u64::from(u32::MAX)
            }),
            s if s <= width => {
                let b = self.take(usize::from(s), field)?;
                Ok(self.uint(b))
            }
            s => Err(Fault {
                at,
                what: format!(
                    "invalid size byte {s} of the compressed {field} (at most {width} bytes)"
                ),
            }),
        }
    }

    /// A compressed 32-bit unsigned integer (references, ranks, tags).
    pub fn u32c(&mut self, field: &str) -> Result<u32, Fault> {
        Ok(self.compressed(4, field)? as u32)
    }

    /// A compressed 64-bit unsigned integer (sizes, request ids, location ids).
    pub fn u64c(&mut self, field: &str) -> Result<u64, Fault> {
        self.compressed(8, field)
    }

    /// A NUL-terminated string (invalid UTF-8 replaced).
    pub fn string(&mut self, field: &str) -> Result<String, Fault> {
        let rest = &self.data[self.pos.min(self.data.len())..];
        match memchr::memchr(0, rest) {
            Some(n) => {
                let s = String::from_utf8_lossy(&rest[..n]).into_owned();
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(self.fault(format!("{field} string has no terminating NUL byte"))),
        }
    }
}

/// One record of a chunked file.
#[derive(Debug)]
pub(super) struct Record<'a> {
    /// Record type byte.
    pub kind: u8,
    /// File offset of the type byte.
    pub at: u64,
    /// Timestamp in effect (event files; 0 before the first).
    pub time: u64,
    /// The attributes.
    pub body: Cursor<'a>,
}

/// A chunked OTF2 file read chunk by chunk.
#[derive(Debug)]
pub(super) struct ChunkFile {
    path: String,
    file: File,
    /// The file's length when opened: a buffer never needs to be longer than what is left of it
    /// (Score-P's chunks are 1 MiB, its event files often a few KiB).
    file_len: u64,
    chunk_size: usize,
    /// Event files have timestamps, attribute lists and singleton records.
    events: bool,
    buf: Vec<u8>,
    /// Valid bytes in `buf`.
    len: usize,
    /// File offset of `buf[0]`.
    start: u64,
    pos: usize,
    big: bool,
    time: u64,
    done: bool,
    /// Chunks read so far.
    chunks: u64,
}

impl ChunkFile {
    /// Opens `path`, whose chunks are `chunk_size` bytes; `events` for event files.
    pub fn open(path: &Path, chunk_size: u64, events: bool) -> Result<ChunkFile> {
        let file = crate::input::open(path, "an OTF2 file")?;
        let file_len = file.metadata().map_or(u64::MAX, |m| m.len());
        ChunkFile::new(path, file, file_len, chunk_size, events)
    }

    /// Like [`ChunkFile::open`], or `None` when `path` is absent (local definitions, event files of
    /// locations without events), with one look-up of the path.
    pub fn open_if_present(
        path: &Path,
        chunk_size: u64,
        events: bool,
    ) -> Result<Option<ChunkFile>> {
        match crate::input::open_if_present(path, "an OTF2 file")? {
            Some((file, len)) => ChunkFile::new(path, file, len, chunk_size, events).map(Some),
            None => Ok(None),
        }
    }

    fn new(
        path: &Path,
        file: File,
        file_len: u64,
        chunk_size: u64,
        events: bool,
    ) -> Result<ChunkFile> {
        let name = path.display().to_string();
        let size = usize::try_from(chunk_size)
            .ok()
            .filter(|_| CHUNK_SIZE_RANGE.contains(&chunk_size))
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "{name}: chunk size {chunk_size} from the anchor file is outside {}..={}",
                    CHUNK_SIZE_RANGE.start(),
                    CHUNK_SIZE_RANGE.end()
                ))
            })?;
        Ok(ChunkFile {
            path: name,
            file,
            file_len,
            chunk_size: size,
            events,
            buf: Vec::new(),
            len: 0,
            start: 0,
            pos: 0,
            big: false,
            time: 0,
            done: false,
            chunks: 0,
        })
    }

    /// The file's path, for messages.
    pub fn path(&self) -> &str {
        &self.path
    }

    fn fault(&self, at: u64, what: impl Into<String>) -> Error {
        Fault {
            at,
            what: what.into(),
        }
        .into_error(&self.path)
    }

    /// Reads the next chunk; `false` at the end of the file.
    fn load(&mut self) -> Result<bool> {
        let next = if self.chunks == 0 {
            0
        } else {
            self.start.saturating_add(self.chunk_size as u64)
        };
        // What is left of the file, at least one byte so that the end of the file is seen as such.
        let left = usize::try_from(self.file_len.saturating_sub(next)).unwrap_or(usize::MAX);
        let want = self.chunk_size.min(left).max(1);
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        let mut got = 0;
        while got < want {
            match self.file.read(&mut self.buf[got..want]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(&self.path)(e)),
            }
        }
        if got == 0 {
            return Ok(false);
        }
        self.start = next;
        self.len = got;
        self.chunks += 1;
        if got < CHUNK_HEADER_LEN {
            return Err(self.fault(
                next,
                format!("truncated: the file ends inside a chunk header ({got} of {CHUNK_HEADER_LEN} bytes)"),
            ));
        }
        if self.buf[0] != CHUNK_HEADER {
            return Err(self.fault(
                next,
                format!(
                    "not an OTF2 chunk: it starts with byte {:#04x}, not the chunk header {CHUNK_HEADER:#04x}",
                    self.buf[0]
                ),
            ));
        }
        self.big = match self.buf[1] {
            LITTLE_ENDIAN => false,
            BIG_ENDIAN => true,
            b => {
                return Err(self.fault(
                    next + 1,
                    format!("invalid endianness byte {b:#04x} (0x42 little, 0x23 big)"),
                ));
            }
        };
        self.pos = CHUNK_HEADER_LEN;
        Ok(true)
    }

    /// The next record, or `None` after the end-of-file marker. A file that ends without that marker
    /// is truncated (OTF2 writers always close a file with it).
    pub fn next(&mut self) -> Result<Option<Record<'_>>> {
        if self.done {
            return Ok(None);
        }
        loop {
            if self.chunks == 0 || self.pos >= self.len {
                // A full chunk whose data fills it to the last byte continues in the next one; a short
                // one is the last of the file and must have ended with the end-of-file marker.
                if self.chunks > 0 && self.len < self.chunk_size {
                    return Err(self.truncated());
                }
                if !self.load()? {
                    return Err(self.truncated());
                }
                continue;
            }
            let at = self.start + self.pos as u64;
            let kind = self.buf[self.pos];
            match kind {
                END_OF_CHUNK => {
                    self.pos = self.len;
                    if self.len < self.chunk_size {
                        return Err(self.truncated());
                    }
                    continue;
                }
                END_OF_BUFFER | END_OF_FILE => {
                    self.done = true;
                    return Ok(None);
                }
                TIMESTAMP if self.events => {
                    let mut c = Cursor::new(&self.buf[self.pos + 1..self.len], at + 1, self.big);
                    self.time = c
                        .u64_full("timestamp")
                        .map_err(|f| f.into_error(&self.path))?;
                    self.pos += 9;
                    continue;
                }
                _ => {}
            }
            let (body_start, body_len) = if self.events && singleton(kind) {
                // One compressed value: its size byte says how long it is.
                let size = match self.buf.get(self.pos + 1) {
                    Some(&s) if self.pos + 1 < self.len => s,
                    _ => return Err(self.fault(at, "truncated: the file ends inside a record")),
                };
                let n = match size {
                    0xff => 1,
                    s if s <= 8 => 1 + usize::from(s),
                    s => {
                        return Err(self.fault(
                            at + 1,
                            format!("invalid size byte {s} of a compressed attribute"),
                        ));
                    }
                };
                (self.pos + 1, n)
            } else {
                self.length(at)?
            };
            let end = body_start
                .checked_add(body_len)
                .filter(|&e| e <= self.len)
                .ok_or_else(|| {
                    let left = self.len.saturating_sub(body_start);
                    self.fault(
                        at,
                        if self.len < self.chunk_size {
                            format!(
                                "truncated: the file ends inside a record of type {kind} \
                                 ({body_len} bytes long, {left} left)"
                            )
                        } else {
                            format!(
                                "record of type {kind} is {body_len} bytes long but its chunk \
                                 has {left} left"
                            )
                        },
                    )
                })?;
            self.pos = end;
            if self.events && kind == ATTRIBUTE_LIST {
                continue;
            }
            let body = Cursor::new(
                &self.buf[body_start..end],
                self.start + body_start as u64,
                self.big,
            );
            return Ok(Some(Record {
                kind,
                at,
                time: self.time,
                body,
            }));
        }
    }

    /// Start and length of the attributes of the length-prefixed record whose type byte is at `at`.
    fn length(&self, at: u64) -> Result<(usize, usize)> {
        let p = self.pos + 1;
        let rest = &self.buf[p.min(self.len)..self.len];
        match rest.first() {
            None => Err(self.fault(at, "truncated: the file ends inside a record")),
            Some(&0xff) => {
                let mut c = Cursor::new(&rest[1..], at + 2, self.big);
                let n = c
                    .u64_full("record length")
                    .map_err(|f| f.into_error(&self.path))?;
                let n = usize::try_from(n).map_err(|_| {
                    self.fault(at, format!("record length {n} does not fit in memory"))
                })?;
                Ok((p + 9, n))
            }
            Some(&n) => Ok((p + 1, usize::from(n))),
        }
    }

    fn truncated(&self) -> Error {
        let end = self.start.saturating_add(self.len as u64);
        self.fault(
            end,
            "truncated: the file ends without OTF2's end-of-file marker",
        )
    }
}
