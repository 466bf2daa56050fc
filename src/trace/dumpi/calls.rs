//! One rank's records to the MPI layer's [`Call`]s: message sizes from the datatype size table,
//! requests followed from posting to completion, wildcards and MPI_PROC_NULL, computation from the
//! gaps between calls.
//!
//! - Sends: MPI_Send/Bsend/Rsend and their `I` forms are standard, MPI_Ssend/Issend synchronous; bytes
//!   are count × the datatype's size. A destination that is negative is MPI_PROC_NULL: no message.
//! - Receives: source -1 is MPI_ANY_SOURCE (DUMPI maps it there), but it is also MPICH's
//!   MPI_PROC_NULL, which DUMPI passes through unchanged; the recorded status tells them apart (a
//!   receive from MPI_PROC_NULL completes with a negative source) and such a receive is dropped.
//!   Other negative sources are MPI_PROC_NULL of other libraries. Tag -1 is MPI_ANY_TAG.
//! - Requests: each posting gets a fresh handle of the MPI layer, so DUMPI's reuse of a handle, a
//!   request freed while active or one never waited for cannot confuse matching. A wait or test
//!   completes what the trace says it completed: MPI_Wait and a test that recorded `flag` ≠ 0 their
//!   request, MPI_Waitany/Testany the recorded index, MPI_Waitsome/Testsome the recorded indices,
//!   MPI_Waitall/Testall (flag ≠ 0) every listed one. MPI_REQUEST_NULL, inactive persistent requests
//!   and requests no followed call posted (MPI-IO, generalized) are skipped. A completed wildcard
//!   receive takes the source and tag of its recorded status.
//! - Persistent requests: MPI_*_init records the operation, MPI_Start/Startall post it.
//! - Collectives: the blocking MPI-2 ones; MPI_Alltoallw as MPI_Alltoallv with per-peer datatypes.
//! - Computation: the wall-clock gap between the end of one MPI call and the start of the next
//!   (CPU time if the trace has no wall clock), summed over calls that produce nothing, in cycles.
//! - Refused with a message: inter-communicators, dynamic processes, one-sided communication.
//!
//! Requests live in [`super::requests`], collectives in [`super::collective`], communicators and
//! groups in [`super::comms`].
//! - Ignored (decoded for their length): everything else (environment, datatypes, attributes,
//!   probes, MPI-IO, topology queries). MPI_Cancel removes the operation if its completion recorded
//!   it cancelled.

use super::collective::collective;
use super::comms::{Comms, comm};
use super::functions::*;
use super::header::Layout;
use super::record::{Args, Head, RawStatus};
use crate::mpi::{Call, SendMode, Source, Status, TagSel};
use ahash::AHashMap;

/// An operation a request stands for.
#[derive(Debug, Clone, Copy)]
pub(super) enum Op {
    Send {
        comm: i64,
        dest: i64,
        tag: i64,
        bytes: u64,
        mode: SendMode,
    },
    Recv {
        comm: i64,
        source: i64,
        tag: i64,
    },
}

/// What an active request posted.
#[derive(Debug, Clone, Copy)]
pub(super) enum Posted {
    /// Nothing: a send to or a receive from MPI_PROC_NULL.
    Null,
    /// A send or a receive: its handle in the MPI layer and the index of the call that posted it.
    Op {
        handle: u32,
        call: usize,
        /// A receive with MPI_ANY_SOURCE or MPI_ANY_TAG (its wait carries the status), and whether
        /// its source was -1 (then a negative recorded source means MPI_PROC_NULL).
        wildcard: Option<bool>,
    },
}

#[derive(Debug, Default)]
pub(super) struct Request {
    /// What the request stands for while active.
    pub(super) active: Option<Posted>,
    /// The operation of a persistent request (MPI_*_init).
    pub(super) persistent: Option<Op>,
    /// MPI_Cancel was called on the active operation: if its completion's status says cancelled, the
    /// operation never happened.
    pub(super) cancel: bool,
}

/// An error message, positioned by the caller.
pub(super) type Msg = String;

/// One rank's decoding state.
pub(crate) struct RankCalls {
    /// The calls so far with the byte offsets of their records; `None` for a wildcard receive found
    /// to be from MPI_PROC_NULL.
    pub(crate) calls: Vec<(Option<Call>, u64)>,
    pub(super) comms: Comms,
    pub(super) requests: AHashMap<i64, Request>,
    pub(super) next_handle: u32,
    pub(super) cycles_per_second: f64,
    pub(super) world: u32,
    pub(super) last_stop: Option<u64>,
    pub(super) pending_ns: u64,
}

impl RankCalls {
    /// World rank `rank` of `world`; computation converts at `cycles_per_second`.
    pub(crate) fn new(rank: u32, world: u32, cycles_per_second: f64) -> RankCalls {
        RankCalls {
            calls: Vec::new(),
            comms: Comms::new(rank, world),
            requests: AHashMap::new(),
            next_handle: 0,
            cycles_per_second,
            world,
            last_stop: None,
            pending_ns: 0,
        }
    }

    /// Turns one record into calls.
    pub(crate) fn record(&mut self, head: &Head, args: &Args, layout: &Layout) -> Result<(), Msg> {
        if head.id == FUNCTION_ENTER || head.id == FUNCTION_EXIT {
            return Ok(());
        }
        if let Some(t) = head.time {
            if let Some(prev) = self.last_stop {
                self.pending_ns = self.pending_ns.saturating_add(t.start.saturating_sub(prev));
            }
            self.last_stop = Some(t.stop);
        }
        let at = head.at;
        let size = |k: usize| layout.type_size(args.int(k));
        let bytes =
            |count: usize, ty: usize| -> Result<u64, Msg> { times(args.int(count), size(ty)?) };
        let a = args;
        match head.id {
            SEND | BSEND | SSEND | RSEND | ISEND | IBSEND | ISSEND | IRSEND => {
                let mode = if head.id == SSEND || head.id == ISSEND {
                    SendMode::Synchronous
                } else {
                    SendMode::Standard
                };
                let op = Op::Send {
                    comm: a.int(4),
                    dest: a.int(2),
                    tag: a.int(3),
                    bytes: bytes(0, 1)?,
                    mode,
                };
                let req = (head.id >= ISEND).then(|| a.int(5));
                self.post(op, req, None, at)?;
            }
            RECV | IRECV => {
                let op = Op::Recv {
                    comm: a.int(4),
                    source: a.int(2),
                    tag: a.int(3),
                };
                if head.id == IRECV {
                    self.post(op, Some(a.int(5)), None, at)?;
                } else {
                    self.post(op, None, a.statuses(5).map(|s| s.first().copied()), at)?;
                }
            }
            SEND_INIT | BSEND_INIT | SSEND_INIT | RSEND_INIT | RECV_INIT => {
                let op = if head.id == RECV_INIT {
                    Op::Recv {
                        comm: a.int(4),
                        source: a.int(2),
                        tag: a.int(3),
                    }
                } else {
                    Op::Send {
                        comm: a.int(4),
                        dest: a.int(2),
                        tag: a.int(3),
                        bytes: bytes(0, 1)?,
                        mode: if head.id == SSEND_INIT {
                            SendMode::Synchronous
                        } else {
                            SendMode::Standard
                        },
                    }
                };
                self.requests.insert(
                    a.int(5),
                    Request {
                        active: None,
                        persistent: Some(op),
                        cancel: false,
                    },
                );
            }
            START => self.start(a.int(0), at)?,
            STARTALL => {
                for &r in a.array(1) {
                    self.start(r, at)?;
                }
            }
            CANCEL => {
                if let Some(r) = self.requests.get_mut(&a.int(0)) {
                    r.cancel = true;
                }
            }
            REQUEST_FREE => {
                // An active request completes on its own; the MPI layer keeps its operation open.
                self.requests.remove(&a.int(0));
            }
            WAIT => {
                let st = first(a.statuses(1));
                self.complete_all(&[(a.int(0), st)], at)?;
            }
            TEST if a.int(1) != 0 => {
                let st = first(a.statuses(2));
                self.complete_all(&[(a.int(0), st)], at)?;
            }
            WAITANY | TESTANY => {
                let (index, flag) = if head.id == WAITANY {
                    (a.int(2), 1)
                } else {
                    (a.int(2), a.int(3))
                };
                let reqs = a.array(1);
                let st = first(a.statuses(if head.id == WAITANY { 3 } else { 4 }));
                if let (true, Some(&r)) = (
                    flag != 0,
                    usize::try_from(index).ok().and_then(|i| reqs.get(i)),
                ) {
                    self.complete_all(&[(r, st)], at)?;
                }
            }
            WAITALL | TESTALL => {
                let (flag, sk) = if head.id == WAITALL {
                    (1, 2)
                } else {
                    (a.int(2), 3)
                };
                if flag != 0 {
                    let st = a.statuses(sk).unwrap_or(&[]);
                    let list: Vec<(i64, Option<RawStatus>)> = a
                        .array(1)
                        .iter()
                        .enumerate()
                        .map(|(i, &r)| (r, st.get(i).copied()))
                        .collect();
                    self.complete_all(&list, at)?;
                }
            }
            WAITSOME | TESTSOME => {
                let (reqs, st) = (a.array(1), a.statuses(4).unwrap_or(&[]));
                let mut list = Vec::new();
                for (k, &i) in a.array(3).iter().enumerate() {
                    let r = usize::try_from(i)
                        .ok()
                        .and_then(|i| reqs.get(i))
                        .ok_or_else(|| {
                            format!(
                                "completed index {i} is outside the {} listed requests",
                                reqs.len()
                            )
                        })?;
                    list.push((*r, st.get(k).copied()));
                }
                self.complete_all(&list, at)?;
            }
            SENDRECV | SENDRECV_REPLACE => self.sendrecv(head.id, a, layout, at)?,
            BARRIER | BCAST | GATHER | GATHERV | SCATTER | SCATTERV | ALLGATHER | ALLGATHERV
            | ALLTOALL | ALLTOALLV | ALLTOALLW | REDUCE | ALLREDUCE | REDUCE_SCATTER | SCAN
            | EXSCAN => {
                let (c, op) = collective(head.id, a, layout, &mut self.comms, self.world)?;
                self.emit(
                    Call::Collective {
                        comm: comm(c),
                        op,
                        req: None,
                    },
                    at,
                )?;
            }
            COMM_SIZE => self.comms.note_size(comm(a.int(0)), a.int(1)),
            COMM_RANK => self.comms.note_rank(comm(a.int(0)), a.int(1)),
            COMM_GROUP => self.comms.comm_group(comm(a.int(0)), a.int(1)),
            GROUP_INCL | GROUP_EXCL => {
                let (g, ranks, new) = (a.int(0), a.array(2), a.int(3));
                if head.id == GROUP_INCL {
                    self.comms.group_incl(g, ranks, new)?;
                } else {
                    self.comms.group_excl(g, ranks, new)?;
                }
            }
            GROUP_RANGE_INCL | GROUP_RANGE_EXCL => {
                if !a.present(2) {
                    return Err("the group ranges are not (first, last, stride) triples".into());
                }
                let exclude = head.id == GROUP_RANGE_EXCL;
                self.comms
                    .group_range(a.int(0), a.array(2), a.int(3), exclude)?;
            }
            GROUP_UNION | GROUP_INTERSECTION | GROUP_DIFFERENCE => {
                let op = (head.id - GROUP_UNION) as u8;
                self.comms.group_set(a.int(0), a.int(1), a.int(2), op)?;
            }
            GROUP_FREE => self.comms.group_free(a.int(0)),
            COMM_DUP => {
                let call = self.comms.comm_dup(comm(a.int(0)), comm(a.int(1)));
                self.emit(call, at)?;
            }
            COMM_CREATE => {
                let call = self
                    .comms
                    .comm_create(comm(a.int(0)), a.int(1), comm(a.int(2)))?;
                self.emit(call, at)?;
            }
            COMM_SPLIT => {
                let call =
                    self.comms
                        .comm_split(comm(a.int(0)), a.int(1), a.int(2), comm(a.int(3)));
                self.emit(call, at)?;
            }
            COMM_FREE | COMM_DISCONNECT => {
                let call = self.comms.comm_free(comm(a.int(0)));
                self.emit(call, at)?;
            }
            CART_CREATE => {
                let dims: Vec<u32> = a
                    .array(2)
                    .iter()
                    .map(|&d| d.clamp(0, u32::MAX.into()) as u32)
                    .collect();
                let size = dims
                    .iter()
                    .try_fold(1u64, |p, &d| p.checked_mul(u64::from(d)));
                let call = self
                    .comms
                    .topology(comm(a.int(0)), comm(a.int(5)), size, Some(dims));
                self.emit(call, at)?;
            }
            GRAPH_CREATE => {
                let size = u64::try_from(a.int(2)).ok();
                let call = self
                    .comms
                    .topology(comm(a.int(1)), comm(a.int(6)), size, None);
                self.emit(call, at)?;
            }
            CART_SUB => {
                let call = self
                    .comms
                    .cart_sub(comm(a.int(1)), a.array(2), comm(a.int(3)))?;
                self.emit(call, at)?;
            }
            INTERCOMM_CREATE | INTERCOMM_MERGE | COMM_ACCEPT | COMM_CONNECT | COMM_JOIN
            | COMM_SPAWN | COMM_SPAWN_MULTIPLE => {
                return Err("inter-communicators and dynamic processes are not supported".into());
            }
            COMM_GET_PARENT if a.int(0) != 1 => {
                return Err(
                    "the rank was spawned (it has a parent communicator); dynamic \
                            processes are not supported"
                        .into(),
                );
            }
            PUT | GET | ACCUMULATE => {
                return Err(
                    "one-sided communication is not modelled, and skipping it would \
                            replay less traffic than the application sent"
                        .into(),
                );
            }
            _ => {}
        }
        Ok(())
    }

    /// Appends `call`, after the computation that preceded it.
    pub(super) fn emit(&mut self, call: Call, at: u64) -> Result<(), Msg> {
        if self.pending_ns > 0 {
            let ns = std::mem::take(&mut self.pending_ns);
            let cycles = (ns as f64 / 1e9 * self.cycles_per_second).round();
            // 2^64 as f64; NaN cannot occur (finite rate, finite gap) but is refused too.
            if cycles.is_nan() || cycles >= 18_446_744_073_709_551_616.0 {
                return Err(format!(
                    "{} s of computation is {cycles} cycles, more than a 64-bit count holds",
                    ns as f64 / 1e9
                ));
            }
            if cycles >= 1.0 {
                self.calls.push((
                    Some(Call::Compute {
                        cycles: cycles as u64,
                    }),
                    at,
                ));
            }
        }
        self.calls.push((Some(call), at));
        Ok(())
    }
}

/// `count` elements of `size` bytes, checked.
pub(super) fn times(count: i64, size: u64) -> Result<u64, Msg> {
    let n = u64::try_from(count).map_err(|_| format!("negative element count {count}"))?;
    n.checked_mul(size)
        .ok_or_else(|| format!("{count} elements of {size} bytes overflow a 64-bit size"))
}

pub(super) fn rank(r: i64, what: &str) -> Result<u32, Msg> {
    u32::try_from(r).map_err(|_| format!("{what} {r} is not a rank"))
}

pub(super) fn tag_of(t: i64) -> Result<u64, Msg> {
    u64::try_from(t).map_err(|_| format!("tag {t} is negative"))
}

pub(super) fn tag_sel(t: i64) -> Result<TagSel, Msg> {
    match t {
        -1 => Ok(TagSel::Any),
        t => tag_of(t).map(TagSel::Tag),
    }
}

/// A receive's source: `None` for MPI_PROC_NULL (a negative value other than -1).
pub(super) fn source_of(s: i64) -> Option<Source> {
    match s {
        -1 => Some(Source::Any),
        s => u32::try_from(s).ok().map(Source::Rank),
    }
}

/// The first recorded status (`None` when none was recorded).
pub(super) fn first(st: Option<&[RawStatus]>) -> Option<RawStatus> {
    st.and_then(|s| s.first().copied())
}

/// A receive's recorded status in the MPI layer's terms; a status without a tag (format before 0.6.3)
/// takes the receive's own tag if it named one.
pub(super) fn recorded(s: RawStatus, recv_tag: i64) -> Option<Status> {
    let source = u32::try_from(s.source).ok()?;
    let tag = u64::try_from(if s.tag >= 0 {
        i64::from(s.tag)
    } else {
        recv_tag
    })
    .ok()?;
    Some(Status { source, tag })
}
