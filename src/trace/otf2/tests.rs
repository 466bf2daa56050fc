//! Unit tests on archives made by the test writer: encodings, each record's call, and bad input.

use super::writer::{CommSpec, Ev, Spec, scratch};
use super::*;
use crate::mpi::{SendMode, Source, TagSel, WORLD};

pub(super) const MS: u64 = 1_000_000;

pub(super) fn calls(spec: &Spec, name: &str) -> Calls {
    let anchor = spec.write(&scratch(name));
    read_calls(&anchor, 1e9).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub(super) fn err(spec: &Spec, name: &str) -> String {
    let anchor = spec.write(&scratch(name));
    read_calls(&anchor, 1e9).unwrap_err().to_string()
}

/// Two ranks: rank 0 sends 100 bytes to rank 1 after 1 ms of computation.
pub(super) fn ping() -> Spec {
    let mut s = Spec::new(2);
    for r in 0..2 {
        s.call(r, "MPI_Init", 0, 10, vec![]);
    }
    s.at(0, 10 + MS / 2, Ev::Enter("user_code"))
        .at(0, 10 + MS / 2, Ev::Leave("user_code"));
    let send = Ev::Send {
        to: 1,
        comm: 0,
        tag: 7,
        len: 100,
    };
    s.call(0, "MPI_Send", 10 + MS, 20 + MS, vec![send]);
    let recv = Ev::Recv {
        from: 0,
        comm: 0,
        tag: 7,
        len: 100,
    };
    s.call(1, "MPI_Recv", 10, 30 + MS, vec![]);
    s.events[1].insert(3, (25 + MS, recv));
    for r in 0..2 {
        s.call(r, "MPI_Finalize", 40 + MS, 50 + MS, vec![]);
    }
    s
}

fn send(dest: u32, tag: u64, bytes: u64, mode: SendMode, req: Option<u32>) -> Call {
    Call::Send {
        comm: WORLD,
        dest,
        tag,
        bytes,
        mode,
        req,
    }
}

#[test]
fn compute_between_mpi_calls_is_exact_and_user_regions_do_not_split_it() {
    let c = calls(&ping(), "ping");
    assert_eq!(c.ranks, 2);
    assert_eq!(
        c.calls[0],
        vec![
            Call::Compute { cycles: 1_000_000 },
            send(1, 7, 100, SendMode::Standard, None),
            Call::Compute { cycles: 20 },
        ]
    );
    assert_eq!(
        c.calls[1][0],
        Call::Recv {
            comm: WORLD,
            source: Source::Rank(0),
            tag: TagSel::Tag(7),
            req: None,
            status: None
        }
    );
    // Another clock rate and a 2.5 GHz network: 1 ms = 2.5e6 cycles.
    let mut s = ping();
    s.ticks_per_second = 4_000_000_000;
    for e in s.events.iter_mut().flatten() {
        e.0 *= 4;
    }
    let anchor = s.write(&scratch("ping-rate"));
    let c = read_calls(&anchor, 2.5e9).unwrap();
    assert_eq!(c.calls[0][0], Call::Compute { cycles: 2_500_000 });
}

#[test]
fn big_endian_and_tiny_chunks_read_the_same_calls() {
    let base = calls(&ping(), "base");
    let mut s = ping();
    s.big = true;
    assert_eq!(calls(&s, "big").calls, base.calls);
    let mut s = ping();
    s.event_chunk = 64;
    s.def_chunk = 64;
    // Many records so the files span dozens of chunks.
    for i in 0..40 {
        s.events[0].insert(1, (5, Ev::Raw(99, vec![i; 20])));
    }
    let anchor = s.write(&scratch("tiny"));
    let evt = anchor.parent().unwrap().join("traces/0.evt");
    assert!(std::fs::metadata(&evt).unwrap().len() > 64 * 10);
    assert_eq!(read_calls(&anchor, 1e9).unwrap().calls, base.calls);
}

#[test]
fn unknown_records_attribute_lists_and_long_records_are_skipped() {
    let base = calls(&ping(), "skip-base");
    let mut s = ping();
    s.events[0].insert(1, (5, Ev::Raw(120, vec![1, 2, 3])));
    s.events[0].insert(1, (5, Ev::Raw(121, vec![7; 300])));
    s.events[0].insert(1, (5, Ev::AttrList(vec![1, 1, 4, 1, 9])));
    s.events[0].insert(1, (5, Ev::Test(3)));
    assert_eq!(calls(&s, "skip").calls, base.calls);
}

#[test]
fn nonblocking_calls_post_at_the_request_and_complete_at_the_wait() {
    let mut s = Spec::new(2);
    let isend = Ev::Isend {
        to: 1,
        comm: 0,
        tag: 3,
        len: 64,
        req: 900,
    };
    s.call(0, "MPI_Issend", 0, 10, vec![isend]);
    s.call(0, "MPI_Wait", 20, 30, vec![Ev::IsendComplete(900)]);
    s.call(1, "MPI_Irecv", 0, 10, vec![Ev::IrecvRequest(5)]);
    s.call(1, "MPI_Irecv", 10, 12, vec![Ev::IrecvRequest(6)]);
    let irecv = Ev::Irecv {
        from: 0,
        comm: 0,
        tag: 3,
        len: 64,
        req: 5,
    };
    s.call(1, "MPI_Waitall", 20, 30, vec![irecv]);
    s.call(1, "MPI_Test", 31, 32, vec![Ev::Cancelled(6)]);
    let c = calls(&s, "nonblocking");
    let compute = |cycles| Call::Compute { cycles };
    assert_eq!(
        c.calls[0],
        vec![
            send(1, 3, 64, SendMode::Synchronous, Some(0)),
            compute(10),
            Call::Wait {
                req: 0,
                status: None
            }
        ]
    );
    assert_eq!(
        c.calls[1],
        vec![
            Call::Recv {
                comm: WORLD,
                source: Source::Rank(0),
                tag: TagSel::Tag(3),
                req: Some(0),
                status: None
            },
            compute(8),
            Call::Wait {
                req: 0,
                status: None
            },
            compute(1),
        ]
    );
    assert_eq!(c.notes.cancelled, 1);
    // The Builder accepts and replays it.
    let anchor = s.write(&scratch("nonblocking-read"));
    let p = read(&anchor, &Algorithms::default(), 1e9).unwrap();
    assert_eq!(p.sends().count(), 1);
}

#[test]
fn calls_stream_out_around_a_long_open_receive() {
    // Rank 1 posts a receive, then receives 3000 messages, then completes the first: the decoder
    // hands calls on in chunks but keeps the posted receive's place.
    let mut s = Spec::new(2);
    let first = Ev::Isend {
        to: 1,
        comm: 0,
        tag: 1,
        len: 9,
        req: 7,
    };
    s.call(0, "MPI_Isend", 0, 1, vec![first]);
    s.call(1, "MPI_Irecv", 0, 1, vec![Ev::IrecvRequest(1)]);
    for i in 0..3000 {
        let t = 2 + 2 * i;
        s.call(
            0,
            "MPI_Send",
            t,
            t + 1,
            vec![Ev::Send {
                to: 1,
                comm: 0,
                tag: 2,
                len: 3,
            }],
        );
        s.call(
            1,
            "MPI_Recv",
            t,
            t + 1,
            vec![Ev::Recv {
                from: 0,
                comm: 0,
                tag: 2,
                len: 3,
            }],
        );
    }
    s.call(0, "MPI_Wait", 7000, 7001, vec![Ev::IsendComplete(7)]);
    let done = Ev::Irecv {
        from: 0,
        comm: 0,
        tag: 1,
        len: 9,
        req: 1,
    };
    s.call(1, "MPI_Wait", 7000, 7001, vec![done]);
    let c = calls(&s, "long-open");
    let r1: Vec<&Call> = c.calls[1]
        .iter()
        .filter(|c| !matches!(c, Call::Compute { .. }))
        .collect();
    assert_eq!(r1.len(), 3002);
    assert!(matches!(
        r1[0],
        Call::Recv {
            tag: TagSel::Tag(1),
            req: Some(0),
            ..
        }
    ));
    assert!(r1[1..3001].iter().all(|c| matches!(
        c,
        Call::Recv {
            tag: TagSel::Tag(2),
            req: None,
            ..
        }
    )));
    assert_eq!(
        r1[3001],
        &Call::Wait {
            req: 0,
            status: None
        }
    );
    let anchor = s.write(&scratch("long-open-read"));
    let p = read(&anchor, &Algorithms::default(), 1e9).unwrap();
    assert_eq!(p.sends().count(), 3001);
}

#[test]
fn sendrecv_and_ssend_regions_shape_the_calls() {
    let mut s = Spec::new(2);
    for (me, peer, st, rt) in [(0, 1, 1, 2), (1, 0, 2, 1)] {
        let sr = vec![
            Ev::Send {
                to: peer,
                comm: 0,
                tag: st,
                len: 8,
            },
            Ev::Recv {
                from: peer,
                comm: 0,
                tag: rt,
                len: 8,
            },
        ];
        s.call(me, "MPI_Sendrecv", 0, 10, sr);
    }
    s.call(
        0,
        "MPI_Ssend",
        10,
        20,
        vec![Ev::Send {
            to: 1,
            comm: 0,
            tag: 5,
            len: 1,
        }],
    );
    s.call(
        1,
        "MPI_Recv",
        10,
        20,
        vec![Ev::Recv {
            from: 0,
            comm: 0,
            tag: 5,
            len: 1,
        }],
    );
    let c = calls(&s, "sendrecv");
    assert_eq!(
        c.calls[0],
        vec![
            Call::Sendrecv {
                comm: WORLD,
                dest: 1,
                send_tag: 1,
                bytes: 8,
                source: Source::Rank(1),
                recv_tag: TagSel::Tag(2),
                status: None
            },
            send(1, 5, 1, SendMode::Synchronous, None),
        ]
    );
    let anchor = s.write(&scratch("sendrecv-read"));
    assert!(read(&anchor, &Algorithms::default(), 1e9).is_ok());
}

#[test]
fn communicators_map_through_local_ids_and_their_groups() {
    // Communicator 1: ranks {2, 0} (rank 2 is its rank 0); communicator 2: COMM_SELF; communicator 3:
    // ranks {1, 2} with world ranks in records. Rank 2 calls communicator 1 "local 5".
    let mut s = Spec::new(3);
    s.comms = vec![
        CommSpec::Group {
            members: vec![2, 0],
            global: false,
        },
        CommSpec::SelfGroup,
        CommSpec::Group {
            members: vec![1, 2],
            global: true,
        },
    ];
    s.location_base = 10;
    s.comm_maps[2] = Some(vec![0, 3, 3, 3, 3, 1]);
    s.call(
        2,
        "MPI_Send",
        0,
        1,
        vec![Ev::Send {
            to: 1,
            comm: 5,
            tag: 0,
            len: 4,
        }],
    );
    s.call(
        0,
        "MPI_Recv",
        0,
        1,
        vec![Ev::Recv {
            from: 0,
            comm: 1,
            tag: 0,
            len: 4,
        }],
    );
    s.call(
        0,
        "MPI_Send",
        1,
        2,
        vec![Ev::Send {
            to: 0,
            comm: 2,
            tag: 0,
            len: 4,
        }],
    );
    s.call(
        0,
        "MPI_Recv",
        2,
        3,
        vec![Ev::Recv {
            from: 0,
            comm: 2,
            tag: 0,
            len: 4,
        }],
    );
    s.call(
        1,
        "MPI_Send",
        0,
        1,
        vec![Ev::Send {
            to: 2,
            comm: 3,
            tag: 0,
            len: 4,
        }],
    );
    s.call(
        2,
        "MPI_Recv",
        1,
        2,
        vec![Ev::Recv {
            from: 1,
            comm: 3,
            tag: 0,
            len: 4,
        }],
    );
    let bcast = Ev::CollEnd {
        op: 1,
        comm: 3,
        root: 2,
        sent: 8,
        recvd: 4,
    };
    s.call(1, "MPI_Bcast", 1, 3, vec![Ev::CollBegin, bcast.clone()]);
    s.call(2, "MPI_Bcast", 2, 3, vec![Ev::CollBegin, bcast]);
    let c = calls(&s, "comms");
    let dest = |call: &Call| match call {
        Call::Send { comm, dest, .. } => (*comm, *dest),
        Call::Recv {
            comm,
            source: Source::Rank(r),
            ..
        } => (*comm, *r),
        other => panic!("{other:?}"),
    };
    assert_eq!(dest(&c.calls[2][0]), (3, 1));
    assert_eq!(dest(&c.calls[0][0]), (3, 0));
    assert_eq!(dest(&c.calls[0][1]), (4, 0));
    assert_eq!(dest(&c.calls[0][2]), (4, 0));
    assert_eq!(dest(&c.calls[1][0]), (5, 1));
    assert_eq!(dest(&c.calls[2][1]), (5, 0));
    assert!(matches!(
        c.calls[1][1],
        Call::Collective {
            comm: 5,
            op: crate::mpi::call::Collective::Bcast { root: 1, bytes: 4 },
            ..
        }
    ));
    let st = c.stats();
    assert_eq!((st.messages, st.self_messages, st.bytes), (3, 1, 12));
    let anchor = s.write(&scratch("comms-read"));
    let p = read(&anchor, &Algorithms::default(), 1e9).unwrap();
    assert_eq!(p.ranks(), 3);
}

#[test]
fn measurement_off_and_buffer_flushes_are_not_computation() {
    let mut s = Spec::new(1);
    s.call(0, "MPI_Init", 0, 10, vec![]);
    s.at(0, 100, Ev::Measurement(false))
        .at(0, 5000, Ev::Measurement(true));
    s.call(
        0,
        "MPI_Barrier",
        5100,
        5200,
        vec![Ev::CollEnd {
            op: 0,
            comm: 0,
            root: u32::MAX,
            sent: 0,
            recvd: 0,
        }],
    );
    s.at(0, 5300, Ev::Flush(5800));
    s.call(0, "MPI_Finalize", 6000, 6010, vec![]);
    let c = calls(&s, "onoff");
    assert_eq!(
        c.calls[0],
        vec![
            Call::Compute { cycles: 190 },
            Call::Collective {
                comm: WORLD,
                op: crate::mpi::call::Collective::Barrier,
                req: None
            },
            Call::Compute { cycles: 300 },
        ]
    );
    assert_eq!(c.notes.measurement_off, 1);
}
