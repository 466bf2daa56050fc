//! The replay timeline: the simulated execution in the Chrome trace-event JSON format, which Perfetto
//! (ui.perfetto.dev) and chrome://tracing open.
//!
//! Layout: process 1 "ranks" has one track (thread) per rank shown, tid = rank + 1, named `rank R
//! (node N)`; its slices are `compute`, `self-copy`, `wait recv` (args `from`, `tag`, `context`),
//! `wait send` (args `to`, ...) and `waitall` as complete (`X`) events, collective calls the trace
//! made as `B`/`E` slices enclosing them, sends as instant events (args `to`, `bytes`, `tag`,
//! `context`), and an instant `end` where the rank finished. Counter tracks (`C`) of process 1 give the
//! mean number of ranks computing and blocked per time bin (all ranks, shown or not); process 2
//! "network" has one counter track per link class, its mean busy percentage per bin.
//!
//! Time: `ts` and `dur` are in the format's microseconds, and 1 µs stands for 1 simulated cycle (the
//! file's `otherData.time_unit` says so). Events are streamed to disk as the runtime reports them,
//! through a buffered writer into a temporary file renamed at the end; per track, they come in time
//! order. Size is bounded: above [`MAX_TRACKS`] ranks only every k-th rank gets a track (the counters
//! still cover all), and after [`MAX_EVENTS`] rank events the detail stops (open collective slices are
//! closed there); `otherData` records both (`rank_stride`, `truncated_at_cycle`). Process 3 "critical
//! path" holds the critical path's listed steps (computations and messages, with their zero-load and
//! contention cycles), written at the end when the path is known.

use crate::mpi::critical_path::CriticalPath;
use crate::mpi::observe::{Activity, RankObserver};
use crate::network::load_bins::LinkLoadSeries;
use std::io::{self, Write};

/// Most rank tracks written in detail.
pub const MAX_TRACKS: u32 = 256;

/// Most rank events (slices and instants) written before the detail stops.
pub const MAX_EVENTS: u64 = 1_000_000;

/// Bins of the ranks' computing/blocked counters (at most; they double in width as the run grows).
const STATE_BINS: usize = 200;

/// What the timeline says about its run.
#[derive(Debug, Clone)]
pub struct TimelineMeta {
    /// Canonical topology spec.
    pub topology: String,
    /// Canonical workload spec.
    pub workload: String,
    /// Node of each rank.
    pub rank_node: Vec<u32>,
    /// Whether the program knows its collective calls (traces read now, not from a cache).
    pub collectives_known: bool,
    /// Most rank tracks in detail ([`MAX_TRACKS`] from `run`).
    pub max_tracks: u32,
    /// Most rank events before the detail stops ([`MAX_EVENTS`] from `run`).
    pub max_events: u64,
}

/// Rank-cycles computing and blocked per bin, in bins that double in width as the run grows.
#[derive(Debug)]
struct StateBins {
    width: u64,
    rows: [Vec<u64>; 2],
}

impl StateBins {
    fn add(&mut self, row: usize, start: u64, end: u64) {
        while end > self.width.saturating_mul(STATE_BINS as u64) {
            for r in &mut self.rows {
                for i in 0..STATE_BINS {
                    r[i] = if 2 * i + 1 < STATE_BINS {
                        r[2 * i] + r[2 * i + 1]
                    } else {
                        0
                    };
                }
            }
            self.width *= 2;
        }
        let mut t = start;
        while t < end {
            let bin = (t / self.width) as usize;
            let n = end.min((bin as u64 + 1) * self.width) - t;
            self.rows[row][bin.min(STATE_BINS - 1)] += n;
            t += n;
        }
    }
}

/// Streams a timeline into `out` (see the module notes); an I/O error stops the writing and is
/// returned by [`TimelineWriter::finish`].
#[derive(Debug)]
pub struct TimelineWriter<W: Write> {
    out: W,
    stride: u32,
    ranks: u32,
    events: u64,
    max_events: u64,
    truncated_at: Option<u64>,
    open_region: Vec<bool>,
    states: StateBins,
    error: Option<io::Error>,
    collectives_known: bool,
    topology: String,
    workload: String,
}

fn esc(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

impl<W: Write> TimelineWriter<W> {
    /// Starts the file: the header and the tracks' names.
    pub fn new(mut out: W, meta: &TimelineMeta) -> io::Result<Self> {
        let ranks = meta.rank_node.len() as u32;
        let stride = ranks.div_ceil(meta.max_tracks.max(1)).max(1);
        out.write_all(b"{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n")?;
        writeln!(
            out,
            r#"{{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{{"name":"ranks"}}}},"#
        )?;
        writeln!(
            out,
            r#"{{"ph":"M","pid":2,"tid":0,"name":"process_name","args":{{"name":"network: link load per class"}}}},"#
        )?;
        for r in (0..ranks).step_by(stride as usize) {
            writeln!(
                out,
                r#"{{"ph":"M","pid":1,"tid":{},"name":"thread_name","args":{{"name":"rank {r} (node {})"}}}},"#,
                r + 1,
                meta.rank_node[r as usize]
            )?;
            writeln!(
                out,
                r#"{{"ph":"M","pid":1,"tid":{},"name":"thread_sort_index","args":{{"sort_index":{r}}}}},"#,
                r + 1
            )?;
        }
        Ok(TimelineWriter {
            out,
            stride,
            ranks,
            events: 0,
            max_events: meta.max_events,
            truncated_at: None,
            open_region: vec![false; ranks as usize],
            states: StateBins {
                width: 1,
                rows: [vec![0; STATE_BINS], vec![0; STATE_BINS]],
            },
            error: None,
            collectives_known: meta.collectives_known,
            topology: meta.topology.clone(),
            workload: meta.workload.clone(),
        })
    }

    /// Whether `rank`'s events go to the file now (shown, not truncated, no error).
    fn shown(&mut self, rank: u32, at: u64) -> bool {
        if !rank.is_multiple_of(self.stride) || self.error.is_some() {
            return false;
        }
        if self.truncated_at.is_some() {
            return false;
        }
        if self.events >= self.max_events {
            self.truncated_at = Some(at);
            // Close the open collective slices so every B has its E.
            for r in 0..self.ranks {
                if self.open_region[r as usize] {
                    self.open_region[r as usize] = false;
                    let line = format!(
                        r#"{{"ph":"E","pid":1,"tid":{},"ts":{at},"name":"(truncated)"}},"#,
                        r + 1
                    );
                    self.emit(&line);
                }
            }
            return false;
        }
        self.events += 1;
        true
    }

    fn emit(&mut self, line: &str) {
        if self.error.is_none()
            && let Err(e) = writeln!(self.out, "{line}")
        {
            self.error = Some(e);
        }
    }

    /// Ends the file: counter tracks (ranks' states, link load per class from `load`), the critical
    /// path's listed steps as a track of their own (process 3), the metadata, and a flush. Returns
    /// the writer.
    pub fn finish(
        mut self,
        completion: u64,
        load: Option<&LinkLoadSeries>,
        critical: Option<&CriticalPath>,
    ) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(c) = critical {
            writeln!(
                self.out,
                r#"{{"ph":"M","pid":3,"tid":0,"name":"process_name","args":{{"name":"critical path"}}}},"#
            )?;
            writeln!(
                self.out,
                r#"{{"ph":"M","pid":3,"tid":1,"name":"thread_name","args":{{"name":"critical path (last {} of {} steps)"}}}},"#,
                c.steps.len(),
                c.steps_total
            )?;
            for st in &c.steps {
                let (name, args) = match st.from {
                    Some(from) => (
                        format!("message {from} -> {}", st.rank),
                        format!(
                            r#"{{"from":{from},"to":{},"packets":{},"zero_load":{},"contention":{}}}"#,
                            st.rank,
                            st.packets.unwrap_or(0),
                            st.zero_load.unwrap_or(0),
                            st.contention.unwrap_or(0)
                        ),
                    ),
                    None => (
                        format!("compute on rank {}", st.rank),
                        format!(r#"{{"rank":{}}}"#, st.rank),
                    ),
                };
                writeln!(
                    self.out,
                    r#"{{"ph":"X","pid":3,"tid":1,"ts":{},"dur":{},"name":"{name}","cat":"{}","args":{args}}},"#,
                    st.start,
                    st.end - st.start,
                    st.kind
                )?;
            }
        }
        let w = self.states.width;
        let bins = (completion.div_ceil(w) as usize).clamp(1, STATE_BINS);
        for b in 0..bins {
            let ts = b as u64 * w;
            let computing = self.states.rows[0][b] as f64 / w as f64;
            let blocked = self.states.rows[1][b] as f64 / w as f64;
            writeln!(
                self.out,
                r#"{{"ph":"C","pid":1,"tid":0,"ts":{ts},"name":"ranks computing / blocked (mean)","args":{{"computing":{computing:.3},"blocked":{blocked:.3}}}}},"#
            )?;
        }
        if let Some(l) = load {
            for c in &l.classes {
                for (b, u) in c.utilisation.iter().enumerate() {
                    writeln!(
                        self.out,
                        r#"{{"ph":"C","pid":2,"tid":0,"ts":{},"name":{},"args":{{"busy %":{:.2}}}}},"#,
                        b as u64 * l.bin_cycles,
                        esc(&c.class),
                        100.0 * u
                    )?;
                }
            }
        }
        // The last event carries no trailing comma.
        writeln!(
            self.out,
            r#"{{"ph":"i","s":"g","pid":1,"tid":0,"ts":{completion},"name":"run complete"}}"#
        )?;
        let other = serde_json::json!({
            "generator": "netreplay",
            "time_unit": "1 trace microsecond = 1 simulated cycle",
            "topology": self.topology,
            "workload": self.workload,
            "completion_cycles": completion,
            "ranks": self.ranks,
            "ranks_shown": self.ranks.div_ceil(self.stride),
            "rank_stride": self.stride,
            "rank_events": self.events,
            "truncated_at_cycle": self.truncated_at,
            "max_rank_events": self.max_events,
            "state_bin_cycles": w,
            "link_load_bin_cycles": load.map(|l| l.bin_cycles),
            "collectives": if self.collectives_known {
                "B/E slices from the trace's MPI calls"
            } else {
                "none known (generated workloads make no MPI calls)"
            },
        });
        writeln!(self.out, "],\n\"otherData\":{other}}}")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> RankObserver for TimelineWriter<W> {
    fn interval(&mut self, rank: u32, start: u64, end: u64, what: Activity) {
        self.states.add(usize::from(what.blocked()), start, end);
        if !self.shown(rank, end) {
            return;
        }
        let args = match what {
            Activity::Compute | Activity::SelfCopy => String::new(),
            Activity::Recv { from, tag } => format!(
                r#","args":{{"from":{from},"tag":{},"context":{}}}"#,
                tag & 0xFFFF_FFFF,
                tag >> 32
            ),
            Activity::Send { to, tag } => format!(
                r#","args":{{"to":{to},"tag":{},"context":{}}}"#,
                tag & 0xFFFF_FFFF,
                tag >> 32
            ),
            Activity::WaitAll { requests } => format!(r#","args":{{"requests":{requests}}}"#),
        };
        let line = format!(
            r#"{{"ph":"X","pid":1,"tid":{},"ts":{start},"dur":{},"name":"{}","cat":"{}"{args}}},"#,
            rank + 1,
            end - start,
            what.name(),
            if what.blocked() { "wait" } else { "compute" }
        );
        self.emit(&line);
    }

    fn send(&mut self, rank: u32, at: u64, to: u32, bytes: u64, tag: u64) {
        if !self.shown(rank, at) {
            return;
        }
        let line = format!(
            r#"{{"ph":"i","s":"t","pid":1,"tid":{},"ts":{at},"name":"send","cat":"send","args":{{"to":{to},"bytes":{bytes},"tag":{},"context":{}}}}},"#,
            rank + 1,
            tag & 0xFFFF_FFFF,
            tag >> 32
        );
        self.emit(&line);
    }

    fn region(&mut self, rank: u32, at: u64, name: Option<&'static str>) {
        let open = self.open_region[rank as usize];
        // A slice left open by truncation was already closed; an end without its begin is skipped.
        if (name.is_none() && !open) || !self.shown(rank, at) {
            return;
        }
        let line = match name {
            Some(n) => {
                self.open_region[rank as usize] = true;
                format!(
                    r#"{{"ph":"B","pid":1,"tid":{},"ts":{at},"name":"{n}","cat":"collective"}},"#,
                    rank + 1
                )
            }
            None => {
                self.open_region[rank as usize] = false;
                format!(
                    r#"{{"ph":"E","pid":1,"tid":{},"ts":{at},"name":"end"}},"#,
                    rank + 1
                )
            }
        };
        self.emit(&line);
    }

    fn finished(&mut self, rank: u32, at: u64) {
        if !self.shown(rank, at) {
            return;
        }
        let line = format!(
            r#"{{"ph":"i","s":"t","pid":1,"tid":{},"ts":{at},"name":"end","cat":"end"}},"#,
            rank + 1
        );
        self.emit(&line);
    }
}
