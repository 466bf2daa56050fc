//! One event line of the native format to the MPI [`Call`]s it stands for (`traces/FORMAT.md`).
//!
//! The reader only decodes: ranks stay relative to the line's communicator (`@C`, default world) and
//! handles stay the rank's own; the MPI layer ([`crate::mpi::Builder`]) does the rest. What can be
//! checked on the line itself is checked here, with its column: ranks of world, request handles posted
//! twice or waited on without being posted, the format version each keyword needs.

use super::fields::{Fields, LineError, parse_number};
use crate::mpi::call::{Call, Collective, CommHandle, SendMode, Source, Status, TagSel, WORLD};
use crate::mpi::handle_map::HandleMap;

/// Largest request handle (the runtime keeps the top two values for itself).
pub(super) const MAX_REQ: u64 = u32::MAX as u64 - 2;

/// Largest tag: MPI tags are C `int`s, but world-communicator lines of written traces carry the
/// lowered matching tags of collectives (up to 2^63).
const MAX_TAG: u64 = (1 << 63) - 1;

/// What the reader tracks per rank: request handles posted and not yet completed.
#[derive(Debug, Default, Clone)]
pub(super) struct RankState {
    /// `true` for a handle an unrecorded waitany listed: it may have completed there, so posting
    /// it anew is no error.
    pub(super) outstanding: HandleMap<bool>,
}

/// The event keywords (all of them, so the error can list them).
const KEYWORDS: &[(&str, u32)] = &[
    ("send", 1),
    ("recv", 1),
    ("compute", 1),
    ("isend", 2),
    ("irecv", 2),
    ("wait", 2),
    ("waitall", 2),
    ("barrier", 2),
    ("bcast", 2),
    ("reduce", 2),
    ("allreduce", 2),
    ("gather", 2),
    ("allgather", 2),
    ("alltoall", 2),
    ("scatter", 2),
    ("ssend", 3),
    ("issend", 3),
    ("sendrecv", 3),
    ("waitany", 3),
    ("waitsome", 3),
    ("test", 3),
    ("testany", 3),
    ("testall", 3),
    ("testsome", 3),
    ("scan", 3),
    ("exscan", 3),
    ("reduce_scatter", 3),
    ("reduce_scatter_block", 3),
    ("gatherv", 3),
    ("scatterv", 3),
    ("allgatherv", 3),
    ("alltoallv", 3),
    ("comm_split", 3),
    ("comm_dup", 3),
    ("comm_create", 3),
    ("comm_free", 3),
];

/// The collectives, each with a non-blocking form `i` + name from version 3.
const COLLECTIVES: &[&str] = &[
    "barrier",
    "bcast",
    "reduce",
    "allreduce",
    "gather",
    "allgather",
    "alltoall",
    "scatter",
    "scan",
    "exscan",
    "reduce_scatter",
    "reduce_scatter_block",
    "gatherv",
    "scatterv",
    "allgatherv",
    "alltoallv",
];

fn expected_event() -> String {
    let names: Vec<String> = KEYWORDS.iter().map(|(k, _)| format!("`{k}`")).collect();
    format!("an event ({}, or `i` + a collective)", names.join(", "))
}

/// A line split into its event part, its `@C` communicator and its `-> ...` recorded part.
struct Parts<'a> {
    event: Fields<'a>,
    comm: Option<(usize, &'a str)>,
    recorded: Option<Fields<'a>>,
}

fn split(content: &str) -> Parts<'_> {
    let (before, recorded) = match content.find("->") {
        Some(i) => (&content[..i], Some(&content[i + 2..])),
        None => (content, None),
    };
    let (event, comm) = match before.rfind('@') {
        Some(i) => (
            &before[..i],
            Some((before[..i].chars().count() + 2, before[i + 1..].trim())),
        ),
        None => (before, None),
    };
    Parts {
        event: Fields::new(event),
        comm,
        recorded: recorded.map(Fields::new),
    }
}

/// A rank field of world.
pub(super) fn world_rank(fields: &mut Fields, what: &str, ranks: u32) -> Result<u32, LineError> {
    let (col, r) = fields.number(what, u64::from(u32::MAX))?;
    if r >= u64::from(ranks) {
        return Err((col, format!("rank {r} out of range 0..{ranks}")));
    }
    Ok(r as u32)
}

/// Reads one event line of rank `states[r]`; returns the rank and appends its calls to `out`.
pub(super) fn event(
    content: &str,
    states: &mut [RankState],
    version: u32,
    out: &mut Vec<Call>,
) -> Result<u32, LineError> {
    let ranks = states.len() as u32;
    let Parts {
        event: mut f,
        comm,
        recorded,
    } = split(content);
    let r = world_rank(&mut f, "a rank", ranks)?;
    let (col, k) = f.expect(&expected_event())?;
    let (name, nonblocking) = match k.strip_prefix('i') {
        Some(c) if COLLECTIVES.contains(&c) => (c, true),
        _ => (k, false),
    };
    let Some(&(_, min)) = KEYWORDS.iter().find(|(w, _)| *w == name) else {
        return Err((col, format!("expected {}, found `{k}`", expected_event())));
    };
    let min = if nonblocking { 3 } else { min };
    if min > version {
        return Err((
            col,
            format!("`{k}` needs format version {min} (the header says {version})"),
        ));
    }
    let comm_handle = match comm {
        None => WORLD,
        Some((ccol, text)) => {
            if version < 3 {
                return Err((ccol - 1, "`@` communicators need format version 3".into()));
            }
            parse_number(ccol, text, "a communicator handle", u64::from(u32::MAX))?.1 as u32
        }
    };
    let mut line = Line {
        f,
        recorded,
        state: &mut states[r as usize],
        ranks,
        comm: comm_handle,
        me: r,
    };
    line.decode(name, nonblocking, out)?;
    line.f.finish()?;
    if let Some(rec) = &mut line.recorded {
        rec.finish()?;
    }
    Ok(r)
}

/// One line being decoded.
struct Line<'a, 's> {
    f: Fields<'a>,
    recorded: Option<Fields<'a>>,
    state: &'s mut RankState,
    ranks: u32,
    comm: CommHandle,
    me: u32,
}

impl Line<'_, '_> {
    /// A peer or root: checked against world's ranks when the line is on world.
    fn rank(&mut self, what: &str) -> Result<u32, LineError> {
        if self.comm == WORLD {
            world_rank(&mut self.f, what, self.ranks)
        } else {
            Ok(self.f.number(what, u64::from(u32::MAX))?.1 as u32)
        }
    }

    fn source(&mut self) -> Result<Source, LineError> {
        if self.f.peek() == Some("any") {
            self.f.next();
            return Ok(Source::Any);
        }
        self.rank("a source rank").map(Source::Rank)
    }

    fn bytes(&mut self) -> Result<u64, LineError> {
        Ok(self.f.number("a size in bytes", u64::MAX)?.1)
    }

    fn post(&mut self, col: usize, req: u64) -> Result<u32, LineError> {
        let req = req as u32;
        if let Some(false) = self.state.outstanding.insert(req, false) {
            return Err((
                col,
                format!("rank {} reuses request {req} before waiting on it", self.me),
            ));
        }
        Ok(req)
    }

    /// A request handle that must be outstanding; it completes.
    fn complete(&mut self, col: usize, req: u64) -> Result<u32, LineError> {
        let req = req as u32;
        if self.state.outstanding.remove(req).is_none() {
            return Err((
                col,
                format!(
                    "rank {} waits on request {req}, which it has not posted (or already waited on)",
                    self.me
                ),
            ));
        }
        Ok(req)
    }

    /// `[TAG] REQ` closing an `isend`/`irecv`: one field is the request (tag 0), two are tag and
    /// request. The tag may be `any` on receives.
    fn tag_then_request(&mut self, any_ok: bool) -> Result<(TagSel, u32), LineError> {
        let tag = if self.f.remaining() >= 2 {
            match self.f.number_or_any("a tag", MAX_TAG)? {
                Some(t) => TagSel::Tag(t),
                None if any_ok => TagSel::Any,
                None => return Err((1, "a send needs a tag, not `any`".into())),
            }
        } else {
            TagSel::Tag(0)
        };
        let (col, req) = self.f.number("a request handle", MAX_REQ)?;
        Ok((tag, self.post(col, req)?))
    }

    /// The `-> SRC TAG` status a wildcard receive recorded.
    fn status(&mut self) -> Result<Option<Status>, LineError> {
        let Some(rec) = &mut self.recorded else {
            return Ok(None);
        };
        let source = rec.number("a recorded source rank", u64::from(u32::MAX))?.1 as u32;
        let tag = rec.number("a recorded tag", MAX_TAG)?.1;
        Ok(Some(Status { source, tag }))
    }

    /// Request handles listed on the line (all remaining fields).
    fn requests(&mut self) -> Result<Vec<(usize, u64)>, LineError> {
        let mut v = Vec::new();
        while let Some((col, t)) = self.f.next() {
            v.push(parse_number(col, t, "a request handle", MAX_REQ)?);
        }
        Ok(v)
    }

    fn counts(&mut self) -> Result<Vec<u64>, LineError> {
        self.f.numbers("a size in bytes", u64::MAX)
    }

    fn decode(
        &mut self,
        name: &str,
        nonblocking: bool,
        out: &mut Vec<Call>,
    ) -> Result<(), LineError> {
        let comm = self.comm;
        let req = if nonblocking {
            let (col, req) = self.f.number("a request handle", MAX_REQ)?;
            Some(self.post(col, req)?)
        } else {
            None
        };
        let collective = match name {
            "send" | "ssend" | "isend" | "issend" => {
                let dest = self.rank("a destination rank")?;
                let bytes = self.bytes()?;
                // `send` is the format's non-blocking send (the rank goes on at once, as in versions
                // 1 and 2); `isend` a request; `ssend` and `issend` synchronous.
                let mode = match name {
                    "send" => SendMode::Detached,
                    "isend" => SendMode::Standard,
                    _ => SendMode::Synchronous,
                };
                let (tag, req) = if name.starts_with('i') {
                    let (t, req) = self.tag_then_request(false)?;
                    let TagSel::Tag(t) = t else { unreachable!() };
                    (t, Some(req))
                } else {
                    (self.f.optional_number("a tag", MAX_TAG)?.unwrap_or(0), None)
                };
                out.push(Call::Send {
                    comm,
                    dest,
                    tag,
                    bytes,
                    mode,
                    req,
                });
                return Ok(());
            }
            "recv" | "irecv" => {
                let source = self.source()?;
                let (tag, req) = if name == "irecv" {
                    let (t, req) = self.tag_then_request(true)?;
                    (t, Some(req))
                } else {
                    let tag = match self.f.next() {
                        None => TagSel::Tag(0),
                        Some((_, "any")) => TagSel::Any,
                        Some((col, t)) => TagSel::Tag(parse_number(col, t, "a tag", MAX_TAG)?.1),
                    };
                    (tag, None)
                };
                let status = if req.is_none() { self.status()? } else { None };
                out.push(Call::Recv {
                    comm,
                    source,
                    tag,
                    req,
                    status,
                });
                return Ok(());
            }
            "sendrecv" => {
                let dest = self.rank("a destination rank")?;
                let bytes = self.bytes()?;
                let send_tag = self.f.number("a send tag", MAX_TAG)?.1;
                let source = self.source()?;
                let recv_tag = match self.f.number_or_any("a receive tag", MAX_TAG)? {
                    Some(t) => TagSel::Tag(t),
                    None => TagSel::Any,
                };
                let status = self.status()?;
                out.push(Call::Sendrecv {
                    comm,
                    dest,
                    send_tag,
                    bytes,
                    source,
                    recv_tag,
                    status,
                });
                return Ok(());
            }
            "compute" => {
                let cycles = self.f.number("a number of cycles", u64::MAX)?.1;
                out.push(Call::Compute { cycles });
                return Ok(());
            }
            "wait" => {
                let (col, req) = self.f.number("a request handle", MAX_REQ)?;
                let req = self.complete(col, req)?;
                let status = self.status()?;
                out.push(Call::Wait { req, status });
                return Ok(());
            }
            "waitall" => {
                let list = self.requests()?;
                if list.is_empty() {
                    self.state.outstanding.clear();
                    out.push(Call::WaitAll { reqs: None });
                } else {
                    let reqs = list
                        .into_iter()
                        .map(|(col, r)| self.complete(col, r))
                        .collect::<Result<_, _>>()?;
                    out.push(Call::WaitAll { reqs: Some(reqs) });
                }
                return Ok(());
            }
            "waitany" | "waitsome" | "test" | "testany" | "testall" | "testsome" => {
                let list = self.requests()?;
                if list.is_empty() {
                    return Err((1, format!("`{name}` needs at least one request handle")));
                }
                let listed: Vec<u32> = list.iter().map(|&(_, r)| r as u32).collect();
                match self.recorded.take() {
                    Some(mut rec) => {
                        // The trace records which requests completed: each is a wait here.
                        while let Some((col, t)) = rec.next() {
                            let (_, r) = parse_number(col, t, "a completed request", MAX_REQ)?;
                            if !listed.contains(&(r as u32)) {
                                return Err((col, format!("request {r} is not in the list")));
                            }
                            let req = self.complete(col, r)?;
                            out.push(Call::Wait { req, status: None });
                        }
                    }
                    None if name.starts_with("wait") => {
                        let open: Vec<u32> = listed
                            .iter()
                            .copied()
                            .filter(|&r| self.state.outstanding.contains_key(r))
                            .collect();
                        // A waitany's requests stay outstanding (which completed, the replay decides);
                        // a waitsome completes every open one.
                        for &r in &open {
                            if name == "waitany" {
                                self.state.outstanding.insert(r, true);
                            } else {
                                self.state.outstanding.remove(r);
                            }
                        }
                        out.push(Call::WaitUnrecorded {
                            reqs: listed,
                            some: name == "waitsome",
                        });
                    }
                    // A test that records no completion completes nothing.
                    None => {}
                }
                return Ok(());
            }
            "comm_split" | "comm_dup" | "comm_create" | "comm_free" => {
                let handle = |f: &mut Fields, what| {
                    f.number(what, u64::from(u32::MAX)).map(|(_, v)| v as u32)
                };
                let call = match name {
                    "comm_free" => Call::CommFree {
                        comm: handle(&mut self.f, "a communicator handle")?,
                    },
                    "comm_dup" => Call::CommDup {
                        parent: handle(&mut self.f, "a parent communicator")?,
                        new: handle(&mut self.f, "a new communicator handle")?,
                    },
                    "comm_create" => Call::CommCreate {
                        parent: handle(&mut self.f, "a parent communicator")?,
                        new: handle(&mut self.f, "a new communicator handle")?,
                        group: self
                            .f
                            .numbers("a rank of the parent", u64::from(u32::MAX))?
                            .into_iter()
                            .map(|g| g as u32)
                            .collect(),
                    },
                    _ => {
                        let parent = handle(&mut self.f, "a parent communicator")?;
                        let color = match self.f.number_or_any("a colour", u64::from(u32::MAX)) {
                            Ok(c) => c.map(|c| c as u32),
                            Err(e) => return Err(e),
                        };
                        let (kcol, k) = self.f.expect("a key")?;
                        let key = k.parse::<i64>().map_err(|_| {
                            (
                                kcol,
                                format!("expected a key (a whole number), found `{k}`"),
                            )
                        })?;
                        Call::CommSplit {
                            parent,
                            color,
                            key,
                            new: handle(&mut self.f, "a new communicator handle")?,
                        }
                    }
                };
                out.push(call);
                return Ok(());
            }
            "barrier" => Collective::Barrier,
            "allreduce" | "allgather" | "alltoall" | "scan" | "exscan" | "reduce_scatter_block" => {
                let bytes = self.bytes()?;
                match name {
                    "allreduce" => Collective::Allreduce { bytes },
                    "allgather" => Collective::Allgather { bytes },
                    "alltoall" => Collective::Alltoall { bytes },
                    "scan" => Collective::Scan { bytes },
                    "exscan" => Collective::Exscan { bytes },
                    _ => Collective::ReduceScatterBlock { bytes },
                }
            }
            "bcast" | "reduce" | "gather" | "scatter" | "gatherv" => {
                let root = self.rank("a root rank")?;
                let bytes = self.bytes()?;
                match name {
                    "bcast" => Collective::Bcast { root, bytes },
                    "reduce" => Collective::Reduce { root, bytes },
                    "gather" => Collective::Gather { root, bytes },
                    "gatherv" => Collective::Gatherv { root, bytes },
                    _ => Collective::Scatter { root, bytes },
                }
            }
            "scatterv" => {
                let root = self.rank("a root rank")?;
                Collective::Scatterv {
                    root,
                    counts: self.counts()?,
                }
            }
            "reduce_scatter" => Collective::ReduceScatter {
                counts: self.counts()?,
            },
            "allgatherv" => Collective::Allgatherv {
                counts: self.counts()?,
            },
            _ => Collective::Alltoallv {
                send: self.counts()?,
            },
        };
        out.push(Call::Collective {
            comm,
            op: collective,
            req,
        });
        Ok(())
    }
}
