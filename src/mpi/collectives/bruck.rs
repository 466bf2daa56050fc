//! Bruck's algorithms (Bruck, Ho, Kipnis, Upfal and Weathersby 1997): MPICH's
//! `MPIR_Alltoall_intra_brucks`, `MPIR_Allgather_intra_brucks` and `MPIR_Allgatherv_intra_brucks`.
//! Each runs ceil(log2 n) steps in which every rank sends one message to `me - d` and receives one
//! from `me + d` (alltoall: to `me + d`, from `me - d`) for d = 1, 2, 4, ...: n·ceil(log2 n) messages.
//!
//! - Alltoall: after a local rotation, step d moves every block whose index (distance to its
//!   destination) has bit d set: `|{b in 1..n : b & d != 0}|` blocks, about n/2.
//! - Allgather: rank `me` holds the blocks of ranks `me, me + 1, ...`; step d (for d <= n/2) sends
//!   the d blocks it holds, and a last step sends the first `n - p` blocks (p the largest power of two
//!   <= n) when n is not a power of two.
//! - Allgatherv: the same with each rank's count.

use super::{recv, send};
use crate::program::Op;

/// The number of `b` in `0..n` with bit `d` (a power of two) set.
fn with_bit(n: u64, d: u64) -> u64 {
    let period = d * 2;
    (n / period) * d + (n % period).saturating_sub(d)
}

/// `MPIR_Alltoall_intra_brucks` with `bytes` per pair.
pub fn alltoall(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let (n64, me64) = (u64::from(n), u64::from(me));
    let mut d = 1u64;
    while d < n64 {
        let dst = ((me64 + d) % n64) as u32;
        let src = ((me64 + n64 - d) % n64) as u32;
        send(out, dst, with_bit(n64, d).saturating_mul(bytes), tag);
        recv(out, src, tag);
        d <<= 1;
    }
}

/// The Bruck allgather schedule; `held(k)` is the size of the k blocks of ranks `me..me + k`.
fn allgather_schedule(n: u32, me: u32, held: impl Fn(u64) -> u64, tag: u64, out: &mut Vec<Op>) {
    let (n64, me64) = (u64::from(n), u64::from(me));
    let peers = |d: u64| {
        let src = ((me64 + d) % n64) as u32;
        let dst = ((me64 + n64 - d) % n64) as u32;
        (dst, src)
    };
    let mut d = 1u64;
    while d <= n64 / 2 {
        let (dst, src) = peers(d);
        send(out, dst, held(d), tag);
        recv(out, src, tag);
        d <<= 1;
    }
    let rem = n64.saturating_sub(d);
    if rem > 0 {
        let (dst, src) = peers(d);
        send(out, dst, held(rem), tag);
        recv(out, src, tag);
    }
}

/// `MPIR_Allgather_intra_brucks` of `bytes` per rank.
pub fn allgather(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    allgather_schedule(n, me, |k| k.saturating_mul(bytes), tag, out);
}

/// `MPIR_Allgatherv_intra_brucks`: rank i contributes `counts[i]` bytes.
pub fn allgatherv(n: u32, me: u32, counts: &[u64], tag: u64, out: &mut Vec<Op>) {
    let at = |k: u64| counts[((u64::from(me) + k) % u64::from(n)) as usize];
    let held = |k: u64| (0..k).fold(0u64, |a, i| a.saturating_add(at(i)));
    allgather_schedule(n, me, held, tag, out);
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check_replays, messages};
    use crate::program::Program;

    fn ceil_log2(n: u32) -> u32 {
        n.next_power_of_two().trailing_zeros()
    }

    #[test]
    fn alltoall_moves_about_half_the_blocks_per_step() {
        for n in 2..=17u32 {
            let p = Program::from_fn(n, |me, ops| super::alltoall(n, me, 10, 1, ops));
            check_replays(&p);
            let m = messages(&p);
            assert_eq!(m.len() as u32, n * ceil_log2(n), "{n} ranks");
            // Step d carries the blocks whose index has bit d: sum over steps = total set bits of
            // 1..n, per rank.
            let bits: u32 = (1..n).map(|b| b.count_ones()).sum();
            let from0: u64 = m.iter().filter(|x| x.0 == 0).map(|x| x.2).sum();
            assert_eq!(from0, 10 * u64::from(bits), "{n} ranks");
        }
        // 8 ranks: every step moves 4 blocks, to me + 1, + 2, + 4.
        let p = Program::from_fn(8, |me, ops| super::alltoall(8, me, 3, 1, ops));
        let from5: Vec<_> = messages(&p).into_iter().filter(|x| x.0 == 5).collect();
        assert_eq!(from5, [(5, 1, 12), (5, 6, 12), (5, 7, 12)]);
        // 6 ranks: bit 1 in 1..6 = {1, 3, 5}, bit 2 = {2, 3}, bit 4 = {4, 5}.
        assert_eq!([1, 2, 4].map(|d| super::with_bit(6, d)), [3, 2, 2]);
    }

    #[test]
    fn allgather_and_allgatherv_deliver_every_block() {
        for n in 2..=17u32 {
            let p = Program::from_fn(n, |me, ops| super::allgather(n, me, 5, 1, ops));
            check_replays(&p);
            assert_eq!(p.sends().count() as u32, n * ceil_log2(n));
            for r in 0..n {
                let got: u64 = p.sends().filter(|x| x.1 == r).map(|x| x.2).sum();
                assert_eq!(got, 5 * u64::from(n - 1), "{n} ranks, rank {r}");
            }
            let counts: Vec<u64> = (0..n).map(|i| u64::from(i % 3) * 4 + 1).collect();
            let total: u64 = counts.iter().sum();
            let p = Program::from_fn(n, |me, ops| super::allgatherv(n, me, &counts, 1, ops));
            check_replays(&p);
            for r in 0..n {
                let got: u64 = p.sends().filter(|x| x.1 == r).map(|x| x.2).sum();
                assert_eq!(got, total - counts[r as usize], "{n} ranks, rank {r}");
            }
        }
        // 6 ranks: steps of 1 and 2 blocks, then the last 2 blocks at distance 4.
        let p = Program::from_fn(6, |me, ops| super::allgather(6, me, 1, 1, ops));
        let from0: Vec<_> = p.rank_ops(0).to_vec();
        let sends: Vec<_> = p.sends().filter(|x| x.0 == 0).map(|x| (x.1, x.2)).collect();
        assert_eq!(sends, [(5, 1), (4, 2), (2, 2)]);
        assert_eq!(from0.len(), 6);
    }
}
