//! Format detection then the detected reader, plain or zstd (the magic bytes decide), as
//! `trace:file=PATH` reads a file.
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;
use netreplay::trace::{ReadOptions, read_any};

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("any.trace", data);
    let _ = read_any(&path, &ReadOptions::default());
});
