//! Slim Fly (seed 003's reference [4], Besta and Hoefler): the McKay-Miller-Siran (MMS) diameter-2
//! graph built from a prime power q, with p terminals per router; minimal routing.
//!
//! q = 4w + delta with delta in {-1, 0, 1}; GF(q) with a primitive element xi. Routers are (s, x, y),
//! s in {0, 1}, x, y in GF(q): 2 q^2 routers of network radix k' = (3q - delta) / 2, so
//! q^2 (3q - delta) / 2 inter-router links (seed 003 Table 6: q = 9, p = 6: 972 terminals, 162 routers,
//! 1053 links). Links: (0,x,y)-(0,x,y') when y - y' is in X; (1,m,c)-(1,m,c') when c - c' is in X';
//! (0,x,y)-(1,m,c) when y = m x + c. Generator sets (exponents of xi):
//! delta = 1: X = even powers 0..q-3, X' = odd powers 1..q-2; delta = -1: X = even 0..2w-2 and odd
//! 2w-1..4w-3, X' = odd 1..2w-1 and even 2w..4w-2; delta = 0: X = even 0..q-2, X' = odd 1..q-1.
//! Prime powers are supported (GF(p^m) as polynomials modulo a primitive polynomial found by search).
//! Table 6 lists radix 20 for q = 9: that is k' = 13 plus the p = 7 of the full-bandwidth rule the text
//! starts from; with the p = 6 the table actually uses, the radix we count is 19.
//!
//! Routing: the direct link when the destination router is a neighbour, otherwise every common
//! neighbour (all minimal paths of the diameter-2 graph); the engine takes the one with most credits.
//! Deadlock freedom by hop-indexed virtual channels (see `table_routing.rs`): 2 virtual channels.

use super::table_routing::{SwitchGraph, wired_by_graph};
use super::{Packaging, RouteChoice, Topology, check_size};
use crate::error::{Error, Result};
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "slimfly",
    keys: &["q", "p"],
    help: "Slim Fly: MMS graph of prime power q (2q^2 routers), p terminals/router; minimal (seed 003)",
    build: |p| {
        let q = p.u32_in("q", None, 3, 512)?;
        let t = p.u32_in("p", None, 1, 4096)?;
        let spec = format!("slimfly:q={q},p={t}");
        check_size(&spec, 2 * u64::from(q) * u64::from(q) * u64::from(t))?;
        // 2q^2 routers of degree about 3q/2.
        super::table_routing::check_links(&spec, 3 * u64::from(q).pow(3) / 2)?;
        let field = Field::new(q).ok_or_else(|| {
            p.invalid(format!(
                "q = {q} is not a prime power; Slim Fly needs the field GF(q)"
            ))
        })?;
        Ok(Box::new(SlimFly::new(&spec, &field, t)?))
    },
};

/// GF(q), q = prime^m: elements are integers whose base-`prime` digits are polynomial coefficients.
#[derive(Debug)]
struct Field {
    q: u32,
    prime: u32,
    /// `exp[k]` = xi^k for k in 0..q-1.
    exp: Vec<u32>,
    /// `log[e]` for nonzero e.
    log: Vec<u32>,
}

impl Field {
    fn new(q: u32) -> Option<Field> {
        let prime = (2..=q).find(|d| q.is_multiple_of(*d))?;
        let mut m = 0;
        let mut rest = q;
        while rest > 1 {
            if !rest.is_multiple_of(prime) {
                return None;
            }
            rest /= prime;
            m += 1;
        }
        // Try every monic polynomial x^m + f(x): x must generate all q - 1 nonzero elements.
        for f in 0..q {
            let mul_x = |e: u32| {
                let mut digits: Vec<u32> = (0..m).map(|i| (e / prime.pow(i)) % prime).collect();
                let top = digits[m as usize - 1];
                digits.rotate_right(1);
                digits[0] = 0;
                for (i, d) in digits.iter_mut().enumerate() {
                    let fi = (f / prime.pow(i as u32)) % prime;
                    *d = (*d + (prime - fi) * top) % prime;
                }
                digits.iter().rev().fold(0, |acc, d| acc * prime + d)
            };
            let mut exp = Vec::with_capacity(q as usize - 1);
            let mut log = vec![u32::MAX; q as usize];
            let mut cur = 1;
            let mut ok = true;
            for k in 0..q - 1 {
                if cur == 0 || log[cur as usize] != u32::MAX {
                    ok = false;
                    break;
                }
                log[cur as usize] = k;
                exp.push(cur);
                cur = if m == 1 {
                    // x mod (x + f) = -f: the candidate primitive root.
                    (cur * ((prime - f % prime) % prime)) % prime
                } else {
                    mul_x(cur)
                };
            }
            if ok && cur == 1 {
                return Some(Field { q, prime, exp, log });
            }
        }
        None
    }

    fn add(&self, a: u32, b: u32) -> u32 {
        let (mut a, mut b, mut r, mut place) = (a, b, 0, 1);
        while a > 0 || b > 0 {
            r += ((a % self.prime + b % self.prime) % self.prime) * place;
            a /= self.prime;
            b /= self.prime;
            place *= self.prime;
        }
        r
    }

    fn neg(&self, a: u32) -> u32 {
        let (mut a, mut r, mut place) = (a, 0, 1);
        while a > 0 {
            r += ((self.prime - a % self.prime) % self.prime) * place;
            a /= self.prime;
            place *= self.prime;
        }
        r
    }

    fn mul(&self, a: u32, b: u32) -> u32 {
        if a == 0 || b == 0 {
            return 0;
        }
        let k = (self.log[a as usize] + self.log[b as usize]) % (self.q - 1);
        self.exp[k as usize]
    }

    /// Elements xi^e for the given exponents, as a membership table.
    fn set(&self, exps: impl Iterator<Item = u32>) -> Vec<bool> {
        let mut member = vec![false; self.q as usize];
        for e in exps {
            member[self.exp[(e % (self.q - 1)) as usize] as usize] = true;
        }
        member
    }
}

/// A Slim Fly network: router (s, x, y) has id `s q^2 + x q + y`.
#[derive(Debug, Clone)]
pub struct SlimFly {
    q: u32,
    p: u32,
    graph: SwitchGraph,
}

impl SlimFly {
    fn new(spec: &str, f: &Field, p: u32) -> Result<Self> {
        let q = f.q;
        let w = (q + 1) / 4;
        let (x, x2) = match q % 4 {
            1 => (f.set((0..=q - 3).step_by(2)), f.set((1..=q - 2).step_by(2))),
            3 => (
                f.set(
                    (0..=2 * w - 2)
                        .step_by(2)
                        .chain((2 * w - 1..=4 * w - 3).step_by(2)),
                ),
                f.set(
                    (1..=2 * w - 1)
                        .step_by(2)
                        .chain((2 * w..=4 * w - 2).step_by(2)),
                ),
            ),
            0 => (f.set((0..=q - 2).step_by(2)), f.set((1..=q - 1).step_by(2))),
            _ => {
                return Err(Error::Invalid(format!(
                    "topology `{spec}`: q = 2 has no MMS graph; use q >= 3"
                )));
            }
        };
        let id = |s: u32, a: u32, b: u32| s * q * q + a * q + b;
        let mut edges = Vec::new();
        for a in 0..q {
            for b in 0..q {
                for b2 in b + 1..q {
                    let diff = f.add(b, f.neg(b2)) as usize;
                    if x[diff] {
                        edges.push((id(0, a, b), id(0, a, b2)));
                    }
                    if x2[diff] {
                        edges.push((id(1, a, b), id(1, a, b2)));
                    }
                }
            }
        }
        for xx in 0..q {
            for m in 0..q {
                for c in 0..q {
                    let y = f.add(f.mul(m, xx), c);
                    edges.push((id(0, xx, y), id(1, m, c)));
                }
            }
        }
        let graph = SwitchGraph::new(spec, &vec![p; (2 * q * q) as usize], &edges)?;
        Ok(SlimFly { q, p, graph })
    }
}

impl Topology for SlimFly {
    fn spec(&self) -> String {
        format!("slimfly:q={},p={}", self.q, self.p)
    }
    wired_by_graph!();
    /// Slim Fly's own layout ([4] §V): rack x holds the two subgraphs (0, x, .) and (1, x, .), 2q
    /// routers; the q racks on a square grid.
    fn packaging(&self) -> Option<Packaging> {
        let q = self.q;
        let order = (0..q)
            .flat_map(|x| (0..2).flat_map(move |s| (0..q).map(move |y| s * q * q + x * q + y)))
            .collect();
        Some(Packaging::square(order, 2 * q))
    }
    /// The terminals of one router.
    fn locality_blocks(&self) -> Vec<u32> {
        vec![self.p]
    }
    fn virtual_channels(&self) -> u32 {
        2
    }
    fn route(&self, switch: u32, in_port: u32, in_vc: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let g = &self.graph;
        let Some(dsw) = g.target_or_eject(switch, dest, out) else {
            return;
        };
        if let Some(port) = g.port_to(switch, dsw) {
            out.push(g.hop_choice(switch, in_port, in_vc, port));
            return;
        }
        // Common neighbours: merge the two sorted adjacency lists.
        let (a, b) = (g.neighbours(switch), g.neighbours(dsw));
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    out.push(g.hop_choice(switch, in_port, in_vc, self.p + i as u32));
                    i += 1;
                    j += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, switch_distances};
    use super::Field;

    #[test]
    fn fields() {
        for q in [3, 4, 5, 7, 8, 9, 11, 13, 16, 25, 27, 49] {
            let f = Field::new(q).unwrap_or_else(|| panic!("GF({q})"));
            for a in 1..q {
                let inv = (1..q).find(|b| f.mul(a, *b) == 1);
                assert!(inv.is_some(), "GF({q}): {a} has no inverse");
                assert_eq!(f.add(a, f.neg(a)), 0);
            }
        }
        assert!(Field::new(6).is_none() && Field::new(12).is_none());
    }

    /// The MMS properties for every delta: regular of degree (3q - delta) / 2, diameter 2 (seed 003
    /// Table 6's q = 9, p = 6 counts are in `topology::tests::seed_003_table_6`).
    #[test]
    fn mms_properties() {
        for (q, delta) in [
            (3i64, -1i64),
            (4, 0),
            (5, 1),
            (7, -1),
            (8, 0),
            (9, 1),
            (11, -1),
        ] {
            let t = build(&format!("slimfly:q={q},p=1")).unwrap();
            let kp = ((3 * q - delta) / 2) as u32;
            for sw in 0..t.switches() {
                assert_eq!(t.ports(sw), kp + 1, "q={q} switch {sw}");
                let far = *switch_distances(t.as_ref(), sw).iter().max().unwrap();
                assert_eq!(far, 2, "q={q}: diameter");
            }
        }
        assert!(build("slimfly:q=6,p=1").is_err());
    }
}
