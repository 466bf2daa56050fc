//! The binary n-cube (hypercube): 2^n routers, one link per dimension, e-cube routing.
//!
//! Links: n * 2^(n-1) between routers plus N node links; radix n + 1. E-cube routing corrects the lowest
//! differing address bit first; it is minimal and deadlock-free without virtual channels.

use super::bisection::Bisection;
use super::{Endpoint, RouteChoice, Topology, check_size, checked_pow};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "hypercube",
    keys: &["n"],
    help: "binary n-cube, e-cube routing",
    build: |p| {
        let n = p.u32_in("n", None, 1, 24)?;
        check_size(&format!("hypercube:n={n}"), checked_pow(2, n, "hypercube")?)?;
        Ok(Box::new(Hypercube { n }))
    },
};

/// A binary n-cube. Port 0 holds the node, port 1 + d the neighbour across dimension d.
#[derive(Debug, Clone)]
pub struct Hypercube {
    n: u32,
}

impl Topology for Hypercube {
    fn spec(&self) -> String {
        format!("hypercube:n={}", self.n)
    }
    fn nodes(&self) -> u32 {
        1 << self.n
    }
    fn switches(&self) -> u32 {
        1 << self.n
    }
    /// 2^(n-1): the links of one dimension (Leighton, Introduction to Parallel Algorithms and
    /// Architectures, 1992, §3.1: the n-cube's bisection width is N/2).
    fn bisection(&self) -> Option<Bisection> {
        Some(Bisection::closed_form(1 << (self.n - 1), self.nodes()))
    }
    fn ports(&self, _switch: u32) -> u32 {
        self.n + 1
    }
    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        if port == 0 {
            Endpoint::Node(switch)
        } else {
            Endpoint::Switch {
                switch: switch ^ (1 << (port - 1)),
                port,
            }
        }
    }
    fn node_attachment(&self, node: u32) -> (u32, u32) {
        (node, 0)
    }
    fn locality_blocks(&self) -> Vec<u32> {
        (1..=self.n).map(|d| 1 << d).collect()
    }
    fn route_to(&self, switch: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let diff = switch ^ dest;
        out.push(RouteChoice::port(if diff == 0 {
            0
        } else {
            1 + diff.trailing_zeros()
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, structure};

    #[test]
    fn counts() {
        let s = structure(build("hypercube:n=10").unwrap().as_ref());
        assert_eq!(
            (s.nodes, s.switches, s.links, s.radix),
            (1024, 1024, 10 * 512 + 1024, 11)
        );
    }
}
