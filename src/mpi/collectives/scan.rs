//! Recursive doubling prefix reductions: MPICH's `MPIR_Scan_intra_recursive_doubling` and
//! `MPIR_Exscan_intra_recursive_doubling` (the only intra-communicator algorithms besides SMP-aware
//! ones).
//!
//! For mask = 1, 2, 4, ... < n, rank `me` exchanges its partial prefix (the whole `bytes` vector) with
//! `me ^ mask` when that rank exists. Both operations move the same messages; only the local
//! reductions differ. Messages: `Σ_{mask < n} |{r < n : r ^ mask < n}|`, n·log2 n for a power of
//! two n.

use super::{recv, send};
use crate::program::Op;

/// Scan or exscan of a `bytes` vector.
pub fn scan(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let (n, me) = (u64::from(n), u64::from(me));
    let mut mask = 1u64;
    while mask < n {
        let dst = me ^ mask;
        if dst < n {
            send(out, dst as u32, bytes, tag);
            recv(out, dst as u32, tag);
        }
        mask <<= 1;
    }
}

/// The message count of [`scan`] on `n` ranks.
pub fn messages(n: u32) -> u64 {
    let n = u64::from(n);
    let mut total = 0;
    let mut mask = 1u64;
    while mask < n {
        total += (0..n).filter(|r| r ^ mask < n).count() as u64;
        mask <<= 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check_replays, messages, program};
    use super::super::{Algorithms, Collective};

    #[test]
    fn partners_and_counts() {
        for n in 1..=17u32 {
            for c in [
                Collective::Scan { bytes: 16 },
                Collective::Exscan { bytes: 16 },
            ] {
                let p = program(c, n, &Algorithms::default());
                check_replays(&p);
                let m = messages(&p);
                assert_eq!(m.len() as u64, super::messages(n), "{n} ranks");
                assert!(
                    m.iter()
                        .all(|&(s, d, b)| (s ^ d).is_power_of_two() && b == 16)
                );
                if n.is_power_of_two() {
                    assert_eq!(m.len() as u32, n * n.trailing_zeros());
                }
            }
        }
        // 6 ranks: mask 1 pairs everyone (6 messages), mask 2 pairs 0-2 and 1-3 (4), mask 4 pairs
        // 0-4 and 1-5 (4).
        assert_eq!(super::messages(6), 14);
    }
}
