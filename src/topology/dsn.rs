//! DSN-x (seed 002, section II-A, its reference [3]): the distributed shortcut network, one node per
//! switch, routed minimally over breadth-first tables.
//!
//! n switches in a ring (pred/succ links); p = ceil(log2 n); switch i has level `i mod p + 1`; each switch
//! of level l <= x has a shortcut to the switch of level l + 1 at the smallest clockwise distance of at
//! least floor(n / 2^l). A shortcut that coincides with a ring link or another shortcut is built once.
//! DSN's own routing is defined in [3], which the seeds do not reproduce, so DSN is routed minimally
//! over BFS distance tables (every neighbour one hop closer is offered), deadlock-free by hop-indexed
//! virtual channels (see `table_routing.rs`): as many as the graph's diameter; or, with `route=adaptive`,
//! minimal adaptive with an up*/down* escape path on two virtual channels (`updown.rs`).

use super::Topology;
use super::table_routing::{TableRouted, TableRouting};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "dsn",
    keys: &["n", "x", "route"],
    help: "DSN-x: ring of n switches, shortcuts of x levels; route=minimal (tables) or adaptive (up*/down* escape) (seed 002)",
    build: |p| {
        let n = p.u32_in("n", None, 4, super::table_routing::MAX_TABLE_SWITCHES)?;
        let levels = n.next_power_of_two().trailing_zeros();
        let x = p.u32_in("x", None, 1, levels - 1)?;
        let routing = TableRouting::from_params(p, "minimal")?;
        let spec = format!("dsn:n={n},x={x}{}", routing.spec_suffix("minimal"));
        let mut chords = Vec::new();
        for i in 0..n {
            let l = i % levels + 1;
            if l <= x {
                let j = (n >> l..n)
                    .map(|d| (i + d) % n)
                    .find(|&j| j % levels + 1 == l + 1);
                chords.extend(j.filter(|&j| j != i).map(|j| (i, j)));
            }
        }
        Ok(Box::new(TableRouted::ring(spec, n, chords, routing)?))
    },
};

#[cfg(test)]
mod tests {
    use super::super::{build, structure};

    /// Ring (n links) plus one shortcut per switch of level <= x (x of every p = 10 switches).
    #[test]
    fn counts_and_degree() {
        let t = build("dsn:n=1024,x=9").unwrap();
        let s = structure(t.as_ref());
        assert_eq!((s.switches, s.nodes), (1024, 1024));
        // 1024 = 102 * 10 + 4: levels 1..=9 occur 103 times for 1..=4, 102 times for 5..=9.
        assert_eq!(s.switch_links, 1024 + 4 * 103 + 5 * 102);
        assert!(s.radix <= 6, "degree at most 5, plus the node port: {s:?}");
    }
}
