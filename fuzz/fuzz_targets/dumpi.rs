//! The DUMPI reader on an arbitrary rank file (one rank, a fixed `.meta` beside it): a program or an
//! error naming the rank and byte offset, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netreplay::mpi::collectives::Algorithms;
use netreplay::trace::dumpi;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("netreplay-fuzz-{}-dumpi", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    std::fs::write(dir.join("t.meta"), "numprocs=1\nfileprefix=t\nversion=13\n").expect("meta");
    std::fs::write(dir.join("t-0000.bin"), data).expect("rank file");
    if let Ok(program) = dumpi::read(&dir.join("t.meta"), &Algorithms::default(), 1e9) {
        let _ = program.validate();
    }
});
