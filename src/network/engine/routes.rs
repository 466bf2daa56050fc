//! The candidates of each switch input queue's head, kept while it waits: a head that asks again
//! (after a change it watched, a lost arbitration, or every cycle under polling) reads them back
//! instead of routing afresh. They depend only on the head packet and its buffer, so they stay valid
//! until the packet leaves the buffer ([`RouteCache::release`]).

use super::Candidate;

/// Candidates kept per head; a head offered more is routed again each time it asks.
const SLOT: usize = 8;
/// Most bytes the cache takes per switch input queue (its slot index, a slot and its length), for the
/// memory estimate ([`crate::network::memory`]): at most one slot per queue is held.
pub(in crate::network) const QUEUE_BYTES: usize = 4 + SLOT * std::mem::size_of::<Candidate>() + 1;
/// A buffer with nothing kept.
const NONE: u32 = u32::MAX;

/// Per-buffer candidate lists in a pool of fixed-size slots, reused as heads leave.
#[derive(Debug, Default)]
pub(super) struct RouteCache {
    /// Slot of each buffer ([`NONE`] if nothing is kept).
    slot: Vec<u32>,
    /// The slots, and how many candidates of each are valid.
    pool: Vec<Slot>,
    len: Vec<u8>,
    free: Vec<u32>,
}

/// `SLOT` candidates, aligned to a cache line so that a head asking again with up to four candidates
/// reads one line, and with up to eight two.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
struct Slot([Candidate; SLOT]);

impl RouteCache {
    /// A cache for `buffers` buffers, empty.
    pub(super) fn new(buffers: u32) -> RouteCache {
        RouteCache {
            slot: vec![NONE; buffers as usize],
            ..RouteCache::default()
        }
    }

    /// The candidates kept for buffer `b`'s head, if any.
    #[inline]
    pub(super) fn get(&self, b: u32) -> Option<&[Candidate]> {
        let s = *self.slot.get(b as usize)?;
        if s == NONE {
            return None;
        }
        Some(&self.pool[s as usize].0[..usize::from(self.len[s as usize])])
    }

    /// Keeps `candidates` for buffer `b`'s head (nothing if there are more than a slot holds).
    #[inline]
    pub(super) fn keep(&mut self, b: u32, candidates: &[Candidate]) {
        if candidates.is_empty() || candidates.len() > SLOT || b as usize >= self.slot.len() {
            return;
        }
        let s = match self.slot[b as usize] {
            NONE => match self.free.pop() {
                Some(s) => s,
                None => {
                    let s = self.len.len() as u32;
                    self.len.push(0);
                    self.pool.push(Slot([candidates[0]; SLOT]));
                    s
                }
            },
            s => s,
        };
        self.slot[b as usize] = s;
        self.pool[s as usize].0[..candidates.len()].copy_from_slice(candidates);
        self.len[s as usize] = candidates.len() as u8;
    }

    /// Forgets buffer `b`'s head (it left the buffer).
    #[inline]
    pub(super) fn release(&mut self, b: u32) {
        if let Some(s) = self.slot.get_mut(b as usize)
            && *s != NONE
        {
            self.free.push(*s);
            *s = NONE;
        }
    }
}
