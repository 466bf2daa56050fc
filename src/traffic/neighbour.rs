//! `neighbour`: every coordinate of a k-ary n-cube view of the nodes plus one (mod k) (seed 003's
//! "neighbor", Booksim's definition). `k` and `n` default to a ring of all nodes.

use super::tornado::{cube_params, cube_shape, shift_digits};
use super::{Destinations, TrafficPattern, table};
use crate::error::Result;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "neighbour",
    keys: &["k", "n"],
    help: "each coordinate of a k-ary n-cube view plus one (default: next node on a ring)",
    build: |p| {
        let (k, n) = cube_params(p)?;
        Ok(Box::new(Neighbour { k, n }))
    },
};

/// Nearest-neighbour traffic.
#[derive(Debug, Clone, Copy)]
pub struct Neighbour {
    k: u32,
    n: u32,
}

impl TrafficPattern for Neighbour {
    fn spec(&self) -> String {
        match self.k {
            0 => "neighbour".into(),
            k => format!("neighbour:k={k},n={}", self.n),
        }
    }
    fn bind(&self, nodes: u32, _seed: u64) -> Result<Destinations> {
        let k = cube_shape("neighbour", self.k, self.n, nodes)?;
        Ok(table(
            (0..nodes).map(|s| shift_digits(s, k, self.n, 1)).collect(),
        ))
    }
}
