//! Shared-machine runs: several jobs replayed together, each then alone on the same nodes for its
//! slowdown. The jobs come from `[[jobs]]` in the config (each placed on what the previous ones left
//! free) or from one merged multi-job trace (`trace:file=F,jobs=...`, `crate::trace::jobs`: each
//! job on the nodes the run's placement gave its ranks of the merged file).

use super::{
    JobReport, RealTime, RunConfig, RunOptions, RunReport, Speed, check_declared_ranks,
    observe_phits,
};
use crate::error::{Error, Result};
use crate::network::{self, memory};
use crate::program::Program;
use crate::replay::{self, Instruments, Replay};
use crate::workload::WorkloadSpec;
use crate::{placement, workload};
use rayon::prelude::*;

/// One job ready to replay: its canonical workload and placement, nodes, program and start cycle.
struct Built {
    workload: String,
    placement: String,
    nodes: Vec<u32>,
    program: Program,
    start: u64,
}

/// A `[[jobs]]` run: jobs placed one after another on what is free, replayed together, then each
/// replayed alone on the same nodes (in parallel) to measure its slowdown.
pub(super) fn execute_jobs(
    config: &RunConfig,
    options: &RunOptions,
    replay: &Replay,
    engine_bytes: u64,
) -> Result<RunReport> {
    let topo = replay.network().topology();
    let seed = config.seed.unwrap_or(1);
    if config.workload.is_some() {
        return Err(Error::Invalid(
            "give either one workload or [[jobs]], not both".into(),
        ));
    }
    // A job's own spec is placed in the config file; the run's placement, which a job without one
    // takes, may come from a flag and is the caller's to place.
    let located = |key: &str, value: &str, e| {
        super::locate_spec(options.config.as_deref(), (key, key), value, e)
    };
    let mut available = placement::Available::all(topo.nodes());
    let mut built = Vec::new();
    let mut clocks = Vec::new();
    for (i, job) in config.jobs.iter().enumerate() {
        if job.start > network::MAX_CYCLE {
            return Err(Error::Invalid(format!(
                "job {i} (`{}`): start = {} is past the simulator's limit of {} cycles",
                job.workload,
                job.start,
                network::MAX_CYCLE
            )));
        }
        let at = |e| located("workload", &job.workload, e);
        let parsed = workload::parse(&job.workload).map_err(at)?;
        check_declared_ranks(&parsed, topo)?;
        // A trace is read now, its lowering kept under the run's memory limit.
        let wl = memory::with_limit(options.max_memory, || parsed.build()).map_err(at)?;
        if wl.generator.jobs().is_some() {
            return Err(Error::Invalid(format!(
                "job {i} (`{}`): a multi-job trace is several jobs already; give it as the run's \
                 workload instead of [[jobs]]",
                job.workload
            )));
        }
        let ranks = wl.ranks.or(wl.generator.ranks()).ok_or_else(|| {
            Error::Invalid(format!(
                "job {i} (`{}`): give its rank count, e.g. `{},ranks=N`",
                job.workload, job.workload
            ))
        })?;
        let spec = job
            .placement
            .as_deref()
            .or(config.placement.as_deref())
            .unwrap_or("consecutive");
        let place = placement::build(spec).map_err(|e| match &job.placement {
            Some(own) => located("placement", own, e),
            None => e,
        })?;
        let nodes = place
            .place_on(ranks, topo, &available, seed)
            .map_err(|e| Error::Invalid(format!("job {i} (`{}`): {e}", job.workload)))?;
        available = available.without(&nodes);
        let program = wl.generator.generate(ranks)?;
        clocks.push(wl.generator.cycles_per_second());
        built.push(Built {
            workload: format!("{},ranks={ranks}", wl.generator.spec()),
            placement: place.spec(),
            nodes,
            program,
            start: job.start,
        });
    }
    let workload = joined(&built, |b| &b.workload);
    let placement = joined(&built, |b| &b.placement);
    replay_jobs(
        config,
        options,
        replay,
        engine_bytes,
        &built,
        (workload, placement, &clocks),
    )
}

/// A merged multi-job trace as the run built it: the workload, its jobs' ranks, and where the
/// run's placement put each of the merged file's ranks.
pub(super) struct Merged<'a> {
    /// The trace workload (its program is the whole merged schedule).
    pub workload: &'a WorkloadSpec,
    /// Each job's ranks of the merged schedule, in the job's rank order.
    pub groups: &'a [Vec<u32>],
    /// The run's placement spec.
    pub placement: String,
    /// Node of each rank of the merged schedule.
    pub rank_node: &'a [u32],
}

/// A merged multi-job trace replayed as its jobs, all starting at cycle 0 (as the merge's single
/// schedule starts every rank), each on its ranks' nodes.
pub(super) fn execute_merged(
    config: &RunConfig,
    options: &RunOptions,
    replay: &Replay,
    engine_bytes: u64,
    merged: &Merged,
) -> Result<RunReport> {
    let generator = &merged.workload.generator;
    let program = generator.generate(merged.rank_node.len() as u32)?;
    let spec = format!("{},ranks={}", generator.spec(), program.ranks());
    let built = merged
        .groups
        .iter()
        .enumerate()
        .map(|(j, ranks)| {
            Ok(Built {
                workload: format!(
                    "{spec} job {j} (ranks {})",
                    crate::trace::jobs::ranges(ranks)
                ),
                placement: merged.placement.clone(),
                nodes: ranks
                    .iter()
                    .map(|&r| merged.rank_node[r as usize])
                    .collect(),
                program: program.subset(ranks)?,
                start: 0,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let clocks = vec![generator.cycles_per_second(); built.len()];
    replay_jobs(
        config,
        options,
        replay,
        engine_bytes,
        &built,
        (spec, merged.placement.clone(), &clocks),
    )
}

/// `what` of every job, joined with ` + `.
fn joined(built: &[Built], what: impl Fn(&Built) -> &String) -> String {
    built
        .iter()
        .map(|b| what(b).as_str())
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Replays `built` together, then each job alone on its nodes; the report names the whole run's
/// workload and placement and the clock of each job (`names`).
fn replay_jobs(
    config: &RunConfig,
    options: &RunOptions,
    replay: &Replay,
    engine_bytes: u64,
    built: &[Built],
    names: (String, String, &[f64]),
) -> Result<RunReport> {
    let (workload, placement, clocks) = names;
    let topo = replay.network().topology();
    // The shared run, then up to one engine per thread for the alone runs, and every program.
    let engines = 1 + (built.len() as u64).min(rayon::current_num_threads() as u64);
    let programs: u64 = built
        .iter()
        .map(|b| replay::program_bytes(&b.program))
        .sum();
    memory::check(
        engines * engine_bytes + programs,
        options.max_memory,
        &format!("simulating {} jobs on `{}`", built.len(), topo.spec()),
    )?;
    let jobs: Vec<replay::Job> = built
        .iter()
        .map(|b| replay::Job {
            program: &b.program,
            nodes: &b.nodes,
            start: b.start,
        })
        .collect();
    let observer = network::Progress::default();
    let total: u64 = jobs
        .iter()
        .map(|j| replay::program_phits(j.program, &config.network))
        .sum();
    let mut counters = options.new_counters();
    let ((outcome, completed), speed) = observe_phits(options, total, &observer, || {
        Speed::measure(
            topo.nodes(),
            || replay.jobs(&jobs, Some(&observer), counters.as_mut()),
            |(o, _)| o,
        )
    })?;
    let alone = jobs
        .par_iter()
        .map(|j| {
            let alone = replay.program(j.program, j.nodes, Instruments::default());
            alone.map(|r| r.outcome.completion_cycles)
        })
        .collect::<Result<Vec<_>>>()?;
    let reports: Vec<JobReport> = built
        .iter()
        .zip(completed.iter().zip(&alone))
        .map(|(b, (&done, &alone))| {
            let duration = done - b.start;
            JobReport {
                workload: b.workload.clone(),
                placement: b.placement.clone(),
                ranks: b.program.ranks(),
                nodes: b.nodes.clone(),
                start: b.start,
                completion_cycles: done,
                duration,
                alone_cycles: alone,
                slowdown: duration as f64 / alone.max(1) as f64,
            }
        })
        .collect();
    let counters = counters.map(|c| c.finish(outcome.completion_cycles));
    Ok(RunReport {
        topology: topo.spec(),
        workload,
        placement,
        seed: config.seed.unwrap_or(1),
        ranks: reports.iter().map(|j| j.ranks).sum(),
        nodes: topo.nodes(),
        network: config.network.clone(),
        mpi_model: None,
        real_time: RealTime::common(clocks, &outcome),
        speed,
        outcome,
        mpi: None,
        jobs: reports,
        critical_path: None,
        link_load: None,
        counters,
    })
}
