//! `tornado`: in every dimension of a k-ary n-cube view of the nodes, the destination is ceil(k/2) - 1
//! positions ahead, so on a torus each packet travels n(k/2 - 1) hops (seed 000 §5.2, after Dally and
//! Towles; Booksim's definition). `k` and `n` default to a ring of all nodes (n = 1).

use super::{Destinations, TrafficPattern, table};
use crate::error::Result;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn TrafficPattern>> = Entry {
    name: "tornado",
    keys: &["k", "n"],
    help: "each coordinate of a k-ary n-cube view shifted by ceil(k/2)-1 (default: one ring of all nodes)",
    build: |p| {
        let (k, n) = cube_params(p)?;
        Ok(Box::new(Tornado { k, n }))
    },
};

/// Reads optional `k` and `n` (0 = derive from the node count).
pub(crate) fn cube_params(p: &crate::spec::Params) -> Result<(u32, u32)> {
    Ok((
        p.u32_in("k", Some(0), 2, 1 << 24)?,
        p.u32_in("n", Some(1), 1, 24)?,
    ))
}

/// Resolves `k` for `nodes` and checks k^n = nodes.
pub(crate) fn cube_shape(pattern: &str, k: u32, n: u32, nodes: u32) -> Result<u32> {
    let k = if k == 0 {
        (1..=nodes)
            .find(|k| u64::from(*k).pow(n) >= u64::from(nodes))
            .unwrap_or(nodes)
    } else {
        k
    };
    if u64::from(k).pow(n) != u64::from(nodes) {
        return Err(crate::error::Error::Invalid(format!(
            "traffic `{pattern}` views the nodes as a {k}-ary {n}-cube, which has {} nodes, not {nodes}",
            u64::from(k).pow(n)
        )));
    }
    Ok(k)
}

/// Adds `shift` to every base-k digit of `src` (mod k).
pub(crate) fn shift_digits(src: u32, k: u32, n: u32, shift: u32) -> u32 {
    let (mut rest, mut place, mut dest) = (src, 1, 0);
    for _ in 0..n {
        dest += ((rest % k + shift) % k) * place;
        rest /= k;
        place *= k;
    }
    dest
}

/// Tornado traffic.
#[derive(Debug, Clone, Copy)]
pub struct Tornado {
    k: u32,
    n: u32,
}

impl TrafficPattern for Tornado {
    fn spec(&self) -> String {
        match self.k {
            0 => "tornado".into(),
            k => format!("tornado:k={k},n={}", self.n),
        }
    }
    fn bind(&self, nodes: u32, _seed: u64) -> Result<Destinations> {
        let k = cube_shape("tornado", self.k, self.n, nodes)?;
        let shift = k.div_ceil(2) - 1;
        Ok(table(
            (0..nodes)
                .map(|s| shift_digits(s, k, self.n, shift))
                .collect(),
        ))
    }
}
