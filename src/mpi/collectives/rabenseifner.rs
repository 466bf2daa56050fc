//! Rabenseifner's algorithms: MPICH's `MPIR_Allreduce_intra_reduce_scatter_allgather` (reduce-scatter
//! by recursive halving, then allgather by recursive doubling) and
//! `MPIR_Reduce_intra_reduce_scatter_gather` (the same reduce-scatter, then a binomial gather to the
//! root).
//!
//! With p the largest power of two <= n and `rem = n - p`, the first `2 rem` ranks fold in pairs
//! (allreduce: each even rank sends its vector to the odd one above it; reduce: each odd rank to the
//! even one below it), leaving p ranks. The vector of `count` elements (of
//! [`super::select::element_bytes`]) is cut in p blocks of `count / p` elements, the first
//! `count mod p` one larger. In the reduce-scatter, for mask = 1, 2, ... < p, a rank exchanges with
//! `new ^ mask` the half of its current range that the other keeps (p messages per step). Then:
//! - allreduce: the allgather retraces the steps (mask = p/2, ..., 1), each rank sending all it holds,
//!   and the odd folded ranks send the result back: `2 rem + 2 p·log2 p` messages;
//! - reduce: for mask = p/2, ..., 1 the ranks outside the root's half send their range to their partner
//!   and stop: a binomial gather of `p − 1` messages, plus one when the root is a folded (odd) rank,
//!   which then first gets block 0 from rank 0 and takes its place: `rem + p·log2 p + p − 1 (+ 1)`.
//!
//! Like MPICH's sendrecv, every exchange sends even when it is empty (fewer elements than p, which
//! MPICH's selection avoids).

use super::select::{element_bytes, pof2};
use super::{recv, send};
use crate::program::Op;

/// The blocks of a vector: `count / p` elements each, the first `count mod p` one more.
struct Blocks {
    q: u64,
    r: u64,
    elem: u64,
}

impl Blocks {
    fn new(bytes: u64, p: u32) -> Blocks {
        let elem = element_bytes(bytes);
        let count = bytes / elem;
        let p = u64::from(p);
        Blocks {
            q: count / p,
            r: count % p,
            elem,
        }
    }

    /// Bytes of blocks `[a, b)`.
    fn range(&self, a: u32, b: u32) -> u64 {
        let (a, b) = (u64::from(a), u64::from(b.max(a)));
        let elements = (b - a)
            .saturating_mul(self.q)
            .saturating_add(b.min(self.r) - a.min(self.r));
        elements.saturating_mul(self.elem)
    }
}

/// Where a rank's block range stands between the phases (MPICH's `send_idx` and `last_idx`).
struct Range {
    send_idx: u32,
    last_idx: u32,
}

/// The reduce-scatter by recursive halving of new rank `nr`; `dst` maps new ranks to ranks.
fn reduce_scatter(
    p: u32,
    nr: u32,
    blocks: &Blocks,
    dst: impl Fn(u32) -> u32,
    tag: u64,
    out: &mut Vec<Op>,
) -> Range {
    let (mut send_idx, mut recv_idx, mut last_idx) = (0, 0, p);
    let mut mask = 1;
    while mask < p {
        let newdst = nr ^ mask;
        let half = p / (mask * 2);
        let bytes = if nr < newdst {
            send_idx = recv_idx + half;
            blocks.range(send_idx, last_idx)
        } else {
            recv_idx = send_idx + half;
            blocks.range(send_idx, recv_idx)
        };
        send(out, dst(newdst), bytes, tag);
        recv(out, dst(newdst), tag);
        send_idx = recv_idx;
        mask <<= 1;
        if mask < p {
            last_idx = recv_idx + p / mask;
        }
    }
    Range { send_idx, last_idx }
}

/// `MPIR_Allreduce_intra_reduce_scatter_allgather` of a `bytes` vector.
pub fn allreduce(n: u32, me: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    if n < 2 {
        return;
    }
    let p = pof2(n);
    let rem = n - p;
    let newrank = if me < 2 * rem {
        if me.is_multiple_of(2) {
            send(out, me + 1, bytes, tag);
            None
        } else {
            recv(out, me - 1, tag);
            Some(me / 2)
        }
    } else {
        Some(me - rem)
    };
    if let Some(nr) = newrank {
        let blocks = Blocks::new(bytes, p);
        let dst = |x: u32| if x < rem { x * 2 + 1 } else { x + rem };
        let Range {
            mut send_idx,
            mut last_idx,
        } = reduce_scatter(p, nr, &blocks, dst, tag, out);
        let mut mask = p >> 1;
        while mask > 0 {
            let newdst = nr ^ mask;
            let half = p / (mask * 2);
            let (bytes, recv_idx) = if nr < newdst {
                if mask != p / 2 {
                    last_idx += half;
                }
                (blocks.range(send_idx, send_idx + half), send_idx + half)
            } else {
                (blocks.range(send_idx, last_idx), send_idx - half)
            };
            send(out, dst(newdst), bytes, tag);
            recv(out, dst(newdst), tag);
            if nr > newdst {
                send_idx = recv_idx;
            }
            mask >>= 1;
        }
    }
    if me < 2 * rem {
        if me % 2 == 1 {
            send(out, me - 1, bytes, tag);
        } else {
            recv(out, me + 1, tag);
        }
    }
}

/// `MPIR_Reduce_intra_reduce_scatter_gather` of a `bytes` vector to `root`.
pub fn reduce(n: u32, me: u32, root: u32, bytes: u64, tag: u64, out: &mut Vec<Op>) {
    if n < 2 {
        return;
    }
    let p = pof2(n);
    let rem = n - p;
    let mut newrank = if me < 2 * rem {
        if me % 2 == 1 {
            send(out, me - 1, bytes, tag);
            None
        } else {
            recv(out, me + 1, tag);
            Some(me / 2)
        }
    } else {
        Some(me - rem)
    };
    let blocks = Blocks::new(bytes, p);
    let folded_root = root < 2 * rem && root % 2 == 1;
    let dst = |x: u32| match x {
        0 if folded_root => root,
        x if x < rem => x * 2,
        x => x + rem,
    };
    let mut range = match newrank {
        Some(nr) => reduce_scatter(
            p,
            nr,
            &blocks,
            |x| if x < rem { x * 2 } else { x + rem },
            tag,
            out,
        ),
        None => Range {
            send_idx: 0,
            last_idx: 0,
        },
    };
    let newroot = if folded_root {
        // The root takes the place of new rank 0 (rank 0), which sends it block 0.
        if me == root {
            recv(out, 0, tag);
            newrank = Some(0);
            range = Range {
                send_idx: 0,
                last_idx: 2,
            };
        } else if newrank == Some(0) {
            send(out, root, blocks.range(0, 1), tag);
            newrank = None;
        }
        0
    } else if root < 2 * rem {
        root / 2
    } else {
        root - rem
    };
    let Some(nr) = newrank else {
        return;
    };
    let Range {
        mut send_idx,
        mut last_idx,
    } = range;
    let mut mask = p >> 1;
    let mut j = p.trailing_zeros().saturating_sub(1);
    while mask > 0 {
        let newdst = nr ^ mask;
        let half = p / (mask * 2);
        let (bytes, recv_idx) = if nr < newdst {
            if mask != p / 2 {
                last_idx += half;
            }
            (blocks.range(send_idx, send_idx + half), send_idx + half)
        } else {
            (blocks.range(send_idx, last_idx), send_idx - half)
        };
        if (newdst >> j) == (newroot >> j) {
            send(out, dst(newdst), bytes, tag);
            break;
        }
        recv(out, dst(newdst), tag);
        if nr > newdst {
            send_idx = recv_idx;
        }
        mask >>= 1;
        j = j.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check_replays, messages};
    use crate::program::Program;

    #[test]
    fn allreduce_message_count_and_volume() {
        for n in 2..=17u32 {
            let p = super::pof2(n);
            let (rem, log) = (n - p, p.trailing_zeros());
            // 1040 elements of 8 bytes: p blocks of equal size.
            let bytes = 8 * 1040;
            let prog = Program::from_fn(n, |me, ops| super::allreduce(n, me, bytes, 1, ops));
            check_replays(&prog);
            let m = messages(&prog);
            assert_eq!(m.len() as u32, 2 * rem + 2 * p * log, "{n} ranks");
            // A participating rank sends (p - 1)/p of the vector in each phase.
            let r = n - 1;
            let sent: u64 = m.iter().filter(|x| x.0 == r).map(|x| x.2).sum();
            assert_eq!(sent, 2 * (bytes - bytes / u64::from(p)), "{n} ranks");
        }
        // Powers of two: 2 p log2 p.
        for p in [2u32, 4, 8, 16] {
            let prog = Program::from_fn(p, |me, ops| super::allreduce(p, me, 4096, 1, ops));
            assert_eq!(prog.sends().count() as u32, 2 * p * p.trailing_zeros());
        }
    }

    #[test]
    fn reduce_gathers_to_every_root() {
        for n in 2..=17u32 {
            let p = super::pof2(n);
            let (rem, log) = (n - p, p.trailing_zeros());
            // 80 elements of 8 bytes: p blocks of equal size.
            let bytes = 640u64;
            let block = bytes / u64::from(p);
            for root in 0..n {
                let prog = Program::from_fn(n, |me, ops| super::reduce(n, me, root, bytes, 1, ops));
                check_replays(&prog);
                let m = messages(&prog);
                let folded = root < 2 * rem && root % 2 == 1;
                let extra = u32::from(folded);
                assert_eq!(
                    m.len() as u32,
                    rem + p * log + p - 1 + extra,
                    "{n} ranks, root {root}"
                );
                // Volume: the fold, (p - 1)/p of the vector per rank in the reduce-scatter, and a
                // gather in which level k moves p/2^(k+1) ranges of 2^k blocks.
                let volume: u64 = m.iter().map(|x| x.2).sum();
                let want = u64::from(rem) * bytes
                    + u64::from(p - 1) * bytes
                    + u64::from(log) * bytes / 2
                    + u64::from(extra) * block;
                assert_eq!(volume, want, "{n} ranks, root {root}");
            }
        }
        // 4 ranks, root 3, 40 bytes = 5 elements of 8: blocks of 2, 1, 1, 1 elements (16, 8, 8, 8
        // bytes). New rank 3 keeps block 3; rank 2 keeps block 1 and gets block 0 from rank 0; rank 1
        // keeps block 2. Reduce-scatter: 2 -> 3 blocks 2-3, 1 -> 3 block 3; gather: 1 -> 3 block 2,
        // then 2 -> 3 blocks 0-1.
        let prog = Program::from_fn(4, |me, ops| super::reduce(4, me, 3, 40, 1, ops));
        let to3: Vec<_> = messages(&prog).into_iter().filter(|x| x.1 == 3).collect();
        assert_eq!(to3, [(1, 3, 8), (1, 3, 8), (2, 3, 16), (2, 3, 24)]);
    }
}
