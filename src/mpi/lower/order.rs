//! The collective order check: every member of a communicator must make the same collective calls
//! (kind and root) in the same order.
//!
//! Ranks are lowered as their calls arrive, in whatever interleaving the trace has, but the check
//! reports what lowering rank 0, then rank 1, and so on would: rank r's k-th collective on a
//! communicator is wrong when it differs from that of the lowest rank making a k-th one there. So the
//! log keeps, per communicator and sequence number, each distinct call seen with the lowest rank that
//! made it (one entry when the members agree), and [`Log::mismatches`] finds the problems at the end.

use super::{Msg, Pos, Problem};

/// One collective call as the order check sees it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Logged {
    /// MPI name of the collective.
    pub(super) name: &'static str,
    /// Its root, for rooted collectives.
    pub(super) root: Option<u32>,
    /// The lowest world rank seen making this call.
    pub(super) rank: u32,
    /// Index of the call in that rank's program order.
    pub(super) index: u64,
    /// Where that rank's call came from.
    pub(super) pos: Pos,
}

impl Logged {
    fn same_call(&self, other: &Logged) -> bool {
        self.name == other.name && self.root == other.root
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

/// What lowering `call`'s rank says when its collective number `k` differs from `reference`.
fn message(call: &Logged, reference: &Logged, k: u64) -> Msg {
    let root = |r: Option<u32>| r.map_or(String::new(), |r| format!(" (root {r})"));
    format!(
        "collectives called in different orders on one communicator: rank {} calls {}{} as its \
         collective #{} there, where rank {} called {}{} (line {})",
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
