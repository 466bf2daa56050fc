//! Chakra nodes to [`crate::program::graph`] nodes, one rank at a time.
//!
//! - Nodes are taken in dependency order, file order among those ready (so a file already in
//!   dependency order keeps its order, which is the order ready ops start in the graph runtime).
//! - `COMP_NODE`: a calc of `duration_micros` converted at `cycles_per_second`. ASTRA-sim's
//!   roofline estimate of nodes without a duration (`num_ops`, `tensor_size`) is not modelled: they
//!   take no time.
//! - `COMM_SEND_NODE` / `COMM_RECV_NODE`: a send of `comm_size` bytes to `comm_dst`, a receive
//!   from `comm_src`, with `comm_tag` (0 if absent).
//! - `COMM_COLL_NODE`: `comm_type` of `comm_size` bytes over its process group, expanded by
//!   [`crate::mpi::collectives::expand`] with the run's algorithms. `comm_size` is the whole
//!   buffer, as in ASTRA-sim (whose ring sends `comm_size / p` per step): an all-gather gathers
//!   `comm_size / p` bytes per rank, an all-to-all sends `comm_size / p` to each rank, a
//!   reduce-scatter leaves `comm_size / p` on each (rounded down); all-reduce and broadcast move
//!   the `comm_size` vector. Roots (broadcast, reduce, gather, scatter) are the group's first rank,
//!   Chakra recording none. The expansion's ops form a chain as the MPI layer runs them in
//!   sequence: after a send (which never blocks) the next op waits for it to start, after a
//!   receive for it to complete. The k-th collective of a group on every rank matches the k-th on
//!   the others (tag `mpi::collective_tag(group, k)`), as NCCL and MPI require one order per group.
//! - `data_deps` and `ctrl_deps` alike become `requires`: a node starts once every op of its
//!   dependencies has completed (a collective's last op and all its sends). Nodes that become no op
//!   (metadata, memory loads and stores, computation without a duration, empty collectives) pass
//!   their dependencies on to their dependents.

use super::proto::{CollectiveCommType, Node, NodeType, Value};
use crate::error::{Error, Result};
use crate::mpi::collectives::{self, Algorithms, Collective};
use crate::program::CallStats;
use crate::program::Op;
use crate::program::graph::{self, Action};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::Path;

/// Process groups by `pg_name`: their ranks, and their context (1, 2, ... in name order; 0 is
/// the group of every rank).
#[derive(Debug, Default)]
pub struct Groups {
    by_name: HashMap<String, (u32, Vec<u32>)>,
}

impl Groups {
    /// Groups of two ranks or more (the communicators with traffic to tell apart).
    pub fn communicators(&self) -> u32 {
        self.by_name.values().filter(|(_, r)| r.len() >= 2).count() as u32
    }

    /// Reads `comm_group.json` (`{"NAME": [rank, ...], ...}`), checking ranks below `n`.
    pub fn read(path: &Path, n: u32) -> Result<Groups> {
        let text =
            crate::input::read_text(path, "a process-group file", crate::input::MAX_TEXT_BYTES)?;
        let parsed: std::collections::BTreeMap<String, Vec<u32>> = serde_json::from_str(&text)
            .map_err(|e| Error::File {
                path: path.display().to_string(),
                line: e.line(),
                column: e.column().max(1),
                message: format!("expected {{\"NAME\": [rank, ...], ...}}: {e}"),
            })?;
        let mut by_name = HashMap::new();
        for (i, (name, ranks)) in parsed.into_iter().enumerate() {
            if let Some(r) = ranks.iter().find(|&&r| r >= n) {
                return Err(Error::Invalid(format!(
                    "{}: group `{name}` names rank {r}, but the trace has ranks 0..{n}",
                    path.display()
                )));
            }
            let mut sorted = ranks.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.len() != ranks.len() {
                return Err(Error::Invalid(format!(
                    "{}: group `{name}` names a rank twice",
                    path.display()
                )));
            }
            by_name.insert(name, (i as u32 + 1, ranks));
        }
        Ok(Groups { by_name })
    }
}

/// What lowering every rank shares.
pub struct Lowering<'a> {
    /// The trace's rank count.
    pub ranks: u32,
    /// Process groups.
    pub groups: &'a Groups,
    /// Collective algorithms.
    pub algorithms: &'a Algorithms,
    /// Cycles per traced second.
    pub cycles_per_second: f64,
    /// The trace's calls, counted as they are lowered (collectives once per group, as its first
    /// rank sees them), for `trace check`.
    pub stats: CallStats,
}

/// A node's integer attribute `key`, if present.
fn int_attr(node: &Node, key: &str, at: &str) -> Result<Option<i128>> {
    let Some(a) = node.attr.iter().find(|a| a.name == key) else {
        return Ok(None);
    };
    match &a.value {
        Some(v) => v
            .integer()
            .map(Some)
            .ok_or_else(|| Error::Invalid(format!("{at}: attribute `{key}` is not an integer"))),
        None => Ok(None),
    }
}

/// A required integer attribute in `0..=max`.
fn need(node: &Node, key: &str, max: u64, at: &str) -> Result<u64> {
    let v = int_attr(node, key, at)?
        .ok_or_else(|| Error::Invalid(format!("{at}: no `{key}` attribute")))?;
    u64::try_from(v)
        .ok()
        .filter(|&v| v <= max)
        .ok_or_else(|| Error::Invalid(format!("{at}: `{key}` = {v} is out of range 0..={max}")))
}

impl Lowering<'_> {
    /// Lowers one rank's nodes (each with its byte offset in `file`).
    pub fn rank(
        &mut self,
        rank: u32,
        file: &str,
        nodes: Vec<(u64, Node)>,
    ) -> Result<Vec<graph::Node>> {
        let at = |i: usize| {
            let (offset, n) = &nodes[i];
            format!("{file}: byte {offset}: node {} `{}`", n.id, n.name)
        };
        let mut index = HashMap::with_capacity(nodes.len());
        for (i, (_, n)) in nodes.iter().enumerate() {
            if index.insert(n.id, i).is_some() {
                return Err(Error::Invalid(format!(
                    "{}: a second node with id {}",
                    at(i),
                    n.id
                )));
            }
        }
        // Dependency order, file order among ready nodes.
        let mut waiting = vec![0u32; nodes.len()];
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (i, (_, n)) in nodes.iter().enumerate() {
            for d in n.data_deps.iter().chain(&n.ctrl_deps) {
                let Some(&j) = index.get(d) else {
                    return Err(Error::Invalid(format!(
                        "{}: depends on node {d}, which this rank's file does not have",
                        at(i)
                    )));
                };
                waiting[i] += 1;
                dependents[j].push(i);
            }
        }
        let mut ready: BinaryHeap<Reverse<usize>> = (0..nodes.len())
            .filter(|&i| waiting[i] == 0)
            .map(Reverse)
            .collect();
        let mut out: Vec<graph::Node> = Vec::new();
        // Per node: the ops a dependent must wait for.
        let mut ends: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
        let mut seq: HashMap<u32, u64> = HashMap::new();
        let mut done = 0;
        while let Some(Reverse(i)) = ready.pop() {
            done += 1;
            let node = &nodes[i].1;
            let mut after: Vec<u32> = node
                .data_deps
                .iter()
                .chain(&node.ctrl_deps)
                .flat_map(|d| ends[index[d]].iter().copied())
                .collect();
            after.sort_unstable();
            after.dedup();
            let here = at(i);
            let first = out.len() as u32;
            self.node(rank, node, &here, &after, &mut seq, &mut out)?;
            ends[i] = if out.len() as u32 == first {
                after
            } else {
                (first..out.len() as u32)
                    .filter(|&k| {
                        k + 1 == out.len() as u32
                            || matches!(out[k as usize].action, Action::Send { .. })
                    })
                    .collect()
            };
            for &d in &dependents[i] {
                waiting[d] -= 1;
                if waiting[d] == 0 {
                    ready.push(Reverse(d));
                }
            }
        }
        if done < nodes.len() {
            let stuck = (0..nodes.len()).find(|&i| waiting[i] > 0).unwrap_or(0);
            return Err(Error::Invalid(format!(
                "{}: its dependencies form a cycle, so it can never start",
                at(stuck)
            )));
        }
        Ok(out)
    }

    /// Appends the ops of one node, the first requiring `after`.
    fn node(
        &mut self,
        rank: u32,
        node: &Node,
        at: &str,
        after: &[u32],
        seq: &mut HashMap<u32, u64>,
        out: &mut Vec<graph::Node>,
    ) -> Result<()> {
        let push = |out: &mut Vec<graph::Node>, action| {
            out.push(graph_op(action, after.to_vec(), vec![], at))
        };
        let max_rank = u64::from(self.ranks - 1);
        match NodeType::try_from(node.r#type) {
            Ok(NodeType::CompNode) => {
                let cycles = (node.duration_micros as f64 * self.cycles_per_second / 1e6).round();
                if cycles >= crate::network::MAX_CYCLE as f64 {
                    return Err(Error::Invalid(format!(
                        "{at}: {} µs is past the simulator's clock",
                        node.duration_micros
                    )));
                }
                if cycles > 0.0 {
                    let cycles = cycles as u64;
                    self.stats.compute(cycles);
                    push(out, Action::Calc { cycles });
                }
            }
            Ok(NodeType::CommSendNode) => {
                let to = need(node, "comm_dst", max_rank, at)? as u32;
                let bytes = need(node, "comm_size", u64::MAX, at)?;
                let tag = self.tag(node, at)?;
                self.stats.send("send", bytes, to == rank);
                push(out, Action::Send { to, bytes, tag });
            }
            Ok(NodeType::CommRecvNode) => {
                let from = need(node, "comm_src", max_rank, at)? as u32;
                let tag = self.tag(node, at)?;
                self.stats.receive(false);
                push(out, Action::Recv { from, tag });
            }
            Ok(NodeType::CommCollNode) => self.collective(rank, node, at, after, seq, out)?,
            Ok(_) => {}
            Err(_) => {
                return Err(Error::Invalid(format!(
                    "{at}: node type {} is not one of Chakra's (0..=7)",
                    node.r#type
                )));
            }
        }
        Ok(())
    }

    /// A point-to-point `comm_tag` (0 if absent), in the user tag space (below 2^32).
    fn tag(&self, node: &Node, at: &str) -> Result<u64> {
        Ok(match int_attr(node, "comm_tag", at)? {
            None => 0,
            Some(_) => need(node, "comm_tag", u64::from(u32::MAX), at)?,
        })
    }

    /// Expands a collective node over its group, chaining its ops.
    fn collective(
        &mut self,
        rank: u32,
        node: &Node,
        at: &str,
        after: &[u32],
        seq: &mut HashMap<u32, u64>,
        out: &mut Vec<graph::Node>,
    ) -> Result<()> {
        let world: Vec<u32>;
        let (context, members) = match node.attr.iter().find(|a| a.name == "pg_name") {
            Some(a) => {
                let Some(Value::String(name)) = &a.value else {
                    return Err(Error::Invalid(format!("{at}: `pg_name` is not a string")));
                };
                let Some((context, ranks)) = self.groups.by_name.get(name) else {
                    return Err(Error::Invalid(format!(
                        "{at}: process group `{name}` is not in a process-group file beside the \
                         rank files (NAME.json or {}: `{{\"{name}\": [rank, ...]}}`)",
                        super::COMM_GROUPS
                    )));
                };
                (*context, ranks.as_slice())
            }
            None => {
                world = (0..self.ranks).collect();
                (0, world.as_slice())
            }
        };
        let Some(me) = members.iter().position(|&r| r == rank) else {
            return Err(Error::Invalid(format!(
                "{at}: rank {rank} is not in the collective's process group"
            )));
        };
        let p = members.len() as u32;
        let kind = need(node, "comm_type", 9, at)?;
        let size = match kind {
            9 => 0,
            _ => need(node, "comm_size", u64::MAX, at)?,
        };
        let block = size / u64::from(p);
        let c = match CollectiveCommType::try_from(kind as i32).expect("checked 0..=9") {
            CollectiveCommType::AllReduce => Collective::Allreduce { bytes: size },
            CollectiveCommType::Reduce => Collective::Reduce {
                root: 0,
                bytes: size,
            },
            CollectiveCommType::AllGather => Collective::Allgather { bytes: block },
            CollectiveCommType::Gather => Collective::Gather {
                root: 0,
                bytes: block,
            },
            CollectiveCommType::Scatter => Collective::Scatter {
                root: 0,
                bytes: block,
            },
            CollectiveCommType::Broadcast => Collective::Bcast {
                root: 0,
                bytes: size,
            },
            CollectiveCommType::AllToAll => Collective::Alltoall { bytes: block },
            CollectiveCommType::ReduceScatter | CollectiveCommType::ReduceScatterBlock => {
                Collective::ReduceScatterBlock { bytes: block }
            }
            CollectiveCommType::Barrier => Collective::Barrier,
        };
        self.stats.collective(context, p, me as u32, c.name());
        let k = seq.entry(context).or_insert(0);
        let tag = crate::mpi::collective_tag(context, *k);
        *k += 1;
        let mut ops = Vec::new();
        collectives::expand(&c, p, me as u32, tag, self.algorithms, &mut ops);
        let mut prev: Option<(u32, bool)> = None;
        for op in ops {
            let action = match op {
                Op::Send { to, bytes, tag } => Action::Send {
                    to: members[to as usize],
                    bytes,
                    tag,
                },
                Op::Recv { from, tag } => Action::Recv {
                    from: members[from as usize],
                    tag,
                },
                other => unreachable!("collectives expand into sends and receives, not {other:?}"),
            };
            let (requires, irequires) = match prev {
                None => (after.to_vec(), vec![]),
                Some((k, true)) => (vec![], vec![k]),
                Some((k, false)) => (vec![k], vec![]),
            };
            prev = Some((out.len() as u32, matches!(action, Action::Send { .. })));
            out.push(graph_op(action, requires, irequires, at));
        }
        Ok(())
    }
}

/// A graph node on CPU 0.
fn graph_op(action: Action, requires: Vec<u32>, irequires: Vec<u32>, at: &str) -> graph::Node {
    graph::Node {
        action,
        cpu: 0,
        requires,
        irequires,
        at: at.to_string(),
    }
}
