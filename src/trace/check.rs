//! `netreplay trace check FILE` (alias `stats`): what a trace holds and whether it can complete.
//!
//! It counts ranks, messages, bytes and computation, summarises the communication matrix (distinct
//! pairs, the heaviest pair, and messages by rank distance |src - dst| in powers of two, which shows
//! how much locality a placement could exploit), and checks that every send has its receive (by
//! source, destination and tag, as MPI matches) and every non-blocking request is waited on.

use crate::error::{Error, Result};
use crate::program::{Op, Program};
use ahash::AHashMap;
use serde::Serialize;

/// Smallest, mean and largest of a per-rank quantity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    /// Smallest.
    pub min: u64,
    /// Mean.
    pub mean: f64,
    /// Largest.
    pub max: u64,
}

/// The summary and checks of one trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceCheck {
    /// Ranks.
    pub ranks: u32,
    /// Point-to-point messages (collectives expanded).
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Bytes sent per rank.
    pub bytes_sent_per_rank: Spread,
    /// Computation steps and their total cycles.
    pub computations: u64,
    /// Total computation, in cycles.
    pub compute_cycles: u64,
    /// Distinct (source, destination) pairs that exchange messages.
    pub pairs: u64,
    /// The pair carrying the most bytes: (source, destination, bytes).
    pub heaviest_pair: Option<(u32, u32, u64)>,
    /// Messages by rank distance: (`1`, `2-3`, `4-7`, ...) and count.
    pub distance_histogram: Vec<(String, u64)>,
    /// Sends no receive matches.
    pub unmatched_sends: u64,
    /// Receives no send matches.
    pub unmatched_receives: u64,
    /// Non-blocking requests never waited on, and waits on requests never posted.
    pub request_problems: u64,
    /// Up to five problems, described.
    pub problems: Vec<String>,
    /// True when the trace can complete: every send has its receive and every wait its request. A
    /// request never waited on is listed among the problems but does not stop a replay (its message
    /// is delivered; MPI programs free or test such requests), so it leaves this true.
    pub ok: bool,
    /// The trace's MPI calls by kind and communicator, before collectives become messages (when the
    /// program was read from a trace now, not from its cache).
    pub calls: Option<crate::program::CallStats>,
    /// What the trace's format leaves out that bears on this trace (a SimGrid trace with
    /// collectives: no communicators recorded).
    pub notes: Vec<String>,
    /// The jobs of a merged multi-job GOAL schedule (`--jobs`, or its groups of ranks exchanging
    /// messages when there are several); empty for one job.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<super::jobs::JobSummary>,
}

/// `total + value`, or an error naming `what` and the value when the sum passes 2^64 - 1.
fn add(total: &mut u64, value: u64, what: &str) -> Result<()> {
    *total = total.checked_add(value).ok_or_else(|| {
        Error::Invalid(format!(
            "{what} overflows 64 bits: adding {value} to {total} passes {}",
            u64::MAX
        ))
    })?;
    Ok(())
}

/// A matching tag for problem lines: `tag 5`, or `of collective #2 on communicator 0` (whose
/// messages some member never takes part in).
fn tag_text(tag: u64) -> String {
    let what = crate::mpi::describe_tag(tag);
    if what.starts_with("collective") {
        format!("of {what}")
    } else {
        what
    }
}

/// Summarises and checks `program`; totals too large for 64 bits are an error naming the value.
pub fn check(program: &Program) -> Result<TraceCheck> {
    let n = program.ranks();
    let mut balance: AHashMap<(u32, u32, u64), i64> = AHashMap::new();
    let mut pair_bytes: AHashMap<(u32, u32), u64> = AHashMap::new();
    let mut per_rank = vec![0u64; n as usize];
    let mut histogram: Vec<u64> = Vec::new();
    let (mut messages, mut bytes) = (0u64, 0u64);
    // What `run` refuses whatever the network: messages past the size limit, ranks computing past
    // the clock's limit. Listed first, so that the problems kept show them.
    let mut past_limits = Vec::new();
    let mut oversized: Option<(u64, u32, u32, u64)> = None;
    for (from, to, b, tag) in program.sends() {
        messages += 1;
        if b > crate::program::MAX_MESSAGE_BYTES {
            let (count, ..) = oversized.get_or_insert((0, from, to, b));
            *count += 1;
        }
        add(&mut bytes, b, "the total of message bytes")?;
        add(&mut per_rank[from as usize], b, "the bytes a rank sends")?;
        *balance.entry((from, to, tag)).or_default() += 1;
        add(
            pair_bytes.entry((from, to)).or_default(),
            b,
            "the bytes between two ranks",
        )?;
        let bucket = from.abs_diff(to).max(1).ilog2() as usize;
        if histogram.len() <= bucket {
            histogram.resize(bucket + 1, 0);
        }
        histogram[bucket] += 1;
    }
    // Receives of any source (matched in arrival order at replay) take, per destination and tag,
    // sends no specific receive matches, lowest source first.
    let mut any: std::collections::BTreeMap<(u32, u64), i64> = Default::default();
    for (from, to, tag) in program.recvs() {
        if from == crate::program::ANY_SOURCE {
            *any.entry((to, tag)).or_default() += 1;
        } else {
            *balance.entry((from, to, tag)).or_default() -= 1;
        }
    }
    for ((to, tag), mut wanted) in any {
        let mut senders: Vec<u32> = balance
            .iter()
            .filter(|(k, v)| k.1 == to && k.2 == tag && **v > 0)
            .map(|(k, _)| k.0)
            .collect();
        senders.sort_unstable();
        for from in senders {
            let left = balance.get_mut(&(from, to, tag)).expect("listed");
            let taken = wanted.min(*left);
            (*left, wanted) = (*left - taken, wanted - taken);
        }
        if wanted > 0 {
            *balance
                .entry((crate::program::ANY_SOURCE, to, tag))
                .or_default() -= wanted;
        }
    }
    if let Some((count, from, to, b)) = oversized {
        past_limits.push(format!(
            "{count} message(s) pass the {} bytes (1 TiB) a message may carry, the first {b} bytes \
             from rank {from} to rank {to}: run refuses them",
            crate::program::MAX_MESSAGE_BYTES
        ));
    }
    let mut problems = Vec::new();
    let (mut unmatched_sends, mut unmatched_receives) = (0u64, 0u64);
    let mut keys: Vec<_> = balance.iter().filter(|(_, v)| **v != 0).collect();
    keys.sort();
    for (&(from, to, tag), &v) in keys {
        if v > 0 {
            unmatched_sends += v as u64;
            problems.push(format!(
                "{v} send(s) from rank {from} to rank {to} {} have no receive",
                tag_text(tag)
            ));
        } else {
            unmatched_receives += (-v) as u64;
            let source = if from == crate::program::ANY_SOURCE {
                "any source".to_string()
            } else {
                format!("rank {from}")
            };
            problems.push(format!(
                "{} receive(s) at rank {to} from {source} {} have no send",
                -v,
                tag_text(tag)
            ));
        }
    }
    let (mut computations, mut compute_cycles, mut request_problems) = (0u64, 0u64, 0u64);
    let mut bad_waits = 0u64;
    for r in 0..n {
        let mut outstanding: Vec<u32> = Vec::new();
        // Requests an unrecorded waitany lists: one of them completed there (which, the replay
        // decides), so waiting on them later, or never, is fine.
        let (mut any_of, mut listing) = (Vec::new(), 0u32);
        let mut rank_cycles = 0u128;
        for op in program.rank_ops(r) {
            if let (Op::Wait { req }, 1..) = (*op, listing) {
                listing -= 1;
                if let Some(i) = outstanding.iter().position(|&q| q == req) {
                    any_of.push(outstanding.swap_remove(i));
                }
                continue;
            }
            match *op {
                Op::Compute { cycles } => {
                    computations += 1;
                    add(&mut compute_cycles, cycles, "the total of compute cycles")?;
                    rank_cycles += u128::from(cycles);
                }
                Op::Isend { req, .. }
                | Op::Issend { req, .. }
                | Op::Irecv { req, .. }
                | Op::Schedule { req, .. } => outstanding.push(req),
                Op::Wait { req } => match outstanding.iter().position(|&q| q == req) {
                    Some(i) => {
                        outstanding.swap_remove(i);
                    }
                    None if any_of.contains(&req) => any_of.retain(|&q| q != req),
                    None => {
                        request_problems += 1;
                        bad_waits += 1;
                        problems.push(format!(
                            "rank {r} waits on request {req}, which is not outstanding"
                        ));
                    }
                },
                Op::WaitAll => outstanding.clear(),
                Op::WaitAny { len } => listing = len,
                Op::Send { .. } | Op::Recv { .. } => {}
            }
        }
        if rank_cycles > u128::from(crate::network::MAX_CYCLE) {
            past_limits.push(format!(
                "rank {r} computes for {rank_cycles} cycles in all, past the simulator's limit of \
                 {} cycles: run refuses it",
                crate::network::MAX_CYCLE
            ));
        }
        if !outstanding.is_empty() {
            request_problems += outstanding.len() as u64;
            problems.push(format!(
                "rank {r} never waits on request(s) {outstanding:?}"
            ));
        }
    }
    let ok =
        unmatched_sends == 0 && unmatched_receives == 0 && bad_waits == 0 && past_limits.is_empty();
    problems.splice(0..0, past_limits);
    problems.truncate(5);
    let mean = if n > 0 {
        per_rank.iter().map(|&b| b as f64).sum::<f64>() / f64::from(n)
    } else {
        0.0
    };
    let heaviest_pair = pair_bytes
        .iter()
        .max_by_key(|(k, v)| (**v, std::cmp::Reverse(**k)))
        .map(|(&(a, b), &v)| (a, b, v));
    Ok(TraceCheck {
        ranks: n,
        messages,
        bytes,
        bytes_sent_per_rank: Spread {
            min: per_rank.iter().copied().min().unwrap_or(0),
            mean,
            max: per_rank.iter().copied().max().unwrap_or(0),
        },
        computations,
        compute_cycles,
        pairs: pair_bytes.len() as u64,
        heaviest_pair,
        distance_histogram: histogram
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let lo = 1u64 << i;
                let label = if i == 0 {
                    "1".to_string()
                } else {
                    format!("{lo}-{}", 2 * lo - 1)
                };
                (label, c)
            })
            .collect(),
        unmatched_sends,
        unmatched_receives,
        request_problems,
        problems,
        ok,
        calls: program.call_stats().cloned(),
        notes: Vec::new(),
        jobs: Vec::new(),
    })
}

/// `trace check FILE`: reads the trace at `path` without the cache (a check leaves nothing behind,
/// and the MPI call counts come from the reader) and checks it, adding its format's note on
/// collectives when it has any, and the jobs of a merged GOAL schedule: those `jobs` gives, else
/// its groups of ranks exchanging messages when there are several.
pub fn check_file(
    path: &std::path::Path,
    opts: &super::ReadOptions,
    jobs: Option<&super::jobs::Split>,
) -> Result<TraceCheck> {
    use crate::program::Generator;
    let file = path.display().to_string();
    let location = super::cache::Location::Off;
    let wl = super::TraceWorkload::open_with(&file, opts, &location, String::new())?;
    let program = wl.generate(wl.ranks().unwrap_or(0))?;
    let mut c = check(&program)?;
    let format = match opts.format {
        Some(f) => f,
        None => super::Format::detect(path)?,
    };
    let collectives = program
        .call_stats()
        .is_some_and(|s| !s.collectives_by_kind().is_empty());
    if let Some(note) = format.descriptor().collectives_note.filter(|_| collectives) {
        c.notes.push(note.to_string());
    }
    c.notes.extend(program.notes().iter().cloned());
    let groups = match jobs {
        Some(split) => super::jobs::of_trace(&program, format, &file, split)?,
        None if format == super::Format::GOAL => super::jobs::connected(&program),
        None => Vec::new(),
    };
    if jobs.is_none() && groups.len() > 1 {
        c.notes.push(format!(
            "its ranks form {} groups that exchange no messages with one another, as the jobs of \
             a schedule merged by ATLAHS's merge_goals.py do: `jobs=connected` (or jobs=MERGE.json) \
             replays them as jobs",
            groups.len()
        ));
    }
    if jobs.is_some() || groups.len() > 1 {
        c.jobs = super::jobs::summaries(&program, &groups);
    }
    Ok(c)
}

impl TraceCheck {
    /// An error naming `file` and the first problem when the trace cannot complete as written:
    /// `trace check` exits with it, and a run refuses such a trace with it before simulating.
    pub fn require_ok(&self, file: &str) -> Result<()> {
        if self.ok {
            return Ok(());
        }
        Err(Error::Invalid(format!(
            "{file}: the trace cannot complete as written ({}); `netreplay trace check {file}` \
             lists the problems",
            self.problems.first().map_or("", String::as_str)
        )))
    }
}

/// Aligned text of a check.
pub fn text(c: &TraceCheck) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    let _ = writeln!(t, "ranks              {}", c.ranks);
    let _ = writeln!(t, "messages           {} ({} bytes)", c.messages, c.bytes);
    let s = &c.bytes_sent_per_rank;
    let _ = writeln!(
        t,
        "bytes sent / rank  min {}, mean {:.1}, max {}",
        s.min, s.mean, s.max
    );
    let _ = writeln!(
        t,
        "computation        {} steps, {} cycles",
        c.computations, c.compute_cycles
    );
    let _ = writeln!(t, "pairs              {}", c.pairs);
    if let Some((a, b, v)) = c.heaviest_pair {
        let _ = writeln!(t, "heaviest pair      {a} -> {b} ({v} bytes)");
    }
    let _ = writeln!(t, "messages by |src - dst|:");
    for (label, count) in &c.distance_histogram {
        let _ = writeln!(t, "  {label:>15}  {count}");
    }
    let _ = writeln!(
        t,
        "check              {}",
        if c.ok && c.request_problems == 0 {
            "every send has its receive and every request is waited on".to_string()
        } else if c.ok {
            format!(
                "every send has its receive; {} request(s) never waited on (their messages are \
                 still delivered)",
                c.request_problems
            )
        } else {
            format!(
                "{} unmatched sends, {} unmatched receives, {} request problems",
                c.unmatched_sends, c.unmatched_receives, c.request_problems
            )
        }
    );
    for p in &c.problems {
        let _ = writeln!(t, "  {p}");
    }
    for n in &c.notes {
        let _ = writeln!(t, "note               {n}");
    }
    for (j, s) in c.jobs.iter().enumerate() {
        let _ = writeln!(
            t,
            "job {j:<14} ranks {}: {} ranks, {} messages ({} bytes)",
            s.ranks, s.rank_count, s.messages, s.bytes
        );
    }
    if let Some(calls) = &c.calls {
        t.push_str(&calls.text());
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_butterfly_is_complete_and_its_distances_are_powers_of_two() {
        let p = crate::workload::build("bu:size=100")
            .unwrap()
            .generator
            .generate(16)
            .unwrap();
        let c = check(&p).unwrap();
        assert!(c.ok, "{:?}", c.problems);
        assert_eq!((c.messages, c.bytes, c.pairs), (64, 6400, 64));
        let counts: Vec<u64> = c.distance_histogram.iter().map(|h| h.1).collect();
        assert_eq!(counts, [16, 16, 16, 16]);
    }

    #[test]
    fn unmatched_and_unwaited_are_reported() {
        let p = Program::from_fn(3, |r, ops| match r {
            0 => ops.push(Op::Send {
                to: 1,
                bytes: 8,
                tag: 3,
            }),
            1 => ops.push(Op::Irecv {
                from: 2,
                tag: 0,
                req: 7,
            }),
            _ => ops.push(Op::Wait { req: 1 }),
        });
        let c = check(&p).unwrap();
        assert!(!c.ok);
        assert_eq!(
            (c.unmatched_sends, c.unmatched_receives, c.request_problems),
            (1, 1, 2)
        );
        assert!(
            c.problems
                .iter()
                .any(|p| p.contains("rank 1 never waits on request(s) [7]"))
        );
    }

    /// The compute and byte totals are checked, never wrapped (u64::MAX + 10 must not sum to 9).
    #[test]
    fn p2_trace_check_sums_are_checked() {
        let p = Program::from_fn(2, |r, ops| {
            if r == 0 {
                ops.push(Op::Compute { cycles: u64::MAX });
                ops.push(Op::Compute { cycles: 10 });
            }
        });
        let e = check(&p).unwrap_err().to_string();
        assert!(
            e.contains("compute cycles") && e.contains("18446744073709551615"),
            "{e}"
        );
        let p = Program::from_fn(2, |r, ops| match r {
            0 => {
                for _ in 0..2 {
                    ops.push(Op::Send {
                        to: 1,
                        bytes: u64::MAX / 2 + 1,
                        tag: 0,
                    });
                }
            }
            _ => {
                for _ in 0..2 {
                    ops.push(Op::Recv { from: 0, tag: 0 });
                }
            }
        });
        assert!(check(&p).unwrap_err().to_string().contains("message bytes"));
    }
}
