//! Recursive doubling (MPICH's `MPIR_Allreduce_intra_recursive_doubling`, and the same schedule for
//! allgather), for any rank count.
//!
//! With `p` the largest power of two <= n and `rem = n - p`, the first `2 rem` ranks fold in pairs:
//! each even one sends its data to the odd one above it and sits out. The remaining `p` ranks
//! (new rank `me / 2` for the odd folded ones, `me - rem` for the others) exchange with the new rank
//! `new ^ mask` for mask = 1, 2, 4, ... < p. Finally each odd folded rank sends the result back to its
//! even partner. Allreduce moves the whole vector in every message. Allgather moves what the sender holds:
//! one block in the fold, then the blocks of its new-rank group `[base, base + mask)` (a new rank below
//! `rem` holds two ranks' blocks), and all `n` blocks back to the folded ranks. MPICH itself switches
//! allgather to Bruck or ring for non-powers of two; applying the allreduce fold is our documented choice.

use super::{recv, send};
use crate::workload::Op;

/// The fold: (p, rem, new rank or None when `me` sits out).
fn fold(n: u32, me: u32) -> (u32, u32, Option<u32>) {
    let p = 1u32 << (31 - n.leading_zeros());
    let rem = n - p;
    let new = if me < 2 * rem {
        (me % 2 == 1).then_some(me / 2)
    } else {
        Some(me - rem)
    };
    (p, rem, new)
}

/// Actual rank of new rank `new`.
fn old(new: u32, rem: u32) -> u32 {
    if new < rem { new * 2 + 1 } else { new + rem }
}

/// Shared schedule; `group_bytes(base, mask)` is what a new rank of group `[base, base + mask)` sends.
fn schedule(
    n: u32,
    me: u32,
    tag: u64,
    fold_bytes: u64,
    back_bytes: u64,
    group_bytes: impl Fn(u32, u32) -> u64,
    out: &mut Vec<Op>,
) {
    let (p, rem, new) = fold(n, me);
    let Some(new) = new else {
        send(out, me + 1, fold_bytes, tag);
        recv(out, me + 1, tag);
        return;
    };
    if me < 2 * rem {
        recv(out, me - 1, tag);
    }
    let mut mask = 1;
    while mask < p {
        let peer = old(new ^ mask, rem);
        send(out, peer, group_bytes(new & !(mask - 1), mask), tag);
        recv(out, peer, tag);
        mask <<= 1;
    }
    if me < 2 * rem {
        send(out, me - 1, back_bytes, tag);
    }
}

/// Allreduce of a `bytes` vector.
pub fn allreduce(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    schedule(n, me, tag, bytes, bytes, |_, _| bytes, out);
}

/// Allgather of `bytes` per rank.
pub fn allgather(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let rem = fold(n, me).1;
    let blocks = move |base: u32, mask: u32| {
        let doubled = rem.min(base + mask).saturating_sub(base);
        u64::from(mask + doubled)
    };
    schedule(
        n,
        me,
        tag,
        bytes,
        bytes.saturating_mul(u64::from(n)),
        |base, mask| bytes.saturating_mul(blocks(base, mask)),
        out,
    );
}

#[cfg(test)]
mod tests {
    use super::super::tests::{messages, program};
    use super::super::{Algorithms, Collective};

    fn msgs(c: Collective, n: u32) -> Vec<(u32, u32, u64)> {
        messages(&program(c, n, &Algorithms::default()))
    }

    #[test]
    fn allreduce_three_and_six_ranks() {
        let b = 8;
        // 3 ranks: 0 folds into 1; 1 and 2 exchange; 1 returns the result to 0.
        assert_eq!(
            msgs(Collective::Allreduce { bytes: b }, 3),
            [(0, 1, b), (1, 0, b), (1, 2, b), (2, 1, b)]
        );
        // 6 ranks: folds 0->1, 2->3; new ranks 0..4 = ranks 1, 3, 4, 5; mask 1 pairs (1,3), (4,5);
        // mask 2 pairs (1,4), (3,5); results back 1->0, 3->2.
        let mut want = vec![
            (0, 1),
            (2, 3),
            (1, 3),
            (3, 1),
            (4, 5),
            (5, 4),
            (1, 4),
            (4, 1),
            (3, 5),
            (5, 3),
            (1, 0),
            (3, 2),
        ];
        want.sort_unstable();
        let got: Vec<(u32, u32)> = msgs(Collective::Allreduce { bytes: b }, 6)
            .iter()
            .map(|m| (m.0, m.1))
            .collect();
        assert_eq!(got, want);
        // Powers of two: n log2 n messages; 5 and 7 ranks: 2 rem + p log2 p + rem... counted.
        assert_eq!(msgs(Collective::Allreduce { bytes: b }, 8).len(), 24);
        assert_eq!(msgs(Collective::Allreduce { bytes: b }, 5).len(), 2 + 8);
        assert_eq!(msgs(Collective::Allreduce { bytes: b }, 7).len(), 6 + 8);
    }

    #[test]
    fn allgather_moves_every_block_to_every_rank() {
        // 3 ranks, 1 byte per block: 0->1 (1 block), 1<->2 (1 sends 2 blocks, 2 sends 1), 1->0 (3).
        assert_eq!(
            msgs(Collective::Allgather { bytes: 1 }, 3),
            [(0, 1, 1), (1, 0, 3), (1, 2, 2), (2, 1, 1)]
        );
        // 8 ranks: each rank sends 1, 2, 4 blocks.
        let m = msgs(Collective::Allgather { bytes: 1 }, 8);
        assert_eq!(m.iter().map(|x| x.2).sum::<u64>(), 8 * 7);
        // 6 ranks: a participating rank receives every block but its own (n - 1), a folded one
        // receives all n back from its partner.
        let m = msgs(Collective::Allgather { bytes: 1 }, 6);
        for r in 0..6 {
            let got: u64 = m.iter().filter(|x| x.1 == r).map(|x| x.2).sum();
            let want = if r == 0 || r == 2 { 6 } else { 5 };
            assert_eq!(got, want, "rank {r}");
        }
        // 5 and 7 ranks likewise.
        for n in [5u32, 7] {
            let m = msgs(Collective::Allgather { bytes: 1 }, n);
            for r in 0..n {
                let got: u64 = m.iter().filter(|x| x.1 == r).map(|x| x.2).sum();
                let rem = n - 4;
                let want = if r < 2 * rem && r % 2 == 0 { n } else { n - 1 };
                assert_eq!(got, u64::from(want), "{n} ranks, rank {r}");
            }
        }
    }
}
