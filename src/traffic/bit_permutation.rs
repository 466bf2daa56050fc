//! Permutations of binary node addresses (seeds 000, 001, 003): `bit-complement` (seed 000's
//! complement, seed 001's bit-inversion), `bit-reversal`, `shuffle` (rotate left by one bit) and
//! `transpose` (swap the upper and lower halves of the address, seed 002's "shifted by n/2 bits").
//!
//! **Node counts that are not powers of two.** The patterns run on the binary addresses of the power
//! of two nearest the node count (by ratio), as seed 003 §IV-A applies them to its 1,080-, 1,000-,
//! 972- and 960-terminal networks: "we disabled the extra terminals, and the patterns for the missing
//! terminals were not given", with 1,024 addresses for all four. Nodes past the address space are idle;
//! a source whose destination address is past the last node sends nothing. Transpose needs an even
//! number of address bits.

use super::{Destinations, TrafficPattern, table};
use crate::error::{Error, Result};
use crate::spec::Entry;

/// Registry line for `bit-complement`. `bits=B` complements the low B address bits only, so each
/// node sends within its block of 2^B nodes: seed 001's "bit-inversion of the node address" read as
/// the address within a MiKANT group (`bits` = log2 of the group's nodes) rather than the whole
/// machine's; see `results/seed001-fig10-12/README.md`.
pub const COMPLEMENT: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "bit-complement",
    keys: &["bits"],
    help: "complement of every address bit (complement, bit-inversion); bits=B: of the low B bits only",
    build: |p| {
        let low_bits = match p.raw("bits") {
            None => None,
            Some(_) => Some(p.u32_in("bits", None, 1, 31)?),
        };
        Ok(Box::new(BitPermutation {
            low_bits,
            ..BitPermutation::new("bit-complement", |src, _| !src)
        }))
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

/// The address bits of the power of two nearest `nodes` by ratio (the lower one when `nodes` is at
/// most its square root of two times), the space a bit pattern runs on (see the module notes).
fn address_bits(pattern: &str, nodes: u32) -> Result<u32> {
    if nodes < 2 {
        return Err(Error::Invalid(format!(
            "traffic `{pattern}` needs at least 2 nodes; this network has {nodes}"
        )));
    }
    let low = 31 - nodes.leading_zeros();
    let n = u64::from(nodes);
    let lower = 1u64 << low;
    Ok(if n * n <= 2 * lower * lower {
        low
    } else {
        low + 1
    })
}

/// A permutation of address bits; `map(src, bits)` may set bits above `bits`, which are masked off.
/// With `low_bits`, only the low bits it names take the map's value; the others keep the source's.
#[derive(Debug, Clone, Copy)]
pub struct BitPermutation {
    name: &'static str,
    map: fn(u32, u32) -> u32,
    low_bits: Option<u32>,
}

impl BitPermutation {
    fn new(name: &'static str, map: fn(u32, u32) -> u32) -> Self {
        BitPermutation {
            name,
            map,
            low_bits: None,
        }
    }
}

impl TrafficPattern for BitPermutation {
    fn spec(&self) -> String {
        match self.low_bits {
            Some(b) => format!("{}:bits={b}", self.name),
            None => self.name.into(),
        }
    }
    fn bind(&self, nodes: u32, _seed: u64) -> Result<Destinations> {
        let bits = address_bits(self.name, nodes)?;
        let space = 1u64 << bits;
        let kept = match self.low_bits {
            Some(b) if b > bits => {
                return Err(Error::Invalid(format!(
                    "traffic `{}`: bits={b} is more than the {bits} address bits of {nodes} nodes",
                    self.spec()
                )));
            }
            // The bits above the low ones stay the source's.
            Some(b) => (space - 1) & !((1u64 << b) - 1),
            None => 0,
        };
        if self.name == "transpose" && bits % 2 == 1 {
            return Err(Error::Invalid(format!(
                "traffic `transpose` swaps address halves and needs an even number of address bits; {nodes} nodes run on {space} addresses ({bits} bits)"
            )));
        }
        // A node mapped to itself sends nothing: past the address space, or addressing a missing node.
        Ok(table(
            (0..nodes)
                .map(|src| {
                    let mapped = u64::from((self.map)(src, bits)) & (space - 1);
                    let dest = (mapped & !kept) | (u64::from(src) & kept);
                    if u64::from(src) >= space || dest >= u64::from(nodes) {
                        src
                    } else {
                        dest as u32
                    }
                })
                .collect(),
        ))
    }
}
