//! Outstanding requests by (rank, request id): what a `wait` waits for, and what completes it.
//!
//! A rank of a generated workload or an MPI trace mostly has one request outstanding at a time
//! (its blocking receive, or one nonblocking send or receive), so each rank's first request lives in
//! a flat per-rank slot, read by rank id without hashing: on a 2^20-rank run the requests are far
//! larger than the cache, and a hash map's probe costs more misses than one slot. Further requests
//! of a rank (a `waitall` over many, a dependency graph's concurrent operations) go to a hash map.

use ahash::AHashMap;

/// A map from (rank, request id) to `V`, one entry per key.
#[derive(Debug)]
pub(super) struct Requests<V> {
    slots: Vec<Slot<V>>,
    spill: AHashMap<(u32, u32), V>,
}

/// One rank's inline entry.
#[derive(Debug, Clone, Copy)]
struct Slot<V> {
    req: u32,
    /// Entries of this rank in the spill map (none: the map need not be asked).
    spilled: u32,
    /// The entry of `req`, if the slot holds one.
    value: Option<V>,
}

impl<V: Copy> Requests<V> {
    /// No requests, for `ranks` ranks.
    pub(super) fn new(ranks: u32) -> Self {
        let empty = Slot {
            req: 0,
            spilled: 0,
            value: None,
        };
        Requests {
            slots: vec![empty; ranks as usize],
            spill: AHashMap::new(),
        }
    }

    /// Sets the entry of (`rank`, `req`) to `value`, replacing any it had.
    pub(super) fn insert(&mut self, rank: u32, req: u32, value: V) {
        let slot = &mut self.slots[rank as usize];
        match slot.value {
            Some(ref mut v) if slot.req == req => *v = value,
            Some(_) => {
                if self.spill.insert((rank, req), value).is_none() {
                    slot.spilled += 1;
                }
            }
            None => {
                if slot.spilled > 0
                    && let Some(v) = self.spill.get_mut(&(rank, req))
                {
                    *v = value;
                } else {
                    slot.req = req;
                    slot.value = Some(value);
                }
            }
        }
    }

    /// The entry of (`rank`, `req`).
    pub(super) fn get(&self, rank: u32, req: u32) -> Option<&V> {
        let slot = &self.slots[rank as usize];
        if slot.req == req && slot.value.is_some() {
            return slot.value.as_ref();
        }
        if slot.spilled == 0 {
            return None;
        }
        self.spill.get(&(rank, req))
    }

    /// True if (`rank`, `req`) has an entry.
    pub(super) fn contains(&self, rank: u32, req: u32) -> bool {
        self.get(rank, req).is_some()
    }

    /// Takes the entry of (`rank`, `req`) out.
    pub(super) fn remove(&mut self, rank: u32, req: u32) -> Option<V> {
        let slot = &mut self.slots[rank as usize];
        if slot.req == req && slot.value.is_some() {
            return slot.value.take();
        }
        if slot.spilled == 0 {
            return None;
        }
        let value = self.spill.remove(&(rank, req))?;
        slot.spilled -= 1;
        Some(value)
    }

    /// Every entry of `rank`, in no particular order (for the reports of blocked ranks).
    pub(super) fn of_rank(&self, rank: u32) -> impl Iterator<Item = &V> + '_ {
        let slot = &self.slots[rank as usize];
        let spilled = (slot.spilled > 0).then(|| {
            self.spill
                .iter()
                .filter(move |((owner, _), _)| *owner == rank)
                .map(|(_, v)| v)
        });
        slot.value.iter().chain(spilled.into_iter().flatten())
    }

    /// Every entry, as (rank, value), in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &V)> + '_ {
        let inline = (self.slots.iter().enumerate())
            .filter_map(|(r, s)| s.value.as_ref().map(|v| (r as u32, v)));
        inline.chain(self.spill.iter().map(|(&(rank, _), v)| (rank, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random inserts, replacements, lookups and removals over a few ranks and request ids agree
    /// with a plain hash map, entry for entry.
    #[test]
    fn requests_agree_with_a_plain_map() {
        let mut rng = crate::rng::Rng::new(11);
        let mut requests: Requests<u32> = Requests::new(3);
        let mut reference: AHashMap<(u32, u32), u32> = AHashMap::new();
        let ids = [0, 1, 2, u32::MAX - 1, u32::MAX];
        for step in 0..20_000u32 {
            let rank = rng.below(3);
            let req = ids[rng.below(5) as usize];
            match rng.below(3) {
                0 => {
                    requests.insert(rank, req, step);
                    reference.insert((rank, req), step);
                }
                1 => assert_eq!(
                    requests.get(rank, req),
                    reference.get(&(rank, req)),
                    "step {step}"
                ),
                _ => assert_eq!(
                    requests.remove(rank, req),
                    reference.remove(&(rank, req)),
                    "step {step}"
                ),
            }
            let mut of_rank: Vec<u32> = requests.of_rank(rank).copied().collect();
            let mut want: Vec<u32> = reference
                .iter()
                .filter(|((owner, _), _)| *owner == rank)
                .map(|(_, &v)| v)
                .collect();
            of_rank.sort_unstable();
            want.sort_unstable();
            assert_eq!(of_rank, want, "step {step}");
        }
        assert_eq!(requests.iter().count(), reference.len());
        for (&(rank, req), &v) in &reference {
            assert!(requests.contains(rank, req));
            assert_eq!(requests.remove(rank, req), Some(v));
        }
        assert!(requests.spill.is_empty());
        assert!(
            requests
                .slots
                .iter()
                .all(|s| s.value.is_none() && s.spilled == 0)
        );
    }
}
