//! Several jobs sharing one network (seed 004 §5.3: production machines run many jobs at once). Each
//! job's ranks run their own program on their own nodes, from their own start cycle; their messages
//! contend in the same switches. The driver keeps each job's rank ids apart by giving job j the global
//! ranks `base[j]..base[j + 1]`, and records when each job completes (its last rank has finished and
//! its last message has been consumed).

use super::{Replay, check_program, drive, take_latency};
use crate::error::{Error, Result};
use crate::mpi::runtime::MessageLatency;
use crate::mpi::runtime::Ranks;
use crate::network::counters::Counters;
use crate::network::{Consumed, Driver, Outcome, Progress, Step};
use crate::program::Program;

/// One job of a shared-machine run: its program, the node of each of its ranks, and its start cycle.
#[derive(Debug, Clone, Copy)]
pub struct Job<'p> {
    /// What its ranks do.
    pub program: &'p Program,
    /// Node of each rank (disjoint from every other job's).
    pub nodes: &'p [u32],
    /// Cycle at which its ranks start.
    pub start: u64,
}

impl Replay<'_> {
    /// Replays several jobs at once over the shared network; returns the whole run's outcome (its
    /// `messages` and message latencies those of the jobs' data messages, as for one program) and the cycle
    /// at which each job completed (its last rank finished and its last message was consumed);
    /// progress is published into `progress`, and the packet counters of the whole run, when asked
    /// for, into `counters`.
    pub fn jobs(
        &self,
        jobs: &[Job],
        progress: Option<&Progress>,
        counters: Option<&mut Counters>,
    ) -> Result<(Outcome, Vec<u64>)> {
        let nodes = self.network().topology().nodes();
        let mut used = vec![false; nodes as usize];
        let mut rank_node = Vec::new();
        for (j, job) in jobs.iter().enumerate() {
            check_program(job.program, job.nodes, &format!("job {j}: "))?;
            for &n in job.nodes {
                if n >= nodes || std::mem::replace(&mut used[n as usize], true) {
                    return Err(Error::Invalid(format!(
                        "job {j}: node {n} is outside the machine or already used by another job"
                    )));
                }
            }
            rank_node.extend_from_slice(job.nodes);
        }
        let drivers = jobs.iter().map(|j| Ranks::new(j.program)).collect();
        let starts = jobs.iter().map(|j| j.start).collect();
        let driver = Jobs::new(drivers, starts);
        let mut run = self.run(&rank_node, progress, None);
        run.counters = counters;
        let (mut outcome, driver) = drive(self.network(), driver, run)?;
        let mut latency = MessageLatency::default();
        for job in &driver.jobs {
            let stats = job.stats();
            outcome.messages -= stats.control_messages;
            latency.merge(&stats.latency);
        }
        take_latency(&mut outcome, &latency);
        let completed = driver
            .completed_at
            .iter()
            .map(|c| c.unwrap_or(outcome.completion_cycles))
            .collect();
        Ok((outcome, completed))
    }
}

/// The rank interpreters of every job, with their global rank ranges and start cycles.
struct Jobs<'p> {
    jobs: Vec<Ranks<'p>>,
    base: Vec<u32>,
    start: Vec<u64>,
    open: Vec<u64>,
    completed_at: Vec<Option<u64>>,
    scratch: Vec<Step>,
}

impl<'p> Jobs<'p> {
    /// `jobs[j]` starts at cycle `start[j]`.
    fn new(jobs: Vec<Ranks<'p>>, start: Vec<u64>) -> Self {
        let mut base = vec![0u32];
        for j in &jobs {
            base.push(base[base.len() - 1] + j.count());
        }
        let n = jobs.len();
        Jobs {
            jobs,
            base,
            start,
            open: vec![0; n],
            completed_at: vec![None; n],
            scratch: Vec::new(),
        }
    }

    fn total_ranks(&self) -> u32 {
        self.base[self.jobs.len()]
    }

    fn job_of(&self, global: u32) -> usize {
        self.base.partition_point(|&b| b <= global) - 1
    }

    /// Forwards the steps job `j` left in `scratch` with global rank ids.
    fn forward(&mut self, now: u64, j: usize, out: &mut Vec<Step>) {
        let base = self.base[j];
        for step in self.scratch.drain(..) {
            out.push(match step {
                Step::Send {
                    from,
                    to,
                    bytes,
                    token,
                    note,
                } => {
                    self.open[j] += 1;
                    Step::Send {
                        from: from + base,
                        to: to + base,
                        bytes,
                        token,
                        note,
                    }
                }
                Step::Sleep { rank, cycles } => Step::Sleep {
                    rank: rank + base,
                    cycles,
                },
            });
        }
        self.check_completion(now, j);
    }

    fn check_completion(&mut self, now: u64, j: usize) {
        if self.completed_at[j].is_none()
            && self.open[j] == 0
            && self.jobs[j].finished() == self.jobs[j].count()
        {
            self.completed_at[j] = Some(now);
        }
    }

    fn launch(&mut self, now: u64, j: usize, out: &mut Vec<Step>) {
        for rank in 0..self.jobs[j].count() {
            self.jobs[j].begin(now, rank, &mut self.scratch);
        }
        self.forward(now, j, out);
    }
}

impl Driver for Jobs<'_> {
    fn start(&mut self, out: &mut Vec<Step>) {
        for j in 0..self.jobs.len() {
            match self.start[j] {
                0 => self.launch(0, j, out),
                cycles => out.push(Step::Sleep {
                    rank: self.total_ranks() + j as u32,
                    cycles,
                }),
            }
        }
    }

    fn consumed(&mut self, now: u64, msg: &Consumed, out: &mut Vec<Step>) {
        let j = self.job_of(msg.to);
        let base = self.base[j];
        self.open[j] -= 1;
        let local = Consumed {
            from: msg.from - base,
            to: msg.to - base,
            ..*msg
        };
        self.jobs[j].consumed(now, &local, &mut self.scratch);
        self.forward(now, j, out);
    }

    fn wake(&mut self, now: u64, who: u32, out: &mut Vec<Step>) {
        if who >= self.total_ranks() {
            self.launch(now, (who - self.total_ranks()) as usize, out);
        } else {
            let j = self.job_of(who);
            self.jobs[j].wake(now, who - self.base[j], &mut self.scratch);
            self.forward(now, j, out);
        }
    }

    fn complete(&self) -> bool {
        self.completed_at.iter().all(Option::is_some)
    }

    fn blocked(&self) -> Vec<(u32, u32, u64)> {
        self.jobs
            .iter()
            .zip(&self.base)
            .flat_map(|(job, &base)| job.blocked().map(move |(r, s, t)| (r + base, s + base, t)))
            .collect()
    }
}
