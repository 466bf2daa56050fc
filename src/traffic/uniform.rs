//! `uniform`: every packet to a destination drawn uniformly among the other nodes (seeds 000-003).
//! Self-destinations are excluded: a packet to its own node never enters the network.

use super::{Destinations, TrafficPattern};
use crate::error::Result;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "uniform",
    keys: &[],
    help: "uniform random destination among the other nodes",
    build: |_| Ok(Box::new(Uniform)),
};

/// Uniform random traffic.
#[derive(Debug, Clone, Copy)]
pub struct Uniform;

/// A uniform node other than `src`.
pub(crate) fn other_node(src: u32, nodes: u32, rng: &mut crate::rng::Rng) -> u32 {
    let d = rng.below(nodes - 1);
    if d >= src { d + 1 } else { d }
}

impl TrafficPattern for Uniform {
    fn spec(&self) -> String {
        "uniform".into()
    }
    fn bind(&self, nodes: u32, _seed: u64) -> Result<Destinations> {
        Ok(Destinations::random(nodes, move |src, rng| {
            other_node(src, nodes, rng)
        }))
    }
}
