//! The k-ary n-tree ("k,n-fat-tree") of seed 004 §2.1 and Petrini and Vanneschi.
//!
//! N = k^n nodes, n levels of k^(n-1) switches of radix 2k, wired by the butterfly neighbourhood relation
//! of §2.1. That relation is exactly the thin-tree's with k' = k ("a k,n-fat-tree is actually a
//! k:k,n-thin-tree", §2.2), so the family is built as such; routing is adaptive up, deterministic down.

use super::Topology;
use super::thin_tree::ThinTree;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "fat-tree",
    keys: &["k", "n"],
    help: "k-ary n-tree: k down and k up ports per switch, n levels (seed 004 §2.1)",
    build: |p| {
        let k = p.u32_in("k", None, 2, 1024)?;
        let n = p.u32_in("n", None, 1, 24)?;
        Ok(Box::new(ThinTree::new(k, k, n, "fat-tree")?))
    },
};

#[cfg(test)]
mod tests {
    use super::super::{Endpoint, build};

    /// The neighbourhood relation of §2.1, evaluated literally: with switch = s*k^l + r,
    /// nswitch = (port*k^l + k^(l+1)*floor(switch/k^(l+1)) + switch mod k^l) mod k^(n-1) and
    /// nport = floor(switch/k^l) mod k.
    #[test]
    fn matches_section_2_1_formula() {
        let (k, n) = (4u32, 3u32);
        let t = build("fat-tree:k=4,n=3").unwrap();
        let per_level = k.pow(n - 1);
        for level in 0..n - 1 {
            for switch in 0..per_level {
                for port in 0..k {
                    let kl = k.pow(level);
                    let nswitch =
                        (port * kl + k.pow(level + 1) * (switch / k.pow(level + 1)) + switch % kl)
                            % per_level;
                    let nport = (switch / kl) % k;
                    let got = t.neighbour(level * per_level + switch, k + port);
                    assert_eq!(
                        got,
                        Endpoint::Switch {
                            switch: (level + 1) * per_level + nswitch,
                            port: nport
                        },
                        "level {level} switch {switch} port {port}"
                    );
                }
            }
        }
    }
}
