//! An exclusive lock on a campaign's results directory, so that two campaigns on the same `--out`
//! cannot both run (and both append) every simulation.
//!
//! The lock is an advisory lock ([`std::fs::File::try_lock`], `flock` on Unix) on the file `.lock` in
//! the directory, which also holds the holder's process id for the message a second campaign gets.
//! The operating system releases the lock when the holder exits however it exits, so a campaign
//! killed mid-run leaves no stale lock: the next one takes it over. The file itself is left in place
//! (removing it could let a third process lock a new file while a second still holds the old one).

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::Path;

/// The lock file's name inside a results directory.
pub const LOCK_FILE: &str = ".lock";

/// A held lock on a results directory; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl DirLock {
    /// Locks `dir` (which must exist) for this process, or says which process holds it.
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        let path = dir.join(LOCK_FILE);
        let io = Error::io(path.display());
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(&io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                let holder = match text.trim().parse::<u32>() {
                    Ok(pid) => format!("process {pid}"),
                    Err(_) => "another process".into(),
                };
                return Err(Error::Invalid(format!(
                    "{} is in use by another campaign ({holder} holds {}); wait for it to finish, \
                     or pass another --out",
                    dir.display(),
                    path.display()
                )));
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0).map_err(&io)?;
        file.rewind().map_err(&io)?;
        writeln!(file, "{}", std::process::id())
            .and_then(|()| file.sync_data())
            .map_err(&io)?;
        Ok(DirLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A second lock on the same directory is refused naming the holder's pid;
    /// once the holder lets go, it can be taken again.
    #[test]
    fn p3_second_lock_refused_naming_the_holder() {
        let dir = std::env::temp_dir().join(format!("netreplay-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let held = DirLock::acquire(&dir).unwrap();
        let e = DirLock::acquire(&dir).unwrap_err().to_string();
        assert!(
            e.contains(&format!("process {}", std::process::id())),
            "{e}"
        );
        drop(held);
        DirLock::acquire(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
