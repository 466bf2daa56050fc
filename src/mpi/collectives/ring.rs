//! Ring algorithms: allgather (MPICH's `MPIR_Allgather_intra_ring`), allgatherv (MPICH's pipelined
//! `MPIR_Allgatherv_intra_ring`) and allreduce as a ring reduce-scatter followed by a ring allgather
//! (the bandwidth-optimal allreduce of Patarasuk and Yuan; MPICH 4's `MPIR_Allreduce_intra_ring`, and
//! NCCL's).
//!
//! Every step each rank sends to `(me + 1) mod n` and then receives from `(me - 1) mod n`. Allgather:
//! n - 1 steps of one `bytes` block. Allreduce: the vector is cut into n chunks (chunk i has
//! `bytes / n` bytes plus one if `i < bytes mod n`); in reduce-scatter step s rank `me` sends chunk
//! `me - s`, in allgather step s chunk `me + 1 - s` (indices mod n): 2(n - 1) messages per rank.
//!
//! Allgatherv forwards the blocks of `me, me - 1, ...` in chunks of at most
//! `max(min counts, MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE)` bytes, skipping empty blocks: per rank,
//! `Σ_{i != me + 1} ceil(counts[i] / chunk)` messages, n(n − 1) when every block is non-empty and no
//! larger than the chunk.

use super::select::ALLGATHERV_PIPELINE_MSG_SIZE;
use super::{recv, send};
use crate::program::Op;

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

/// `MPIR_Allgatherv_intra_ring`: rank i contributes `counts[i]` bytes, pipelined in chunks.
pub fn allgatherv(n: u32, me: u32, counts: &[u64], tag: u64, out: &mut Vec<Op>) {
    if n < 2 {
        return;
    }
    let (right, left) = neighbours(n, me);
    let total = super::select::total(counts);
    let count = |i: u32| counts[i as usize];
    let mut torecv = total.saturating_sub(count(me));
    let mut tosend = total.saturating_sub(count(right));
    let smallest = counts.iter().copied().min().unwrap_or(0);
    let chunk = smallest.max(ALLGATHERV_PIPELINE_MSG_SIZE).max(1);
    let (mut sidx, mut ridx) = (me, left);
    let (mut soffset, mut roffset) = (0u64, 0u64);
    while tosend > 0 || torecv > 0 {
        let sendnow = if tosend > 0 {
            (count(sidx) - soffset).min(chunk)
        } else {
            0
        };
        let recvnow = if torecv > 0 {
            (count(ridx) - roffset).min(chunk)
        } else {
            0
        };
        if sendnow > 0 {
            send(out, right, sendnow, tag);
            tosend = tosend.saturating_sub(sendnow);
        }
        if recvnow > 0 {
            recv(out, left, tag);
            torecv = torecv.saturating_sub(recvnow);
        }
        soffset += sendnow;
        roffset += recvnow;
        if soffset == count(sidx) {
            soffset = 0;
            sidx = (sidx + n - 1) % n;
        }
        if roffset == count(ridx) {
            roffset = 0;
            ridx = (ridx + n - 1) % n;
        }
    }
}

/// (right, left) neighbours on the ring.
fn neighbours(n: u32, me: u32) -> (u32, u32) {
    ((me + 1) % n, (me + n - 1) % n)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check_replays, messages, program};
    use super::super::{Algorithms, AllgatherAlg, AllreduceAlg, Collective};
    use crate::program::Program;

    const RING: Algorithms = Algorithms {
        allreduce: Some(AllreduceAlg::Ring),
        allgather: Some(AllgatherAlg::Ring),
        ..Algorithms::FIXED
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

    #[test]
    fn allgatherv_pipelines_large_blocks_and_skips_empty_ones() {
        // Small blocks: one message per non-empty block and step.
        let counts = [5u64, 0, 7, 2, 9];
        let n = counts.len() as u32;
        let p = Program::from_fn(n, |me, ops| super::allgatherv(n, me, &counts, 1, ops));
        check_replays(&p);
        for r in 0..n {
            let got: u64 = p.sends().filter(|x| x.1 == r).map(|x| x.2).sum();
            assert_eq!(got, 23 - counts[r as usize], "rank {r}");
        }
        // Each of the 4 non-empty blocks travels n - 1 hops.
        assert_eq!(p.sends().count(), 4 * 4);
        assert!(p.sends().all(|x| x.2 > 0 && x.1 == (x.0 + 1) % n));
        // Blocks of 100000 bytes: chunks of 100000 (the smallest count is above 32768); one of
        // 10 bytes makes the chunk 32768, so a 100000-byte block takes 4 messages per hop.
        let counts = [100_000u64, 10, 100_000];
        let p = Program::from_fn(3, |me, ops| super::allgatherv(3, me, &counts, 1, ops));
        check_replays(&p);
        assert_eq!(p.sends().count(), 2 * (4 + 1 + 4));
        let big = [100_000u64; 3];
        let p = Program::from_fn(3, |me, ops| super::allgatherv(3, me, &big, 1, ops));
        assert_eq!(p.sends().count(), 6);
    }
}
