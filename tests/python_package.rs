//! The Python package (`python/`): `python/tests/run.sh` builds it with maturin into a virtual
//! environment under the target directory and runs its pytest suite, which compares
//! `netreplay.run(...)` with `netreplay run --json` and reads a quick campaign's results with pandas.
//!
//! Skipped (with a message) when `python3` or its `venv` module is missing, or when the venv's
//! packages cannot be installed (no access to PyPI), unless `NETREPLAY_REQUIRE_PYTHON=1`, as
//! `.ci/run` sets: then either fails the test.

use std::process::Command;

/// Writes a line to stderr past the test harness's capture, so a skip shows in `cargo test`'s output.
fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Whether `python3` has its `venv` and `ensurepip` modules (Debian ships them as `python3-venv`).
fn python_with_venv() -> bool {
    Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn python_package_matches_the_command_line() {
    let required = std::env::var("NETREPLAY_REQUIRE_PYTHON").is_ok_and(|v| v == "1");
    if !python_with_venv() {
        let msg = "Python package test skipped: python3 with its venv module not found \
                   (install python3 and python3-venv, as .ci/run does, to run it)";
        assert!(!required, "NETREPLAY_REQUIRE_PYTHON=1 but {msg}");
        say(msg);
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    // The test binary lives in TARGET/PROFILE/deps: the package is built into the same target
    // directory (in the release profile, as `pip install ./python` builds it), so a release build
    // made before is reused as far as the features pyo3 adds allow.
    let exe = std::env::current_exe().expect("the test binary's path");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the test binary sits in TARGET/PROFILE/deps");
    let out = Command::new("bash")
        .arg(format!("{root}/python/tests/run.sh"))
        .env("NETREPLAY_BIN", env!("CARGO_BIN_EXE_netreplay"))
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("bash runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.code() == Some(3) && !required {
        say(&format!(
            "Python package test skipped: the venv or maturin, pandas and pytest could not be set \
             up (NETREPLAY_REQUIRE_PYTHON=1 makes this a failure):\n{text}"
        ));
        return;
    }
    assert!(out.status.success(), "python/tests/run.sh failed:\n{text}");
    // pytest's summary and the script's timings; the whole output only on failure.
    let summary: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" passed") || l.starts_with("python package:"))
        .collect();
    assert!(
        summary.iter().any(|l| l.contains(" passed")),
        "pytest ran no test:\n{text}"
    );
    say(&summary.join("\n"));
}
