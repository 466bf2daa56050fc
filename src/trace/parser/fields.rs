//! The fields of one line of the native format, with the columns errors report.

use nom::{
    IResult, Parser,
    bytes::complete::take_till1,
    character::complete::{digit1, space0},
    combinator::all_consuming,
    sequence::preceded,
};

/// A problem on the current line: 1-based column and message.
pub(super) type LineError = (usize, String);

/// One field: skips blanks, then takes everything up to the next blank.
fn field(i: &str) -> IResult<&str, &str> {
    preceded(space0, take_till1(|c: char| c == ' ' || c == '\t')).parse(i)
}

/// A whole field of decimal digits.
fn digits(i: &str) -> IResult<&str, &str> {
    all_consuming(digit1).parse(i)
}

/// The fields of one line (comment and line end removed).
pub(super) struct Fields<'a> {
    line: &'a str,
    pub(super) rest: &'a str,
}

impl<'a> Fields<'a> {
    pub(super) fn new(line: &'a str) -> Self {
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
    pub(super) fn next(&mut self) -> Option<(usize, &'a str)> {
        let (rest, f) = field(self.rest).ok()?;
        let at = self.line.len() - rest.len() - f.len();
        self.rest = rest;
        Some((self.column_at(at), f))
    }

    /// The next field without taking it.
    pub(super) fn peek(&self) -> Option<&'a str> {
        field(self.rest).ok().map(|(_, f)| f)
    }

    /// Fields left on the line.
    pub(super) fn remaining(&self) -> usize {
        self.rest.split_ascii_whitespace().count()
    }

    /// The next field, or an error saying `what` was expected at the end of the line.
    pub(super) fn expect(&mut self, what: &str) -> Result<(usize, &'a str), LineError> {
        let end = self.end_column();
        self.next()
            .ok_or_else(|| (end, format!("expected {what}, found end of line")))
    }

    /// The next field as a number no larger than `max`.
    pub(super) fn number(&mut self, what: &str, max: u64) -> Result<(usize, u64), LineError> {
        let (col, f) = self.expect(what)?;
        parse_number(col, f, what, max)
    }

    /// An optional trailing number (tags); `None` at the end of the line.
    pub(super) fn optional_number(
        &mut self,
        what: &str,
        max: u64,
    ) -> Result<Option<u64>, LineError> {
        match self.next() {
            None => Ok(None),
            Some((col, f)) => parse_number(col, f, what, max).map(|(_, v)| Some(v)),
        }
    }

    /// A number, or `any` (MPI_ANY_SOURCE / MPI_ANY_TAG) as `None`.
    pub(super) fn number_or_any(&mut self, what: &str, max: u64) -> Result<Option<u64>, LineError> {
        let (col, f) = self.expect(what)?;
        if f == "any" {
            return Ok(None);
        }
        parse_number(col, f, what, max).map(|(_, v)| Some(v))
    }

    /// Every field left, as numbers.
    pub(super) fn numbers(&mut self, what: &str, max: u64) -> Result<Vec<u64>, LineError> {
        let mut v = Vec::new();
        while let Some((col, f)) = self.next() {
            v.push(parse_number(col, f, what, max)?.1);
        }
        Ok(v)
    }

    /// Fails if anything but blanks is left.
    pub(super) fn finish(&mut self) -> Result<(), LineError> {
        match self.next() {
            None => Ok(()),
            Some((col, f)) => Err((col, format!("expected end of line, found `{f}`"))),
        }
    }
}

/// A whole number no larger than `max`.
pub(super) fn parse_number(
    col: usize,
    f: &str,
    what: &str,
    max: u64,
) -> Result<(usize, u64), LineError> {
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
