//! `next-group`: nodes in consecutive groups of `size`; every packet goes to a uniformly chosen node of
//! the next group (cyclically). Seed 003's worst case for dragonfly ("each router sends packets only to
//! the routers in the next group") and its next-layer pattern for FleX: set `size` to the nodes of a
//! group or layer.

use super::{Destinations, TrafficPattern};
use crate::error::{Error, Result};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "next-group",
    keys: &["size"],
    help: "uniform destination in the next group of `size` nodes (dragonfly group, FleX layer)",
    build: |p| {
        Ok(Box::new(NextGroup {
            size: p.u32_in("size", None, 1, 1 << 24)?,
        }))
    },
};

/// Next-group traffic.
#[derive(Debug, Clone, Copy)]
pub struct NextGroup {
    size: u32,
}

impl TrafficPattern for NextGroup {
    fn spec(&self) -> String {
        format!("next-group:size={}", self.size)
    }
    fn bind(&self, nodes: u32, _seed: u64) -> Result<Destinations> {
        let size = self.size;
        if !nodes.is_multiple_of(size) || nodes / size < 2 {
            return Err(Error::Invalid(format!(
                "traffic `next-group:size={size}` needs at least two whole groups; {nodes} nodes are not a multiple of {size} (or form one group)"
            )));
        }
        let groups = nodes / size;
        Ok(Destinations::random(nodes, move |src, rng| {
            ((src / size + 1) % groups) * size + rng.below(size)
        }))
    }
}
