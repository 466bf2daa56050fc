//! A per-process scratch file for readers that take a path.

use std::path::PathBuf;

/// Writes `data` to this process's scratch file `name` and returns its path.
pub fn file(name: &str, data: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("netreplay-fuzz-{}-{name}", std::process::id()));
    std::fs::write(&path, data).expect("scratch file");
    path
}
