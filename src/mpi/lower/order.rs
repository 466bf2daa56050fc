//! The collective order check: every member of a communicator must make the same collective calls
//! (kind and root) in the same order, with the sizes MPI requires to match: the bytes of every
//! collective whose size each rank knows (bcast, reduce, allreduce, scan, exscan: the vector; gather,
//! scatter, allgather, alltoall, reduce_scatter_block: the block) and the per-rank counts of
//! reduce_scatter and allgatherv (each rank's `recvcounts` must equal every contributor's count).
//! The other v-collectives legitimately differ per rank (gatherv, scatterv, alltoallv), and a
//! barrier has no size.
//!
//! Ranks are lowered as their calls arrive, in whatever interleaving the trace has, but the check
//! reports what lowering rank 0, then rank 1, and so on would: rank r's k-th collective on a
//! communicator is wrong when it differs from that of the lowest rank making a k-th one there. So the
//! log keeps, per communicator and sequence number, each distinct call seen with the lowest rank that
//! made it (one entry when the members agree), and [`Log::mismatches`] finds the problems at the end.

use super::{Msg, Pos, Problem};
use crate::mpi::call::{Collective, SharedSize};

/// What of a collective's size MPI requires every member to agree on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Size {
    /// Nothing (barrier, and the v-collectives whose counts are per rank).
    Free,
    /// The bytes of the call.
    Bytes(u64),
    /// Per-rank counts, as a hash of the list (kept small: a slot is kept per collective call) and
    /// their total, for the message.
    Counts { hash: u64, total: u64 },
}

impl Size {
    /// What `op`'s members must agree on.
    pub(super) fn of(op: &Collective) -> Size {
        match op.shared_size() {
            SharedSize::None => Size::Free,
            SharedSize::Bytes(bytes) => Size::Bytes(bytes),
            SharedSize::Counts(counts) => {
                use std::hash::{Hash, Hasher};
                let mut h = std::hash::DefaultHasher::new();
                counts.hash(&mut h);
                Size::Counts {
                    hash: h.finish(),
                    total: counts.iter().fold(0u64, |a, &c| a.saturating_add(c)),
                }
            }
        }
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Size::Free => Ok(()),
            Size::Bytes(b) => write!(f, " of {b} bytes"),
            Size::Counts { total, .. } => write!(f, " of counts totalling {total} bytes"),
        }
    }
}

/// One collective call as the order check sees it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Logged {
    /// MPI name of the collective.
    pub(super) name: &'static str,
    /// Its root, for rooted collectives.
    pub(super) root: Option<u32>,
    /// What of its size must match.
    pub(super) size: Size,
    /// The lowest world rank seen making this call.
    pub(super) rank: u32,
    /// Index of the call in that rank's program order.
    pub(super) index: u64,
    /// Where that rank's call came from.
    pub(super) pos: Pos,
}

impl Logged {
    fn same_call(&self, other: &Logged) -> bool {
        self.name == other.name && self.root == other.root && self.size == other.size
    }
}

/// The distinct calls made as one communicator's k-th collective.
#[derive(Debug)]
struct Slot {
    first: Logged,
    /// Calls differing from `first` (empty unless the members disagree).
    others: Vec<Logged>,
}

/// Every communicator's collective calls so far, by global index and sequence number.
#[derive(Debug, Default)]
pub(super) struct Log {
    comms: Vec<Vec<Slot>>,
}

impl Log {
    /// Records `call`, communicator `comm`'s collective number `k` (from 0) on its rank.
    pub(super) fn record(&mut self, comm: u32, k: u64, call: Logged) {
        let c = comm as usize;
        if self.comms.len() <= c {
            self.comms.resize_with(c + 1, Vec::new);
        }
        let slots = &mut self.comms[c];
        // A rank's k-th collective comes after its first k, so slot k exists once k-1 does.
        let Some(slot) = slots.get_mut(k as usize) else {
            slots.push(Slot {
                first: call,
                others: Vec::new(),
            });
            return;
        };
        let seen = std::iter::once(&mut slot.first)
            .chain(slot.others.iter_mut())
            .find(|l| l.same_call(&call));
        match seen {
            Some(l) if call.rank < l.rank => *l = call,
            Some(_) => {}
            None => slot.others.push(call),
        }
    }

    /// Folds the order problems into `first`, each rank's first problem so far (by index in its
    /// program order): a rank's k-th collective on a communicator that differs from the lowest rank's.
    pub(super) fn mismatches(&self, first: &mut [Option<Problem>]) {
        let slots = self.comms.iter().flat_map(|slots| slots.iter().enumerate());
        for (k, slot) in slots {
            if slot.others.is_empty() {
                continue;
            }
            let all = || std::iter::once(&slot.first).chain(&slot.others);
            let reference = all().min_by_key(|l| l.rank).expect("a slot has a call");
            for l in all().filter(|l| l.rank != reference.rank) {
                let problem = &mut first[l.rank as usize];
                if problem.as_ref().is_none_or(|(index, ..)| l.index < *index) {
                    *problem = Some((l.index, l.pos, message(l, reference, k as u64)));
                }
            }
        }
    }
}

/// What lowering `call`'s rank says when its collective number `k` differs from `reference`: a
/// different call (kind or root), or the same call with a size that does not match.
fn message(call: &Logged, reference: &Logged, k: u64) -> Msg {
    let root = |r: Option<u32>| r.map_or(String::new(), |r| format!(" (root {r})"));
    let same_call = call.name == reference.name && call.root == reference.root;
    let (what, size, ref_size) = match (call.size, reference.size) {
        (Size::Counts { total: a, .. }, Size::Counts { total: b, .. }) if same_call && a == b => (
            "collective sizes differ on one communicator",
            format!(" of other per-rank counts (totalling {a} bytes)"),
            " of its counts".to_string(),
        ),
        (a, b) if same_call => (
            "collective sizes differ on one communicator",
            a.to_string(),
            b.to_string(),
        ),
        _ => (
            "collectives called in different orders on one communicator",
            String::new(),
            String::new(),
        ),
    };
    format!(
        "{what}: rank {} calls {}{}{size} as its collective #{} there, where rank {} called \
         {}{}{ref_size} (line {})",
        call.rank,
        call.name,
        root(call.root),
        k + 1,
        reference.rank,
        reference.name,
        root(reference.root),
        reference.pos.at
    )
}

#[cfg(test)]
mod tests {
    use crate::trace::parser::parse;

    /// Ranks interleaved in the file: the reference is the lowest rank's call, not the first line's,
    /// as when every rank is lowered in turn.
    #[test]
    fn the_lowest_rank_sets_the_order_whatever_the_interleaving() {
        let text = "netreplay-trace 2\nranks 3\n2 bcast 0 8\n1 barrier\n0 barrier\n";
        let e = parse("t.trc", text.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.trc:3: collectives called in different orders on one communicator: rank 2 calls \
             bcast (root 0) as its collective #1 there, where rank 0 called barrier (line 5)"
        );
    }

    /// A collective whose size every rank knows must have it on every rank: the error names the
    /// ranks, the collective's number and both sizes. v-collectives whose counts are per rank
    /// (gatherv, scatterv, alltoallv) may differ; allgatherv's and reduce_scatter's counts may not.
    #[test]
    fn sizes_mpi_requires_to_match_are_checked() {
        let text = "netreplay-trace 3\nranks 4\n0 allreduce 800\n1 allreduce 800\n\
                    2 allreduce 800\n3 allreduce 8\n";
        let e = parse("s.trc", text.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e,
            "s.trc:6: collective sizes differ on one communicator: rank 3 calls allreduce of 8 \
             bytes as its collective #1 there, where rank 0 called allreduce of 800 bytes (line 3)"
        );
        let text = "netreplay-trace 3\nranks 2\n0 barrier\n1 barrier\n0 bcast 1 64\n\
                    1 bcast 1 32\n";
        let e = parse("b.trc", text.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e,
            "b.trc:6: collective sizes differ on one communicator: rank 1 calls bcast (root 1) of \
             32 bytes as its collective #2 there, where rank 0 called bcast (root 1) of 64 bytes \
             (line 5)"
        );
        let text = "netreplay-trace 3\nranks 2\n0 allgatherv 1 2\n1 allgatherv 2 1\n";
        let e = parse("v.trc", text.as_bytes()).unwrap_err().to_string();
        assert!(
            e.contains("rank 1 calls allgatherv of other per-rank counts (totalling 3 bytes)"),
            "{e}"
        );
        let per_rank = "netreplay-trace 3\nranks 2\n0 gatherv 0 8\n1 gatherv 0 16\n\
                        0 scatterv 1 4 4\n1 scatterv 1 8 0\n0 alltoallv 0 5\n1 alltoallv 7 0\n\
                        0 barrier\n1 barrier\n";
        parse("ok.trc", per_rank.as_bytes()).unwrap();
    }

    /// Calls streamed as they come (world) and held back (a communicator defined after its use,
    /// MPI_COMM_SELF) lower to the same program as the same calls rank by rank.
    #[test]
    fn streamed_and_held_back_calls_lower_as_rank_by_rank() {
        let interleaved = "netreplay-trace 3\nranks 2\n0 send 1 8 @2\n1 recv 0 @2\n\
                           0 allreduce 8\n1 allreduce 8\n1 barrier @1\n0 barrier @1\n\
                           0 send 1 4 3\n1 recv 0 3\ncomm 2 1 0\n";
        let by_rank = "netreplay-trace 3\nranks 2\ncomm 2 1 0\n0 send 1 8 @2\n0 allreduce 8\n\
                       0 barrier @1\n0 send 1 4 3\n1 recv 0 @2\n1 allreduce 8\n1 barrier @1\n\
                       1 recv 0 3\n";
        let a = parse("a.trc", interleaved.as_bytes()).unwrap();
        let b = parse("b.trc", by_rank.as_bytes()).unwrap();
        assert_eq!(a, b);
        let last = a.rank_ops(0).last().copied();
        let send = crate::program::Op::Send {
            to: 1,
            bytes: 4,
            tag: 3,
        };
        assert_eq!(last, Some(send));
    }
}
