//! `hotspot`: a fraction of the traffic goes to a small set of hot nodes, the rest is uniform (seed 000
//! §5.2: "a percentage of traffic is sent to a small subset of the processing nodes (5% of nodes)").
//! The seed does not give the percentage of traffic; we default to `fraction=0.2` and spread the
//! `hot=0.05` share of nodes evenly over the address space (at least one node).

use super::uniform::other_node;
use super::{Destinations, TrafficPattern};
use crate::error::Result;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "hotspot",
    keys: &["hot", "fraction"],
    help: "fraction (default 0.2) of packets to the hot nodes (default 5% of nodes), the rest uniform",
    build: |p| {
        let share = |key: &str, default: f64| -> Result<f64> {
            match p.raw(key) {
                None => Ok(default),
                Some(v) => v
                    .parse::<f64>()
                    .ok()
                    .filter(|x| (0.0..=1.0).contains(x))
                    .ok_or_else(|| p.invalid(format!("{key}={v} must be a number in 0..=1"))),
            }
        };
        Ok(Box::new(Hotspot {
            hot: share("hot", 0.05)?,
            fraction: share("fraction", 0.2)?,
        }))
    },
};

/// Hot-spot traffic.
#[derive(Debug, Clone, Copy)]
pub struct Hotspot {
    hot: f64,
    fraction: f64,
}

impl TrafficPattern for Hotspot {
    fn spec(&self) -> String {
        format!("hotspot:hot={},fraction={}", self.hot, self.fraction)
    }
    fn bind(&self, nodes: u32, _seed: u64) -> Result<Destinations> {
        let count = ((f64::from(nodes) * self.hot).round() as u32).clamp(1, nodes);
        let hot: Vec<u32> = (0..count)
            .map(|i| (u64::from(i) * u64::from(nodes) / u64::from(count)) as u32)
            .collect();
        let threshold = (self.fraction * f64::from(u32::MAX)) as u64;
        Ok(Destinations::random(nodes, move |src, rng| {
            if rng.next_u64() >> 32 < threshold {
                let d = hot[rng.below(count) as usize];
                if d != src {
                    return d;
                }
            }
            other_node(src, nodes, rng)
        }))
    }
}
