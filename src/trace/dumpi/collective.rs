//! Collective records to [`Collective`]s: sizes are counts times the datatype's size in the rank file's
//! table. Blocks are taken where MPI makes them significant: a rooted gather or scatter uses the root's
//! receive (gather) or send (scatter) arguments at the root, since its other side may be
//! MPI_IN_PLACE, and allgather and alltoall use the receive block for the same reason.

use super::calls::{Msg, rank, times};
use super::comms::{Comms, comm};
use super::functions::*;
use super::header::Layout;
use super::record::Args;
use crate::mpi::call::Collective;

/// The communicator and the operation of collective record `id` (MPI-2 blocking collectives; MPI_Alltoallw
/// as MPI_Alltoallv). Learns communicator sizes from the vector collectives.
pub(super) fn collective(
    id: u16,
    a: &Args,
    layout: &Layout,
    comms: &mut Comms,
    world: u32,
) -> Result<(i64, Collective), Msg> {
    let size = |k: usize| layout.type_size(a.int(k));
    let bytes = |count: usize, ty: usize| -> Result<u64, Msg> { times(a.int(count), size(ty)?) };
    let each = |counts: &[i64], ty: u64| -> Result<Vec<u64>, Msg> {
        counts.iter().map(|&n| times(n, ty)).collect()
    };
    let root = |k: usize| rank(a.int(k), "root");
    let at_root = |me: usize, r: usize| a.int(me) == a.int(r);
    Ok(match id {
        BARRIER => (a.int(0), Collective::Barrier),
        BCAST => (
            a.int(3),
            Collective::Bcast {
                root: root(2)?,
                bytes: bytes(0, 1)?,
            },
        ),
        REDUCE => (
            a.int(4),
            Collective::Reduce {
                root: root(3)?,
                bytes: bytes(0, 1)?,
            },
        ),
        ALLREDUCE => (
            a.int(3),
            Collective::Allreduce {
                bytes: bytes(0, 1)?,
            },
        ),
        SCAN => (
            a.int(3),
            Collective::Scan {
                bytes: bytes(0, 1)?,
            },
        ),
        EXSCAN => (
            a.int(3),
            Collective::Exscan {
                bytes: bytes(0, 1)?,
            },
        ),
        // commrank sendcount sendtype root comm [recvcount recvtype]: the root's block is its
        // receive block (its send arguments may be MPI_IN_PLACE).
        GATHER => {
            let b = if at_root(0, 3) {
                bytes(5, 6)?
            } else {
                bytes(1, 2)?
            };
            (
                a.int(4),
                Collective::Gather {
                    root: root(3)?,
                    bytes: b,
                },
            )
        }
        // commrank recvcount recvtype root comm [sendcount sendtype]
        SCATTER => {
            let b = if at_root(0, 3) {
                bytes(5, 6)?
            } else {
                bytes(1, 2)?
            };
            (
                a.int(4),
                Collective::Scatter {
                    root: root(3)?,
                    bytes: b,
                },
            )
        }
        // commrank commsize sendcount sendtype root comm [recvcounts displs] recvtype
        GATHERV => {
            comms.note_size(comm(a.int(5)), a.int(1));
            let b = if at_root(0, 4) {
                let counts = a.array(6);
                let me = usize::try_from(a.int(0)).ok().and_then(|i| counts.get(i));
                times(*me.ok_or("the root's own count is missing")?, size(8)?)?
            } else {
                bytes(2, 3)?
            };
            (
                a.int(5),
                Collective::Gatherv {
                    root: root(4)?,
                    bytes: b,
                },
            )
        }
        // commrank commsize sendtype recvcount recvtype root comm [sendcounts displs]
        SCATTERV => {
            comms.note_size(comm(a.int(6)), a.int(1));
            let counts = if at_root(0, 5) {
                each(a.array(7), size(2)?)?
            } else {
                let n = u32::try_from(a.int(1))
                    .ok()
                    .filter(|&n| n <= world)
                    .ok_or_else(|| {
                        format!("communicator size {} is not 0..={}", a.int(1), world)
                    })?;
                let mut c = vec![0; n as usize];
                if let Some(slot) = usize::try_from(a.int(0)).ok().and_then(|i| c.get_mut(i)) {
                    *slot = bytes(3, 4)?;
                }
                c
            };
            (
                a.int(6),
                Collective::Scatterv {
                    root: root(5)?,
                    counts,
                },
            )
        }
        // sendcount sendtype recvcount recvtype comm: receive blocks (send may be in place)
        ALLGATHER => (
            a.int(4),
            Collective::Allgather {
                bytes: bytes(2, 3)?,
            },
        ),
        ALLTOALL => (
            a.int(4),
            Collective::Alltoall {
                bytes: bytes(2, 3)?,
            },
        ),
        // commsize sendcount sendtype recvcounts displs recvtype comm
        ALLGATHERV => {
            comms.note_size(comm(a.int(6)), a.int(0));
            (
                a.int(6),
                Collective::Allgatherv {
                    counts: each(a.array(3), size(5)?)?,
                },
            )
        }
        // commsize sendcounts senddispls sendtype recvcounts recvdispls recvtype comm
        ALLTOALLV => {
            comms.note_size(comm(a.int(7)), a.int(0));
            (
                a.int(7),
                Collective::Alltoallv {
                    send: each(a.array(1), size(3)?)?,
                },
            )
        }
        // commsize sendcounts senddispls sendtypes recvcounts recvdispls recvtypes comm
        ALLTOALLW => {
            comms.note_size(comm(a.int(7)), a.int(0));
            let (counts, types) = (a.array(1), a.array(3));
            let send = counts
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    let t = types.get(i).ok_or("fewer send datatypes than counts")?;
                    times(n, layout.type_size(*t)?)
                })
                .collect::<Result<_, Msg>>()?;
            (a.int(7), Collective::Alltoallv { send })
        }
        // commsize recvcounts datatype op comm
        REDUCE_SCATTER => {
            comms.note_size(comm(a.int(4)), a.int(0));
            (
                a.int(4),
                Collective::ReduceScatter {
                    counts: each(a.array(1), size(2)?)?,
                },
            )
        }
        other => return Err(format!("internal: function id {other} is not a collective")),
    })
}
