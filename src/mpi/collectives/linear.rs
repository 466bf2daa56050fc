//! The vector collectives of SimGrid traces (`gatherv`, `scatterv`, `allgatherv`, `alltoallv`,
//! `reducescatter`), with per-rank counts.
//!
//! `gatherv` and `scatterv` are linear, as in MPICH (`MPIR_Gatherv_allcomm_linear`): the root receives
//! from (or sends to) every other rank in rank order. `allgatherv` is MPICH's ring with each rank's
//! block size. `alltoallv` follows the pairwise schedule of [`super::pairwise`] with per-destination
//! sizes. `reducescatter` is modelled as a binomial reduce of the whole vector to rank 0 followed by a
//! linear scatterv of each rank's part (MPICH's reduce-scatter for non-commutative operations; our
//! documented choice, as a trace does not say whether the operation commutes).

use super::{binomial, pairwise, recv, send};
use crate::workload::Op;

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

/// Scan (`exclusive: false`) or exscan as a linear chain: rank i waits for the prefix of ranks
/// 0..i from rank i - 1 and passes its own to rank i + 1 (n - 1 messages of `bytes`).
pub fn scan(n: u32, me: u32, bytes: u64, exclusive: bool, tag: u64, out: &mut Vec<Op>) {
    let _ = exclusive;
    if me > 0 {
        recv(out, me - 1, tag);
    }
    if me + 1 < n {
        send(out, me + 1, bytes, tag);
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

/// Allgatherv: ring; in step s rank `me` forwards the block of rank `me - s` (mod n).
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

/// Reduce-scatter: rank i ends with `counts[i]` bytes of the reduced vector.
pub fn reducescatter(n: u32, me: u32, counts: &[u64], tag: u64, out: &mut Vec<Op>) {
    let total = counts.iter().fold(0u64, |a, &c| a.saturating_add(c));
    binomial::reduce(n, me, 0, total, tag, out);
    scatterv(n, me, 0, counts, tag, out);
}

#[cfg(test)]
mod tests {
    use super::super::tests::check_replays;
    use crate::workload::Program;

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
        let p = Program::from_fn(n, |me, ops| super::reducescatter(n, me, &counts, 1, ops));
        check_replays(&p);
        assert_eq!(p.sends().count(), 4 + 4);
        let p = Program::from_fn(n, |me, ops| super::scatterv(n, me, 0, &counts, 1, ops));
        check_replays(&p);
        assert_eq!(p.sends().map(|s| s.2).sum::<u64>(), 24 - 5);
    }
}
