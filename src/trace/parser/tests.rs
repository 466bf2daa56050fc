//! Tests of the native trace reader.

use super::*;
use crate::mpi::collectives;
use crate::program::Op;
use events::event;
use fast::fast_event;

fn parse_str(text: &str) -> Result<Program> {
    parse("t.trc", text.as_bytes())
}

/// The `line:column: message` of a trace that must be refused.
fn error(text: &str) -> (usize, usize, String) {
    match parse_str(text) {
        Err(Error::File {
            line,
            column,
            message,
            path,
        }) => {
            assert_eq!(path, "t.trc");
            (line, column, message)
        }
        other => panic!("expected a positioned error, got {other:?}"),
    }
}

const HEAD: &str = "netreplay-trace 1\nranks 8\n";

#[test]
fn reads_events_in_per_rank_order_with_comments_and_blank_lines() {
    let p = parse_str(
        "# a comment first\n\n  netreplay-trace 1  # v1\r\nranks 3\n\
             1 recv 0\n0 send 1 4096\n\t2 compute 7 # busy\n\n0 send 2 8 5\n2 recv 0 5\n",
    )
    .unwrap();
    assert_eq!(p.ranks(), 3);
    assert_eq!(
        p.rank_ops(0),
        [
            Op::Send {
                to: 1,
                bytes: 4096,
                tag: 0
            },
            Op::Send {
                to: 2,
                bytes: 8,
                tag: 5
            }
        ]
    );
    assert_eq!(p.rank_ops(1), [Op::Recv { from: 0, tag: 0 }]);
    assert_eq!(
        p.rank_ops(2),
        [Op::Compute { cycles: 7 }, Op::Recv { from: 0, tag: 5 }]
    );
    // No trailing newline and no events at all are both fine.
    assert_eq!(parse_str("netreplay-trace 1\nranks 2").unwrap().ranks(), 2);
}

#[test]
fn errors_name_line_column_expected_and_found() {
    let cases: &[(&str, (usize, usize, &str))] = &[
        ("", (1, 1, "missing header `netreplay-trace 4`")),
        (
            "ranks 8\n",
            (1, 1, "missing header `netreplay-trace 4`, found `ranks`"),
        ),
        ("netreplay-trace 5\n", (1, 17, "unsupported version 5")),
        ("netreplay-trace 0\n", (1, 17, "unsupported version 0")),
        (
            "netreplay-trace\n",
            (1, 16, "expected a format version, found end of line"),
        ),
        (
            "netreplay-trace 1 x\n",
            (1, 19, "expected end of line, found `x`"),
        ),
        ("netreplay-trace 1\n", (2, 1, "missing `ranks N` line")),
        (
            "netreplay-trace 3\nranks 2\nmpi protocol=rendezvous\n",
            (3, 1, "`mpi` lines need format version 4"),
        ),
        (
            "netreplay-trace 4\nranks 2\n0 compute 1\nmpi protocol=eager\n",
            (4, 1, "once, after the `ranks` line and before any event"),
        ),
        (
            "netreplay-trace 4\nranks 2\nmpi protocol=eager\nmpi protocol=eager\n",
            (4, 1, "once, after the `ranks` line and before any event"),
        ),
        (
            "netreplay-trace 4\nranks 2\nmpi protocol=eager rendezvous\n",
            (
                3,
                20,
                "expected KEY=VALUE (protocol=rendezvous, ...), found `rendezvous`",
            ),
        ),
        (
            "netreplay-trace 4\nranks 2\nmpi  eager_threshold=x\n",
            (3, 6, "is not a byte count"),
        ),
        (
            "netreplay-trace 1\n0 send 1 8\n",
            (2, 1, "expected `ranks N` after the header, found `0`"),
        ),
        (
            "netreplay-trace 1\nranks 1\n",
            (2, 7, "rank count 1 out of range"),
        ),
        (
            "netreplay-trace 1\nranks many\n",
            (2, 7, "expected a rank count (a whole number), found `many`"),
        ),
        (
            "netreplay-trace 1\nranks 8\n\n3 sned 1 8\n",
            (4, 3, "`i` + a collective), found `sned`"),
        ),
        (
            "netreplay-trace 1\nranks 8\n9 send 1 8\n",
            (3, 1, "rank 9 out of range 0..8"),
        ),
        (
            "netreplay-trace 1\nranks 8\n0 send  8 8\n",
            (3, 9, "rank 8 out of range 0..8"),
        ),
        (
            "netreplay-trace 1\nranks 8\n0 send 1\n",
            (3, 9, "expected a size in bytes, found end of line"),
        ),
        (
            "netreplay-trace 1\nranks 8\n0 send 1 -5\n",
            (
                3,
                10,
                "expected a size in bytes (a whole number), found `-5`",
            ),
        ),
        (
            "netreplay-trace 1\nranks 8\n0 recv 1 9223372036854775808\n",
            (3, 10, "a tag `9223372036854775808` is too large"),
        ),
        (
            "netreplay-trace 1\nranks 8\n0 compute 5 6\n",
            (3, 13, "expected end of line, found `6`"),
        ),
        (
            "netreplay-trace 1\nranks 8\n0\n",
            (3, 2, "`i` + a collective), found end of line"),
        ),
        (
            "netreplay-trace 1\nranks 8\n0 barrier\n",
            (3, 3, "`barrier` needs format version 2 (the header says 1)"),
        ),
        (
            "netreplay-trace 2\nranks 8\n0 irecv 1 5 5\n0 irecv 2 5\n",
            (4, 11, "rank 0 reuses request 5 before waiting on it"),
        ),
        (
            "netreplay-trace 2\nranks 8\n0 wait 3\n",
            (3, 8, "rank 0 waits on request 3, which it has not posted"),
        ),
        (
            "netreplay-trace 2\nranks 8\n0 isend 1 8 3\n0 wait 3\n0 wait 3\n",
            (5, 8, "already waited on"),
        ),
        (
            "netreplay-trace 2\nranks 8\n0 irecv 1\n",
            (3, 10, "expected a request handle, found end of line"),
        ),
        (
            "netreplay-trace 2\nranks 8\n0 irecv 1 2 3 4\n",
            (3, 15, "expected end of line, found `4`"),
        ),
        (
            "netreplay-trace 2\nranks 8\n0 irecv 1 4294967295\n",
            (3, 11, "request handle `4294967295` is too large"),
        ),
        (
            "netreplay-trace 2\nranks 8\n0 bcast 8 64\n",
            (3, 9, "rank 8 out of range 0..8"),
        ),
        (
            "netreplay-trace 2\nranks 8\n0 allreduce\n",
            (3, 12, "expected a size in bytes, found end of line"),
        ),
        (
            "netreplay-trace 2\nranks 8\n0 barrier 1\n",
            (3, 11, "expected end of line, found `1`"),
        ),
        (
            "netreplay-trace 1\nranks 8\n0 sendx 1 8\n",
            (3, 3, "found `sendx`"),
        ),
    ];
    for (text, (line, column, needle)) in cases {
        let (l, c, m) = error(text);
        assert!(
            (l, c) == (*line, *column) && m.contains(needle),
            "{text:?}: got {l}:{c}: {m}; want {line}:{column}: {needle}"
        );
    }
    let (l, c, m) = error("netreplay-trace 1\nranks 8\n0 send 1 é\n");
    assert_eq!((l, c), (3, 10), "{m}");
}

#[test]
fn non_text_and_long_lines_are_refused() {
    let (l, c, m) = error("netreplay-trace 1\nranks 2\n0 send \u{1}1");
    assert_eq!((l, c), (3, 8), "{m}");
    let mut bytes = b"netreplay-trace 1\nranks 2\n0 send 1 8 ".to_vec();
    bytes.extend([0xff, 0xfe]);
    match parse("t", &bytes[..]) {
        Err(Error::File {
            line: 3,
            column: 12,
            message,
            ..
        }) => {
            assert!(message.contains("not UTF-8"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    let long = format!(
        "netreplay-trace 1\nranks 2\n#{}\n",
        "x".repeat(MAX_LINE + 10)
    );
    let (l, _, m) = error(&long);
    assert_eq!(l, 3);
    assert!(m.contains("longer than"), "{m}");
}

#[test]
fn version_2_reads_non_blocking_events_and_expands_collectives() {
    let p = parse_str(
        "netreplay-trace 2\nranks 3\n0 isend 1 64 7 0\n0 isend 2 8 1\n0 waitall\n\
             1 irecv 0 7 4\n1 irecv 2 9\n1 wait 4\n1 wait 9\n2 recv 0\n2 send 1 1\n\
             0 barrier\n1 barrier\n2 barrier\n0 bcast 0 100\n1 bcast 0 100\n2 bcast 0 100\n",
    )
    .unwrap();
    let c0 = collectives::tag_for(0);
    let c1 = collectives::tag_for(1);
    // Trace handles become fresh runtime ids in posting order.
    assert_eq!(
        p.rank_ops(1)[..4],
        [
            Op::Irecv {
                from: 0,
                tag: 7,
                req: 0
            },
            Op::Irecv {
                from: 2,
                tag: 0,
                req: 1
            },
            Op::Wait { req: 0 },
            Op::Wait { req: 1 },
        ]
    );
    // Rank 0: two isends, waitall, the 3-rank dissemination barrier (send 1, recv 2, send 2,
    // recv 1) and the binomial bcast from 0 (to 2, then to 1).
    assert_eq!(
        p.rank_ops(0),
        [
            Op::Isend {
                to: 1,
                bytes: 64,
                tag: 7,
                req: 0
            },
            Op::Isend {
                to: 2,
                bytes: 8,
                tag: 0,
                req: 1
            },
            Op::Wait { req: 0 },
            Op::Wait { req: 1 },
            Op::Send {
                to: 1,
                bytes: 0,
                tag: c0
            },
            Op::Recv { from: 2, tag: c0 },
            Op::Send {
                to: 2,
                bytes: 0,
                tag: c0
            },
            Op::Recv { from: 1, tag: c0 },
            Op::Send {
                to: 2,
                bytes: 100,
                tag: c1
            },
            Op::Send {
                to: 1,
                bytes: 100,
                tag: c1
            },
        ]
    );
    // Version 1 files still read, and the handle of a waited request may be reused.
    assert!(parse_str("netreplay-trace 1\nranks 2\n0 send 1 8\n1 recv 0\n").is_ok());
    assert!(
        parse_str("netreplay-trace 2\nranks 2\n0 isend 1 8 3\n0 wait 3\n0 isend 1 8 3\n").is_ok()
    );
}

/// Whatever the fast path accepts, the general path accepts with the same result.
#[test]
fn fast_and_general_paths_agree() {
    let words = [
        "0",
        "1",
        "2",
        "3",
        "7",
        "4294967295",
        "4294967296",
        "18446744073709551615",
        "send",
        "recv",
        "compute",
        "isend",
        "irecv",
        "wait",
        "waitall",
        " ",
        "\t",
        "#",
        "x",
    ];
    let mut rng = crate::rng::Rng::new(11);
    let mut accepted = 0;
    for _ in 0..20000 {
        let mut line = String::new();
        for _ in 0..1 + rng.below(6) {
            line.push_str(words[rng.below(words.len() as u32) as usize]);
            line.push(' ');
        }
        let mut base = vec![RankState::default(); 4];
        base[1].outstanding.insert(7, false);
        for version in [1, 2, 3] {
            let mut fast = base.clone();
            let mut made = None;
            let push = |rank, call| made = Some((rank, call));
            if fast_event(line.as_bytes(), &mut fast, version, push).is_none() {
                assert!(made.is_none(), "{line:?}: a refused line made a call");
                continue;
            }
            let (rank, call) = made.expect("an accepted line makes its call");
            accepted += 1;
            let mut slow = base.clone();
            let mut calls = Vec::new();
            let content = line.split('#').next().unwrap_or("");
            let r = event(content, &mut slow, version, &mut calls)
                .unwrap_or_else(|e| panic!("{line:?}: fast accepts, general refuses: {e:?}"));
            assert_eq!((r, vec![call]), (rank, calls), "{line:?}");
            for (f, s) in fast.iter().zip(&slow) {
                assert_eq!(f.outstanding, s.outstanding, "{line:?}");
            }
        }
    }
    assert!(accepted > 100, "only {accepted} lines took the fast path");
}

/// Random bytes, random tokens and every truncation of a valid trace: errors, never a panic.
#[test]
fn never_panics_on_garbage_or_truncation() {
    let valid =
        format!("{HEAD}0 send 1 4096 3\n1 recv 0 3\n2 compute 100\n7 send 6 1\n6 recv 7 # x\n");
    for cut in 0..=valid.len() {
        let _ = parse_str(&valid[..cut]);
    }
    let words = [
        "netreplay-trace",
        "1",
        "2",
        "ranks",
        "8",
        "send",
        "recv",
        "compute",
        "isend",
        "irecv",
        "wait",
        "waitall",
        "bcast",
        "allreduce",
        "barrier",
        "#",
        "\n",
        " ",
        "\t",
        "99999999999999999999999",
        "-1",
        "é",
        "\r",
    ];
    let mut rng = crate::rng::Rng::new(7);
    for _ in 0..3000 {
        let len = rng.below(64) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        let _ = parse("r", &bytes[..]);
        let mut text = String::from(HEAD);
        for _ in 0..rng.below(20) {
            text.push_str(words[rng.below(words.len() as u32) as usize]);
            text.push(' ');
        }
        let _ = parse_str(&text);
    }
}

#[test]
fn the_mpi_line_sets_the_model_and_the_writer_records_any_other_than_the_default() {
    let p = parse_str(
        "netreplay-trace 4\nranks 2\n# the model\nmpi protocol=rendezvous eager_threshold=100 \
         self_copy=0.5\n0 send 1 1000\n1 recv 0\n",
    )
    .unwrap();
    let mut want = crate::program::MpiModel::mpich();
    want.eager_threshold = 100;
    want.self_copy = 0.5;
    assert_eq!(*p.mpi(), want);
    let mut text = Vec::new();
    crate::trace::write_text(&p, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.starts_with("netreplay-trace 4\nranks 2\nmpi protocol=rendezvous "),
        "{text}"
    );
    assert_eq!(parse_str(&text).unwrap(), p);
    // Under the native default the writer keeps version 3, which older readers read.
    let eager = p.with_mpi(crate::program::MpiModel::default());
    let mut text = Vec::new();
    crate::trace::write_text(&eager, &mut text).unwrap();
    assert!(text.starts_with(b"netreplay-trace 3\nranks 2\n0 send"));
    assert_eq!(
        *parse_str("netreplay-trace 3\nranks 2\n").unwrap().mpi(),
        Default::default()
    );
}
