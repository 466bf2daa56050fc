//! One collective call of a rank: its order logged for the check against the communicator's other
//! members (`order.rs`), its ops expanded by [`crate::mpi::collectives`] with peers in world ranks,
//! and their range kept as a region.

use super::*;

impl RankLowering {
    /// Remembers the ops from `first` on as the region of collective `name` (if there are any).
    pub(super) fn region(&mut self, name: &'static str, first: usize) {
        let (first, end) = (first as u32, self.ops.len() as u32);
        if end > first {
            self.regions
                .push(crate::program::Region { first, end, name });
        }
    }

    /// Appends the ops of one collective call to the rank's, its peers in world ranks (no vector of
    /// its own: collectives are frequent in some traces); logs it for the order check.
    pub(super) fn collective(
        &mut self,
        b: Bound,
        op: &Collective,
        (pos, index): (Pos, u64),
        comms: &Comms,
        algorithms: &Algorithms,
        log: &mut Log,
    ) -> Result<(), Msg> {
        let n = comms.size(b.comm);
        if let Some(root) = op.root()
            && root >= n
        {
            return Err(format!(
                "{} root {root} is outside the communicator (ranks 0..{n})",
                op.name()
            ));
        }
        let counts = match op {
            Collective::ReduceScatter { counts }
            | Collective::Scatterv { counts, .. }
            | Collective::Allgatherv { counts } => Some(counts),
            Collective::Alltoallv { send } => Some(send),
            _ => None,
        };
        if let Some(c) = counts
            && c.len() != n as usize
        {
            return Err(format!(
                "{} lists {} counts for a communicator of {n} ranks",
                op.name(),
                c.len()
            ));
        }
        let seq = self.coll_seq.entry(b.comm).or_insert(0);
        let k = *seq;
        *seq += 1;
        log.record(
            b.comm,
            k,
            order::Logged {
                name: op.name(),
                root: op.root(),
                size: order::Size::of(op),
                rank: self.rank,
                index,
                pos,
            },
        );
        let first = self.ops.len();
        let tag = collective_tag(b.comm, k);
        collectives::expand(op, n, b.me, tag, algorithms, &mut self.ops);
        if let Some(members) = comms.members(b.comm) {
            for o in &mut self.ops[first..] {
                match o {
                    Op::Send { to, .. } | Op::Isend { to, .. } | Op::Issend { to, .. } => {
                        *to = members[*to as usize]
                    }
                    Op::Recv { from, .. } | Op::Irecv { from, .. } => {
                        *from = members[*from as usize]
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}
