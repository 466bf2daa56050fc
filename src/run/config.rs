//! Config files' errors at their `file:line:column`: TOML's own (syntax, types, unknown keys), the
//! values checked after reading (`[network]`), and the spec strings a config gives, each placed at
//! the key or spec parameter it is about. Run, sweep and campaign configs share them.

use crate::error::{Error, Result};
use std::path::Path;

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
    match value_of(path, key) {
        Some((line, column, _)) => Error::File {
            path: path.display().to_string(),
            line,
            column,
            message: format!("{kind}: `{key}` {problem}"),
        },
        None => Error::Invalid(format!("{}: {e}", path.display())),
    }
}

/// The first line of the config at `path` that sets `key` (`key = value`): its number and the column
/// of its value (both from 1), and the value as written.
fn value_of(path: &Path, key: &str) -> Option<(usize, usize, String)> {
    let text = crate::input::read_text(path, "a config", crate::input::MAX_TEXT_BYTES).ok()?;
    text.lines().enumerate().find_map(|(i, line)| {
        let value = line.trim_start().strip_prefix(key)?.trim_start();
        let value = value.strip_prefix('=')?.trim_start();
        Some((i + 1, line.len() - value.len() + 1, value.to_string()))
    })
}

/// Places an error in the spec string a config at `path` gives under `key` (`topology = "..."`) at
/// that value's `file:line:column`: the column of the spec's bad character or parameter where the
/// error names one, else of the value. Errors of other kinds, or of a spec not read from that key,
/// are returned as they are.
pub fn locate_spec(path: &Path, key: &str, e: Error) -> Error {
    let (kind, needle) = match &e {
        Error::SpecSyntax { kind, column, .. } => (*kind, Err(*column)),
        Error::UnknownName { kind, name, .. } => (*kind, Ok(name.clone())),
        Error::UnknownKey { kind, key, .. } | Error::BadValue { kind, key, .. } => {
            (*kind, Ok(format!("{key}=")))
        }
        _ => return e,
    };
    if kind != key {
        return e;
    }
    let Some((line, column, value)) = value_of(path, key) else {
        return e;
    };
    // The spec starts after the opening quote.
    let spec = value.get(1..).unwrap_or("");
    let offset = match needle {
        Err(spec_column) => spec_column.saturating_sub(1),
        Ok(n) => spec.find(&n).unwrap_or(0),
    };
    Error::File {
        path: path.display().to_string(),
        line,
        column: column + 1 + offset,
        message: e.to_string(),
    }
}

/// Converts a TOML error into a positioned [`Error::File`].
fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> Error {
    let offset = e.span().map_or(0, |s| s.start).min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = offset - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    Error::File {
        path: path.display().to_string(),
        line,
        column,
        message: e.message().to_string(),
    }
}
