//! The INSEE/FSIN `.trc` reader on arbitrary bytes: a program or an error, never a panic.
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;
use netreplay::trace::fsin;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("fsin.trc", data);
    if let Ok(program) = fsin::read(&path) {
        let _ = program.validate();
    }
});
