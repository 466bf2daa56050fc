//! Campaigns on a real Slurm cluster: `tests/slurm/run.sh` starts munged, slurmctld and
//! slurmd on this machine, submits a campaign with `campaign --slurm --submit`, checks the merged
//! report against a local campaign, cancels an array task mid-way and checks that a resubmission
//! completes every run exactly once.
//!
//! Skipped (with a message) when `slurmctld` is not installed, unless `NETREPLAY_REQUIRE_SLURM=1`, as
//! CI sets after installing Debian's `slurm-wlm` and `munge`: then a missing Slurm fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where Debian puts the daemons, searched after PATH (a user's PATH often lacks the sbin folders).
const SBIN: [&str; 2] = ["/usr/sbin", "/sbin"];

/// The PATH the script gets: the caller's, then the sbin folders.
fn search_path() -> String {
    let mut dirs: Vec<PathBuf> =
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect();
    dirs.extend(SBIN.iter().map(PathBuf::from));
    std::env::join_paths(dirs)
        .expect("PATH entries join")
        .into_string()
        .unwrap_or_default()
}

fn find(program: &str, path: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Writes a line to stderr past the test harness's capture (which only takes `eprintln!`), so a
/// skip is seen in `cargo test`'s output even though the test passes.
fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[test]
fn campaign_on_a_one_machine_slurm_cluster() {
    let path = search_path();
    let required = std::env::var("NETREPLAY_REQUIRE_SLURM").is_ok_and(|v| v == "1");
    let missing: Vec<&str> = [
        "slurmctld",
        "slurmd",
        "sbatch",
        "squeue",
        "scancel",
        "munged",
    ]
    .into_iter()
    .filter(|p| find(p, &path).is_none())
    .collect();
    if !missing.is_empty() {
        let msg = format!(
            "Slurm test skipped: {} not found on PATH or in /usr/sbin (install Debian's slurm-wlm \
             and munge, as .ci/run does, to run it)",
            missing.join(", ")
        );
        assert!(!required, "NETREPLAY_REQUIRE_SLURM=1 but {msg}");
        say(&msg);
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slurm/run.sh");
    let started = std::time::Instant::now();
    let status = Command::new("bash")
        .arg(&script)
        .env("NETREPLAY", env!("CARGO_BIN_EXE_netreplay"))
        .env("PATH", &path)
        .status()
        .expect("bash runs");
    say(&format!(
        "{} took {:.1} s",
        script.display(),
        started.elapsed().as_secs_f64()
    ));
    assert!(status.success(), "{} failed: {status}", script.display());
}
