//! `netreplay campaign --status DIR`: which runs of a campaign are done and which are missing, per
//! shard, read from the results files alone (nothing is run, nothing is locked), so it can be asked
//! while a campaign or a Slurm job array is still writing.
//!
//! DIR is either one results directory (a campaign's `--out`, or one shard's) or a Slurm layout
//! ([`super::slurm`]) whose shards are `DIR/shards/1..N`. A run is identified as everywhere else by
//! (label, workload, size); a results line counted twice (which resuming never writes) counts once.

use super::slurm::{self, Layout};
use super::{CampaignConfig, Planned, Shard};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Missing runs named per shard in the text; the rest are counted.
const LISTED: usize = 10;

/// The state of one results directory.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardStatus {
    /// The slice it holds (`None`: a plain results directory, which may hold any run).
    pub shard: Option<Shard>,
    /// Its path.
    pub dir: PathBuf,
    /// Runs it should hold.
    pub runs: usize,
    /// Of those, the ones with a result.
    pub done: usize,
    /// The ones without, in run order.
    pub missing: Vec<Planned>,
}

/// The state of a campaign directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// Title of the campaign.
    pub name: String,
    /// Hash of its config.
    pub config_hash: String,
    /// The directory asked about.
    pub dir: PathBuf,
    /// One entry per shard (one in all for a plain results directory).
    pub shards: Vec<ShardStatus>,
}

impl Status {
    /// Runs planned over every shard.
    pub fn runs(&self) -> usize {
        self.shards.iter().map(|s| s.runs).sum()
    }

    /// Runs done over every shard.
    pub fn done(&self) -> usize {
        self.shards.iter().map(|s| s.done).sum()
    }

    /// Runs still missing.
    pub fn missing(&self) -> usize {
        self.runs() - self.done()
    }

    /// Shards (1-based indices) with a missing run: the array tasks a resubmission needs.
    pub fn pending_shards(&self) -> Vec<u32> {
        self.shards
            .iter()
            .filter(|s| !s.missing.is_empty())
            .filter_map(|s| s.shard.map(|sh| sh.index))
            .collect()
    }

    /// The human-readable report: totals, then one line per shard naming its first missing runs.
    pub fn text(&self) -> String {
        let mut out = format!(
            "{} (config {}) in {}: {} of {} runs done, {} missing\n",
            self.name,
            self.config_hash,
            self.dir.display(),
            self.done(),
            self.runs(),
            self.missing()
        );
        for s in &self.shards {
            let head = match s.shard {
                Some(sh) => format!("shard {}/{}", sh.index, sh.count),
                None => "results".to_string(),
            };
            out += &format!("{head:<12} {} of {} done", s.done, s.runs);
            if !s.missing.is_empty() {
                let names: Vec<String> = s.missing.iter().take(LISTED).map(run_name).collect();
                out += &format!(", missing: {}", names.join("; "));
                if s.missing.len() > LISTED {
                    out += &format!("; and {} more", s.missing.len() - LISTED);
                }
            }
            out += "\n";
        }
        out
    }
}

/// `label workload size=S` as the tables name a run.
pub fn run_name(run: &Planned) -> String {
    match run.size {
        Some(s) => format!("{} {} size={s}", run.label, run.workload),
        None => format!("{} {}", run.label, run.workload),
    }
}

/// Reads the state of `dir`: a Slurm layout if it holds one, else a plain results directory, all of
/// the campaign's runs or, with `shard`, that shard's (a hand-written job array's task directory).
pub fn status(dir: &Path, shard: Option<Shard>) -> Result<Status> {
    if !dir.is_dir() {
        return Err(Error::Invalid(format!(
            "{} is not a directory; --status takes the --out directory of a campaign",
            dir.display()
        )));
    }
    match Layout::load(dir)? {
        Some(_) if shard.is_some() => Err(Error::Invalid(format!(
            "{} is a Slurm layout, which knows its shards; --status takes --shard only for a plain \
             results directory",
            dir.display()
        ))),
        Some(layout) => layout_status(dir, &layout),
        None => {
            if !dir.join(super::results_dir::MANIFEST).exists() {
                return Err(Error::Invalid(format!(
                    "{} holds no campaign: neither {} (a results directory) nor {} (a Slurm layout)",
                    dir.display(),
                    super::results_dir::MANIFEST,
                    slurm::LAYOUT
                )));
            }
            let (cfg, records) = super::load_dir(dir)?;
            let s = shard_status(&cfg, dir, &records, shard);
            Ok(Status {
                name: title(&cfg),
                config_hash: cfg.hash(),
                dir: dir.to_path_buf(),
                shards: vec![s],
            })
        }
    }
}

fn title(cfg: &CampaignConfig) -> String {
    cfg.name.clone().unwrap_or_else(|| "campaign".into())
}

/// The shards of a Slurm layout; each shard directory must hold the layout's config.
fn layout_status(dir: &Path, layout: &Layout) -> Result<Status> {
    let mut shards = Vec::new();
    let mut cfg: Option<CampaignConfig> = None;
    for index in 1..=layout.array {
        let sdir = slurm::shard_dir(dir, index);
        let (c, records) = super::load_dir(&sdir)?;
        if c.hash() != layout.config_hash {
            return Err(Error::Invalid(format!(
                "{} holds config {} but the Slurm layout {} says {}",
                sdir.display(),
                c.hash(),
                dir.join(slurm::LAYOUT).display(),
                layout.config_hash
            )));
        }
        let shard = Shard {
            index,
            count: layout.array,
        };
        shards.push(shard_status(&c, &sdir, &records, Some(shard)));
        cfg.get_or_insert(c);
    }
    let cfg = cfg.ok_or_else(|| {
        Error::Invalid(format!(
            "{}: a Slurm layout of 0 shards",
            dir.join(slurm::LAYOUT).display()
        ))
    })?;
    Ok(Status {
        name: title(&cfg),
        config_hash: layout.config_hash.clone(),
        dir: dir.to_path_buf(),
        shards,
    })
}

/// Done and missing runs of one directory holding `shard` of `cfg`, whose records are `records`.
fn shard_status(
    cfg: &CampaignConfig,
    dir: &Path,
    records: &[super::RunRecord],
    shard: Option<Shard>,
) -> ShardStatus {
    let (mine, missing) = super::shard_runs(cfg, records, shard);
    ShardStatus {
        shard,
        dir: dir.to_path_buf(),
        runs: mine.len(),
        done: mine.len() - missing.len(),
        missing,
    }
}
