//! The code base's invariants, checked on the source tree (as rust-analyzer's tidy tests do): files
//! stay small, comments say what code does rather than cite issue numbers, the network engine does
//! not reach up into the layers that use it, and `--help` lists every registry entry.

use std::path::{Path, PathBuf};

mod common;

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn source_files_stay_under_600_lines() {
    let long: Vec<String> = rust_files(Path::new("src"))
        .into_iter()
        .filter_map(|p| {
            let lines = std::fs::read_to_string(&p).unwrap().lines().count();
            (lines > 600).then(|| format!("{} ({lines} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "split by concern: {long:?}");
}

#[test]
fn comments_cite_no_issue_numbers() {
    let mut found = Vec::new();
    for p in rust_files(Path::new("src")) {
        for (i, line) in std::fs::read_to_string(&p).unwrap().lines().enumerate() {
            let Some(at) = line.find("//") else { continue };
            let comment = line[at..].to_ascii_lowercase();
            let cites = comment.match_indices("issue").any(|(k, _)| {
                let rest = comment[k + "issue".len()..].trim_start_matches([' ', '#']);
                rest.starts_with(|c: char| c.is_ascii_digit())
            });
            if cites {
                found.push(format!("{}:{}", p.display(), i + 1));
            }
        }
    }
    assert!(found.is_empty(), "comments citing issues: {found:?}");
}

/// The modules above the network engine: it is driven through `network::Driver` and reads no
/// files, specs or reports.
const ABOVE_NETWORK: [&str; 7] = [
    "trace",
    "report",
    "spec",
    "run",
    "campaign",
    "cli",
    "load_latency",
];

/// Files of `src/network/` that still build the MPI runtime themselves (the entry points that
/// replay a program); no other network file may use `crate::mpi`, and this list may only shrink.
const NETWORK_FILES_USING_MPI: [&str; 4] = [
    "src/network/instrumented.rs",
    "src/network/jobs.rs",
    "src/network/mod.rs",
    "src/network/outcome.rs",
];

#[test]
fn the_network_engine_does_not_import_the_layers_above_it() {
    let mut found = Vec::new();
    for p in rust_files(Path::new("src/network")) {
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.display().to_string();
        // Unit tests at a file's end may use anything: they are not part of the layering.
        let code_lines = text.lines().take_while(|l| l.trim() != "#[cfg(test)]");
        for (i, line) in code_lines.enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for module in ABOVE_NETWORK {
                if code.contains(&format!("crate::{module}::"))
                    || code.contains(&format!("crate::{module};"))
                {
                    found.push(format!("{name}:{}: crate::{module}", i + 1));
                }
            }
            if code.contains("crate::mpi") && !NETWORK_FILES_USING_MPI.contains(&name.as_str()) {
                found.push(format!("{name}:{}: crate::mpi", i + 1));
            }
        }
    }
    assert!(found.is_empty(), "imports from above the engine: {found:?}");
}

#[test]
fn help_lists_every_registry_entry() {
    let out = common::netreplay(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let mut names: Vec<&str> = Vec::new();
    names.extend(netreplay::topology::REGISTRY.names());
    names.extend(netreplay::workload::REGISTRY.names());
    names.extend(netreplay::placement::REGISTRY.names());
    names.extend(netreplay::traffic::REGISTRY.names());
    names.extend(netreplay::routing::REGISTRY.names());
    names.extend(netreplay::cost::REGISTRY.names());
    names.extend(
        netreplay::network::selection::POLICIES
            .iter()
            .map(|p| p.name),
    );
    names.extend(netreplay::network::PRESETS.iter().map(|p| p.name));
    names.extend(netreplay::trace::Format::all().map(|f| f.name()));
    let missing: Vec<&&str> = names
        .iter()
        .filter(|n| {
            !help
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{n} ")))
        })
        .collect();
    assert!(missing.is_empty(), "not in --help: {missing:?}");
    assert!(names.len() > 50, "registries read: {}", names.len());
}
