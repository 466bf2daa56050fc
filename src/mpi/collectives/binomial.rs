//! Binomial trees (MPICH's `MPIR_Bcast_intra_binomial`, `MPIR_Reduce_intra_binomial`,
//! `MPIR_Gather_intra_binomial`, `MPIR_Scatter_intra_binomial`) for any rank count.
//!
//! Ranks are renumbered relative to the root (`vr = (me - root) mod n`). In the tree, the parent of
//! `vr > 0` is `vr` with its lowest set bit cleared and its children are `vr + m` for the powers of two
//! `m` below that bit (below the smallest power of two >= n for the root) with `vr + m < n`. Bcast and
//! scatter flow root-down, children largest subtree first; reduce and gather flow leaves-up, children
//! in increasing `m`. Bcast and reduce move the whole vector on every edge; gather and scatter move the
//! blocks of the subtree below the edge, `min(m, n - child)` blocks of `bytes`.

use super::{recv, send};
use crate::program::Op;

/// Actual rank of relative rank `vr`.
pub(super) fn actual(vr: u32, root: u32, n: u32) -> u32 {
    ((u64::from(vr) + u64::from(root)) % u64::from(n)) as u32
}

/// Relative rank of `me`.
pub(super) fn relative(me: u32, root: u32, n: u32) -> u32 {
    ((u64::from(me) + u64::from(n) - u64::from(root)) % u64::from(n)) as u32
}

/// The lowest set bit of `vr` (its edge to the parent), or the smallest power of two >= n for the root.
fn up_mask(vr: u32, n: u32) -> u64 {
    if vr == 0 {
        u64::from(n).next_power_of_two()
    } else {
        1 << vr.trailing_zeros()
    }
}

/// Children of `vr` as (child, subtree size in ranks), largest subtree first.
fn children(vr: u32, n: u32) -> impl Iterator<Item = (u32, u64)> {
    let top = up_mask(vr, n);
    let n = u64::from(n);
    (0..top.trailing_zeros())
        .rev()
        .map(move |b| (u64::from(vr) + (1 << b), 1u64 << b))
        .filter(move |&(c, _)| c < n)
        .map(move |(c, m)| (c as u32, m.min(n - c)))
}

/// Parent of `vr > 0` and the size of `vr`'s subtree.
fn parent(vr: u32, n: u32) -> (u32, u64) {
    let m = up_mask(vr, n);
    (vr - m as u32, m.min(u64::from(n - vr)))
}

/// Broadcast of `bytes` from `root`.
pub fn bcast(n: u32, me: u32, root: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let vr = relative(me, root, n);
    if vr != 0 {
        recv(out, actual(parent(vr, n).0, root, n), tag);
    }
    for (c, _) in children(vr, n) {
        send(out, actual(c, root, n), bytes, tag);
    }
}

/// Reduction of `bytes` to `root`.
pub fn reduce(n: u32, me: u32, root: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let vr = relative(me, root, n);
    let kids: Vec<_> = children(vr, n).collect();
    for &(c, _) in kids.iter().rev() {
        recv(out, actual(c, root, n), tag);
    }
    if vr != 0 {
        send(out, actual(parent(vr, n).0, root, n), bytes, tag);
    }
}

/// Gather of `bytes` per rank to `root`.
pub fn gather(n: u32, me: u32, root: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let vr = relative(me, root, n);
    let kids: Vec<_> = children(vr, n).collect();
    for &(c, _) in kids.iter().rev() {
        recv(out, actual(c, root, n), tag);
    }
    if vr != 0 {
        let (p, size) = parent(vr, n);
        send(out, actual(p, root, n), bytes.saturating_mul(size), tag);
    }
}

/// Scatter of `bytes` per rank from `root`.
pub fn scatter(n: u32, me: u32, root: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let vr = relative(me, root, n);
    if vr != 0 {
        recv(out, actual(parent(vr, n).0, root, n), tag);
    }
    for (c, size) in children(vr, n) {
        send(out, actual(c, root, n), bytes.saturating_mul(size), tag);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{messages, program};
    use super::super::{Algorithms, Collective};

    fn msgs(c: Collective, n: u32) -> Vec<(u32, u32, u64)> {
        messages(&program(c, n, &Algorithms::default()))
    }

    /// Hand-derived from the MPICH loops for 5 ranks, root 0.
    #[test]
    fn five_ranks_root_zero() {
        let b = 10;
        assert_eq!(
            msgs(Collective::Bcast { root: 0, bytes: b }, 5),
            [(0, 1, b), (0, 2, b), (0, 4, b), (2, 3, b)]
        );
        assert_eq!(
            msgs(Collective::Reduce { root: 0, bytes: b }, 5),
            [(1, 0, b), (2, 0, b), (3, 2, b), (4, 0, b)]
        );
        assert_eq!(
            msgs(Collective::Gather { root: 0, bytes: b }, 5),
            [(1, 0, b), (2, 0, 2 * b), (3, 2, b), (4, 0, b)]
        );
        assert_eq!(
            msgs(Collective::Scatter { root: 0, bytes: b }, 5),
            [(0, 1, b), (0, 2, 2 * b), (0, 4, b), (2, 3, b)]
        );
    }

    /// Root 2 of 3, 6 and 7 ranks: the 7-rank tree relabelled (vr + 2) mod 7, etc.
    #[test]
    fn non_zero_roots_and_non_powers_of_two() {
        let b = 1;
        // 3 ranks, root 2: vr 1 = rank 0, vr 2 = rank 1; tree 0->1, 0->2 in vr.
        assert_eq!(
            msgs(Collective::Bcast { root: 2, bytes: b }, 3),
            [(2, 0, b), (2, 1, b)]
        );
        // 6 ranks, root 0: vr 4 has child 5; vr 2 child 3; root children 1, 2, 4.
        assert_eq!(
            msgs(Collective::Gather { root: 0, bytes: b }, 6),
            [(1, 0, 1), (2, 0, 2), (3, 2, 1), (4, 0, 2), (5, 4, 1)]
        );
        // 7 ranks, root 2: vr k is rank (k + 2) mod 7; vr edges 0-1, 0-2, 2-3, 0-4, 4-5, 4-6, 6? no:
        // children of vr 4 are 5 and 6; of vr 6 none; of vr 2 only 3.
        let mut want = [(2, 3), (2, 4), (4, 5), (2, 6), (6, 0), (6, 1)]
            .map(|(s, d)| (s, d, b))
            .to_vec();
        want.sort_unstable();
        assert_eq!(msgs(Collective::Bcast { root: 2, bytes: b }, 7), want);
        // Scatter over 7 ranks moves 6 blocks out of the root in total: 1 + 2 + 3.
        let total_from_root: u64 = msgs(Collective::Scatter { root: 2, bytes: 1 }, 7)
            .iter()
            .filter(|m| m.0 == 2)
            .map(|m| m.2)
            .sum();
        assert_eq!(total_from_root, 6);
    }
}
