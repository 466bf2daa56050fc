//! Dissemination barrier (Hensgen, Finkel and Manber 1988; MPICH's `MPIR_Barrier_intra_dissemination`).
//!
//! In round k (for every `2^k < n`) rank `me` sends a 0-byte message to `(me + 2^k) mod n` and then
//! waits for the one from `(me - 2^k) mod n`: ceil(log2 n) rounds of n messages, any n.

use super::{recv, send};
use crate::program::Op;

/// The barrier of rank `me` of `n`.
pub fn barrier(n: u32, me: u32, tag: u64, out: &mut Vec<Op>) {
    let (n64, me64) = (u64::from(n), u64::from(me));
    let mut d = 1u64;
    while d < n64 {
        send(out, ((me64 + d) % n64) as u32, 0, tag);
        recv(out, ((me64 + n64 - d) % n64) as u32, tag);
        d <<= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{messages, program};
    use super::super::{Algorithms, BarrierAlg, Collective};

    #[test]
    fn rounds_and_partners() {
        let alg = Algorithms::default();
        // 5 ranks: rounds of distance 1, 2, 4.
        let m = messages(&program(Collective::Barrier, 5, &alg));
        assert_eq!(m.len(), 15);
        let from0: Vec<u32> = m.iter().filter(|x| x.0 == 0).map(|x| x.1).collect();
        assert_eq!(from0, [1, 2, 4]);
        let from3: Vec<u32> = m.iter().filter(|x| x.0 == 3).map(|x| x.1).collect();
        assert_eq!(from3, [0, 2, 4]);
        assert!(m.iter().all(|x| x.2 == 0));
        // 3 ranks: 2 rounds; 6 and 7: 3 rounds.
        for (n, msgs) in [(3, 6), (6, 18), (7, 21), (8, 24)] {
            assert_eq!(messages(&program(Collective::Barrier, n, &alg)).len(), msgs);
        }
        // The tree barrier: reduce then bcast, 2(n-1) messages.
        let tree = Algorithms {
            barrier: Some(BarrierAlg::Tree),
            ..alg
        };
        assert_eq!(messages(&program(Collective::Barrier, 7, &tree)).len(), 12);
    }
}
