//! The GOAL reader: LogGOPSim's schedule format (text `.goal`, `.g2`), as schedgen, Schedgen2 and
//! ATLAHS write it; grammar read from LogGOPSim's `src/LogGOPSim/txt2bin.re`.
//!
//! ```text
//! num_ranks 2                       // the rank count, before any rank block
//! rank 0 {                          // one block per rank (ranks without a block do nothing)
//! l1: calc 100 cpu 0                // compute 100 time units on CPU 0
//! l2: send 8b to 1 tag 5 cpu 0 nic 0
//! l3: recv 8b from 1                // tag 0 by default
//! l2 requires l1                    // l2 starts once l1 has completed
//! l3 irequires l2                   // l3 starts once l2 has started
//! }
//! ```
//!
//! Labels (`[A-Za-z][A-Za-z0-9_]*`) are optional and local to their rank block; a dependency may
//! name an op defined later in the block. `//` and `/* */` are comments. Sizes are bytes (`8b`);
//! `calc` is in LogGOPSim's time unit, nanoseconds in schedgen's and ATLAHS's output, converted at
//! `cycles_per_second` (1e9 by default: one cycle per nanosecond). `cpu` picks the CPU a `calc`
//! runs on (one computation at a time per CPU, see `mpi/graph_run.rs`); on a send or receive it is
//! read and ignored (the runtime charges messages no CPU time), as is `nic` everywhere (a node has
//! one injection link). Refused, with their position: receives from any source or with any tag
//! (`-1`), and LogGOPSim2's Portals and sPIN operations (`put`, `get`, `append` and handlers), which
//! have no MPI meaning. The reader only decodes; [`crate::program::graph`] builds the program.

use crate::error::{Error, Result};
use crate::program::Program;
use crate::program::graph::{self, Action, Node};
use std::collections::HashMap;
use std::path::Path;

/// GOAL in the registry of [`crate::trace::formats`]: told by its `num_ranks` line (or a leading
/// comment).
pub const FORMAT: super::formats::Descriptor = super::formats::Descriptor {
    name: "goal",
    aliases: &[],
    help: "LogGOPSim/ATLAHS GOAL schedules (.goal, .g2): per-rank dependency graphs of send, recv, calc",
    cache_tag: "Goal",
    detect_path: None,
    detect_line: Some(|_, line| is_goal_line(line)),
    folder: None,
    read: |path, opts| read(path, opts.units.cycles_per_second),
    check_ranks: |path, limit| match declared_ranks(path)? {
        Some(n) => limit.check_count(path, n),
        None => Ok(()),
    },
    sources: |path| Ok(vec![path.to_path_buf()]),
    mpi: crate::program::MpiModel::default,
    records_mpi: false,
    write: None,
    collectives_note: None,
};

/// Whether the first content line of a file is GOAL's: `num_ranks N`, or a comment.
pub fn is_goal_line(line: &str) -> bool {
    let mut t = line.split_ascii_whitespace();
    (t.next() == Some("num_ranks") && t.next().is_some_and(|n| n.parse::<u64>().is_ok()))
        || line.starts_with("//")
        || line.starts_with("/*")
}

/// Reads the GOAL schedule at `path` (plain or zstd) into a dependency-graph program.
pub fn read(path: &Path, cycles_per_second: f64) -> Result<Program> {
    graph::build(decode(path, cycles_per_second)?)
}

/// The rank count of the `num_ranks` line, if it is among the first lines.
pub(super) fn declared_ranks(path: &Path) -> Result<Option<u64>> {
    let mut found = None;
    let name = path.display().to_string();
    let r = each_line(&name, path, |_, tokens| {
        if let [(_, "num_ranks"), (_, n), ..] = tokens {
            found = n.parse().ok();
        }
        Err(Error::Invalid(String::new()))
    });
    match r {
        Ok(()) | Err(Error::Invalid(_)) => Ok(found),
        Err(e) => Err(e),
    }
}

/// A token and its 1-based column.
type Token<'a> = (usize, &'a str);

/// Calls `each(line_no, tokens)` for every line with tokens, comments removed; `{`, `}` and `:` are
/// tokens of their own.
fn each_line(
    name: &str,
    path: &Path,
    mut each: impl FnMut(usize, &[Token]) -> Result<()>,
) -> Result<()> {
    let mut input = super::open(path)?;
    let mut line = String::new();
    let mut in_comment = false;
    let mut tokens: Vec<(usize, String)> = Vec::new();
    for no in 1.. {
        line.clear();
        let n = std::io::BufRead::read_line(&mut input, &mut line).map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidData {
                Error::File {
                    path: name.to_string(),
                    line: no,
                    column: 1,
                    message: "not UTF-8 text: is this a GOAL schedule?".into(),
                }
            } else {
                Error::io(name)(e)
            }
        })?;
        if n == 0 {
            return Ok(());
        }
        tokens.clear();
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if in_comment {
                match bytes[i..].windows(2).position(|w| w == b"*/") {
                    Some(end) => {
                        i += end + 2;
                        in_comment = false;
                        continue;
                    }
                    None => break,
                }
            }
            let c = bytes[i];
            // Byte-wise: a line may hold non-ASCII text, which must not be sliced inside a character.
            if bytes[i..].starts_with(b"//") {
                break;
            } else if bytes[i..].starts_with(b"/*") {
                in_comment = true;
                i += 2;
            } else if c.is_ascii_whitespace() {
                i += 1;
            } else if matches!(c, b'{' | b'}' | b':') {
                tokens.push((i + 1, (c as char).to_string()));
                i += 1;
            } else {
                let start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !matches!(bytes[i], b'{' | b'}' | b':')
                    && !bytes[i..].starts_with(b"//")
                    && !bytes[i..].starts_with(b"/*")
                {
                    i += 1;
                }
                tokens.push((start + 1, line[start..i].to_string()));
            }
        }
        if !tokens.is_empty() {
            let view: Vec<Token> = tokens.iter().map(|(c, t)| (*c, t.as_str())).collect();
            each(no, &view)?;
        }
    }
    Ok(())
}

/// A dependency line: (dependent label, its (line, column), required label, its (line, column),
/// whether it is a start dependency).
type Dep = (String, (usize, usize), String, (usize, usize), bool);

/// One rank block being read: its ops, their labels, and dependencies to resolve at its end.
#[derive(Default)]
struct Block {
    rank: u32,
    nodes: Vec<Node>,
    labels: HashMap<String, u32>,
    deps: Vec<Dep>,
}

/// Decodes the schedule at `path` into each rank's nodes.
fn decode(path: &Path, cycles_per_second: f64) -> Result<Vec<Vec<Node>>> {
    let name = path.display().to_string();
    let err = |line: usize, column: usize, message: String| Error::File {
        path: name.clone(),
        line,
        column,
        message,
    };
    let mut ranks: Option<Vec<Option<Vec<Node>>>> = None;
    let mut block: Option<Block> = None;
    let mut last_line = 0;
    each_line(&name, path, |no, tokens| {
        last_line = no;
        let at = |col: usize| format!("{name}:{no}:{col}");
        let first = tokens[0];
        let Some(b) = block.as_mut() else {
            return match tokens {
                [(_, "num_ranks"), (c, n)] => {
                    if ranks.is_some() {
                        return Err(err(no, first.0, "a second `num_ranks` line".into()));
                    }
                    let n: u64 = n.parse().map_err(|_| {
                        err(no, *c, format!("expected the rank count, found `{n}`"))
                    })?;
                    super::limits::RankLimit::default()
                        .count(n)
                        .map_err(|m| err(no, *c, m))?;
                    if n < 2 {
                        return Err(err(no, *c, "a replay needs at least 2 ranks".into()));
                    }
                    ranks = Some(vec![None; n as usize]);
                    Ok(())
                }
                [(_, "rank"), (c, r), (_, "{")] => {
                    let Some(all) = ranks.as_ref() else {
                        return Err(err(no, first.0, "a rank block before `num_ranks N`".into()));
                    };
                    let rank = r
                        .parse::<u32>()
                        .ok()
                        .filter(|&r| (r as usize) < all.len())
                        .ok_or_else(|| {
                            err(
                                no,
                                *c,
                                format!("expected a rank below {}, found `{r}`", all.len()),
                            )
                        })?;
                    if all[rank as usize].is_some() {
                        return Err(err(no, *c, format!("a second block for rank {rank}")));
                    }
                    block = Some(Block {
                        rank,
                        ..Block::default()
                    });
                    Ok(())
                }
                _ => Err(err(
                    no,
                    first.0,
                    format!("expected `num_ranks N` or `rank R {{`, found `{}`", first.1),
                )),
            };
        };
        if first.1 == "}" {
            if let Some(&(c, t)) = tokens.get(1) {
                return Err(err(
                    no,
                    c,
                    format!("expected the end of the line, found `{t}`"),
                ));
            }
            let b = block.take().expect("in a block");
            let rank = b.rank;
            let nodes = finish(b, &name)?;
            ranks.as_mut().expect("checked at the block's start")[rank as usize] = Some(nodes);
            return Ok(());
        }
        // `LABEL: op ...`, `op ...` or `LABEL requires|irequires LABEL`.
        let (label, rest) = match tokens {
            [(c, l), (_, ":"), rest @ ..] => (Some((*c, *l)), rest),
            _ => (None, tokens),
        };
        if let (None, [(c1, l1), (_, kind @ ("requires" | "irequires")), (c2, l2)]) = (label, rest)
        {
            b.deps.push((
                l1.to_string(),
                (no, *c1),
                l2.to_string(),
                (no, *c2),
                *kind == "irequires",
            ));
            return Ok(());
        }
        let Some(&(c, _)) = rest.first() else {
            return Err(err(
                no,
                tokens[tokens.len() - 1].0,
                "expected an operation after the label".into(),
            ));
        };
        let node = operation(rest, cycles_per_second, at(c)).map_err(|(col, m)| err(no, col, m))?;
        if let Some((c, l)) = label {
            if !is_label(l) {
                return Err(err(
                    no,
                    c,
                    format!("`{l}` is not a label (a letter, then letters, digits or _)"),
                ));
            }
            let index = b.nodes.len() as u32;
            if b.labels.insert(l.to_string(), index).is_some() {
                return Err(err(
                    no,
                    c,
                    format!("label `{l}` is defined twice in rank {}", b.rank),
                ));
            }
        }
        b.nodes.push(node);
        Ok(())
    })?;
    if let Some(b) = block {
        return Err(err(
            last_line,
            1,
            format!("the block of rank {} has no closing `}}`", b.rank),
        ));
    }
    let Some(ranks) = ranks else {
        return Err(err(
            1,
            1,
            "no `num_ranks N` line: is this a GOAL schedule?".into(),
        ));
    };
    Ok(ranks.into_iter().map(Option::unwrap_or_default).collect())
}

fn is_label(l: &str) -> bool {
    l.starts_with(|c: char| c.is_ascii_alphabetic())
        && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Resolves a block's dependencies by label.
fn finish(mut b: Block, name: &str) -> Result<Vec<Node>> {
    for (dependent, (l1, c1), required, (l2, c2), start) in std::mem::take(&mut b.deps) {
        let find = |label: &str, line: usize, column: usize| {
            b.labels.get(label).copied().ok_or_else(|| Error::File {
                path: name.to_string(),
                line,
                column,
                message: format!("no operation of rank {} is labelled `{label}`", b.rank),
            })
        };
        let d = find(&dependent, l1, c1)?;
        let r = find(&required, l2, c2)?;
        let node = &mut b.nodes[d as usize];
        if start {
            node.irequires.push(r);
        } else {
            node.requires.push(r);
        }
    }
    Ok(b.nodes)
}

/// Parses `send SIZEb to R [tag T] [cpu C] [nic N]`, `recv SIZEb from R [...]` or
/// `calc N [cpu C] [nic N]`; errors are (column, message).
fn operation(
    tokens: &[Token],
    cycles_per_second: f64,
    at: String,
) -> std::result::Result<Node, (usize, String)> {
    let (c0, kind) = tokens[0];
    let number = |i: usize, what: &str| -> std::result::Result<u64, (usize, String)> {
        let Some(&(c, t)) = tokens.get(i) else {
            let end = tokens.last().map_or(c0, |t| t.0 + t.1.len());
            return Err((end, format!("expected {what}, found the end of the line")));
        };
        if t == "-1" {
            return Err((
                c,
                format!(
                    "{what} -1 (any) is not supported: the MPI layer matches exact sources and tags"
                ),
            ));
        }
        t.parse()
            .map_err(|_| (c, format!("expected {what}, found `{t}`")))
    };
    let mut i;
    let action = match kind {
        "send" | "recv" => {
            let (c, size) = *tokens.get(1).ok_or((
                c0 + kind.len(),
                "expected a size in bytes (`8b`)".to_string(),
            ))?;
            let (digits, mut next) = match size.strip_suffix('b') {
                Some(d) => (d, 2),
                None if tokens.get(2).is_some_and(|t| t.1 == "b") => (size, 3),
                None => {
                    return Err((
                        c,
                        format!("expected a size in bytes such as `8b`, found `{size}`"),
                    ));
                }
            };
            let bytes: u64 = digits.parse().map_err(|_| {
                (
                    c,
                    format!("expected a size in bytes such as `8b`, found `{size}`"),
                )
            })?;
            let word = if kind == "send" { "to" } else { "from" };
            match tokens.get(next) {
                Some(&(_, w)) if w == word => next += 1,
                Some(&(c, w)) => return Err((c, format!("expected `{word}`, found `{w}`"))),
                None => return Err((c + size.len(), format!("expected `{word}` and a rank"))),
            }
            let peer = number(next, "a rank")?;
            let peer =
                u32::try_from(peer).map_err(|_| (tokens[next].0, "rank too large".to_string()))?;
            i = next + 1;
            let mut tag = 0u32;
            if tokens.get(i).is_some_and(|t| t.1 == "tag") {
                let t = number(i + 1, "a tag")?;
                tag = u32::try_from(t).map_err(|_| {
                    (
                        tokens[i + 1].0,
                        format!("tag {t} is past the largest, {}", u32::MAX),
                    )
                })?;
                i += 2;
            }
            if kind == "send" {
                Action::Send {
                    to: peer,
                    bytes,
                    tag: u64::from(tag),
                }
            } else {
                Action::Recv {
                    from: peer,
                    tag: u64::from(tag),
                }
            }
        }
        "calc" => {
            let n = number(1, "a duration")?;
            i = 2;
            let cycles = (n as f64 * cycles_per_second / 1e9).round();
            if cycles.is_nan() || cycles >= crate::network::MAX_CYCLE as f64 {
                return Err((
                    tokens[1].0,
                    format!("calc {n} is past the simulator's clock"),
                ));
            }
            Action::Calc {
                cycles: cycles as u64,
            }
        }
        "put" | "get" | "append" | "handler" | "handlers" | "ph" | "hh" | "ch" | "pth" => {
            return Err((
                c0,
                format!(
                    "`{kind}` is a LogGOPSim2 Portals/sPIN operation, which netreplay does not \
                     model (it replays MPI-style send, recv and calc only)"
                ),
            ));
        }
        other => {
            return Err((
                c0,
                format!("expected `send`, `recv` or `calc`, found `{other}`"),
            ));
        }
    };
    let mut cpu = 0u32;
    let (mut seen_cpu, mut seen_nic) = (false, false);
    while let Some(&(c, key)) = tokens.get(i) {
        match key {
            "cpu" if !seen_cpu => {
                seen_cpu = true;
                let v = number(i + 1, "a CPU number")?;
                cpu = u32::try_from(v)
                    .map_err(|_| (tokens[i + 1].0, "CPU number too large".to_string()))?;
            }
            "nic" if !seen_nic => {
                number(i + 1, "a NIC number")?;
                seen_nic = true;
            }
            other => {
                return Err((
                    c,
                    format!("expected `tag`, `cpu`, `nic` or the end of the line, found `{other}`"),
                ));
            }
        }
        i += 2;
    }
    Ok(Node {
        action,
        cpu,
        requires: Vec::new(),
        irequires: Vec::new(),
        at,
    })
}
