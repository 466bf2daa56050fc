//! The k:k',n-slender-tree of seed 004 §2.3: a narrowed tree with adaptive routing downward as well.
//!
//! Level l has S_l = k' * (k/k')^(n-1-l) switches and N = k'^2 * (k/k')^n nodes (seed 004 Table 1,
//! checked against Table 2: 8:4,8 -> 1020 switches, 8160 links). Neighbourhood (§2.3): up port p of
//! switch j at level l reaches switch k' * floor(j/k) + p at level l+1, at its down port j mod k.
//! Requires k' < k and k divisible by k'.
//!
//! The k' switches `g*k' .. g*k'+k'` of a level l >= 1 form a group that serves the same block of
//! C_l = k^2 * (k/k')^(l-1) nodes, so going down the destination's child group offers k' equivalent
//! ports: routing is adaptive upward and downward, deterministic only on the last switch-to-leaf hop.

use super::{Endpoint, RouteChoice, Topology, check_size, checked_pow};
use crate::error::Result;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "slender-tree",
    keys: &["k", "up", "n"],
    help: "k:k',n-slender-tree, adaptive up and down (seed 004 §2.3); needs k'<k, k mod k' = 0",
    build: |p| {
        let k = p.u32_in("k", None, 2, 1024)?;
        let up = p.u32_in("up", None, 1, 1024)?;
        let n = p.u32_in("n", None, 2, 32)?;
        if up >= k || k % up != 0 {
            return Err(p.invalid(format!(
                "needs up < k and k divisible by up (k={k}, up={up})"
            )));
        }
        Ok(Box::new(SlenderTree::new(k, up, n)?))
    },
};

/// A k:k',n-slender-tree.
#[derive(Debug, Clone)]
pub struct SlenderTree {
    k: u32,
    up: u32,
    n: u32,
    /// First switch id of each level, and the total at index n.
    level_start: Vec<u32>,
    /// Nodes served by one switch group of each level (C_0 = k for single leaf switches).
    coverage: Vec<u32>,
}

impl SlenderTree {
    /// Builds the tree (parameters already validated).
    pub fn new(k: u32, up: u32, n: u32) -> Result<Self> {
        let spec = format!("slender-tree:k={k},up={up},n={n}");
        let ratio = k / up;
        let nodes = checked_pow(ratio, n, &spec)? * u64::from(up) * u64::from(up);
        check_size(&spec, nodes)?;
        let mut level_start = vec![0u32; n as usize + 1];
        for l in 0..n as usize {
            level_start[l + 1] = level_start[l] + up * ratio.pow(n - 1 - l as u32);
        }
        let coverage = (0..n)
            .map(|l| if l == 0 { k } else { k * k * ratio.pow(l - 1) })
            .collect();
        Ok(SlenderTree {
            k,
            up,
            n,
            level_start,
            coverage,
        })
    }

    #[inline]
    fn locate(&self, switch: u32) -> (usize, u32) {
        let l = self.level_start[1..].partition_point(|&start| start <= switch);
        (l, switch - self.level_start[l])
    }
}

impl Topology for SlenderTree {
    fn spec(&self) -> String {
        format!("slender-tree:k={},up={},n={}", self.k, self.up, self.n)
    }
    fn nodes(&self) -> u32 {
        self.coverage[self.n as usize - 1]
    }
    fn switches(&self) -> u32 {
        self.level_start[self.n as usize]
    }
    fn ports(&self, _switch: u32) -> u32 {
        self.k + self.up
    }
    fn locality_blocks(&self) -> Vec<u32> {
        self.coverage.clone()
    }
    fn level(&self, switch: u32) -> Option<u32> {
        Some(self.locate(switch).0 as u32)
    }

    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        let (l, j) = self.locate(switch);
        if port < self.k {
            if l == 0 {
                return Endpoint::Node(j * self.k + port);
            }
            Endpoint::Switch {
                switch: self.level_start[l - 1] + (j / self.up) * self.k + port,
                port: self.k + j % self.up,
            }
        } else if l + 1 == self.n as usize {
            Endpoint::Unplugged
        } else {
            Endpoint::Switch {
                switch: self.level_start[l + 1] + self.up * (j / self.k) + (port - self.k),
                port: j % self.k,
            }
        }
    }

    fn node_attachment(&self, node: u32) -> (u32, u32) {
        (node / self.k, node % self.k)
    }

    #[inline]
    fn route_to(&self, switch: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let (l, j) = self.locate(switch);
        let group = if l == 0 { j } else { j / self.up };
        if dest / self.coverage[l] != group {
            out.extend((self.k..self.k + self.up).map(RouteChoice::port));
        } else if l == 0 {
            out.push(RouteChoice::port(dest % self.k));
        } else if l == 1 {
            out.push(RouteChoice::port((dest / self.k) % self.k));
        } else {
            let child_group = dest / self.coverage[l - 1];
            out.extend(
                (0..self.up).map(|q| RouteChoice::port((child_group * self.up + q) % self.k)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, structure};

    /// §2.3: the 4:2,2-slender-tree is identical in size to the 4:2,2-thin-tree (16 nodes), and the
    /// 4:2,3-slender-tree has 32 nodes.
    #[test]
    fn section_2_3_sizes() {
        let s2 = structure(build("slender-tree:k=4,up=2,n=2").unwrap().as_ref());
        let t2 = structure(build("thin-tree:k=4,up=2,n=2").unwrap().as_ref());
        assert_eq!(s2, t2);
        assert_eq!(build("slender-tree:k=4,up=2,n=3").unwrap().nodes(), 32);
    }

    /// Downward adaptivity: from the top of an 8:4,8-slender-tree towards a node, k' choices per hop
    /// until the leaf level's parent.
    #[test]
    fn adaptive_downward() {
        let t = build("slender-tree:k=8,up=4,n=4").unwrap();
        let top = t.switches() - 1;
        let mut out = Vec::new();
        t.route(top, 0, 0, 5, &mut out);
        assert_eq!(out.len(), 4);
    }
}
