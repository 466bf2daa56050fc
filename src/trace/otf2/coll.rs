//! MpiCollectiveEnd records to [`Collective`]s: Score-P's byte conventions.
//!
//! A record carries the operation, the communicator, the root and two byte counts, `sizeSent` and
//! `sizeReceived`, which Score-P computes per call from the MPI arguments (`scorep_mpi_coll_bytes_*`
//! since Score-P 8.2; the earlier wrappers agree for the calls without MPI_IN_PLACE, as the samples
//! show). With N the communicator size, `me` the rank and `block` one rank's data:
//!
//! | operation | sizeSent | sizeReceived | what the call gets |
//! | --- | --- | --- | --- |
//! | barrier | 0 | 0 | |
//! | bcast | root: N x vector, else 0 | vector (root too) | vector = sizeReceived |
//! | gather, reduce | block (root: block, or 0 in place) | root: N x block ((N-1) x in place), else 0 | block = sizeSent (root in place: sizeReceived / (N-1)) |
//! | scatter | root: N x block ((N-1) x in place), else 0 | block (root in place: 0) | block = sizeReceived (root in place: sizeSent / (N-1)) |
//! | gatherv | own block | root: sum | this rank's block = sizeSent |
//! | scatterv | root: sum | own block | root's counts: sizeSent split evenly (the per-rank counts are not recorded) |
//! | allgather, alltoall, allreduce, reduce_scatter_block | N x block ((N-1) x in place) | same | block = sizeSent / N, or / (N-1) when only that divides |
//! | allgatherv | N x own block | sum of all blocks | counts: sizeReceived split evenly |
//! | alltoallv, alltoallw | sum sent | sum received | per destination: sizeSent split evenly |
//! | reduce_scatter | sum of the counts | N x own count | counts: sizeSent split evenly |
//! | scan | (N - me) x block | (me + 1) x block | block |
//! | exscan | (N - me - 1) x block | me x block | block |
//!
//! "Split evenly" keeps the total exact (the first `total mod N` ranks get one byte more) and is the
//! same on every rank, as the expansion needs; the actual per-rank counts of vector collectives are not
//! in the trace. The handle operations (CREATE_HANDLE, DESTROY_HANDLE: MPI_Init, MPI_Finalize,
//! communicator creation and release; ALLOCATE, DEALLOCATE and their combinations: windows) carry no
//! traffic and give no call.

use crate::mpi::call::Collective;

/// What one MpiCollectiveEnd record becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Converted {
    /// A collective call.
    Call(Collective),
    /// A handle operation (no traffic).
    Handle,
    /// An operation code this reader does not know (a later OTF2); skipped.
    Unknown,
}

/// `total` split over `n` ranks, the remainder on the first ones.
fn even_split(total: u64, n: u32) -> Vec<u64> {
    let n64 = u64::from(n.max(1));
    let (base, rem) = (total / n64, total % n64);
    (0..n64).map(|i| base + u64::from(i < rem)).collect()
}

/// One rank's block of a symmetric collective whose byte count is `N x block`, or `(N-1) x block`
/// in place: the divisor that divides exactly, N first.
fn share(total: u64, n: u32) -> u64 {
    let n = u64::from(n.max(1));
    if !total.is_multiple_of(n) && n > 1 && total.is_multiple_of(n - 1) {
        total / (n - 1)
    } else {
        total / n
    }
}

/// The smaller non-zero of two counts (0 if both are).
fn min_nonzero(a: u64, b: u64) -> u64 {
    match (a, b) {
        (0, x) | (x, 0) => x,
        (a, b) => a.min(b),
    }
}

/// The block of an inclusive scan at rank `me` of `n`.
fn scan_block(n: u32, me: u32, sent: u64, recvd: u64) -> u64 {
    let (n, me) = (u64::from(n), u64::from(me));
    let fits = |block: u64, s_mul: u64| s_mul.checked_mul(block) == Some(sent);
    // Without MPI_IN_PLACE: received (me + 1) blocks, sent (n - me).
    if recvd.is_multiple_of(me + 1) && fits(recvd / (me + 1), n.saturating_sub(me)) {
        return recvd / (me + 1);
    }
    exscan_block(n, me, sent, recvd)
}

/// The block of an exclusive scan (and of an in-place scan) at rank `me` of `n`.
fn exscan_block(n: u64, me: u64, sent: u64, recvd: u64) -> u64 {
    let rest = n.saturating_sub(me + 1);
    if me > 0 && recvd.is_multiple_of(me) && rest.checked_mul(recvd / me) == Some(sent) {
        recvd / me
    } else if me == 0 && rest > 0 && sent.is_multiple_of(rest) {
        sent / rest
    } else {
        min_nonzero(sent, recvd)
    }
}

/// Converts the record of `op` (an `OTF2_CollectiveOp`) at rank `me` of a communicator of `n` ranks;
/// `root` is already a rank of the communicator. Rooted operations without a root are an error.
pub(super) fn convert(
    op: u8,
    n: u32,
    me: u32,
    root: Option<u32>,
    sent: u64,
    recvd: u64,
) -> Result<Converted, String> {
    let rooted = |name: &str| {
        root.ok_or_else(|| format!("the {name} record has no root (OTF2_UNDEFINED_UINT32)"))
    };
    let less_one = |x: u64| if n > 1 { x / u64::from(n - 1) } else { x };
    let c = match op {
        0 => Collective::Barrier,
        1 => {
            let root = rooted("bcast")?;
            let bytes = if recvd > 0 || me != root {
                recvd
            } else {
                sent / u64::from(n.max(1))
            };
            Collective::Bcast { root, bytes }
        }
        2 | 12 => {
            let name = if op == 2 { "gather" } else { "reduce" };
            let root = rooted(name)?;
            let bytes = if me == root && sent == 0 {
                less_one(recvd)
            } else {
                sent
            };
            if op == 2 {
                Collective::Gather { root, bytes }
            } else {
                Collective::Reduce { root, bytes }
            }
        }
        3 => Collective::Gatherv {
            root: rooted("gatherv")?,
            bytes: sent,
        },
        4 => {
            let root = rooted("scatter")?;
            let bytes = if me == root && recvd == 0 {
                less_one(sent)
            } else {
                recvd
            };
            Collective::Scatter { root, bytes }
        }
        5 => {
            let root = rooted("scatterv")?;
            let counts = if me == root {
                even_split(sent, n)
            } else {
                let mut c = vec![0; n as usize];
                if let Some(x) = c.get_mut(me as usize) {
                    *x = recvd;
                }
                c
            };
            Collective::Scatterv { root, counts }
        }
        6 => Collective::Allgather {
            bytes: share(sent, n),
        },
        7 => Collective::Allgatherv {
            counts: even_split(recvd, n),
        },
        8 => Collective::Alltoall {
            bytes: share(sent, n),
        },
        9 | 10 => Collective::Alltoallv {
            send: even_split(sent, n),
        },
        11 => Collective::Allreduce {
            bytes: share(sent, n),
        },
        13 => Collective::ReduceScatter {
            counts: even_split(sent, n),
        },
        14 => Collective::Scan {
            bytes: scan_block(n, me, sent, recvd),
        },
        15 => Collective::Exscan {
            bytes: exscan_block(u64::from(n), u64::from(me), sent, recvd),
        },
        16 => Collective::ReduceScatterBlock {
            bytes: share(sent, n),
        },
        17..=22 => return Ok(Converted::Handle),
        _ => return Ok(Converted::Unknown),
    };
    Ok(Converted::Call(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(op: u8, n: u32, me: u32, root: Option<u32>, s: u64, r: u64) -> Collective {
        match convert(op, n, me, root, s, r).unwrap() {
            Converted::Call(c) => c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn score_p_conventions_give_the_mpi_counts() {
        // The Score-P 8.4 sample: bcast of 4096 bytes over 4 ranks.
        let b = |me, s| call(1, 4, me, Some(0), s, 4096);
        assert_eq!(
            b(0, 16384),
            Collective::Bcast {
                root: 0,
                bytes: 4096
            }
        );
        assert_eq!(
            b(2, 0),
            Collective::Bcast {
                root: 0,
                bytes: 4096
            }
        );
        // Gather of 4 bytes per rank on 10 ranks; in place at the root.
        assert_eq!(
            call(2, 10, 3, Some(0), 4, 0),
            Collective::Gather { root: 0, bytes: 4 }
        );
        assert_eq!(
            call(2, 10, 0, Some(0), 4, 40),
            Collective::Gather { root: 0, bytes: 4 }
        );
        assert_eq!(
            call(2, 10, 0, Some(0), 0, 36),
            Collective::Gather { root: 0, bytes: 4 }
        );
        assert_eq!(
            call(4, 10, 0, Some(0), 36, 0),
            Collective::Scatter { root: 0, bytes: 4 }
        );
        assert_eq!(
            call(12, 10, 0, Some(0), 0, 72),
            Collective::Reduce { root: 0, bytes: 8 }
        );
        // Symmetric ones: N x block, or (N-1) x block in place.
        assert_eq!(
            call(11, 10, 1, None, 80, 80),
            Collective::Allreduce { bytes: 8 }
        );
        assert_eq!(
            call(11, 10, 1, None, 72, 72),
            Collective::Allreduce { bytes: 8 }
        );
        assert_eq!(
            call(8, 4, 1, None, 4096, 4096),
            Collective::Alltoall { bytes: 1024 }
        );
        assert_eq!(
            call(6, 1, 0, None, 16, 16),
            Collective::Allgather { bytes: 16 }
        );
        // Scans: (N - me) and (me + 1) blocks; exscan (N - me - 1) and me.
        assert_eq!(call(14, 4, 1, None, 24, 16), Collective::Scan { bytes: 8 });
        assert_eq!(call(14, 4, 0, None, 32, 8), Collective::Scan { bytes: 8 });
        assert_eq!(call(15, 4, 0, None, 24, 0), Collective::Exscan { bytes: 8 });
        assert_eq!(call(15, 4, 3, None, 0, 24), Collective::Exscan { bytes: 8 });
        // Vectors: exact totals, split evenly.
        assert_eq!(
            call(9, 3, 0, None, 10, 7),
            Collective::Alltoallv {
                send: vec![4, 3, 3]
            }
        );
        assert_eq!(
            call(5, 3, 1, Some(0), 0, 5),
            Collective::Scatterv {
                root: 0,
                counts: vec![0, 5, 0]
            }
        );
    }

    #[test]
    fn handles_carry_no_traffic_and_rooted_ops_need_a_root() {
        assert_eq!(convert(17, 4, 0, None, 0, 0), Ok(Converted::Handle));
        assert_eq!(convert(18, 4, 0, None, 0, 0), Ok(Converted::Handle));
        assert_eq!(convert(99, 4, 0, None, 0, 0), Ok(Converted::Unknown));
        assert!(
            convert(1, 4, 0, None, 0, 0)
                .unwrap_err()
                .contains("bcast record has no root")
        );
    }
}
