//! Floor layouts: switches packed into cabinets, cabinets on a grid, and the length of every
//! switch-to-switch cable, for `topology --json` and the cost models that price cables by length.
//!
//! A layout fills cabinets of [`FloorLayout::per_cabinet`] switches in the topology's layout order
//! ([`Topology::layout_order`]: switch ids unless the family groups switches that are wired together,
//! as DSN-F's super-nodes), puts cabinet `i` at row `i / per_row`, place `i mod per_row`, and measures
//! a cable between two cabinets as the Manhattan distance between them plus an overhead; a cable inside
//! one cabinet has a fixed length. Node cables are left out (their length does not depend on the
//! topology, seed 002 §IV-C).
//!
//! Two presets:
//! - `seed002` (seed 002 §IV-C, Fig. 7): 16 switches per cabinet; for `c` cabinets, `x = ceil(sqrt c)`
//!   rows of `y = ceil(c / x)` cabinets; cabinets 0.6 m wide and 2.1 m deep (aisle included); 2 m
//!   for a cable inside a cabinet; a cable between cabinets is their Manhattan distance plus 2 m of
//!   wiring at each of its two cabinets (the paper's "2m wiring overhead ... at each cabinet": we read
//!   it as per end, 4 m per cable).
//! - `seed003` (seed 003 §IV-A, the generic layout its cost model uses for families whose own layout
//!   the seed does not give): one switch per rack, `ceil(sqrt c)` racks per row, 1 m apart either
//!   way, 2 m of overhead per cable between racks and 2 m inside one.

use crate::topology::Topology;
use serde::Serialize;

/// Switches in cabinets on a grid, and the cable lengths that follow (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloorLayout {
    /// Preset name, reported with the lengths.
    pub name: &'static str,
    /// Switches per cabinet.
    pub per_cabinet: u32,
    /// Metres between neighbouring cabinets of a row.
    pub width_m: f64,
    /// Metres between neighbouring rows (cabinet depth, aisle included).
    pub depth_m: f64,
    /// Length of a cable inside one cabinet.
    pub intra_m: f64,
    /// Length added to the Manhattan distance of a cable between two cabinets (both ends).
    pub overhead_m: f64,
    /// How many cabinets stand in a row.
    pub rows: RowRule,
    /// Follow the family's own packaging ([`Topology::packaging`]) when it has one, instead of
    /// `per_cabinet` and `rows`.
    pub family_racks: bool,
    /// Metres between neighbouring slots of a cabinet, added per slot of height difference between a
    /// cable's ends (0: a cabinet's height is not measured).
    pub slot_m: f64,
}

/// How `c` cabinets are arranged in rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowRule {
    /// `ceil(sqrt c)` rows of `ceil(c / rows)` cabinets (seed 002 §IV-C).
    SqrtRows,
    /// Rows of `ceil(sqrt c)` cabinets.
    SqrtPerRow,
}

/// Seed 002 §IV-C's machine room.
pub const SEED002: FloorLayout = FloorLayout {
    name: "seed002",
    per_cabinet: 16,
    width_m: 0.6,
    depth_m: 2.1,
    intra_m: 2.0,
    overhead_m: 4.0,
    rows: RowRule::SqrtRows,
    family_racks: false,
    slot_m: 0.0,
};

/// Seed 003 §IV-A's racks: each family's own packaging (one switch per rack for families without
/// one), 1 m apart, cables measured on all three axes with 1U (0.04445 m) between slots.
pub const SEED003: FloorLayout = FloorLayout {
    name: "seed003",
    per_cabinet: 1,
    width_m: 1.0,
    depth_m: 1.0,
    intra_m: 2.0,
    overhead_m: 2.0,
    rows: RowRule::SqrtPerRow,
    family_racks: true,
    slot_m: 0.04445,
};

/// The switch-to-switch cables of a laid-out network, as `topology --json` reports them (`cables`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CableReport {
    /// The layout's preset name.
    pub layout: &'static str,
    /// Cabinets, rows and cabinets per row.
    pub cabinets: u32,
    pub rows: u32,
    pub per_row: u32,
    /// Switches per cabinet.
    pub per_cabinet: u32,
    /// Switch-to-switch cables, those inside one cabinet, and those between cabinets.
    pub cables: u64,
    pub intra_cabinet: u64,
    pub inter_cabinet: u64,
    /// Sum and mean of their lengths in metres.
    pub total_m: f64,
    pub mean_m: f64,
}

/// Where each switch of a topology stands: its cabinet and the cabinet's grid position.
#[derive(Debug, Clone)]
pub struct Placed {
    layout: FloorLayout,
    cabinet: Vec<u32>,
    /// Each switch's slot in its cabinet, from the bottom.
    slot: Vec<u32>,
    cabinets: u32,
    per_cabinet: u32,
    per_row: u32,
}

impl FloorLayout {
    /// Places the switches of `topo` in cabinets.
    pub fn place(&self, topo: &dyn Topology) -> Placed {
        let own = self.family_racks.then(|| topo.packaging()).flatten();
        let (order, per_cabinet, own_rows) = match own {
            Some(p) => (p.order, p.per_rack.max(1), Some(p.per_row.max(1))),
            None => (topo.layout_order(), self.per_cabinet, None),
        };
        let mut cabinet = vec![0; topo.switches() as usize];
        let mut slot = vec![0; topo.switches() as usize];
        for (i, &sw) in order.iter().enumerate() {
            cabinet[sw as usize] = i as u32 / per_cabinet;
            slot[sw as usize] = i as u32 % per_cabinet;
        }
        let cabinets = topo.switches().div_ceil(per_cabinet).max(1);
        let root = (f64::from(cabinets).sqrt().ceil() as u32).max(1);
        let per_row = own_rows.unwrap_or(match self.rows {
            RowRule::SqrtRows => cabinets.div_ceil(root),
            RowRule::SqrtPerRow => root,
        });
        Placed {
            layout: *self,
            cabinet,
            slot,
            cabinets,
            per_cabinet,
            per_row,
        }
    }
}

impl Placed {
    /// Length in metres of a cable between switches `a` and `b`.
    pub fn cable_m(&self, a: u32, b: u32) -> f64 {
        let (ca, cb) = (self.cabinet[a as usize], self.cabinet[b as usize]);
        let height = f64::from(self.slot[a as usize].abs_diff(self.slot[b as usize]));
        let height_m = height * self.layout.slot_m;
        if ca == cb {
            return self.layout.intra_m + height_m;
        }
        let (ra, pa) = (ca / self.per_row, ca % self.per_row);
        let (rb, pb) = (cb / self.per_row, cb % self.per_row);
        f64::from(pa.abs_diff(pb)) * self.layout.width_m
            + f64::from(ra.abs_diff(rb)) * self.layout.depth_m
            + height_m
            + self.layout.overhead_m
    }

    /// Counts and lengths of the cables `links` (switch pairs, each cable once).
    pub fn report(&self, links: &[(u32, u32)]) -> CableReport {
        let intra = links
            .iter()
            .filter(|&&(a, b)| self.cabinet[a as usize] == self.cabinet[b as usize])
            .count() as u64;
        // A fold from +0.0: `sum` of no cables is -0.0, printed as "-0.0 m".
        let total_m = links
            .iter()
            .map(|&(a, b)| self.cable_m(a, b))
            .fold(0.0, |total, m| total + m);
        CableReport {
            layout: self.layout.name,
            cabinets: self.cabinets,
            rows: self.cabinets.div_ceil(self.per_row),
            per_row: self.per_row,
            per_cabinet: self.per_cabinet,
            cables: links.len() as u64,
            intra_cabinet: intra,
            inter_cabinet: links.len() as u64 - intra,
            total_m,
            mean_m: total_m / links.len().max(1) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed002_cables(topo: &dyn Topology) -> CableReport {
        SEED002
            .place(topo)
            .report(&super::super::complete(topo).switch_links)
    }

    /// A 32-switch ring laid out by hand: switches 0-15 in cabinet 0 and 16-31 in cabinet 1; two
    /// cabinets make ceil(sqrt 2) = 2 rows of one, so the cabinets stand one row (2.1 m) apart. The
    /// ring has 32 cables: 30 inside a cabinet (2 m each) and two between them, (15,16) and (31,0),
    /// each 2.1 m + 2 x 2 m = 6.1 m: 72.2 m in all, 2.25625 m on average.
    #[test]
    fn a_hand_laid_ring_of_two_cabinets() {
        let ring = crate::topology::build("torus:k=32,n=1").unwrap();
        let c = seed002_cables(ring.as_ref());
        assert_eq!(
            (c.cabinets, c.rows, c.per_row, c.cables),
            (2, 2, 1, 32),
            "{c:?}"
        );
        assert_eq!((c.intra_cabinet, c.inter_cabinet), (30, 2));
        assert!((c.total_m - 72.2).abs() < 1e-9, "{}", c.total_m);
        assert!((c.mean_m - 2.25625).abs() < 1e-9, "{}", c.mean_m);
        // No switch-to-switch cable: 0 m, not the "-0.0 m" an empty float sum prints.
        let one = crate::topology::build("fat-tree:k=4,n=1").unwrap();
        let c = seed002_cables(one.as_ref());
        assert_eq!(c.cables, 0);
        assert!(c.total_m.is_sign_positive() && c.mean_m.is_sign_positive());
    }

    /// Seed 002's grid for 5 cabinets: ceil(sqrt 5) = 3 rows of ceil(5/3) = 2; cabinet 4 is row 2,
    /// place 0, so a cable from cabinet 1 (row 0, place 1) runs 0.6 + 2 x 2.1 + 4 = 8.8 m.
    #[test]
    fn cabinets_fill_rows_of_the_seed_002_grid() {
        let line = crate::topology::build("torus:k=80,n=1").unwrap();
        let placed = SEED002.place(line.as_ref());
        assert_eq!((placed.cabinets, placed.per_row), (5, 2));
        assert!((placed.cable_m(16, 64) - 8.8).abs() < 1e-9);
        assert!((placed.cable_m(16, 31) - 2.0).abs() < 1e-9);
    }

    /// Seed 003 Fig. 7 on `flex:x=6,y=6,z=3`: rack (z, x) holds y = 0..5 bottom up, row z holds
    /// racks x = 0..5. Router 0 = (0,0,0) to 66 = (0,5,1): the next row, same place, five slots up:
    /// 1 + 5 x 0.04445 + 2 = 3.22225 m. Router 72 = (0,0,2) to 3 = (3,0,0): two rows and three places
    /// apart, same slot: 2 + 3 + 2 = 7 m.
    #[test]
    fn flex_follows_fig_7() {
        let flex = crate::topology::build("flex:x=6,y=6,z=3,p=10").unwrap();
        let placed = SEED003.place(flex.as_ref());
        assert_eq!(
            (placed.cabinets, placed.per_cabinet, placed.per_row),
            (18, 6, 6)
        );
        assert!((placed.cable_m(0, 66) - 3.22225).abs() < 1e-9);
        assert!((placed.cable_m(72, 3) - 7.0).abs() < 1e-9);
        let c = placed.report(&super::super::complete(flex.as_ref()).switch_links);
        assert_eq!((c.rows, c.intra_cabinet, c.cables), (3, 0, 1080));
    }

    /// The other families' own racks keep their local links inside: a dragonfly group's a(a-1)/2
    /// (33 x 28 = 924 for p=4, a=8, h=4); a HyperX line's S(S-1)/2 (10 x 45 = 450); a Slim Fly rack's
    /// two subgraphs of q(q-1)/4 links each plus the q links (0,x,.)-(1,x,.) between them (9 x 45 =
    /// 405 for q = 9). Each packaging places every switch once.
    #[test]
    fn families_keep_their_local_links_in_a_rack() {
        for (spec, racks, inside) in [
            ("dragonfly:p=4,a=8,h=4", 33, 924),
            ("hyperx:l=2,s=10,t=10", 10, 450),
            ("slimfly:q=9,p=6", 9, 405),
        ] {
            let t = crate::topology::build(spec).unwrap();
            let mut order = t.packaging().unwrap().order;
            order.sort_unstable();
            assert_eq!(order, (0..t.switches()).collect::<Vec<_>>(), "{spec}");
            let c = SEED003
                .place(t.as_ref())
                .report(&super::super::complete(t.as_ref()).switch_links);
            assert_eq!((c.cabinets, c.intra_cabinet), (racks, inside), "{spec}");
        }
    }

    /// DSN-F groups a super-node's layers: with p = 4 and 2 layers (n = 128, N = 64), a cabinet of 16
    /// holds two super-nodes' two layers, so every Local_Link and Layer_Link is inside a cabinet.
    #[test]
    fn dsnf_keeps_a_super_nodes_layers_in_one_cabinet() {
        let dsnf = crate::topology::build("dsnf:n=128").unwrap();
        let grouped = seed002_cables(dsnf.as_ref());
        let links = super::super::complete(dsnf.as_ref()).switch_links;
        // Local ring links (4 per super-node and layer, 16 x 2 x 4 = 128) and Layer_Links (64) are
        // all inside; the rest (Succ and Shortcuts between super-nodes) may leave.
        assert!(grouped.intra_cabinet >= 192, "{grouped:?}");
        assert_eq!(grouped.cables, links.len() as u64);
    }
}
