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

/// Complete lines of `results.jsonl` (a torn last line is ignored), first record per run kept.
pub(super) fn read_results(dir: &Path, hash: &str) -> Result<Vec<RunRecord>> {
    let path = dir.join(RESULTS);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(path.display())(e)),
    };
    let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
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
        if seen.insert(r.key()) {
            out.push(r);
        }
    }
    Ok(out)
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
/// if missing), or checks that it already is one: a directory of another config is refused, so results
/// of two configs never mix. Slurm layouts call it for every shard before any task starts, so that
/// `report` and `--status` read every shard even if a task never ran.
pub fn init_dir(cfg: &CampaignConfig, dir: &Path) -> Result<()> {
    let hash = cfg.hash();
    let manifest_path = dir.join(MANIFEST);
    if manifest_path.exists() {
        let (old, _) = load_dir(dir)?;
        if old.hash() != hash {
            return Err(Error::Invalid(format!(
                "{} holds results of another campaign config (hash {}, this one {hash}); pass another --out",
                dir.display(),
                old.hash()
            )));
        }
    } else {
        let m = Manifest {
            config_hash: hash,
            config: cfg.clone(),
        };
        crate::report::write_atomic(&manifest_path, (crate::report::json(&m) + "\n").as_bytes())?;
    }
    Ok(())
}

/// Merges results directories of the same config (shards, or one directory), refusing mismatches.
pub fn merge(dirs: &[PathBuf]) -> Result<(CampaignConfig, Vec<RunRecord>)> {
    let mut merged: Option<(CampaignConfig, String)> = None;
    let mut records: BTreeMap<(String, String, Option<u64>), RunRecord> = BTreeMap::new();
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
            records.entry(r.key()).or_insert(r);
        }
    }
    let (cfg, _) =
        merged.ok_or_else(|| Error::Invalid("report needs at least one directory".into()))?;
    Ok((cfg, records.into_values().collect()))
}
