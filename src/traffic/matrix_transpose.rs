//! `matrix-transpose`: nodes as an s x s matrix in row-major order, node (row, column) sends to
//! (column, row). Defined for any square node count; on powers of four it equals `transpose`.

use super::{Destinations, TrafficPattern, table};
use crate::error::{Error, Result};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "matrix-transpose",
    keys: &[],
    help: "node (row, column) of a square matrix sends to (column, row)",
    build: |_| Ok(Box::new(MatrixTranspose)),
};

/// Matrix transpose traffic.
#[derive(Debug, Clone, Copy)]
pub struct MatrixTranspose;

impl TrafficPattern for MatrixTranspose {
    fn spec(&self) -> String {
        "matrix-transpose".into()
    }
    fn bind(&self, nodes: u32, _seed: u64) -> Result<Destinations> {
        let side = nodes.isqrt();
        if side * side != nodes {
            return Err(Error::Invalid(format!(
                "traffic `matrix-transpose` needs a square node count; {nodes} is not one (nearest {} or {})",
                side * side,
                (side + 1) * (side + 1)
            )));
        }
        Ok(table(
            (0..nodes).map(|s| (s % side) * side + s / side).collect(),
        ))
    }
}
