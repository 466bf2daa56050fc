//! Campaigns on a Slurm cluster: `netreplay campaign CONFIG --slurm` writes an sbatch job array (one
//! task per shard) and a merge job, and `--submit` submits both.
//!
//! Layout of the results directory DIR (the campaign's `--out`), chosen so that a resubmission resumes:
//!
//! - `DIR/shards/I` (I = 1..N): shard I/N's results directory, an ordinary resumable campaign
//!   directory. Every one is created with its manifest when the scripts are written, so `report` and
//!   `--status` read all of them even if a task never started.
//! - `DIR/slurm/layout.json`: N and the config, so a resubmission keeps the same shards (a different
//!   `--array` would give each run another shard and run finished runs again; it is refused).
//! - `DIR/slurm/array.sbatch`, `DIR/slurm/merge.sbatch`: the scripts; `DIR/slurm/logs/`: their output.
//! - `DIR/report.md` etc.: the merged report, written by the merge job.
//!
//! The merge job depends on the array with `afterany`, not `afterok`: after a failed or cancelled
//! task, `afterok` would leave it pending forever (DependencyNeverSatisfied) with no report at all,
//! while `afterany` still merges what is done (the report says `Runs: x of y done`) and then fails
//! through `campaign --status`, so the job's own state says whether anything is missing. A
//! resubmission submits only the array tasks with missing runs, and a new merge job.

use super::status::{self, Status};
use super::{CampaignConfig, init_dir};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

mod shell;
use shell::{comment, quote, quote_path, utf8};

/// The layout file, relative to the results directory.
pub const LAYOUT: &str = "slurm/layout.json";

/// Array tasks by default at most: one run per task up to this, several runs per task beyond, so a
/// large campaign does not flood the scheduler (Slurm's default `MaxArraySize` is 1001).
pub const DEFAULT_MAX_TASKS: usize = 100;

/// What the `--slurm` flags ask for; `None` takes the default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// Array tasks (= shards); default: the runs, at most [`DEFAULT_MAX_TASKS`].
    pub array: Option<u32>,
    /// Partition (`--partition`); default: the cluster's.
    pub partition: Option<String>,
    /// Time limit per job in a form sbatch takes (`30`, `2:00:00`, `1-12`); default: the partition's.
    pub time: Option<String>,
    /// CPUs per task, which become the task's `--jobs` (default 1: each run is single-threaded).
    pub cpus_per_task: Option<u32>,
}

/// `DIR/slurm/layout.json`: what a resubmission must keep to resume.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Layout {
    /// Hash of the campaign config.
    pub config_hash: String,
    /// The config file the scripts name (absolute).
    pub config: PathBuf,
    /// Array tasks, one per shard.
    pub array: u32,
}

impl Layout {
    /// Reads the layout of `dir`, or `None` if `dir` is not a Slurm layout.
    pub fn load(dir: &Path) -> Result<Option<Layout>> {
        let path = dir.join(LAYOUT);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path.display())(e)),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| Error::File {
                path: path.display().to_string(),
                line: e.line(),
                column: e.column().max(1),
                message: e.to_string(),
            })
    }
}

/// The results directory of shard `index` in the layout under `dir`.
pub fn shard_dir(dir: &Path, index: u32) -> PathBuf {
    dir.join("shards").join(index.to_string())
}

/// Array tasks for a campaign of `runs` runs when `--array` is not given.
pub fn default_array(runs: usize) -> u32 {
    u32::try_from(runs.clamp(1, DEFAULT_MAX_TASKS)).unwrap_or(1)
}

/// Everything the two scripts are written from; paths absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scripts {
    /// The netreplay binary the tasks run.
    pub netreplay: PathBuf,
    /// The campaign config.
    pub config: PathBuf,
    /// The results directory.
    pub dir: PathBuf,
    /// Where the jobs start (the directory `--slurm` ran in), so relative trace paths resolve as they
    /// do locally.
    pub workdir: PathBuf,
    /// Job name prefix (`netreplay-<config stem>`).
    pub name: String,
    /// Campaign title, for the scripts' header.
    pub title: String,
    /// Runs of the campaign.
    pub runs: usize,
    /// Array tasks (shards).
    pub array: u32,
    /// CPUs per task.
    pub cpus_per_task: u32,
    /// `--partition`, if given.
    pub partition: Option<String>,
    /// `--time`, if given.
    pub time: Option<String>,
}

impl Scripts {
    fn header(&self, what: &str) -> String {
        format!(
            "#!/bin/bash\n\
             # {what}, written by `netreplay campaign --slurm`:\n\
             # {} ({} runs in {} shards, results in {}).\n",
            comment(&self.title),
            self.runs,
            self.array,
            comment(&self.dir.display().to_string())
        )
    }

    fn options(&self, name: &str, log: &str) -> String {
        let mut out = format!("#SBATCH --job-name={name}\n");
        if log.contains("%a") {
            out += &format!("#SBATCH --array=1-{}\n", self.array);
        }
        out += "#SBATCH --ntasks=1\n";
        out += &format!("#SBATCH --cpus-per-task={}\n", self.cpus_per_task);
        if let Some(p) = &self.partition {
            out += &format!("#SBATCH --partition={p}\n");
        }
        if let Some(t) = &self.time {
            out += &format!("#SBATCH --time={t}\n");
        }
        out += &format!(
            "#SBATCH --output={}\n",
            self.dir.join("slurm/logs").join(log).display()
        );
        out
    }

    /// The job array: task I runs shard I/N into `DIR/shards/I` with the task's CPUs as `--jobs`;
    /// rerun, a task runs only the runs its shard lacks.
    pub fn array_script(&self) -> Result<String> {
        let mut out = self.header("Job array: task I runs shard I/N of the campaign");
        out += &self.options(&self.name, "array-%A_%a.out");
        out += &format!(
            "set -euo pipefail\n\
             cd {}\n\
             exec {} campaign {} \\\n  \
             --shard \"$SLURM_ARRAY_TASK_ID/{}\" \\\n  \
             --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\" \\\n  \
             --out {}\"$SLURM_ARRAY_TASK_ID\"\n",
            quote(utf8(&self.workdir)?),
            quote(utf8(&self.netreplay)?),
            quote(utf8(&self.config)?),
            self.array,
            quote(&format!("{}/", utf8(&self.dir.join("shards"))?)),
        );
        Ok(out)
    }

    /// The merge job: `report` over every shard into DIR, then `campaign --status DIR`, which fails
    /// the job while runs are missing.
    pub fn merge_script(&self) -> Result<String> {
        let mut out = self.header("Merge job: the report of every shard, run after the array");
        out += &self.options(&format!("{}-merge", self.name), "merge-%j.out");
        let shards = quote(&format!("{}/", utf8(&self.dir.join("shards"))?));
        let range = if self.array == 1 {
            "1".to_string()
        } else {
            format!("{{1..{}}}", self.array)
        };
        out += &format!(
            "set -euo pipefail\n\
             cd {}\n\
             {nr} report {shards}{range} --out {dir}\n\
             exec {nr} campaign --status {dir}\n",
            quote(utf8(&self.workdir)?),
            nr = quote(utf8(&self.netreplay)?),
            dir = quote(utf8(&self.dir)?),
        );
        Ok(out)
    }
}

/// The scripts written and what a submission needs to know.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// What was written.
    pub scripts: Scripts,
    /// `DIR/slurm/array.sbatch`.
    pub array_path: PathBuf,
    /// `DIR/slurm/merge.sbatch`.
    pub merge_path: PathBuf,
    /// Done and missing runs per shard when the scripts were written.
    pub status: Status,
}

/// Checks `--partition` and `--time`: they go into `#SBATCH` lines, which sbatch reads without a
/// shell, so only the characters Slurm's own syntax uses are accepted.
fn check_request(req: &Request) -> Result<()> {
    if let Some(p) = &req.partition {
        let ok = |c: char| c.is_ascii_alphanumeric() || "_-.,".contains(c);
        if p.is_empty() || !p.chars().all(ok) {
            return Err(Error::Invalid(format!(
                "--partition `{p}`: a partition name (letters, digits, `_-.`, several separated by commas)"
            )));
        }
    }
    if let Some(t) = &req.time {
        let ok = t
            .chars()
            .all(|c| c.is_ascii_digit() || c == ':' || c == '-')
            && t.starts_with(|c: char| c.is_ascii_digit())
            || ["UNLIMITED", "INFINITE"].contains(&t.to_ascii_uppercase().as_str());
        if !ok {
            return Err(Error::Invalid(format!(
                "--time `{t}`: a Slurm time limit (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, \
                 D-HH:MM:SS or UNLIMITED)"
            )));
        }
    }
    Ok(())
}

/// `#SBATCH --output=` takes the path without shell quoting and expands `%`: refuse what it would
/// misread.
fn check_dir_path(dir: &Path) -> Result<()> {
    let text = utf8(dir)?;
    if let Some(c) = text
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || "'\"\\%".contains(*c))
    {
        return Err(Error::Invalid(format!(
            "--out {text}: sbatch reads #SBATCH lines without shell quoting, so the results directory's \
             absolute path cannot contain {c:?}; pass another --out"
        )));
    }
    Ok(())
}

/// `netreplay-<stem>` with only the characters job names keep.
fn job_name(config: &Path) -> String {
    let stem = config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("netreplay-{clean}")
}

/// Writes the layout of `cfg` (loaded from `config`) into `dir`: every shard directory, the layout
/// file and both scripts (each atomically). A directory already laid out keeps its array size; another
/// config or another `--array` is refused.
pub fn prepare(
    cfg: &CampaignConfig,
    config: &Path,
    dir: &Path,
    netreplay: &Path,
    req: &Request,
) -> Result<Prepared> {
    check_request(req)?;
    let config = std::fs::canonicalize(config).map_err(Error::io(config.display()))?;
    check_dir_path(&std::path::absolute(dir).map_err(Error::io(dir.display()))?)?;
    let workdir = std::env::current_dir().map_err(Error::io("the current directory"))?;
    let runs = cfg.plan().len();
    let hash = cfg.hash();
    let array = match (Layout::load(dir)?, req.array) {
        (Some(old), _) if old.config_hash != hash => {
            return Err(Error::Invalid(format!(
                "{} holds a Slurm campaign of another config (hash {}, this one {hash}); pass another \
                 --out (a Slurm layout does not take a config that grew: its runs would move to other \
                 shards)",
                dir.display(),
                old.config_hash
            )));
        }
        (Some(old), Some(n)) if n != old.array => {
            return Err(Error::Invalid(format!(
                "{} is laid out in {} shards; --array {n} would move runs to other shards and run \
                 finished ones again: resubmit with --array {} (or without --array), or pass another --out",
                dir.display(),
                old.array,
                old.array
            )));
        }
        (Some(old), _) => old.array,
        (None, _) if dir.join(super::results_dir::MANIFEST).exists() => {
            return Err(Error::Invalid(format!(
                "{} holds the results of a campaign run without --slurm, which the Slurm shards would \
                 not see; pass another --out",
                dir.display()
            )));
        }
        (None, Some(n)) => n,
        (None, None) => default_array(runs),
    };
    if array == 0 || array as usize > runs {
        return Err(Error::Invalid(format!(
            "--array {array}: the campaign has {runs} runs, so 1 to {runs} array tasks"
        )));
    }
    std::fs::create_dir_all(dir.join("slurm/logs")).map_err(Error::io(dir.display()))?;
    let dir = std::fs::canonicalize(dir).map_err(Error::io(dir.display()))?;
    check_dir_path(&dir)?;
    for index in 1..=array {
        init_dir(cfg, &shard_dir(&dir, index))?;
    }
    let layout = Layout {
        config_hash: hash,
        config: config.clone(),
        array,
    };
    crate::output::write_atomic(
        &dir.join(LAYOUT),
        (crate::report::json(&layout) + "\n").as_bytes(),
    )?;
    let scripts = Scripts {
        netreplay: netreplay.to_path_buf(),
        name: job_name(&config),
        config,
        dir: dir.clone(),
        workdir,
        title: cfg.name.clone().unwrap_or_else(|| "campaign".into()),
        runs,
        array,
        cpus_per_task: req.cpus_per_task.unwrap_or(1).max(1),
        partition: req.partition.clone(),
        time: req.time.clone(),
    };
    let array_path = dir.join("slurm/array.sbatch");
    let merge_path = dir.join("slurm/merge.sbatch");
    crate::output::write_atomic(&array_path, scripts.array_script()?.as_bytes())?;
    crate::output::write_atomic(&merge_path, scripts.merge_script()?.as_bytes())?;
    let status = status::status(&dir, None)?;
    Ok(Prepared {
        scripts,
        array_path,
        merge_path,
        status,
    })
}

/// Shard indices as sbatch's `--array` list: `1-3,5,7-8`.
pub fn array_list(indices: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            indices[i].to_string()
        } else {
            format!("{}-{}", indices[i], indices[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The job ids a submission got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submitted {
    /// The array job and the tasks it runs (`None`: every run was done, no task needed).
    pub array: Option<(String, String)>,
    /// The merge job.
    pub merge: String,
}

/// Runs `sbatch --parsable ARGS` and returns the job id it prints (`ID` or `ID;CLUSTER`).
fn sbatch(args: &[String]) -> Result<String> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .output()
        .map_err(|e| {
            Error::Invalid(format!(
                "cannot run sbatch ({e}): --submit needs Slurm's client commands on PATH; without \
                 --submit the scripts are written for submitting by hand"
            ))
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(Error::Invalid(format!(
            "sbatch {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let id = stdout.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(Error::Invalid(format!(
            "sbatch {} printed `{}`, not a job id",
            args.join(" "),
            stdout.trim()
        )));
    }
    Ok(id)
}

/// Submits the array tasks whose shards miss runs (all of them the first time), then the merge job
/// after any end of them.
pub fn submit(p: &Prepared) -> Result<Submitted> {
    let pending = p.status.pending_shards();
    let array_path = utf8(&p.array_path)?.to_string();
    let merge_path = utf8(&p.merge_path)?.to_string();
    let array = if pending.is_empty() {
        None
    } else {
        let tasks = array_list(&pending);
        let mut args = Vec::new();
        if pending.len() < p.scripts.array as usize {
            args.push(format!("--array={tasks}"));
        }
        args.push(array_path);
        Some((sbatch(&args)?, tasks))
    };
    let mut args = Vec::new();
    if let Some((id, _)) = &array {
        args.push(format!("--dependency=afterany:{id}"));
    }
    args.push(merge_path);
    let merge = sbatch(&args).map_err(|e| match &array {
        Some((id, _)) => Error::Invalid(format!(
            "{e} (array job {id} was submitted; once it ends, merge with `sbatch {}`)",
            quote_path(&p.merge_path)
        )),
        None => e,
    })?;
    Ok(Submitted { array, merge })
}

/// What `--slurm` prints: the scripts written, the runs left, and the submission or how to submit.
pub fn text(p: &Prepared, submitted: Option<&Submitted>) -> String {
    let s = &p.status;
    let mut out = format!(
        "wrote {} ({} tasks) and {}\n{} of {} runs done, {} missing\n",
        p.array_path.display(),
        p.scripts.array,
        p.merge_path.display(),
        s.done(),
        s.runs(),
        s.missing()
    );
    match submitted {
        Some(sub) => {
            match &sub.array {
                Some((id, tasks)) => {
                    out += &format!(
                        "submitted array job {id} (tasks {tasks} of {})\n",
                        p.scripts.array
                    );
                    out += &format!(
                        "submitted merge job {} (after any end of {id})\n",
                        sub.merge
                    );
                }
                None => out += &format!("submitted merge job {} (no task needed)\n", sub.merge),
            }
            out += &format!(
                "follow with: netreplay campaign --status {}\n",
                quote_path(&p.scripts.dir)
            );
        }
        None => {
            let pending = array_list(&s.pending_shards());
            let only = if s.pending_shards().len() < p.scripts.array as usize && !pending.is_empty()
            {
                format!(" --array={pending}")
            } else {
                String::new()
            };
            out += &format!(
                "submit with: id=$(sbatch --parsable{only} {}) && sbatch --dependency=afterany:$id {}\n\
                 (or add --submit)\n",
                quote_path(&p.array_path),
                quote_path(&p.merge_path)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Scripts {
        Scripts {
            netreplay: "/opt/netreplay/bin/netreplay".into(),
            config: "/home/alice/netreplay/configs/quick-campaign.toml".into(),
            dir: "/home/alice/netreplay/results/quick".into(),
            workdir: "/home/alice/netreplay".into(),
            name: "netreplay-quick-campaign".into(),
            title: "Quick campaign: 64-node trees".into(),
            runs: 24,
            array: 24,
            cpus_per_task: 1,
            partition: Some("batch".into()),
            time: Some("0:30:00".into()),
        }
    }

    /// `docs/campaigns.md` shows the scripts this code writes for the bundled quick campaign, verbatim.
    #[test]
    fn readme_shows_the_generated_scripts() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/campaigns.md"))
                .unwrap();
        let s = example();
        for script in [s.array_script().unwrap(), s.merge_script().unwrap()] {
            assert!(
                readme.contains(&script),
                "docs/campaigns.md lacks the script:\n{script}"
            );
        }
    }

    /// Task lists compress to ranges; defaults never exceed the runs.
    #[test]
    fn array_lists_and_defaults() {
        assert_eq!(array_list(&[1, 2, 3, 5, 7, 8]), "1-3,5,7-8");
        assert_eq!(array_list(&[4]), "4");
        assert_eq!(array_list(&[]), "");
        assert_eq!(default_array(24), 24);
        assert_eq!(default_array(175), 100);
        assert_eq!(default_array(0), 1);
    }

    /// Flags that would break `#SBATCH` lines are refused with what is accepted.
    #[test]
    fn bad_partition_time_and_paths_are_refused() {
        let bad = |partition: Option<&str>, time: Option<&str>| {
            check_request(&Request {
                partition: partition.map(String::from),
                time: time.map(String::from),
                ..Request::default()
            })
        };
        assert!(bad(Some("batch"), Some("1-12:00:00")).is_ok());
        assert!(bad(Some("a,b"), Some("30")).is_ok());
        assert!(bad(None, Some("unlimited")).is_ok());
        assert!(bad(Some("x\n#SBATCH --mem=1"), None).is_err());
        assert!(
            bad(None, Some("1h"))
                .unwrap_err()
                .to_string()
                .contains("HH:MM:SS")
        );
        assert!(check_dir_path(Path::new("/tmp/a b")).is_err());
        assert!(check_dir_path(Path::new("/tmp/100%")).is_err());
        assert!(check_dir_path(Path::new("/tmp/ok-dir_1")).is_ok());
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
