//! How output files are written, below everything that writes one (reports, traces, the trace
//! cache, campaign manifests): checked before a run ([`prepare_output`], [`prepare_dir`]), then
//! written whole or not at all ([`write_atomic`], [`write_set`]).
//!
//! A regular file is replaced atomically: the contents go to a temporary file beside it,
//! `.NAME.netreplay-tmp.PID`, which is synced and renamed over the target, so a reader never sees a
//! half-written file. The temporary file is registered with [`interrupt`], so Ctrl-C or
//! SIGTERM removes it; one left by a killed process (its PID no longer running) is removed by the
//! next write of the same output.
//!
//! A target that exists and is not a regular file (a character or block device such as `/dev/null`
//! or `/dev/stdout`'s terminal, a FIFO) is written through: opened for writing and filled, never
//! replaced, so `--out /dev/null` run as root leaves `/dev/null` a device. So is a process's open
//! file reached through `/proc` (`/dev/stdout`, `/dev/fd/1`), whatever it is, so `--timeline
//! /dev/stdout > t.json` writes into `t.json`. A socket cannot be opened as a file and is refused. A symbolic link to a regular file is kept: its target is replaced
//! atomically (the temporary file goes beside the target, so the rename stays in one directory).

pub mod interrupt;

use crate::error::{Error, Result};
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The marker in every temporary file's name, so they can be recognised (and cleaned) by name.
pub const TEMP_MARKER: &str = ".netreplay-tmp.";

/// What is at an output path before it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// Nothing yet, or a regular file: replaced atomically at this path (a link's target).
    Replace(PathBuf),
    /// A device or a FIFO: opened and written in place.
    Through,
}

/// Classifies `path`, following symbolic links; sockets and directories are errors.
fn classify(path: &Path) -> Result<Target> {
    use std::os::unix::fs::FileTypeExt as _;
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        // Nothing there (or a dangling link, which the rename replaces).
        Err(_) => return Ok(Target::Replace(path.to_path_buf())),
    };
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(Error::Invalid(format!(
            "{}: is a directory; an output file (--out, --timeline, --html) must be a file name",
            path.display()
        )));
    }
    if kind.is_socket() {
        return Err(Error::Invalid(format!(
            "{}: is a socket; outputs go to files, devices or FIFOs",
            path.display()
        )));
    }
    if !kind.is_file() || via_proc(path) {
        return Ok(Target::Through);
    }
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    Ok(Target::Replace(if is_link {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    } else {
        path.to_path_buf()
    }))
}

/// Whether `path` is a link into `/proc` (`/dev/stdout`) or lies in it (`/dev/fd/1`): a process's
/// open file, which must be written where it is, even when it is a regular file (`> out.txt`).
fn via_proc(path: &Path) -> bool {
    let proc = |p: &Path| p.starts_with("/proc");
    std::fs::read_link(path).is_ok_and(|l| proc(&l))
        || std::fs::canonicalize(parent_dir(path)).is_ok_and(|d| proc(&d))
}

/// Makes sure `path` can be written before hours of simulation produce its contents: writes (then
/// removes) a probe file where it goes, or where its missing directories will be created when it is
/// written, so a read-only directory is an error now, not after the run. A device is opened for
/// writing instead; a FIFO is left alone (opening it would wait for a reader). Stale temporary files
/// of `path` are removed.
pub fn prepare_output(path: &Path) -> Result<()> {
    let name = file_name(path)?;
    match classify(path)? {
        Target::Through => prepare_through(path),
        Target::Replace(real) => {
            let dir = parent_dir(&real);
            probe_dir(&dir, &name)?;
            clean_stale(&real);
            Ok(())
        }
    }
}

/// Refuses outputs that would land on one another or on an input, before anything runs: two flags
/// naming one file would leave only the last written, and an output over an input trace or config
/// would destroy it. `outputs` are (flag, path) pairs; devices and FIFOs (`/dev/null`) are written
/// through, never replaced, so they may repeat.
pub fn check_distinct(outputs: &[(&str, &Path)], inputs: &[PathBuf]) -> Result<()> {
    let replaced: Vec<(&str, &Path, PathBuf)> = outputs
        .iter()
        .filter(|(_, p)| matches!(classify(p), Ok(Target::Replace(_))))
        .map(|&(flag, p)| (flag, p, identity(p)))
        .collect();
    for (i, (flag, path, id)) in replaced.iter().enumerate() {
        if let Some((other, ..)) = replaced[..i].iter().find(|(_, _, o)| o == id) {
            return Err(Error::Invalid(format!(
                "{other} and {flag} both name {}; give each output its own file",
                path.display()
            )));
        }
        if inputs.iter().any(|input| identity(input) == *id) {
            return Err(Error::Invalid(format!(
                "{flag} {} is an input of this run; writing it would destroy it",
                path.display()
            )));
        }
    }
    Ok(())
}

/// What `path` names, as one spelling: the canonical path of the file, or of its directory joined
/// with its name when it does not exist yet (`./r.json` and `r.json` are the same output).
fn identity(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    match (std::fs::canonicalize(parent_dir(path)), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// Opens a device for writing (a FIFO only has its permissions checked: opening it blocks).
fn prepare_through(path: &Path) -> Result<()> {
    use std::os::unix::fs::FileTypeExt as _;
    let is_fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
    if is_fifo {
        return Ok(());
    }
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map(drop)
        .map_err(Error::io(path.display()))
}

/// Makes sure files can be written into `dir` (or, while it is missing, where it will be created), by
/// writing and removing a probe file.
pub fn prepare_dir(dir: &Path) -> Result<()> {
    if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        return Err(Error::Invalid(format!(
            "{}: is a file; this output (--link-load, an --out of several files) is a directory",
            dir.display()
        )));
    }
    probe_dir(dir, "output")
}

/// Writes and removes a probe file in `dir`, or, while `dir` does not exist, in the nearest
/// directory above it, where its creation will start: nothing is created before the output is
/// written, so a run refused later leaves no empty directories behind.
fn probe_dir(dir: &Path, name: &str) -> Result<()> {
    let mut existing = dir;
    while std::fs::metadata(existing).is_err() {
        existing = match existing.parent() {
            Some(up) if !up.as_os_str().is_empty() => up,
            _ => Path::new("."),
        };
    }
    if !std::fs::metadata(existing).is_ok_and(|m| m.is_dir()) {
        let what = if existing == dir {
            String::new()
        } else {
            format!(" ({} is a file)", existing.display())
        };
        return Err(Error::Invalid(format!(
            "{}: not a directory{what}",
            dir.display()
        )));
    }
    let probe = existing.join(format!(".{name}.probe{}", std::process::id()));
    File::create(&probe).map_err(|e| Error::Io {
        path: dir.display().to_string(),
        source: std::io::Error::new(
            e.kind(),
            format!("cannot write output files here ({e}); nothing was simulated"),
        ),
    })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The directory `path` is in (`.` for a bare file name).
fn parent_dir(path: &Path) -> PathBuf {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

fn file_name(path: &Path) -> Result<String> {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::Invalid(format!("{}: not a file path", path.display())))
}

/// The temporary file this process writes `path` through: `.NAME.netreplay-tmp.PID` beside it.
pub fn temp_path(path: &Path) -> Result<PathBuf> {
    Ok(parent_dir(path).join(format!(
        ".{}{TEMP_MARKER}{}",
        file_name(path)?,
        std::process::id()
    )))
}

/// Whether process `pid` still runs (read from `/proc`; where it is absent, every process is taken
/// as running, so nothing is removed by mistake).
fn running(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

/// Removes the temporary files of `path` left by processes that no longer run (a kill -9 mid-write):
/// `.NAME.netreplay-tmp.PID`, and `.NAME.tmpPID` as earlier versions named them.
pub fn clean_stale(path: &Path) {
    let Ok(name) = file_name(path) else { return };
    let prefixes = [format!(".{name}{TEMP_MARKER}"), format!(".{name}.tmp")];
    let Ok(entries) = std::fs::read_dir(parent_dir(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file.to_str().and_then(|f| {
            prefixes
                .iter()
                .find_map(|p| f.strip_prefix(p.as_str()))
                .and_then(|p| p.parse::<u32>().ok())
        }) else {
            continue;
        };
        if pid != std::process::id() && !running(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `contents` to `path` atomically (see the module doc), its directory created if missing.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    write_atomic_with(path, |f| f.write_all(contents))
}

/// [`write_atomic`] for output produced piece by piece (e.g. streamed through a compressor): `fill`
/// writes into the temporary file, which is renamed over `path` only if `fill` succeeds. A device
/// or FIFO at `path` is filled directly.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> Result<()> {
    let io = Error::io(path.display());
    let real = match classify(path)? {
        Target::Through => return write_through(path, fill),
        Target::Replace(real) => real,
    };
    let dir = parent_dir(&real);
    std::fs::create_dir_all(&dir).map_err(Error::io(dir.display()))?;
    clean_stale(&real);
    let tmp = temp_path(&real)?;
    let pending = interrupt::register(&tmp, &real);
    let result = (|| {
        let mut f = File::create(&tmp)?;
        fill(&mut f)?;
        f.sync_all()?;
        pending.commit(|| std::fs::rename(&tmp, &real))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(&io)
}

/// Opens the device or FIFO at `path` for writing and fills it (no temporary file, no rename). It
/// is opened for appending, so a file behind `/dev/stdout` gets the output after what the process
/// printed, not over it.
fn write_through(path: &Path, fill: impl FnOnce(&mut File) -> std::io::Result<()>) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(Error::io(path.display()))?;
    fill(&mut f)
        .and_then(|()| f.flush())
        .map_err(Error::io(path.display()))
}

/// Writes several files into `dir` as one set: every regular file's contents go to its temporary
/// file first, and only once all are complete and synced are they renamed into place, so a failure
/// (a full disk) removes the temporary files and leaves the old set whole. Devices and FIFOs among
/// the targets are written through after the rest are in place.
pub fn write_set(dir: &Path, files: &[(&str, &[u8])]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(Error::io(dir.display()))?;
    let mut staged: Vec<(PathBuf, PathBuf, interrupt::Pending)> = Vec::new();
    let mut through: Vec<(PathBuf, &[u8])> = Vec::new();
    let result = (|| -> Result<()> {
        for (name, contents) in files {
            let path = dir.join(name);
            let real = match classify(&path)? {
                Target::Through => {
                    through.push((path, contents));
                    continue;
                }
                Target::Replace(real) => real,
            };
            std::fs::create_dir_all(parent_dir(&real)).map_err(Error::io(dir.display()))?;
            clean_stale(&real);
            let tmp = temp_path(&real)?;
            let pending = interrupt::register(&tmp, &real);
            staged.push((tmp.clone(), real, pending));
            File::create(&tmp)
                .and_then(|mut f| f.write_all(contents).and_then(|()| f.sync_all()))
                .map_err(Error::io(path.display()))?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        for (tmp, _, _) in &staged {
            let _ = std::fs::remove_file(tmp);
        }
        return Err(e);
    }
    let mut staged = staged.into_iter();
    while let Some((tmp, real, pending)) = staged.next() {
        if let Err(e) = pending.commit(|| std::fs::rename(&tmp, &real)) {
            // A rename within one directory fails only if the directory itself went bad; the
            // temporary files not renamed are not left behind.
            let _ = std::fs::remove_file(&tmp);
            for (rest, _, _) in staged {
                let _ = std::fs::remove_file(rest);
            }
            return Err(Error::io(real.display())(e));
        }
    }
    for (path, contents) in through {
        write_through(&path, |f| f.write_all(contents))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("netreplay-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A set whose third file cannot be written leaves the old set whole and no temporary file.
    #[test]
    fn a_failed_set_leaves_the_old_set_and_no_temporaries() {
        let dir = scratch("set");
        for name in ["a.csv", "b.csv", "c.svg"] {
            std::fs::write(dir.join(name), "old").unwrap();
        }
        // A directory where c.svg's temporary file goes makes its creation fail, as a full disk would.
        std::fs::create_dir(temp_path(&dir.join("c.svg")).unwrap()).unwrap();
        let e = write_set(
            &dir,
            &[("a.csv", b"new"), ("b.csv", b"new"), ("c.svg", b"new")],
        );
        assert!(e.is_err());
        for name in ["a.csv", "b.csv", "c.svg"] {
            assert_eq!(
                std::fs::read_to_string(dir.join(name)).unwrap(),
                "old",
                "{name}"
            );
        }
        std::fs::remove_dir(temp_path(&dir.join("c.svg")).unwrap()).unwrap();
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(TEMP_MARKER))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        write_set(
            &dir,
            &[("a.csv", b"new"), ("b.csv", b"new"), ("c.svg", b"new")],
        )
        .unwrap();
        for name in ["a.csv", "b.csv", "c.svg"] {
            assert_eq!(
                std::fs::read_to_string(dir.join(name)).unwrap(),
                "new",
                "{name}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A symbolic link to a regular file stays a link; its target gets the new contents.
    #[test]
    fn a_link_to_a_file_is_kept_and_its_target_replaced() {
        let dir = scratch("link");
        std::fs::write(dir.join("real.json"), "old").unwrap();
        std::os::unix::fs::symlink(dir.join("real.json"), dir.join("link.json")).unwrap();
        write_atomic(&dir.join("link.json"), b"new").unwrap();
        let meta = std::fs::symlink_metadata(dir.join("link.json")).unwrap();
        assert!(meta.file_type().is_symlink());
        assert_eq!(
            std::fs::read_to_string(dir.join("real.json")).unwrap(),
            "new"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `/dev/null` is written through: it stays a character device (checked as any user); so are
    /// a process's open files reached through `/proc`.
    #[test]
    fn dev_null_is_written_through() {
        use std::os::unix::fs::FileTypeExt as _;
        assert_eq!(classify(Path::new("/dev/null")).unwrap(), Target::Through);
        prepare_output(Path::new("/dev/null")).unwrap();
        write_atomic(Path::new("/dev/null"), b"{}\n").unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(meta.file_type().is_char_device());
        assert!(write_atomic(Path::new("/dev/full"), b"{}\n").is_err());
        assert_eq!(classify(Path::new("/dev/stdout")).unwrap(), Target::Through);
        assert_eq!(classify(Path::new("/dev/fd/2")).unwrap(), Target::Through);
    }
}
