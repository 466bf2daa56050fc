//! Pairwise exchange alltoall (MPICH's `MPIR_Alltoall_intra_pairwise`).
//!
//! In step i = 1..n, rank `me` sends its block for `dst` and receives from `src`, where
//! `dst = src = me XOR i` when n is a power of two and `dst = me + i`, `src = me - i` (mod n)
//! otherwise: n - 1 messages of `bytes` per rank.

use super::{recv, send};
use crate::program::Op;

/// The peers of step `i` for rank `me`: (destination, source).
pub fn peers(n: u32, me: u32, i: u32) -> (u32, u32) {
    if n.is_power_of_two() {
        (me ^ i, me ^ i)
    } else {
        ((me + i) % n, (me + n - i) % n)
    }
}

/// Alltoall with `bytes` per pair.
pub fn alltoall(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    for i in 1..n {
        let (dst, src) = peers(n, me, i);
        send(out, dst, bytes, tag);
        recv(out, src, tag);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{messages, program};
    use super::super::{Algorithms, Collective};

    #[test]
    fn every_ordered_pair_once() {
        for n in [2u32, 3, 4, 5, 6, 7, 8] {
            let m = messages(&program(
                Collective::Alltoall { bytes: 3 },
                n,
                &Algorithms::FIXED,
            ));
            let want: Vec<(u32, u32, u64)> = (0..n)
                .flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d, 3)))
                .collect();
            assert_eq!(m, want, "{n} ranks");
        }
        assert_eq!(super::peers(8, 5, 3), (6, 6));
        assert_eq!(super::peers(6, 5, 3), (2, 2));
        assert_eq!(super::peers(7, 5, 3), (1, 2));
    }
}
