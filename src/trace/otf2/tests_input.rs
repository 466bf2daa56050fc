//! Unit tests on bad and mutated input, low-level decoding, and the parse-speed measurement.

use super::tests::{MS, err, ping};
use super::writer::{Attrs, CommSpec, Ev, scratch};
use super::*;
use proptest::prelude::*;

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
    #![proptest_config(ProptestConfig::with_cases(256))]

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
