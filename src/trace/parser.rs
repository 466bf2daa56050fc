//! The streaming reader of the native trace format (`traces/FORMAT.md`, version 1).
//!
//! Input comes line by line from any `BufRead` (a plain file, or a zstd stream decoded on the fly), so a
//! trace is never held in memory as text: each line is parsed with nom into a header, the `ranks` line
//! or one event, and events are appended to their rank's list of ops as they come. Every problem is an
//! [`Error::File`] with the path, the 1-based line and the column of the offending token, saying what
//! was expected and what was found.

use crate::error::{Error, Result};
use crate::workload::{Op, Program};
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

/// The format version this reader accepts and the writer emits.
pub const VERSION: u32 = 1;

/// Longest accepted line in bytes: far above any valid event, so a binary file fed by mistake is
/// refused on its first line instead of being read whole.
const MAX_LINE: usize = 4096;

/// Largest rank count a trace may declare (the simulator's node limit).
const MAX_RANKS: u64 = crate::topology::MAX_NODES;

/// A problem on the current line: 1-based column and message.
type LineError = (usize, String);

/// The event kinds of version 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Send,
    Recv,
    Compute,
}

/// One field: skips blanks, then takes everything up to the next blank.
fn field(i: &str) -> IResult<&str, &str> {
    preceded(space0, take_till1(|c: char| c == ' ' || c == '\t')).parse(i)
}

/// An event keyword, the whole field.
fn kind(i: &str) -> IResult<&str, Kind> {
    all_consuming(alt((
        value(Kind::Send, tag("send")),
        value(Kind::Recv, tag("recv")),
        value(Kind::Compute, tag("compute")),
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

/// One event line: `R send DST BYTES [TAG]`, `R recv SRC [TAG]` or `R compute CYCLES`.
fn event(fields: &mut Fields, ranks: u32) -> Result<(u32, Op), LineError> {
    let (_, r) = rank(fields, "a rank", ranks)?;
    let (col, k) = fields.expect("`send`, `recv` or `compute`")?;
    let op = match kind(k) {
        Ok((_, Kind::Send)) => {
            let to = peer(fields, "a destination rank", "send to", ranks, r)?;
            let (_, bytes) = fields.number("a size in bytes", u64::MAX)?;
            let tag = fields.optional_number("a tag", u64::from(u32::MAX))?;
            Op::Send {
                to,
                bytes,
                tag: tag.unwrap_or(0) as u32,
            }
        }
        Ok((_, Kind::Recv)) => {
            let from = peer(fields, "a source rank", "receive from", ranks, r)?;
            let tag = fields.optional_number("a tag", u64::from(u32::MAX))?;
            Op::Recv {
                from,
                tag: tag.unwrap_or(0) as u32,
            }
        }
        Ok((_, Kind::Compute)) => {
            let (_, cycles) = fields.number("a number of cycles", u64::MAX)?;
            Op::Compute { cycles }
        }
        Err(_) => {
            return Err((
                col,
                format!("expected `send`, `recv` or `compute`, found `{k}`"),
            ));
        }
    };
    fields.finish()?;
    Ok((r, op))
}

/// Where the reader is in the file.
enum State {
    /// Before the header line.
    Header,
    /// After the header, before the `ranks` line.
    Ranks,
    /// Reading events: each rank's ops so far.
    Events(Vec<Vec<Op>>),
}

/// Parses one trace from `input`, line by line; `path` only names the file in errors.
pub fn parse(path: &str, mut input: impl BufRead) -> Result<Program> {
    let at = |line: usize, (column, message): LineError| Error::File {
        path: path.to_string(),
        line,
        column,
        message,
    };
    let mut state = State::Header;
    let mut buf = Vec::new();
    let mut line_no = 0;
    loop {
        buf.clear();
        let read = (&mut input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|source| Error::Io {
                path: path.to_string(),
                source,
            })?;
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
                if v != u64::from(VERSION) {
                    return Err(at(
                        line_no,
                        (
                            vcol,
                            format!(
                                "unsupported version {v} (this netreplay reads version {VERSION})"
                            ),
                        ),
                    ));
                }
                fields.finish().map_err(|e| at(line_no, e))?;
                state = State::Ranks;
            }
            State::Ranks => {
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
                state = State::Events(vec![Vec::new(); n as usize]);
            }
            State::Events(per_rank) => {
                let mut fields = Fields::new(content);
                let (r, op) =
                    event(&mut fields, per_rank.len() as u32).map_err(|e| at(line_no, e))?;
                per_rank[r as usize].push(op);
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
        State::Ranks => Err(at(
            line_no + 1,
            (1, "missing `ranks N` line after the header".into()),
        )),
        State::Events(mut per_rank) => Ok(Program::from_fn(per_rank.len() as u32, |r, ops| {
            ops.append(&mut per_rank[r as usize])
        })),
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
            ("", (1, 1, "missing header `netreplay-trace 1`")),
            (
                "ranks 8\n",
                (1, 1, "missing header `netreplay-trace 1`, found `ranks`"),
            ),
            ("netreplay-trace 2\n", (1, 17, "unsupported version 2")),
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
                (4, 3, "expected `send`, `recv` or `compute`, found `sned`"),
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
                (
                    3,
                    2,
                    "expected `send`, `recv` or `compute`, found end of line",
                ),
            ),
            (
                "netreplay-trace 1\nranks 8\n0 barrier\n",
                (3, 3, "found `barrier`"),
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
