//! Disjoint sets of small integer ids (union-find) kept as a parent array, where a root is its own
//! parent: the groups of ranks that exchange messages (`trace::jobs`) and the switches still
//! connected after links fail (`topology::fault_tolerance`).

/// The root of `x`'s set, halving the path to it on the way (each visited id then points to its
/// grandparent), so that repeated look-ups stay short.
pub fn root(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let grand = parent[parent[x as usize] as usize];
        parent[x as usize] = grand;
        x = grand;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain 3 -> 2 -> 1 -> 0: the root is 0, and the look-up halves the path (3 now points to 1).
    #[test]
    fn roots_are_found_and_paths_halved() {
        let mut parent = vec![0, 0, 1, 2];
        assert_eq!(root(&mut parent, 3), 0);
        assert_eq!(parent, [0, 0, 1, 1]);
        assert_eq!(root(&mut parent, 0), 0);
    }
}
