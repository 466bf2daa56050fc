//! The native trace parser on arbitrary bytes: a program or an error, never a panic; a program's
//! `trace check` totals are exact or refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netreplay::mpi::collectives::Algorithms;
use netreplay::trace::{check, parser};

fuzz_target!(|data: &[u8]| {
    if let Ok(program) = parser::parse_with("fuzz.trace", data, &Algorithms::default()) {
        let _ = check::check(&program);
        let _ = program.validate();
    }
});
