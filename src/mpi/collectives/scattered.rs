//! Scattered alltoall and alltoallv: MPICH's `MPIR_Alltoall_intra_scattered` and
//! `MPIR_Alltoallv_intra_scattered`.
//!
//! Every rank posts all its receives and sends at once, in rounds of `MPIR_CVAR_ALLTOALL_THROTTLE`
//! (32) peers: in round `ii` it receives from `me + ii + i` and sends to `me - ii - i` (mod n) for
//! `i < 32`, then waits for the whole round. Here a round is its sends (which never block) followed by
//! its blocking receives, so the next round's sends wait for this round's receives, as MPICH's waitall
//! makes them. The rank's own block is a local copy: n(n − 1) messages.
//!
//! MPICH's alltoallv skips the pairs whose count is 0; a trace gives each rank only its own send
//! counts, so a receiver cannot know which of its peers skip, and every pair sends (empty messages
//! included). This is our documented deviation.

use super::select::ALLTOALL_THROTTLE;
use super::{recv, send};
use crate::program::Op;

/// The schedule with `bytes_to(dst)` bytes for each destination.
fn schedule(n: u32, me: u32, bytes_to: impl Fn(u32) -> u64, tag: u64, out: &mut Vec<Op>) {
    let (n64, me64) = (u64::from(n), u64::from(me));
    let block = u64::from(ALLTOALL_THROTTLE).max(1);
    let mut ii = 0u64;
    while ii < n64 {
        let ss = block.min(n64 - ii);
        for i in 0..ss {
            let dst = ((me64 + n64 - (i + ii) % n64) % n64) as u32;
            if dst != me {
                send(out, dst, bytes_to(dst), tag);
            }
        }
        for i in 0..ss {
            let src = ((me64 + i + ii) % n64) as u32;
            if src != me {
                recv(out, src, tag);
            }
        }
        ii += block;
    }
}

/// `MPIR_Alltoall_intra_scattered` with `bytes` per pair.
pub fn alltoall(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    schedule(n, me, |_| bytes, tag, out);
}

/// `MPIR_Alltoallv_intra_scattered`: `send_counts[d]` bytes to rank d.
pub fn alltoallv(n: u32, me: u32, send_counts: &[u64], tag: u64, out: &mut Vec<Op>) {
    schedule(n, me, |d| send_counts[d as usize], tag, out);
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check_replays, messages};
    use crate::program::{Op, Program};

    #[test]
    fn every_ordered_pair_once_in_throttled_rounds() {
        for n in [2u32, 3, 7, 16, 17, 33, 70] {
            let p = Program::from_fn(n, |me, ops| super::alltoall(n, me, 9, 1, ops));
            check_replays(&p);
            let want: Vec<(u32, u32, u64)> = (0..n)
                .flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d, 9)))
                .collect();
            assert_eq!(messages(&p), want, "{n} ranks");
        }
        // 70 ranks: rounds of 32, 32 and 6 peers; rank 0's first round sends to 0 (local), 69, ...,
        // 39, then receives from 1..31.
        let p = Program::from_fn(70, |me, ops| super::alltoall(70, me, 1, 1, ops));
        let ops = p.rank_ops(0);
        assert!(matches!(ops[0], Op::Send { to: 69, .. }));
        assert!(matches!(ops[30], Op::Send { to: 39, .. }));
        assert!(matches!(ops[31], Op::Recv { from: 1, .. }));
        assert!(matches!(ops[62], Op::Send { to: 38, .. }));
        assert_eq!(ops.len(), 2 * 69);
    }

    #[test]
    fn alltoallv_sends_the_given_counts() {
        let n = 5;
        let send = |me: u32| -> Vec<u64> { (0..n).map(|d| u64::from(me * 10 + d)).collect() };
        let p = Program::from_fn(n, |me, ops| super::alltoallv(n, me, &send(me), 1, ops));
        check_replays(&p);
        for (s, d, b) in messages(&p) {
            assert_eq!(b, u64::from(s * 10 + d));
        }
        assert_eq!(p.sends().count(), 20);
    }
}
