//! The flattened butterfly of seed 000 §5.2 and Table 3 (Kim, Dally and Abts' FB with concentration):
//! k^n routers in an n-dimensional array, each fully connected to the k-1 other routers of its row in
//! every dimension, with p nodes per router.
//!
//! Seed 000 writes it "FB k-ary n-cube p-p" with n the number of dimensions of the router array (not
//! Kim's n-1 of a "k-ary n-flat"): Table 3's k^n switches and k^n(k-1)n/2 + N links reproduce every FB
//! row of Table 4 (16-ary 3-cube 16-p: 4,096 switches, 157,696 links). Router r serves nodes r·p..r·p+p
//! on ports 0..p; dimension d has ports p + d(k-1) + j, j in 0..k-1, to the routers whose coordinate d
//! is j (j below ours) or j+1 (j at or above ours). Routing is minimal dimension order: the lowest
//! differing dimension is corrected in one hop. Channels are only ever used in increasing dimension
//! order, so the channel dependency graph is acyclic and no virtual channels are needed.

use super::bisection::Bisection;
use super::{Endpoint, RouteChoice, Topology, check_size, checked_pow};
use crate::error::Result;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "flattened-butterfly",
    keys: &["k", "n", "p"],
    help: "k routers per dimension fully connected, n dimensions, p nodes per router (seed 000 FB)",
    build: |p| {
        let k = p.u32_in("k", None, 2, 1024)?;
        let n = p.u32_in("n", None, 1, 24)?;
        let c = p.u32_in("p", Some(1), 1, 1024)?;
        Ok(Box::new(FlattenedButterfly::new(k, n, c)?))
    },
};

/// A flattened butterfly with concentration.
#[derive(Debug, Clone)]
pub struct FlattenedButterfly {
    k: u32,
    n: u32,
    p: u32,
    /// `k^d` for d in 0..=n.
    pow: Vec<u32>,
}

impl FlattenedButterfly {
    /// Validates sizes.
    pub fn new(k: u32, n: u32, p: u32) -> Result<Self> {
        let spec = format!("flattened-butterfly:k={k},n={n},p={p}");
        let routers = checked_pow(k, n, &spec)?;
        check_size(&spec, routers.saturating_mul(u64::from(p)))?;
        Ok(FlattenedButterfly {
            k,
            n,
            p,
            pow: (0..=n).map(|d| k.pow(d)).collect(),
        })
    }

    #[inline]
    fn coord(&self, r: u32, d: u32) -> u32 {
        (r / self.pow[d as usize]) % self.k
    }

    /// Port of router with coordinate `c` (in dimension `d`) towards coordinate `t != c`.
    #[inline]
    fn port_to(&self, d: u32, c: u32, t: u32) -> u32 {
        self.p + d * (self.k - 1) + if t < c { t } else { t - 1 }
    }
}

impl Topology for FlattenedButterfly {
    fn spec(&self) -> String {
        format!("flattened-butterfly:k={},n={},p={}", self.k, self.n, self.p)
    }
    fn nodes(&self) -> u32 {
        self.pow[self.n as usize] * self.p
    }
    fn switches(&self) -> u32 {
        self.pow[self.n as usize]
    }
    /// Even k: k^(n+1) / 4, the HyperX bound with S = k in n dimensions (Kim, Dally and Abts,
    /// "Flattened Butterfly", ISCA 2007; see `hyperx.rs`): each of the k^(n-1) rows of one dimension is
    /// a clique of k routers cut (k/2)^2 times.
    fn bisection(&self) -> Option<Bisection> {
        self.k.is_multiple_of(2).then(|| {
            let rows = u64::from(self.pow[self.n as usize - 1]);
            Bisection::closed_form(rows * u64::from(self.k / 2).pow(2), self.nodes())
        })
    }
    /// (k - 1) n - 1: each router has (k - 1) n neighbours (seed 000 §5.4).
    fn link_faults_tolerated(&self) -> Option<u64> {
        Some(u64::from(self.k - 1) * u64::from(self.n) - 1)
    }
    fn ports(&self, _switch: u32) -> u32 {
        self.p + self.n * (self.k - 1)
    }
    fn neighbour(&self, r: u32, port: u32) -> Endpoint {
        if port < self.p {
            return Endpoint::Node(r * self.p + port);
        }
        let (d, j) = (
            (port - self.p) / (self.k - 1),
            (port - self.p) % (self.k - 1),
        );
        let c = self.coord(r, d);
        let t = if j < c { j } else { j + 1 };
        let other = r - c * self.pow[d as usize] + t * self.pow[d as usize];
        Endpoint::Switch {
            switch: other,
            port: self.port_to(d, t, c),
        }
    }
    fn node_attachment(&self, node: u32) -> (u32, u32) {
        (node / self.p, node % self.p)
    }
    /// A router's p nodes, then its row of dimension 0 (k routers one hop apart), its plane of
    /// dimensions 0 and 1 (two hops)...: consecutive ids, as routers are numbered dimension 0 first, and
    /// the dimension-order route between two routers of a block stays inside it.
    fn locality_blocks(&self) -> Vec<u32> {
        self.pow[..self.n as usize]
            .iter()
            .map(|&r| self.p * r)
            .collect()
    }
    #[inline]
    fn route_to(&self, r: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let target = dest / self.p;
        let port = (0..self.n)
            .find_map(|d| {
                let (c, t) = (self.coord(r, d), self.coord(target, d));
                (c != t).then(|| self.port_to(d, c, t))
            })
            .unwrap_or(dest % self.p);
        out.push(RouteChoice::port(port));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, structure};

    /// Seed 000 Table 4, FB rows (64K nodes), and Table 3's closed forms on smaller instances.
    #[test]
    fn table_3_and_4_counts() {
        for (spec, links, switches) in [
            ("flattened-butterfly:k=16,n=3,p=16", 157_696, 4_096),
            ("flattened-butterfly:k=4,n=7,p=4", 237_568, 16_384),
            ("flattened-butterfly:k=2,n=15,p=2", 311_296, 32_768),
        ] {
            let s = structure(build(spec).unwrap().as_ref());
            assert_eq!(
                (s.nodes, s.links, s.switches),
                (65_536, links, switches),
                "{spec}"
            );
        }
        for (k, n, p) in [(3u64, 2u32, 1u64), (4, 3, 2), (5, 2, 3)] {
            let s = structure(
                build(&format!("flattened-butterfly:k={k},n={n},p={p}"))
                    .unwrap()
                    .as_ref(),
            );
            let sw = k.pow(n);
            assert_eq!(s.switches, sw);
            assert_eq!(s.links, sw * (k - 1) * u64::from(n) / 2 + sw * p);
            assert_eq!(s.radix, p + u64::from(n) * (k - 1));
        }
    }
}
