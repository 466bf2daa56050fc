//! SimGrid actions to MPI calls: one [`Line`] of tokens at a time, each action decoded by
//! [`Reader::action`] and pushed to the MPI layer's [`Builder`]; datatype sizes and time conversions.

use super::Units;
use super::datatypes::datatype_size;
use crate::error::Result;
use crate::mpi::call::{Call, Collective, SendMode, Source, TagSel, WORLD};
use crate::mpi::collectives::Algorithms;
use crate::mpi::{Builder, Pos};
use crate::program::ANY_SOURCE;

/// One line's tokens with their 1-based columns.
pub(crate) struct Line<'a> {
    pub(crate) tokens: Vec<(usize, &'a str)>,
    end: usize,
}

impl<'a> Line<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut tokens = Vec::new();
        let mut start = None;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            match (c == ' ' || c == '\t', start) {
                (true, Some(s)) => {
                    tokens.push((text[..s].chars().count() + 1, &text[s..i]));
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        Line {
            tokens,
            end: text.chars().count() + 1,
        }
    }

    pub(crate) fn get(&self, i: usize, what: &str) -> Result<(usize, &'a str), (usize, String)> {
        self.tokens
            .get(i)
            .copied()
            .ok_or_else(|| (self.end, format!("expected {what}, found end of line")))
    }

    pub(crate) fn has(&self, i: usize) -> bool {
        i < self.tokens.len()
    }

    /// A number, possibly written as a double.
    pub(crate) fn number(&self, i: usize, what: &str) -> Result<f64, (usize, String)> {
        let (col, t) = self.get(i, what)?;
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err((col, format!("expected {what} (a number), found `{t}`"))),
        }
    }

    /// A whole number in `min..=max` (doubles with no fraction accepted).
    pub(crate) fn integer(
        &self,
        i: usize,
        what: &str,
        min: i64,
        max: i64,
    ) -> Result<i64, (usize, String)> {
        let v = self.number(i, what)?;
        let col = self.tokens[i].0;
        if v.fract() != 0.0 || v < min as f64 || v > max as f64 {
            return Err((col, format!("{what} {v} out of range {min}..={max}")));
        }
        Ok(v as i64)
    }

    /// An element count, rounded to a whole number; negative counts and counts past [`MAX_BYTES`]
    /// are refused (they used to become 0, or 1e18 bytes that never finish replaying).
    fn count(&self, i: usize, what: &str) -> Result<u64, (usize, String)> {
        let v = self.number(i, what)?;
        let (col, t) = self.tokens[i];
        if v < 0.0 {
            return Err((col, format!("{what} `{t}` is negative")));
        }
        if v.round() > MAX_BYTES as f64 {
            return Err((
                col,
                format!("{what} `{t}` is more than the {MAX_BYTES} bytes a message may carry"),
            ));
        }
        Ok(v.round() as u64)
    }

    /// `count` elements of `dt` bytes, refused past [`MAX_BYTES`] (the count is token `i`).
    fn bytes(&self, i: usize, count: u64, dt: u64) -> Result<u64, (usize, String)> {
        count
            .checked_mul(dt)
            .filter(|&b| b <= MAX_BYTES)
            .ok_or_else(|| {
                (
                    self.tokens[i].0,
                    format!(
                        "{count} elements of {dt} bytes is more than the {MAX_BYTES} bytes a \
                         message may carry"
                    ),
                )
            })
    }
}

/// Per-rank replay state.
#[derive(Default)]
struct Rank {
    /// Bytes of the default datatype (1 for MPI_BYTE, 8 after `init` with an argument).
    default_dt: u64,
    next_req: u32,
    /// Outstanding requests: (source, destination, tag) and handle, oldest first.
    reqs: Vec<((u32, u32, u64), u32)>,
}

/// What the reader knows while reading.
pub(super) struct Reader {
    ranks: Vec<Rank>,
    pub(super) builder: Builder,
    /// The file being read and the line, where calls are pushed.
    pub(super) pos: Pos,
    units: Units,
}

pub(super) type LineError = (usize, String);

impl Reader {
    fn n(&self) -> u32 {
        self.ranks.len() as u32
    }

    fn rank_arg(&self, line: &Line, i: usize, what: &str) -> Result<u32, LineError> {
        let n = i64::from(self.n());
        let (col, t) = line.get(i, what)?;
        let v = line.integer(i, what, i64::MIN / 2, i64::MAX / 2)?;
        if !(0..n).contains(&v) {
            let hint = if v < 0 {
                " (MPI_ANY_SOURCE: SimGrid's time-independent traces record no actual source)"
            } else {
                ""
            };
            return Err((col, format!("{what} `{t}` out of range 0..{n}{hint}")));
        }
        Ok(v as u32)
    }

    /// A source rank, or `-333` (what SimGrid's tracer writes for MPI_ANY_SOURCE: MPI_UNDEFINED,
    /// the world rank of "any") as [`ANY_SOURCE`], left to the replay to match in arrival order.
    fn source_arg(&self, line: &Line, i: usize, what: &str) -> Result<u32, LineError> {
        if line.get(i, what)?.1 == "-333" {
            return Ok(ANY_SOURCE);
        }
        self.rank_arg(line, i, what)
    }

    fn datatype(&self, line: &Line, i: usize, me: u32) -> Result<u64, LineError> {
        if !line.has(i) {
            return Ok(self.ranks[me as usize].default_dt);
        }
        let (col, t) = line.get(i, "a datatype id")?;
        let id = line.integer(i, "a datatype id", -(1 << 20), 1 << 20)?;
        datatype_size(id)
            .or_else(|| self.units.derived.get(id))
            .ok_or_else(|| {
                (
                    col,
                    format!(
                        "datatype id `{t}` is not one of SimGrid's predefined types 0..=59: a \
                         derived datatype, whose size the trace does not give; give it with the \
                         trace option dtsize={t}:BYTES"
                    ),
                )
            })
    }

    /// Cycles of `flops` (token `i` of `line`): negative amounts and amounts past the simulator's
    /// limit are refused.
    fn cycles(&self, line: &Line, i: usize, flops: f64) -> Result<u64, LineError> {
        let cycles = (flops / self.units.flops_per_cycle).round();
        time_cycles(line, i, flops, cycles, "flops")
    }

    fn counts(&self, line: &Line, from: usize, dt: u64, what: &str) -> Result<Vec<u64>, LineError> {
        (from..from + self.n() as usize)
            .map(|i| line.bytes(i, line.count(i, what)?, dt))
            .collect()
    }

    fn push(&mut self, me: u32, call: Call) {
        self.builder.push(me, call, self.pos);
    }

    /// Pushes collective `op` and the computation of the `flops` at token `at` of `line` (0 when
    /// the action has none).
    fn collective(
        &mut self,
        me: u32,
        op: Collective,
        line: &Line,
        at: Option<usize>,
    ) -> Result<(), LineError> {
        let cycles = match at {
            Some(i) => {
                let flops = line.number(i, "a number of flops")?;
                self.cycles(line, i, flops)?
            }
            None => 0,
        };
        self.push(
            me,
            Call::Collective {
                comm: WORLD,
                op,
                req: None,
            },
        );
        if cycles > 0 {
            self.push(me, Call::Compute { cycles });
        }
        Ok(())
    }

    fn root(&self, line: &Line, i: usize) -> Result<u32, LineError> {
        if line.has(i) {
            self.rank_arg(line, i, "a root rank")
        } else {
            Ok(0)
        }
    }

    /// Replays one action line of rank `me` (the line's rank token already taken).
    pub(super) fn action(&mut self, line: &Line, me: u32) -> Result<(), LineError> {
        let (col, name) = line.get(1, "an action")?;
        let n = self.n();
        let nn = n as usize;
        // The count is token `at`, its datatype token `dt_at`.
        let bytes = |r: &Self, at: usize, count: u64, dt_at: usize| -> Result<u64, LineError> {
            line.bytes(at, count, r.datatype(line, dt_at, me)?)
        };
        if let Some(&(c, t)) = arity(name, nn).and_then(|max| line.tokens.get(max)) {
            return Err((
                c,
                format!("expected end of line after the arguments of `{name}`, found `{t}`"),
            ));
        }
        match name {
            "init" => self.ranks[me as usize].default_dt = if line.has(2) { 8 } else { 1 },
            "finalize" | "comm_size" | "comm_split" | "comm_dup" | "location" => {}
            "send" | "isend" | "recv" | "irecv" | "Ssend" | "ISsend" => {
                let partner = if name.ends_with("recv") {
                    self.source_arg(line, 2, "a partner rank")?
                } else {
                    self.rank_arg(line, 2, "a partner rank")?
                };
                let (tcol, t) = line.get(3, "a tag")?;
                let tag = line.integer(3, "a tag", i64::MIN / 2, i64::MAX / 2)?;
                if !(0..1i64 << 31).contains(&tag) {
                    return Err((
                        tcol,
                        format!(
                            "tag `{t}` out of range 0..2^31 (MPI_ANY_TAG: SimGrid's time-independent \
                             traces record no actual tag)"
                        ),
                    ));
                }
                let tag = tag as u64;
                let count = line.count(4, "a size")?;
                let bytes = bytes(self, 4, count, 5)?;
                let req = if matches!(name, "isend" | "irecv" | "ISsend") {
                    let rank = &mut self.ranks[me as usize];
                    let req = rank.next_req;
                    rank.next_req = rank.next_req.wrapping_add(1) % (u32::MAX - 2);
                    let key = if name.ends_with("send") {
                        (me, partner, tag)
                    } else {
                        (partner, me, tag)
                    };
                    rank.reqs.push((key, req));
                    Some(req)
                } else {
                    None
                };
                let call = if name.ends_with("send") {
                    Call::Send {
                        comm: WORLD,
                        dest: partner,
                        tag,
                        bytes,
                        mode: if name.ends_with("Ssend") {
                            SendMode::Synchronous
                        } else {
                            SendMode::Standard
                        },
                        req,
                    }
                } else {
                    Call::Recv {
                        comm: WORLD,
                        source: source(partner),
                        tag: TagSel::Tag(tag),
                        req,
                        status: None,
                    }
                };
                self.push(me, call);
            }
            "sendRecv" => {
                let send_count = line.count(2, "a send size")?;
                let dest = self.rank_arg(line, 3, "a destination rank")?;
                line.count(4, "a receive size")?;
                let src = self.source_arg(line, 5, "a source rank")?;
                let bytes = bytes(self, 2, send_count, 6)?;
                self.push(
                    me,
                    Call::Sendrecv {
                        comm: WORLD,
                        dest,
                        send_tag: 0,
                        bytes,
                        source: source(src),
                        recv_tag: TagSel::Tag(0),
                        status: None,
                    },
                );
            }
            "test" | "wait" => {
                let src = self.source_arg(line, 2, "a source rank")?;
                let dst = self.rank_arg(line, 3, "a destination rank")?;
                let tag = line.integer(4, "a tag", i64::MIN / 2, i64::MAX / 2)?;
                if name == "wait" {
                    let rank = &mut self.ranks[me as usize];
                    let key = (src, dst, tag.clamp(0, i64::from(u32::MAX)) as u64);
                    if let Some(i) = rank.reqs.iter().position(|(k, _)| *k == key) {
                        let (_, req) = rank.reqs.remove(i);
                        self.push(me, Call::Wait { req, status: None });
                    }
                }
            }
            // MPI_Waitany: the trace records neither the requests nor which completed, so no list
            // to take the first completion of: the rank's oldest outstanding request completes.
            "waitAny" => {
                let rank = &mut self.ranks[me as usize];
                if !rank.reqs.is_empty() {
                    let (_, req) = rank.reqs.remove(0);
                    self.push(me, Call::Wait { req, status: None });
                }
            }
            // MPI_Testall, MPI_Testany, MPI_Testsome: no outcome recorded, so, like `test`, no
            // request completes here; a later wait (or the end) finds them.
            "testall" | "testany" | "testsome" => {}
            "waitall" => {
                let rank = &mut self.ranks[me as usize];
                if !rank.reqs.is_empty() {
                    let reqs = rank.reqs.drain(..).map(|(_, r)| r).collect();
                    self.push(me, Call::WaitAll { reqs: Some(reqs) });
                }
            }
            "barrier" => self.collective(me, Collective::Barrier, line, None)?,
            "bcast" => {
                let count = line.count(2, "a size")?;
                let root = self.root(line, 3)?;
                let bytes = bytes(self, 2, count, 4)?;
                self.collective(me, Collective::Bcast { root, bytes }, line, None)?;
            }
            "reduce" => {
                let count = line.count(2, "a size")?;
                let root = self.root(line, 4)?;
                let bytes = bytes(self, 2, count, 5)?;
                self.collective(me, Collective::Reduce { root, bytes }, line, Some(3))?;
            }
            "allreduce" => {
                let count = line.count(2, "a size")?;
                let bytes = bytes(self, 2, count, 4)?;
                self.collective(me, Collective::Allreduce { bytes }, line, Some(3))?;
            }
            "alltoall" | "allgather" => {
                let count = line.count(2, "a send size")?;
                line.count(3, "a receive size")?;
                let bytes = bytes(self, 2, count, 4)?;
                let op = if name == "alltoall" {
                    Collective::Alltoall { bytes }
                } else {
                    Collective::Allgather { bytes }
                };
                self.collective(me, op, line, None)?;
            }
            "gather" | "scatter" => {
                let count = line.count(2, "a send size")?;
                line.count(3, "a receive size")?;
                let root = self.root(line, 4)?;
                let bytes = bytes(self, 2, count, 5)?;
                let op = if name == "gather" {
                    Collective::Gather { root, bytes }
                } else {
                    Collective::Scatter { root, bytes }
                };
                self.collective(me, op, line, None)?;
            }
            "gatherv" => {
                let count = line.count(2, "a send size")?;
                let root = self.root(line, 3 + nn)?;
                let dt2 = self.datatype(line, 5 + nn, me)?;
                self.counts(line, 3, dt2, "a receive count")?;
                let bytes = bytes(self, 2, count, 4 + nn)?;
                self.collective(me, Collective::Gatherv { root, bytes }, line, None)?;
            }
            "allgatherv" => {
                line.count(2, "a send size")?;
                // SimGrid's GatherVArgParser: after the counts, more than n tokens are a datatype
                // and displacements, 3..=n tokens are displacements only, 1 or 2 start with a datatype.
                let after = line.tokens.len().saturating_sub(3 + nn);
                let dt = match after {
                    0 => self.ranks[me as usize].default_dt,
                    a if a > nn || a <= 2 => self.datatype(line, 3 + nn, me)?,
                    _ => self.ranks[me as usize].default_dt,
                };
                let counts = self.counts(line, 3, dt, "a receive count")?;
                self.collective(me, Collective::Allgatherv { counts }, line, None)?;
            }
            "scatterv" => {
                line.count(2 + nn, "a receive size")?;
                let root = self.root(line, 3 + nn)?;
                let dt = self.datatype(line, 4 + nn, me)?;
                let counts = self.counts(line, 2, dt, "a send count")?;
                self.collective(me, Collective::Scatterv { root, counts }, line, None)?;
            }
            "reducescatter" => {
                let dt = self.datatype(line, 3 + nn, me)?;
                let counts = self.counts(line, 2, dt, "a receive count")?;
                self.collective(me, Collective::ReduceScatter { counts }, line, Some(2 + nn))?;
            }
            "alltoallv" => {
                line.count(2, "a send buffer size")?;
                line.count(3 + nn, "a receive buffer size")?;
                self.counts(line, 4 + nn, 1, "a receive count")?;
                let dt = if line.has(5 + 2 * nn) {
                    self.datatype(line, 4 + 2 * nn, me)?
                } else {
                    self.ranks[me as usize].default_dt
                };
                let send = self.counts(line, 3, dt, "a send count")?;
                self.collective(me, Collective::Alltoallv { send }, line, None)?;
            }
            "scan" | "exscan" => {
                let count = line.count(2, "a size")?;
                let bytes = bytes(self, 2, count, 4)?;
                let op = if name == "scan" {
                    Collective::Scan { bytes }
                } else {
                    Collective::Exscan { bytes }
                };
                self.collective(me, op, line, line.has(3).then_some(3))?;
            }
            "compute" => {
                let flops = line.number(2, "a number of flops")?;
                let cycles = self.cycles(line, 2, flops)?;
                self.push(me, Call::Compute { cycles });
            }
            "sleep" => {
                let s = line.number(2, "a duration in seconds")?;
                let cycles = (s * self.units.cycles_per_second).round();
                let cycles = time_cycles(line, 2, s, cycles, "seconds")?;
                self.push(me, Call::Compute { cycles });
            }
            other => {
                return Err((
                    col,
                    format!("unsupported action `{other}`: it is not a SimGrid 3.32 replay action"),
                ));
            }
        }
        Ok(())
    }
}

/// The source of a receive: a rank, or any source matched at replay time.
fn source(rank: u32) -> Source {
    if rank == ANY_SOURCE {
        Source::Arrival
    } else {
        Source::Rank(rank)
    }
}

/// The most tokens (rank and action name included) a line of action `name` may have in a trace of
/// `n` ranks: its arguments and optional datatype ids as SimGrid's parsers read them (`waitall` may
/// carry the request count SimGrid's tracer writes). `None` where
/// SimGrid ignores what follows (the no-op actions, `allgatherv`'s displacements) and for unknown
/// actions (refused by name).
fn arity(name: &str, n: usize) -> Option<usize> {
    Some(match name {
        "barrier" => 2,
        "init" | "compute" | "sleep" | "waitall" | "waitAny" | "testall" | "testany"
        | "testsome" => 3,
        "test" | "wait" | "bcast" | "allreduce" | "scan" | "exscan" => 5,
        "send" | "isend" | "recv" | "irecv" | "Ssend" | "ISsend" | "reduce" | "alltoall"
        | "allgather" => 6,
        "gather" | "scatter" => 7,
        "sendRecv" => 8,
        "reducescatter" => 4 + n,
        "gatherv" | "scatterv" => 6 + n,
        "alltoallv" => 6 + 2 * n,
        _ => return None,
    })
}

/// The most bytes one message may carry (1 TiB): more is refused at the reader rather than replayed
/// for years.
pub const MAX_BYTES: u64 = crate::program::MAX_MESSAGE_BYTES;

/// `cycles` (computed from `amount` of `unit`, token `i` of `line`) as a whole number, refused when
/// negative or past [`crate::network::MAX_CYCLE`].
fn time_cycles(
    line: &Line,
    i: usize,
    amount: f64,
    cycles: f64,
    unit: &str,
) -> Result<u64, LineError> {
    let (col, t) = line.tokens[i];
    if amount < 0.0 {
        return Err((col, format!("{t} {unit} is negative")));
    }
    if cycles > crate::network::MAX_CYCLE as f64 {
        return Err((
            col,
            format!(
                "{t} {unit} is {cycles:e} cycles, past the simulator's limit of {} cycles",
                crate::network::MAX_CYCLE
            ),
        ));
    }
    Ok(cycles as u64)
}

impl Reader {
    pub(super) fn new(ranks: usize, algorithms: &Algorithms, units: Units) -> Result<Reader> {
        let builder = Builder::new(u32::try_from(ranks).unwrap_or(u32::MAX), algorithms)?;
        Ok(Reader {
            ranks: (0..ranks)
                .map(|_| Rank {
                    default_dt: 1,
                    ..Rank::default()
                })
                .collect(),
            builder,
            pos: Pos { file: 0, at: 0 },
            units,
        })
    }
}
