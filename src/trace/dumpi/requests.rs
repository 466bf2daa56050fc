//! Requests from posting to completion: sends and receives (blocking or not), persistent requests,
//! the completions waits and tests recorded, and MPI_Sendrecv (see [`super::calls`] for the rules).

use super::calls::{Msg, Op, Posted, RankCalls, rank, recorded, source_of, tag_of, tag_sel, times};
use super::comms::comm;
use super::functions::SENDRECV_REPLACE;
use super::header::Layout;
use super::record::{Args, RawStatus};
use crate::mpi::{Call, SendMode, Source, Status, TagSel};

/// DUMPI's MPI_REQUEST_NULL.
const REQUEST_NULL: i64 = 1;

impl RankCalls {
    /// A handle of the MPI layer never used before on this rank.
    pub(super) fn fresh(&mut self) -> Result<u32, Msg> {
        let h = self.next_handle;
        self.next_handle = h
            .checked_add(1)
            .ok_or("more than 2^32 requests posted by one rank")?;
        Ok(h)
    }

    /// Posts `op`: blocking (`req: None`, with the status a blocking receive recorded: `Some(None)`
    /// for MPI_STATUS_IGNORE, `None` when the trace records no statuses) or as request `req`.
    pub(super) fn post(
        &mut self,
        op: Op,
        req: Option<i64>,
        status: Option<Option<RawStatus>>,
        at: u64,
    ) -> Result<(), Msg> {
        let posted = match op {
            Op::Send {
                comm: c,
                dest,
                tag,
                bytes,
                mode,
            } => {
                if dest < 0 {
                    Posted::Null
                } else {
                    let handle = match req {
                        Some(_) => Some(self.fresh()?),
                        None => None,
                    };
                    self.emit(
                        Call::Send {
                            comm: comm(c),
                            dest: rank(dest, "destination")?,
                            tag: tag_of(tag)?,
                            bytes,
                            mode,
                            req: handle,
                        },
                        at,
                    )?;
                    match handle {
                        Some(handle) => Posted::Op {
                            handle,
                            call: self.calls.len() - 1,
                            wildcard: None,
                        },
                        None => Posted::Null,
                    }
                }
            }
            Op::Recv {
                comm: c,
                source,
                tag,
            } => {
                let Some(sel) = source_of(source) else {
                    return self.settle(req, Posted::Null);
                };
                let tsel = tag_sel(tag)?;
                match req {
                    None => {
                        let st = status.flatten();
                        if source == -1 && st.is_some_and(|s| s.source < 0) {
                            return Ok(()); // MPICH's MPI_PROC_NULL
                        }
                        let status = st.and_then(|s| recorded(s, tag));
                        let call = Call::Recv {
                            comm: comm(c),
                            source: sel,
                            tag: tsel,
                            req: None,
                            status,
                        };
                        return self.emit(call, at);
                    }
                    Some(_) => {
                        let handle = self.fresh()?;
                        let call = Call::Recv {
                            comm: comm(c),
                            source: sel,
                            tag: tsel,
                            req: Some(handle),
                            status: None,
                        };
                        self.emit(call, at)?;
                        let wild = sel == Source::Any || tsel == TagSel::Any;
                        Posted::Op {
                            handle,
                            call: self.calls.len() - 1,
                            wildcard: wild.then_some(source == -1),
                        }
                    }
                }
            }
        };
        self.settle(req, posted)
    }

    /// Marks request `req` (if any) active with `posted`.
    pub(super) fn settle(&mut self, req: Option<i64>, posted: Posted) -> Result<(), Msg> {
        if let Some(r) = req {
            self.requests.entry(r).or_default().active = Some(posted);
        }
        Ok(())
    }

    /// MPI_Start: posts persistent request `req` again.
    pub(super) fn start(&mut self, req: i64, at: u64) -> Result<(), Msg> {
        let op = self
            .requests
            .get(&req)
            .and_then(|r| r.persistent)
            .ok_or_else(|| format!("request {req} was not created by an MPI_*_init call"))?;
        self.post(op, Some(req), None, at)
    }

    /// Completes the listed requests with their recorded statuses, as one MPI_Waitall unless a
    /// wildcard receive needs its status carried by its own wait.
    pub(super) fn complete_all(
        &mut self,
        list: &[(i64, Option<RawStatus>)],
        at: u64,
    ) -> Result<(), Msg> {
        let mut done: Vec<(u32, Option<Status>)> = Vec::with_capacity(list.len());
        let mut wild = false;
        for &(r, st) in list {
            if r == REQUEST_NULL {
                continue;
            }
            let Some(entry) = self.requests.get_mut(&r) else {
                continue;
            };
            let Some(posted) = entry.active.take() else {
                continue;
            };
            let cancel = std::mem::take(&mut entry.cancel);
            if entry.persistent.is_none() {
                self.requests.remove(&r);
            }
            let Posted::Op {
                handle,
                call,
                wildcard,
            } = posted
            else {
                continue;
            };
            let never = match (cancel && st.is_some_and(|s| s.cancelled != 0), wildcard) {
                (true, _) => true,
                // MPICH's MPI_PROC_NULL: the receive never was one.
                (false, Some(true)) => st.is_some_and(|s| s.source < 0),
                _ => false,
            };
            if never {
                if let Some(c) = self.calls.get_mut(call) {
                    c.0 = None;
                }
                continue;
            }
            let mut status = None;
            if wildcard.is_some() {
                let tag = match self.calls.get(call).and_then(|c| c.0.as_ref()) {
                    Some(Call::Recv {
                        tag: TagSel::Tag(t),
                        ..
                    }) => i64::try_from(*t).unwrap_or(-1),
                    _ => -1,
                };
                status = st.and_then(|s| recorded(s, tag));
                wild = true;
            }
            done.push((handle, status));
        }
        match done.len() {
            0 => Ok(()),
            1 => {
                let (req, status) = done[0];
                self.emit(Call::Wait { req, status }, at)
            }
            _ if wild => {
                for (req, status) in done {
                    self.emit(Call::Wait { req, status }, at)?;
                }
                Ok(())
            }
            _ => self.emit(
                Call::WaitAll {
                    reqs: Some(done.into_iter().map(|(h, _)| h).collect()),
                },
                at,
            ),
        }
    }

    pub(super) fn sendrecv(
        &mut self,
        id: u16,
        a: &Args,
        layout: &Layout,
        at: u64,
    ) -> Result<(), Msg> {
        let replace = id == SENDRECV_REPLACE;
        // MPI_Sendrecv: sendcount sendtype dest sendtag recvcount recvtype source recvtag comm status;
        // MPI_Sendrecv_replace: count datatype dest sendtag source recvtag comm status.
        let (dest, stag, source, rtag, c, sk) = if replace {
            (a.int(2), a.int(3), a.int(4), a.int(5), a.int(6), 7)
        } else {
            (a.int(2), a.int(3), a.int(6), a.int(7), a.int(8), 9)
        };
        let bytes = times(a.int(0), layout.type_size(a.int(1))?)?;
        let st = a.statuses(sk).map(|s| s.first().copied());
        let null_source = source_of(source).is_none()
            || (source == -1 && st.flatten().is_some_and(|s| s.source < 0));
        let send = Op::Send {
            comm: c,
            dest,
            tag: stag,
            bytes,
            mode: SendMode::Standard,
        };
        if dest < 0 || null_source {
            if dest >= 0 {
                self.post(send, None, None, at)?;
            }
            if !null_source {
                let recv = Op::Recv {
                    comm: c,
                    source,
                    tag: rtag,
                };
                self.post(recv, None, st, at)?;
            }
            return Ok(());
        }
        let status = st.flatten().and_then(|s| recorded(s, rtag));
        self.emit(
            Call::Sendrecv {
                comm: comm(c),
                dest: rank(dest, "destination")?,
                send_tag: tag_of(stag)?,
                bytes,
                source: source_of(source).unwrap_or(Source::Any),
                recv_tag: tag_sel(rtag)?,
                status,
            },
            at,
        )
    }
}
