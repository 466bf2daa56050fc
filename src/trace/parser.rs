//! The streaming reader of the native trace format (`traces/FORMAT.md`, version 1).
//!
//! Input comes line by line from any `BufRead` (a plain file, or a zstd stream decoded on the fly), so a
//! trace is never held in memory as text: each line is parsed with nom into a header, the `ranks` line
//! or one event, and events are appended to their rank's list of ops as they come. Every problem is an
//! [`Error::File`] with the path, the 1-based line and the column of the offending token, saying what
//! was expected and what was found.

use super::collectives::{self, Algorithms, Collective};
use crate::error::{Error, Result};
use crate::workload::{Op, Program};
use ahash::AHashSet;
use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::{tag, take_till1},
    character::complete::{digit1, space0},
    combinator::{all_consuming, value},
    sequence::preceded,
};
use std::io::{BufRead, Read};

/// The format name written on the header line.
pub const MAGIC: &str = "netreplay-trace";

/// The format version the writer emits; the reader accepts every version from 1 up to it (version 1
/// lacks the non-blocking and collective events).
pub const VERSION: u32 = 2;

/// Longest accepted line in bytes: far above any valid event, so a binary file fed by mistake is
/// refused on its first line instead of being read whole.
const MAX_LINE: usize = 4096;

/// Largest rank count a trace may declare (the simulator's node limit).
const MAX_RANKS: u64 = crate::topology::MAX_NODES;

/// A problem on the current line: 1-based column and message.
type LineError = (usize, String);

/// The event keywords; [`Kind::min_version`] says which format version introduced each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Send,
    Recv,
    Compute,
    Isend,
    Irecv,
    Wait,
    WaitAll,
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Gather,
    Allgather,
    Alltoall,
    Scatter,
}

impl Kind {
    fn min_version(self) -> u32 {
        match self {
            Kind::Send | Kind::Recv | Kind::Compute => 1,
            _ => 2,
        }
    }
}

/// What the reader expects where an event keyword goes.
const EXPECTED_EVENT: &str = "an event (`send`, `recv`, `compute`, `isend`, `irecv`, `wait`, `waitall`, \
                              `barrier`, `bcast`, `reduce`, `allreduce`, `gather`, `allgather`, \
                              `alltoall`, `scatter`)";

/// One field: skips blanks, then takes everything up to the next blank.
fn field(i: &str) -> IResult<&str, &str> {
    preceded(space0, take_till1(|c: char| c == ' ' || c == '\t')).parse(i)
}

/// An event keyword, the whole field.
fn kind(i: &str) -> IResult<&str, Kind> {
    all_consuming(alt((
        alt((
            value(Kind::Send, tag("send")),
            value(Kind::Recv, tag("recv")),
            value(Kind::Compute, tag("compute")),
            value(Kind::Isend, tag("isend")),
            value(Kind::Irecv, tag("irecv")),
            value(Kind::WaitAll, tag("waitall")),
            value(Kind::Wait, tag("wait")),
        )),
        alt((
            value(Kind::Barrier, tag("barrier")),
            value(Kind::Bcast, tag("bcast")),
            value(Kind::Reduce, tag("reduce")),
            value(Kind::Allreduce, tag("allreduce")),
            value(Kind::Gather, tag("gather")),
            value(Kind::Allgather, tag("allgather")),
            value(Kind::Alltoall, tag("alltoall")),
            value(Kind::Scatter, tag("scatter")),
        )),
    )))
    .parse(i)
}

/// A whole field of decimal digits.
fn digits(i: &str) -> IResult<&str, &str> {
    all_consuming(digit1).parse(i)
}

/// The fields of one line (comment and line end removed), with the columns the reader reports.
struct Fields<'a> {
    line: &'a str,
    rest: &'a str,
}

impl<'a> Fields<'a> {
    fn new(line: &'a str) -> Self {
        Fields { line, rest: line }
    }

    /// 1-based column (in characters) of byte offset `at` of the line.
    fn column_at(&self, at: usize) -> usize {
        self.line[..at].chars().count() + 1
    }

    /// Column just after the last field read (where a missing field was expected).
    fn end_column(&self) -> usize {
        let trimmed = self.line.trim_end_matches([' ', '\t']);
        self.column_at(trimmed.len().min(self.line.len() - self.rest.len()))
    }

    /// The next field and its column, or `None` at the end of the line.
    fn next(&mut self) -> Option<(usize, &'a str)> {
        let (rest, f) = field(self.rest).ok()?;
        let at = self.line.len() - rest.len() - f.len();
        self.rest = rest;
        Some((self.column_at(at), f))
    }

    /// The next field, or an error saying `what` was expected at the end of the line.
    fn expect(&mut self, what: &str) -> Result<(usize, &'a str), LineError> {
        let end = self.end_column();
        self.next()
            .ok_or_else(|| (end, format!("expected {what}, found end of line")))
    }

    /// The next field as a number no larger than `max`.
    fn number(&mut self, what: &str, max: u64) -> Result<(usize, u64), LineError> {
        let (col, f) = self.expect(what)?;
        parse_number(col, f, what, max)
    }

    /// An optional trailing number (tags); `None` at the end of the line.
    fn optional_number(&mut self, what: &str, max: u64) -> Result<Option<u64>, LineError> {
        match self.next() {
            None => Ok(None),
            Some((col, f)) => parse_number(col, f, what, max).map(|(_, v)| Some(v)),
        }
    }

    /// Fails if anything but blanks is left.
    fn finish(&mut self) -> Result<(), LineError> {
        match self.next() {
            None => Ok(()),
            Some((col, f)) => Err((col, format!("expected end of line, found `{f}`"))),
        }
    }
}

fn parse_number(col: usize, f: &str, what: &str, max: u64) -> Result<(usize, u64), LineError> {
    if digits(f).is_err() {
        return Err((
            col,
            format!("expected {what} (a whole number), found `{f}`"),
        ));
    }
    match f.parse::<u64>() {
        Ok(v) if v <= max => Ok((col, v)),
        _ => Err((col, format!("{what} `{f}` is too large (at most {max})"))),
    }
}

/// A rank field checked against the trace's rank count.
fn rank(fields: &mut Fields, what: &str, ranks: u32) -> Result<(usize, u32), LineError> {
    let (col, r) = fields.number(what, u64::from(u32::MAX))?;
    if r >= u64::from(ranks) {
        return Err((col, format!("rank {r} out of range 0..{ranks}")));
    }
    Ok((col, r as u32))
}

/// A peer rank: in range and not the rank itself.
fn peer(
    fields: &mut Fields,
    what: &str,
    verb: &str,
    ranks: u32,
    me: u32,
) -> Result<u32, LineError> {
    let (col, p) = rank(fields, what, ranks)?;
    if p == me {
        return Err((
            col,
            format!("rank {me} cannot {verb} itself (self-messages are not modelled)"),
        ));
    }
    Ok(p)
}

/// Largest request handle (`u32::MAX` is the interpreter's own for blocking receives).
const MAX_REQ: u64 = u32::MAX as u64 - 1;

/// What the reader tracks per rank while reading events.
#[derive(Debug, Default, Clone)]
struct RankState {
    ops: Vec<Op>,
    /// Request handles posted and not yet waited on.
    outstanding: AHashSet<u32>,
    /// Collective calls so far (their tags).
    collectives: u64,
}

/// What the events of one trace are read against.
struct Context<'a> {
    version: u32,
    algorithms: &'a Algorithms,
}

/// A request handle that must not be outstanding yet; it becomes outstanding.
fn post_request(fields: &mut Fields, state: &mut RankState, me: u32) -> Result<u32, LineError> {
    let (col, req) = fields.number("a request handle", MAX_REQ)?;
    let req = req as u32;
    if !state.outstanding.insert(req) {
        return Err((
            col,
            format!("rank {me} reuses request {req} before waiting on it"),
        ));
    }
    Ok(req)
}

/// One event line (see `traces/FORMAT.md`); appends its ops (several for a collective) to its rank.
fn event(fields: &mut Fields, states: &mut [RankState], cx: &Context) -> Result<(), LineError> {
    let ranks = states.len() as u32;
    let (_, r) = rank(fields, "a rank", ranks)?;
    let (col, k) = fields.expect(EXPECTED_EVENT)?;
    let Ok((_, kind)) = kind(k) else {
        return Err((col, format!("expected {EXPECTED_EVENT}, found `{k}`")));
    };
    if kind.min_version() > cx.version {
        return Err((
            col,
            format!(
                "`{k}` needs format version {} (the header says {})",
                kind.min_version(),
                cx.version
            ),
        ));
    }
    let tag_max = u64::from(u32::MAX);
    let state = &mut states[r as usize];
    let collective = match kind {
        Kind::Send | Kind::Isend => {
            let to = peer(fields, "a destination rank", "send to", ranks, r)?;
            let (_, bytes) = fields.number("a size in bytes", u64::MAX)?;
            if kind == Kind::Send {
                let tag = fields.optional_number("a tag", tag_max)?.unwrap_or(0) as u32;
                state.ops.push(Op::Send { to, bytes, tag });
            } else {
                // `isend DST BYTES [TAG] REQ`: with two numbers left, the first is the tag.
                let (tag, req) = tag_then_request(fields, state, r)?;
                state.ops.push(Op::Isend {
                    to,
                    bytes,
                    tag,
                    req,
                });
            }
            None
        }
        Kind::Recv => {
            let from = peer(fields, "a source rank", "receive from", ranks, r)?;
            let tag = fields.optional_number("a tag", tag_max)?.unwrap_or(0) as u32;
            state.ops.push(Op::Recv { from, tag });
            None
        }
        Kind::Irecv => {
            let from = peer(fields, "a source rank", "receive from", ranks, r)?;
            let (tag, req) = tag_then_request(fields, state, r)?;
            state.ops.push(Op::Irecv { from, tag, req });
            None
        }
        Kind::Compute => {
            let (_, cycles) = fields.number("a number of cycles", u64::MAX)?;
            state.ops.push(Op::Compute { cycles });
            None
        }
        Kind::Wait => {
            let (col, req) = fields.number("a request handle", MAX_REQ)?;
            let req = req as u32;
            if !state.outstanding.remove(&req) {
                return Err((
                    col,
                    format!(
                        "rank {r} waits on request {req}, which it has not posted (or already waited on)"
                    ),
                ));
            }
            state.ops.push(Op::Wait { req });
            None
        }
        Kind::WaitAll => {
            state.outstanding.clear();
            state.ops.push(Op::WaitAll);
            None
        }
        Kind::Barrier => Some(Collective::Barrier),
        Kind::Allreduce | Kind::Allgather | Kind::Alltoall => {
            let (_, bytes) = fields.number("a size in bytes", u64::MAX)?;
            Some(match kind {
                Kind::Allreduce => Collective::Allreduce { bytes },
                Kind::Allgather => Collective::Allgather { bytes },
                _ => Collective::Alltoall { bytes },
            })
        }
        Kind::Bcast | Kind::Reduce | Kind::Gather | Kind::Scatter => {
            let (_, root) = rank(fields, "a root rank", ranks)?;
            let (_, bytes) = fields.number("a size in bytes", u64::MAX)?;
            Some(match kind {
                Kind::Bcast => Collective::Bcast { root, bytes },
                Kind::Reduce => Collective::Reduce { root, bytes },
                Kind::Gather => Collective::Gather { root, bytes },
                _ => Collective::Scatter { root, bytes },
            })
        }
    };
    fields.finish()?;
    if let Some(c) = collective {
        let tag = collectives::tag_for(state.collectives);
        state.collectives += 1;
        collectives::expand(c, ranks, r, tag, cx.algorithms, &mut state.ops);
    }
    Ok(())
}

/// `[TAG] REQ` at the end of an `isend`/`irecv` line: one number is the request (tag 0), two are the
/// tag then the request.
fn tag_then_request(
    fields: &mut Fields,
    state: &mut RankState,
    me: u32,
) -> Result<(u32, u32), LineError> {
    let save = fields.rest;
    fields.number("a tag or request handle", u64::from(u32::MAX))?;
    if fields.next().is_some() {
        fields.rest = save;
        let (_, tag) = fields.number("a tag", u64::from(u32::MAX))?;
        Ok((tag as u32, post_request(fields, state, me)?))
    } else {
        fields.rest = save;
        Ok((0, post_request(fields, state, me)?))
    }
}

/// Byte cursor of the fast path.
struct Cursor<'a> {
    line: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn blanks(&mut self) {
        while matches!(self.line.get(self.at), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// A whole field of 1 to 19 digits that fits in a u64, followed by a blank or the end.
    fn number(&mut self) -> Option<u64> {
        self.blanks();
        let start = self.at;
        let mut v = 0u64;
        while let Some(&d) = self.line.get(self.at) {
            if !d.is_ascii_digit() {
                break;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            self.at += 1;
        }
        let len = self.at - start;
        ((1..=19).contains(&len) && self.boundary()).then_some(v)
    }

    fn boundary(&self) -> bool {
        matches!(self.line.get(self.at), None | Some(b' ' | b'\t'))
    }

    fn word(&mut self) -> &'a [u8] {
        self.blanks();
        let start = self.at;
        while matches!(self.line.get(self.at), Some(c) if *c != b' ' && *c != b'\t') {
            self.at += 1;
        }
        &self.line[start..self.at]
    }

    /// Only blanks are left.
    fn end(&mut self) -> bool {
        self.blanks();
        self.at == self.line.len()
    }

    /// Numbers left on the line (up to 4), all valid.
    fn rest(&mut self) -> Option<([u64; 4], usize)> {
        let mut v = [0; 4];
        let mut k = 0;
        loop {
            if self.end() {
                return Some((v, k));
            }
            if k == 4 {
                return None;
            }
            v[k] = self.number()?;
            k += 1;
        }
    }
}

/// The fast path for the common event lines (`send`, `recv`, `compute`, `isend`, `irecv`, `wait`,
/// `waitall` with plain fields and no comment): appends the op and returns true, or returns false
/// without changing anything, and the general parser then reads the line (and reports any error with
/// its position). Both paths accept exactly the same lines with the same meaning.
fn fast_event(line: &[u8], states: &mut [RankState], version: u32) -> bool {
    if line.len() > MAX_LINE {
        return false;
    }
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut c = Cursor { line, at: 0 };
    let n = states.len() as u64;
    let Some(r) = c.number().filter(|&r| r < n) else {
        return false;
    };
    let peer = |p: u64| p < n && p != r;
    let tag_ok = |t: u64| t <= u64::from(u32::MAX);
    let word = c.word();
    let op = match word {
        b"send" | b"recv" | b"compute" => {
            let Some((v, k)) = c.rest() else {
                return false;
            };
            match (word, k) {
                (b"send", 2 | 3) if peer(v[0]) && (k == 2 || tag_ok(v[2])) => Op::Send {
                    to: v[0] as u32,
                    bytes: v[1],
                    tag: if k == 3 { v[2] as u32 } else { 0 },
                },
                (b"recv", 1 | 2) if peer(v[0]) && (k == 1 || tag_ok(v[1])) => Op::Recv {
                    from: v[0] as u32,
                    tag: if k == 2 { v[1] as u32 } else { 0 },
                },
                (b"compute", 1) => Op::Compute { cycles: v[0] },
                _ => return false,
            }
        }
        _ if version < 2 => return false,
        b"isend" | b"irecv" | b"wait" => {
            let Some((v, k)) = c.rest() else {
                return false;
            };
            let state = &mut states[r as usize];
            let (req, op) = match (word, k) {
                (b"isend", 3 | 4) if peer(v[0]) => {
                    let (tag, req) = if k == 4 { (v[2], v[3]) } else { (0, v[2]) };
                    if !tag_ok(tag) {
                        return false;
                    }
                    let op = Op::Isend {
                        to: v[0] as u32,
                        bytes: v[1],
                        tag: tag as u32,
                        req: req as u32,
                    };
                    (req, op)
                }
                (b"irecv", 2 | 3) if peer(v[0]) => {
                    let (tag, req) = if k == 3 { (v[1], v[2]) } else { (0, v[1]) };
                    if !tag_ok(tag) {
                        return false;
                    }
                    let op = Op::Irecv {
                        from: v[0] as u32,
                        tag: tag as u32,
                        req: req as u32,
                    };
                    (req, op)
                }
                (b"wait", 1) => (v[0], Op::Wait { req: v[0] as u32 }),
                _ => return false,
            };
            if req > MAX_REQ {
                return false;
            }
            let fresh = if matches!(op, Op::Wait { .. }) {
                state.outstanding.remove(&(req as u32))
            } else {
                state.outstanding.insert(req as u32)
            };
            if !fresh {
                return false;
            }
            state.ops.push(op);
            return true;
        }
        b"waitall" if c.end() => {
            let state = &mut states[r as usize];
            state.outstanding.clear();
            state.ops.push(Op::WaitAll);
            return true;
        }
        _ => return false,
    };
    states[r as usize].ops.push(op);
    true
}

/// Where the reader is in the file.
enum State {
    /// Before the header line.
    Header,
    /// After the header (of this version), before the `ranks` line.
    Ranks(u32),
    /// Reading events of this version: each rank's state so far.
    Events(u32, Vec<RankState>),
}

/// Parses one trace from `input`, line by line, with the default collective algorithms; `path` only
/// names the file in errors.
pub fn parse(path: &str, input: impl BufRead) -> Result<Program> {
    parse_with(path, input, &Algorithms::default())
}

/// Parses one trace from `input`, expanding collectives with `algorithms`.
pub fn parse_with(path: &str, mut input: impl BufRead, algorithms: &Algorithms) -> Result<Program> {
    let at = |line: usize, (column, message): LineError| Error::File {
        path: path.to_string(),
        line,
        column,
        message,
    };
    let mut state = State::Header;
    let mut buf = Vec::new();
    // The fast path reads whole lines from the buffer; a large one keeps per-refill overhead small.
    let mut input = std::io::BufReader::with_capacity(1 << 20, &mut input);
    let mut line_no = 0;
    loop {
        // Fast path: whole lines of common events straight from the reader's buffer, no copy.
        if let State::Events(version, per_rank) = &mut state {
            let avail = input.fill_buf().map_err(Error::io(path))?;
            let mut used = 0;
            while let Some(nl) = memchr::memchr(b'\n', &avail[used..]) {
                if !fast_event(&avail[used..used + nl + 1], per_rank, *version) {
                    break;
                }
                used += nl + 1;
                line_no += 1;
            }
            if used > 0 {
                input.consume(used);
                continue;
            }
        }
        buf.clear();
        let read = (&mut input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(Error::io(path))?;
        if read == 0 {
            break;
        }
        line_no += 1;
        if buf.last() != Some(&b'\n') && buf.len() > MAX_LINE {
            return Err(at(
                line_no,
                (
                    1,
                    format!("line longer than {MAX_LINE} bytes; is this a trace?"),
                ),
            ));
        }
        let text = std::str::from_utf8(&buf).map_err(|e| {
            let col = String::from_utf8_lossy(&buf[..e.valid_up_to()])
                .chars()
                .count()
                + 1;
            at(
                line_no,
                (col, "expected text, found a byte that is not UTF-8".into()),
            )
        })?;
        let text = text.trim_end_matches(['\n', '\r']);
        let content = text.split('#').next().unwrap_or("");
        let mut fields = Fields::new(content);
        let Some((col, first)) = fields.next() else {
            continue; // blank or comment-only line
        };
        match &mut state {
            State::Header => {
                if first != MAGIC {
                    return Err(at(
                        line_no,
                        (
                            col,
                            format!("missing header `{MAGIC} {VERSION}`, found `{first}`"),
                        ),
                    ));
                }
                let (vcol, v) = fields
                    .number("a format version", u64::from(u32::MAX))
                    .map_err(|e| at(line_no, e))?;
                if v == 0 || v > u64::from(VERSION) {
                    return Err(at(
                        line_no,
                        (
                            vcol,
                            format!(
                                "unsupported version {v} (this netreplay reads versions 1 to {VERSION})"
                            ),
                        ),
                    ));
                }
                fields.finish().map_err(|e| at(line_no, e))?;
                state = State::Ranks(v as u32);
            }
            State::Ranks(version) => {
                let version = *version;
                if first != "ranks" {
                    return Err(at(
                        line_no,
                        (
                            col,
                            format!("expected `ranks N` after the header, found `{first}`"),
                        ),
                    ));
                }
                let (ncol, n) = fields
                    .number("a rank count", u64::MAX)
                    .map_err(|e| at(line_no, e))?;
                if !(2..=MAX_RANKS).contains(&n) {
                    return Err(at(
                        line_no,
                        (ncol, format!("rank count {n} out of range 2..={MAX_RANKS}")),
                    ));
                }
                fields.finish().map_err(|e| at(line_no, e))?;
                state = State::Events(version, vec![RankState::default(); n as usize]);
            }
            State::Events(version, per_rank) => {
                let mut fields = Fields::new(content);
                let cx = Context {
                    version: *version,
                    algorithms,
                };
                event(&mut fields, per_rank, &cx).map_err(|e| at(line_no, e))?;
            }
        }
    }
    match state {
        State::Header => Err(at(
            line_no.max(1),
            (
                1,
                format!("missing header `{MAGIC} {VERSION}`: the file has no content"),
            ),
        )),
        State::Ranks(_) => Err(at(
            line_no + 1,
            (1, "missing `ranks N` line after the header".into()),
        )),
        State::Events(_, per_rank) => Ok(Program::from_rank_vecs(
            per_rank.into_iter().map(|s| s.ops).collect(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Program> {
        parse("t.trc", text.as_bytes())
    }

    /// The `line:column: message` of a trace that must be refused.
    fn error(text: &str) -> (usize, usize, String) {
        match parse_str(text) {
            Err(Error::File {
                line,
                column,
                message,
                path,
            }) => {
                assert_eq!(path, "t.trc");
                (line, column, message)
            }
            other => panic!("expected a positioned error, got {other:?}"),
        }
    }

    const HEAD: &str = "netreplay-trace 1\nranks 8\n";

    #[test]
    fn reads_events_in_per_rank_order_with_comments_and_blank_lines() {
        let p = parse_str(
            "# a comment first\n\n  netreplay-trace 1  # v1\r\nranks 3\n\
             1 recv 0\n0 send 1 4096\n\t2 compute 7 # busy\n\n0 send 2 8 5\n2 recv 0 5\n",
        )
        .unwrap();
        assert_eq!(p.ranks(), 3);
        assert_eq!(
            p.rank_ops(0),
            [
                Op::Send {
                    to: 1,
                    bytes: 4096,
                    tag: 0
                },
                Op::Send {
                    to: 2,
                    bytes: 8,
                    tag: 5
                }
            ]
        );
        assert_eq!(p.rank_ops(1), [Op::Recv { from: 0, tag: 0 }]);
        assert_eq!(
            p.rank_ops(2),
            [Op::Compute { cycles: 7 }, Op::Recv { from: 0, tag: 5 }]
        );
        // No trailing newline and no events at all are both fine.
        assert_eq!(parse_str("netreplay-trace 1\nranks 2").unwrap().ranks(), 2);
    }

    #[test]
    fn errors_name_line_column_expected_and_found() {
        let cases: &[(&str, (usize, usize, &str))] = &[
            ("", (1, 1, "missing header `netreplay-trace 2`")),
            (
                "ranks 8\n",
                (1, 1, "missing header `netreplay-trace 2`, found `ranks`"),
            ),
            ("netreplay-trace 3\n", (1, 17, "unsupported version 3")),
            ("netreplay-trace 0\n", (1, 17, "unsupported version 0")),
            (
                "netreplay-trace\n",
                (1, 16, "expected a format version, found end of line"),
            ),
            (
                "netreplay-trace 1 x\n",
                (1, 19, "expected end of line, found `x`"),
            ),
            ("netreplay-trace 1\n", (2, 1, "missing `ranks N` line")),
            (
                "netreplay-trace 1\n0 send 1 8\n",
                (2, 1, "expected `ranks N` after the header, found `0`"),
            ),
            (
                "netreplay-trace 1\nranks 1\n",
                (2, 7, "rank count 1 out of range"),
            ),
            (
                "netreplay-trace 1\nranks many\n",
                (2, 7, "expected a rank count (a whole number), found `many`"),
            ),
            (
                "netreplay-trace 1\nranks 8\n\n3 sned 1 8\n",
                (4, 3, "`alltoall`, `scatter`), found `sned`"),
            ),
            (
                "netreplay-trace 1\nranks 8\n9 send 1 8\n",
                (3, 1, "rank 9 out of range 0..8"),
            ),
            (
                "netreplay-trace 1\nranks 8\n0 send  8 8\n",
                (3, 9, "rank 8 out of range 0..8"),
            ),
            (
                "netreplay-trace 1\nranks 8\n3 send 3 8\n",
                (3, 8, "rank 3 cannot send to itself"),
            ),
            (
                "netreplay-trace 1\nranks 8\n3 recv 3\n",
                (3, 8, "rank 3 cannot receive from itself"),
            ),
            (
                "netreplay-trace 1\nranks 8\n0 send 1\n",
                (3, 9, "expected a size in bytes, found end of line"),
            ),
            (
                "netreplay-trace 1\nranks 8\n0 send 1 -5\n",
                (
                    3,
                    10,
                    "expected a size in bytes (a whole number), found `-5`",
                ),
            ),
            (
                "netreplay-trace 1\nranks 8\n0 recv 1 4294967296\n",
                (3, 10, "a tag `4294967296` is too large"),
            ),
            (
                "netreplay-trace 1\nranks 8\n0 compute 5 6\n",
                (3, 13, "expected end of line, found `6`"),
            ),
            (
                "netreplay-trace 1\nranks 8\n0\n",
                (3, 2, "`scatter`), found end of line"),
            ),
            (
                "netreplay-trace 1\nranks 8\n0 barrier\n",
                (3, 3, "`barrier` needs format version 2 (the header says 1)"),
            ),
            (
                "netreplay-trace 2\nranks 8\n0 irecv 1 5 5\n0 irecv 2 5\n",
                (4, 11, "rank 0 reuses request 5 before waiting on it"),
            ),
            (
                "netreplay-trace 2\nranks 8\n0 wait 3\n",
                (3, 8, "rank 0 waits on request 3, which it has not posted"),
            ),
            (
                "netreplay-trace 2\nranks 8\n0 isend 1 8 3\n0 wait 3\n0 wait 3\n",
                (5, 8, "already waited on"),
            ),
            (
                "netreplay-trace 2\nranks 8\n0 irecv 1\n",
                (3, 10, "expected a tag or request handle, found end of line"),
            ),
            (
                "netreplay-trace 2\nranks 8\n0 irecv 1 2 3 4\n",
                (3, 15, "expected end of line, found `4`"),
            ),
            (
                "netreplay-trace 2\nranks 8\n0 irecv 1 4294967295\n",
                (3, 11, "request handle `4294967295` is too large"),
            ),
            (
                "netreplay-trace 2\nranks 8\n0 bcast 8 64\n",
                (3, 9, "rank 8 out of range 0..8"),
            ),
            (
                "netreplay-trace 2\nranks 8\n0 allreduce\n",
                (3, 12, "expected a size in bytes, found end of line"),
            ),
            (
                "netreplay-trace 2\nranks 8\n0 barrier 1\n",
                (3, 11, "expected end of line, found `1`"),
            ),
            (
                "netreplay-trace 1\nranks 8\n0 sendx 1 8\n",
                (3, 3, "found `sendx`"),
            ),
        ];
        for (text, (line, column, needle)) in cases {
            let (l, c, m) = error(text);
            assert!(
                (l, c) == (*line, *column) && m.contains(needle),
                "{text:?}: got {l}:{c}: {m}; want {line}:{column}: {needle}"
            );
        }
        let (l, c, m) = error("netreplay-trace 1\nranks 8\n0 send 1 é\n");
        assert_eq!((l, c), (3, 10), "{m}");
    }

    #[test]
    fn non_text_and_long_lines_are_refused() {
        let (l, c, m) = error("netreplay-trace 1\nranks 2\n0 send \u{1}1");
        assert_eq!((l, c), (3, 8), "{m}");
        let mut bytes = b"netreplay-trace 1\nranks 2\n0 send 1 8 ".to_vec();
        bytes.extend([0xff, 0xfe]);
        match parse("t", &bytes[..]) {
            Err(Error::File {
                line: 3,
                column: 12,
                message,
                ..
            }) => {
                assert!(message.contains("not UTF-8"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        let long = format!(
            "netreplay-trace 1\nranks 2\n#{}\n",
            "x".repeat(MAX_LINE + 10)
        );
        let (l, _, m) = error(&long);
        assert_eq!(l, 3);
        assert!(m.contains("longer than"), "{m}");
    }

    #[test]
    fn version_2_reads_non_blocking_events_and_expands_collectives() {
        let p = parse_str(
            "netreplay-trace 2\nranks 3\n0 isend 1 64 7 0\n0 isend 2 8 1\n0 waitall\n\
             1 irecv 0 7 4\n1 irecv 2 9\n1 wait 4\n1 wait 9\n2 recv 0\n2 send 1 1\n\
             0 barrier\n1 barrier\n2 barrier\n0 bcast 0 100\n1 bcast 0 100\n2 bcast 0 100\n",
        )
        .unwrap();
        let c0 = collectives::tag_for(0);
        let c1 = collectives::tag_for(1);
        assert_eq!(
            p.rank_ops(1)[..4],
            [
                Op::Irecv {
                    from: 0,
                    tag: 7,
                    req: 4
                },
                Op::Irecv {
                    from: 2,
                    tag: 0,
                    req: 9
                },
                Op::Wait { req: 4 },
                Op::Wait { req: 9 },
            ]
        );
        // Rank 0: two isends, waitall, the 3-rank dissemination barrier (send 1, recv 2, send 2,
        // recv 1) and the binomial bcast from 0 (to 2, then to 1).
        assert_eq!(
            p.rank_ops(0),
            [
                Op::Isend {
                    to: 1,
                    bytes: 64,
                    tag: 7,
                    req: 0
                },
                Op::Isend {
                    to: 2,
                    bytes: 8,
                    tag: 0,
                    req: 1
                },
                Op::WaitAll,
                Op::Send {
                    to: 1,
                    bytes: 0,
                    tag: c0
                },
                Op::Recv { from: 2, tag: c0 },
                Op::Send {
                    to: 2,
                    bytes: 0,
                    tag: c0
                },
                Op::Recv { from: 1, tag: c0 },
                Op::Send {
                    to: 2,
                    bytes: 100,
                    tag: c1
                },
                Op::Send {
                    to: 1,
                    bytes: 100,
                    tag: c1
                },
            ]
        );
        // Version 1 files still read, and the handle of a waited request may be reused.
        assert!(parse_str("netreplay-trace 1\nranks 2\n0 send 1 8\n1 recv 0\n").is_ok());
        assert!(
            parse_str("netreplay-trace 2\nranks 2\n0 isend 1 8 3\n0 wait 3\n0 isend 1 8 3\n")
                .is_ok()
        );
    }

    /// Whatever the fast path accepts, the general path accepts with the same result.
    #[test]
    fn fast_and_general_paths_agree() {
        let words = [
            "0",
            "1",
            "2",
            "3",
            "7",
            "4294967295",
            "4294967296",
            "18446744073709551615",
            "send",
            "recv",
            "compute",
            "isend",
            "irecv",
            "wait",
            "waitall",
            " ",
            "\t",
            "#",
            "x",
        ];
        let algorithms = Algorithms::default();
        let mut rng = crate::rng::Rng::new(11);
        let mut accepted = 0;
        for _ in 0..20000 {
            let mut line = String::new();
            for _ in 0..1 + rng.below(6) {
                line.push_str(words[rng.below(words.len() as u32) as usize]);
                line.push(' ');
            }
            let mut base = vec![RankState::default(); 4];
            base[1].outstanding.insert(7);
            for version in [1, 2] {
                let mut fast = base.clone();
                if !fast_event(line.as_bytes(), &mut fast, version) {
                    continue;
                }
                accepted += 1;
                let mut slow = base.clone();
                let cx = Context {
                    version,
                    algorithms: &algorithms,
                };
                event(&mut Fields::new(&line), &mut slow, &cx)
                    .unwrap_or_else(|e| panic!("{line:?}: fast accepts, general refuses: {e:?}"));
                for (f, s) in fast.iter().zip(&slow) {
                    assert_eq!(f.ops, s.ops, "{line:?}");
                    assert_eq!(f.outstanding, s.outstanding, "{line:?}");
                }
            }
        }
        assert!(accepted > 100, "only {accepted} lines took the fast path");
    }

    /// Random bytes, random tokens and every truncation of a valid trace: errors, never a panic.
    #[test]
    fn never_panics_on_garbage_or_truncation() {
        let valid =
            format!("{HEAD}0 send 1 4096 3\n1 recv 0 3\n2 compute 100\n7 send 6 1\n6 recv 7 # x\n");
        for cut in 0..=valid.len() {
            let _ = parse_str(&valid[..cut]);
        }
        let words = [
            "netreplay-trace",
            "1",
            "2",
            "ranks",
            "8",
            "send",
            "recv",
            "compute",
            "isend",
            "irecv",
            "wait",
            "waitall",
            "bcast",
            "allreduce",
            "barrier",
            "#",
            "\n",
            " ",
            "\t",
            "99999999999999999999999",
            "-1",
            "é",
            "\r",
        ];
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..3000 {
            let len = rng.below(64) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
            let _ = parse("r", &bytes[..]);
            let mut text = String::from(HEAD);
            for _ in 0..rng.below(20) {
                text.push_str(words[rng.below(words.len() as u32) as usize]);
                text.push(' ');
            }
            let _ = parse_str(&text);
        }
    }
}
