//! Which flows cross which links: every active flow's path is a block of hops in one flat arena,
//! and each hop is a node of its link's doubly linked list of flows, so a flow joins or leaves its
//! links in O(path length) and a link's flows are listed without scanning anything else.
//!
//! Blocks come in power-of-two sizes and are reused through one free list per size, so a run
//! allocates only while its number of concurrent flows grows.

/// No hop (end of a list, empty link).
const NONE: u32 = u32::MAX;

/// Per-link lists of flows and the arena of path hops.
#[derive(Debug)]
pub(super) struct Links {
    /// First hop on each link.
    head: Vec<u32>,
    /// Flows on each link.
    count: Vec<u32>,
    /// Per hop: its link (a block's links are a path), its flow with the next hop on its link
    /// (read together when a link's flows are listed: one cache line per hop), and the previous.
    hop_link: Vec<u32>,
    hop_flow_next: Vec<FlowNext>,
    hop_prev: Vec<u32>,
    /// Free blocks by size class (block of 2^class hops).
    free: Vec<Vec<u32>>,
}

/// A hop's flow and the next hop on the same link.
#[derive(Debug, Clone, Copy)]
struct FlowNext {
    flow: u32,
    next: u32,
}

/// A hop not in use.
const UNUSED: FlowNext = FlowNext {
    flow: NONE,
    next: NONE,
};

/// Where a flow's hops are: a block of the arena.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Block {
    /// First hop.
    pub start: u32,
    /// Hops in use (the path's links).
    pub len: u32,
}

impl Links {
    /// Empty lists for `links` links.
    pub(super) fn new(links: usize) -> Self {
        Links {
            head: vec![NONE; links],
            count: vec![0; links],
            hop_link: Vec::new(),
            hop_flow_next: Vec::new(),
            hop_prev: Vec::new(),
            free: vec![Vec::new(); 33],
        }
    }

    /// Bytes per link of these lists (for the memory estimate).
    pub(super) const BYTES_PER_LINK: u64 = 8;

    /// Flows on each link now (what the walk balances).
    pub(super) fn counts(&self) -> &[u32] {
        &self.count
    }

    /// Puts flow `flow` on every link of `path`, returning where its hops are.
    pub(super) fn join(&mut self, flow: u32, path: &[u32]) -> Block {
        let len = path.len() as u32;
        let class = len.max(1).next_power_of_two().trailing_zeros() as usize;
        let start = match self.free[class].pop() {
            Some(s) => s,
            None => {
                let s = self.hop_link.len() as u32;
                let size = 1usize << class;
                self.hop_link.resize(s as usize + size, NONE);
                self.hop_flow_next.resize(s as usize + size, UNUSED);
                self.hop_prev.resize(s as usize + size, NONE);
                s
            }
        };
        for (i, &l) in path.iter().enumerate() {
            let h = start + i as u32;
            let hu = h as usize;
            self.hop_link[hu] = l;
            let old = self.head[l as usize];
            self.hop_flow_next[hu] = FlowNext { flow, next: old };
            self.hop_prev[hu] = NONE;
            if old != NONE {
                self.hop_prev[old as usize] = h;
            }
            self.head[l as usize] = h;
            self.count[l as usize] += 1;
        }
        Block { start, len }
    }

    /// Takes the flow of `block` off its links and frees the block.
    pub(super) fn leave(&mut self, block: Block) {
        for h in block.start..block.start + block.len {
            let hu = h as usize;
            let l = self.hop_link[hu] as usize;
            let (prev, next) = (self.hop_prev[hu], self.hop_flow_next[hu].next);
            if prev == NONE {
                self.head[l] = next;
            } else {
                self.hop_flow_next[prev as usize].next = next;
            }
            if next != NONE {
                self.hop_prev[next as usize] = prev;
            }
            self.count[l] -= 1;
        }
        let class = block.len.max(1).next_power_of_two().trailing_zeros() as usize;
        self.free[class].push(block.start);
    }

    /// The links of a block, in path order.
    #[inline]
    pub(super) fn path(&self, block: Block) -> &[u32] {
        &self.hop_link[block.start as usize..(block.start + block.len) as usize]
    }

    /// The flows on link `l` (most recent first).
    #[inline]
    pub(super) fn flows(&self, l: u32) -> FlowsOn<'_> {
        FlowsOn {
            links: self,
            hop: self.head[l as usize],
        }
    }
}

/// Iterator over the flows of one link.
pub(super) struct FlowsOn<'a> {
    links: &'a Links,
    hop: u32,
}

impl Iterator for FlowsOn<'_> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.hop == NONE {
            return None;
        }
        let FlowNext { flow, next } = self.links.hop_flow_next[self.hop as usize];
        self.hop = next;
        Some(flow)
    }
}

/// A set of link ids that is filled, read and emptied again many times in a run: a flag per link for
/// membership and the members in the order they came, so emptying it touches only its members.
#[derive(Debug)]
pub(super) struct LinkSet {
    member: Vec<bool>,
    list: Vec<u32>,
}

impl LinkSet {
    /// An empty set over `links` link ids.
    pub(super) fn new(links: usize) -> Self {
        LinkSet {
            member: vec![false; links],
            list: Vec::new(),
        }
    }

    /// Adds link `l`; false if it was in already.
    #[inline]
    pub(super) fn insert(&mut self, l: u32) -> bool {
        let added = !std::mem::replace(&mut self.member[l as usize], true);
        if added {
            self.list.push(l);
        }
        added
    }

    /// The members, in the order they were added.
    pub(super) fn links(&self) -> &[u32] {
        &self.list
    }

    /// Whether no link is in the set.
    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Empties the set.
    pub(super) fn clear(&mut self) {
        for &l in &self.list {
            self.member[l as usize] = false;
        }
        self.list.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flows join and leave in any order; the lists and counts follow, and blocks are reused.
    #[test]
    fn flows_join_and_leave_their_links() {
        let mut links = Links::new(4);
        let a = links.join(10, &[0, 1, 2]);
        let b = links.join(11, &[1, 3]);
        let c = links.join(12, &[1]);
        assert_eq!(links.flows(1).collect::<Vec<_>>(), [12, 11, 10]);
        assert_eq!(links.counts(), [1, 3, 1, 1]);
        assert_eq!(links.path(a), [0, 1, 2]);
        links.leave(b);
        assert_eq!(links.flows(1).collect::<Vec<_>>(), [12, 10]);
        links.leave(c);
        links.leave(a);
        assert!((0..4).all(|l| links.flows(l).next().is_none()));
        assert_eq!(links.counts(), [0; 4]);
        let d = links.join(13, &[3, 2, 1]);
        assert_eq!(d.start, a.start, "the 4-hop block is reused");
        assert_eq!(links.flows(2).collect::<Vec<_>>(), [13]);
    }

    /// A link set keeps each link once, in the order added, and is empty again after `clear`.
    #[test]
    fn a_link_set_holds_each_link_once() {
        let mut set = LinkSet::new(5);
        assert!(set.insert(3) && set.insert(1) && !set.insert(3));
        assert_eq!(set.links(), [3, 1]);
        set.clear();
        assert!(set.is_empty());
        assert!(set.insert(3), "a cleared link can be added again");
        assert_eq!(set.links(), [3]);
    }
}
