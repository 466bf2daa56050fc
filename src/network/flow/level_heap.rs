//! The solver's queue of links by saturation level: a binary min-heap of (level bits, link) that
//! holds at most one entry per link and knows where each link's entry is, so a link whose level
//! moves has its entry re-keyed where it is instead of a second entry pushed.
//!
//! Progressive filling re-keys a link every time one of its flows freezes. With a plain heap every
//! re-key leaves a stale entry that a later pop has to sift out from the top; here a re-key sifts the
//! one entry from where it is, usually near the bottom, and a link none of whose flows is left to
//! freeze is taken out the same way. Entries order by (key, link), a total order, so the pops come in
//! the order a plain heap with stale entries skipped gives them. Rises are sifted at once rather than
//! when a link reaches the top: sifts from the top cost more, as they start at the root.
//!
//! A small set is kept unordered instead ([`SCAN_LINKS`]): most re-solves hold a few dozen links,
//! re-key each many times and pop only a few, so a re-key that just writes the key and a pop that
//! scans for the least cost less than sifting. The pops come in the same (key, link) order either way.

/// Largest number of links kept unordered, their least found by a scan at each pop (counted on the
/// 16-ary 3-torus BU 1 KB: 75 links, 213 re-keys and 11 pops per re-solve on average).
const SCAN_LINKS: usize = 128;

/// The slot of a link never entered (a slot is trusted only if the entry it points at names the
/// link).
const NOWHERE: u32 = u32::MAX;

/// A min-heap of links keyed by a level's bits (non-negative floats order as their bits).
#[derive(Debug, Default)]
pub(super) struct LevelHeap {
    entries: Vec<(u64, u32)>,
    /// Per link, the index of its entry (checked against `entries`, so clearing is O(1)).
    slot: Vec<u32>,
    /// The entries are not in heap order: a pop scans them (a set of at most [`SCAN_LINKS`]).
    unordered: bool,
}

/// Bytes per link of a [`LevelHeap`] (its slot; the entries are per link crossed by a solve).
pub(super) const BYTES_PER_LINK: u64 = 4;

impl LevelHeap {
    /// An empty heap over `links` link ids.
    pub(super) fn with_links(links: usize) -> Self {
        LevelHeap {
            entries: Vec::new(),
            slot: vec![NOWHERE; links],
            unordered: false,
        }
    }

    /// Empties the heap.
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.unordered = false;
    }

    /// The index of link `l`'s entry, if it has one.
    #[inline]
    fn find(&self, l: u32) -> Option<usize> {
        let i = self.slot[l as usize] as usize;
        (self.entries.get(i).map(|e| e.1) == Some(l)).then_some(i)
    }

    /// Adds link `l` at `key` without restoring the heap order: for filling an empty heap before
    /// [`LevelHeap::build`]. A link must be added once.
    #[inline]
    pub(super) fn add(&mut self, key: u64, l: u32) {
        debug_assert!(self.find(l).is_none(), "link {l} added twice");
        self.slot[l as usize] = self.entries.len() as u32;
        self.entries.push((key, l));
    }

    /// Restores the heap order after [`LevelHeap::add`]s (Floyd's construction, linear time), or
    /// leaves a set of at most [`SCAN_LINKS`] unordered until it is cleared.
    pub(super) fn build(&mut self) {
        self.build_as(self.entries.len() <= SCAN_LINKS);
    }

    /// [`LevelHeap::build`], unordered or not as asked.
    fn build_as(&mut self, unordered: bool) {
        self.unordered = unordered;
        if unordered {
            return;
        }
        for i in (0..self.entries.len() / 2).rev() {
            self.sift_down(i);
        }
    }

    /// Gives link `l` the key `key`: re-keys its entry where it is, or adds one.
    #[inline]
    pub(super) fn set(&mut self, key: u64, l: u32) {
        match self.find(l) {
            Some(i) => {
                let old = std::mem::replace(&mut self.entries[i].0, key);
                if self.unordered {
                    return;
                }
                if key < old {
                    self.sift_up(i);
                } else if key > old {
                    self.sift_down(i);
                }
            }
            None => {
                self.add(key, l);
                if !self.unordered {
                    self.sift_up(self.entries.len() - 1);
                }
            }
        }
    }

    /// Takes link `l`'s entry out, if it has one.
    #[inline]
    pub(super) fn remove(&mut self, l: u32) {
        if let Some(i) = self.find(l) {
            self.take_at(i);
        }
    }

    /// Removes and returns the least (key, link).
    #[inline]
    pub(super) fn pop(&mut self) -> Option<(u64, u32)> {
        if self.entries.is_empty() {
            return None;
        }
        if !self.unordered {
            return Some(self.take_at(0));
        }
        let mut least = 0;
        for i in 1..self.entries.len() {
            if self.entries[i] < self.entries[least] {
                least = i;
            }
        }
        Some(self.take_at(least))
    }

    /// Takes out the entry at index `i`: the last entry fills its place and is sifted from there.
    #[inline]
    fn take_at(&mut self, i: usize) -> (u64, u32) {
        let last = self.entries.pop().expect("index i is in the heap");
        if i == self.entries.len() {
            return last;
        }
        let taken = self.entries[i];
        self.place(i, last);
        if self.unordered {
            return taken;
        }
        if last < taken {
            self.sift_up(i);
        } else {
            self.sift_down(i);
        }
        taken
    }

    /// Puts `entry` at index `i` and records where its link is.
    #[inline]
    fn place(&mut self, i: usize, entry: (u64, u32)) {
        self.entries[i] = entry;
        self.slot[entry.1 as usize] = i as u32;
    }

    fn sift_up(&mut self, mut i: usize) {
        let entry = self.entries[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let above = self.entries[parent];
            if above <= entry {
                break;
            }
            self.place(i, above);
            i = parent;
        }
        self.place(i, entry);
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.entries.len();
        let entry = self.entries[i];
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.entries[right] < self.entries[left] {
                right
            } else {
                left
            };
            let below = self.entries[child];
            if entry <= below {
                break;
            }
            self.place(i, below);
            i = child;
        }
        self.place(i, entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each pop is the least (key, link) of the links in the heap, over random adds, re-keys up and
    /// down, removals and pops, with ties between keys.
    #[test]
    fn pops_the_least_key_after_rekeys_and_removals() {
        let mut rng = crate::rng::Rng::new(5);
        for round in 0..600 {
            let links = 1 + rng.below(40);
            let mut heap = LevelHeap::with_links(links as usize);
            let mut key = vec![None::<u64>; links as usize];
            for l in 0..rng.below(links) {
                let k = u64::from(rng.below(8));
                heap.add(k, l);
                key[l as usize] = Some(k);
            }
            // Half the rounds ordered, half scanned.
            heap.build_as(round % 2 == 1);
            for step in 0..200 {
                let l = rng.below(links);
                match rng.below(5) {
                    0 => {
                        heap.remove(l);
                        key[l as usize] = None;
                    }
                    1 | 2 => {
                        let k = u64::from(rng.below(8));
                        heap.set(k, l);
                        key[l as usize] = Some(k);
                    }
                    _ => {
                        let want = (0..links)
                            .filter_map(|l| key[l as usize].map(|k| (k, l)))
                            .min();
                        let got = heap.pop();
                        assert_eq!(got, want, "round {round} step {step}");
                        if let Some((_, l)) = got {
                            key[l as usize] = None;
                        }
                    }
                }
            }
        }
    }
}
