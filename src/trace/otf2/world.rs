//! The definitions in MPI terms: which location is which rank, which communicator holds which ranks,
//! which regions are MPI calls.
//!
//! Ranks come from the group of type COMM_LOCATIONS and paradigm MPI: rank i is location `members[i]`
//! (locations outside it, such as OpenMP worker threads, are not ranks and are not read). An MPI
//! communicator's group is either of type COMM_GROUP, listing ranks of that world in communicator
//! order, or of type COMM_SELF, which stands for one single-rank communicator per rank that uses it
//! (Score-P describes MPI_COMM_SELF and every communicator of size 1 so). Communicators of other
//! paradigms (Score-P 8's "Process x Threads" measurement communicator) are not MPI's and are skipped.
//!
//! Handles: the world communicator (named `MPI_COMM_WORLD`, or else the first parentless one holding
//! every rank in order) is [`WORLD`]; every other MPI communicator gets handle `2 + its index among the
//! communicator definitions`, the same on every member, and is defined in the builder up front
//! ([`crate::mpi::Builder::define_comm`]), so no creation call is needed.

use super::defs::{
    self, Defs, GROUP_COMM_GROUP, GROUP_COMM_LOCATIONS, GROUP_COMM_SELF, GROUP_FLAG_GLOBAL_MEMBERS,
    PARADIGM_MPI, UNDEFINED,
};
use crate::mpi::{CommHandle, WORLD};
use ahash::AHashMap;

/// What an MPI region means to the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MpiRegion {
    /// Any MPI call whose records say everything.
    Plain,
    /// MPI_Sendrecv / MPI_Sendrecv_replace: its MpiSend and MpiRecv form one call.
    Sendrecv,
    /// MPI_Ssend: its MpiSend is synchronous.
    Ssend,
    /// MPI_Issend: its MpiIsend is synchronous.
    Issend,
    /// A non-blocking collective (MPI_Iallreduce...), which Score-P before 7 records as a region
    /// only.
    NonblockingCollective,
}

/// A region: an MPI call or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RegionKind {
    /// User code, OpenMP, Score-P internals...: inside it time is computation.
    Other,
    /// An MPI call.
    Mpi(MpiRegion),
}

/// The MPI non-blocking collectives (`MPI_I` + name, lower case after the prefix).
const NONBLOCKING_COLLECTIVES: &[&str] = &[
    "barrier",
    "bcast",
    "gather",
    "gatherv",
    "scatter",
    "scatterv",
    "allgather",
    "allgatherv",
    "alltoall",
    "alltoallv",
    "alltoallw",
    "reduce",
    "allreduce",
    "reduce_scatter",
    "reduce_scatter_block",
    "scan",
    "exscan",
];

/// Classifies a region by its name and paradigm.
pub(super) fn region_kind(name: &str, paradigm: Option<u8>) -> RegionKind {
    if paradigm != Some(PARADIGM_MPI) && !name.starts_with("MPI_") {
        return RegionKind::Other;
    }
    let call = name.strip_prefix("MPI_").unwrap_or(name);
    RegionKind::Mpi(match call {
        "Sendrecv" | "Sendrecv_replace" => MpiRegion::Sendrecv,
        "Ssend" => MpiRegion::Ssend,
        "Issend" => MpiRegion::Issend,
        c if c.starts_with("Ineighbor_")
            || c.strip_prefix('I')
                .is_some_and(|rest| NONBLOCKING_COLLECTIVES.contains(&rest)) =>
        {
            MpiRegion::NonblockingCollective
        }
        _ => MpiRegion::Plain,
    })
}

/// Who is in a communicator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Members {
    /// World ranks in communicator order, and the inverse (world rank -> communicator rank).
    Group(Vec<u32>, AHashMap<u32, u32>),
    /// One single-rank communicator per rank (COMM_SELF group).
    PerRank,
}

/// An MPI communicator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CommInfo {
    /// The handle every member uses.
    pub handle: CommHandle,
    /// Members.
    pub members: Members,
    /// Ranks in records are world ranks (OTF2_GROUP_FLAG_GLOBAL_MEMBERS).
    pub global_ranks: bool,
}

impl CommInfo {
    /// Number of ranks.
    pub fn size(&self) -> u32 {
        match &self.members {
            Members::Group(m, _) => m.len() as u32,
            Members::PerRank => 1,
        }
    }

    /// The rank of world rank `me` in the communicator, if a member.
    pub fn rank_of(&self, me: u32) -> Option<u32> {
        match &self.members {
            Members::Group(_, index) => index.get(&me).copied(),
            Members::PerRank => Some(0),
        }
    }

    /// The communicator rank of `rank` as a record of world rank `me` names it (a peer or a root).
    pub fn peer(&self, rank: u32, me: u32) -> Result<u32, String> {
        if !self.global_ranks {
            return Ok(rank);
        }
        match &self.members {
            Members::Group(_, index) => index.get(&rank).copied(),
            Members::PerRank => (rank == me).then_some(0),
        }
        .ok_or_else(|| {
            format!(
                "world rank {rank} is not a member of the record's communicator (handle {})",
                self.handle
            )
        })
    }
}

/// The definitions resolved for replay.
#[derive(Debug, Clone)]
pub(super) struct World {
    /// Location of each rank.
    pub ranks: Vec<u64>,
    /// Ticks per second.
    pub ticks_per_second: u64,
    /// MPI communicators by global id.
    pub comms: AHashMap<u32, CommInfo>,
    /// Regions by global id.
    pub regions: AHashMap<u32, RegionKind>,
    /// Communicators the builder must define: (handle, world ranks), one entry per single-rank
    /// communicator of a COMM_SELF group.
    pub defined: Vec<(CommHandle, Vec<u32>)>,
}

impl World {
    /// Resolves `defs`; errors name the definition at fault.
    pub fn new(defs: &Defs) -> Result<World, String> {
        let ticks_per_second = defs.timer_resolution.ok_or(
            "the global definitions have no ClockProperties record, so timestamps cannot be converted \
             to seconds",
        )?;
        let ranks = mpi_locations(defs)?;
        let n = ranks.len() as u32;
        let mut regions = AHashMap::with_capacity(defs.regions.len());
        for (&id, r) in &defs.regions {
            let name = defs.string(r.name, &format!("region {id}"))?;
            regions.insert(id, region_kind(name, r.paradigm));
        }
        let mut comms = AHashMap::new();
        let mut defined = Vec::new();
        let world = world_comm(defs, n);
        for (index, c) in defs.comms.iter().enumerate() {
            let group = defs.groups.get(&c.group).ok_or_else(|| {
                format!(
                    "communicator {} uses group {}, which is never defined",
                    c.id, c.group
                )
            })?;
            if group.paradigm != PARADIGM_MPI {
                continue;
            }
            let global_ranks = group.flags & GROUP_FLAG_GLOBAL_MEMBERS != 0;
            let members = match group.kind {
                GROUP_COMM_SELF => Members::PerRank,
                GROUP_COMM_GROUP => {
                    let mut list = Vec::with_capacity(group.members.len());
                    let mut index = AHashMap::with_capacity(group.members.len());
                    for (i, &m) in group.members.iter().enumerate() {
                        let r = u32::try_from(m).ok().filter(|&r| r < n).ok_or_else(|| {
                            format!(
                                "communicator {} (group {}) lists rank {m}, but the MPI world has \
                                 {n} ranks",
                                c.id, c.group
                            )
                        })?;
                        if index.insert(r, i as u32).is_some() {
                            return Err(format!(
                                "communicator {} (group {}) lists rank {r} twice",
                                c.id, c.group
                            ));
                        }
                        list.push(r);
                    }
                    Members::Group(list, index)
                }
                k => {
                    return Err(format!(
                        "communicator {} uses group {} of type {k}, not a communicator group",
                        c.id, c.group
                    ));
                }
            };
            let is_world = Some(c.id) == world;
            let handle = if is_world {
                WORLD
            } else {
                u32::try_from(index)
                    .ok()
                    .and_then(|i| i.checked_add(2))
                    .ok_or("more communicators than handles")?
            };
            if !is_world {
                match &members {
                    Members::Group(list, _) => defined.push((handle, list.clone())),
                    Members::PerRank => defined.extend((0..n).map(|r| (handle, vec![r]))),
                }
            }
            let info = CommInfo {
                handle,
                members,
                global_ranks,
            };
            if comms.insert(c.id, info).is_some() {
                return Err(format!("communicator {} is defined twice", c.id));
            }
        }
        Ok(World {
            ranks,
            ticks_per_second,
            comms,
            regions,
            defined,
        })
    }
}

/// The world communicator: an MPI communicator holding every rank in order, named `MPI_COMM_WORLD`
/// or else the first without a parent.
fn world_comm(defs: &Defs, n: u32) -> Option<u32> {
    let full = |c: &&defs::Comm| {
        defs.groups.get(&c.group).is_some_and(|g| {
            g.paradigm == PARADIGM_MPI
                && g.kind == GROUP_COMM_GROUP
                && g.members.len() == n as usize
                && g.members.iter().enumerate().all(|(i, &r)| r == i as u64)
        })
    };
    let named =
        |c: &&defs::Comm| defs.strings.get(&c.name).map(String::as_str) == Some("MPI_COMM_WORLD");
    let mut full_comms = defs.comms.iter().filter(full);
    let first_named = full_comms.clone().find(named);
    first_named
        .or_else(|| full_comms.find(|c| c.parent == UNDEFINED))
        .map(|c| c.id)
}

/// Locations of the MPI ranks, from the MPI COMM_LOCATIONS group (the lowest-numbered if several).
fn mpi_locations(defs: &Defs) -> Result<Vec<u64>, String> {
    let group = defs
        .groups
        .iter()
        .filter(|(_, g)| g.kind == GROUP_COMM_LOCATIONS && g.paradigm == PARADIGM_MPI)
        .min_by_key(|&(&id, _)| id)
        .map(|(_, g)| g)
        .ok_or(
            "the definitions have no MPI locations group (COMM_LOCATIONS of paradigm MPI): this is \
             not a trace of an MPI program, and netreplay replays MPI traces only",
        )?;
    if group.members.is_empty() || group.members.len() > u32::MAX as usize {
        return Err(format!(
            "the MPI locations group lists {} ranks",
            group.members.len()
        ));
    }
    let mut seen = ahash::AHashSet::with_capacity(group.members.len());
    for &l in &group.members {
        if !seen.insert(l) {
            return Err(format!(
                "the MPI locations group lists location {l} as two ranks"
            ));
        }
    }
    Ok(group.members.clone())
}

/// The communicator a record names, after the location's id map.
pub(super) fn comm(world: &World, id: u32) -> Result<&CommInfo, String> {
    world.comms.get(&id).ok_or_else(|| {
        if id == defs::UNDEFINED {
            "the record names no communicator (OTF2_UNDEFINED_COMM)".to_string()
        } else {
            format!("communicator {id} is used but never defined as an MPI communicator")
        }
    })
}
