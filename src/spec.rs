//! The `NAME:key=value,key=value` grammar shared by topologies, workloads and placements.
//!
//! A [`Spec`] parses with nom and prints back with `Display` (the two round-trip). A [`Registry`] is an
//! explicit list of [`Entry`]s: the same list resolves names, validates keys and feeds `--help` and
//! error messages, so adding a component is one file plus one registry line.

use crate::error::{Error, Result};
use nom::{
    IResult, Parser,
    bytes::complete::{take_till1, take_while1},
    character::complete::char,
    combinator::{all_consuming, opt},
    multi::separated_list1,
    sequence::{preceded, separated_pair},
};
use std::fmt;

/// A parsed spec string: a component name and its `key=value` parameters in the order written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// Component name, e.g. `fat-tree`.
    pub name: String,
    /// Parameters in the order given.
    pub params: Vec<(String, String)>,
}

fn name(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_').parse(i)
}

fn key(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_').parse(i)
}

fn value(i: &str) -> IResult<&str, &str> {
    take_till1(|c: char| c == ',').parse(i)
}

type ParsedSpec<'a> = (&'a str, Option<Vec<(&'a str, &'a str)>>);

fn spec(i: &str) -> IResult<&str, ParsedSpec<'_>> {
    (
        name,
        opt(preceded(
            char(':'),
            separated_list1(char(','), separated_pair(key, char('='), value)),
        )),
    )
        .parse(i)
}

impl Spec {
    /// Parses `text` as a spec of the given kind (`topology`, `workload`...); the kind only flavours errors.
    pub fn parse(kind: &'static str, text: &str) -> Result<Spec> {
        let text_trim = text.trim();
        match all_consuming(spec).parse(text_trim) {
            Ok((_, (name, params))) => {
                let params: Vec<(String, String)> = params
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.trim().to_string()))
                    .collect();
                for (i, (k, _)) in params.iter().enumerate() {
                    if params[..i].iter().any(|(k2, _)| k2 == k) {
                        return Err(Error::SpecSyntax {
                            kind,
                            spec: text_trim.to_string(),
                            column: text_trim.find(&format!("{k}=")).map_or(1, |c| c + 1),
                            message: format!("parameter `{k}` is given twice"),
                        });
                    }
                }
                Ok(Spec {
                    name: name.to_string(),
                    params,
                })
            }
            Err(e) => {
                let rest = match &e {
                    nom::Err::Error(e) | nom::Err::Failure(e) => e.input,
                    nom::Err::Incomplete(_) => "",
                };
                let mut column = text_trim.len() - rest.len() + 1;
                let message = match rest.chars().next() {
                    _ if text_trim.is_empty() => {
                        "empty spec; expected NAME or NAME:key=value,...".to_string()
                    }
                    Some(sep @ (':' | ',')) => {
                        column += 1;
                        // `key=` with nothing after it: say so, at the missing value.
                        let pair = rest[1..].split(',').next().unwrap_or("");
                        match pair.split_once('=') {
                            Some((key, "")) if !key.trim().is_empty() => {
                                column += pair.len();
                                format!("parameter `{}` has no value", key.trim())
                            }
                            _ => format!("expected key=value after `{sep}`"),
                        }
                    }
                    Some(c) => format!("unexpected `{c}`; expected NAME:key=value,key=value"),
                    None => "unexpected end of spec".to_string(),
                };
                Err(Error::SpecSyntax {
                    kind,
                    spec: text_trim.to_string(),
                    column,
                    message,
                })
            }
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// The validated parameters of one spec, handed to a component's builder.
///
/// Construction rejects keys the component does not declare; the typed getters reject values that
/// do not parse or are out of range, naming the key and what is accepted.
#[derive(Debug)]
pub struct Params<'a> {
    kind: &'static str,
    spec: &'a Spec,
}

impl<'a> Params<'a> {
    /// Checks every key of `spec` against `accepted`.
    pub fn new(kind: &'static str, spec: &'a Spec, accepted: &[&str]) -> Result<Self> {
        for (k, _) in &spec.params {
            if !accepted.contains(&k.as_str()) {
                return Err(Error::UnknownKey {
                    kind,
                    name: spec.name.clone(),
                    key: k.clone(),
                    accepted: if accepted.is_empty() {
                        "none".to_string()
                    } else {
                        accepted.join(", ")
                    },
                });
            }
        }
        Ok(Params { kind, spec })
    }

    /// The parameters of a spec whose keys [`Registry::build_with`] checks (before or after), for
    /// its caller to read the common keys it accepts: a placement's `busy`, a workload's `ranks`.
    pub fn checked(kind: &'static str, spec: &'a Spec) -> Self {
        Params { kind, spec }
    }

    /// The component's name as written.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The raw text of a parameter, if given.
    pub fn raw(&self, key: &str) -> Option<&'a str> {
        self.spec
            .params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn bad(&self, key: &str, problem: String) -> Error {
        Error::BadValue {
            kind: self.kind,
            name: self.spec.name.clone(),
            key: key.to_string(),
            problem,
        }
    }

    /// An unsigned integer in `min..=max`, with decimal suffixes `K`, `M`, `G` (10^3, 10^6, 10^9),
    /// as seed 004 writes sizes (1K = 1000 bytes); `default` when absent (`None` makes it required).
    pub fn u64_in(&self, key: &str, default: Option<u64>, min: u64, max: u64) -> Result<u64> {
        let Some(text) = self.raw(key) else {
            return default.ok_or_else(|| self.bad(key, "is required".to_string()));
        };
        let (digits, mult) = match text.as_bytes().last() {
            Some(b'K' | b'k') => (&text[..text.len() - 1], 1_000),
            Some(b'M') => (&text[..text.len() - 1], 1_000_000),
            Some(b'G') => (&text[..text.len() - 1], 1_000_000_000),
            _ => (text, 1),
        };
        let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        let Some(v) = digits.parse::<u64>().ok().and_then(|v| v.checked_mul(mult)) else {
            // Digits past u64 are a whole number too, only too large.
            return Err(self.bad(
                key,
                if whole {
                    format!("= {text} is out of range {min}..={max}")
                } else {
                    format!("= `{text}` is not a whole number")
                },
            ));
        };
        if v < min || v > max {
            return Err(self.bad(key, format!("= {v} is out of range {min}..={max}")));
        }
        Ok(v)
    }

    /// [`Params::u64_in`] for values that index nodes, ports or levels.
    pub fn u32_in(&self, key: &str, default: Option<u32>, min: u32, max: u32) -> Result<u32> {
        self.u64_in(key, default.map(u64::from), u64::from(min), u64::from(max))
            .map(|v| v as u32)
    }

    /// One of a fixed set of words.
    pub fn choice(
        &self,
        key: &str,
        default: &'static str,
        choices: &[&'static str],
    ) -> Result<&'static str> {
        let text = self.raw(key).unwrap_or(default);
        choices.iter().copied().find(|c| *c == text).ok_or_else(|| {
            self.bad(
                key,
                format!("= `{text}` is not one of {}", choices.join(", ")),
            )
        })
    }

    /// A constraint between parameters failed; `message` says which and why.
    pub fn invalid(&self, message: impl fmt::Display) -> Error {
        Error::Invalid(format!("{} `{}`: {message}", self.kind, self.spec))
    }
}

/// One registry line: a component's name, its accepted keys, a one-line help, and its builder.
pub struct Entry<T> {
    /// Name as written in specs.
    pub name: &'static str,
    /// Keys the builder accepts.
    pub keys: &'static [&'static str],
    /// One line for `--help` and docs, e.g. the paper notation.
    pub help: &'static str,
    /// Builds the component from validated parameters.
    pub build: fn(&Params) -> Result<T>,
}

/// An explicit list of components of one kind.
pub struct Registry<T: 'static> {
    /// What the entries are (`topology`, `workload`, `placement`), for messages.
    pub kind: &'static str,
    /// The entries, in the order `--help` lists them.
    pub entries: &'static [Entry<T>],
}

impl<T> Registry<T> {
    /// Parses `text` and builds the named component.
    pub fn build_str(&self, text: &str) -> Result<T> {
        self.build(&Spec::parse(self.kind, text)?)
    }

    /// Builds the component a parsed spec names.
    pub fn build(&self, spec: &Spec) -> Result<T> {
        self.build_with(spec, &[])
    }

    /// Builds the component a parsed spec names, accepting besides its own keys the `common` ones
    /// every entry of the registry takes (a placement's `busy`), which the caller reads itself: an
    /// unknown key's error lists both, and the builder's errors quote the spec as written.
    pub fn build_with(&self, spec: &Spec, common: &[&str]) -> Result<T> {
        let entry = self
            .entries
            .iter()
            .find(|e| e.name == spec.name)
            .ok_or_else(|| Error::UnknownName {
                kind: self.kind,
                name: spec.name.clone(),
                accepted: self.names().join(", "),
            })?;
        let accepted: Vec<&str> = entry.keys.iter().chain(common).copied().collect();
        (entry.build)(&Params::new(self.kind, spec, &accepted)?)
    }

    /// The accepted names.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|e| e.name).collect()
    }

    /// `name:key,key  help` lines for `--help`.
    pub fn help(&self) -> String {
        self.entries
            .iter()
            .map(|e| format!("  {:<20} [{}]  {}", e.name, e.keys.join(","), e.help))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_round_trips() {
        for text in [
            "fat-tree:k=8,n=4",
            "bu",
            "trace:file=/tmp/a b.trc",
            "random:seed=7",
        ] {
            let s = Spec::parse("topology", text).unwrap();
            assert_eq!(s.to_string(), text);
        }
        let s = Spec::parse("topology", "thin-tree:k=8,up=4,n=4").unwrap();
        assert_eq!(s.name, "thin-tree");
        assert_eq!(s.params[1], ("up".to_string(), "4".to_string()));
    }

    #[test]
    fn syntax_errors_name_the_column() {
        let e = Spec::parse("topology", "fat-tree:k=8,,n=4").unwrap_err();
        assert!(matches!(e, Error::SpecSyntax { column: 14, .. }), "{e}");
        let e = Spec::parse("topology", "fat-tree:").unwrap_err();
        assert!(matches!(e, Error::SpecSyntax { column: 10, .. }), "{e}");
        let e = Spec::parse("topology", "fat-tree:k=1,k=2").unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
        assert!(Spec::parse("topology", "").is_err());
        // An empty value is named, at the column where it is missing.
        for (text, column) in [
            ("trace:file=", 12),
            ("graph:file=,x=1", 12),
            ("mesh:k=4,n=", 12),
        ] {
            let e = Spec::parse("workload", text).unwrap_err();
            assert!(
                matches!(e, Error::SpecSyntax { column: c, .. } if c == column),
                "{e}"
            );
            assert!(e.to_string().contains("has no value"), "{e}");
        }
    }

    #[test]
    fn params_check_keys_and_ranges() {
        let s = Spec::parse("workload", "bu:size=10K,x=1").unwrap();
        let e = Params::new("workload", &s, &["size"]).unwrap_err();
        assert!(e.to_string().contains("accepted: size"), "{e}");
        let p = Params::new("workload", &s, &["size", "x"]).unwrap();
        assert_eq!(p.u64_in("size", None, 0, u64::MAX).unwrap(), 10_000);
        assert!(p.u32_in("x", None, 2, 9).is_err());
        assert!(
            p.u32_in("missing", None, 0, 9)
                .unwrap_err()
                .to_string()
                .contains("required")
        );
        assert_eq!(p.u32_in("missing", Some(3), 0, 9).unwrap(), 3);
    }

    /// A number too large for 64 bits is out of range, not "not a whole number"; text that is no
    /// number at all still says so.
    #[test]
    fn huge_numbers_are_out_of_range() {
        let s = Spec::parse(
            "workload",
            "bu:a=99999999999999999999999,b=99999999999G,c=-1,d=1.5",
        )
        .unwrap();
        let p = Params::new("workload", &s, &["a", "b", "c", "d"]).unwrap();
        let err = |k: &str| p.u64_in(k, None, 1, 1000).unwrap_err().to_string();
        assert!(
            err("a").contains("= 99999999999999999999999 is out of range 1..=1000"),
            "{}",
            err("a")
        );
        assert!(
            err("b").contains("= 99999999999G is out of range 1..=1000"),
            "{}",
            err("b")
        );
        assert!(
            err("c").contains("= `-1` is not a whole number"),
            "{}",
            err("c")
        );
        assert!(
            err("d").contains("= `1.5` is not a whole number"),
            "{}",
            err("d")
        );
    }
}
