//! Ctrl-C and SIGTERM: the binary says what it was doing, removes the temporary files of outputs
//! still being written (so an interrupted `--timeline` leaves no 10 MB `.NAME.netreplay-tmp.PID`
//! behind and the previous output untouched), and exits with status 130.
//!
//! Writers [`register`] each temporary file for as long as it exists; the rename that completes an
//! output runs under the same lock as the handler ([`Pending::commit`]), so an interrupt either
//! removes a temporary file or sees it already renamed, never half of each.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Temporary files being written, by registration id: (id, temporary file, the output it becomes).
static PENDING: Mutex<Vec<(u64, PathBuf, PathBuf)>> = Mutex::new(Vec::new());

/// Outputs the command will write once it has simulated, until each is written ([`plan`],
/// [`written`]): an interrupt names those not written yet beside the ones being written.
static PLANNED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// What the process is doing, for the interrupt message (set by [`install`]).
static TASK: Mutex<String> = Mutex::new(String::new());

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Exit status after an interrupt (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Installs the SIGINT/SIGTERM handler for a process doing `task` (e.g. `run --out r.json`), once
/// per process; the binary calls it, library users keep their own signal handling.
pub fn install(task: &str) -> crate::error::Result<()> {
    describe(task);
    ctrlc::set_handler(interrupted).map_err(|e| {
        crate::error::Error::Invalid(format!("cannot install the Ctrl-C handler: {e}"))
    })
}

/// Says what the process is doing, in the words an interrupt message should use.
pub fn describe(task: &str) {
    *TASK.lock().unwrap_or_else(|p| p.into_inner()) = task.to_string();
}

/// The handler: removes every registered temporary file, says so, exits. The lock is held to the
/// end so no rename starts meanwhile.
fn interrupted() {
    let pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    let task = TASK.lock().map(|t| t.clone()).unwrap_or_default();
    // Written without `eprintln!`, which panics when stderr is a closed pipe: the handler must go
    // on to remove the files and exit whatever stderr is.
    let mut err = std::io::stderr();
    let _ = writeln!(err, "\nnetreplay: interrupted {task}");
    for (_, tmp, target) in pending.iter() {
        let _ = std::fs::remove_file(tmp);
        let _ = writeln!(
            err,
            "netreplay: {} was not written (removed the unfinished {}); an existing one is unchanged",
            target.display(),
            tmp.display()
        );
    }
    let planned = PLANNED.lock().unwrap_or_else(|p| p.into_inner());
    for path in planned
        .iter()
        .filter(|p| !pending.iter().any(|(_, _, t)| t == *p))
    {
        let _ = writeln!(
            err,
            "netreplay: {} was not written; an existing one is unchanged",
            path.display()
        );
    }
    std::process::exit(EXIT_INTERRUPTED);
}

/// Records the outputs a command will write after simulating, so that an interrupt names them.
pub fn plan<'p>(outputs: impl IntoIterator<Item = &'p Path>) {
    PLANNED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .extend(outputs.into_iter().map(Path::to_path_buf));
}

/// Output `path` (as given to [`plan`]) is written: an interrupt no longer names it.
pub fn written(path: &Path) {
    PLANNED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|p| p != path);
}

/// A registered temporary file; unregistered when dropped.
#[derive(Debug)]
pub struct Pending {
    id: u64,
}

/// Registers `tmp`, about to be written and renamed to `target`, for removal on an interrupt.
pub fn register(tmp: &Path, target: &Path) -> Pending {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    PENDING.lock().unwrap_or_else(|p| p.into_inner()).push((
        id,
        tmp.to_path_buf(),
        target.to_path_buf(),
    ));
    Pending { id }
}

impl Pending {
    /// Runs `rename` (which turns the temporary file into the output) under the handler's lock,
    /// then unregisters the file.
    pub fn commit(self, rename: impl FnOnce() -> std::io::Result<()>) -> std::io::Result<()> {
        let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
        let result = rename();
        pending.retain(|(id, _, _)| *id != self.id);
        drop(pending);
        result
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        PENDING
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(id, _, _)| *id != self.id);
    }
}
