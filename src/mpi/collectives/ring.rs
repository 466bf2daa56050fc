//! Ring algorithms: allgather (MPICH's `MPIR_Allgather_intra_ring`) and allreduce as a ring
//! reduce-scatter followed by a ring allgather (the bandwidth-optimal allreduce of Patarasuk and Yuan,
//! used by MPICH and NCCL for large vectors).
//!
//! Every step each rank sends to `(me + 1) mod n` and then receives from `(me - 1) mod n`. Allgather:
//! n - 1 steps of one `bytes` block. Allreduce: the vector is cut into n chunks (chunk i has
//! `bytes / n` bytes plus one if `i < bytes mod n`); in reduce-scatter step s rank `me` sends chunk
//! `me - s`, in allgather step s chunk `me + 1 - s` (indices mod n): 2(n - 1) messages per rank.

use super::{recv, send};
use crate::workload::Op;

/// Allgather of `bytes` per rank.
pub fn allgather(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let (right, left) = neighbours(n, me);
    for _ in 1..n {
        send(out, right, bytes, tag);
        recv(out, left, tag);
    }
}

/// Allreduce of a `bytes` vector.
pub fn allreduce(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    let (right, left) = neighbours(n, me);
    let n64 = u64::from(n);
    let chunk = |i: u64| bytes / n64 + u64::from(i % n64 < bytes % n64);
    let me64 = u64::from(me);
    for s in 0..n64 - 1 {
        send(out, right, chunk(me64 + n64 - s), tag);
        recv(out, left, tag);
    }
    for s in 0..n64 - 1 {
        send(out, right, chunk(me64 + 1 + n64 - s), tag);
        recv(out, left, tag);
    }
}

/// (right, left) neighbours on the ring.
fn neighbours(n: u32, me: u32) -> (u32, u32) {
    ((me + 1) % n, (me + n - 1) % n)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{messages, program};
    use super::super::{Algorithms, AllgatherAlg, AllreduceAlg, Collective};

    const RING: Algorithms = Algorithms {
        allreduce: AllreduceAlg::Ring,
        allgather: AllgatherAlg::Ring,
        barrier: super::super::BarrierAlg::Dissemination,
    };

    #[test]
    fn ring_messages() {
        for n in [3u32, 5, 6, 7] {
            let m = messages(&program(Collective::Allgather { bytes: 4 }, n, &RING));
            assert_eq!(m.len() as u32, n * (n - 1));
            assert!(m.iter().all(|&(s, d, b)| d == (s + 1) % n && b == 4));
            // 7n bytes split in n chunks of 7: each rank sends 2(n-1) chunks.
            let m = messages(&program(
                Collective::Allreduce {
                    bytes: 7 * u64::from(n),
                },
                n,
                &RING,
            ));
            assert_eq!(m.len() as u32, 2 * n * (n - 1));
            assert!(m.iter().all(|&(s, d, b)| d == (s + 1) % n && b == 7));
        }
        // 10 bytes over 3 ranks: chunks 4, 3, 3. Rank 0 sends chunks 0, 2 then 1, 0.
        let m = messages(&program(Collective::Allreduce { bytes: 10 }, 3, &RING));
        let from0: Vec<u64> = m.iter().filter(|x| x.0 == 0).map(|x| x.2).collect();
        assert_eq!(from0, [3, 3, 4, 4]); // sorted: chunk 2 (3), chunk 1 (3), chunk 0 (4) twice
    }
}
