//! One bit per channel for the questions every packet-hop asks of a channel and whose answer is
//! mostly no: does a blocked head wait on it, does a planned head watch it? The lists and counts they
//! summarise take a cache line per one to three channels, which at 4,096 nodes the cache does not
//! keep; a bit per channel does (40,000 channels in 5 KB).

/// A set of channel ids.
#[derive(Debug, Clone, Default)]
pub(super) struct ChannelBits(Vec<u64>);

impl ChannelBits {
    /// The empty set over `channels` channels.
    pub(super) fn new(channels: u32) -> ChannelBits {
        ChannelBits(vec![0; (channels as usize).div_ceil(64)])
    }

    /// Whether channel `c` is in the set.
    #[inline]
    pub(super) fn get(&self, c: u32) -> bool {
        self.0[(c >> 6) as usize] >> (c & 63) & 1 != 0
    }

    /// Puts channel `c` in the set.
    #[inline]
    pub(super) fn insert(&mut self, c: u32) {
        self.0[(c >> 6) as usize] |= 1u64 << (c & 63);
    }

    /// Takes channel `c` out of the set.
    #[inline]
    pub(super) fn remove(&mut self, c: u32) {
        self.0[(c >> 6) as usize] &= !(1u64 << (c & 63));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_set_and_cleared_one_by_one() {
        let mut bits = ChannelBits::new(130);
        for c in [0, 63, 64, 129] {
            assert!(!bits.get(c));
            bits.insert(c);
            assert!(bits.get(c));
        }
        assert!(!bits.get(1) && !bits.get(65) && !bits.get(128));
        bits.remove(64);
        assert!(!bits.get(64) && bits.get(63) && bits.get(129));
    }
}
