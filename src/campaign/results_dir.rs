//! A campaign's results directory: `campaign.json` (the config and its hash) and `results.jsonl`
//! (one JSON line per finished run), read back with a torn last line ignored, opened for appending
//! with it cut off, and merged across shards only when their config hashes agree.

use super::{CampaignConfig, RunRecord};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{Read as _, Seek as _};
use std::path::{Path, PathBuf};

/// The manifest file of a results directory.
#[derive(Debug, Clone, Deserialize, Serialize)]
struct Manifest {
    config_hash: String,
    config: CampaignConfig,
}

pub(super) const MANIFEST: &str = "campaign.json";
pub(super) const RESULTS: &str = "results.jsonl";

/// Reads the config stored in a results directory.
pub fn load_dir(dir: &Path) -> Result<(CampaignConfig, Vec<RunRecord>)> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(Error::io(path.display()))?;
    let m: Manifest = serde_json::from_str(&text).map_err(|e| Error::File {
        path: path.display().to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let records = read_results(dir, &m.config_hash)?;
    Ok((m.config, records))
}

/// Complete lines of `results.jsonl` (a torn last line is ignored), one record per run: a run
/// recorded twice with the same results is kept once, with different results is an error naming
/// both lines.
pub(super) fn read_results(dir: &Path, hash: &str) -> Result<Vec<RunRecord>> {
    let path = dir.join(RESULTS);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(path.display())(e)),
    };
    let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let mut seen: BTreeMap<_, usize> = BTreeMap::new();
    let mut out: Vec<RunRecord> = Vec::new();
    let mut lines: Vec<usize> = Vec::new();
    for (i, line) in complete.lines().enumerate() {
        let r: RunRecord = serde_json::from_str(line).map_err(|e| Error::File {
            path: path.display().to_string(),
            line: i + 1,
            column: e.column(),
            message: e.to_string(),
        })?;
        if r.config_hash != hash {
            return Err(Error::Invalid(format!(
                "{}:{}: a result of config {} in a directory of config {hash}",
                path.display(),
                i + 1,
                r.config_hash
            )));
        }
        match seen.get(&r.key()) {
            None => {
                seen.insert(r.key(), out.len());
                out.push(r);
                lines.push(i + 1);
            }
            Some(&k) if same_results(&out[k], &r) => {}
            Some(&k) => {
                return Err(Error::Invalid(format!(
                    "{}: lines {} and {} record run {} with different results ({}); remove the \
                     wrong line",
                    path.display(),
                    lines[k],
                    i + 1,
                    describe(&r),
                    differences(&out[k], &r)
                )));
            }
        }
    }
    Ok(out)
}

/// Whether two records of one run agree on what was simulated (the wall time may differ).
fn same_results(a: &RunRecord, b: &RunRecord) -> bool {
    (a.completion_cycles, a.messages, a.phit_hops) == (b.completion_cycles, b.messages, b.phit_hops)
}

/// `label / workload / size=S`.
fn describe(r: &RunRecord) -> String {
    format!(
        "{} / {}{}",
        r.label,
        r.workload,
        r.size.map_or(String::new(), |s| format!(" / size={s}"))
    )
}

/// The simulated values two records of one run disagree on, as `key a vs b`.
fn differences(a: &RunRecord, b: &RunRecord) -> String {
    [
        (
            "completion_cycles",
            a.completion_cycles,
            b.completion_cycles,
        ),
        ("messages", a.messages, b.messages),
        ("phit_hops", a.phit_hops, b.phit_hops),
    ]
    .iter()
    .filter(|(_, x, y)| x != y)
    .map(|(k, x, y)| format!("{k} {x} vs {y}"))
    .collect::<Vec<_>>()
    .join(", ")
}

/// Opens `results.jsonl` for appending, cutting a torn last line so the next append starts a line.
pub(super) fn open_results(dir: &Path) -> Result<std::fs::File> {
    let path = dir.join(RESULTS);
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .create(true)
        .append(true)
        .open(&path)
        .map_err(Error::io(path.display()))?;
    let mut text = Vec::new();
    f.read_to_end(&mut text)
        .map_err(Error::io(path.display()))?;
    let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if keep < text.len() {
        f.set_len(keep as u64).map_err(Error::io(path.display()))?;
        f.seek(std::io::SeekFrom::End(0))
            .map_err(Error::io(path.display()))?;
    }
    Ok(f)
}

/// Makes `dir` a results directory of `cfg` (its manifest written atomically, the directory created
/// if missing), or checks that it already is one: a directory holding results of another config is
/// refused, so results of two configs never mix; a manifest without any result (of another config,
/// or unreadable) is replaced. Slurm layouts call it for every shard before any task starts, so that
/// `report` and `--status` read every shard even if a task never ran.
pub fn init_dir(cfg: &CampaignConfig, dir: &Path) -> Result<()> {
    let hash = cfg.hash();
    let manifest_path = dir.join(MANIFEST);
    if manifest_path.exists() && has_results(dir)? {
        let (old, _) = load_dir(dir)?;
        if old.hash() != hash {
            return Err(Error::Invalid(format!(
                "{} holds results of another campaign config (hash {}, this one {hash}); pass another --out",
                dir.display(),
                old.hash()
            )));
        }
    } else if load_dir(dir).map_or(true, |(old, _)| old.hash() != hash) {
        let m = Manifest {
            config_hash: hash,
            config: cfg.clone(),
        };
        crate::output::write_atomic(&manifest_path, (crate::report::json(&m) + "\n").as_bytes())?;
    }
    Ok(())
}

/// Whether `results.jsonl` in `dir` holds at least one complete line.
fn has_results(dir: &Path) -> Result<bool> {
    let path = dir.join(RESULTS);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(bytes.contains(&b'\n')),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(path.display())(e)),
    }
}

/// Merges results directories of the same config (shards, or one directory), refusing mismatches.
pub fn merge(dirs: &[PathBuf]) -> Result<(CampaignConfig, Vec<RunRecord>)> {
    let mut merged: Option<(CampaignConfig, String)> = None;
    let mut records: BTreeMap<(String, String, Option<u64>), (RunRecord, &Path)> = BTreeMap::new();
    for dir in dirs {
        let (cfg, recs) = load_dir(dir)?;
        let h = cfg.hash();
        match &merged {
            Some((_, h0)) if *h0 != h => {
                return Err(Error::Invalid(format!(
                    "{} was run with another campaign config (hash {h}) than {} (hash {h0}); refusing to merge",
                    dir.display(),
                    dirs[0].display()
                )));
            }
            Some(_) => {}
            None => merged = Some((cfg, h)),
        }
        for r in recs {
            match records.get(&r.key()) {
                Some((old, old_dir)) if !same_results(old, &r) => {
                    return Err(Error::Invalid(format!(
                        "run {} has different results in {} and {} ({}); remove the wrong line",
                        describe(&r),
                        old_dir.join(RESULTS).display(),
                        dir.join(RESULTS).display(),
                        differences(old, &r)
                    )));
                }
                Some(_) => {}
                None => {
                    records.insert(r.key(), (r, dir));
                }
            }
        }
    }
    let (cfg, _) =
        merged.ok_or_else(|| Error::Invalid("report needs at least one directory".into()))?;
    Ok((cfg, records.into_values().map(|(r, _)| r).collect()))
}
