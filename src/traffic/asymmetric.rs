//! `asymmetric` (seed 003, Booksim's definition): a source in either half sends to the same position in
//! the lower or the upper half of the nodes, chosen at random, so the load on the two halves' links is
//! uneven. The destination may be the source itself, in which case nothing is sent.

use super::{Destinations, TrafficPattern};
use crate::error::{Error, Result};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "asymmetric",
    keys: &[],
    help: "source mod N/2, in the lower or upper half at random (Booksim)",
    build: |_| Ok(Box::new(Asymmetric)),
};

/// Asymmetric traffic.
#[derive(Debug, Clone, Copy)]
pub struct Asymmetric;

impl TrafficPattern for Asymmetric {
    fn spec(&self) -> String {
        "asymmetric".into()
    }
    fn bind(&self, nodes: u32, _seed: u64) -> Result<Destinations> {
        if nodes < 2 || nodes % 2 == 1 {
            return Err(Error::Invalid(format!(
                "traffic `asymmetric` splits the nodes in halves and needs an even count; got {nodes}"
            )));
        }
        let half = nodes / 2;
        Ok(Destinations::random(nodes, move |src, rng| {
            src % half + if rng.below(2) == 1 { half } else { 0 }
        }))
    }
}
