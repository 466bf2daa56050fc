//! Config files' errors at their `file:line:column`: TOML's own (syntax, types, unknown keys), the
//! values checked after reading (`[network]`), and the spec strings a config gives, each placed at
//! the key, array element or spec parameter it is about. Run, sweep and campaign configs share them.

use crate::error::{Error, Result};
use serde::Deserialize;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Reads any TOML config file (run, sweep, campaign); syntax, type and unknown-key errors carry
/// file:line:column, and a value that must be one of a few names lists them ([`names_of`]).
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
/// Errors of other kinds, of a spec the file does not give there, or of a config not read from a
/// file (`path` none) are returned as they are.
pub fn locate_spec(path: Option<&Path>, (kind, key): (&str, &str), value: &str, e: Error) -> Error {
    let Some(path) = path else {
        return e;
    };
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

/// Converts a TOML error into a positioned [`Error::File`]; one in the value of a key that takes
/// one of a few names says which ([`names_of`]) instead of TOML's "wanted string or table".
fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> Error {
    let offset = e.span().map_or(0, |s| s.start);
    let (offset, message) =
        expected_names(text, offset).unwrap_or_else(|| (offset, e.message().to_string()));
    let (line, column) = line_column(text, offset);
    Error::File {
        path: path.display().to_string(),
        line,
        column,
        message,
    }
}

/// When byte `offset` of the config `text` is in the value of a key [`names_of`] knows (a table's
/// error may point inside it): where that value starts, and `KEY: expected one of "a", "b", got
/// VALUE` (VALUE as written).
fn expected_names(text: &str, offset: usize) -> Option<(usize, String)> {
    let doc = DeTable::parse(text).ok()?;
    let mut found = None;
    each_key(doc.get_ref(), &mut |k, v| {
        if found.is_none() && v.span().contains(&offset) {
            found = names_of(k).map(|names| (k.to_string(), names, v.span()));
        }
    });
    let (key, names, span) = found?;
    let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let message = format!(
        "{key}: expected one of {}, got {}",
        names.join(", "),
        text.get(span.clone())?.trim()
    );
    Some((span.start, message))
}

/// The names a config key takes when it takes one of a fixed few: the `[network]` enums (a
/// campaign candidate's `model` too), the output selection policies and the presets.
fn names_of(key: &str) -> Option<Vec<&'static str>> {
    use crate::network::{Arbitration, CreditUnit, LoserRetry, Model, PRESETS, selection};
    Some(match key {
        "credits" => variants::<CreditUnit>().to_vec(),
        "arbitration" => variants::<Arbitration>().to_vec(),
        "loser_retry" => variants::<LoserRetry>().to_vec(),
        "model" => variants::<Model>().to_vec(),
        "selection" => selection::POLICIES.iter().map(|p| p.name).collect(),
        "preset" => PRESETS.iter().map(|p| p.name).collect(),
        _ => return None,
    })
}

/// The names the serde enum `T` is written as in a config, asked of its own `Deserialize` (so the
/// list follows the type's variants and renames).
fn variants<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    /// What the probe found: the names an enum asked for, none for anything else.
    #[derive(Debug)]
    struct Found(&'static [&'static str]);
    impl std::fmt::Display for Found {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{:?}", self.0)
        }
    }
    impl std::error::Error for Found {}
    impl serde::de::Error for Found {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Found(&[])
        }
    }
    /// A deserializer that has no value and stops at the first request.
    struct Probe;
    impl<'de> serde::Deserializer<'de> for Probe {
        type Error = Found;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Found> {
            Err(Found(&[]))
        }
        fn deserialize_enum<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            variants: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Found> {
            Err(Found(variants))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier
            ignored_any
        }
    }
    match T::deserialize(Probe) {
        Err(Found(names)) => names,
        Ok(_) => &[],
    }
}
