//! A campaign's results directory: `campaign.json` (the config and its hash) and `results.jsonl`
//! (one JSON line per finished run), read back with a torn last line ignored, opened for appending
//! with it cut off, and merged across shards only when their config hashes agree. A directory takes
//! a config that *grew* from its own (every run it planned is still planned, defined the same way:
//! candidates, workloads or sizes added, or only the weights, cost model, reference or name changed),
//! keeping its results; the manifest then lists the earlier hashes whose lines stay valid.

use super::{CampaignConfig, Planned, RunRecord};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Seek as _};
use std::path::{Path, PathBuf};

/// The manifest file of a results directory.
#[derive(Debug, Clone, Deserialize, Serialize)]
struct Manifest {
    config_hash: String,
    config: CampaignConfig,
    /// Hashes of the configs this one grew from, whose result lines are still this config's runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    grown_from: Vec<String>,
}

impl Manifest {
    /// The config hashes a result line of this directory may carry.
    fn hashes(&self) -> Vec<String> {
        let mut hashes = self.grown_from.clone();
        hashes.push(self.config_hash.clone());
        hashes
    }
}

pub(super) const MANIFEST: &str = "campaign.json";
pub(super) const RESULTS: &str = "results.jsonl";

/// Reads the config stored in a results directory and its results.
pub fn load_dir(dir: &Path) -> Result<(CampaignConfig, Vec<RunRecord>)> {
    let m = load_manifest(dir)?;
    let records = read_results(dir, &m.hashes())?;
    Ok((m.config, records))
}

fn load_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(Error::io(path.display()))?;
    serde_json::from_str(&text).map_err(|e| Error::File {
        path: path.display().to_string(),
        line: e.line(),
        column: e.column().max(1),
        message: e.to_string(),
    })
}

/// Complete lines of `results.jsonl` (a torn last line is ignored), one record per run: a run
/// recorded twice with the same results is kept once, with different results is an error naming
/// both lines. Every line must carry one of `hashes` (the directory's config and those it grew from).
fn read_results(dir: &Path, hashes: &[String]) -> Result<Vec<RunRecord>> {
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
            column: e.column().max(1),
            message: e.to_string(),
        })?;
        if !hashes.contains(&r.config_hash) {
            return Err(Error::Invalid(format!(
                "{}:{}: a result of config {} in a directory of config {}",
                path.display(),
                i + 1,
                r.config_hash,
                hashes.last().map_or("", String::as_str)
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
    describe_run(&r.label, &r.workload, r.size)
}

/// `label / workload / size=S` of a run.
pub(super) fn describe_run(label: &str, workload: &str, size: Option<u64>) -> String {
    format!(
        "{label} / {workload}{}",
        size.map_or(String::new(), |s| format!(" / size={s}"))
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
/// refused, so results of two configs never mix, unless `cfg` grew from that config (see the module
/// doc), which then takes the directory over with its results; a manifest without any result (of
/// another config, or unreadable) is replaced. Slurm layouts call it for every shard before any task
/// starts, so that `report` and `--status` read every shard even if a task never ran.
pub fn init_dir(cfg: &CampaignConfig, dir: &Path) -> Result<()> {
    let hash = cfg.hash();
    let manifest_path = dir.join(MANIFEST);
    let write = |grown_from: Vec<String>| {
        let m = Manifest {
            config_hash: hash.clone(),
            config: cfg.clone(),
            grown_from,
        };
        crate::output::write_atomic(&manifest_path, (crate::report::json(&m) + "\n").as_bytes())
    };
    if manifest_path.exists() && has_results(dir)? {
        let old = load_manifest(dir)?;
        if old.config_hash != hash {
            grew_from(cfg, &old.config).map_err(|why| {
                Error::Invalid(format!(
                    "{} holds results of another campaign config (hash {}, this one {hash}): {why}; \
                     pass another --out",
                    dir.display(),
                    old.config_hash
                ))
            })?;
            // Every line already there is one of `cfg`'s runs: keep them.
            read_results(dir, &old.hashes())?;
            log::info!(
                "{}: the config grew from the one its results were run with; they are kept",
                dir.display()
            );
            write(old.hashes())?;
        }
    } else if load_dir(dir).map_or(true, |(old, _)| old.hash() != hash) {
        write(Vec::new())?;
    }
    Ok(())
}

/// Whether `new` grew from `old`: every run `old` plans is planned by `new` too, with the same
/// definition (topology, workload spec, placement, seed, network), so `old`'s results are results
/// of `new`. Otherwise says which run is missing or defined differently.
fn grew_from(new: &CampaignConfig, old: &CampaignConfig) -> std::result::Result<(), String> {
    let planned: BTreeSet<_> = new.plan().iter().map(Planned::key).collect();
    for run in old.plan() {
        let name = format!(
            "run `{}`",
            describe_run(&run.label, &run.workload, run.size)
        );
        if !planned.contains(&run.key()) {
            return Err(format!("{name} is no longer planned"));
        }
        let (Ok(was), Ok(now)) = (old.run_config(&run), new.run_config(&run)) else {
            return Err(format!("{name} cannot be compared"));
        };
        let differs = [
            ("topology", was.topology != now.topology),
            ("workload", was.workload != now.workload),
            ("placement", was.placement != now.placement),
            ("seed", was.seed != now.seed),
            ("network", was.network != now.network),
        ]
        .into_iter()
        .find(|(_, d)| *d)
        .map(|(what, _)| what);
        if let Some(what) = differs.or((was != now).then_some("definition")) {
            return Err(format!("{name} has another {what}"));
        }
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
/// A Slurm layout's root (`campaign --slurm`'s --out) stands for its shards' directories.
pub fn merge(dirs: &[PathBuf]) -> Result<(CampaignConfig, Vec<RunRecord>)> {
    let mut expanded = Vec::with_capacity(dirs.len());
    for dir in dirs {
        match super::slurm::Layout::load(dir)? {
            Some(layout) => {
                expanded.extend((1..=layout.array).map(|i| super::slurm::shard_dir(dir, i)));
            }
            None => expanded.push(dir.clone()),
        }
    }
    let dirs = &expanded[..];
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
