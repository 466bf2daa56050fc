//! Build script: records the git commit the binary is built from, for `netreplay --version`.
//!
//! `git rev-parse --short HEAD` names it. Without git, or outside a checkout (a crate tarball), the
//! commit is `unknown commit` and the build goes on.

use std::process::Command;

/// The output of `git ARGS`, trimmed, if git runs and succeeds.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = match git(&["rev-parse", "--short", "HEAD"]) {
        Some(hash) if !hash.is_empty() => format!("commit {hash}"),
        _ => "unknown commit".to_string(),
    };
    println!("cargo:rustc-env=NETREPLAY_GIT_COMMIT={commit}");
    // Rebuilt when HEAD moves (a commit, a checkout) or the branch it names advances.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
    }
    if let (Some(common), Some(head)) = (
        git(&["rev-parse", "--git-common-dir"]),
        git(&["symbolic-ref", "-q", "HEAD"]),
    ) {
        println!("cargo:rerun-if-changed={common}/{head}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
