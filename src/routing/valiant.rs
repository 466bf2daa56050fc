//! `valiant`: every packet through a uniformly random intermediate node (Valiant and Brebner, seed 003
//! reference [30]), both legs by the topology's minimal routing.

use super::PathChoice;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn PathChoice>> = Entry {
    name: "valiant",
    keys: &[],
    help: "through a random intermediate node, then to the destination (Valiant)",
    build: |_| Ok(Box::new(Valiant)),
};

/// Every default of [`PathChoice`]: always non-minimal, except when source and destination share a
/// switch (or no intermediate exists).
#[derive(Debug, Clone, Copy, Default)]
pub struct Valiant;

impl PathChoice for Valiant {
    fn spec(&self) -> String {
        "valiant".to_string()
    }
}
