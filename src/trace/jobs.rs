//! Multi-job GOAL: the schedules ATLAHS's merge (`goal_gen/merge_goals.py` of spcl/atlahs) writes
//! for several jobs sharing one network, taken apart again into jobs (`trace:file=F,jobs=...`).
//!
//! The merge (mode `multi-job`) writes an ordinary GOAL schedule: `num_ranks N`, N being the largest
//! global rank plus one, then `rank g {...}` for every g in order: rank i of job j at
//! g = `pattern[j][i]`, its send destinations and receive sources renumbered the same way (labels,
//! tags, `cpu` and `nic` kept), and an empty block for every g no job was given. The global rank
//! is the node: the merge's README calls the pattern a hostfile ("the node number where the rank i
//! will be placed"). The file records no job boundaries, so `jobs=` says where they are:
//!
//! - `jobs=connected`: each group of ranks that exchange messages, directly or through others, is
//!   a job, its ranks in increasing order; a rank that only computes is a job of its own, and ranks
//!   with empty blocks are in none (idle nodes). The merge's jobs never exchange messages, so this
//!   finds them whenever each job's ranks communicate as one group.
//! - `jobs=PATH.json`: the merge's configuration file. Its `pattern` gives job j's ranks in the
//!   job's own order, so each job is exactly the schedule that was merged; `packed` and
//!   `round_robin` are recomputed as the merge does, from the `num_ranks` of its `goal_files`
//!   (relative to the configuration's folder); `random` is refused (drawn unseeded and not
//!   recorded: give the mapping the merge prints with `-v` as the pattern).
//!
//! Either way every rank with operations must be in one job and no message may cross jobs. The
//! run places the file's N ranks as any workload's (default `consecutive`: global rank g on node g,
//! the merge's mapping) and each job keeps its ranks' nodes.

use crate::disjoint_sets::root;
use crate::error::{Error, Result};
use crate::program::{ANY_SOURCE, Program};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where the jobs of a merged schedule are, as the `jobs=` key says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    /// Each group of ranks exchanging messages is a job.
    Connected,
    /// The jobs of ATLAHS's merge configuration at this path.
    Merge(PathBuf),
}

impl Split {
    /// `connected`, or the path of a merge configuration.
    pub fn parse(value: &str) -> Split {
        match value {
            "connected" => Split::Connected,
            path => Split::Merge(path.into()),
        }
    }
}

/// [`job_ranks`] for a trace of `format` read from `file`: only GOAL schedules are split (the merge
/// writes GOAL; other formats have communicators for their groups of ranks).
pub fn of_trace(
    program: &Program,
    format: super::Format,
    file: &str,
    split: &Split,
) -> Result<Vec<Vec<u32>>> {
    if format != super::Format::GOAL {
        return Err(Error::Invalid(format!(
            "jobs= splits GOAL schedules (ATLAHS's merged multi-job files), but `{file}` is a {} \
             trace",
            format.name()
        )));
    }
    job_ranks(program, split)
}

/// Each job's ranks of `program` (a merged schedule), in job order, checked: ranks exist, belong to
/// one job at most, every rank with operations is in a job, and no message crosses jobs.
pub fn job_ranks(program: &Program, split: &Split) -> Result<Vec<Vec<u32>>> {
    let jobs = match split {
        Split::Connected => connected(program),
        Split::Merge(path) => merge_config(path, program.ranks())?,
    };
    let what = match split {
        Split::Connected => "jobs=connected".to_string(),
        Split::Merge(path) => path.display().to_string(),
    };
    if jobs.is_empty() {
        return Err(Error::Invalid(format!(
            "{what}: no rank has operations, so there is no job to replay"
        )));
    }
    let mut job_of = vec![None; program.ranks() as usize];
    for (j, ranks) in jobs.iter().enumerate() {
        if ranks.is_empty() {
            return Err(Error::Invalid(format!("{what}: job {j} has no ranks")));
        }
        for &r in ranks {
            let slot = job_of.get_mut(r as usize).ok_or_else(|| {
                Error::Invalid(format!(
                    "{what}: job {j} has rank {r}, but the schedule has ranks 0..{}",
                    program.ranks()
                ))
            })?;
            if let Some(k) = slot.replace(j) {
                return Err(Error::Invalid(format!(
                    "{what}: rank {r} is in job {k} and in job {j}"
                )));
            }
        }
    }
    if let Some(r) = (0..program.ranks())
        .find(|&r| job_of[r as usize].is_none() && !program.rank_ops(r).is_empty())
    {
        return Err(Error::Invalid(format!(
            "{what}: rank {r} has operations but is in no job"
        )));
    }
    for (j, ranks) in jobs.iter().enumerate() {
        program
            .subset(ranks)
            .map_err(|e| Error::Invalid(format!("{what}: job {j}: {e}")))?;
    }
    Ok(jobs)
}

/// The groups of ranks that exchange messages (sends and receives alike), each in increasing rank
/// order, ordered by their lowest rank; ranks without operations are in none.
pub fn connected(program: &Program) -> Vec<Vec<u32>> {
    let n = program.ranks() as usize;
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let pairs = program
        .sends()
        .map(|(a, b, _, _)| (a, b))
        .chain(program.recvs().map(|(a, b, _)| (a, b)));
    for (a, b) in pairs.filter(|&(a, _)| a != ANY_SOURCE) {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        // The lower root wins, so a group's root is its lowest rank.
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
    let mut index = vec![usize::MAX; n];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for r in 0..n as u32 {
        if program.rank_ops(r).is_empty() {
            continue;
        }
        let root = root(&mut parent, r) as usize;
        if index[root] == usize::MAX {
            index[root] = groups.len();
            groups.push(Vec::new());
        }
        groups[index[root]].push(r);
    }
    groups
}

/// ATLAHS's merge configuration, as `merge_goals.py` reads it (other keys are ignored, as there).
#[derive(serde::Deserialize)]
struct MergeConfig {
    mode: String,
    goal_files: Vec<PathBuf>,
    pattern: serde_json::Value,
}

/// Each job's global ranks as the merge configuration at `path` places them, for a merged file of
/// `ranks` ranks.
fn merge_config(path: &Path, ranks: u32) -> Result<Vec<Vec<u32>>> {
    let name = path.display().to_string();
    let text =
        crate::input::read_text(path, "a merge configuration", crate::input::MAX_TEXT_BYTES)?;
    let config: MergeConfig = serde_json::from_str(&text).map_err(|e| Error::File {
        path: name.clone(),
        line: e.line(),
        // serde_json counts columns from 1 but says 0 at the end of an empty line or file.
        column: e.column().max(1),
        message: format!("not an ATLAHS merge configuration: {e}"),
    })?;
    let bad = |m: String| Error::Invalid(format!("{name}: {m}"));
    if config.mode != "multi-job" {
        return Err(bad(format!(
            "mode `{}`: only `multi-job` is read (the merge does not write `multi-tenant`, which \
             would put several ranks on one node)",
            config.mode
        )));
    }
    let counts = || -> Result<Vec<u64>> {
        let dir = path.parent().unwrap_or(Path::new(""));
        config
            .goal_files
            .iter()
            .map(|f| {
                let file = dir.join(f);
                super::goal::declared_ranks(&file)?
                    .ok_or_else(|| bad(format!("{}: no `num_ranks N` line", file.display())))
            })
            .collect()
    };
    let jobs = match &config.pattern {
        serde_json::Value::String(p) if p == "packed" => {
            let mut start = 0u64;
            let mut jobs = Vec::new();
            for n in counts()? {
                jobs.push((start..start + n).collect::<Vec<u64>>());
                start += n;
            }
            jobs
        }
        serde_json::Value::String(p) if p == "round_robin" => {
            let counts = counts()?;
            let mut jobs: Vec<Vec<u64>> = vec![Vec::new(); counts.len()];
            // The merge's loop: global ranks dealt to jobs in turn, skipping full jobs.
            let (total, mut next) = (counts.iter().sum::<u64>(), 0);
            let mut g = 0;
            while g < total {
                if (jobs[next].len() as u64) < counts[next] {
                    jobs[next].push(g);
                    g += 1;
                }
                next = (next + 1) % counts.len();
            }
            jobs
        }
        serde_json::Value::String(p) => {
            return Err(bad(format!(
                "pattern `{p}`: the merge does not record the mapping it drew; give the one it \
                 printed (`merge_goals.py -v`: \"Successfully generated rank mapping\") as the \
                 pattern, a list of each job's ranks"
            )));
        }
        list => serde_json::from_value::<Vec<Vec<u64>>>(list.clone()).map_err(|_| {
            bad("`pattern` is neither `packed`, `round_robin` nor a list of lists of ranks".into())
        })?,
    };
    jobs.into_iter()
        .map(|job| {
            job.into_iter()
                .map(|g| {
                    u32::try_from(g).ok().filter(|&g| g < ranks).ok_or_else(|| {
                        bad(format!(
                            "rank {g} of its pattern is past the schedule's {ranks} ranks"
                        ))
                    })
                })
                .collect()
        })
        .collect()
}

/// One job of a merged schedule as `trace check` describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobSummary {
    /// Its global ranks, as ranges (`0-15`, `20,22`).
    pub ranks: String,
    /// How many.
    pub rank_count: u32,
    /// Messages its ranks send.
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// Each job of `jobs` summarised.
pub fn summaries(program: &Program, jobs: &[Vec<u32>]) -> Vec<JobSummary> {
    let mut job_of = vec![usize::MAX; program.ranks() as usize];
    for (j, ranks) in jobs.iter().enumerate() {
        for &r in ranks {
            job_of[r as usize] = j;
        }
    }
    let mut out: Vec<JobSummary> = jobs
        .iter()
        .map(|ranks| JobSummary {
            ranks: ranges(ranks),
            rank_count: ranks.len() as u32,
            messages: 0,
            bytes: 0,
        })
        .collect();
    for (from, _, bytes, _) in program.sends() {
        if let Some(s) = out.get_mut(job_of[from as usize]) {
            s.messages += 1;
            s.bytes = s.bytes.saturating_add(bytes);
        }
    }
    out
}

/// Ranks as runs of consecutive numbers in the order given: `0-15`, `20,22,24`, `35-32`.
pub fn ranges(ranks: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ranks.len() {
        let step = match ranks.get(i + 1) {
            Some(&b) if b == ranks[i] + 1 => 1i64,
            Some(&b) if b + 1 == ranks[i] => -1,
            _ => 0,
        };
        let mut end = i;
        while step != 0
            && ranks
                .get(end + 1)
                .is_some_and(|&b| i64::from(b) == i64::from(ranks[end]) + step)
        {
            end += 1;
        }
        parts.push(if end > i {
            format!("{}-{}", ranks[i], ranks[end])
        } else {
            ranks[i].to_string()
        });
        i = end + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_runs_either_way() {
        assert_eq!(ranges(&[0, 1, 2, 3]), "0-3");
        assert_eq!(ranges(&[35, 34, 33, 20, 21, 7]), "35-33,20-21,7");
        assert_eq!(ranges(&[0, 2, 4]), "0,2,4");
        assert_eq!(ranges(&[]), "");
    }
}
