//! Unit tests on archives made by the test writer: encodings, each record's call, and bad input.

use super::writer::{Attrs, CommSpec, Ev, Spec, scratch};
use super::*;
use crate::mpi::{SendMode, Source, TagSel, WORLD};
use proptest::prelude::*;

const MS: u64 = 1_000_000;

fn calls(spec: &Spec, name: &str) -> Calls {
    let anchor = spec.write(&scratch(name));
    read_calls(&anchor, 1e9).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn err(spec: &Spec, name: &str) -> String {
    let anchor = spec.write(&scratch(name));
    read_calls(&anchor, 1e9).unwrap_err().to_string()
}

/// Two ranks: rank 0 sends 100 bytes to rank 1 after 1 ms of computation.
fn ping() -> Spec {
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

#[test]
fn bad_definitions_are_named() {
    let mut s = ping();
    s.clock = false;
    assert!(
        err(&s, "noclock").contains("no ClockProperties"),
        "{}",
        err(&s, "noclock")
    );
    let mut s = ping();
    s.at(
        0,
        100 * MS,
        Ev::Send {
            to: 1,
            comm: 9,
            tag: 0,
            len: 1,
        },
    );
    let e = err(&s, "nocomm");
    assert!(
        e.contains("0.evt (byte ") && e.contains("communicator 9 is used but never defined"),
        "{e}"
    );
    let mut s = ping();
    s.events[0].push((100 * MS, Ev::EnterId(77)));
    let e = err(&s, "noregion");
    assert!(e.contains("region 77 is used but never defined"), "{e}");
    let mut s = ping();
    s.comms = vec![CommSpec::Group {
        members: vec![0, 5],
        global: false,
    }];
    let e = err(&s, "badgroup");
    assert!(
        e.contains("traces.def: communicator 1 (group 3) lists rank 5"),
        "{e}"
    );
}

#[test]
fn bad_files_are_positioned_errors() {
    let dir = scratch("badfiles");
    let anchor = ping().write(&dir);
    // Wrong magic.
    let mut bytes = std::fs::read(&anchor).unwrap();
    bytes[3] = b'X';
    std::fs::write(&anchor, &bytes).unwrap();
    assert!(!is_otf2(&anchor));
    let e = read_calls(&anchor, 1e9).unwrap_err().to_string();
    assert!(e.contains("not an OTF2 anchor file"), "{e}");
    // Truncated event file: every cut is an error naming the file, none panics.
    let anchor = ping().write(&dir);
    assert!(is_otf2(&anchor) && is_otf2(&dir));
    let evt = dir.join("traces/0.evt");
    let whole = std::fs::read(&evt).unwrap();
    for cut in 0..whole.len() - 1 {
        std::fs::write(&evt, &whole[..cut]).unwrap();
        let e = read_calls(&anchor, 1e9).unwrap_err().to_string();
        assert!(e.contains("0.evt"), "cut {cut}: {e}");
    }
    std::fs::write(&evt, &whole[..whole.len() - 2]).unwrap();
    let e = read_calls(&anchor, 1e9).unwrap_err().to_string();
    assert!(e.contains("truncated") && e.contains("(byte "), "{e}");
    std::fs::remove_file(&evt).unwrap();
    let e = read_calls(&anchor, 1e9).unwrap_err().to_string();
    assert!(
        e.contains("event file of location 0 (rank 0) is missing"),
        "{e}"
    );
    // Wrong rate.
    assert!(read_calls(&dir, 0.0).is_err());
}

#[test]
fn compressed_integers_decode_in_both_byte_orders() {
    for big in [false, true] {
        for v in [0u64, 1, 255, 256, 65_535, 1 << 40, u64::MAX - 1, u64::MAX] {
            let mut a = Attrs::new(big);
            a.u64c(v).u32c(v as u32).string("x").full(v);
            let mut c = buffer::Cursor::new(&a.bytes, 0, big);
            assert_eq!(c.u64c("v").unwrap(), v);
            assert_eq!(c.u32c("v").unwrap(), v as u32);
            assert_eq!(c.string("s").unwrap(), "x");
            assert_eq!(c.u64_full("f").unwrap(), v);
            assert!(c.at_end());
        }
    }
    let mut c = buffer::Cursor::new(&[9, 1, 2], 100, false);
    let f = c.u64c("size").unwrap_err();
    assert_eq!(f.at, 100);
    let mut c = buffer::Cursor::new(&[4, 1, 2], 7, false);
    assert!(c.u32c("tag").unwrap_err().what.contains("tag"));
}

#[test]
fn cycles_round_and_saturate() {
    assert_eq!(events::cycles(3, 0.5), 2);
    assert_eq!(events::cycles(u64::MAX, 1e9), u64::MAX);
    assert_eq!(events::cycles(10, f64::NAN), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Any byte changes or cut of any file of an archive give an error or calls, never a panic.
    #[test]
    fn mutated_archives_never_panic(
        which in 0usize..4,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let dir = scratch("proptest");
        let mut s = ping();
        s.comms = vec![CommSpec::SelfGroup];
        s.call(0, "MPI_Isend", 90 * MS, 91 * MS, vec![Ev::Isend { to: 1, comm: 0, tag: 1, len: 5, req: 1 }]);
        s.call(1, "MPI_Irecv", 90 * MS, 91 * MS, vec![Ev::IrecvRequest(1)]);
        s.call(1, "MPI_Wait", 92 * MS, 93 * MS, vec![Ev::Irecv { from: 0, comm: 0, tag: 1, len: 5, req: 1 }]);
        let anchor = s.write(&dir);
        let file = match which {
            0 => anchor.clone(),
            1 => dir.join("traces.def"),
            2 => dir.join("traces/1.def"),
            _ => dir.join("traces/1.evt"),
        };
        let mut bytes = std::fs::read(&file).unwrap();
        for (i, b) in edits {
            let i = i.index(bytes.len());
            bytes[i] = b;
        }
        if let Some(c) = cut {
            let n = c.index(bytes.len());
            bytes.truncate(n);
        }
        std::fs::write(&file, &bytes).unwrap();
        let _ = read_calls(&anchor, 1e9);
        let _ = read(&anchor, &Algorithms::default(), 1e9);
    }
}

/// Decoding speed on a synthetic 8-rank archive of ~50 MB (ring exchanges and allreduces, 1 MiB
/// chunks): `cargo test --release --lib otf2::tests::parse_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn parse_speed() {
    let (ranks, iters) = (8u32, 40_000u64);
    let mut s = Spec::new(ranks);
    s.event_chunk = 1 << 20;
    for r in 0..ranks {
        let (next, prev) = ((r + 1) % ranks, (r + ranks - 1) % ranks);
        for i in 0..iters {
            let t = i * 1000;
            let isend = Ev::Isend {
                to: next,
                comm: 0,
                tag: 1,
                len: 4096,
                req: 2 * i,
            };
            s.call(r, "MPI_Isend", t, t + 10, vec![isend]);
            s.call(
                r,
                "MPI_Irecv",
                t + 20,
                t + 30,
                vec![Ev::IrecvRequest(2 * i + 1)],
            );
            let irecv = Ev::Irecv {
                from: prev,
                comm: 0,
                tag: 1,
                len: 4096,
                req: 2 * i + 1,
            };
            s.call(
                r,
                "MPI_Waitall",
                t + 40,
                t + 50,
                vec![Ev::IsendComplete(2 * i), irecv],
            );
            let ar = Ev::CollEnd {
                op: 11,
                comm: 0,
                root: u32::MAX,
                sent: 64,
                recvd: 64,
            };
            s.call(r, "MPI_Allreduce", t + 60, t + 70, vec![Ev::CollBegin, ar]);
        }
    }
    let dir = scratch("speed");
    let anchor = s.write(&dir);
    drop(s);
    let bytes: u64 = std::fs::read_dir(dir.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    let mb = bytes as f64 / 1e6;
    let t = std::time::Instant::now();
    let c = read_calls(&anchor, 1e9).unwrap();
    let decode = t.elapsed().as_secs_f64();
    assert_eq!(c.stats().messages, u64::from(ranks) * iters);
    drop(c);
    let t = std::time::Instant::now();
    let p = read(&anchor, &Algorithms::default(), 1e9).unwrap();
    let full = t.elapsed().as_secs_f64();
    assert_eq!(p.ranks(), ranks);
    println!(
        "OTF2 parse speed: {mb:.1} MB of event files; decode to calls {decode:.3} s = {:.0} MB/s; \
         decode and lower to a program {full:.3} s = {:.0} MB/s",
        mb / decode,
        mb / full
    );
    let _ = std::fs::remove_dir_all(&dir);
}
