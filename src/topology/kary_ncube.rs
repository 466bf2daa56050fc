//! Shared arithmetic of k-ary n-cubes (mesh and torus): one router per node, coordinates in base k.
//!
//! Router r serves node r on port 0; dimension d has port 1 + 2d towards coordinate + 1 and port 2 + 2d
//! towards coordinate - 1. Routing is dimension-order (DOR): the lowest dimension whose coordinate still
//! differs is corrected first, so the path is minimal and deterministic.

use super::{Endpoint, check_size, checked_pow};
use crate::error::Result;

/// The `Topology` methods a mesh and a torus both hand to their `cube` field: one router per node,
/// node r on router r's port 0, ports 1 + 2d and 2 + 2d along dimension d.
macro_rules! wired_by_cube {
    () => {
        fn nodes(&self) -> u32 {
            self.cube.routers()
        }
        fn switches(&self) -> u32 {
            self.cube.routers()
        }
        fn ports(&self, _switch: u32) -> u32 {
            1 + 2 * self.cube.n
        }
        fn neighbour(&self, switch: u32, port: u32) -> $crate::topology::Endpoint {
            self.cube.neighbour(switch, port)
        }
        fn node_attachment(&self, node: u32) -> (u32, u32) {
            (node, 0)
        }
        fn locality_blocks(&self) -> Vec<u32> {
            self.cube.blocks()
        }
        fn link_class(&self, _switch: u32, port: u32) -> Option<u32> {
            $crate::topology::kary_ncube::Cube::port_dim(port).map(|_| port)
        }
        fn link_class_name(&self, port: u32) -> String {
            $crate::topology::kary_ncube::Cube::link_class(port)
                .unwrap_or_else(|| "switch-switch".into())
        }
    };
}
pub(super) use wired_by_cube;

/// A k-ary n-cube, with or without wraparound links.
#[derive(Debug, Clone)]
pub struct Cube {
    /// Routers per dimension.
    pub k: u32,
    /// Dimensions.
    pub n: u32,
    /// Torus (true) or mesh (false).
    pub wrap: bool,
    /// `k^d` for d in 0..=n.
    pow: Vec<u32>,
    /// `log2 k` when k is a power of two: a coordinate is then a bit field, read with a shift and a
    /// mask instead of a division and a remainder (routing reads two per dimension per hop).
    bits: Option<u32>,
}

/// The hop a DOR packet takes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// Dimension corrected.
    pub dim: u32,
    /// Local output port.
    pub port: u32,
    /// The hop crosses a torus wraparound link (the dateline).
    pub wraps: bool,
}

impl Cube {
    /// Validates sizes and precomputes powers of k.
    pub fn new(spec: &str, k: u32, n: u32, wrap: bool) -> Result<Self> {
        check_size(spec, checked_pow(k, n, spec)?)?;
        Ok(Cube {
            k,
            n,
            wrap,
            pow: (0..=n).map(|d| k.pow(d)).collect(),
            bits: k.is_power_of_two().then(|| k.trailing_zeros()),
        })
    }

    /// Number of routers (= nodes).
    pub fn routers(&self) -> u32 {
        self.pow[self.n as usize]
    }

    /// Whole rows, planes, ...: k^1, ..., k^n routers.
    pub fn blocks(&self) -> Vec<u32> {
        self.pow[1..].to_vec()
    }

    /// Coordinate of router `r` in dimension `d`.
    #[inline]
    pub fn coord(&self, r: u32, d: u32) -> u32 {
        match self.bits {
            Some(b) => (r >> (b * d)) & (self.k - 1),
            None => (r / self.pow[d as usize]) % self.k,
        }
    }

    /// The dimension a port belongs to (`None` for the node port).
    #[inline]
    pub fn port_dim(port: u32) -> Option<u32> {
        port.checked_sub(1).map(|p| p / 2)
    }

    /// Class of the link leaving `port` for link-load reports: its dimension and direction, `dim 0 +`.
    pub fn link_class(port: u32) -> Option<String> {
        let d = Self::port_dim(port)?;
        Some(format!("dim {d} {}", if port % 2 == 1 { '+' } else { '-' }))
    }

    /// Wiring of a router port.
    pub fn neighbour(&self, r: u32, port: u32) -> Endpoint {
        let Some(d) = Self::port_dim(port) else {
            return Endpoint::Node(r);
        };
        let plus = port % 2 == 1;
        let c = self.coord(r, d);
        let step = self.pow[d as usize];
        let target = match (plus, c) {
            (true, c) if c + 1 < self.k => r + step,
            (false, c) if c > 0 => r - step,
            _ if !self.wrap => return Endpoint::Unplugged,
            (true, _) => r - (self.k - 1) * step,
            (false, _) => r + (self.k - 1) * step,
        };
        Endpoint::Switch {
            switch: target,
            port: if plus { port + 1 } else { port - 1 },
        }
    }

    /// The dimension-order hop from router `r` towards router `dest`, or `None` when already there.
    /// On a torus the shorter way round is taken; at exactly half-way (even k) the + direction if bit d
    /// of `minus_ties` is clear, else the - direction. Once a packet has taken one hop either way the
    /// rest of the way is strictly shorter in that direction, so the choice only matters on entering a
    /// ring and the packet keeps it.
    #[inline]
    pub fn dor_hop(&self, r: u32, dest: u32, minus_ties: u32) -> Option<Hop> {
        (0..self.n).find_map(|d| {
            let (c, t) = (self.coord(r, d), self.coord(dest, d));
            if c == t {
                return None;
            }
            let plus = if self.wrap {
                // (t - c) mod k, both below k: one subtraction instead of a division.
                let ahead = if t >= c { t - c } else { t + self.k - c };
                ahead < self.k - ahead || (2 * ahead == self.k && (minus_ties >> (d % 32)) & 1 == 0)
            } else {
                t > c
            };
            let wraps = self.wrap && if plus { c == self.k - 1 } else { c == 0 };
            Some(Hop {
                dim: d,
                port: 1 + 2 * d + u32::from(!plus),
                wraps,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Cube;

    /// A coordinate read as a bit field (k a power of two) is the base-k digit, as for any other k.
    #[test]
    fn coordinates_are_base_k_digits() {
        for (k, n) in [(1, 3), (2, 5), (4, 3), (5, 3), (8, 2), (16, 3)] {
            let cube = Cube::new("cube", k, n, true).unwrap();
            assert_eq!(cube.bits.is_some(), k.is_power_of_two());
            for r in 0..cube.routers() {
                for d in 0..n {
                    assert_eq!(
                        cube.coord(r, d),
                        (r / k.pow(d)) % k,
                        "k={k} n={n} r={r} d={d}"
                    );
                }
            }
        }
    }
}
