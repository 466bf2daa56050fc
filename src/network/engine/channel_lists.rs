//! A list per channel (the heads waiting on it, the planned heads watching it) with a bit per channel
//! saying whether its list holds anything: the question every packet-hop asks of a channel, and whose
//! answer is mostly no. The lists' headers take a cache line per two to three channels, which at 4,096
//! nodes the cache does not keep; the bits do (40,000 channels in 5 KB). Every change to a list goes
//! through this type, which keeps its bit in step; debug builds check the two at every read.

/// Per channel a list of `T`, and whether it is empty, readable without touching the list.
#[derive(Debug, Clone)]
pub(super) struct ChannelLists<T> {
    lists: Vec<Vec<T>>,
    /// Bit `c`: list `c` is not empty.
    nonempty: Vec<u64>,
}

impl<T> ChannelLists<T> {
    /// An empty list for each of `channels` channels.
    pub(super) fn new(channels: u32) -> ChannelLists<T> {
        ChannelLists {
            lists: (0..channels).map(|_| Vec::new()).collect(),
            nonempty: vec![0; (channels as usize).div_ceil(64)],
        }
    }

    /// Whether channel `c`'s list holds anything (read from its bit).
    #[inline]
    pub(super) fn any(&self, c: u32) -> bool {
        let bit = self.nonempty[(c >> 6) as usize] >> (c & 63) & 1 != 0;
        debug_assert_eq!(
            bit,
            !self.lists[c as usize].is_empty(),
            "channel {c}'s list bit"
        );
        bit
    }

    /// Channel `c`'s list.
    #[inline]
    pub(super) fn list(&self, c: u32) -> &[T] {
        &self.lists[c as usize]
    }

    /// Appends `item` to channel `c`'s list.
    #[inline]
    pub(super) fn push(&mut self, c: u32, item: T) {
        let list = &mut self.lists[c as usize];
        if list.is_empty() {
            self.nonempty[(c >> 6) as usize] |= 1u64 << (c & 63);
        }
        list.push(item);
    }

    /// The last item of channel `c`'s list, to change in place.
    #[inline]
    pub(super) fn last_mut(&mut self, c: u32) -> Option<&mut T> {
        self.lists[c as usize].last_mut()
    }

    /// Removes the first item of channel `c`'s list that `is` picks, if any (the last item takes its
    /// place).
    #[inline]
    pub(super) fn swap_remove_first(&mut self, c: u32, is: impl Fn(&T) -> bool) {
        let list = &mut self.lists[c as usize];
        if let Some(i) = list.iter().position(is) {
            list.swap_remove(i);
            self.sync(c);
        }
    }

    /// Keeps only the items of channel `c`'s list that `keep` admits, in order.
    #[inline]
    pub(super) fn retain(&mut self, c: u32, keep: impl FnMut(&T) -> bool) {
        self.lists[c as usize].retain(keep);
        self.sync(c);
    }

    /// Takes channel `c`'s list out, leaving it empty; [`ChannelLists::put_back`] returns it.
    #[inline]
    pub(super) fn take(&mut self, c: u32) -> Vec<T> {
        self.nonempty[(c >> 6) as usize] &= !(1u64 << (c & 63));
        std::mem::take(&mut self.lists[c as usize])
    }

    /// Puts back as channel `c`'s list one taken out with [`ChannelLists::take`] (its capacity is
    /// reused), the list staying empty meanwhile.
    #[inline]
    pub(super) fn put_back(&mut self, c: u32, list: Vec<T>) {
        debug_assert!(
            self.lists[c as usize].is_empty(),
            "channel {c}'s list grew while it was out"
        );
        self.lists[c as usize] = list;
        self.sync(c);
    }

    /// Sets channel `c`'s bit from its list.
    #[inline]
    fn sync(&mut self, c: u32) {
        let (word, bit) = ((c >> 6) as usize, 1u64 << (c & 63));
        if self.lists[c as usize].is_empty() {
            self.nonempty[word] &= !bit;
        } else {
            self.nonempty[word] |= bit;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bit_follows_each_change_to_its_list() {
        let mut lists = ChannelLists::new(130);
        for c in [0, 63, 64, 129] {
            assert!(!lists.any(c));
            lists.push(c, c);
            assert!(lists.any(c));
        }
        assert!(!lists.any(1) && !lists.any(65) && !lists.any(128));
        lists.swap_remove_first(64, |&x| x == 64);
        assert!(!lists.any(64) && lists.any(63) && lists.any(129));
        lists.push(63, 7);
        lists.retain(63, |&x| x == 7);
        assert_eq!(lists.list(63), [7]);
        lists.retain(63, |_| false);
        assert!(!lists.any(63));
        let taken = lists.take(129);
        assert_eq!(taken, [129]);
        assert!(!lists.any(129));
        lists.put_back(129, taken);
        assert!(lists.any(129));
        let empty = lists.take(0);
        lists.put_back(0, Vec::with_capacity(empty.len()));
        assert!(!lists.any(0));
    }
}
