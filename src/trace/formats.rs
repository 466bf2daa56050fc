//! The one registry of trace formats: [`FORMATS`], a list of [`Descriptor`]s that the `format=` key,
//! `trace check --format`, `generate --format`, detection, the rank pre-check, the cache key and
//! `--help` all read. A new format is its reader's folder under `src/trace/` (with its `FORMAT`
//! descriptor) plus one line in [`FORMATS`].

use super::ReadOptions;
use super::limits::RankLimit;
use crate::error::{Error, Result};
use crate::program::MpiModel;
use crate::program::Program;
use std::path::{Path, PathBuf};

/// What netreplay knows of one trace format.
#[derive(Debug)]
pub struct Descriptor {
    /// The name `format=` and `--format` take, and `--help` lists.
    pub name: &'static str,
    /// Other names accepted for it (`fsin` for `trc`).
    pub aliases: &'static [&'static str],
    /// One line for `--help`: what files it is and where they come from.
    pub help: &'static str,
    /// The tag mixed into the cache key (unchanged across versions of this registry, so existing
    /// caches stay valid).
    pub cache_tag: &'static str,
    /// Tells the format from the path alone (a folder, an anchor or `.meta` file, magic bytes);
    /// tried for every format before any content line is read.
    pub detect_path: Option<fn(&Path) -> bool>,
    /// Tells the format from the first content line of the (decompressed) file; tried in registry
    /// order after every `detect_path` failed.
    pub detect_line: Option<fn(&Path, &str) -> bool>,
    /// For a folder given as a trace: what this format expects in it, for the error when no format
    /// claims the folder (`None`: this format is never a folder).
    pub folder: Option<&'static str>,
    /// Decodes the trace into a program (its MPI model is set by the caller from [`Descriptor::mpi`]).
    pub read: fn(&Path, &ReadOptions) -> Result<Program>,
    /// Refuses the trace when it has more ranks than the limit, without building its program.
    pub check_ranks: fn(&Path, &RankLimit) -> Result<()>,
    /// Every file the trace is read from, for the cache key.
    pub sources: fn(&Path) -> Result<Vec<PathBuf>>,
    /// The MPI model its traces run under unless the file records one or the spec says otherwise.
    pub mpi: fn() -> MpiModel,
    /// Whether its files may record the MPI model they run under (the native format's `mpi` line):
    /// then its reader sets the program's model itself (falling back to `mpi`), and its writer keeps
    /// any model; a format that cannot record one is written only for a program its default model
    /// replays alike, so a converted trace replays as its source.
    pub records_mpi: bool,
    /// Its writer, if netreplay writes it.
    pub write: Option<Writer>,
    /// What `trace check` says of a trace of this format that has collectives (what the format
    /// does not record about them), if anything.
    pub collectives_note: Option<&'static str>,
}

/// How a program is written in a format.
#[derive(Debug)]
pub struct Writer {
    /// Refuses what the format cannot express, before the file system is touched.
    pub check: fn(&Program) -> Result<()>,
    /// Writes the body (the caller compresses and writes atomically).
    pub body: fn(&Program, &mut dyn std::io::Write) -> std::io::Result<()>,
}

/// Every format netreplay reads, in detection order.
pub const FORMATS: &[&Descriptor] = &[
    &super::parser::FORMAT,
    &super::simgrid::FORMAT,
    &super::fsin::FORMAT,
    &super::otf2::FORMAT,
    &super::dumpi::FORMAT,
    &super::goal::FORMAT,
    &super::chakra::FORMAT,
];

/// A trace format: one entry of [`FORMATS`].
#[derive(Clone, Copy)]
pub struct Format(&'static Descriptor);

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.cache_tag)
    }
}

impl Format {
    /// netreplay's own format (`traces/FORMAT.md`).
    pub const NATIVE: Format = Format(&super::parser::FORMAT);
    /// SimGrid SMPI time-independent traces.
    pub const SIMGRID: Format = Format(&super::simgrid::FORMAT);
    /// INSEE/FSIN `.trc` traces.
    pub const FSIN: Format = Format(&super::fsin::FORMAT);
    /// OTF2 archives as Score-P writes them.
    pub const OTF2: Format = Format(&super::otf2::FORMAT);
    /// SST DUMPI traces.
    pub const DUMPI: Format = Format(&super::dumpi::FORMAT);
    /// LogGOPSim's GOAL schedules (dependency graphs).
    pub const GOAL: Format = Format(&super::goal::FORMAT);
    /// MLCommons Chakra execution traces (dependency graphs).
    pub const CHAKRA: Format = Format(&super::chakra::FORMAT);

    /// Every format of the registry.
    pub fn all() -> impl Iterator<Item = Format> {
        FORMATS.iter().map(|d| Format(d))
    }

    /// The names `format=` and `--format` accept: `auto` (detect), then each format's name and
    /// aliases.
    pub fn names() -> Vec<&'static str> {
        let mut names = vec!["auto"];
        for d in FORMATS {
            names.push(d.name);
            names.extend(d.aliases);
        }
        names
    }

    /// The format named `name` (a name or alias of [`FORMATS`]); `None` for `auto`.
    pub fn parse(name: &str) -> Result<Option<Format>> {
        if name == "auto" {
            return Ok(None);
        }
        Format::all()
            .find(|f| f.0.name == name || f.0.aliases.contains(&name))
            .map(Some)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "unknown trace format `{name}`; accepted: {}",
                    Format::names().join(", ")
                ))
            })
    }

    /// The format named `name` that netreplay also writes (for `generate --format`).
    pub fn parse_writable(name: &str) -> Result<Format> {
        let writable: Vec<&str> = Format::all()
            .filter(|f| f.0.write.is_some())
            .map(|f| f.name())
            .collect();
        match Format::parse(name) {
            Ok(Some(f)) if f.0.write.is_some() => Ok(f),
            _ => Err(Error::Invalid(format!(
                "--format {name}: accepted are {}",
                writable.join(" and ")
            ))),
        }
    }

    /// The format's name as the `format=` key spells it.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The format's descriptor.
    pub fn descriptor(self) -> &'static Descriptor {
        self.0
    }

    /// Tells the format of `path`: first by each format's path test (folders, anchor files, magic
    /// bytes), then by the first content line of the (decompressed) file against each format's line
    /// test in registry order. Anything else is read as native, whose reader then says what it
    /// expected.
    pub fn detect(path: &Path) -> Result<Format> {
        if let Some(f) = Format::detect_path(path) {
            return Ok(f);
        }
        let mut first = None;
        let name = path.display().to_string();
        // Stop at the first content line; `lines` has no early exit, so an Invalid marker ends it.
        let r = super::simgrid::lines(&name, super::open(path)?, |_, text| {
            first = Some(text.trim().to_string());
            Err(Error::Invalid(String::new()))
        });
        match r {
            Ok(()) | Err(Error::Invalid(_)) => {}
            Err(Error::File { .. }) => return Ok(Format::NATIVE),
            Err(e) => return Err(e),
        }
        let Some(line) = first else {
            return Ok(Format::NATIVE);
        };
        Ok(Format::all()
            .find(|f| f.0.detect_line.is_some_and(|test| test(path, &line)))
            .unwrap_or(Format::NATIVE))
    }

    /// The format whose path test claims `path` (a folder or a file told by its name or magic).
    pub fn detect_path(path: &Path) -> Option<Format> {
        Format::all().find(|f| f.0.detect_path.is_some_and(|test| test(path)))
    }

    /// What a folder given as a trace may be, for the error when none is: each foldered format's
    /// expectation, joined.
    pub fn folder_kinds() -> String {
        let kinds: Vec<&str> = FORMATS.iter().filter_map(|d| d.folder).collect();
        match kinds.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("neither {} nor {last}", rest.join(" nor ")),
            None => "no trace".to_string(),
        }
    }

    /// The MPI model a trace of this format runs under unless the spec says otherwise.
    pub fn default_mpi(self) -> MpiModel {
        (self.0.mpi)()
    }

    /// The registry as `  name  help` lines for `--help`.
    pub fn help() -> String {
        FORMATS
            .iter()
            .map(|d| {
                let aliases = if d.aliases.is_empty() {
                    String::new()
                } else {
                    format!(" (also {})", d.aliases.join(", "))
                };
                format!("  {:<12} {}{aliases}", d.name, d.help)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse_and_are_unique() {
        let names = Format::names();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
        assert_eq!(Format::parse("fsin").unwrap(), Some(Format::FSIN));
        assert_eq!(Format::parse("trc").unwrap(), Some(Format::FSIN));
        assert_eq!(Format::parse("auto").unwrap(), None);
        assert!(Format::parse("nope").is_err());
        assert_eq!(Format::parse_writable("fsin").unwrap(), Format::FSIN);
        assert!(
            Format::parse_writable("otf2")
                .unwrap_err()
                .to_string()
                .contains("accepted are native and trc")
        );
    }

    #[test]
    fn folder_kinds_read_as_a_sentence() {
        assert_eq!(
            Format::folder_kinds(),
            "neither an OTF2 archive (no anchor file `*.otf2`) nor a DUMPI trace (no `.meta` file) \
             nor a Chakra trace (no `NAME.N.et` files)"
        );
    }
}
