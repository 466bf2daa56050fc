//! Headless Chromium for the tests that check what a person would see: finding the browser, and
//! running it with a time limit.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The browser on PATH, if any.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// The browser, or `None` after saying why `test` is skipped; with `NETREPLAY_REQUIRE_CHROMIUM=1`
/// (as `.ci/run` sets) a missing browser fails the test instead.
pub fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        if std::env::var("NETREPLAY_REQUIRE_CHROMIUM").as_deref() == Ok("1") {
            panic!(
                "NETREPLAY_REQUIRE_CHROMIUM=1 but no chromium, chromium-browser or google-chrome on PATH"
            );
        }
        eprintln!(
            "SKIPPED {test}: no chromium on PATH \
             (apt-get install chromium; NETREPLAY_REQUIRE_CHROMIUM=1 makes this a failure)"
        );
    }
    found
}

/// Runs `cmd`, killing it after `limit` (a browser that hangs fails the test instead of the CI job).
/// Its output is drained by threads while it runs: a DOM larger than a pipe's buffer would otherwise
/// block the browser.
pub fn run_with_timeout(mut cmd: Command, limit: Duration) -> Output {
    use std::io::Read;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the browser starts");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = err.join().unwrap_or_default();
            panic!(
                "the browser did not finish in {limit:?}: {}",
                String::from_utf8_lossy(&stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}
