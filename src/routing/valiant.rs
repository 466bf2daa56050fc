//! `valiant`: every packet through a uniformly random intermediate node (Valiant and Brebner, seed 003
//! reference [30]), both legs by the topology's minimal routing.

use super::{NetView, PathChoice, random_intermediate};
use crate::rng::Rng;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn PathChoice>> = Entry {
    name: "valiant",
    keys: &[],
    help: "through a random intermediate node, then to the destination (Valiant)",
    build: |_| Ok(Box::new(Valiant)),
};

/// Always non-minimal, except when source and destination share a switch (or no intermediate exists).
#[derive(Debug, Clone, Copy, Default)]
pub struct Valiant;

impl PathChoice for Valiant {
    fn spec(&self) -> String {
        "valiant".to_string()
    }
    fn intermediate(
        &mut self,
        net: &mut dyn NetView,
        rng: &mut Rng,
        src: u32,
        dest: u32,
    ) -> Option<u32> {
        random_intermediate(net, rng, src, dest)
    }
}
