//! Permutations of binary node addresses (seeds 000, 001, 003): `bit-complement` (seed 000's
//! complement, seed 001's bit-inversion), `bit-reversal`, `shuffle` (rotate left by one bit) and
//! `transpose` (swap the upper and lower halves of the address, seed 002's "shifted by n/2 bits").
//! All need a power-of-two node count; transpose an even number of address bits.

use super::{Destinations, TrafficPattern, address_bits, table};
use crate::error::{Error, Result};
use crate::spec::Entry;

/// Registry line for `bit-complement`.
pub const COMPLEMENT: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "bit-complement",
    keys: &[],
    help: "complement of every address bit (complement, bit-inversion)",
    build: |_| {
        Ok(Box::new(BitPermutation::new("bit-complement", |src, _| {
            !src
        })))
    },
};

/// Registry line for `bit-reversal`.
pub const REVERSAL: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "bit-reversal",
    keys: &[],
    help: "address bits in reverse order",
    build: |_| {
        Ok(Box::new(BitPermutation::new(
            "bit-reversal",
            |src, bits| src.reverse_bits() >> (32 - bits),
        )))
    },
};

/// Registry line for `shuffle`.
pub const SHUFFLE: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "shuffle",
    keys: &[],
    help: "address bits rotated left by one (perfect shuffle)",
    build: |_| {
        Ok(Box::new(BitPermutation::new("shuffle", |src, bits| {
            (src << 1) | (src >> (bits - 1))
        })))
    },
};

/// Registry line for `transpose`.
pub const TRANSPOSE: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "transpose",
    keys: &[],
    help: "upper and lower halves of the address swapped (needs an even number of address bits)",
    build: |_| {
        Ok(Box::new(BitPermutation::new("transpose", |src, bits| {
            let half = bits / 2;
            (src >> half) | (src << half)
        })))
    },
};

/// A permutation of address bits; `map(src, bits)` may set bits above `bits`, which are masked off.
#[derive(Debug, Clone, Copy)]
pub struct BitPermutation {
    name: &'static str,
    map: fn(u32, u32) -> u32,
}

impl BitPermutation {
    fn new(name: &'static str, map: fn(u32, u32) -> u32) -> Self {
        BitPermutation { name, map }
    }
}

impl TrafficPattern for BitPermutation {
    fn spec(&self) -> String {
        self.name.into()
    }
    fn bind(&self, nodes: u32, _seed: u64) -> Result<Destinations> {
        let bits = address_bits(self.name, nodes)?;
        if self.name == "transpose" && bits % 2 == 1 {
            return Err(Error::Invalid(format!(
                "traffic `transpose` swaps address halves and needs an even number of address bits; {nodes} nodes have {bits}"
            )));
        }
        Ok(table(
            (0..nodes)
                .map(|src| (self.map)(src, bits) & (nodes - 1))
                .collect(),
        ))
    }
}
