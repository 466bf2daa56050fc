//! Synthetic traffic patterns for open-loop load-latency studies (seeds 000-003; Booksim's definitions
//! where the seeds name a pattern without defining it). One file per pattern, listed in [`REGISTRY`].
//!
//! A pattern is bound to a node count (and a seed, for random ones) into a [`Destinations`] function:
//! the destination of each generated packet given its source. Patterns defined on bit addresses
//! (complement, bit reversal, shuffle, transpose) run on the power of two nearest the node count, as
//! seed 003 applies them (see `bit_permutation.rs`).

mod asymmetric;
mod bit_permutation;
mod hotspot;
mod matrix_transpose;
mod neighbour;
mod next_group;
mod permutation;
mod tornado;
mod uniform;

use crate::error::Result;
use crate::rng::Rng;
use crate::spec::Registry;

/// Every traffic pattern, by spec name. One line per pattern.
pub static REGISTRY: Registry<Box<dyn TrafficPattern>> = Registry {
    kind: "traffic",
    entries: &[
        uniform::ENTRY,
        hotspot::ENTRY,
        tornado::ENTRY,
        bit_permutation::COMPLEMENT,
        bit_permutation::REVERSAL,
        bit_permutation::SHUFFLE,
        bit_permutation::TRANSPOSE,
        matrix_transpose::ENTRY,
        neighbour::ENTRY,
        permutation::ENTRY,
        asymmetric::ENTRY,
        next_group::ENTRY,
    ],
};

/// Builds a pattern from its spec, e.g. `hotspot:hot=0.05,fraction=0.2`.
pub fn build(spec: &str) -> Result<Box<dyn TrafficPattern>> {
    REGISTRY.build_str(spec)
}

/// A destination given a source, drawing from the generator's RNG if the pattern is random.
type Pick = dyn Fn(u32, &mut Rng) -> u32 + Send + Sync;

/// A pattern bound to a node count: the destination of a packet generated at a source (may draw
/// from the generator's RNG), and how many nodes ever send. A source mapped to itself generates
/// nothing (a fixed point of a permutation, a node past a bit pattern's address space), so loads are
/// normalised per sending node: an idle node would otherwise read as traffic lost.
pub struct Destinations {
    pick: Box<Pick>,
    sources: u32,
}

impl Destinations {
    /// A random pattern on `nodes` nodes, every one of which sends.
    pub(crate) fn random(
        nodes: u32,
        pick: impl Fn(u32, &mut Rng) -> u32 + Send + Sync + 'static,
    ) -> Destinations {
        Destinations {
            pick: Box::new(pick),
            sources: nodes,
        }
    }

    /// The destination of a packet generated at `src`; `src` itself means it sends nothing.
    #[inline]
    pub fn of(&self, src: u32, rng: &mut Rng) -> u32 {
        (self.pick)(src, rng)
    }

    /// Nodes that send: the divisor of the offered, generated and accepted loads per node.
    pub fn sources(&self) -> u32 {
        self.sources
    }
}

impl std::fmt::Debug for Destinations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Destinations")
            .field("sources", &self.sources)
            .finish_non_exhaustive()
    }
}

/// A traffic pattern.
pub trait TrafficPattern: Send + Sync + std::fmt::Debug {
    /// Canonical spec string.
    fn spec(&self) -> String;
    /// The pattern on `nodes` nodes; `seed` fixes random tables (permutations). Errors when the pattern
    /// is undefined for that node count. A source mapped to itself generates nothing.
    fn bind(&self, nodes: u32, seed: u64) -> Result<Destinations>;
}

/// A table lookup, for deterministic patterns: the nodes not mapped to themselves send.
pub(crate) fn table(dest: Vec<u32>) -> Destinations {
    let sources = dest
        .iter()
        .enumerate()
        .filter(|&(s, &d)| s as u32 != d)
        .count() as u32;
    Destinations {
        pick: Box::new(move |src, _| dest[src as usize]),
        sources,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dests(spec: &str, nodes: u32) -> Vec<u32> {
        let f = build(spec).unwrap().bind(nodes, 1).unwrap();
        let mut rng = Rng::new(5);
        (0..nodes).map(|s| f.of(s, &mut rng)).collect()
    }

    #[test]
    fn deterministic_patterns_on_16_nodes() {
        assert_eq!(dests("bit-complement", 16)[..4], [15, 14, 13, 12]);
        // The low two bits only: within blocks of four.
        assert_eq!(
            dests("bit-complement:bits=2", 16)[..8],
            [3, 2, 1, 0, 7, 6, 5, 4]
        );
        assert_eq!(
            dests("bit-complement:bits=4", 16),
            dests("bit-complement", 16)
        );
        assert_eq!(
            build("bit-complement:bits=2").unwrap().spec(),
            "bit-complement:bits=2"
        );
        for bad in ["bit-complement:bits=0", "bit-complement:bits=x"] {
            assert!(build(bad).is_err(), "{bad}");
        }
        let too_many = build("bit-complement:bits=5").unwrap().bind(16, 1);
        assert!(too_many.is_err_and(|e| e.to_string().contains("4 address bits")));
        assert_eq!(dests("bit-reversal", 16)[..4], [0, 8, 4, 12]);
        // Its palindromes 0000, 0110, 1001 and 1111 send nothing; every node of a random pattern sends.
        let senders = |spec: &str| build(spec).unwrap().bind(16, 1).unwrap().sources();
        assert_eq!((senders("bit-reversal"), senders("uniform")), (12, 16));
        assert_eq!(dests("shuffle", 16)[..4], [0, 2, 4, 6]);
        assert_eq!(dests("shuffle", 16)[8], 1);
        assert_eq!(dests("transpose", 16)[..4], [0, 4, 8, 12]);
        assert_eq!(dests("matrix-transpose", 9), [0, 3, 6, 1, 4, 7, 2, 5, 8]);
        assert_eq!(dests("neighbour", 16)[15], 0);
        assert_eq!(dests("neighbour:k=4,n=2", 16)[..4], [5, 6, 7, 4]);
        // Tornado on an 8-ring: shift by ceil(8/2) - 1 = 3, so n(k/2 - 1) = 3 hops (seed 000).
        assert_eq!(dests("tornado", 8)[..3], [3, 4, 5]);
        assert_eq!(dests("tornado:k=4,n=2", 16)[0], 1 + 4);
    }

    #[test]
    fn random_patterns_stay_in_range_and_off_the_source() {
        for spec in [
            "uniform",
            "hotspot",
            "permutation",
            "asymmetric",
            "next-group:size=4",
        ] {
            let f = build(spec).unwrap().bind(16, 3).unwrap();
            let mut rng = Rng::new(9);
            for src in 0..16 {
                for _ in 0..50 {
                    let d = f.of(src, &mut rng);
                    assert!(d < 16, "{spec}");
                    if spec != "asymmetric" {
                        assert_ne!(d, src, "{spec}");
                    }
                }
            }
        }
        // A random permutation is a bijection.
        let mut p = dests("permutation", 64);
        p.sort_unstable();
        assert_eq!(p, (0..64).collect::<Vec<_>>());
    }

    #[test]
    fn hotspot_sends_its_fraction_to_the_hot_nodes() {
        let f = build("hotspot:hot=0.05,fraction=0.5")
            .unwrap()
            .bind(100, 1)
            .unwrap();
        let mut rng = Rng::new(2);
        let hot = (0..100_000)
            .filter(|_| f.of(50, &mut rng).is_multiple_of(20))
            .count();
        // 5 hot nodes (0, 20, 40, 60, 80): half the traffic, plus their uniform share of the other half.
        let expected = 100_000.0 * (0.5 + 0.5 * 5.0 / 99.0);
        assert!(
            (hot as f64 - expected).abs() < 0.02 * expected,
            "{hot} vs {expected}"
        );
    }

    /// Seed 003 §IV-A: 1,024 addresses for its 1,080- and its 960- to 1,000-terminal networks; the
    /// extra terminals idle, a missing terminal's pattern not given (idle sources map to themselves).
    #[test]
    fn bit_patterns_run_on_the_nearest_power_of_two() {
        // 1,080 nodes: 1,024 addresses; node 1,030 idle; 0 -> 1,023.
        let c = dests("bit-complement", 1080);
        assert_eq!((c[0], c[1023], c[1030]), (1023, 0, 1030));
        // 960, 972 and 1,000 nodes: 1,024 addresses; 0 -> 1,023 is missing, so node 0 idles.
        for nodes in [960, 972, 1000] {
            let c = dests("bit-complement", nodes);
            assert_eq!(c[0], 0, "{nodes}");
            assert_eq!(c[100], 923, "{nodes}");
            assert!(c.iter().all(|&d| d < nodes));
        }
        // 12 nodes: 16 addresses (12 > 8 x 1.414); 3 -> 12 is missing, 4 <-> 11.
        let c = dests("bit-complement", 12);
        assert_eq!((c[3], c[4], c[11]), (3, 11, 4));
        // 20 nodes: 16 addresses (20 < 16 x 1.414); 3 -> 12, 17 idle; reversal of 1 is 8.
        let c = dests("bit-complement", 20);
        assert_eq!((c[3], c[17]), (12, 17));
        assert_eq!(dests("bit-reversal", 20)[1], 8);
        // Transpose needs an even number of bits: 12 nodes run on 16 addresses, 24 on 32.
        assert_eq!(dests("transpose", 12)[1], 4);
        assert!(build("transpose").unwrap().bind(24, 1).is_err());
        assert!(build("shuffle").unwrap().bind(1, 1).is_err());
    }

    #[test]
    fn patterns_refuse_what_they_cannot_map() {
        assert!(
            build("transpose").unwrap().bind(8, 1).is_err(),
            "odd address bits"
        );
        assert!(build("matrix-transpose").unwrap().bind(10, 1).is_err());
        assert!(build("tornado:k=3,n=2").unwrap().bind(16, 1).is_err());
        assert!(build("next-group:size=5").unwrap().bind(16, 1).is_err());
    }
}
