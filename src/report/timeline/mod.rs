//! The replay timeline: the simulated execution in the Chrome trace-event JSON format, which Perfetto
//! (ui.perfetto.dev), chrome://tracing and speedscope open.
//!
//! Layout: process 1 "ranks" has one track (thread) per rank shown, tid = rank + 1, named `rank R
//! (node N)`; its slices are `compute`, `self-copy`, `wait recv` (args `from`, `tag`, `context`),
//! `wait send` (args `to`, ...) and `waitall`, collective calls the trace made as slices enclosing
//! them, and an instant `end` where the rank finished. Every slice is a `B`/`E` pair whose `E` has
//! the name of its `B`. Point-to-point messages have arrows (flow events `s` and `f`, bound to the
//! enclosing slice) from a zero-length `send` slice (args `to`, `bytes`, `tag`, `context`) to a
//! zero-length `recv` slice where the receive got its data, for the first [`MAX_FLOWS`] messages;
//! later sends (and a collective's own messages) are `send` instants. Counter tracks (`C`) of
//! process 1 give the mean number of ranks computing and blocked per time bin (all ranks, shown or
//! not); process 2 "network" has one counter track per link class, its mean busy percentage per bin.
//!
//! Time: `ts` is in the format's microseconds of simulated time at the model's clock (a trace's
//! `cycles_per_second`, else 1 GHz: one cycle is 0.001 µs), printed exactly (`flows.rs`), and
//! `displayTimeUnit` is `ns`. Slices are `B`/`E` pairs rather than `X` events because a start plus a
//! duration in fractional microseconds need not add up, in a viewer's floating point, to the next
//! slice's start, which would nest one slice in its neighbour. Events are streamed to disk as the
//! runtime reports them, through a buffered writer into a temporary file renamed at the end; per
//! track, they come in time order. Size is bounded: above [`MAX_TRACKS`] ranks only every k-th rank
//! gets a track (the counters still cover all), and after [`MAX_EVENTS`] rank events the detail stops
//! (open collective slices are closed there); `otherData` records both (`rank_stride`,
//! `truncated_at_cycle`). Process 3 "critical path" holds the critical path's listed steps
//! (computations and messages, with their zero-load and contention cycles), written at the end when
//! the path is known.

mod flows;

use crate::mpi::critical_path::CriticalPath;
use crate::mpi::observe::{Activity, RankObserver};
use crate::network::load_bins::LinkLoadSeries;
use flows::Flows;
pub use flows::{Clock, MAX_FLOWS};
use std::io::{self, Write};

/// Most rank tracks written in detail.
pub const MAX_TRACKS: u32 = 256;

/// Most rank events (slices and instants; a send or receive with its arrow counts one) written
/// before the detail stops.
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
    /// Most send-to-receive arrows ([`MAX_FLOWS`] from `run`).
    pub max_flows: u64,
    /// Simulated cycles per second: a trace's `cycles_per_second`, else 1e9.
    pub cycles_per_second: f64,
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
    /// The collective slice each rank is inside, if any.
    open_region: Vec<Option<&'static str>>,
    flows: Flows,
    /// Per rank: (cycle, arrow id) of its drawn sends, held until the slice that follows them.
    sends: Vec<Vec<(u64, u64)>>,
    clock: Clock,
    cycles_per_second: f64,
    states: StateBins,
    error: Option<io::Error>,
    collectives_known: bool,
    topology: String,
    workload: String,
}

fn esc(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

/// What surrounds a slice's arguments: nothing when there are none.
fn braces(args: &str) -> (&'static str, &'static str) {
    if args.is_empty() {
        ("", "")
    } else {
        (r#","args":{"#, "}")
    }
}

/// The matching tag's parts as slice arguments.
fn tag_args(tag: u64) -> String {
    format!(r#""tag":{},"context":{}"#, tag & 0xFFFF_FFFF, tag >> 32)
}

impl<W: Write> TimelineWriter<W> {
    /// Starts the file: the header and the tracks' names.
    pub fn new(mut out: W, meta: &TimelineMeta) -> io::Result<Self> {
        let ranks = meta.rank_node.len() as u32;
        let stride = ranks.div_ceil(meta.max_tracks.max(1)).max(1);
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
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
            open_region: vec![None; ranks as usize],
            flows: Flows::new(ranks, meta.max_flows),
            sends: vec![Vec::new(); ranks as usize],
            clock: Clock::new(meta.cycles_per_second),
            cycles_per_second: meta.cycles_per_second,
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

    /// Whether `rank` has a track.
    fn has_track(&self, rank: u32) -> bool {
        rank.is_multiple_of(self.stride)
    }

    /// Whether `rank`'s events go to the file now (shown, not truncated, no error).
    fn shown(&mut self, rank: u32, at: u64) -> bool {
        if !self.has_track(rank) || self.error.is_some() || self.truncated_at.is_some() {
            return false;
        }
        if self.events >= self.max_events {
            self.truncated_at = Some(at);
            self.flows.drop_pending();
            self.sends.iter_mut().for_each(Vec::clear);
            // Close the open collective slices so every B has its E.
            for r in 0..self.ranks {
                if let Some(name) = self.open_region[r as usize].take() {
                    self.end_slice(r, at, name, "");
                }
            }
            return false;
        }
        self.events += 1;
        true
    }

    fn emit(&mut self, line: std::fmt::Arguments) {
        if self.error.is_none()
            && let Err(e) = self.out.write_fmt(format_args!("{line}\n"))
        {
            self.error = Some(e);
        }
    }

    /// A slice's `B` on `rank`'s track; `args` is the inside of its JSON object, or empty.
    fn begin_slice(&mut self, rank: u32, at: u64, name: &str, cat: &str, args: &str) {
        let ts = self.clock.us(at);
        let (open, close) = braces(args);
        self.emit(format_args!(
            r#"{{"ph":"B","pid":1,"tid":{},"ts":{ts},"name":"{name}","cat":"{cat}"{open}{args}{close}}},"#,
            rank + 1
        ));
    }

    /// The `E` of the slice `name` on `rank`'s track, with the same `args` as its `B`: viewers that
    /// match an `E` to its `B` by name and arguments (speedscope) then find the pair.
    fn end_slice(&mut self, rank: u32, at: u64, name: &str, args: &str) {
        let ts = self.clock.us(at);
        let (open, close) = braces(args);
        self.emit(format_args!(
            r#"{{"ph":"E","pid":1,"tid":{},"ts":{ts},"name":"{name}"{open}{args}{close}}},"#,
            rank + 1
        ));
    }

    /// One end of arrow `id` at cycle `at` on `rank`'s track: `s` (a send) or `f` (a receive),
    /// bound to the slice that encloses it.
    fn arrow_end(&mut self, rank: u32, at: u64, ph: char, id: u64) {
        let ts = self.clock.us(at);
        let bind = if ph == 'f' { r#","bp":"e""# } else { "" };
        self.emit(format_args!(
            r#"{{"ph":"{ph}","id":{id},"pid":1,"tid":{},"ts":{ts},"name":"message","cat":"message"{bind}}},"#,
            rank + 1
        ));
    }

    /// Writes `rank`'s held arrow ends from cycle `from` on: its sends, then its receives due by
    /// cycle `upto` (none before `from`, where the enclosing slice begins).
    fn arrow_ends(&mut self, rank: u32, from: u64, upto: u64) {
        for (at, id) in std::mem::take(&mut self.sends[rank as usize]) {
            self.arrow_end(rank, at.max(from), 's', id);
        }
        while let Some((at, id)) = self.flows.due(rank, upto) {
            self.arrow_end(rank, at.max(from), 'f', id);
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
        let clock = self.clock;
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
                    r#"{{"ph":"B","pid":3,"tid":1,"ts":{},"name":"{name}","cat":"{}","args":{args}}},"#,
                    clock.us(st.start),
                    st.kind
                )?;
                writeln!(
                    self.out,
                    r#"{{"ph":"E","pid":3,"tid":1,"ts":{},"name":"{name}","args":{args}}},"#,
                    clock.us(st.end),
                )?;
            }
        }
        let w = self.states.width;
        let bins = (completion.div_ceil(w) as usize).clamp(1, STATE_BINS);
        for b in 0..bins {
            let ts = clock.us(b as u64 * w);
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
                        clock.us(b as u64 * l.bin_cycles),
                        esc(&c.class),
                        100.0 * u
                    )?;
                }
            }
        }
        // The last event carries no trailing comma.
        writeln!(
            self.out,
            r#"{{"ph":"i","s":"g","pid":1,"tid":0,"ts":{},"name":"run complete"}}"#,
            clock.us(completion)
        )?;
        let other = serde_json::json!({
            "generator": "netreplay",
            "time_unit": format!(
                "ts in microseconds of simulated time at {} cycles per second",
                self.cycles_per_second
            ),
            "cycles_per_second": self.cycles_per_second,
            "flows": self.flows.started(),
            "max_flows": self.flows.max(),
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
                "slices from the trace's MPI calls"
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
        // A zero-length slice is left out: it takes no time, and viewers that order a track's
        // events by time alone (speedscope) cannot tell where one that shares its time with
        // another slice's begin belongs.
        if end == start || !self.has_track(rank) || !self.shown(rank, end) {
            return;
        }
        let args = match what {
            Activity::Compute | Activity::SelfCopy => String::new(),
            Activity::Recv { from, tag } => format!(r#""from":{from},{}"#, tag_args(tag)),
            Activity::Send { to, tag } => format!(r#""to":{to},{}"#, tag_args(tag)),
            Activity::WaitAll { requests } => format!(r#""requests":{requests}"#),
        };
        let cat = if what.blocked() { "wait" } else { "compute" };
        self.begin_slice(rank, start, what.name(), cat, &args);
        // The sends made just before it and the receives during it (not at its end: those go to
        // the next slice) are drawn from and to this slice.
        self.arrow_ends(rank, start, end - 1);
        self.end_slice(rank, end, what.name(), &args);
    }

    fn send(&mut self, rank: u32, at: u64, to: u32, bytes: u64, tag: u64) {
        let draw = to != rank
            && self.has_track(rank)
            && self.has_track(to)
            && self.open_region[rank as usize].is_none()
            && self.truncated_at.is_none();
        if to != rank
            && let Some(id) = self.flows.sent(rank, to, tag, draw)
        {
            self.sends[rank as usize].push((at, id));
        }
        if !self.shown(rank, at) {
            return;
        }
        let ts = self.clock.us(at);
        self.emit(format_args!(
            r#"{{"ph":"i","s":"t","pid":1,"tid":{},"ts":{ts},"name":"send","cat":"send","args":{{"to":{to},"bytes":{bytes},{}}}}},"#,
            rank + 1,
            tag_args(tag)
        ));
    }

    fn received(&mut self, rank: u32, at: u64, from: u32, tag: u64) {
        if from != rank && self.truncated_at.is_none() {
            self.flows.received(rank, at, from, tag);
        }
    }

    fn region(&mut self, rank: u32, at: u64, name: Option<&'static str>) {
        let open = self.open_region[rank as usize];
        // A slice left open by truncation was already closed; an end without its begin is skipped.
        if (name.is_none() && open.is_none()) || !self.shown(rank, at) {
            return;
        }
        self.open_region[rank as usize] = name;
        match (name, open) {
            (Some(n), _) => self.begin_slice(rank, at, n, "collective", ""),
            (None, Some(n)) => self.end_slice(rank, at, n, ""),
            (None, None) => {}
        }
    }

    fn finished(&mut self, rank: u32, at: u64) {
        if !self.shown(rank, at) {
            return;
        }
        // Arrow ends after the rank's last slice (sends or receives just before it ends) get a
        // slice of their own, up to the end: nothing follows it on the track.
        let send = self.sends[rank as usize].first().map(|s| s.0);
        let first = send.into_iter().chain(self.flows.next_due(rank)).min();
        if let Some(first) = first {
            self.begin_slice(rank, first, "last messages", "message", "");
            self.arrow_ends(rank, first, at);
            self.end_slice(rank, at, "last messages", "");
        }
        let ts = self.clock.us(at);
        self.emit(format_args!(
            r#"{{"ph":"i","s":"t","pid":1,"tid":{},"ts":{ts},"name":"end","cat":"end"}},"#,
            rank + 1
        ));
    }
}
