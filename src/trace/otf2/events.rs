//! One location's event records to its rank's MPI calls.
//!
//! Record layouts (`otf2.events`, ids of `otf2_events_int.h`): BufferFlush (10: stop time),
//! MeasurementOnOff (11: mode), Enter/Leave (12/13: region), MpiSend (14: receiver, communicator, tag,
//! length), MpiIsend (15: the same and a request id), MpiIsendComplete (16: request),
//! MpiIrecvRequest (17: request), MpiRecv (18: sender, communicator, tag, length), MpiIrecv (19: the
//! same and a request), MpiRequestTest (20), MpiRequestCancelled (21: request), MpiCollectiveBegin (22)
//! and MpiCollectiveEnd (23: operation, communicator, root, sizeSent, sizeReceived). Every other record
//! (OpenMP, threads, RMA, metrics, parameters, Score-P 8's CommCreate and ProgramBegin...) is skipped.
//!
//! What each becomes:
//! - Time outside MPI regions is computation: from the Leave of the outermost MPI region to the Enter
//!   of the next one, less Score-P's buffer flushes and the spans with measurement off (whose content
//!   is unknown), summed into one [`Call::Compute`] before the rank's next call (or at its end).
//! - MpiSend: a blocking [`Call::Send`], synchronous inside MPI_Ssend. MpiRecv: a blocking
//!   [`Call::Recv`] from the recorded sender. Inside MPI_Sendrecv(_replace) the two form one
//!   [`Call::Sendrecv`].
//! - MpiIsend: a send with a request (synchronous inside MPI_Issend); MpiIsendComplete: its
//!   [`Call::Wait`], where the wait or test that completed it ran.
//! - MpiIrecvRequest posts a receive whose communicator, source and tag only its completion
//!   (MpiIrecv) records: the call is a placeholder in the rank's stream, filled in at completion with
//!   the recorded communicator, source and tag (as the Builder would resolve a wildcard), and followed
//!   there by its [`Call::Wait`]. A request never completed (the trace ends, or it was cancelled)
//!   leaves no call; an MpiIrecv without its request record is a blocking receive at completion.
//! - MpiRequestTest (a test that did not complete) is skipped; MpiRequestCancelled removes the
//!   request's call.
//! - MpiCollectiveEnd: a [`Call::Collective`] (see `coll.rs` for the byte conventions).
//!
//! Request ids are Score-P's 64-bit ones; the calls use rank-local handles, reused once completed.

use super::Notes;
use super::buffer::{Cursor, Fault};
use super::coll::{self, Converted};
use super::defs::{Mappings, UNDEFINED};
use super::world::{self, CommInfo, MpiRegion, RegionKind, World};
use crate::mpi::{Call, CommHandle, ReqHandle, SendMode, Source, TagSel};
use ahash::AHashMap;

/// An open request.
#[derive(Debug, Clone, Copy)]
enum Req {
    /// A send, posted at `slot`.
    Send { handle: ReqHandle, slot: usize },
    /// A receive whose call waits at `slot` (posted at byte `at`) for its completion record.
    Recv {
        handle: ReqHandle,
        slot: usize,
        at: u64,
    },
}

impl Req {
    fn parts(self) -> (ReqHandle, usize) {
        match self {
            Req::Send { handle, slot } | Req::Recv { handle, slot, .. } => (handle, slot),
        }
    }
}

/// Half of a Sendrecv, waiting for the other.
#[derive(Debug, Clone, Copy)]
enum Half {
    Send {
        comm: CommHandle,
        dest: u32,
        tag: u64,
        bytes: u64,
    },
    Recv {
        comm: CommHandle,
        source: u32,
        tag: u64,
    },
}

/// Calls gathered before the decoder looks for some to hand on.
const DRAIN: usize = 1024;

/// Converts tick counts to cycles: rounded, saturating, never negative.
pub(super) fn cycles(ticks: u64, cycles_per_tick: f64) -> u64 {
    let c = ticks as f64 * cycles_per_tick;
    if c.is_nan() || c <= 0.0 {
        0
    } else if c >= u64::MAX as f64 {
        u64::MAX
    } else {
        c.round() as u64
    }
}

/// The decoder of one rank's event stream.
#[derive(Debug)]
pub(super) struct RankDecoder<'w> {
    world: &'w World,
    rank: u32,
    maps: Mappings,
    cycles_per_tick: f64,
    /// The rank's calls not yet handed on, with their byte offsets; `None`: a placeholder or a
    /// removed call. `out[i]` is slot `base + i`.
    out: Vec<Option<(Call, u64)>>,
    base: usize,
    /// `out` length at which [`RankDecoder::drain`] next looks for calls to hand on.
    drain_at: usize,
    /// Open MPI regions (id, kind), innermost last.
    mpi: Vec<(u32, MpiRegion)>,
    last_leave: Option<u64>,
    pending_ticks: u64,
    compute_at: u64,
    flush_ticks: u64,
    measuring: bool,
    reqs: AHashMap<u64, Req>,
    free: Vec<ReqHandle>,
    next_handle: ReqHandle,
    half: Option<(Half, u64)>,
    /// What was skipped.
    pub notes: Notes,
}

impl<'w> RankDecoder<'w> {
    /// A decoder for world rank `rank`, with its location's id maps.
    pub fn new(world: &'w World, rank: u32, maps: Mappings, cycles_per_second: f64) -> Self {
        RankDecoder {
            world,
            rank,
            maps,
            cycles_per_tick: cycles_per_second / world.ticks_per_second as f64,
            out: Vec::new(),
            base: 0,
            drain_at: DRAIN,
            mpi: Vec::new(),
            last_leave: None,
            pending_ticks: 0,
            compute_at: 0,
            flush_ticks: 0,
            measuring: true,
            reqs: AHashMap::new(),
            free: Vec::new(),
            next_handle: 0,
            half: None,
            notes: Notes::default(),
        }
    }

    fn flush_compute(&mut self) {
        if self.pending_ticks > 0 {
            let cycles = cycles(self.pending_ticks, self.cycles_per_tick);
            self.pending_ticks = 0;
            if cycles > 0 {
                self.out
                    .push(Some((Call::Compute { cycles }, self.compute_at)));
            }
        }
    }

    fn emit(&mut self, call: Call, at: u64) -> usize {
        self.flush_compute();
        self.out.push(Some((call, at)));
        self.base + self.out.len() - 1
    }

    fn reserve(&mut self) -> usize {
        self.flush_compute();
        self.out.push(None);
        self.base + self.out.len() - 1
    }

    /// Replaces the call at `slot`; `false` if it was already handed on.
    fn set(&mut self, slot: usize, call: Option<(Call, u64)>) -> bool {
        match slot
            .checked_sub(self.base)
            .and_then(|i| self.out.get_mut(i))
        {
            Some(s) => {
                *s = call;
                true
            }
            None => false,
        }
    }

    fn alloc(&mut self) -> ReqHandle {
        self.free.pop().unwrap_or_else(|| {
            let h = self.next_handle;
            self.next_handle = self.next_handle.wrapping_add(1);
            h
        })
    }

    /// Records request `id` as open, dropping a stale request of the same id.
    fn open(&mut self, id: u64, req: Req) {
        if let Some(Req::Recv { handle, slot, .. }) = self.reqs.insert(id, req) {
            self.set(slot, None);
            self.free.push(handle);
            self.notes.unfinished_requests += 1;
        }
    }

    fn comm(&self, id: u32, at: u64) -> Result<&'w CommInfo, Fault> {
        let global = match &self.maps.comms {
            Some(m) => u32::try_from(m.map(u64::from(id))).unwrap_or(UNDEFINED),
            None => id,
        };
        world::comm(self.world, global).map_err(|what| Fault { at, what })
    }

    fn region(&self, id: u32, at: u64) -> Result<(u32, RegionKind), Fault> {
        let global = match &self.maps.regions {
            Some(m) => u32::try_from(m.map(u64::from(id))).unwrap_or(UNDEFINED),
            None => id,
        };
        match self.world.regions.get(&global) {
            Some(&k) => Ok((global, k)),
            None => Err(Fault {
                at,
                what: format!("region {global} is used but never defined"),
            }),
        }
    }

    /// Ends the computation interval open since the last MPI call (or ON) at `time`.
    fn close_interval(&mut self, time: u64, at: u64) {
        if let (true, Some(l)) = (self.measuring, self.last_leave.take()) {
            let ticks = time.saturating_sub(l).saturating_sub(self.flush_ticks);
            self.pending_ticks = self.pending_ticks.saturating_add(ticks);
            self.compute_at = at;
        }
        self.flush_ticks = 0;
    }

    fn innermost(&self) -> Option<MpiRegion> {
        self.mpi.last().map(|&(_, m)| m)
    }

    /// Emits a waiting Sendrecv half as the plain call it was.
    fn flush_half(&mut self) {
        if let Some((half, at)) = self.half.take() {
            let call = match half {
                Half::Send {
                    comm,
                    dest,
                    tag,
                    bytes,
                } => Call::Send {
                    comm,
                    dest,
                    tag,
                    bytes,
                    mode: SendMode::Standard,
                    req: None,
                },
                Half::Recv { comm, source, tag } => Call::Recv {
                    comm,
                    source: Source::Rank(source),
                    tag: TagSel::Tag(tag),
                    req: None,
                    status: None,
                },
            };
            self.emit(call, at);
        }
    }

    /// A Sendrecv half: joins the waiting other half of the same communicator, or waits.
    fn half(&mut self, h: Half, at: u64) {
        let joined = match (self.half, h) {
            (
                Some((Half::Recv { comm, source, tag }, first)),
                Half::Send {
                    comm: c2,
                    dest,
                    tag: send_tag,
                    bytes,
                },
            )
            | (
                Some((
                    Half::Send {
                        comm,
                        dest,
                        tag: send_tag,
                        bytes,
                    },
                    first,
                )),
                Half::Recv {
                    comm: c2,
                    source,
                    tag,
                },
            ) if comm == c2 => Some((
                Call::Sendrecv {
                    comm,
                    dest,
                    send_tag,
                    bytes,
                    source: Source::Rank(source),
                    recv_tag: TagSel::Tag(tag),
                    status: None,
                },
                first,
            )),
            _ => None,
        };
        match joined {
            Some((call, first)) => {
                self.half = None;
                self.emit(call, first);
            }
            None => {
                self.flush_half();
                self.half = Some((h, at));
            }
        }
    }

    /// Decodes one record of type `kind` at byte `at`, stamped `time`.
    pub fn record(
        &mut self,
        kind: u8,
        at: u64,
        time: u64,
        c: &mut Cursor<'_>,
    ) -> Result<(), Fault> {
        match kind {
            10 => {
                let stop = c.u64_full("buffer flush stop time")?;
                if self.mpi.is_empty() && self.last_leave.is_some() {
                    self.flush_ticks = self.flush_ticks.saturating_add(stop.saturating_sub(time));
                }
            }
            11 => match c.u8("measurement mode")? {
                2 => {
                    // The computation up to here is known; what follows until ON is not.
                    self.close_interval(time, at);
                    self.measuring = false;
                    self.notes.measurement_off += 1;
                }
                _ => {
                    self.measuring = true;
                    if self.mpi.is_empty() {
                        self.last_leave = Some(time);
                    }
                }
            },
            12 => {
                let (id, kind) = self.region(c.u32c("region")?, at)?;
                if let RegionKind::Mpi(m) = kind {
                    if self.mpi.is_empty() {
                        self.close_interval(time, at);
                    }
                    if m == MpiRegion::NonblockingCollective {
                        self.notes.nonblocking_collectives += 1;
                    }
                    self.mpi.push((id, m));
                }
            }
            13 => {
                let (id, kind) = self.region(c.u32c("region")?, at)?;
                if let RegionKind::Mpi(_) = kind
                    && let Some(i) = self.mpi.iter().rposition(|&(r, _)| r == id)
                {
                    let (_, m) = self.mpi.remove(i);
                    if m == MpiRegion::Sendrecv {
                        self.flush_half();
                    }
                    if self.mpi.is_empty() {
                        self.last_leave = Some(time);
                        self.flush_ticks = 0;
                    }
                }
            }
            14 | 15 => {
                let receiver = c.u32c("receiver")?;
                let info = self.comm(c.u32c("communicator")?, at)?;
                let tag = u64::from(c.u32c("tag")?);
                let bytes = c.u64c("message length")?;
                let request = if kind == 15 {
                    Some(c.u64c("request id")?)
                } else {
                    None
                };
                let dest = info
                    .peer(receiver, self.rank)
                    .map_err(|what| Fault { at, what })?;
                let sync = match (kind, self.innermost()) {
                    (14, Some(MpiRegion::Ssend)) | (15, Some(MpiRegion::Issend)) => true,
                    (14, Some(MpiRegion::Sendrecv)) => {
                        let h = Half::Send {
                            comm: info.handle,
                            dest,
                            tag,
                            bytes,
                        };
                        self.half(h, at);
                        return Ok(());
                    }
                    _ => false,
                };
                let mode = if sync {
                    SendMode::Synchronous
                } else {
                    SendMode::Standard
                };
                let handle = request.map(|_| self.alloc());
                let call = Call::Send {
                    comm: info.handle,
                    dest,
                    tag,
                    bytes,
                    mode,
                    req: handle,
                };
                let slot = self.emit(call, at);
                if let (Some(id), Some(handle)) = (request, handle) {
                    self.open(id, Req::Send { handle, slot });
                }
            }
            16 => {
                let id = c.u64c("request id")?;
                match self.reqs.remove(&id) {
                    Some(Req::Send { handle, .. }) => {
                        self.emit(
                            Call::Wait {
                                req: handle,
                                status: None,
                            },
                            at,
                        );
                        self.free.push(handle);
                    }
                    Some(other) => {
                        self.reqs.insert(id, other);
                        self.notes.unknown_completions += 1;
                    }
                    None => self.notes.unknown_completions += 1,
                }
            }
            17 => {
                let id = c.u64c("request id")?;
                let handle = self.alloc();
                let slot = self.reserve();
                self.open(id, Req::Recv { handle, slot, at });
            }
            18 | 19 => {
                let sender = c.u32c("sender")?;
                let info = self.comm(c.u32c("communicator")?, at)?;
                let tag = u64::from(c.u32c("tag")?);
                c.u64c("message length")?;
                let source = info
                    .peer(sender, self.rank)
                    .map_err(|what| Fault { at, what })?;
                let posted = if kind == 19 {
                    let id = c.u64c("request id")?;
                    match self.reqs.remove(&id) {
                        Some(Req::Recv { handle, slot, at }) => Some((handle, slot, at)),
                        Some(other) => {
                            self.reqs.insert(id, other);
                            None
                        }
                        None => None,
                    }
                } else {
                    None
                };
                if kind == 18 && self.innermost() == Some(MpiRegion::Sendrecv) {
                    let h = Half::Recv {
                        comm: info.handle,
                        source,
                        tag,
                    };
                    self.half(h, at);
                    return Ok(());
                }
                let recv = |req| Call::Recv {
                    comm: info.handle,
                    source: Source::Rank(source),
                    tag: TagSel::Tag(tag),
                    req,
                    status: None,
                };
                match posted {
                    Some((handle, slot, posted_at)) => {
                        self.set(slot, Some((recv(Some(handle)), posted_at)));
                        self.emit(
                            Call::Wait {
                                req: handle,
                                status: None,
                            },
                            at,
                        );
                        self.free.push(handle);
                    }
                    None => {
                        if kind == 19 {
                            self.notes.unknown_completions += 1;
                        }
                        self.emit(recv(None), at);
                    }
                }
            }
            21 => {
                let id = c.u64c("request id")?;
                if let Some(req) = self.reqs.remove(&id) {
                    let (handle, slot) = req.parts();
                    if self.set(slot, None) {
                        self.notes.cancelled += 1;
                    } else {
                        self.notes.cancelled_too_late += 1;
                    }
                    self.free.push(handle);
                }
            }
            23 => {
                let op = c.u8("collective operation")?;
                let info = self.comm(c.u32c("communicator")?, at)?;
                let root = c.u32c("root")?;
                let sent = c.u64c("bytes sent")?;
                let recvd = c.u64c("bytes received")?;
                let fault = |what| Fault { at, what };
                let me = info.rank_of(self.rank).ok_or_else(|| {
                    fault(format!(
                        "rank {} records a collective on a communicator it is not a member of",
                        self.rank
                    ))
                })?;
                let root = match root {
                    UNDEFINED => None,
                    r => Some(info.peer(r, self.rank).map_err(fault)?),
                };
                match coll::convert(op, info.size(), me, root, sent, recvd).map_err(fault)? {
                    Converted::Call(op) => {
                        let call = Call::Collective {
                            comm: info.handle,
                            op,
                            req: None,
                        };
                        self.emit(call, at);
                    }
                    Converted::Handle => {}
                    Converted::Unknown => self.notes.unknown_collectives += 1,
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Hands the calls that can no longer change (those before the oldest open request) to `f`, in
    /// program order, once enough have gathered: event files stream through in bounded memory.
    pub fn drain(&mut self, f: impl FnMut(Call, u64)) {
        if self.out.len() < self.drain_at {
            return;
        }
        let oldest = self.reqs.values().map(|r| r.parts().1).min();
        let end = oldest.map_or(self.out.len(), |s| s.saturating_sub(self.base));
        self.hand_on(end, f);
        // A long-open request keeps calls back: look again only once as many more have come.
        self.drain_at = DRAIN.max(2 * self.out.len());
    }

    fn hand_on(&mut self, end: usize, mut f: impl FnMut(Call, u64)) {
        let end = end.min(self.out.len());
        for (call, at) in self.out.drain(..end).flatten() {
            f(call, at);
        }
        self.base += end;
    }

    /// Hands the rest of the rank's calls to `f` and says what was skipped.
    pub fn finish(mut self, f: impl FnMut(Call, u64)) -> Notes {
        self.flush_half();
        self.flush_compute();
        self.notes.unfinished_requests += self
            .reqs
            .values()
            .filter(|r| matches!(r, Req::Recv { .. }))
            .count() as u64;
        self.hand_on(self.out.len(), f);
        self.notes
    }
}
