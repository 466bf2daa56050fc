//! Each node's messages in program order, for both engines: a node sends its front message, and the
//! next one after it. The queues are lists through message ids (a front and a back per node, the
//! next message per id), so no node allocates a queue of its own: a 2^20-node network would
//! otherwise allocate a million of them on the first messages.

/// No message: an empty queue's front and back, a list's end.
const NONE: u32 = u32::MAX;

/// The message queues of every node, by node id; messages are named by their engine's ids.
#[derive(Debug)]
pub(super) struct NodeQueues {
    front: Vec<u32>,
    back: Vec<u32>,
    /// Per message id: the message its node queued after it, while it is queued.
    next: Vec<u32>,
}

impl NodeQueues {
    /// Empty queues for `nodes` nodes.
    pub(super) fn new(nodes: usize) -> Self {
        NodeQueues {
            front: vec![NONE; nodes],
            back: vec![NONE; nodes],
            next: Vec::new(),
        }
    }

    /// Bytes per node, for the memory estimates (the per-message links grow with the messages,
    /// which the estimates leave out).
    pub(super) const BYTES_PER_NODE: u64 = 8;

    /// The message at the front of `node`'s queue.
    #[inline]
    pub(super) fn front(&self, node: u32) -> Option<u32> {
        Some(self.front[node as usize]).filter(|&m| m != NONE)
    }

    /// Queues message `id` behind `node`'s others; true if it is now the front.
    pub(super) fn push(&mut self, node: u32, id: u32) -> bool {
        let i = id as usize;
        if i >= self.next.len() {
            self.next.resize(i + 1, NONE);
        }
        self.next[i] = NONE;
        match std::mem::replace(&mut self.back[node as usize], id) {
            NONE => {
                self.front[node as usize] = id;
                true
            }
            back => {
                self.next[back as usize] = id;
                false
            }
        }
    }

    /// Takes the front message off `node`'s queue; returns the new front.
    pub(super) fn pop(&mut self, node: u32) -> Option<u32> {
        let n = node as usize;
        let gone = self.front[n];
        debug_assert_ne!(gone, NONE, "popping node {node}'s empty queue");
        let next = self.next[gone as usize];
        self.front[n] = next;
        if next == NONE {
            self.back[n] = NONE;
        }
        self.front(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queues keep each node's order, stay apart, and take a message id again once it left.
    #[test]
    fn queues_are_fifo_per_node() {
        let mut q = NodeQueues::new(2);
        assert_eq!(q.front(0), None);
        assert!(q.push(0, 5));
        assert!(!q.push(0, 2));
        assert!(q.push(1, 7));
        assert!(!q.push(0, 9));
        assert_eq!(q.front(0), Some(5));
        assert_eq!(q.pop(0), Some(2));
        assert_eq!(q.pop(0), Some(9));
        assert_eq!(q.front(1), Some(7));
        assert_eq!(q.pop(0), None);
        assert!(
            q.push(0, 5),
            "an emptied queue takes a reused id as its front"
        );
        assert_eq!(q.pop(0), None);
        assert_eq!(q.pop(1), None);
    }
}
