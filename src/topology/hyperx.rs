//! HyperX (seed 003, section II-B): L dimensions of S routers each, every pair of routers that differ in
//! exactly one coordinate linked (K = 1 link per pair), T terminals per router.
//!
//! Radix `T + L (S - 1)` (eq. 1 with K_k = 1), `S^L` routers, `S^L L (S - 1) / 2` inter-router links.
//! Only equal widths S_k = S and K_k = 1 are built (seed 003's Table 6 configuration, `hyperx:l=2,s=10,t=10`).
//! Routing: dimension-order, one hop per differing dimension (lowest dimension first), so minimal.
//! Deadlock-free with one virtual channel: a packet only ever moves from a link of dimension d to a
//! link of a dimension d' > d (each dimension is corrected in a single hop), so channel dependencies
//! follow the dimension order and cannot form a cycle; hop-indexed virtual channels are not needed.

use super::{Endpoint, RouteChoice, Topology, check_size, checked_pow};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "hyperx",
    keys: &["l", "s", "t"],
    help: "HyperX: l dimensions of s routers, all-to-all per dimension, t terminals/router; DOR (seed 003)",
    build: |p| {
        let l = p.u32_in("l", None, 1, 16)?;
        let s = p.u32_in("s", None, 2, 1 << 16)?;
        let t = p.u32_in("t", None, 1, 4096)?;
        let spec = format!("hyperx:l={l},s={s},t={t}");
        let routers = checked_pow(s, l, "hyperx")?;
        check_size(&spec, routers * u64::from(t))?;
        Ok(Box::new(HyperX {
            l,
            s,
            t,
            routers: routers as u32,
        }))
    },
};

/// A HyperX with equal widths. Ports `0..T` hold terminals; port `T + d (S - 1) + j` faces the router
/// whose coordinate d is `j` (or `j + 1` from the router's own coordinate on).
#[derive(Debug, Clone)]
pub struct HyperX {
    l: u32,
    s: u32,
    t: u32,
    routers: u32,
}

impl HyperX {
    fn coord(&self, r: u32, d: u32) -> u32 {
        (r / self.s.pow(d)) % self.s
    }
    /// Port of router `r` facing coordinate `v` of dimension `d` (v != own coordinate).
    fn port(&self, r: u32, d: u32, v: u32) -> u32 {
        let own = self.coord(r, d);
        self.t + d * (self.s - 1) + if v < own { v } else { v - 1 }
    }
}

impl Topology for HyperX {
    fn spec(&self) -> String {
        format!("hyperx:l={},s={},t={}", self.l, self.s, self.t)
    }
    fn nodes(&self) -> u32 {
        self.routers * self.t
    }
    fn switches(&self) -> u32 {
        self.routers
    }
    fn ports(&self, _switch: u32) -> u32 {
        self.t + self.l * (self.s - 1)
    }
    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        if port < self.t {
            return Endpoint::Node(switch * self.t + port);
        }
        let (d, j) = (
            (port - self.t) / (self.s - 1),
            (port - self.t) % (self.s - 1),
        );
        if d >= self.l {
            return Endpoint::Unplugged;
        }
        let own = self.coord(switch, d);
        let v = if j < own { j } else { j + 1 };
        let other = switch - own * self.s.pow(d) + v * self.s.pow(d);
        Endpoint::Switch {
            switch: other,
            port: self.port(other, d, own),
        }
    }
    fn node_attachment(&self, node: u32) -> (u32, u32) {
        (node / self.t, node % self.t)
    }
    /// A router's terminals, then lines, planes... of the lowest dimensions (each line all-to-all).
    fn locality_blocks(&self) -> Vec<u32> {
        (0..self.l).map(|d| self.t * self.s.pow(d)).collect()
    }
    fn route(
        &self,
        switch: u32,
        _in_port: u32,
        _in_vc: u32,
        dest: u32,
        out: &mut Vec<RouteChoice>,
    ) {
        let dsw = dest / self.t;
        match (0..self.l).find(|&d| self.coord(switch, d) != self.coord(dsw, d)) {
            None => out.push(RouteChoice::port(dest % self.t)),
            Some(d) => out.push(RouteChoice::port(self.port(switch, d, self.coord(dsw, d)))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, structure};

    /// Seed 003 Table 6: HyperX 1000 terminals, 100 routers, radix 28, 900 links.
    #[test]
    fn table_6() {
        let s = structure(build("hyperx:l=2,s=10,t=10").unwrap().as_ref());
        assert_eq!(
            (s.nodes, s.switches, s.radix, s.switch_links),
            (1000, 100, 28, 900)
        );
        let s = structure(build("hyperx:l=3,s=4,t=2").unwrap().as_ref());
        assert_eq!((s.switches, s.radix, s.switch_links), (64, 11, 64 * 9 / 2));
    }
}
