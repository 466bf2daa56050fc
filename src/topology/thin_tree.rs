//! The k:k',n-thin-tree of seed 004 §2.2: a k-ary n-tree with only k' upward ports per switch.
//!
//! Level l (0 = the leaf level) has S_l = k^(n-1-l) * k'^l switches (seed 004 Table 1; the extracted
//! formula is garbled, this is the one that reproduces Table 2: 8:4,4 -> 960 switches, 7680 links).
//! A level-l switch is numbered `j = s * k'^l + r`: `s` is the subtree of k^(l+1) nodes it serves and
//! `r` its replica among the k'^l switches serving that subtree. Up port p (local port k + p) of switch
//! (s, r) at level l reaches switch (s / k, r + p * k'^l) at level l+1, at its down port s mod k; this
//! is seed 004's fat-tree neighbourhood relation (§2.1) with replica digits limited to 0..k', i.e. the
//! fat-tree with switches and links removed of Fig. 1d. A k,n-fat-tree is the k:k,n-thin-tree.
//!
//! Ports 0..k are downward (to nodes at level 0), ports k..k+k' upward; the top level's upward ports
//! are unplugged (§2). Routing is up*/down*: adaptive upward to any ancestor that covers the
//! destination, then the unique deterministic downward path.

use super::bisection::Bisection;
use super::{Endpoint, RouteChoice, Topology, check_size, checked_pow};
use crate::error::Result;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "thin-tree",
    keys: &["k", "up", "n"],
    help: "k:k',n-thin-tree, k down and k'=up up ports per switch, n levels (seed 004 §2.2)",
    build: |p| {
        let k = p.u32_in("k", None, 2, 1024)?;
        let n = p.u32_in("n", None, 1, 24)?;
        let up = p.u32_in("up", None, 1, 1024)?;
        if up > k {
            return Err(p.invalid(format!(
                "up={up} exceeds k={k}; a thin-tree narrows (k' <= k)"
            )));
        }
        Ok(Box::new(ThinTree::new(k, up, n, "thin-tree")?))
    },
};

/// A k:k',n-thin-tree (and, with k' = k, a k-ary n-tree).
#[derive(Debug, Clone)]
pub struct ThinTree {
    k: u32,
    up: u32,
    n: u32,
    /// `k^i` for i in 0..=n.
    pow_k: Vec<u32>,
    /// `k'^i` for i in 0..=n.
    pow_up: Vec<u32>,
    /// First switch id of each level, and the total at index n.
    level_start: Vec<u32>,
    family: &'static str,
}

impl ThinTree {
    /// Builds the tree; `family` is the name its spec prints (`fat-tree` or `thin-tree`).
    pub fn new(k: u32, up: u32, n: u32, family: &'static str) -> Result<Self> {
        let spec = Self::spec_of(family, k, up, n);
        check_size(&spec, checked_pow(k, n, &spec)?)?;
        let pow_k: Vec<u32> = (0..=n).map(|i| k.pow(i)).collect();
        let pow_up: Vec<u32> = (0..n).map(|i| up.pow(i)).chain([0]).collect();
        let mut level_start = vec![0u32; n as usize + 1];
        for l in 0..n as usize {
            level_start[l + 1] = level_start[l] + pow_k[n as usize - 1 - l] * pow_up[l];
        }
        Ok(ThinTree {
            k,
            up,
            n,
            pow_k,
            pow_up,
            level_start,
            family,
        })
    }

    fn spec_of(family: &str, k: u32, up: u32, n: u32) -> String {
        if family == "fat-tree" {
            format!("fat-tree:k={k},n={n}")
        } else {
            format!("thin-tree:k={k},up={up},n={n}")
        }
    }

    /// (level, subtree, replica) of a switch id.
    #[inline]
    fn locate(&self, switch: u32) -> (usize, u32, u32) {
        let l = self.level_start[1..].partition_point(|&start| start <= switch);
        let j = switch - self.level_start[l];
        (l, j / self.pow_up[l], j % self.pow_up[l])
    }

    #[inline]
    fn id(&self, level: usize, subtree: u32, replica: u32) -> u32 {
        self.level_start[level] + subtree * self.pow_up[level] + replica
    }
}

impl Topology for ThinTree {
    fn spec(&self) -> String {
        Self::spec_of(self.family, self.k, self.up, self.n)
    }
    fn nodes(&self) -> u32 {
        self.pow_k[self.n as usize]
    }
    fn switches(&self) -> u32 {
        self.level_start[self.n as usize]
    }
    /// Even k, n >= 2: (k/2) k'^(n-1). The k subtrees of height n-1 are split k/2 a side and each of
    /// the k'^(n-1) top switches has one down-link per subtree (seed 004 §2.2's wiring), so k/2 of its
    /// links cross whichever side it is on; splitting lower subtrees costs more per node, as each level
    /// down has k/k' times more up-links per node. With k' = k it is seed 001 Table I's k^n/2 for the
    /// k-ary n-tree (tight: the tree routes any permutation on link-disjoint paths, so any split of the
    /// nodes in halves is crossed by N/2 of them).
    fn bisection(&self) -> Option<Bisection> {
        (self.k.is_multiple_of(2) && self.n >= 2).then(|| {
            let top = u64::from(self.pow_up[self.n as usize - 1]);
            Bisection::closed_form(u64::from(self.k / 2) * top, self.nodes())
        })
    }
    /// The k-ary n-tree (k' = k, n >= 2): k - 1, a leaf switch's k up-links (seed 000 §5.4's k_i - 1).
    fn link_faults_tolerated(&self) -> Option<u64> {
        (self.up == self.k && self.n >= 2).then(|| u64::from(self.k) - 1)
    }
    fn ports(&self, _switch: u32) -> u32 {
        self.k + self.up
    }
    fn locality_blocks(&self) -> Vec<u32> {
        self.pow_k[1..].to_vec()
    }
    fn level(&self, switch: u32) -> Option<u32> {
        Some(self.locate(switch).0 as u32)
    }

    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        let (l, s, r) = self.locate(switch);
        if port < self.k {
            if l == 0 {
                return Endpoint::Node(s * self.k + port);
            }
            let below = self.pow_up[l - 1];
            Endpoint::Switch {
                switch: self.id(l - 1, s * self.k + port, r % below),
                port: self.k + r / below,
            }
        } else if l + 1 == self.n as usize {
            Endpoint::Unplugged
        } else {
            let p = port - self.k;
            Endpoint::Switch {
                switch: self.id(l + 1, s / self.k, r + p * self.pow_up[l]),
                port: s % self.k,
            }
        }
    }

    /// As `neighbour`, with the switch's position decoded once: the k down-ports reach the k
    /// subtrees' switches (or nodes) at the same replica and up-port, the up-ports the replicas of
    /// the parent subtree's switch.
    fn wiring(&self, switch: u32, out: &mut Vec<Endpoint>) {
        out.clear();
        let (l, s, r) = self.locate(switch);
        if l == 0 {
            out.extend((0..self.k).map(|port| Endpoint::Node(s * self.k + port)));
        } else {
            let below = self.pow_up[l - 1];
            let (replica, port) = (r % below, self.k + r / below);
            out.extend((0..self.k).map(|p| Endpoint::Switch {
                switch: self.id(l - 1, s * self.k + p, replica),
                port,
            }));
        }
        if l + 1 == self.n as usize {
            out.extend((0..self.up).map(|_| Endpoint::Unplugged));
        } else {
            let (parent, port) = (s / self.k, s % self.k);
            out.extend((0..self.up).map(|p| Endpoint::Switch {
                switch: self.id(l + 1, parent, r + p * self.pow_up[l]),
                port,
            }));
        }
    }

    fn node_attachment(&self, node: u32) -> (u32, u32) {
        (node / self.k, node % self.k)
    }

    #[inline]
    fn route_to(&self, switch: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let (l, s, _) = self.locate(switch);
        if dest / self.pow_k[l + 1] == s {
            out.push(RouteChoice::port((dest / self.pow_k[l]) % self.k));
        } else {
            out.extend((self.k..self.k + self.up).map(RouteChoice::port));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, structure};

    /// Fig. 1b: the 4:2,3-thin-tree has 16 + 8 + 4 switches and its top level's up ports unplugged.
    #[test]
    fn fig_1b_levels() {
        let t = build("thin-tree:k=4,up=2,n=3").unwrap();
        let per_level: Vec<usize> = (0..3)
            .map(|l| (0..t.switches()).filter(|&s| t.level(s) == Some(l)).count())
            .collect();
        assert_eq!(per_level, [16, 8, 4]);
        assert_eq!(structure(t.as_ref()).unplugged_ports, 4 * 2);
    }
}
