//! Reduce_scatter and reduce_scatter_block for commutative operations: MPICH's
//! `MPIR_Reduce_scatter_intra_recursive_halving` / `MPIR_Reduce_scatter_block_intra_recursive_halving`
//! and `MPIR_Reduce_scatter_intra_pairwise` / `MPIR_Reduce_scatter_block_intra_pairwise`. The block
//! variants are the same schedules with every count equal.
//!
//! Recursive halving: with p the largest power of two <= n and `rem = n - p`, the first `2 rem` ranks
//! fold (each even rank sends the whole vector to the odd one above it and sits out; the odd one
//! stands for both, with both ranks' blocks). The p remaining ranks then halve the vector log2 p
//! times: for mask = p/2, ..., 1 a rank keeps one half of its current range of blocks, sends the
//! other half to `new ^ mask` and receives that rank's copy of its own half. Finally each odd folded
//! rank sends its even partner its block. Like MPICH, an empty half or block is not sent:
//! `2 rem + p·log2 p` messages when every count is positive.
//!
//! Pairwise: n − 1 steps; in step i rank `me` sends the block of `me + i` to it and receives its own
//! block from `me − i` (empty ones included, as MPICH's sendrecv): n(n − 1) messages.

use super::{recv, send};
use crate::program::Op;

/// `MPIR_Reduce_scatter_intra_recursive_halving`; rank i ends with `count(i)` bytes.
pub fn recursive_halving(n: u32, me: u32, count: impl Fn(u32) -> u64, tag: u64, out: &mut Vec<Op>) {
    if n < 2 {
        return;
    }
    let p = super::select::pof2(n);
    let rem = n - p;
    let total = (0..n).fold(0u64, |a, i| a.saturating_add(count(i)));
    let newrank = if me < 2 * rem {
        if me.is_multiple_of(2) {
            send(out, me + 1, total, tag);
            None
        } else {
            recv(out, me - 1, tag);
            Some(me / 2)
        }
    } else {
        Some(me - rem)
    };
    if let Some(nr) = newrank {
        // Prefix sums of the new ranks' counts (a folded pair counts both blocks).
        let mut prefix = Vec::with_capacity(p as usize + 1);
        prefix.push(0u64);
        for i in 0..p {
            let old = if i < rem { i * 2 + 1 } else { i + rem };
            let c = if old < 2 * rem {
                count(old).saturating_add(count(old - 1))
            } else {
                count(old)
            };
            prefix.push(prefix[i as usize].saturating_add(c));
        }
        let range = |a: u32, b: u32| prefix[b as usize].saturating_sub(prefix[a as usize]);
        let (mut send_idx, mut recv_idx, mut last_idx) = (0, 0, p);
        let mut mask = p >> 1;
        while mask > 0 {
            let newdst = nr ^ mask;
            let dst = if newdst < rem {
                newdst * 2 + 1
            } else {
                newdst + rem
            };
            let (send_cnt, recv_cnt) = if nr < newdst {
                send_idx = recv_idx + mask;
                (range(send_idx, last_idx), range(recv_idx, send_idx))
            } else {
                recv_idx = send_idx + mask;
                (range(send_idx, recv_idx), range(recv_idx, last_idx))
            };
            if send_cnt != 0 {
                send(out, dst, send_cnt, tag);
            }
            if recv_cnt != 0 {
                recv(out, dst, tag);
            }
            send_idx = recv_idx;
            last_idx = recv_idx + mask;
            mask >>= 1;
        }
    }
    if me < 2 * rem {
        if me % 2 == 1 {
            if count(me - 1) != 0 {
                send(out, me - 1, count(me - 1), tag);
            }
        } else if count(me) != 0 {
            recv(out, me + 1, tag);
        }
    }
}

/// `MPIR_Reduce_scatter_intra_pairwise`; rank i ends with `count(i)` bytes.
pub fn pairwise(n: u32, me: u32, count: impl Fn(u32) -> u64, tag: u64, out: &mut Vec<Op>) {
    for i in 1..n {
        let dst = (me + i) % n;
        let src = (me + n - i) % n;
        send(out, dst, count(dst), tag);
        recv(out, src, tag);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check_replays, messages};
    use crate::program::Program;

    fn halving(n: u32, counts: &[u64]) -> Program {
        Program::from_fn(n, |me, ops| {
            super::recursive_halving(n, me, |i| counts[i as usize], 1, ops)
        })
    }

    #[test]
    fn recursive_halving_counts_and_sizes() {
        for n in 2..=17u32 {
            let p2 = super::super::select::pof2(n);
            let rem = n - p2;
            let counts: Vec<u64> = (0..n).map(|i| u64::from(i % 4) + 1).collect();
            let p = halving(n, &counts);
            check_replays(&p);
            let m = messages(&p);
            let log = u64::from(p2.trailing_zeros());
            assert_eq!(
                m.len() as u64,
                2 * u64::from(rem) + u64::from(p2) * log,
                "{n} ranks"
            );
            // A non-folded rank (and each folded pair) sends half of its range at every step: the
            // bytes a participating rank sends add up to the vector minus its final part.
            let total: u64 = counts.iter().sum();
            let r = n - 1;
            let sent: u64 = m.iter().filter(|x| x.0 == r).map(|x| x.2).sum();
            assert_eq!(sent, total - counts[r as usize], "{n} ranks");
        }
        // Zero counts skip messages: only rank 1 gets data on 4 ranks. Mask 2 pairs 0-2 and 1-3, and
        // ranks 0 and 1 keep the lower half (blocks 0 and 1): 2 -> 0 and 3 -> 1 carry block 1, the
        // upper half is empty. Mask 1: 0 -> 1 carries block 1; blocks 2 and 3 are empty.
        let p = halving(4, &[0, 8, 0, 0]);
        check_replays(&p);
        assert_eq!(messages(&p), [(0, 1, 8), (2, 0, 8), (3, 1, 8)]);
    }

    #[test]
    fn pairwise_sends_each_block_to_its_owner() {
        for n in 2..=9u32 {
            let counts: Vec<u64> = (0..n).map(|i| u64::from(i) * 3).collect();
            let p = Program::from_fn(n, |me, ops| {
                super::pairwise(n, me, |i| counts[i as usize], 1, ops)
            });
            check_replays(&p);
            let m = messages(&p);
            assert_eq!(m.len() as u32, n * (n - 1));
            assert!(m.iter().all(|&(_, d, b)| b == counts[d as usize]));
        }
    }
}
