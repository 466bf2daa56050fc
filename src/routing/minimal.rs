//! `minimal`: the topology's own routing function alone, every packet on the direct path.

use super::{NetView, PathChoice};
use crate::rng::Rng;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn PathChoice>> = Entry {
    name: "minimal",
    keys: &[],
    help: "the topology's own routing alone (default)",
    build: |_| Ok(Box::new(Minimal)),
};

/// No intermediates, one set of virtual channels.
#[derive(Debug, Clone, Copy, Default)]
pub struct Minimal;

impl PathChoice for Minimal {
    fn spec(&self) -> String {
        "minimal".to_string()
    }
    fn non_minimal(&self) -> bool {
        false
    }
    fn intermediate(
        &mut self,
        _net: &mut dyn NetView,
        _rng: &mut Rng,
        _src: u32,
        _dest: u32,
    ) -> Option<u32> {
        None
    }
}
