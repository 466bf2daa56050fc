//! Bcast as a binomial scatter followed by an allgather (van de Geijn): MPICH's
//! `MPIR_Bcast_intra_scatter_recursive_doubling_allgather` and `MPIR_Bcast_intra_scatter_ring_allgather`,
//! both starting with `MPII_Scatter_for_bcast`.
//!
//! The vector of `bytes` is cut into n pieces of `ss = ceil(bytes / n)` bytes (the last ones shorter or
//! empty); relative rank `vr = (me - root) mod n` owns piece `vr`. The scatter is the binomial tree of
//! [`super::binomial`]: the parent of `vr` sends it the pieces of its subtree, `min(bytes - vr·ss,
//! lowbit(vr)·ss)` bytes, and sends nothing when that is not positive (at most n − 1 messages). Then:
//! - recursive doubling (MPICH runs it for powers of two; other counts use MPICH's own completion, see
//!   [`super::recursive_doubling::allgather_blocks`]): n·log2 n messages for a power of two n;
//! - ring: n − 1 steps in which rank `me` sends to `me + 1` the piece it received last (its own first)
//!   and receives from `me − 1`: n(n − 1) messages.
//!
//! Like MPICH, the allgather steps send their message even when it is empty.

use super::binomial::{actual, relative};
use super::{recursive_doubling, recv, send};
use crate::program::Op;

/// The piece size `ceil(bytes / n)`.
fn piece_size(bytes: u64, n: u32) -> u64 {
    bytes.div_ceil(u64::from(n).max(1))
}

/// Bytes of pieces `[a, b)` (relative ranks) of a `bytes` vector cut in pieces of `ss`.
fn pieces(bytes: u64, ss: u64, a: u32, b: u32) -> u64 {
    let (a, b) = (u64::from(a), u64::from(b.max(a)));
    bytes
        .saturating_sub(a.saturating_mul(ss))
        .min((b - a).saturating_mul(ss))
}

/// `MPII_Scatter_for_bcast`: the binomial scatter of the pieces.
fn scatter(n: u32, me: u32, root: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let ss = piece_size(bytes, n);
    let vr = relative(me, root, n);
    // The highest mask to send on, and what this rank holds.
    let (mut mask, mut curr) = if vr == 0 {
        (u64::from(n).next_power_of_two(), bytes)
    } else {
        let low = 1u64 << vr.trailing_zeros();
        let start = u64::from(vr).saturating_mul(ss);
        if bytes > start {
            recv(out, actual(vr - low as u32, root, n), tag);
        }
        (low, bytes.saturating_sub(start).min(low.saturating_mul(ss)))
    };
    mask >>= 1;
    while mask > 0 {
        if u64::from(vr) + mask < u64::from(n) {
            let send_size = curr.saturating_sub(ss.saturating_mul(mask));
            if send_size > 0 {
                send(out, actual(vr + mask as u32, root, n), send_size, tag);
                curr -= send_size;
            }
        }
        mask >>= 1;
    }
}

/// `MPIR_Bcast_intra_scatter_recursive_doubling_allgather`.
pub fn bcast_recursive_doubling(
    n: u32,
    me: u32,
    root: u32,
    bytes: u64,
    tag: u64,
    out: &mut Vec<Op>,
) {
    if n < 2 {
        return;
    }
    scatter(n, me, root, bytes, tag, out);
    let ss = piece_size(bytes, n);
    recursive_doubling::allgather_blocks(
        n,
        relative(me, root, n),
        |a, b| pieces(bytes, ss, a, b),
        |vr| actual(vr, root, n),
        tag,
        out,
    );
}

/// `MPIR_Bcast_intra_scatter_ring_allgather`.
pub fn bcast_ring(n: u32, me: u32, root: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    if n < 2 {
        return;
    }
    scatter(n, me, root, bytes, tag, out);
    let ss = piece_size(bytes, n);
    let (right, left) = ((me + 1) % n, (me + n - 1) % n);
    let mut j = me;
    for _ in 1..n {
        let vj = relative(j, root, n);
        send(out, right, pieces(bytes, ss, vj, vj + 1), tag);
        recv(out, left, tag);
        j = (j + n - 1) % n;
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check_replays, messages};
    use crate::program::Program;

    fn run(n: u32, root: u32, bytes: u64, ring: bool) -> Vec<(u32, u32, u64)> {
        let p = Program::from_fn(n, |me, ops| {
            if ring {
                super::bcast_ring(n, me, root, bytes, 1, ops)
            } else {
                super::bcast_recursive_doubling(n, me, root, bytes, 1, ops)
            }
        });
        check_replays(&p);
        messages(&p)
    }

    /// Every non-root rank receives the whole vector: its subtree's pieces in the scatter, then every
    /// piece but its own in the allgather (an interior rank of the tree gets its children's pieces
    /// twice, as in MPICH).
    fn each_receives_all(m: &[(u32, u32, u64)], n: u32, root: u32, bytes: u64) {
        let ss = super::piece_size(bytes, n);
        for r in (0..n).filter(|&r| r != root) {
            let vr = super::relative(r, root, n);
            let scattered = super::pieces(bytes, ss, vr, vr + (1 << vr.trailing_zeros()));
            let own = super::pieces(bytes, ss, vr, vr + 1);
            let got: u64 = m.iter().filter(|x| x.1 == r).map(|x| x.2).sum();
            assert_eq!(
                got,
                scattered + bytes - own,
                "{n} ranks, root {root}, rank {r}"
            );
        }
    }

    #[test]
    fn scatter_then_allgather_delivers_the_vector() {
        for n in 2..=17u32 {
            for root in [0, n / 2, n - 1] {
                for bytes in [1u64, 97, 1000, 4096 + 3] {
                    let ring = run(n, root, bytes, true);
                    each_receives_all(&ring, n, root, bytes);
                    let rd = run(n, root, bytes, false);
                    each_receives_all(&rd, n, root, bytes);
                    if bytes >= u64::from(n) * u64::from(n) {
                        // Every piece non-empty: n - 1 scatter messages, then the allgather.
                        let nn = n as usize;
                        assert_eq!(ring.len(), nn - 1 + nn * (nn - 1), "ring, {n} ranks");
                        if n.is_power_of_two() {
                            let log = n.trailing_zeros() as usize;
                            assert_eq!(rd.len(), nn - 1 + nn * log, "rd, {n} ranks");
                        }
                    }
                }
            }
        }
    }

    /// Hand-derived from MPII_Scatter_for_bcast: 100 bytes on 8 ranks, pieces of 13 (the last 9).
    #[test]
    fn scatter_sizes_follow_mpich() {
        let m = run(8, 0, 100, false);
        let scatter: Vec<_> = m.iter().filter(|x| x.0 == 0).map(|x| (x.1, x.2)).collect();
        // Root sends to 1 (13), 2 (26), 4 (48 = 100 - 52), then exchanges with 1, 2, 4 (13, 26, 52).
        assert_eq!(
            scatter,
            [(1, 13), (1, 13), (2, 26), (2, 26), (4, 48), (4, 52)]
        );
        // 10 bytes on 8 ranks: pieces of 2, ranks 5..7 get none, so rank 4 receives 2 bytes and
        // forwards nothing in the scatter.
        let m = run(8, 0, 10, true);
        assert!(m.contains(&(0, 4, 2)));
        assert!(!m.iter().any(|x| x.0 == 4 && x.1 == 6 && x.2 > 0));
        // Pieces 5, 6 and 7 are empty; each is sent empty by the n - 1 ranks that forward it.
        assert_eq!(m.iter().filter(|x| x.2 == 0).count(), 3 * 7);
    }
}
