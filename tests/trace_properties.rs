//! Property tests: parse(write(p)) == p for random valid programs (plain and zstd), and no reader
//! panics on arbitrary or mutated bytes (native, SimGrid and FSIN readers).

use netreplay::program::{Op, Program};
use netreplay::trace::{self, Format, ReadOptions, parser};
use proptest::prelude::*;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("props");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}-{:?}", std::thread::current().id()))
}

/// Raw choices for one op: (kind, a, b, c).
fn raw_op() -> impl Strategy<Value = (u8, u32, u64, u32)> {
    (0u8..7, any::<u32>(), any::<u64>(), any::<u32>())
}

/// Turns raw choices into a valid program: peers in range and not the rank itself, request handles
/// fresh when posted and outstanding when waited on.
fn program(ranks: u32, raw: Vec<Vec<(u8, u32, u64, u32)>>) -> Program {
    Program::from_fn(ranks, |r, ops| {
        let mut outstanding: Vec<u32> = Vec::new();
        for &(kind, a, b, c) in &raw[r as usize] {
            let peer = (r + 1 + a % (ranks - 1)) % ranks;
            let tag = u64::from(c);
            let mut fresh = || {
                let mut req = a % 8;
                while outstanding.contains(&req) {
                    req += 1;
                }
                outstanding.push(req);
                req
            };
            ops.push(match kind {
                0 => Op::Send {
                    to: peer,
                    bytes: b,
                    tag,
                },
                1 => Op::Recv { from: peer, tag },
                2 => Op::Compute { cycles: b },
                3 => Op::Isend {
                    to: peer,
                    bytes: b,
                    tag,
                    req: fresh(),
                },
                4 => Op::Irecv {
                    from: peer,
                    tag,
                    req: fresh(),
                },
                5 if !outstanding.is_empty() => Op::Wait {
                    req: outstanding.remove(a as usize % outstanding.len()),
                },
                _ => {
                    outstanding.clear();
                    Op::WaitAll
                }
            });
        }
    })
}

fn programs() -> impl Strategy<Value = Program> {
    (2u32..7).prop_flat_map(|ranks| {
        prop::collection::vec(prop::collection::vec(raw_op(), 0..12), ranks as usize)
            .prop_map(move |raw| program(ranks, raw))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn parse_of_write_keeps_the_messages_and_then_is_identity(p in programs(), zst in any::<bool>()) {
        let path = scratch(if zst { "rt.trc.zst" } else { "rt.trc" });
        trace::write(&p, &path).unwrap();
        // Reading lowers blocking sends to an isend and its wait and renumbers requests, so the
        // first read gives the same messages, and from then on writing and reading is the identity.
        let once = trace::read(&path).unwrap();
        let sorted = |q: &Program| {
            let mut v: Vec<_> = q.sends().collect();
            v.sort_unstable();
            let mut r: Vec<_> = q.recvs().collect();
            r.sort_unstable();
            (v, r)
        };
        prop_assert_eq!(sorted(&once), sorted(&p));
        trace::write(&once, &path).unwrap();
        prop_assert_eq!(trace::read(&path).unwrap(), once);
    }

    #[test]
    fn the_native_parser_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = parser::parse("x", &bytes[..]);
        let mut with_header = b"netreplay-trace 2\nranks 4\n".to_vec();
        with_header.extend_from_slice(&bytes);
        let _ = parser::parse("x", &with_header[..]);
    }

    #[test]
    fn the_native_parser_never_panics_on_mutated_traces(
        p in programs(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..8),
    ) {
        let path = scratch("mut.trc");
        trace::write(&p, &path).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        for (at, byte, how) in edits {
            let i = at % (bytes.len() + 1);
            match how {
                0 => bytes.insert(i, byte),
                1 if i < bytes.len() => { bytes.remove(i); }
                _ if i < bytes.len() => bytes[i] = byte,
                _ => bytes.push(byte),
            }
        }
        let _ = parser::parse("x", &bytes[..]);
    }

    #[test]
    fn the_importers_never_panic_on_token_soup(
        words in prop::collection::vec(prop::sample::select(vec![
            "0", "1", "2", "3", "-1", "1e6", "nan", "inf", "99999999999999999999", "send", "isend",
            "recv", "irecv", "wait", "waitall", "test", "init", "bcast", "reduce", "allreduce",
            "alltoall", "alltoallv", "gather", "gatherv", "scatter", "scatterv", "allgather",
            "allgatherv", "reducescatter", "barrier", "compute", "sleep", "s", "r", "c", "#", "\n",
            "\n", "\n", " ", "\t", "é",
        ]), 0..60),
        fsin in any::<bool>(),
    ) {
        let path = scratch(if fsin { "soup.trc" } else { "soup.txt" });
        let text: String = words.iter().flat_map(|w| [*w, " "]).collect();
        std::fs::write(&path, text).unwrap();
        let opts = ReadOptions {
            format: Some(if fsin { Format::FSIN } else { Format::SIMGRID }),
            ..ReadOptions::default()
        };
        let _ = trace::read_any(&path, &opts);
        let _ = trace::read_any(&path, &ReadOptions::default());
    }
}
