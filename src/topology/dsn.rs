//! DSN-x (seed 002, section II-A, its reference [3]): the distributed shortcut network, one node per
//! switch, routed minimally over breadth-first tables.
//!
//! n switches in a ring (pred/succ links); p = ceil(log2 n); switch i has level `i mod p + 1`; each switch
//! of level l <= x has a shortcut to the switch of level l + 1 at the smallest clockwise distance of at
//! least floor(n / 2^l). A shortcut that coincides with a ring link or another shortcut is built once.
//!
//! Two keys go beyond §II-A, to build the DSN of average degree 4 that seed 002's Figs. 5-6 compare
//! DSN-F with ("the same-degree topologies", §IV-B): `p=P` sets the super-node size (levels) and
//! allows x = p, whose level-p shortcut goes to level 1 at least floor(n / 2^p) on; `partial=none`
//! gives the switches of the incomplete last super-node (n mod p of them) no shortcuts.
//! `dsn:n=1024,p=9,x=9,partial=none` is that DSN at 1,024 switches: DSN-F's average shortest path is
//! then at most 4.8% below it over 128-4,096 switches and its diameter at most 16.7% (the paper's 4.6%
//! and 16.7%; `results/README.md`, "Seed 002 Fig. 6"), where §II-A's DSN leaves DSN-F 11.8% below.
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
    keys: &["n", "x", "p", "partial", "route"],
    help: "DSN-x: ring of n switches, shortcuts of x levels (p levels, default ceil(log2 n); x = p links level p to 1; partial=none: no shortcuts in the incomplete super-node); route=minimal (tables) or adaptive (up*/down* escape) (seed 002)",
    build: |p| {
        let n = p.u32_in("n", None, 4, super::table_routing::MAX_TABLE_SWITCHES)?;
        let text_levels = n.next_power_of_two().trailing_zeros();
        let levels = p.u32_in("p", Some(text_levels), 2, text_levels)?;
        // x = p only when p is given: §II-A's DSN has 1 <= x <= p - 1.
        let given_p = p.raw("p").is_some();
        let x = p.u32_in("x", None, 1, if given_p { levels } else { levels - 1 })?;
        let partial = p.choice("partial", "shortcuts", &["shortcuts", "none"])?;
        let routing = TableRouting::from_params(p, "minimal")?;
        let mut spec = format!("dsn:n={n},x={x}");
        if given_p {
            spec += &format!(",p={levels}");
        }
        if partial == "none" {
            spec += ",partial=none";
        }
        spec += &routing.spec_suffix("minimal");
        // Switches from here on form the incomplete last super-node.
        let complete = if partial == "none" {
            n / levels * levels
        } else {
            n
        };
        let mut chords = Vec::new();
        for i in 0..complete {
            let l = i % levels + 1;
            if l <= x {
                let to = l % levels + 1;
                let j = ((n >> l).max(1)..n)
                    .map(|d| (i + d) % n)
                    .find(|&j| j % levels + 1 == to);
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

    /// The DSN of average degree 4 (p = log2 n - 1, x = p, no shortcuts in the incomplete super-node),
    /// against `results/seed002_aspl_readings.py`'s: 1,024 = 113 * 9 + 7 switches, so 1,017 shortcuts,
    /// of which none coincides with a ring link or another shortcut: 2,041 links, average degree 3.99.
    #[test]
    fn the_degree_4_reading() {
        let t = build("dsn:n=1024,p=9,x=9,partial=none").unwrap();
        assert_eq!(t.spec(), "dsn:n=1024,x=9,p=9,partial=none");
        let s = structure(t.as_ref());
        assert_eq!(s.switch_links, 1024 + 1017);
        // Without `p`, x stays below §II-A's p; with it, x may reach p but p not exceed §II-A's.
        assert!(build("dsn:n=1024,x=10").is_err());
        assert!(build("dsn:n=1024,p=11,x=10").is_err());
        assert_eq!(build("dsn:n=1024,x=9").unwrap().spec(), "dsn:n=1024,x=9");
        // A given p is printed, so the printed spec builds the same network again.
        let wrapped = build("dsn:n=1024,p=10,x=10").unwrap();
        assert_eq!(wrapped.spec(), "dsn:n=1024,x=10,p=10");
        assert_eq!(build(&wrapped.spec()).unwrap().spec(), wrapped.spec());
    }
}
