//! Files users name as inputs (traces, configs, placement maps, graph files), opened one checked way.
//!
//! Opening a FIFO blocks until something writes to it, and a device such as `/dev/zero` never ends,
//! so every input is checked to be a regular file before it is opened, and a file read whole is
//! checked against a size bound before it is read: bad paths are refused at once with what they are,
//! never a hang or an out-of-memory abort.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The largest text file read whole (configs, placement maps, graph files): 256 MiB.
pub const MAX_TEXT_BYTES: u64 = 1 << 28;

/// What a file that is not a regular file is, for messages.
pub fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading if it is a regular file (after following links); a FIFO, device, socket
/// or folder is refused without being opened, so nothing blocks. `what` names the input in messages.
pub fn open(path: &Path, what: &str) -> Result<File> {
    let meta = std::fs::metadata(path).map_err(Error::io(path.display()))?;
    if !meta.is_file() {
        return Err(not_regular(path, what, &meta));
    }
    File::open(path).map_err(Error::io(path.display()))
}

/// Opens `path` like [`open`], with its length, or `None` when nothing is found there (what
/// `Path::exists` would say): one look-up of the path where a check for presence, the check that it is
/// a regular file and a look-up of its length took three, which counts for archives of many small
/// files such as OTF2's.
pub fn open_if_present(path: &Path, what: &str) -> Result<Option<(File, u64)>> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Err(not_regular(path, what, &meta));
    }
    let file = File::open(path).map_err(Error::io(path.display()))?;
    Ok(Some((file, meta.len())))
}

/// The error for `path`, an input (`what`) that is not a regular file.
fn not_regular(path: &Path, what: &str, meta: &std::fs::Metadata) -> Error {
    Error::Invalid(format!(
        "{}: {what} must be a regular file, and this is {}; save it to a file first",
        path.display(),
        kind(meta)
    ))
}

/// Whether `path` exists as something other than a regular file (a FIFO, device, socket or
/// folder): lets a reader that skips absent files still refuse present unreadable ones.
pub fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// Reads the whole regular file at `path`, refusing one larger than `max` bytes before reading it.
pub fn read(path: &Path, what: &str, max: u64) -> Result<Vec<u8>> {
    let file = open(path, what)?;
    let len = file.metadata().map_err(Error::io(path.display()))?.len();
    if len > max {
        return Err(Error::Invalid(format!(
            "{}: {len} bytes is more than the {max} bytes {what} may have",
            path.display()
        )));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // The bound holds even if the file grows while it is read.
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(Error::io(path.display()))?;
    if bytes.len() as u64 > max {
        return Err(Error::Invalid(format!(
            "{}: more than the {max} bytes {what} may have",
            path.display()
        )));
    }
    Ok(bytes)
}

/// Reads the regular text file at `path` whole (at most `max` bytes), which must be UTF-8.
pub fn read_text(path: &Path, what: &str, max: u64) -> Result<String> {
    String::from_utf8(read(path, what, max)?).map_err(|e| {
        Error::Invalid(format!(
            "{}: {what} is not UTF-8 text (byte {} is not)",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}
