//! What a trace's MPI calls are, counted as the MPI layer lowers them: `trace stats` prints it for
//! every format, so a user sees the calls of an OTF2 or DUMPI trace (by kind and communicator) before
//! the collectives are expanded into messages.

use serde::Serialize;
use std::collections::BTreeMap;

/// Calls and bytes of one kind of point-to-point call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Traffic {
    /// Calls (a `sendrecv` counts once).
    pub calls: u64,
    /// Bytes they send.
    pub bytes: u64,
}

impl Traffic {
    fn add(&mut self, bytes: u64) {
        self.calls += 1;
        self.bytes = self.bytes.saturating_add(bytes);
    }
}

/// The collectives called on one communicator.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CommCollectives {
    /// The communicator's global index (0 = MPI_COMM_WORLD, then in order of creation).
    pub comm: u32,
    /// Its number of ranks.
    pub size: u32,
    /// Collective calls by MPI name (`allreduce`, ...), each counted once per call on the
    /// communicator (as its rank 0 makes it), not once per member.
    pub calls: BTreeMap<&'static str, u64>,
}

/// Counts of a trace's MPI calls (before lowering to messages); see the module doc.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CallStats {
    /// Communicators of two ranks or more besides MPI_COMM_WORLD, defined or created (a
    /// communicator of one rank, such as MPI_COMM_SELF, has no traffic to tell apart).
    pub communicators: u32,
    /// Point-to-point sends by call (`send`, `isend`, `ssend`, `issend`, `sendrecv`).
    pub point_to_point: BTreeMap<&'static str, Traffic>,
    /// Sends a rank addresses to itself (delivered locally).
    pub self_messages: u64,
    /// Receives posted (blocking and not; the receive half of each `sendrecv` included).
    pub receives: u64,
    /// Receives posted with MPI_ANY_SOURCE or MPI_ANY_TAG.
    pub wildcard_receives: u64,
    /// Collectives per communicator that has any, by global index.
    pub collectives: Vec<CommCollectives>,
    /// Computation steps (the time between MPI calls, for OTF2 and DUMPI).
    pub computes: u64,
    /// Their total cycles, before `compute_scale`.
    pub compute_cycles: u64,
}

impl CallStats {
    /// A send of `bytes` by call `kind`; `to_self` when the destination is the sender.
    pub(crate) fn send(&mut self, kind: &'static str, bytes: u64, to_self: bool) {
        self.point_to_point.entry(kind).or_default().add(bytes);
        self.self_messages += u64::from(to_self);
    }

    /// A receive, `wildcard` when it names MPI_ANY_SOURCE or MPI_ANY_TAG.
    pub(crate) fn receive(&mut self, wildcard: bool) {
        self.receives += 1;
        self.wildcard_receives += u64::from(wildcard);
    }

    /// A collective `name` on communicator `comm` of `size` ranks, seen by its rank `me`.
    pub(crate) fn collective(&mut self, comm: u32, size: u32, me: u32, name: &'static str) {
        if me != 0 {
            return;
        }
        let i = match self.collectives.binary_search_by_key(&comm, |c| c.comm) {
            Ok(i) => i,
            Err(i) => {
                self.collectives.insert(
                    i,
                    CommCollectives {
                        comm,
                        size,
                        calls: BTreeMap::new(),
                    },
                );
                i
            }
        };
        *self.collectives[i].calls.entry(name).or_default() += 1;
    }

    /// A computation of `cycles`.
    pub(crate) fn compute(&mut self, cycles: u64) {
        self.computes += 1;
        self.compute_cycles = self.compute_cycles.saturating_add(cycles);
    }

    /// The point-to-point sends of every kind: (calls, bytes).
    pub fn sends(&self) -> Traffic {
        self.point_to_point
            .values()
            .fold(Traffic::default(), |a, t| Traffic {
                calls: a.calls + t.calls,
                bytes: a.bytes.saturating_add(t.bytes),
            })
    }

    /// Collective calls of every kind on every communicator, by name.
    pub fn collectives_by_kind(&self) -> BTreeMap<&'static str, u64> {
        let mut all = BTreeMap::new();
        for c in &self.collectives {
            for (&k, &n) in &c.calls {
                *all.entry(k).or_default() += n;
            }
        }
        all
    }

    /// The lines `trace stats` prints.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "MPI calls: {} communicators besides world; {} receives ({} wildcard); {} \
             self-messages; {} computations, {} cycles",
            self.communicators,
            self.receives,
            self.wildcard_receives,
            self.self_messages,
            self.computes,
            self.compute_cycles
        );
        for (kind, t) in &self.point_to_point {
            let _ = writeln!(s, "  {kind:<9} {:>12} calls {:>16} bytes", t.calls, t.bytes);
        }
        // Communicators with the same size and calls share a line (a split into many groups).
        let mut i = 0;
        while i < self.collectives.len() {
            let c = &self.collectives[i];
            let same = self.collectives[i..]
                .iter()
                .take_while(|d| d.size == c.size && d.calls == c.calls)
                .count();
            let ids: Vec<String> = self.collectives[i..i + same]
                .iter()
                .map(|d| d.comm.to_string())
                .collect();
            let name = match (c.comm, same) {
                (0, 1) => "world".to_string(),
                (_, 1) => format!("communicator {}", ids[0]),
                _ => format!("each of communicators {}", ids.join(" ")),
            };
            let list: Vec<String> = c.calls.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let _ = writeln!(
                s,
                "  collectives on {name} ({} ranks): {}",
                c.size,
                list.join(", ")
            );
            i += same;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collectives_count_once_per_call_and_sort_by_communicator() {
        let mut s = CallStats::default();
        for me in 0..4 {
            s.collective(3, 4, me, "allreduce");
            s.collective(0, 8, me, "barrier");
        }
        s.collective(3, 4, 0, "bcast");
        assert_eq!(
            s.collectives.iter().map(|c| c.comm).collect::<Vec<_>>(),
            [0, 3]
        );
        assert_eq!(s.collectives[1].calls["allreduce"], 1);
        assert_eq!(s.collectives_by_kind()["bcast"], 1);
        assert_eq!(s.collectives_by_kind().values().sum::<u64>(), 3);
    }

    #[test]
    fn sends_sum_every_kind() {
        let mut s = CallStats::default();
        s.send("send", 10, false);
        s.send("isend", 5, true);
        s.send("isend", u64::MAX, false);
        assert_eq!(s.sends().calls, 3);
        assert_eq!(s.sends().bytes, u64::MAX);
        assert_eq!(s.self_messages, 1);
        assert!(s.text().contains("isend"));
    }
}
