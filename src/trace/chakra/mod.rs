//! The Chakra reader: MLCommons Chakra execution traces (ET), what ASTRA-sim replays. A trace is
//! one protobuf file per rank, `NAME.RANK.et` (ranks 0..N, all in one folder), each a
//! length-delimited stream of a `GlobalMetadata` then `Node`s ([`proto`], schema in
//! `et_def.proto` beside this file). Nodes become [`crate::program::graph`] nodes ([`lower`]):
//! computation with its `duration_micros`, sends and receives with their tags, collectives
//! expanded into point-to-point messages by the MPI layer's algorithms over their process group,
//! and `data_deps` and `ctrl_deps` as `requires`. The reader only decodes; the graph runtime
//! (`mpi/graph_run.rs`) replays it.
//!
//! Process groups: a collective without a `pg_name` attribute runs over every rank; one with a
//! `pg_name` runs over the ranks that name maps to in the process-group file beside the rank
//! files, `NAME.json` or else `comm_group.json` (ASTRA-sim's `--comm-group-configuration` file,
//! `{"PG_NAME": [rank, ...], ...}`, which it conventionally names after the traces).

pub mod lower;
pub mod proto;

use crate::error::{Error, Result};
use crate::program::Program;
use crate::program::graph;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Chakra in the registry of [`crate::trace::formats`]: a folder of `NAME.N.et` files, or one of
/// them (its siblings are the other ranks).
pub const FORMAT: super::formats::Descriptor = super::formats::Descriptor {
    name: "chakra",
    aliases: &["et"],
    help: "MLCommons Chakra execution traces (ASTRA-sim): a folder of NAME.N.et files, or one of them",
    cache_tag: "Chakra",
    detect_path: Some(is_chakra),
    detect_line: None,
    folder: Some("a Chakra trace (no `NAME.N.et` files)"),
    read: |path, opts| read(path, &opts.algorithms, opts.units.cycles_per_second),
    check_ranks: |path, limit| limit.check_count(path, Files::find(path)?.ranks.len() as u64),
    sources: |path| {
        let files = Files::find(path)?;
        let mut all = files.ranks;
        all.extend(files.groups);
        Ok(all)
    },
    mpi: crate::program::MpiModel::default,
    records_mpi: false,
    write: None,
    collectives_note: Some(
        "Chakra's comm_size is the whole buffer, as ASTRA-sim reads it: all-gather, all-to-all and \
         reduce-scatter blocks are comm_size / p; rooted collectives (Chakra records no root) are \
         rooted at their group's first rank",
    ),
};

/// The name of the process-group file beside the rank files when there is no `NAME.json`.
pub const COMM_GROUPS: &str = "comm_group.json";

/// Whether `path` is a Chakra trace: a `.et` file, or a folder holding `NAME.N.et` files.
pub fn is_chakra(path: &Path) -> bool {
    if path.is_dir() {
        return std::fs::read_dir(path).is_ok_and(|mut d| {
            d.any(|e| e.is_ok_and(|e| rank_of(&e.path()).is_some() && e.path().is_file()))
        });
    }
    path.extension().is_some_and(|x| x == "et")
}

/// (NAME, rank) of a file named `NAME.RANK.et`.
fn rank_of(path: &Path) -> Option<(String, u32)> {
    let name = path.file_name()?.to_str()?.strip_suffix(".et")?;
    let (stem, rank) = name.rsplit_once('.')?;
    let rank = rank
        .parse()
        .ok()
        .filter(|_| rank.bytes().all(|b| b.is_ascii_digit()))?;
    Some((stem.to_string(), rank))
}

/// A trace's files: one per rank, in rank order, and the process-group file if there is one.
#[derive(Debug)]
pub struct Files {
    /// `NAME.r.et` for each rank r.
    pub ranks: Vec<PathBuf>,
    /// The process-group file (`NAME.json`, else `comm_group.json`), if present.
    pub groups: Option<PathBuf>,
}

impl Files {
    /// The files of the trace at `path` (a folder, or one rank's file), checking that the ranks
    /// run 0..N without a gap and share one NAME.
    pub fn find(path: &Path) -> Result<Files> {
        let (dir, want) = if path.is_dir() {
            (path.to_path_buf(), None)
        } else {
            let Some((stem, _)) = rank_of(path) else {
                return Err(Error::Invalid(format!(
                    "{}: a Chakra trace file is named NAME.RANK.et (one per rank), or give its folder",
                    path.display()
                )));
            };
            let dir = path.parent().map_or(PathBuf::from("."), Path::to_path_buf);
            let dir = if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir
            };
            (dir, Some(stem))
        };
        let mut by_name: BTreeMap<String, BTreeMap<u32, PathBuf>> = BTreeMap::new();
        for e in std::fs::read_dir(&dir).map_err(Error::io(dir.display()))? {
            let p = e.map_err(Error::io(dir.display()))?.path();
            if let Some((stem, r)) = rank_of(&p) {
                by_name.entry(stem).or_default().insert(r, p);
            }
        }
        let (stem, files) = match want {
            Some(stem) => (stem.clone(), by_name.remove(&stem).unwrap_or_default()),
            None if by_name.len() == 1 => by_name.pop_first().expect("one name"),
            None if by_name.is_empty() => {
                return Err(Error::Invalid(format!(
                    "{}: no NAME.RANK.et files: is this a Chakra trace?",
                    dir.display()
                )));
            }
            None => {
                let names: Vec<&str> = by_name.keys().map(String::as_str).collect();
                return Err(Error::Invalid(format!(
                    "{}: Chakra traces of several names ({}); give one rank's file to pick one",
                    dir.display(),
                    names.join(", ")
                )));
            }
        };
        let n = files.len();
        if let Some(missing) = (0..n as u32).find(|r| !files.contains_key(r)) {
            return Err(Error::Invalid(format!(
                "{}: {n} files {stem}.N.et but no {stem}.{missing}.et: ranks must run 0..{n}",
                dir.display()
            )));
        }
        let groups = [dir.join(format!("{stem}.json")), dir.join(COMM_GROUPS)]
            .into_iter()
            .find(|p| p.exists());
        Ok(Files {
            ranks: files.into_values().collect(),
            groups,
        })
    }
}

/// Reads the Chakra trace at `path` into a dependency-graph program whose collectives expand with
/// `algorithms` and whose computation takes `cycles_per_second` cycles per traced second.
pub fn read(
    path: &Path,
    algorithms: &crate::mpi::collectives::Algorithms,
    cycles_per_second: f64,
) -> Result<Program> {
    if !(cycles_per_second.is_finite() && cycles_per_second > 0.0) {
        return Err(Error::Invalid(format!(
            "Chakra import: cycles_per_second must be a positive number, not {cycles_per_second}"
        )));
    }
    let files = Files::find(path)?;
    let n = files.ranks.len() as u32;
    super::limits::RankLimit::default().check_count(path, u64::from(n))?;
    if n < 2 {
        return Err(Error::Invalid(format!(
            "{}: one rank file; a replay needs at least 2 ranks",
            path.display()
        )));
    }
    let groups = match &files.groups {
        Some(p) => lower::Groups::read(p, n)?,
        None => lower::Groups::default(),
    };
    let mut lowering = lower::Lowering {
        ranks: n,
        groups: &groups,
        algorithms,
        cycles_per_second,
        stats: crate::program::CallStats {
            communicators: groups.communicators(),
            ..Default::default()
        },
    };
    let mut all = Vec::with_capacity(n as usize);
    for (rank, file) in files.ranks.iter().enumerate() {
        let name = file.display().to_string();
        let mut nodes = Vec::new();
        proto::read_stream(&name, super::open(file)?, |at, node| {
            nodes.push((at, node));
            Ok(())
        })?;
        all.push(lowering.rank(rank as u32, &name, nodes)?);
    }
    Ok(graph::build(all)?.with_call_stats(lowering.stats))
}
