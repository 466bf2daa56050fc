//! One rank's communicators and groups, as far as the reader must know them to turn DUMPI's creation
//! calls into the MPI layer's [`Call::CommSplit`], [`Call::CommDup`] and [`Call::CommCreate`].
//!
//! The MPI layer resolves communicators across ranks; a rank file only says what this rank passed.
//! Groups are kept as positions in the communicator they came from (MPI_Comm_group), transformed by
//! MPI_Group_incl/excl/range_incl/range_excl/union/intersection/difference; MPI_Comm_create takes them
//! as ranks of its parent, so the group must come from that same communicator. Sizes and this rank's
//! position are known for MPI_COMM_WORLD and MPI_COMM_SELF and learnt from MPI_Comm_size,
//! MPI_Comm_rank, the vector collectives and Cartesian creation; MPI_Group_excl on a whole
//! communicator and MPI_Cart_sub need them.
//!
//! Handles: DUMPI numbers communicators per rank, 2 = MPI_COMM_WORLD, 3 = MPI_COMM_SELF, then 4, 5...
//! in order of creation (a freed handle may come back); 0 (error) and 1 (MPI_COMM_NULL) are never
//! bound. [`comm`] maps them to the MPI layer's handles.

use crate::mpi::{Call, CommHandle, SELF, WORLD};
use ahash::AHashMap;

/// The MPI layer's handle for DUMPI communicator `h`: world and self to [`WORLD`] and [`SELF`], the
/// error and null handles to values no call binds, the rest unchanged.
pub(crate) fn comm(h: i64) -> CommHandle {
    match h {
        2 => WORLD,
        3 => SELF,
        0 | 1 => NULL_BASE + h as u32,
        h => h as u32 & 0xFFFF,
    }
}

/// Where DUMPI's error (0) and null (1) communicators go: above every 16-bit handle.
const NULL_BASE: u32 = 0x1_0000;

/// DUMPI's MPI_GROUP_EMPTY.
const GROUP_EMPTY: i64 = 2;

/// A group: positions in communicator `base`, or all of it in order.
#[derive(Debug, Clone)]
struct Group {
    base: CommHandle,
    members: Option<Vec<u32>>,
}

/// One rank's view of its communicators and groups.
#[derive(Debug)]
pub(crate) struct Comms {
    world: u32,
    size: AHashMap<CommHandle, u32>,
    me: AHashMap<CommHandle, u32>,
    cart: AHashMap<CommHandle, Vec<u32>>,
    groups: AHashMap<i64, Group>,
}

type Msg = String;

impl Comms {
    /// World rank `rank` of `world` ranks, before its first call.
    pub(crate) fn new(rank: u32, world: u32) -> Comms {
        let mut c = Comms {
            world,
            size: AHashMap::new(),
            me: AHashMap::new(),
            cart: AHashMap::new(),
            groups: AHashMap::new(),
        };
        c.size.insert(WORLD, world);
        c.size.insert(SELF, 1);
        c.me.insert(WORLD, rank);
        c.me.insert(SELF, 0);
        c.groups.insert(
            GROUP_EMPTY,
            Group {
                base: u32::MAX,
                members: Some(Vec::new()),
            },
        );
        c
    }

    /// Records the size of `comm` that a call reported.
    pub(crate) fn note_size(&mut self, comm: CommHandle, size: i64) {
        if let Ok(s) = u32::try_from(size) {
            self.size.insert(comm, s);
        }
    }

    /// Records this rank's rank in `comm` that a call reported.
    pub(crate) fn note_rank(&mut self, comm: CommHandle, rank: i64) {
        if let Ok(r) = u32::try_from(rank) {
            self.me.insert(comm, r);
        }
    }

    fn members(&self, g: &Group) -> Result<Vec<u32>, Msg> {
        match &g.members {
            Some(m) => Ok(m.clone()),
            None => match self.size.get(&g.base) {
                Some(&n) => Ok((0..n).collect()),
                None => Err(format!(
                    "the size of communicator {} is unknown here (the rank never called \
                     MPI_Comm_size on it), so the group cannot be listed",
                    g.base
                )),
            },
        }
    }

    fn group(&self, h: i64) -> Result<&Group, Msg> {
        self.groups
            .get(&h)
            .ok_or_else(|| format!("group {h} was never created by a call this reader follows"))
    }

    /// MPI_Comm_group: `group` is all of `comm`.
    pub(crate) fn comm_group(&mut self, comm: CommHandle, group: i64) {
        self.groups.insert(
            group,
            Group {
                base: comm,
                members: None,
            },
        );
    }

    /// MPI_Group_free.
    pub(crate) fn group_free(&mut self, group: i64) {
        self.groups.remove(&group);
    }

    fn pick(&self, group: i64, positions: &[i64]) -> Result<(CommHandle, Vec<u32>), Msg> {
        let g = self.group(group)?;
        let all = self.members(g).ok();
        let mut out = Vec::with_capacity(positions.len().min(self.world as usize));
        for &p in positions {
            let i = usize::try_from(p).map_err(|_| format!("group rank {p} is negative"))?;
            let m = match &all {
                Some(all) => *all.get(i).ok_or_else(|| {
                    format!("group rank {p} is outside the group of {}", all.len())
                })?,
                None => u32::try_from(p).map_err(|_| format!("group rank {p} is too large"))?,
            };
            out.push(m);
        }
        Ok((g.base, out))
    }

    /// MPI_Group_incl: the listed positions of `group`, in order.
    pub(crate) fn group_incl(&mut self, group: i64, ranks: &[i64], new: i64) -> Result<(), Msg> {
        if ranks.len() > self.world as usize {
            return Err(format!(
                "a group of {} ranks in a world of {}",
                ranks.len(),
                self.world
            ));
        }
        let (base, members) = self.pick(group, ranks)?;
        self.groups.insert(
            new,
            Group {
                base,
                members: Some(members),
            },
        );
        Ok(())
    }

    /// MPI_Group_excl: `group` without the listed positions.
    pub(crate) fn group_excl(&mut self, group: i64, ranks: &[i64], new: i64) -> Result<(), Msg> {
        let g = self.group(group)?.clone();
        let all = self.members(&g)?;
        let mut keep = vec![true; all.len()];
        for &p in ranks {
            match usize::try_from(p).ok().and_then(|i| keep.get_mut(i)) {
                Some(k) => *k = false,
                None => {
                    return Err(format!(
                        "group rank {p} is outside the group of {}",
                        all.len()
                    ));
                }
            }
        }
        let members = all
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(m, _)| m);
        self.groups.insert(
            new,
            Group {
                base: g.base,
                members: Some(members.collect()),
            },
        );
        Ok(())
    }

    /// MPI_Group_range_incl / range_excl: `ranges` is (first, last, stride) triples of positions.
    pub(crate) fn group_range(
        &mut self,
        group: i64,
        ranges: &[i64],
        new: i64,
        exclude: bool,
    ) -> Result<(), Msg> {
        let mut positions = Vec::new();
        for t in ranges.chunks(3) {
            let &[first, last, stride] = t else {
                return Err("a group range is not (first, last, stride)".into());
            };
            if stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last) {
                return Err(format!("invalid group range ({first}, {last}, {stride})"));
            }
            let mut p = first;
            while (stride > 0 && p <= last) || (stride < 0 && p >= last) {
                if positions.len() >= self.world as usize {
                    return Err(format!(
                        "group ranges list more ranks than the world's {}",
                        self.world
                    ));
                }
                positions.push(p);
                p = p.checked_add(stride).ok_or("group range overflows")?;
            }
        }
        if exclude {
            self.group_excl(group, &positions, new)
        } else {
            self.group_incl(group, &positions, new)
        }
    }

    /// MPI_Group_union (`op` 0), intersection (1) or difference (2) of two groups of one communicator.
    pub(crate) fn group_set(&mut self, a: i64, b: i64, new: i64, op: u8) -> Result<(), Msg> {
        let (ga, gb) = (self.group(a)?.clone(), self.group(b)?.clone());
        let (ma, mb) = (self.members(&ga)?, self.members(&gb)?);
        if ga.base != gb.base && !ma.is_empty() && !mb.is_empty() {
            return Err(format!(
                "groups of different communicators ({} and {}) cannot be combined here",
                ga.base, gb.base
            ));
        }
        let base = if ma.is_empty() { gb.base } else { ga.base };
        let members: Vec<u32> = match op {
            0 => ma
                .iter()
                .chain(mb.iter().filter(|m| !ma.contains(m)))
                .copied()
                .collect(),
            1 => ma.into_iter().filter(|m| mb.contains(m)).collect(),
            _ => ma.into_iter().filter(|m| !mb.contains(m)).collect(),
        };
        self.groups.insert(
            new,
            Group {
                base,
                members: Some(members),
            },
        );
        Ok(())
    }

    /// MPI_Comm_create of `group` over `parent`.
    pub(crate) fn comm_create(
        &mut self,
        parent: CommHandle,
        group: i64,
        new: CommHandle,
    ) -> Result<Call, Msg> {
        let g = self.group(group)?.clone();
        let members = match (&g.members, self.size.get(&g.base)) {
            (None, None) if g.base == parent => return Ok(self.comm_dup(parent, new)),
            _ => self.members(&g)?,
        };
        if g.base != parent && !members.is_empty() {
            return Err(format!(
                "the group comes from communicator {} but the call is on communicator {parent}; \
                 the reader passes groups as ranks of the communicator they came from",
                g.base
            ));
        }
        if let Some(me) = self.me.get(&parent).copied()
            && let Some(i) = members.iter().position(|&m| m == me)
        {
            self.me.insert(new, i as u32);
        }
        self.size.insert(new, members.len() as u32);
        Ok(Call::CommCreate {
            parent,
            group: members,
            new,
        })
    }

    /// MPI_Comm_dup: the same group, topology included.
    pub(crate) fn comm_dup(&mut self, parent: CommHandle, new: CommHandle) -> Call {
        self.inherit(parent, new);
        if let Some(d) = self.cart.get(&parent).cloned() {
            self.cart.insert(new, d);
        }
        Call::CommDup { parent, new }
    }

    fn inherit(&mut self, parent: CommHandle, new: CommHandle) {
        if let Some(&s) = self.size.get(&parent) {
            self.size.insert(new, s);
        }
        if let Some(&m) = self.me.get(&parent) {
            self.me.insert(new, m);
        }
    }

    /// MPI_Comm_split; a negative colour is MPI_UNDEFINED.
    pub(crate) fn comm_split(
        &mut self,
        parent: CommHandle,
        color: i64,
        key: i64,
        new: CommHandle,
    ) -> Call {
        self.forget(new);
        Call::CommSplit {
            parent,
            color: u32::try_from(color).ok(),
            key,
            new,
        }
    }

    /// MPI_Cart_create / MPI_Graph_create without reordering: the first `size` ranks of `parent` in
    /// order (a split with one colour keeps the parent's order); a rank the call gave MPI_COMM_NULL
    /// passes MPI_UNDEFINED. `dims` is the grid of a Cartesian communicator.
    pub(crate) fn topology(
        &mut self,
        parent: CommHandle,
        new: CommHandle,
        size: Option<u64>,
        dims: Option<Vec<u32>>,
    ) -> Call {
        let null = new >= NULL_BASE;
        self.forget(new);
        if !null {
            self.inherit(parent, new);
            if let Some(s) = size.and_then(|s| u32::try_from(s).ok()) {
                self.size.insert(new, s);
            }
            if let Some(d) = dims {
                self.cart.insert(new, d);
            }
        }
        Call::CommSplit {
            parent,
            color: (!null).then_some(0),
            key: 0,
            new,
        }
    }

    /// MPI_Cart_sub: the sub-grid through this rank along the `remain` dimensions, ordered as in the
    /// grid (row-major), which needs the grid and this rank's place in it.
    pub(crate) fn cart_sub(
        &mut self,
        parent: CommHandle,
        remain: &[i64],
        new: CommHandle,
    ) -> Result<Call, Msg> {
        let dims = self.cart.get(&parent).cloned().ok_or_else(|| {
            format!("communicator {parent} has no Cartesian layout this reader saw created")
        })?;
        let me = *self.me.get(&parent).ok_or_else(|| {
            format!("this rank's position in communicator {parent} is unknown here")
        })?;
        if remain.len() != dims.len() {
            return Err(format!(
                "{} remain flags for a grid of {} dimensions",
                remain.len(),
                dims.len()
            ));
        }
        let mut coords = vec![0u32; dims.len()];
        let mut r = me;
        for (c, &d) in coords.iter_mut().zip(&dims).rev() {
            if d == 0 {
                return Err("a Cartesian dimension of size 0".into());
            }
            *c = r % d;
            r /= d;
        }
        let (mut color, mut key, mut sub) = (0u64, 0u64, Vec::new());
        for ((&c, &d), &keep) in coords.iter().zip(&dims).zip(remain) {
            let (c, d) = (u64::from(c), u64::from(d));
            if keep != 0 {
                key = key.saturating_mul(d).saturating_add(c);
                sub.push(d as u32);
            } else {
                color = color.saturating_mul(d).saturating_add(c);
            }
        }
        self.forget(new);
        self.me.insert(new, key as u32);
        self.size.insert(
            new,
            sub.iter().map(|&d| u64::from(d)).product::<u64>() as u32,
        );
        self.cart.insert(new, sub);
        Ok(Call::CommSplit {
            parent,
            color: Some(color.min(u64::from(u32::MAX)) as u32),
            key: key as i64,
            new,
        })
    }

    /// MPI_Comm_free: the handle may come back for another communicator.
    pub(crate) fn comm_free(&mut self, comm: CommHandle) -> Call {
        self.forget(comm);
        Call::CommFree { comm }
    }

    fn forget(&mut self, comm: CommHandle) {
        self.size.remove(&comm);
        self.me.remove(&comm);
        self.cart.remove(&comm);
    }
}
