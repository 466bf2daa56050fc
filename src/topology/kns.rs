//! The k_h-ary n_h-direct s_h-indirect family (KNS) of seed 000 §3-4: k^n routers in an n-dimensional
//! array with p nodes each and ONE link per dimension; the k routers of each line of a dimension are
//! joined by an indirect subnet: a crossbar (`sub=xbar`, s = 1), a k_i-ary s-tree (`sub=ft`) or a RUFT
//! (`sub=ruft`), with k = k_i^s.
//!
//! Counts follow Table 3: N/p routers, (N/p)·s·n/k_i subnet switches, k^n·n + (s-1)·N·n/p + N links
//! (Table 4: 256-ary 2-direct 1-indirect has 196,608 links, 512 switches and 65,536 routers). Routers
//! are switch ids 0..k^n (`routers` in `topology --json`; `switches` counts the subnet switches only, as
//! Table 4 does). Router r serves nodes r·p..r·p+p on ports 0..p and reaches dimension d's subnet on
//! port p + d; in that subnet it is leaf c = its coordinate d.
//!
//! Routing (§4): Hybrid-DOR in routers (the lowest dimension whose coordinate differs from the
//! destination router's, through that dimension's link; eject when equal); in crossbars the output is
//! the destination coordinate x_d; in fat-tree subnets §4.2's destination-based deterministic routing
//! (stage e: up through port k_i + t_e while the switch's subtree does not cover the destination leaf
//! t = x_d, then down through port t_e; wiring as our k-ary n-tree, `thin_tree.rs`); in RUFT subnets
//! "link = t_e" (`ruft.rs`). Deadlock freedom as §4.2 argues: dimensions are crossed in increasing
//! order, and within a dimension each subnet is an up*/down* tree or a unidirectional MIN whose channel
//! dependency graph has no cycle, so the whole graph is acyclic without virtual channels. RUFT return
//! links into routers are `s` fly times long (§5.1); each router's injection and return links into one
//! RUFT count as its one link of that dimension (Table 3).

use super::ruft::{Next, Stages};
use super::{Endpoint, OneWay, RouteChoice, Topology, check_size, checked_pow};
use crate::error::Result;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "kns",
    keys: &["k", "n", "s", "sub", "p"],
    help: "k_h-ary n_h-direct s_h-indirect: k routers per dimension, n dimensions, subnets of s stages \
           (sub=xbar|ft|ruft), p nodes per router (seed 000 §3)",
    build: |p| {
        let k = p.u32_in("k", None, 2, 1 << 16)?;
        let n = p.u32_in("n", None, 1, 24)?;
        let sub = p.choice("sub", "xbar", &["xbar", "ft", "ruft"])?;
        let s = p.u32_in("s", Some(1), 1, 24)?;
        let c = p.u32_in("p", Some(1), 1, 1024)?;
        let sub = match sub {
            "xbar" if s != 1 => {
                return Err(p.invalid(format!(
                    "a crossbar subnet has one stage, not s={s}; use sub=ft or sub=ruft for s > 1"
                )));
            }
            "xbar" => Sub::Xbar,
            "ft" => Sub::Ft,
            _ => Sub::Ruft,
        };
        let ki = (1..=k).find(|ki| {
            u64::from(*ki)
                .checked_pow(s)
                .is_none_or(|v| v >= u64::from(k))
        });
        let ki = match ki {
            Some(ki) if u64::from(ki).pow(s) == u64::from(k) => ki,
            _ => {
                return Err(p.invalid(format!(
                    "k={k} routers per dimension is not the s={s}-th power of a subnet switch arity \
                     (k_h = k_i^s_h): {s}-stage subnets connect 2^{s}, 3^{s}, 4^{s}... routers"
                )));
            }
        };
        Ok(Box::new(Kns::new(k, n, s, ki, sub, c)?))
    },
};

/// The indirect subnet joining the routers of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sub {
    /// One k-port crossbar.
    Xbar,
    /// A bidirectional k_i-ary s-tree.
    Ft,
    /// A RUFT with s stages of k_i-port unidirectional switches.
    Ruft,
}

/// A KNS network.
#[derive(Debug, Clone)]
pub struct Kns {
    k: u32,
    n: u32,
    s: u32,
    sub: Sub,
    p: u32,
    /// Subnet stage arithmetic (arity k_i, s stages).
    st: Stages,
    /// `k^d` for d in 0..=n.
    pow: Vec<u32>,
    /// Routers.
    routers: u32,
    /// Subnet switches per stage (k / k_i, or 1 for a crossbar).
    per_stage: u32,
}

/// A located subnet switch.
struct SubSwitch {
    dim: u32,
    line: u32,
    stage: u32,
    index: u32,
}

impl Kns {
    /// Validates sizes; `ki` is the subnet switch arity with `ki^s == k`.
    pub fn new(k: u32, n: u32, s: u32, ki: u32, sub: Sub, p: u32) -> Result<Self> {
        let spec = Self::spec_of(k, n, s, sub, p);
        let routers = checked_pow(k, n, &spec)?;
        check_size(&spec, routers.saturating_mul(u64::from(p)))?;
        let per_stage = k / ki;
        let per_min = u64::from(s * per_stage);
        check_size(
            &spec,
            routers + routers / u64::from(k) * u64::from(n) * per_min,
        )?;
        Ok(Kns {
            k,
            n,
            s,
            sub,
            p,
            st: Stages::new(ki, s),
            pow: (0..=n).map(|d| k.pow(d)).collect(),
            routers: routers as u32,
            per_stage,
        })
    }

    fn spec_of(k: u32, n: u32, s: u32, sub: Sub, p: u32) -> String {
        let sub = match sub {
            Sub::Xbar => "xbar",
            Sub::Ft => "ft",
            Sub::Ruft => "ruft",
        };
        format!("kns:k={k},n={n},s={s},sub={sub},p={p}")
    }

    #[inline]
    fn coord(&self, r: u32, d: u32) -> u32 {
        (r / self.pow[d as usize]) % self.k
    }

    /// The line (subnet position) of router `r` in dimension `d`.
    fn line(&self, r: u32, d: u32) -> u32 {
        (r / self.pow[d as usize + 1]) * self.pow[d as usize] + r % self.pow[d as usize]
    }

    /// The router at leaf `c` of line `q` of dimension `d`.
    fn router(&self, d: u32, q: u32, c: u32) -> u32 {
        let pd = self.pow[d as usize];
        (q / pd) * pd * self.k + c * pd + q % pd
    }

    fn per_min(&self) -> u32 {
        self.s * self.per_stage
    }

    fn locate(&self, switch: u32) -> SubSwitch {
        let i = switch - self.routers;
        let (m, j) = (i / self.per_min(), i % self.per_min());
        let lines = self.pow[self.n as usize - 1];
        SubSwitch {
            dim: m / lines,
            line: m % lines,
            stage: j / self.per_stage,
            index: j % self.per_stage,
        }
    }

    fn id(&self, dim: u32, line: u32, stage: u32, index: u32) -> u32 {
        let m = dim * self.pow[self.n as usize - 1] + line;
        self.routers + m * self.per_min() + stage * self.per_stage + index
    }

    /// Where router `r`'s dimension-`d` link enters the subnet: (switch, port).
    fn entry(&self, r: u32, d: u32) -> (u32, u32) {
        let (q, c) = (self.line(r, d), self.coord(r, d));
        match self.sub {
            Sub::Xbar => (self.id(d, q, 0, 0), c),
            Sub::Ft | Sub::Ruft => {
                let (index, port) = self.st.inject(c);
                (self.id(d, q, 0, index), port)
            }
        }
    }

    /// k_i^e.
    fn ki_pow(&self, e: u32) -> u32 {
        self.st.k.pow(e)
    }
}

impl Topology for Kns {
    fn spec(&self) -> String {
        Self::spec_of(self.k, self.n, self.s, self.sub, self.p)
    }
    fn nodes(&self) -> u32 {
        self.routers * self.p
    }
    fn switches(&self) -> u32 {
        self.routers + self.routers / self.k * self.n * self.per_min()
    }
    fn routers(&self) -> Option<u32> {
        Some(self.routers)
    }
    /// n - 1: a router has one link per dimension, whatever the subnets (seed 000 §5.4).
    fn link_faults_tolerated(&self) -> Option<u64> {
        Some(u64::from(self.n) - 1)
    }
    fn ports(&self, switch: u32) -> u32 {
        if switch < self.routers {
            return self.p + self.n;
        }
        match self.sub {
            Sub::Xbar => self.k,
            Sub::Ft => 2 * self.st.k,
            Sub::Ruft => self.st.k,
        }
    }
    fn one_way(&self, switch: u32, _port: u32) -> OneWay {
        match self.sub {
            Sub::Ruft if switch < self.routers => OneWay::Link,
            Sub::Ruft if self.locate(switch).stage + 1 == self.s => OneWay::Return,
            Sub::Ruft => OneWay::Link,
            _ => OneWay::No,
        }
    }
    fn link_length(&self, switch: u32, _port: u32) -> u32 {
        if self.sub == Sub::Ruft
            && switch >= self.routers
            && self.locate(switch).stage + 1 == self.s
        {
            self.s
        } else {
            1
        }
    }

    fn neighbour(&self, switch: u32, port: u32) -> Endpoint {
        if switch < self.routers {
            if port < self.p {
                return Endpoint::Node(switch * self.p + port);
            }
            let (sw, pt) = self.entry(switch, port - self.p);
            return Endpoint::Switch {
                switch: sw,
                port: pt,
            };
        }
        let at = self.locate(switch);
        let to_router = |c: u32| Endpoint::Switch {
            switch: self.router(at.dim, at.line, c),
            port: self.p + at.dim,
        };
        match self.sub {
            Sub::Xbar => to_router(port),
            Sub::Ruft => match self.st.next(at.stage, at.index, port) {
                Next::Switch { stage, index, port } => Endpoint::Switch {
                    switch: self.id(at.dim, at.line, stage, index),
                    port,
                },
                Next::Leaf(c) => to_router(c),
            },
            Sub::Ft => {
                let (ki, e) = (self.st.k, at.stage);
                let pe = self.ki_pow(e);
                let (sub, rep) = (at.index / pe, at.index % pe);
                if port < ki {
                    if e == 0 {
                        return to_router(sub * ki + port);
                    }
                    let below = pe / ki;
                    Endpoint::Switch {
                        switch: self.id(
                            at.dim,
                            at.line,
                            e - 1,
                            (sub * ki + port) * below + rep % below,
                        ),
                        port: ki + rep / below,
                    }
                } else if e + 1 == self.s {
                    Endpoint::Unplugged
                } else {
                    Endpoint::Switch {
                        switch: self.id(
                            at.dim,
                            at.line,
                            e + 1,
                            (sub / ki) * pe * ki + rep + (port - ki) * pe,
                        ),
                        port: sub % ki,
                    }
                }
            }
        }
    }

    fn node_attachment(&self, node: u32) -> (u32, u32) {
        (node / self.p, node % self.p)
    }
    /// A router's p nodes; within a line of dimension 0, the aligned groups of k_i^e routers (the
    /// leaves under one stage e - 1 switch of a fat-tree subnet, which it joins without climbing
    /// higher; in a RUFT subnet, groups whose paths share no link with another group's, see `ruft.rs`);
    /// then the line, the plane of dimensions 0 and 1...: consecutive ids, as routers are numbered
    /// dimension 0 first, and Hybrid-DOR between two routers of a block stays inside it.
    fn locality_blocks(&self) -> Vec<u32> {
        let line = (0..self.s).map(|e| self.p * self.ki_pow(e));
        line.chain(self.pow[1..self.n as usize].iter().map(|&r| self.p * r))
            .collect()
    }

    #[inline]
    fn route_to(&self, switch: u32, dest: u32, out: &mut Vec<RouteChoice>) {
        let target = dest / self.p;
        if switch < self.routers {
            // Hybrid-DOR (§4.1): the lowest differing dimension, through its one link.
            let port = (0..self.n)
                .find(|&d| self.coord(switch, d) != self.coord(target, d))
                .map_or(dest % self.p, |d| self.p + d);
            out.push(RouteChoice::port(port));
            return;
        }
        let at = self.locate(switch);
        let t = self.coord(target, at.dim);
        let port = match self.sub {
            Sub::Xbar => t,
            Sub::Ruft => self.st.route(at.stage, t),
            Sub::Ft => {
                let ki = self.st.k;
                let pe = self.ki_pow(at.stage);
                let digit = (t / pe) % ki;
                if t / (pe * ki) == at.index / pe {
                    digit
                } else {
                    ki + digit
                }
            }
        };
        out.push(RouteChoice::port(port));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, structure};

    /// Seed 000 Table 4 (64K nodes): links, switches and routers of every row. The FT 16-ary 4-tree row
    /// prints 262,114 links, a misprint for Table 3's N(n_i - 1) + N = 262,144.
    #[test]
    fn table_4_rows() {
        for (spec, links, switches, routers) in [
            ("kns:k=256,n=2,s=1,sub=xbar,p=1", 196_608, 512, Some(65_536)),
            (
                "kns:k=256,n=2,s=2,sub=ruft,p=1",
                327_680,
                16_384,
                Some(65_536),
            ),
            (
                "kns:k=256,n=2,s=2,sub=ft,p=1",
                327_680,
                16_384,
                Some(65_536),
            ),
            (
                "kns:k=256,n=2,s=4,sub=ruft,p=1",
                589_824,
                131_072,
                Some(65_536),
            ),
            (
                "kns:k=256,n=2,s=4,sub=ft,p=1",
                589_824,
                131_072,
                Some(65_536),
            ),
            (
                "kns:k=256,n=2,s=8,sub=ruft,p=1",
                1_114_112,
                524_288,
                Some(65_536),
            ),
            (
                "kns:k=256,n=2,s=8,sub=ft,p=1",
                1_114_112,
                524_288,
                Some(65_536),
            ),
            ("flattened-butterfly:k=16,n=3,p=16", 157_696, 4_096, None),
            ("flattened-butterfly:k=4,n=7,p=4", 237_568, 16_384, None),
            ("flattened-butterfly:k=2,n=15,p=2", 311_296, 32_768, None),
            ("fat-tree:k=16,n=4", 262_144, 16_384, None),
            ("fat-tree:k=4,n=8", 524_288, 131_072, None),
            ("fat-tree:k=2,n=16", 1_048_576, 524_288, None),
            ("torus:k=256,n=2", 196_608, 65_536, None),
            ("mesh:k=256,n=2", 196_096, 65_536, None),
        ] {
            let s = structure(build(spec).unwrap().as_ref());
            assert_eq!(
                (s.nodes, s.links, s.switches, s.routers),
                (65_536, links, switches, routers),
                "{spec}"
            );
        }
    }

    /// Table 3's closed forms on small instances of every subnet, with concentration.
    #[test]
    fn table_3_closed_forms() {
        for (k, n, s, ki, sub, p) in [
            (4u64, 2u32, 1u64, 4u64, "xbar", 2u64),
            (8, 2, 3, 2, "ft", 1),
            (8, 2, 3, 2, "ruft", 3),
            (9, 3, 2, 3, "ft", 2),
            (16, 2, 2, 4, "ruft", 1),
        ] {
            let spec = format!("kns:k={k},n={n},s={s},sub={sub},p={p}");
            let st = structure(build(&spec).unwrap().as_ref());
            let r = k.pow(n);
            let (nodes, n) = (r * p, u64::from(n));
            assert_eq!(st.routers, Some(r), "{spec}");
            assert_eq!(st.switches, r * s * n / ki, "{spec}");
            assert_eq!(st.links, r * n + (s - 1) * nodes * n / p + nodes, "{spec}");
        }
    }

    #[test]
    fn bad_parameters_are_clear_errors() {
        for (bad, says) in [
            ("kns:k=6,n=2,s=2,sub=ft", "power"),
            ("kns:k=8,n=2,s=2,sub=ruft", "power"),
            ("kns:k=16,n=2,s=2,sub=xbar", "crossbar"),
            ("kns:k=16,n=2,s=2,sub=mesh", "xbar, ft, ruft"),
            ("kns:k=16,n=0", "n"),
            ("kns:k=64,n=4,p=2", "nodes"),
        ] {
            let e = build(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
