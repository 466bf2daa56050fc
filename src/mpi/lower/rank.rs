//! One rank's lowering: its calls to ops, in program order, with its requests, communicator handles
//! and collective sequence numbers (see the parent module's doc for the rules).

use super::*;
use crate::mpi::handle_map::HandleMap;

/// An open request of the rank being lowered. Every non-blocking send, receive and collective posts
/// one, so the common case is one word and the rare ones are boxed.
#[derive(Debug)]
enum Open {
    /// A send, a receive with a known source or a non-blocking collective: its runtime id.
    P2p(u32),
    /// A wildcard receive.
    Wildcard(Box<Wildcard>),
    /// A request an unrecorded waitany listed: it may have completed there (the replay decides
    /// which did), so waiting on it waits for its runtime id, and posting its handle anew is no
    /// error (the trace's program saw it complete).
    Maybe(u32),
}

/// A wildcard receive waiting for its completion: its runtime id, the op to patch, its communicator
/// and where it was posted.
#[derive(Debug)]
struct Wildcard {
    id: u32,
    op: usize,
    bound: Bound,
    tag: TagSel,
    pos: Pos,
}

/// The state of one rank while its calls are lowered.
#[derive(Debug)]
pub(super) struct RankLowering {
    pub(super) rank: u32,
    /// The rank's communicator handles so far.
    pub(super) handles: Handles,
    /// What the rank's held-back creation calls gave, in program order.
    pub(super) made: std::vec::IntoIter<Option<Bound>>,
    open: HandleMap<Open>,
    /// Handles in posting order (for `waitall` of every open request); stale entries are skipped.
    open_order: Vec<ReqHandle>,
    next_id: u32,
    pub(super) coll_seq: AHashMap<u32, u64>,
    /// The rank's program so far.
    pub(super) ops: Vec<Op>,
    /// The op ranges of the collectives emitted so far (for the replay timeline).
    pub(super) regions: Vec<crate::program::Region>,
}

impl RankLowering {
    /// World rank `rank` before its first call, with the handles definitions bound.
    pub(super) fn new(rank: u32, handles: Handles) -> RankLowering {
        RankLowering {
            rank,
            handles,
            made: Vec::new().into_iter(),
            open: HandleMap::default(),
            open_order: Vec::new(),
            next_id: 0,
            coll_seq: AHashMap::new(),
            ops: Vec::new(),
            regions: Vec::new(),
        }
    }

    fn fresh(&mut self) -> Result<u32, Msg> {
        let id = self.next_id;
        // Runtime ids below u32::MAX - 1 (the runtime reserves the top two); wrapping is safe because a
        // rank never has 2^32 requests open at once, but say so if it ever would.
        self.next_id = (self.next_id + 1) % (u32::MAX - 1);
        if self.open.len() as u64 >= u64::from(u32::MAX - 2) {
            return Err("more than 2^32 requests open at once".into());
        }
        Ok(id)
    }

    fn bound(&mut self, handle: CommHandle, comms: &mut Comms) -> Result<Bound, Msg> {
        self.handles.get(handle, self.rank, comms).ok_or_else(|| {
            format!(
                "rank {} uses communicator {handle}, which it does not have (never created, freed, \
                 or not a member)",
                self.rank
            )
        })
    }

    fn peer(&self, b: Bound, rank: u32, what: &str, comms: &Comms) -> Result<u32, Msg> {
        let size = comms.size(b.comm);
        if rank >= size {
            return Err(format!(
                "{what} {rank} is outside the communicator (ranks 0..{size})"
            ));
        }
        Ok(comms.world_rank(b.comm, rank))
    }

    #[inline(always)]
    fn post(&mut self, handle: ReqHandle, open: Open) -> Result<(), Msg> {
        if let Some(old) = self.open.insert(handle, open)
            && !matches!(old, Open::Maybe(_))
        {
            return Err(format!(
                "rank {} posts request {handle} while it is still open",
                self.rank
            ));
        }
        self.open_order.push(handle);
        Ok(())
    }

    /// Lowers `call`, the rank's call number `index` (from 0, in program order). Inlined into
    /// [`Builder::push`] and taking the call by reference, so that the call a reader builds is read
    /// field by field where it was written: moved whole into a parameter it was copied in wide loads
    /// over narrow stores, which stalled the processor on every call.
    #[inline(always)]
    pub(super) fn lower(
        &mut self,
        call: &Call,
        pos: Pos,
        index: u64,
        cx: &mut Shared,
    ) -> Result<(), Msg> {
        let Shared {
            comms,
            algorithms,
            log,
            stats,
        } = cx;
        match *call {
            Call::Send {
                comm,
                dest,
                tag,
                bytes,
                mode,
                req,
            } => {
                let b = self.bound(comm, comms)?;
                let to = self.peer(b, dest, "destination", comms)?;
                let tag = user_tag(b, tag)?;
                let kind = match (mode, req) {
                    (SendMode::Synchronous, None) => "ssend",
                    (SendMode::Synchronous, Some(_)) => "issend",
                    (_, None) => "send",
                    (_, Some(_)) => "isend",
                };
                stats.send(kind, bytes, to == self.rank);
                if mode == SendMode::Detached && req.is_none() {
                    self.ops.push(Op::Send { to, bytes, tag });
                    return Ok(());
                }
                let id = self.fresh()?;
                self.ops.push(match mode {
                    SendMode::Standard | SendMode::Detached => Op::Isend {
                        to,
                        bytes,
                        tag,
                        req: id,
                    },
                    SendMode::Synchronous => Op::Issend {
                        to,
                        bytes,
                        tag,
                        req: id,
                    },
                });
                match req {
                    None => self.ops.push(Op::Wait { req: id }),
                    Some(h) => self.post(h, Open::P2p(id))?,
                }
            }
            Call::Recv {
                comm,
                source,
                tag,
                req,
                status,
            } => {
                let b = self.bound(comm, comms)?;
                let wildcard = !matches!(source, Source::Rank(_)) || tag == TagSel::Any;
                stats.receive(wildcard);
                match req {
                    None => {
                        let (from, tag) = self.resolve(b, source, tag, status, comms)?;
                        self.ops.push(Op::Recv { from, tag });
                    }
                    Some(h) => {
                        let id = self.fresh()?;
                        match (source, tag, status) {
                            (Source::Any, _, None) | (_, TagSel::Any, None) => {
                                self.post(
                                    h,
                                    Open::Wildcard(Box::new(Wildcard {
                                        id,
                                        op: self.ops.len(),
                                        bound: b,
                                        tag,
                                        pos,
                                    })),
                                )?;
                                self.ops.push(Op::Irecv {
                                    from: 0,
                                    tag: 0,
                                    req: id,
                                });
                            }
                            _ => {
                                let (from, tag) = self.resolve(b, source, tag, status, comms)?;
                                self.ops.push(Op::Irecv { from, tag, req: id });
                                self.post(h, Open::P2p(id))?;
                            }
                        }
                    }
                }
            }
            Call::Sendrecv {
                comm,
                dest,
                send_tag,
                bytes,
                source,
                recv_tag,
                status,
            } => {
                let b = self.bound(comm, comms)?;
                let to = self.peer(b, dest, "destination", comms)?;
                let (from, rtag) = self.resolve(b, source, recv_tag, status, comms)?;
                stats.send("sendrecv", bytes, to == self.rank);
                stats.receive(!matches!(source, Source::Rank(_)) || recv_tag == TagSel::Any);
                let (r, s) = (self.fresh()?, self.fresh()?);
                self.ops.push(Op::Irecv {
                    from,
                    tag: rtag,
                    req: r,
                });
                self.ops.push(Op::Isend {
                    to,
                    bytes,
                    tag: user_tag(b, send_tag)?,
                    req: s,
                });
                self.ops.push(Op::Wait { req: s });
                self.ops.push(Op::Wait { req: r });
            }
            Call::Wait { req, status } => self.complete(req, status, comms)?,
            Call::WaitAll {
                reqs: Some(ref list),
            } => {
                for &h in list {
                    self.complete(h, None, comms)?;
                }
            }
            Call::WaitAll { reqs: None } => {
                // Every open request in posting order: stale entries (completed since) are skipped,
                // and a handle posted twice completes at its first entry, so the second finds it gone.
                let mut order = std::mem::take(&mut self.open_order);
                let done = order.iter().try_for_each(|&h| {
                    if self.open.contains_key(h) {
                        self.complete(h, None, comms)
                    } else {
                        Ok(())
                    }
                });
                order.clear();
                self.open_order = order;
                done?;
            }
            Call::WaitUnrecorded { ref reqs, some } => {
                let open: Vec<ReqHandle> = reqs
                    .iter()
                    .copied()
                    .filter(|&h| self.open.contains_key(h))
                    .collect();
                let ids: Option<Vec<u32>> = (open.iter())
                    .map(|&h| match self.open.get(h) {
                        Some(&Open::P2p(id) | &Open::Maybe(id)) => Some(id),
                        _ => None,
                    })
                    .collect();
                match ids {
                    // Waitany: the first of its requests to complete at replay time, each left
                    // open for a later wait.
                    Some(ids) if !some && ids.len() > 1 => {
                        self.ops.push(Op::WaitAny {
                            len: ids.len() as u32,
                        });
                        for (&h, &id) in open.iter().zip(&ids) {
                            self.ops.push(Op::Wait { req: id });
                            self.open.insert(h, Open::Maybe(id));
                        }
                    }
                    // Waitsome, a waitany of one request, or one with a wildcard receive (whose
                    // source only a recorded completion gives): the first listed open request.
                    _ => {
                        let take = if some { open.len() } else { open.len().min(1) };
                        for h in open.into_iter().take(take) {
                            self.complete(h, None, comms)?;
                        }
                    }
                }
            }
            Call::Collective { comm, ref op, req } => {
                let b = self.bound(comm, comms)?;
                stats.collective(b.comm, comms.size(b.comm), b.me, op.name());
                let first = self.ops.len();
                self.collective(b, op, (pos, index), comms, algorithms, log)?;
                match req {
                    None => self.region(op.name(), first),
                    Some(h) => {
                        // The schedule starts here, where the collective is posted, and runs beside
                        // the rank's program; its request completes where the trace waits on it.
                        let len = u32::try_from(self.ops.len() - first).map_err(|_| {
                            format!("{} lowers to 2^32 operations or more", op.name())
                        })?;
                        let (id, recv) = (self.fresh()?, self.fresh()?);
                        self.ops.insert(first, Op::Schedule { len, req: id, recv });
                        self.post(h, Open::P2p(id))?;
                    }
                }
            }
            Call::Compute { cycles } => {
                stats.compute(cycles);
                self.ops.push(Op::Compute { cycles });
            }
            Call::CommSplit { new, .. }
            | Call::CommDup { new, .. }
            | Call::CommCreate { new, .. } => {
                let made = self
                    .made
                    .next()
                    .expect("resolve gave every creation call a result");
                self.handles.set(new, made);
            }
            Call::CommFree { comm } => self.handles.set(comm, None),
        }
        Ok(())
    }

    /// World source and matching tag of a receive, wildcards taken from `status`.
    fn resolve(
        &self,
        b: Bound,
        source: Source,
        tag: TagSel,
        status: Option<Status>,
        comms: &Comms,
    ) -> Result<(u32, u64), Msg> {
        let src = match (source, status, tag) {
            (Source::Arrival, _, TagSel::Tag(t)) => {
                return Ok((crate::program::ANY_SOURCE, user_tag(b, t)?));
            }
            (Source::Rank(s), _, _) => s,
            (Source::Any, Some(st), _) => st.source,
            (Source::Any | Source::Arrival, _, _) => {
                return Err(
                    "MPI_ANY_SOURCE receive, but the trace records no source for it (the replay \
                     needs the status of the completed receive)"
                        .into(),
                );
            }
        };
        let t = match (tag, status) {
            (TagSel::Tag(t), _) => t,
            (TagSel::Any, Some(st)) => st.tag,
            (TagSel::Any, None) => {
                return Err(
                    "MPI_ANY_TAG receive, but the trace records no tag for it (the replay needs \
                     the status of the completed receive)"
                        .into(),
                );
            }
        };
        let from = self.peer(b, src, "source", comms)?;
        Ok((from, user_tag(b, t)?))
    }

    /// Request `h` completes here.
    fn complete(&mut self, h: ReqHandle, status: Option<Status>, comms: &Comms) -> Result<(), Msg> {
        let Some(open) = self.open.remove(h) else {
            return Err(format!(
                "rank {} waits on request {h}, which it has not posted (or already completed)",
                self.rank
            ));
        };
        match open {
            Open::P2p(id) | Open::Maybe(id) => self.ops.push(Op::Wait { req: id }),
            Open::Wildcard(w) => {
                let Wildcard {
                    id,
                    op,
                    bound,
                    tag,
                    pos,
                } = *w;
                let source = Source::Any;
                let (from, tag) = self
                    .resolve(bound, source, tag, status, comms)
                    .map_err(|m| format!("{m} (the receive posted at {})", pos.at))?;
                self.ops[op] = Op::Irecv { from, tag, req: id };
                self.ops.push(Op::Wait { req: id });
            }
        }
        Ok(())
    }

    /// End of the rank's calls: a wildcard receive never completed cannot be replayed.
    pub(super) fn close(&mut self) -> Result<(), (Pos, Msg)> {
        for open in self.open.values() {
            if let Open::Wildcard(w) = open {
                return Err((
                    w.pos,
                    format!(
                        "rank {}'s wildcard receive is never completed, so the trace records no \
                         source for it",
                        self.rank
                    ),
                ));
            }
        }
        Ok(())
    }
}
