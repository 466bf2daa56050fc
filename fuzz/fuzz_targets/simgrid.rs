//! The SimGrid time-independent trace reader on arbitrary bytes (an action file, or an index naming
//! files): a program or an error, never a panic.
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;
use netreplay::mpi::collectives::Algorithms;
use netreplay::trace::simgrid;

fuzz_target!(|data: &[u8]| {
    let path = scratch::file("simgrid.txt", data);
    if let Ok(program) = simgrid::read(&path, &Algorithms::default(), simgrid::Units::default()) {
        let _ = program.validate();
    }
});
