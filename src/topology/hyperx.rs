//! HyperX (seed 003, section II-B): routers at the points of an L-dimensional integer grid, dimension
//! k = 1..L of width S_k, every pair of routers that differ in exactly one coordinate k joined by K_k
//! parallel links, T terminals per router.
//!
//! Eq. 1 gives the radix, `T + Σ_k K_k (S_k - 1)`; there are `P = Π_k S_k` routers (so `T P` terminals,
//! eq. 2) and `P Σ_k K_k (S_k - 1) / 2` inter-router links. Widths may differ between dimensions and
//! K_k may exceed 1 (which raises eq. 3's relative bisection bandwidth `min(K_k S_k) / 2T`); Table 6's
//! configuration is the equal-width, single-link `hyperx:l=2,s=10,t=10`.
//!
//! Spec: `hyperx:l=L,s=S,t=T` (L dimensions of width S) or `hyperx:s=S1xS2x..xSL,t=T` (per-dimension
//! widths; `l`, if given, must equal the list's length), plus an optional `k=K` (every dimension) or
//! `k=K1xK2x..xKL` (per dimension), default 1. The canonical spec is the short form
//! `l=L,s=S,t=T` when every width is equal and every K_k is 1, otherwise `s=S1x..xSL,t=T[,k=..]` with
//! `k` omitted when all 1 and written as one number when all equal (a one-dimensional HyperX with K > 1
//! keeps `l=1` in front, since a one-element width list is a plain number).
//!
//! Ports: `0..T` hold the terminals; then dimension d (0-based) owns the `K_d (S_d - 1)` ports from
//! `T + Σ_{e<d} K_e (S_e - 1)` on, in groups of K_d parallel ports per neighbour: group j faces the
//! router whose coordinate d is `j` (j below the router's own coordinate) or `j + 1` (j at or above it),
//! and parallel link c of a group pairs with link c of the neighbour's group facing back. With K = 1
//! this is the layout of the equal-width HyperX (`T + d (S - 1) + j`).
//!
//! Routing: dimension-order, the lowest differing dimension first, one hop per differing dimension, so
//! minimal; the K_d parallel ports towards the next router are all offered (the engine takes the one
//! with most credits), on virtual channel 0. Deadlock-free with one virtual channel: a packet only ever
//! moves from a link of dimension d to a link of a dimension d' > d (each dimension is corrected in a
//! single hop, whichever parallel link carries it), so channel dependencies follow the dimension order
//! and cannot form a cycle; hop-indexed virtual channels are not needed.

use super::bisection::Bisection;
use super::{Endpoint, MAX_NODES, Packaging, RouteChoice, Topology, check_size, checked_pow};
use crate::error::{Error, Result};
use crate::spec::{Entry, Params};

/// Most dimensions a HyperX may have.
const MAX_DIMS: u32 = 16;
/// Accepted ranges of a width S_k, of T and of K_k.
const S_RANGE: (u32, u32) = (2, 1 << 16);
const T_RANGE: (u32, u32) = (1, 4096);
const K_RANGE: (u32, u32) = (1, 4096);

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "hyperx",
    keys: &["l", "s", "t", "k"],
    help: "HyperX (seed 003 §II-B): l dimensions of s routers (or s=S1xS2x.. per-dimension widths), \
           all-to-all per dimension with k (or K1xK2x..) parallel links per router pair, default 1; \
           t terminals/router; radix t + sum k(s-1) (eq. 1); DOR",
    build: |p| {
        let l = p
            .raw("l")
            .map(|_| p.u32_in("l", None, 1, MAX_DIMS))
            .transpose()?;
        let widths = list(p, "s", S_RANGE)?;
        let t = p.u32_in("t", None, T_RANGE.0, T_RANGE.1)?;
        let s = if widths.len() == 1 {
            // One width: `l` dimensions of it (the original grammar, `l` required).
            let l = match l {
                Some(l) => l,
                None => p.u32_in("l", None, 1, MAX_DIMS)?,
            };
            checked_pow(widths[0], l, "hyperx")?;
            vec![widths[0]; l as usize]
        } else {
            if widths.len() > MAX_DIMS as usize {
                return Err(p.invalid(format!(
                    "s lists {} widths; at most {MAX_DIMS} dimensions are accepted",
                    widths.len()
                )));
            }
            if let Some(l) = l
                && l as usize != widths.len()
            {
                return Err(p.invalid(format!(
                    "l={l} but s lists {} widths (one per dimension)",
                    widths.len()
                )));
            }
            widths
        };
        let k = match p.raw("k") {
            None => vec![1; s.len()],
            Some(_) => {
                let k = list(p, "k", K_RANGE)?;
                if k.len() == 1 {
                    vec![k[0]; s.len()]
                } else if k.len() == s.len() {
                    k
                } else {
                    return Err(p.invalid(format!(
                        "k lists {} link counts but the HyperX has {} dimensions \
                         (give one k for all, or one per dimension)",
                        k.len(),
                        s.len()
                    )));
                }
            }
        };
        Ok(Box::new(HyperX::new(s, k, t)?))
    },
};

/// The value of `key` as one number or an `x`-separated list of numbers, each in `range`. A single
/// number goes through [`Params::u32_in`] (so it reads exactly as before lists were accepted).
fn list(p: &Params, key: &str, range: (u32, u32)) -> Result<Vec<u32>> {
    let text = p.raw(key).unwrap_or_default();
    if !text.contains('x') {
        return Ok(vec![p.u32_in(key, None, range.0, range.1)?]);
    }
    let bad = |problem: String| Error::BadValue {
        kind: "topology",
        name: p.name().to_string(),
        key: key.to_string(),
        problem: format!("= `{text}`: {problem}"),
    };
    text.split('x')
        .enumerate()
        .map(|(i, part)| {
            let v = part.trim().parse::<u32>().map_err(|_| {
                bad(format!(
                    "entry {} (`{part}`) is not a whole number; expected N or N1xN2x..",
                    i + 1
                ))
            })?;
            if v < range.0 || v > range.1 {
                return Err(bad(format!(
                    "entry {} = {v} is out of range {}..={}",
                    i + 1,
                    range.0,
                    range.1
                )));
            }
            Ok(v)
        })
        .collect()
}

/// `a1xa2x..` (a single entry is a plain number).
fn joined(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join("x")
}

/// A HyperX with widths S_d and K_d parallel links per router pair in dimension d (see the module doc
/// for the port layout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HyperX {
    /// Width S_d of each dimension.
    s: Vec<u32>,
    /// Parallel links K_d between two routers that differ only in dimension d.
    k: Vec<u32>,
    /// Terminals per router.
    t: u32,
    /// `Π_{e<d} S_e` for d in 0..=L (the last entry is the router count P).
    stride: Vec<u32>,
    /// First port of dimension d, `T + Σ_{e<d} K_e (S_e - 1)`, for d in 0..=L (the last is the radix).
    base: Vec<u32>,
}

impl HyperX {
    /// Validates sizes: widths `s` (at least 2 each), `k` parallel links per dimension (at least 1,
    /// as many entries as `s`), `t` terminals per router.
    pub fn new(s: Vec<u32>, k: Vec<u32>, t: u32) -> Result<Self> {
        assert_eq!(s.len(), k.len(), "one K per dimension");
        assert!(!s.is_empty() && s.iter().all(|&w| w >= 2) && k.iter().all(|&c| c >= 1) && t >= 1);
        let mut topo = HyperX {
            s,
            k,
            t,
            stride: Vec::new(),
            base: Vec::new(),
        };
        let spec = topo.spec();
        let limit = MAX_NODES * 64;
        let too_large = |what: String| {
            Error::Invalid(format!(
                "topology `{spec}`: {what} is too large for this simulator"
            ))
        };
        let mut stride = vec![1u64];
        let mut base = vec![u64::from(t)];
        for (&w, &c) in topo.s.iter().zip(&topo.k) {
            stride.push(stride[stride.len() - 1] * u64::from(w));
            base.push(base[base.len() - 1] + u64::from(c) * u64::from(w - 1));
            if stride[stride.len() - 1] > limit {
                return Err(too_large(format!("{} routers", joined(&topo.s))));
            }
        }
        let (routers, radix) = (stride[stride.len() - 1], base[base.len() - 1]);
        check_size(&spec, routers * u64::from(t))?;
        if routers * radix > limit {
            return Err(too_large(format!(
                "{} ports ({routers} routers of radix {radix})",
                routers * radix
            )));
        }
        topo.stride = stride.into_iter().map(|v| v as u32).collect();
        topo.base = base.into_iter().map(|v| v as u32).collect();
        Ok(topo)
    }

    fn dims(&self) -> usize {
        self.s.len()
    }
    fn coord(&self, r: u32, d: usize) -> u32 {
        (r / self.stride[d]) % self.s[d]
    }
    /// First of the K_d parallel ports of a router with coordinate `own` in dimension `d` towards
    /// coordinate `v != own`.
    fn group(&self, d: usize, own: u32, v: u32) -> u32 {
        self.base[d] + self.k[d] * if v < own { v } else { v - 1 }
    }
}

impl Topology for HyperX {
    fn spec(&self) -> String {
        let (l, t) = (self.dims(), self.t);
        let equal = |v: &[u32]| v.iter().all(|&x| x == v[0]);
        if equal(&self.s) && self.k.iter().all(|&c| c == 1) {
            return format!("hyperx:l={l},s={},t={t}", self.s[0]);
        }
        let mut spec = if l == 1 {
            format!("hyperx:l=1,s={},t={t}", self.s[0])
        } else {
            format!("hyperx:s={},t={t}", joined(&self.s))
        };
        if !self.k.iter().all(|&c| c == 1) {
            let k = if equal(&self.k) {
                self.k[0].to_string()
            } else {
                joined(&self.k)
            };
            spec += &format!(",k={k}");
        }
        spec
    }
    fn nodes(&self) -> u32 {
        self.stride[self.dims()] * self.t
    }
    fn switches(&self) -> u32 {
        self.stride[self.dims()]
    }
    /// HyperX's packaging (Ahn et al. [2] of seed 003): the S_1 routers of a line of the first
    /// dimension share a rack, the racks along the second dimension form a row, further dimensions
    /// add rows (routers in id order, the first dimension fastest).
    fn packaging(&self) -> Option<Packaging> {
        Some(Packaging {
            order: (0..self.switches()).collect(),
            per_rack: self.s[0],
            per_row: self.s.get(1).copied().unwrap_or(1),
        })
    }
    /// Equal even widths S and equal K in every dimension: K S^(L+1) / 4, halving one dimension cuts
    /// (S/2)^2 K links in each of its S^(L-1) lines (Ahn et al., "HyperX", SC 2009, §3; minimal by
    /// Lindsey's edge-isoperimetric theorem for products of cliques, 1964). Seed 003 Table 4's HyperX
    /// bisection ratio 0.278 at `hyperx:l=2,s=10,t=10` is this 250 over 900 links. Unequal widths or K
    /// are left to the partitioner.
    fn bisection(&self) -> Option<Bisection> {
        let (s, k) = (self.s[0], self.k[0]);
        let uniform = self.s.iter().all(|&x| x == s) && self.k.iter().all(|&x| x == k);
        (uniform && s % 2 == 0).then(|| {
            let lines = u64::from(self.switches() / s);
            Bisection::closed_form(lines * u64::from(k) * u64::from(s / 2).pow(2), self.nodes())
        })
    }
    fn ports(&self, _switch: u32) -> u32 {
        self.base[self.dims()]
    }
    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        if port < self.t {
            return Endpoint::Node(switch * self.t + port);
        }
        if port >= self.ports(switch) {
            return Endpoint::Unplugged;
        }
        // The dimension whose port range holds `port`: the last d with base[d] <= port.
        let d = self.base.partition_point(|&b| b <= port) - 1;
        let (j, c) = (
            (port - self.base[d]) / self.k[d],
            (port - self.base[d]) % self.k[d],
        );
        let own = self.coord(switch, d);
        let v = if j < own { j } else { j + 1 };
        let other = switch - own * self.stride[d] + v * self.stride[d];
        Endpoint::Switch {
            switch: other,
            port: self.group(d, v, own) + c,
        }
    }
    fn node_attachment(&self, node: u32) -> (u32, u32) {
        (node / self.t, node % self.t)
    }
    /// A router's terminals, then lines, planes... of the lowest dimensions (each line all-to-all):
    /// T times the prefix products of the widths.
    fn locality_blocks(&self) -> Vec<u32> {
        self.stride[..self.dims()]
            .iter()
            .map(|&st| self.t * st)
            .collect()
    }
    fn route_to(&self, switch: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let dsw = dest / self.t;
        match (0..self.dims()).find(|&d| self.coord(switch, d) != self.coord(dsw, d)) {
            None => out.push(RouteChoice::port(dest % self.t)),
            Some(d) => {
                let first = self.group(d, self.coord(switch, d), self.coord(dsw, d));
                out.extend((first..first + self.k[d]).map(RouteChoice::port));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Endpoint, build, check_wiring, structure, switch_distances, trace_route};

    /// Three dimensions of width 4, two terminals a router: radix 2 + 3 x 3, nine links a router
    /// (seed 003 Table 6's two-dimensional configuration is in `topology::tests::seed_003_table_6`).
    #[test]
    fn three_dimensions() {
        let s = structure(build("hyperx:l=3,s=4,t=2").unwrap().as_ref());
        assert_eq!((s.switches, s.radix, s.switch_links), (64, 11, 64 * 9 / 2));
    }

    /// Specs with unequal widths and parallel links, with their (S, K, T) for the closed forms.
    const GENERAL: [(&str, &[u64], &[u64], u64); 5] = [
        ("hyperx:s=3x4x5,t=2", &[3, 4, 5], &[1, 1, 1], 2),
        ("hyperx:s=4x4,t=4,k=2", &[4, 4], &[2, 2], 4),
        ("hyperx:s=2x3,k=1x3,t=1", &[2, 3], &[1, 3], 1),
        ("hyperx:s=4x6x8,t=2,k=1x2x1", &[4, 6, 8], &[1, 2, 1], 2),
        ("hyperx:l=1,s=5,t=3,k=2", &[5], &[2], 3),
    ];

    /// Eq. 1 radix `T + Σ K_k (S_k - 1)`, `P = Π S_k` routers, `T P` terminals (eq. 2) and
    /// `P Σ K_k (S_k - 1) / 2` inter-router links, counted from the wiring.
    #[test]
    fn unequal_widths_and_parallel_links_follow_eq_1() {
        for (spec, s, k, t) in GENERAL {
            let topo = build(spec).unwrap();
            let per_router: u64 = s.iter().zip(k).map(|(s, k)| k * (s - 1)).sum();
            let routers: u64 = s.iter().product();
            let got = structure(topo.as_ref());
            assert_eq!(
                (got.nodes, got.switches, got.radix, got.switch_links),
                (
                    t * routers,
                    routers,
                    t + per_router,
                    routers * per_router / 2
                ),
                "{spec}"
            );
            assert_eq!(got.unplugged_ports, 0, "{spec}");
            check_wiring(topo.as_ref()).unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
    }

    /// Router `r`'s coordinates, lowest dimension first.
    fn coords(r: u64, s: &[u64]) -> Vec<u64> {
        let mut r = r;
        s.iter()
            .map(|w| {
                let c = r % w;
                r /= w;
                c
            })
            .collect()
    }

    /// Each link joins routers differing in exactly one coordinate, and every such pair is joined by
    /// exactly K_k links (seed 003 §II-B, step 3).
    #[test]
    fn links_join_routers_differing_in_one_coordinate_k_times() {
        for (spec, s, k, _) in GENERAL {
            let topo = build(spec).unwrap();
            let n = u64::from(topo.switches());
            for a in 0..n {
                let mut count = vec![0u64; n as usize];
                for p in 0..topo.ports(a as u32) {
                    if let Endpoint::Switch { switch, .. } = topo.neighbour(a as u32, p) {
                        count[switch as usize] += 1;
                    }
                }
                let ca = coords(a, s);
                for b in 0..n {
                    let cb = coords(b, s);
                    let diff: Vec<usize> = (0..s.len()).filter(|&d| ca[d] != cb[d]).collect();
                    let want = if diff.len() == 1 { k[diff[0]] } else { 0 };
                    assert_eq!(count[b as usize], want, "{spec}: {a} -> {b}");
                }
            }
        }
    }

    /// Every route, whichever parallel port is taken at each hop, reaches its destination over one
    /// link per differing coordinate plus the two node links, which is the BFS distance; each hop
    /// offers exactly the K_d parallel ports to one router, on virtual channel 0.
    #[test]
    fn routes_are_dimension_order_and_minimal() {
        let mut specs: Vec<(&str, &[u64], &[u64], u64)> = GENERAL.to_vec();
        specs.push(("hyperx:l=2,s=4,t=2", &[4, 4], &[1, 1], 2));
        for (spec, s, k, t) in specs {
            let topo = build(spec).unwrap();
            let n = topo.nodes();
            let mut rot = 0usize;
            let mut choices = Vec::new();
            for src in 0..n {
                let (ssw, _) = topo.node_attachment(src);
                let dist = switch_distances(topo.as_ref(), ssw);
                for dst in 0..n {
                    if src == dst {
                        continue;
                    }
                    let dsw = u64::from(dst) / t;
                    let (cs, cd) = (coords(u64::from(ssw), s), coords(dsw, s));
                    let differing = (0..s.len()).filter(|&d| cs[d] != cd[d]).count() as u32;
                    assert_eq!(dist[dsw as usize], differing, "{spec}: {src}->{dst}");
                    for variant in 0..2 {
                        let got = trace_route(topo.as_ref(), src, dst, |c| {
                            rot += 1;
                            if variant == 0 { 0 } else { rot % c.len() }
                        })
                        .unwrap_or_else(|e| panic!("{spec}: {e}"));
                        assert_eq!(got, differing + 2, "{spec}: {src}->{dst} variant {variant}");
                    }
                    // First hop: the K parallel ports of the lowest differing dimension.
                    choices.clear();
                    topo.route(ssw, 0, 0, dst, &mut choices);
                    let want = (0..s.len()).find(|&d| cs[d] != cd[d]).map_or(1, |d| k[d]);
                    assert_eq!(choices.len() as u64, want, "{spec}: {src}->{dst}");
                    let mut next = choices.iter().map(|c| {
                        assert_eq!(c.vc, 0);
                        match topo.neighbour(ssw, c.port) {
                            Endpoint::Switch { switch, .. } => Some(switch),
                            _ => None,
                        }
                    });
                    let first = next.next().unwrap();
                    assert!(next.all(|x| x == first), "{spec}: {src}->{dst}");
                    if let Some(sw) = first {
                        let c1 = coords(u64::from(sw), s);
                        let d = (0..s.len()).find(|&d| cs[d] != cd[d]).unwrap();
                        assert_eq!(c1[d], cd[d], "{spec}: {src}->{dst} corrects dimension {d}");
                        assert!((0..s.len()).all(|e| e == d || c1[e] == cs[e]));
                    }
                }
            }
        }
    }

    /// `spec()` is canonical and rebuilds an identical topology.
    #[test]
    fn spec_round_trips() {
        for (given, canonical) in [
            ("hyperx:l=2,s=10,t=10", "hyperx:l=2,s=10,t=10"),
            ("hyperx:t=10,s=10,l=2,k=1", "hyperx:l=2,s=10,t=10"),
            ("hyperx:s=10x10,t=10", "hyperx:l=2,s=10,t=10"),
            ("hyperx:s=4x4,t=4,k=1x1", "hyperx:l=2,s=4,t=4"),
            ("hyperx:s=3x4x5,t=2", "hyperx:s=3x4x5,t=2"),
            ("hyperx:l=3,s=3x4x5,t=2", "hyperx:s=3x4x5,t=2"),
            ("hyperx:s=4x4,t=4,k=2", "hyperx:s=4x4,t=4,k=2"),
            ("hyperx:l=2,s=4,t=4,k=2x2", "hyperx:s=4x4,t=4,k=2"),
            ("hyperx:s=2x3,k=1x3,t=1", "hyperx:s=2x3,t=1,k=1x3"),
            ("hyperx:s=4x6x8,t=2,k=1x2x1", "hyperx:s=4x6x8,t=2,k=1x2x1"),
            ("hyperx:l=1,s=5,t=3,k=2", "hyperx:l=1,s=5,t=3,k=2"),
        ] {
            let a = build(given).unwrap();
            assert_eq!(a.spec(), canonical, "{given}");
            let b = build(&a.spec()).unwrap();
            assert_eq!(b.spec(), canonical, "{given}");
            assert_eq!(a.locality_blocks(), b.locality_blocks(), "{given}");
            assert_eq!(structure(a.as_ref()), structure(b.as_ref()), "{given}");
            for sw in 0..a.switches() {
                for p in 0..a.ports(sw) {
                    assert_eq!(a.neighbour(sw, p), b.neighbour(sw, p), "{given}");
                }
            }
        }
    }

    /// Terminals, then lines of dimension 1, then planes of dimensions 1-2...
    #[test]
    fn locality_blocks_are_prefix_products() {
        let topo = build("hyperx:s=3x4x5,t=2").unwrap();
        assert_eq!(topo.locality_blocks(), vec![2, 6, 24]);
        let topo = build("hyperx:l=2,s=10,t=10").unwrap();
        assert_eq!(topo.locality_blocks(), vec![10, 100]);
    }

    #[test]
    fn bad_specs_are_rejected_with_reasons() {
        for (bad, why) in [
            ("hyperx:s=4x0,t=1", "entry 2 = 0 is out of range"),
            ("hyperx:s=4x1,t=1", "entry 2 = 1 is out of range"),
            ("hyperx:s=4xx4,t=1", "is not a whole number"),
            ("hyperx:s=4x,t=1", "is not a whole number"),
            ("hyperx:l=3,s=4x4,t=1", "l=3 but s lists 2 widths"),
            (
                "hyperx:s=4x4x4,t=1,k=1x2",
                "k lists 2 link counts but the HyperX has 3",
            ),
            ("hyperx:s=4x4,t=1,k=0", "out of range"),
            ("hyperx:s=4x4,t=1,k=2x0", "entry 2 = 0 is out of range"),
            ("hyperx:s=4,t=1", "`l` is required"),
            ("hyperx:l=2,s=1,t=1", "out of range"),
            ("hyperx:s=4x4,t=0", "out of range"),
            ("hyperx:s=4x4", "`t` is required"),
            ("hyperx:s=2048x1024x1024,t=1", "too large"),
            ("hyperx:s=1024x1024,t=32", "nodes"),
            ("hyperx:s=4096x4096,t=1,k=64", "too large"),
            (
                "hyperx:s=2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2,t=1",
                "at most 16 dimensions",
            ),
        ] {
            let e = build(bad).map(|t| t.spec()).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
