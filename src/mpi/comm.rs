//! Communicators: ordered groups of world ranks, and their creation as MPI defines it.
//!
//! Every communicator gets a global index (0 is MPI_COMM_WORLD); its members are world ranks in the order
//! of the communicator's ranks. Ranks name communicators by rank-local handles ([`super::CommHandle`]),
//! bound to a global index and the rank's position in it ([`Bound`]).
//!
//! Creation calls are collective over their parent: the k-th creation call a rank makes on communicator
//! P is the same MPI call as every other member's k-th creation call on P. [`resolve`] pairs them up
//! across ranks (in any order the trace lists ranks), checks that they agree, and gives every call the
//! communicator it created:
//! - `split`: the members with one colour, ordered by (key, rank in the parent), as MPI_Comm_split;
//!   MPI_UNDEFINED gives no communicator.
//! - `dup`: the parent's group in a new communicator (a new matching context).
//! - `create`: the group the callers pass (the lowest parent rank's list; every member must pass the
//!   same); ranks outside it get no communicator.

use super::call::{Call, CommHandle, SELF, WORLD};
use super::lower::Pos;
use ahash::AHashMap;

/// A rank's view of a communicator: its global index and the rank's position in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// Global index of the communicator.
    pub comm: u32,
    /// The rank's rank in it.
    pub me: u32,
}

/// Every communicator of a run: world, the ones defined globally, and the ones created by calls.
#[derive(Debug)]
pub struct Comms {
    world: u32,
    /// Members of communicator i + 1 (world, index 0, is implicit: rank r is world rank r).
    groups: Vec<Vec<u32>>,
}

impl Comms {
    /// Only MPI_COMM_WORLD of `world` ranks.
    pub fn new(world: u32) -> Comms {
        Comms {
            world,
            groups: Vec::new(),
        }
    }

    /// Adds a communicator of `members` (world ranks in communicator order); returns its global index.
    pub fn add(&mut self, members: Vec<u32>) -> u32 {
        self.groups.push(members);
        self.groups.len() as u32
    }

    /// Number of ranks of communicator `comm`.
    pub fn size(&self, comm: u32) -> u32 {
        match comm {
            0 => self.world,
            c => self.groups[c as usize - 1].len() as u32,
        }
    }

    /// World rank of rank `rank` of communicator `comm` (`rank` below its size).
    pub fn world_rank(&self, comm: u32, rank: u32) -> u32 {
        match comm {
            0 => rank,
            c => self.groups[c as usize - 1][rank as usize],
        }
    }

    /// The members of `comm` as world ranks, in communicator order (`None` for world: the identity).
    pub fn members(&self, comm: u32) -> Option<&[u32]> {
        (comm > 0).then(|| self.groups[comm as usize - 1].as_slice())
    }

    /// Number of communicators, world included.
    pub fn count(&self) -> u32 {
        self.groups.len() as u32 + 1
    }
}

/// A rank's handles: world and self predefined, then whatever definitions and calls bind. World is
/// implicit (no entry until rebound), so a rank that never names another communicator allocates
/// nothing here: traces may have many idle ranks.
#[derive(Debug, Clone, Default)]
pub struct Handles {
    /// Bindings; `None` marks world unbound.
    map: AHashMap<CommHandle, Option<Bound>>,
}

impl Handles {
    /// The handles of world rank `rank` before its first call: world only (globally defined
    /// communicators are bound with [`Handles::set`], MPI_COMM_SELF on first use).
    pub fn new(_rank: u32) -> Handles {
        Handles::default()
    }

    /// The communicator `handle` names for world rank `rank`, creating its MPI_COMM_SELF on first
    /// use.
    #[inline]
    pub fn get(&mut self, handle: CommHandle, rank: u32, comms: &mut Comms) -> Option<Bound> {
        // Most calls name world on a rank that has bound nothing: no lookup.
        if handle == WORLD && self.map.is_empty() {
            return Some(Bound { comm: 0, me: rank });
        }
        if let Some(&b) = self.map.get(&handle) {
            return b;
        }
        if handle == WORLD {
            return Some(Bound { comm: 0, me: rank });
        }
        (handle == SELF).then(|| {
            let b = Bound {
                comm: comms.add(vec![rank]),
                me: 0,
            };
            self.map.insert(SELF, Some(b));
            b
        })
    }

    /// Binds `handle` (or unbinds it: MPI_COMM_NULL, a freed handle).
    pub fn set(&mut self, handle: CommHandle, bound: Option<Bound>) {
        match bound {
            Some(b) => self.map.insert(handle, Some(b)),
            None if handle == WORLD => self.map.insert(handle, None),
            None => self.map.remove(&handle),
        };
    }
}

/// One rank's creation call waiting for the other members of its parent.
#[derive(Debug, Clone)]
struct Waiting {
    rank: u32,
    pos: Pos,
    what: Creation,
}

#[derive(Debug, Clone, PartialEq)]
enum Creation {
    Split { color: Option<u32>, key: i64 },
    Dup,
    Create { group: Vec<u32> },
}

impl Creation {
    fn name(&self) -> &'static str {
        match self {
            Creation::Split { .. } => "comm_split",
            Creation::Dup => "comm_dup",
            Creation::Create { .. } => "comm_create",
        }
    }
}

/// What went wrong while pairing creation calls: the position and the message.
pub type CreationError = (Pos, String);

/// Pairs up every rank's creation calls (see the module doc). `handles[r]` are rank r's handles before
/// its first call (world and globally defined communicators). Returns, per rank, what each of its
/// creation calls gave, in program order (`None`: MPI_COMM_NULL).
pub fn resolve(
    calls: &[Vec<(Call, Pos)>],
    handles: &[Handles],
    comms: &mut Comms,
) -> Result<Vec<Vec<Option<Bound>>>, CreationError> {
    let n = calls.len();
    let mut handles = handles.to_vec();
    let mut cursor = vec![0usize; n];
    let mut waiting_on: Vec<Option<(u32, u64)>> = vec![None; n];
    // Creation calls so far per (rank, communicator): one map, not one per rank (idle ranks are many).
    let mut seq: AHashMap<(u32, u32), u64> = AHashMap::new();
    let mut pending: AHashMap<(u32, u64), Vec<Option<Waiting>>> = AHashMap::new();
    let mut created: Vec<Vec<Option<Bound>>> = vec![Vec::new(); n];
    let mut ready: Vec<u32> = (0..n as u32).collect();
    while let Some(r) = ready.pop() {
        let ru = r as usize;
        if waiting_on[ru].is_some() {
            continue;
        }
        while let Some((call, pos)) = calls[ru].get(cursor[ru]) {
            let (parent, what) = match call {
                Call::CommFree { comm } => {
                    handles[ru].set(*comm, None);
                    cursor[ru] += 1;
                    continue;
                }
                Call::CommSplit {
                    parent, color, key, ..
                } => (
                    *parent,
                    Creation::Split {
                        color: *color,
                        key: *key,
                    },
                ),
                Call::CommDup { parent, .. } => (*parent, Creation::Dup),
                Call::CommCreate { parent, group, .. } => (
                    *parent,
                    Creation::Create {
                        group: group.clone(),
                    },
                ),
                _ => {
                    cursor[ru] += 1;
                    continue;
                }
            };
            let Some(b) = handles[ru].get(parent, r, comms) else {
                return Err((
                    *pos,
                    format!(
                        "rank {r} calls {} on communicator {parent}, which it does not have \
                         (never created, freed, or not a member)",
                        what.name()
                    ),
                ));
            };
            let k = seq.entry((r, b.comm)).or_insert(0);
            let key = (b.comm, *k);
            *k += 1;
            let size = comms.size(b.comm) as usize;
            let slot = pending.entry(key).or_insert_with(|| vec![None; size]);
            slot[b.me as usize] = Some(Waiting {
                rank: r,
                pos: *pos,
                what,
            });
            waiting_on[ru] = Some(key);
            if slot.iter().any(Option::is_none) {
                break;
            }
            let members = pending.remove(&key).expect("just filled");
            let members: Vec<Waiting> = members.into_iter().map(|m| m.expect("full")).collect();
            let results = create(&members, b.comm, comms)?;
            for (m, bound) in members.iter().zip(results) {
                let mu = m.rank as usize;
                let new_handle = match &calls[mu][cursor[mu]].0 {
                    Call::CommSplit { new, .. }
                    | Call::CommDup { new, .. }
                    | Call::CommCreate { new, .. } => *new,
                    _ => unreachable!("a waiting rank's cursor is on its creation call"),
                };
                handles[mu].set(new_handle, bound);
                created[mu].push(bound);
                cursor[mu] += 1;
                waiting_on[mu] = None;
                if m.rank != r {
                    ready.push(m.rank);
                }
            }
        }
    }
    if let Some(r) = waiting_on.iter().position(Option::is_some) {
        let (comm, k) = waiting_on[r].expect("checked");
        let slot = &pending[&(comm, k)];
        let missing: Vec<String> = slot
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_none())
            .take(8)
            .map(|(i, _)| comms.world_rank(comm, i as u32).to_string())
            .collect();
        let w = slot
            .iter()
            .flatten()
            .next()
            .expect("the waiting rank is there");
        return Err((
            w.pos,
            format!(
                "rank {} calls {} (creation call {} on its communicator), but world ranks {} of that \
                 communicator never make that call",
                w.rank,
                w.what.name(),
                k + 1,
                missing.join(", ")
            ),
        ));
    }
    Ok(created)
}

/// The communicators one creation call gives its members (in parent rank order).
fn create(
    members: &[Waiting],
    parent: u32,
    comms: &mut Comms,
) -> Result<Vec<Option<Bound>>, CreationError> {
    let first = &members[0];
    if let Some(m) = members
        .iter()
        .find(|m| std::mem::discriminant(&m.what) != std::mem::discriminant(&first.what))
    {
        return Err((
            m.pos,
            format!(
                "ranks disagree on the order of communicator creation: rank {} calls {} where rank {} \
                 calls {}",
                m.rank,
                m.what.name(),
                first.rank,
                first.what.name()
            ),
        ));
    }
    let parent_members: Vec<u32> = (0..members.len() as u32)
        .map(|i| comms.world_rank(parent, i))
        .collect();
    let world = |i: u32| parent_members[i as usize];
    match &first.what {
        Creation::Dup => {
            let c = comms.add(parent_members.clone());
            Ok((0..members.len() as u32)
                .map(|me| Some(Bound { comm: c, me }))
                .collect())
        }
        Creation::Split { .. } => {
            let mut by_color: Vec<(u32, i64, u32)> = members
                .iter()
                .enumerate()
                .filter_map(|(i, m)| match m.what {
                    Creation::Split {
                        color: Some(c),
                        key,
                    } => Some((c, key, i as u32)),
                    _ => None,
                })
                .collect();
            by_color.sort_unstable();
            let mut out = vec![None; members.len()];
            for group in by_color.chunk_by(|a, b| a.0 == b.0) {
                let c = comms.add(group.iter().map(|&(_, _, i)| world(i)).collect());
                for (me, &(_, _, i)) in group.iter().enumerate() {
                    out[i as usize] = Some(Bound {
                        comm: c,
                        me: me as u32,
                    });
                }
            }
            Ok(out)
        }
        Creation::Create { group } => {
            let n = members.len() as u32;
            if let Some(m) = members.iter().find(|m| m.what != first.what) {
                return Err((
                    m.pos,
                    format!(
                        "rank {} passes comm_create another group than rank {}",
                        m.rank, first.rank
                    ),
                ));
            }
            let mut seen = vec![false; members.len()];
            for &g in group {
                if g >= n || std::mem::replace(&mut seen[g as usize], true) {
                    return Err((
                        first.pos,
                        format!(
                            "comm_create group lists rank {g}, outside the parent's {n} ranks or twice"
                        ),
                    ));
                }
            }
            let c = comms.add(group.iter().map(|&g| world(g)).collect());
            let mut out = vec![None; members.len()];
            for (me, &g) in group.iter().enumerate() {
                out[g as usize] = Some(Bound {
                    comm: c,
                    me: me as u32,
                });
            }
            Ok(out)
        }
    }
}
