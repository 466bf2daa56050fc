//! The code base's invariants, checked on the source tree (as rust-analyzer's tidy tests do): files
//! stay small, comments say what code does rather than cite issue numbers, no module imports one
//! above it in the layers `ARCHITECTURE.md` lists (the network engine least of all), and `--help`
//! lists every registry entry.

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

/// Known imports that still point up the layering, (from, to); a list that may only shrink.
/// `error` names MPI tags in deadlock reports with `mpi::describe_tag`; `report` prints the campaign
/// types that live beside the code that computes them.
const UPWARD_EXCEPTIONS: [(&str, &str); 2] = [("error", "mpi"), ("report", "campaign")];

/// The layers of `ARCHITECTURE.md` ("## Layers"), top first: each line of its `text` block names
/// the top-level modules of one layer (text after `#` is a comment).
fn layers() -> Vec<Vec<String>> {
    let doc = std::fs::read_to_string("ARCHITECTURE.md").unwrap();
    let block = doc
        .split("## Layers")
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("ARCHITECTURE.md has a `## Layers` section with a ```text block");
    block
        .lines()
        .map(|l| {
            let names = l.split('#').next().unwrap_or("");
            names.split_whitespace().map(str::to_string).collect()
        })
        .filter(|layer: &Vec<String>| !layer.is_empty())
        .collect()
}

/// The top-level modules of `src/` and the files of each: `src/NAME.rs` or `src/NAME/`, with the
/// workload generators (`generators/`, a child of `workload` by `#[path]`). Test-only files
/// (`tests.rs`, `tests_*.rs`) are left out: tests may use anything.
fn modules() -> Vec<(String, Vec<PathBuf>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("src").unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name == "lib" || name == "main" {
            continue;
        }
        let mut files = if path.is_dir() {
            rust_files(&path)
        } else {
            vec![path]
        };
        if name == "workload" {
            files.extend(rust_files(Path::new("generators")));
        }
        files.retain(|f| {
            !f.file_stem()
                .unwrap()
                .to_string_lossy()
                .starts_with("tests")
        });
        out.push((name, files));
    }
    out.sort();
    out
}

/// The top-level modules `text` names as `crate::NAME` (`crate::{a, b::c}` too) in code, not in
/// comments or in the unit tests at a file's end.
fn imports(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let code_lines = text.lines().take_while(|l| l.trim() != "#[cfg(test)]");
    for (i, line) in code_lines.enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group.split(['}', ',']).map(str::trim).collect(),
                None => vec![rest],
            };
            for n in names {
                let module: String = n
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !module.is_empty() {
                    found.push((i + 1, module));
                }
            }
        }
    }
    found
}

#[test]
fn no_module_imports_one_above_it() {
    let layers = layers();
    let level = |m: &str| layers.iter().position(|l| l.iter().any(|n| n == m));
    let mut found = Vec::new();
    let mut exceptions_used = Vec::new();
    for (module, files) in modules() {
        let Some(here) = level(&module) else {
            found.push(format!("`{module}` is in no layer of ARCHITECTURE.md"));
            continue;
        };
        for f in files {
            for (line, to) in imports(&std::fs::read_to_string(&f).unwrap()) {
                // Layers are listed top first: a smaller index is higher up.
                if level(&to).is_some_and(|there| there < here) {
                    if UPWARD_EXCEPTIONS.contains(&(module.as_str(), to.as_str())) {
                        exceptions_used.push((module.clone(), to));
                    } else {
                        found.push(format!("{}:{line}: {module} imports {to}", f.display()));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "imports pointing up the layers: {found:#?}"
    );
    for (from, to) in UPWARD_EXCEPTIONS {
        assert!(
            exceptions_used.iter().any(|(f, t)| f == from && t == to),
            "{from} no longer imports {to}: remove it from UPWARD_EXCEPTIONS"
        );
    }
}

#[test]
fn the_network_engine_knows_nothing_above_it() {
    // No exception may let the engine reach up: it is driven through `network::Driver` and reads no
    // files, specs, programs or reports, and knows nothing of MPI.
    assert!(UPWARD_EXCEPTIONS.iter().all(|&(from, _)| from != "network"));
    let layers = layers();
    let network = layers
        .iter()
        .position(|l| l.iter().any(|n| n == "network"))
        .unwrap();
    let mpi = layers
        .iter()
        .position(|l| l.iter().any(|n| n == "mpi"))
        .unwrap();
    assert!(mpi < network, "mpi sits above network in {layers:?}");
}

#[test]
fn the_import_scanner_reads_grouped_imports_and_skips_comments_and_tests() {
    let text = "use crate::{mpi, report::x};\n// crate::run\nlet a = crate::spec::Spec;\n\
                #[cfg(test)]\nuse crate::cli;\n";
    let found = imports(text);
    let found: Vec<(usize, &str)> = found.iter().map(|(l, m)| (*l, m.as_str())).collect();
    assert_eq!(found, [(1, "mpi"), (1, "report"), (3, "spec")]);
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
