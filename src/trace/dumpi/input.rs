//! Big-endian reads from one rank file through a [`BufReader`], with the byte position every error
//! names and a limit that reads never cross.
//!
//! DUMPI records carry no length, so a corrupt count would otherwise make a reader allocate or skip
//! gigabytes: every array is checked against the bytes left before the limit ([`Input::room`]) before
//! anything is allocated.

use crate::error::Error;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

/// Buffer size: large enough that small reads almost always come straight from the buffer.
const BUFFER: usize = 1 << 16;

/// Where an error happened: the rank file and its rank, for messages.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// Path of the rank file, as shown to the user.
    pub(crate) file: String,
    /// World rank of the file.
    pub(crate) rank: u32,
}

impl Place {
    /// `FILE (byte AT): rank R: MESSAGE`, the shape of the MPI layer's binary positions.
    pub(crate) fn error(&self, at: u64, message: impl std::fmt::Display) -> Error {
        Error::Invalid(format!(
            "{} (byte {at}): rank {}: {message}",
            self.file, self.rank
        ))
    }
}

/// A rank file opened for reading at a tracked position.
pub(crate) struct Input {
    reader: BufReader<File>,
    pos: u64,
    limit: u64,
    len: u64,
    /// Where errors point.
    pub(crate) place: Place,
}

impl Input {
    /// Opens `path` (rank `rank`); reads may go up to the end of the file until [`Input::set_limit`].
    pub(crate) fn open(path: &std::path::Path, rank: u32) -> Result<Input, Error> {
        let name = path.display().to_string();
        let file = crate::input::open(path, &format!("the DUMPI file of rank {rank}"))?;
        let len = file.metadata().map_err(Error::io(&name))?.len();
        Ok(Input {
            reader: BufReader::with_capacity(BUFFER, file),
            pos: 0,
            limit: len,
            len,
            place: Place { file: name, rank },
        })
    }

    /// Size of the file in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Current byte offset.
    pub(crate) fn pos(&self) -> u64 {
        self.pos
    }

    /// Reads stop at `limit` (clamped to the file size): a record running past it is truncated.
    pub(crate) fn set_limit(&mut self, limit: u64) {
        self.limit = limit.min(self.len);
    }

    /// Bytes left before the limit.
    pub(crate) fn room(&self) -> u64 {
        self.limit.saturating_sub(self.pos)
    }

    /// Moves to byte `at` (at most the file size).
    pub(crate) fn seek(&mut self, at: u64) -> Result<(), Error> {
        if at > self.len {
            return Err(self.place.error(
                at,
                format!("offset past the end of the file ({} bytes)", self.len),
            ));
        }
        let delta = i64::try_from(at).ok().zip(i64::try_from(self.pos).ok());
        match delta {
            Some((a, p)) => self.reader.seek_relative(a - p),
            None => self.reader.seek(SeekFrom::Start(at)).map(|_| ()),
        }
        .map_err(|e| self.io(e))?;
        self.pos = at;
        Ok(())
    }

    fn io(&self, e: std::io::Error) -> Error {
        self.place.error(
            self.pos,
            format!("read failed ({e}); the file may be truncated"),
        )
    }

    /// The error for `n` bytes wanted where fewer are left.
    pub(crate) fn short(&self, n: u64, what: &str) -> Error {
        let end = if self.limit < self.len {
            format!("the end of the call records (byte {})", self.limit)
        } else {
            format!("the end of the file ({} bytes)", self.len)
        };
        self.place.error(
            self.pos,
            format!(
                "truncated: {n} bytes of {what} go past {end} ({} remain)",
                self.room()
            ),
        )
    }

    /// Fills `out` completely, or fails naming `what` if the limit comes first.
    fn fill(&mut self, out: &mut [u8], what: &str) -> Result<(), Error> {
        let n = out.len();
        if (n as u64) > self.room() {
            return Err(self.short(n as u64, what));
        }
        // Fast path: straight from the buffer, no I/O call.
        let buf = self.reader.buffer();
        if buf.len() >= n {
            out.copy_from_slice(&buf[..n]);
            self.reader.consume(n);
        } else {
            self.reader.read_exact(out).map_err(|e| self.io(e))?;
        }
        self.pos += n as u64;
        Ok(())
    }

    /// `N` bytes: straight from the buffer when they are there (the common case, kept inline), else
    /// through [`Input::fill`].
    #[inline(always)]
    pub(crate) fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Error> {
        if N as u64 <= self.room()
            && let Some(&b) = self.reader.buffer().first_chunk::<N>()
        {
            self.reader.consume(N);
            self.pos += N as u64;
            return Ok(b);
        }
        self.array_slow(what)
    }

    #[inline(never)]
    fn array_slow<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Error> {
        let mut b = [0u8; N];
        self.fill(&mut b, what)?;
        Ok(b)
    }

    /// One byte.
    #[inline]
    pub(crate) fn u8(&mut self, what: &str) -> Result<u8, Error> {
        Ok(self.array::<1>(what)?[0])
    }

    /// A big-endian 16-bit value.
    #[inline]
    pub(crate) fn u16(&mut self, what: &str) -> Result<u16, Error> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    /// A big-endian 32-bit value.
    #[inline]
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, Error> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    /// A big-endian 32-bit value read as C's `int`.
    #[inline]
    pub(crate) fn i32(&mut self, what: &str) -> Result<i32, Error> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }

    /// A 64-bit value, high word first (DUMPI's `put64`).
    #[inline]
    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, Error> {
        Ok(u64::from_be_bytes(self.array(what)?))
    }

    /// Skips `n` bytes (string payloads), checked against the limit.
    pub(crate) fn skip(&mut self, n: u64, what: &str) -> Result<(), Error> {
        if n > self.room() {
            return Err(self.short(n, what));
        }
        self.seek(self.pos + n)
    }

    /// `n` raw bytes (short strings of the header).
    pub(crate) fn bytes(&mut self, n: usize, what: &str) -> Result<Vec<u8>, Error> {
        if n as u64 > self.room() {
            return Err(self.short(n as u64, what));
        }
        let mut v = vec![0u8; n];
        self.fill(&mut v, what)?;
        Ok(v)
    }

    /// Checks that `count` elements of `size` bytes fit before the limit (before allocating them).
    pub(crate) fn check_room(&self, count: u64, size: u64, what: &str) -> Result<(), Error> {
        match count.checked_mul(size) {
            Some(n) if n <= self.room() => Ok(()),
            Some(n) => Err(self.short(n, what)),
            None => Err(self.place.error(
                self.pos,
                format!("{what}: {count} elements cannot be in the file"),
            )),
        }
    }
}
