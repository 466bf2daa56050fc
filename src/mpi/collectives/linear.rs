//! Linear and simple vector collectives, with per-rank counts.
//!
//! `gatherv` and `scatterv` are linear, as in MPICH (`MPIR_Gatherv_allcomm_linear`,
//! `MPIR_Scatterv_allcomm_linear`, its only algorithms): the root receives from (or sends to) every
//! other rank in rank order, n − 1 messages. The others are the fixed choices of `select=fixed`:
//! `allgatherv` as a ring with one message per block (`allgatherv=ring-unpipelined`; MPICH pipelines
//! its ring, see [`super::ring::allgatherv`]), `alltoallv` on the pairwise schedule of
//! [`super::pairwise`] with per-destination sizes (`alltoallv=pairwise`), both n(n − 1) messages, and
//! `reducescatter` as a binomial reduce of the whole vector to rank 0 followed by a linear scatterv of
//! each rank's part (`reduce_scatter=reduce-scatterv`), 2(n − 1) messages.

use super::{binomial, pairwise, recv, send};
use crate::program::Op;

/// Gatherv: this rank sends its `bytes` to `root`, which receives from every other rank in rank order.
pub fn gatherv(n: u32, me: u32, root: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    if me == root {
        (0..n)
            .filter(|&r| r != root)
            .for_each(|r| recv(out, r, tag));
    } else {
        send(out, root, bytes, tag);
    }
}

/// Scatterv: `root` sends `counts[i]` bytes to rank i.
pub fn scatterv(n: u32, me: u32, root: u32, counts: &[u64], tag: u64, out: &mut Vec<Op>) {
    if me == root {
        (0..n)
            .filter(|&r| r != root)
            .for_each(|r| send(out, r, counts[r as usize], tag));
    } else {
        recv(out, root, tag);
    }
}

/// Allgatherv: unpipelined ring; in step s rank `me` forwards the block of rank `me - s` (mod n).
pub fn allgatherv(n: u32, me: u32, counts: &[u64], tag: u64, out: &mut Vec<Op>) {
    let (right, left) = ((me + 1) % n, (me + n - 1) % n);
    for s in 0..n - 1 {
        send(out, right, counts[((me + n - s) % n) as usize], tag);
        recv(out, left, tag);
    }
}

/// Alltoallv: pairwise; `send_counts[d]` bytes go to rank d.
pub fn alltoallv(n: u32, me: u32, send_counts: &[u64], tag: u64, out: &mut Vec<Op>) {
    for i in 1..n {
        let (dst, src) = pairwise::peers(n, me, i);
        send(out, dst, send_counts[dst as usize], tag);
        recv(out, src, tag);
    }
}

/// Reduce-scatter: rank i ends with `count(i)` bytes of the reduced vector.
pub fn reducescatter(n: u32, me: u32, count: impl Fn(u32) -> u64, tag: u64, out: &mut Vec<Op>) {
    let total = (0..n).fold(0u64, |a, i| a.saturating_add(count(i)));
    binomial::reduce(n, me, 0, total, tag, out);
    if me == 0 {
        (1..n).for_each(|r| send(out, r, count(r), tag));
    } else {
        recv(out, 0, tag);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::check_replays;
    use crate::program::Program;

    #[test]
    fn vector_collectives_move_the_given_counts() {
        let counts = [5u64, 1, 7, 2, 9];
        let n = counts.len() as u32;
        let p = Program::from_fn(n, |me, ops| {
            super::gatherv(n, me, 3, counts[me as usize], 1, ops)
        });
        check_replays(&p);
        assert_eq!(p.sends().map(|s| s.2).sum::<u64>(), 5 + 1 + 7 + 9);
        let p = Program::from_fn(n, |me, ops| super::allgatherv(n, me, &counts, 1, ops));
        check_replays(&p);
        // Every rank receives every block but its own.
        for r in 0..n {
            let got: u64 = p.sends().filter(|s| s.1 == r).map(|s| s.2).sum();
            assert_eq!(got, 24 - counts[r as usize], "rank {r}");
        }
        let p = Program::from_fn(n, |me, ops| super::alltoallv(n, me, &counts, 1, ops));
        check_replays(&p);
        assert_eq!(p.sends().count(), 20);
        let p = Program::from_fn(n, |me, ops| {
            super::reducescatter(n, me, |i| counts[i as usize], 1, ops)
        });
        check_replays(&p);
        assert_eq!(p.sends().count(), 4 + 4);
        let p = Program::from_fn(n, |me, ops| super::scatterv(n, me, 0, &counts, 1, ops));
        check_replays(&p);
        assert_eq!(p.sends().map(|s| s.2).sum::<u64>(), 24 - 5);
    }
}
