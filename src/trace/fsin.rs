//! Import of INSEE/FSIN `.trc` traces (the trace format of the simulator the seed-004 authors used).
//!
//! One global file; each line is an event of one node, and each node runs its own events in file
//! order: `s SRC DST TAG BYTES` queues a non-blocking send at SRC, `r SRC DST TAG BYTES` is a blocking
//! receive at DST of a message from SRC with TAG (INSEE also compares the length; netreplay matches
//! source and tag, as MPI does), `c NODE AMOUNT` is computation at NODE, taken as AMOUNT network cycles
//! (INSEE's unit is a simulator setting; cycles is our documented choice). `#` starts a comment line;
//! blank lines are skipped; the last line may lack its newline. The rank count is the largest node id
//! plus one (a first pass finds it, so the file is streamed twice and never held as text).

use super::limits::RankLimit;
use super::simgrid::{Line, lines, located};
use crate::error::{Error, Result};
use crate::mpi::call::{Call, SendMode, Source, TagSel, WORLD};
use crate::mpi::collectives::Algorithms;
use crate::mpi::{Builder, Pos};
use crate::program::{Op, Program};
use std::path::Path;

/// FSIN's `.trc` in the registry of [`crate::trace::formats`]: told by an event line, also written.
pub const FORMAT: super::formats::Descriptor = super::formats::Descriptor {
    name: "trc",
    aliases: &["fsin"],
    help: "INSEE/FSIN .trc traces (blocking point-to-point and computation; also written)",
    cache_tag: "Fsin",
    detect_path: None,
    detect_line: Some(|_, line| is_event_line(line)),
    folder: None,
    read: |path, _| read(path),
    check_ranks: |path, limit| count_ranks(path, limit).map(drop),
    sources: |path| Ok(vec![path.to_path_buf()]),
    mpi: crate::program::MpiModel::default,
    records_mpi: false,
    write: Some(super::formats::Writer {
        check: |program| write_events(program, &mut std::io::sink()),
        body: |program, out| {
            write_events(program, &mut &mut *out).map_err(|e| std::io::Error::other(e.to_string()))
        },
    }),
    collectives_note: None,
};

/// Whether `line` (the first content line of a file) looks like an FSIN event.
pub fn is_event_line(line: &str) -> bool {
    let t: Vec<&str> = line.split_ascii_whitespace().collect();
    let numeric = |s: &[&str]| s.iter().all(|x| x.parse::<u64>().is_ok());
    match t.first() {
        Some(&"s") | Some(&"r") => t.len() == 5 && numeric(&t[1..]),
        Some(&"c") => t.len() == 3 && numeric(&t[1..]),
        _ => false,
    }
}

type LineError = (usize, String);

/// A whole number field no larger than `max`.
fn field(line: &Line, i: usize, what: &str, max: u64) -> Result<u64, LineError> {
    let (col, t) = line.get(i, what)?;
    match t.parse::<u64>() {
        Ok(v) if v <= max => Ok(v),
        Ok(_) => Err((col, format!("{what} `{t}` is too large (at most {max})"))),
        Err(_) => Err((
            col,
            format!("expected {what} (a whole number), found `{t}`"),
        )),
    }
}

/// One event: (node, op).
fn event(line: &Line, ranks: u64) -> Result<(u32, Op), LineError> {
    let (col, kind) = line.get(0, "an event (`s`, `r` or `c`)")?;
    let node = |i, what| -> Result<u32, LineError> {
        let v = field(line, i, what, u64::from(u32::MAX))?;
        if v >= ranks {
            return Err((
                line.tokens[i].0,
                format!("node {v} out of range 0..{ranks}"),
            ));
        }
        Ok(v as u32)
    };
    let (at, op) = match kind {
        "s" | "r" => {
            let src = node(1, "a source node")?;
            let dst = node(2, "a destination node")?;
            let tag = field(line, 3, "a tag", u64::from(u32::MAX))?;
            let bytes = field(line, 4, "a length in bytes", u64::MAX)?;
            if kind == "s" {
                (
                    src,
                    Op::Send {
                        to: dst,
                        bytes,
                        tag,
                    },
                )
            } else {
                (dst, Op::Recv { from: src, tag })
            }
        }
        "c" => (
            node(1, "a node")?,
            Op::Compute {
                cycles: field(line, 2, "an amount", u64::MAX)?,
            },
        ),
        other => {
            return Err((
                col,
                format!("expected an event (`s`, `r` or `c`), found `{other}`"),
            ));
        }
    };
    let want = if kind == "c" { 3 } else { 5 };
    if let Some(&(c, t)) = line.tokens.get(want) {
        return Err((c, format!("expected end of line, found `{t}`")));
    }
    Ok((at, op))
}

/// The rank count of the `.trc` file at `path` (the largest node named, plus one), checking every
/// line's syntax; refused at the first line naming a node past `limit`, before anything per node is
/// allocated.
pub fn count_ranks(path: &Path, limit: &RankLimit) -> Result<u64> {
    let name = path.display().to_string();
    let mut ranks = 0u64;
    lines(&name, super::open(path)?, |no, text| {
        let line = Line::new(text);
        let at = |e| located(&name)(no, e);
        let (node, op) = event(&line, u64::from(u32::MAX) + 1).map_err(at)?;
        let peer = match op {
            Op::Send { to, .. } => (to, 2),
            Op::Recv { from, .. } => (from, 1),
            _ => (node, 1),
        };
        let own = if matches!(op, Op::Recv { .. }) { 2 } else { 1 };
        for (n, i) in [(node, own), peer] {
            limit
                .rank(u64::from(n))
                .map_err(|m| at((line.tokens[i].0, m)))?;
        }
        ranks = ranks.max(u64::from(node.max(peer.0)) + 1);
        Ok(())
    })?;
    Ok(ranks)
}

/// Reads the `.trc` file at `path` (plain or zstd).
pub fn read(path: &Path) -> Result<Program> {
    let name = path.display().to_string();
    let at = located(&name);
    let ranks = count_ranks(path, &RankLimit::default())?;
    if ranks < 2 {
        return Err(Error::Invalid(format!(
            "{name}: the trace names fewer than 2 nodes; a replay needs at least 2"
        )));
    }
    let mut builder = Builder::new(ranks as u32, &Algorithms::default())?;
    let file = builder.file(&name, false);
    lines(&name, super::open(path)?, |no, text| {
        let (node, op) = event(&Line::new(text), ranks).map_err(|e| at(no, e))?;
        let call = match op {
            Op::Send { to, bytes, tag } => Call::Send {
                comm: WORLD,
                dest: to,
                tag,
                bytes,
                mode: SendMode::Detached,
                req: None,
            },
            Op::Recv { from, tag } => Call::Recv {
                comm: WORLD,
                source: Source::Rank(from),
                tag: TagSel::Tag(tag),
                req: None,
                status: None,
            },
            Op::Compute { cycles } => Call::Compute { cycles },
            _ => unreachable!("event() decodes sends, receives and computation only"),
        };
        builder.push(
            node,
            call,
            Pos {
                file,
                at: no as u64,
            },
        );
        Ok(())
    })?;
    builder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_and_detection() {
        assert!(is_event_line("s 0 1 14 1"));
        assert!(is_event_line("c 3 100"));
        assert!(!is_event_line("s 0 1 14"));
        assert!(!is_event_line("0 send 1 0 1e6"));
        let (n, op) = event(&Line::new("r 2 5 7 64"), 8).unwrap();
        assert_eq!((n, op), (5, Op::Recv { from: 2, tag: 7 }));
        let e = event(&Line::new("s 2 9 7 64"), 8).unwrap_err();
        assert_eq!(e, (5, "node 9 out of range 0..8".to_string()));
        let e = event(&Line::new("x 2 9 7 64"), 8).unwrap_err();
        assert_eq!(e.0, 1);
        let e = event(&Line::new("c 1 5 6"), 8).unwrap_err();
        assert_eq!(e, (7, "expected end of line, found `6`".to_string()));
    }
}

/// Writes `program` as an FSIN `.trc` trace: each rank's events in program order, receives carrying the
/// size of the send they match (INSEE compares lengths), computation as `c` lines. An `Isend` waited on
/// at once (how the MPI layer lowers a blocking send) is a send. FSIN has no other non-blocking
/// operations, so a program with them is refused, naming the first.
pub fn write_events(program: &Program, out: &mut impl std::io::Write) -> Result<()> {
    use std::collections::{HashMap, VecDeque};
    let mut sizes: HashMap<(u32, u32, u64), VecDeque<u64>> = HashMap::new();
    for (from, to, bytes, tag) in program.sends() {
        sizes.entry((from, to, tag)).or_default().push_back(bytes);
    }
    let io = |e: std::io::Error| Error::Invalid(format!("writing an FSIN trace: {e}"));
    for r in 0..program.ranks() {
        let ops = program.rank_ops(r);
        let mut i = 0;
        while let Some(op) = ops.get(i) {
            i += 1;
            match *op {
                Op::Isend {
                    to,
                    bytes,
                    tag,
                    req,
                } if ops.get(i) == Some(&Op::Wait { req }) => {
                    i += 1;
                    writeln!(out, "s {r} {to} {tag} {bytes}").map_err(io)?
                }
                Op::Send { to, bytes, tag } => {
                    writeln!(out, "s {r} {to} {tag} {bytes}").map_err(io)?
                }
                Op::Recv { from, tag } => {
                    let bytes = sizes
                        .get_mut(&(from, r, tag))
                        .and_then(VecDeque::pop_front)
                        .unwrap_or(0);
                    writeln!(out, "r {from} {r} {tag} {bytes}").map_err(io)?
                }
                Op::Compute { cycles } => writeln!(out, "c {r} {cycles}").map_err(io)?,
                other => {
                    return Err(Error::Invalid(format!(
                        "rank {r} uses {other:?}, which the FSIN .trc format cannot express (it has only blocking send, receive and computation); write the native format instead"
                    )));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod writer_tests {
    use super::*;

    #[test]
    fn receives_carry_the_matched_size_and_nonblocking_ops_are_refused() {
        let p = Program::from_fn(2, |r, ops| match r {
            0 => {
                ops.push(Op::Send {
                    to: 1,
                    bytes: 100,
                    tag: 2,
                });
                ops.push(Op::Compute { cycles: 7 });
            }
            _ => ops.push(Op::Recv { from: 0, tag: 2 }),
        });
        let mut out = Vec::new();
        write_events(&p, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "s 0 1 2 100\nc 0 7\nr 0 1 2 100\n"
        );
        let p = Program::from_fn(2, |r, ops| {
            if r == 0 {
                ops.push(Op::Isend {
                    to: 1,
                    bytes: 1,
                    tag: 0,
                    req: 1,
                });
            }
        });
        let e = write_events(&p, &mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("Isend") && e.contains("cannot express"), "{e}");
    }
}
