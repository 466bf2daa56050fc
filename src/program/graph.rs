//! Dependency-graph workloads: per rank, operations that start when their dependencies are met
//! instead of one after another (GOAL's schedules; the MPI runtime's graph mode runs them, see
//! `mpi/graph_run.rs`).
//!
//! A graph program is an ordinary [`Program`] whose ops are `Send`, `Recv` and `Compute` (so counts,
//! checks, placement, memory estimates and reports read it as any other), plus a [`Graph`] beside
//! it: for each op, the ops that must have *completed* (`requires`) and the ops that must have
//! *started* (`irequires`) before it may start, and the CPU its computation runs on. Readers decode
//! into [`Node`]s; [`build`] checks them (peers, dependency indices, cycles) and makes the program.

use super::{Op, Program};
use crate::error::{Error, Result};

/// What one operation of a rank does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Send `bytes` to rank `to` with matching `tag` (a point-to-point tag, or a lowered
    /// collective's, whose upper bits hold its context: `mpi::collective_tag`) (started like `MPI_Isend`; complete when the MPI model
    /// says the send is: at once when eager, at the clear-to-send under rendezvous).
    Send { to: u32, bytes: u64, tag: u64 },
    /// Receive from rank `from` with `tag` (posted like `MPI_Irecv`; complete when the data is in).
    Recv { from: u32, tag: u64 },
    /// Compute for `cycles` on the node's CPU (one computation at a time per CPU).
    Calc { cycles: u64 },
}

/// One operation as a reader decodes it, with its dependencies as indices into its rank's nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// What it does.
    pub action: Action,
    /// The CPU a computation runs on (GOAL's `cpu`; 0 by default).
    pub cpu: u32,
    /// Ops that must have completed before this one starts.
    pub requires: Vec<u32>,
    /// Ops that must have started before this one starts.
    pub irequires: Vec<u32>,
    /// Where the reader found it (`file:line`), for errors.
    pub at: String,
}

/// The dependencies of every rank's ops, beside a [`Program`] whose ops they index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    ranks: Vec<RankGraph>,
}

/// One rank's dependency lists, flattened: op `i`'s requires are
/// `edges[requires[i]..requires[i + 1]]`, its irequires `edges[irequires[i]..irequires[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct RankGraph {
    edges: Vec<u32>,
    requires: Vec<u32>,
    irequires: Vec<u32>,
    cpu: Vec<u32>,
}

impl Graph {
    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// The op count of `rank`.
    pub fn ops(&self, rank: u32) -> u32 {
        self.ranks[rank as usize].cpu.len() as u32
    }

    /// The ops op `op` of `rank` waits to complete.
    pub fn requires(&self, rank: u32, op: u32) -> &[u32] {
        let g = &self.ranks[rank as usize];
        let i = op as usize;
        &g.edges[g.requires[i] as usize..g.requires[i + 1] as usize]
    }

    /// The ops op `op` of `rank` waits to start.
    pub fn irequires(&self, rank: u32, op: u32) -> &[u32] {
        let g = &self.ranks[rank as usize];
        let i = op as usize;
        &g.edges[g.irequires[i] as usize..g.irequires[i + 1] as usize]
    }

    /// The CPU op `op` of `rank` computes on.
    pub fn cpu(&self, rank: u32, op: u32) -> u32 {
        self.ranks[rank as usize].cpu[op as usize]
    }

    /// The dependencies of `ranks` only, rank `ranks[i]` becoming rank `i` (dependencies are
    /// rank-local, so nothing in them is renumbered): the graph of one job of a merged schedule.
    pub fn subset(&self, ranks: &[u32]) -> Graph {
        Graph {
            ranks: ranks
                .iter()
                .map(|&r| self.ranks[r as usize].clone())
                .collect(),
        }
    }
}

/// The most ops one rank of a graph may have: op indices are request ids in the runtime, which
/// keeps the last two for itself.
pub const MAX_OPS_PER_RANK: usize = (u32::MAX - 2) as usize;

/// Builds the program of `nodes` (one list per rank), checking every peer and dependency index
/// and that no rank's dependencies form a cycle (which could never start); errors name the node's
/// position.
pub fn build(nodes: Vec<Vec<Node>>) -> Result<Program> {
    let n = nodes.len() as u32;
    let mut graph = Graph { ranks: Vec::new() };
    let mut ops_per_rank = Vec::with_capacity(nodes.len());
    for (r, list) in nodes.iter().enumerate() {
        if list.len() > MAX_OPS_PER_RANK {
            return Err(Error::Invalid(format!(
                "rank {r} has {} operations; at most {MAX_OPS_PER_RANK} per rank",
                list.len()
            )));
        }
        let mut g = RankGraph::default();
        let mut ops = Vec::with_capacity(list.len());
        for node in list {
            let peer = match node.action {
                Action::Send { to, .. } => Some(to),
                Action::Recv { from, .. } => Some(from),
                Action::Calc { .. } => None,
            };
            if let Some(p) = peer.filter(|&p| p >= n) {
                return Err(Error::Invalid(format!(
                    "{}: rank {p} does not exist (the graph has ranks 0..{n})",
                    node.at
                )));
            }
            ops.push(match node.action {
                Action::Send { to, bytes, tag } => Op::Send { to, bytes, tag },
                Action::Recv { from, tag } => Op::Recv { from, tag },
                Action::Calc { cycles } => Op::Compute { cycles },
            });
            g.cpu.push(node.cpu);
        }
        let mut requires = vec![0u32];
        let mut edges = Vec::new();
        for node in list {
            for &d in &node.requires {
                edges.push(dep(d, list.len(), &node.at)?);
            }
            requires.push(edges.len() as u32);
        }
        let mut irequires = vec![edges.len() as u32];
        for node in list {
            for &d in &node.irequires {
                edges.push(dep(d, list.len(), &node.at)?);
            }
            irequires.push(edges.len() as u32);
        }
        g.requires = requires;
        g.irequires = irequires;
        g.edges = edges;
        graph.ranks.push(g);
        check_acyclic(&graph, r as u32, list)?;
        ops_per_rank.push(ops);
    }
    let program = Program::from_rank_vecs(ops_per_rank);
    program.validate()?;
    Ok(program.with_graph(graph))
}

/// A dependency index, checked against the rank's op count.
fn dep(d: u32, ops: usize, at: &str) -> Result<u32> {
    if (d as usize) < ops {
        Ok(d)
    } else {
        Err(Error::Invalid(format!(
            "{at}: depends on an operation that does not exist"
        )))
    }
}

/// Refuses a dependency cycle of `rank` (Kahn's algorithm over both kinds of edges), naming one
/// operation on it.
fn check_acyclic(graph: &Graph, rank: u32, nodes: &[Node]) -> Result<()> {
    let ops = nodes.len();
    let mut indegree = vec![0u32; ops];
    let mut dependents: Vec<Vec<u32>> = vec![Vec::new(); ops];
    for op in 0..ops as u32 {
        for &d in graph
            .requires(rank, op)
            .iter()
            .chain(graph.irequires(rank, op))
        {
            indegree[op as usize] += 1;
            dependents[d as usize].push(op);
        }
    }
    let mut ready: Vec<u32> = (0..ops as u32)
        .filter(|&i| indegree[i as usize] == 0)
        .collect();
    let mut seen = 0;
    while let Some(op) = ready.pop() {
        seen += 1;
        for &d in &dependents[op as usize] {
            indegree[d as usize] -= 1;
            if indegree[d as usize] == 0 {
                ready.push(d);
            }
        }
    }
    if seen == ops {
        return Ok(());
    }
    let stuck = indegree.iter().position(|&d| d > 0).unwrap_or(0);
    Err(Error::Invalid(format!(
        "{}: rank {rank}'s dependencies form a cycle through this operation, so it can never start",
        nodes[stuck].at
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(action: Action, requires: &[u32], irequires: &[u32]) -> Node {
        Node {
            action,
            cpu: 0,
            requires: requires.to_vec(),
            irequires: irequires.to_vec(),
            at: "t:1".into(),
        }
    }

    #[test]
    fn dependencies_are_kept_and_checked() {
        let calc = Action::Calc { cycles: 3 };
        let p = build(vec![
            vec![
                node(calc, &[], &[]),
                node(
                    Action::Send {
                        to: 1,
                        bytes: 8,
                        tag: 2,
                    },
                    &[0],
                    &[],
                ),
                node(calc, &[0], &[1]),
            ],
            vec![node(Action::Recv { from: 0, tag: 2 }, &[], &[])],
        ])
        .unwrap();
        let g = p.graph().unwrap();
        assert_eq!(g.requires(0, 1), &[0]);
        assert_eq!(g.requires(0, 2), &[0]);
        assert_eq!(g.irequires(0, 2), &[1]);
        assert!(g.irequires(0, 1).is_empty() && g.requires(1, 0).is_empty());
        assert_eq!(p.sends().collect::<Vec<_>>(), vec![(0, 1, 8, 2)]);

        let cycle = build(vec![
            vec![node(calc, &[1], &[]), node(calc, &[], &[0])],
            vec![],
        ]);
        assert!(cycle.unwrap_err().to_string().contains("cycle"));
        let missing = build(vec![vec![node(calc, &[5], &[])], vec![]]);
        assert!(missing.unwrap_err().to_string().contains("does not exist"));
        let peer = build(vec![
            vec![node(Action::Recv { from: 7, tag: 0 }, &[], &[])],
            vec![],
        ]);
        assert!(peer.unwrap_err().to_string().contains("rank 7"));
    }
}
