//! Helpers the MPI test files share: scratch files and hand-written native traces.
#![allow(dead_code)] // each test file uses its own subset

use netreplay::mpi::collectives::Algorithms;
use netreplay::trace::{self, ReadOptions};
use netreplay::workload::Program;
use std::path::PathBuf;

/// `name` in this test binary's own scratch folder (`tag`) of the test target.
pub fn scratch(tag: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Writes `text` as trace `name` under `tag` and reads it with `algorithms`.
pub fn native_with(tag: &str, name: &str, text: &str, algorithms: Algorithms) -> Program {
    let path = scratch(tag, name);
    std::fs::write(&path, text).unwrap();
    let opts = ReadOptions {
        algorithms,
        ..ReadOptions::default()
    };
    trace::read_any(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Writes `text` as trace `name` under `tag` and returns the reader's error.
pub fn native_error(tag: &str, name: &str, text: &str) -> String {
    let path = scratch(tag, name);
    std::fs::write(&path, text).unwrap();
    trace::read(&path).unwrap_err().to_string()
}
