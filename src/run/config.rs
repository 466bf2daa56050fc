//! Config files' errors at their `file:line:column`: TOML's own (syntax, types, unknown keys), the
//! values checked after reading (`[network]`), and the spec strings a config gives, each placed at
//! the key, array element or spec parameter it is about. Run, sweep and campaign configs share them.

use crate::error::{Error, Result};
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Reads any TOML config file (run, sweep, campaign); syntax, type and unknown-key errors carry
/// file:line:column.
pub fn load_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = crate::input::read_text(path, "a config", crate::input::MAX_TEXT_BYTES)?;
    toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))
}

/// Places a [`Error::BadValue`] found in the config at `path` at its key's `file:line:column` (the
/// value's column); other errors, or a key not found, are prefixed with the path.
pub fn locate(path: &Path, e: Error) -> Error {
    let Error::BadValue {
        kind, key, problem, ..
    } = &e
    else {
        return Error::Invalid(format!("{}: {e}", path.display()));
    };
    match value_of(path, key, None) {
        Some((line, column, _)) => Error::File {
            path: path.display().to_string(),
            line,
            column,
            message: format!("{kind}: `{key}` {problem}"),
        },
        None => Error::Invalid(format!("{}: {e}", path.display())),
    }
}

/// Where the config at `path` sets `key` (`key = value`, in any table): the line and the column of
/// the value (both from 1) and the value as written. With `wanted`, the first value that is the
/// string `wanted`, or holds it as an array element (then that element's place): a campaign's
/// candidates each set `topology`, its `workloads` is an array. Without, the first value.
fn value_of(path: &Path, key: &str, wanted: Option<&str>) -> Option<(usize, usize, String)> {
    let text = crate::input::read_text(path, "a config", crate::input::MAX_TEXT_BYTES).ok()?;
    let doc = DeTable::parse(&text).ok()?;
    let is_wanted = |v: &DeValue| match (v, wanted) {
        (DeValue::String(s), Some(w)) => s == w,
        (_, w) => w.is_none(),
    };
    let mut found = Vec::new();
    each_key(doc.get_ref(), &mut |k, v| {
        if k != key {
            return;
        }
        match v.get_ref() {
            DeValue::Array(items) if wanted.is_some() => found.extend(
                items
                    .iter()
                    .filter(|i| is_wanted(i.get_ref()))
                    .map(Spanned::span),
            ),
            value if is_wanted(value) => found.push(v.span()),
            _ => {}
        }
    });
    // Tables list their keys in name order: the first in the file has the smallest offset.
    let span = found.into_iter().min_by_key(|s| s.start)?;
    let (line, column) = line_column(&text, span.start);
    Some((line, column, text.get(span)?.to_string()))
}

/// Calls `visit` with every key of `table` and of the tables within it (`[x]`, `[[x]]`, inline),
/// and the key's value.
fn each_key<'t, 'i>(
    table: &'t DeTable<'i>,
    visit: &mut impl FnMut(&str, &'t Spanned<DeValue<'i>>),
) {
    for (k, v) in table {
        visit(k.get_ref(), v);
        match v.get_ref() {
            DeValue::Table(t) => each_key(t, visit),
            DeValue::Array(items) => {
                for item in items.iter() {
                    if let DeValue::Table(t) = item.get_ref() {
                        each_key(t, visit);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Places an error in the spec string `value` (of kind `kind`) that a config at `path` gives under
/// `key` (`topology = "..."`, or an element of `workloads = [...]`) at its `file:line:column`: the
/// column of the spec's bad character or parameter where the error names one, else of the value.
/// Errors of other kinds, or of a spec the file does not give there, are returned as they are.
pub fn locate_spec(path: &Path, kind: &str, key: &str, value: &str, e: Error) -> Error {
    let (of, needle) = match &e {
        Error::SpecSyntax { kind, column, .. } => (*kind, Err(*column)),
        Error::UnknownName { kind, name, .. } => (*kind, Ok(name.clone())),
        Error::UnknownKey { kind, key, .. } | Error::BadValue { kind, key, .. } => {
            (*kind, Ok(format!("{key}=")))
        }
        _ => return e,
    };
    if of != kind {
        return e;
    }
    let Some((line, column, written)) = value_of(path, key, Some(value)) else {
        return e;
    };
    // The spec starts after the opening quote (three of them for a multi-line string); its columns
    // count from its first character that is not blank.
    let open = if written.starts_with("\"\"\"") || written.starts_with("'''") {
        3
    } else {
        1
    };
    let spec = written.get(open..).unwrap_or("");
    let blank = spec.len() - spec.trim_start().len();
    let offset = match needle {
        Err(spec_column) => blank + spec_column.saturating_sub(1),
        // A parameter is found after the `:` or `,` before it, not inside another's name.
        Ok(n) if n.ends_with('=') => [':', ',']
            .iter()
            .filter_map(|sep| spec.find(&format!("{sep}{n}")).map(|i| i + 1))
            .min()
            .unwrap_or(blank),
        Ok(n) => spec.find(&n).unwrap_or(blank),
    };
    Error::File {
        path: path.display().to_string(),
        line,
        column: column + open + offset,
        message: e.to_string(),
    }
}

/// The line and column (both from 1, the column in bytes) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    (
        line,
        before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1,
    )
}

/// Converts a TOML error into a positioned [`Error::File`].
fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> Error {
    let (line, column) = line_column(text, e.span().map_or(0, |s| s.start));
    Error::File {
        path: path.display().to_string(),
        line,
        column,
        message: e.message().to_string(),
    }
}
