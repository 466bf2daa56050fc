//! DLN-x (seed 002, footnote 1, its reference [7]): a ring of n switches plus x - 2 random shortcuts at
//! each switch (average degree about x), one node per switch, routed minimally over breadth-first tables.
//!
//! The shortcuts are x - 2 rounds of a random matching: each round shuffles the switches (seeded with
//! `seed`, so a spec always builds the same graph) and pairs them up, skipping a pair already linked (so
//! a few switches may end a round without a shortcut, and with odd n one always does; as x nears n
//! more pairs are taken already, so the degree falls further short of x: `topology` reports it). An x
//! of n or more is refused, since no switch can have n neighbours. Routing: every
//! neighbour one hop closer, deadlock-free by hop-indexed virtual channels (see `table_routing.rs`), or
//! with `route=adaptive` minimal adaptive with an up*/down* escape path (`updown.rs`).

use super::Topology;
use super::table_routing::{TableRouted, TableRouting};
use crate::rng::Rng;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "dln",
    keys: &["n", "x", "seed", "route"],
    help: "DLN-x: ring of n switches + x-2 random shortcuts each (seeded); route=minimal or adaptive (seed 002)",
    build: |p| {
        let n = p.u32_in("n", None, 4, super::table_routing::MAX_TABLE_SWITCHES)?;
        let x = p.u32_in("x", None, 2, 64)?;
        if x >= n {
            return Err(p.invalid(format!(
                "x = {x} asks for a degree of about {x}, but a switch of {n} has at most {} neighbours",
                n - 1
            )));
        }
        let seed = p.u64_in("seed", Some(1), 0, u64::MAX)?;
        let routing = TableRouting::from_params(p, "minimal")?;
        let spec = format!(
            "dln:n={n},x={x},seed={seed}{}",
            routing.spec_suffix("minimal")
        );
        let mut rng = Rng::new(seed);
        let mut order: Vec<u32> = (0..n).collect();
        let mut chords = Vec::new();
        for _ in 2..x {
            rng.shuffle(&mut order);
            chords.extend(order.chunks_exact(2).map(|pair| (pair[0], pair[1])));
        }
        Ok(Box::new(TableRouted::ring(spec, n, chords, routing)?))
    },
};

#[cfg(test)]
mod tests {
    use super::super::{build, structure};

    /// Same seed, same graph; average degree close to x; another seed, another graph.
    #[test]
    fn seeded_and_degree_x() {
        let a = structure(build("dln:n=1024,x=4,seed=1").unwrap().as_ref());
        let b = structure(build("dln:n=1024,x=4,seed=1").unwrap().as_ref());
        assert_eq!(a, b);
        let avg = 2.0 * a.switch_links as f64 / 1024.0;
        assert!(avg > 3.95 && avg <= 4.0, "{avg}");
        let t1 = build("dln:n=64,x=4,seed=1").unwrap();
        let t2 = build("dln:n=64,x=4,seed=2").unwrap();
        let ports = |t: &dyn super::Topology| (0..64).map(|s| t.ports(s)).collect::<Vec<_>>();
        assert_ne!(ports(t1.as_ref()), ports(t2.as_ref()));
    }

    /// A degree of x needs at least x + 1 switches: `x = n` is refused with both values, `x = n - 1`
    /// builds (its shortfall from x shows in the degree `topology` reports).
    #[test]
    fn x_must_be_below_n() {
        let e = build("dln:n=10,x=10").unwrap_err().to_string();
        assert!(
            e.contains("x = 10") && e.contains("at most 9 neighbours"),
            "{e}"
        );
        assert!(build("dln:n=10,x=9").is_ok());
    }
}
