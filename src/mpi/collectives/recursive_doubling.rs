//! Recursive doubling (MPICH's `MPIR_Allreduce_intra_recursive_doubling`, and the same schedule for
//! allgather; MPICH's `MPIR_Allgatherv_intra_recursive_doubling`), for any rank count.
//!
//! Allreduce and allgather: with `p` the largest power of two <= n and `rem = n - p`, the first
//! `2 rem` ranks fold in pairs: each even one sends its data to the odd one above it and sits out. The
//! remaining `p` ranks (new rank `me / 2` for the odd folded ones, `me - rem` for the others) exchange
//! with the new rank `new ^ mask` for mask = 1, 2, 4, ... < p. Finally each odd folded rank sends the
//! result back to its even partner: `p·log2 p + 2 rem` messages. Allreduce moves the whole vector in
//! every message. Allgather moves what the sender holds: one block in the fold, then the blocks of its
//! new-rank group `[base, base + mask)` (a new rank below `rem` holds two ranks' blocks), and all `n`
//! blocks back to the folded ranks. MPICH runs its allgather only on powers of two (where the fold is
//! empty and both schedules agree); the fold for other counts is our documented choice.
//!
//! [`allgather_blocks`] is MPICH's own allgather schedule of blocks of any sizes
//! (`MPIR_Allgatherv_intra_recursive_doubling`, and the allgather phase of
//! `MPIR_Bcast_intra_scatter_recursive_doubling_allgather`): rank r exchanges with `r ^ mask` when that
//! rank exists, and for other counts than powers of two the ranks whose partner is missing get the
//! partner group's blocks from a rank of their own group that has them (MPICH's "haves send to the
//! havenots" step, by recursive halving). For a power of two n: n·log2 n messages.

use super::{recv, send};
use crate::program::Op;

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

/// MPICH's recursive doubling allgather of blocks: rank `r` (of `n`, in the algorithm's numbering)
/// starts with block r and ends with all; `range(a, b)` is the size of blocks `[a, min(b, n))`, `peer`
/// maps the numbering to ranks. Every exchange sends even when it is empty, as MPICH's sendrecv does.
pub fn allgather_blocks(
    n: u32,
    r: u32,
    range: impl Fn(u32, u32) -> u64,
    peer: impl Fn(u32) -> u32,
    tag: u64,
    out: &mut Vec<Op>,
) {
    let (n, r) = (u64::from(n), u64::from(r));
    let range = |a: u64, b: u64| range(a.min(n) as u32, b.min(n) as u32);
    let peer = |x: u64| peer(x as u32);
    let mut mask = 1u64;
    let mut i = 0u32;
    while mask < n {
        let dst = r ^ mask;
        let my_root = (r >> i) << i;
        let dst_root = (dst >> i) << i;
        if dst < n {
            send(out, peer(dst), range(my_root, my_root + mask), tag);
            recv(out, peer(dst), tag);
        }
        if dst_root + mask > n {
            // The havenots of this group get the other group's blocks (which some ranks of the
            // group hold) from the ranks that have them, by recursive halving.
            let completed = n as i64 - (my_root + mask) as i64;
            let forwarded = range(my_root + mask, my_root + 2 * mask);
            let mut k = i;
            let mut tmp = mask >> 1;
            while tmp > 0 {
                let d = r ^ tmp;
                let have = |x: u64| (x as i64) < (((r >> k) << k) as i64 + completed);
                if d > r && have(r) && !have(d) {
                    send(out, peer(d), forwarded, tag);
                } else if d < r && have(d) && !have(r) {
                    recv(out, peer(d), tag);
                }
                tmp >>= 1;
                k -= 1;
            }
        }
        mask <<= 1;
        i += 1;
    }
}

/// `MPIR_Allgatherv_intra_recursive_doubling`: rank i contributes `counts[i]` bytes.
pub fn allgatherv(n: u32, me: u32, counts: &[u64], tag: u64, out: &mut Vec<Op>) {
    let mut prefix = Vec::with_capacity(counts.len() + 1);
    prefix.push(0u64);
    for &c in counts {
        prefix.push(prefix[prefix.len() - 1].saturating_add(c));
    }
    let range = |a: u32, b: u32| prefix[b as usize].saturating_sub(prefix[a as usize]);
    allgather_blocks(n, me, range, |x| x, tag, out);
}

#[cfg(test)]
mod tests {
    use super::super::tests::{messages, program};
    use super::super::{Algorithms, Collective};

    fn msgs(c: Collective, n: u32) -> Vec<(u32, u32, u64)> {
        messages(&program(c, n, &Algorithms::FIXED))
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

    /// MPICH's schedule: every rank receives every other rank's block, whatever n and the sizes.
    #[test]
    fn mpich_allgatherv_delivers_every_block() {
        use super::super::tests::check_replays;
        use crate::program::Program;
        for n in 1..=17u32 {
            let counts: Vec<u64> = (0..n).map(|i| u64::from(i * 7 % 5) + 1).collect();
            let total: u64 = counts.iter().sum();
            let p = Program::from_fn(n, |me, ops| super::allgatherv(n, me, &counts, 1, ops));
            check_replays(&p);
            for r in 0..n {
                let got: u64 = p.sends().filter(|x| x.1 == r).map(|x| x.2).sum();
                assert_eq!(got, total - counts[r as usize], "{n} ranks, rank {r}");
            }
            if n.is_power_of_two() {
                assert_eq!(p.sends().count() as u32, n * n.trailing_zeros());
            }
        }
        // 5 ranks: 0..4 exchange in pairs, rank 4 only with rank 0 at mask 4; then 0 forwards
        // block 4 to 2 and to 1, and 2 forwards it to 3.
        let n = 5;
        let p = Program::from_fn(n, |me, ops| super::allgatherv(n, me, &[1; 5], 1, ops));
        let m = messages(&p);
        for edge in [(0, 4, 4), (4, 0, 1), (0, 2, 1), (0, 1, 1), (2, 3, 1)] {
            assert!(m.contains(&edge), "{edge:?} in {m:?}");
        }
        assert_eq!(m.len(), 4 * 2 + 2 + 3);
    }
}
