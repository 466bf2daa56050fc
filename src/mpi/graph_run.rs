//! The runtime's graph mode: a rank whose program carries a [`Graph`] (GOAL's schedules) starts
//! each op when its dependencies are met, instead of one after another.
//!
//! - An op is **ready** once every op it `requires` has completed and every op it `irequires` has
//!   started. Ready ops start at once, lowest op index first (the order the reader gave them), each
//!   start possibly readying more, until none is ready; so a run is deterministic.
//! - A **send** starts as `MPI_Isend` with the op's index as its request: complete at once when eager
//!   (or to itself), at its clear-to-send under rendezvous. A **receive** is posted as `MPI_Irecv`
//!   and completes when its data has been consumed; matching is MPI's (source and tag, oldest first).
//! - A **calc** runs on its CPU (GOAL's `cpu`, 0 by default), one computation at a time per CPU:
//!   a calc whose CPU is busy waits, in the order it became ready, and *starts* (for `irequires`)
//!   only when it gets the CPU. A calc of 0 cycles completes as it starts.
//! - A rank is finished when every op has completed. Time split: computation is the calcs' cycles;
//!   a graph rank never blocks, so its send and wait times stay 0.

use super::{Pending, Ranks};
use crate::network::Step;
use crate::program::Op;
use crate::program::graph::Graph;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

/// The dependency bookkeeping of every rank of a graph program.
#[derive(Debug)]
pub(super) struct GraphState {
    /// Per rank and op: dependencies still to complete (`requires`) and to start (`irequires`).
    to_complete: Vec<Vec<u32>>,
    to_start: Vec<Vec<u32>>,
    /// Per rank and op: the ops waiting for it to complete, and for it to start.
    on_complete: Vec<Vec<Vec<u32>>>,
    on_start: Vec<Vec<Vec<u32>>>,
    /// Per rank: ops ready to start, lowest index first.
    ready: Vec<BTreeSet<u32>>,
    /// Per rank: ops completed.
    completed: Vec<u32>,
    /// Per rank: calcs running, as (end cycle, op), earliest first.
    running: Vec<BinaryHeap<Reverse<(u64, u32)>>>,
    /// Per rank: (cpu, busy, calcs waiting for it in the order they became ready).
    cpus: Vec<Vec<(u32, bool, VecDeque<u32>)>>,
}

impl GraphState {
    /// Every rank at its start: the ops without dependencies ready.
    pub(super) fn new(graph: &Graph) -> GraphState {
        let n = graph.ranks() as usize;
        let mut s = GraphState {
            to_complete: Vec::with_capacity(n),
            to_start: Vec::with_capacity(n),
            on_complete: Vec::with_capacity(n),
            on_start: Vec::with_capacity(n),
            ready: vec![BTreeSet::new(); n],
            completed: vec![0; n],
            running: vec![BinaryHeap::new(); n],
            cpus: vec![Vec::new(); n],
        };
        for r in 0..n as u32 {
            let ops = graph.ops(r);
            let mut on_complete = vec![Vec::new(); ops as usize];
            let mut on_start = vec![Vec::new(); ops as usize];
            let (mut to_complete, mut to_start) = (Vec::new(), Vec::new());
            for op in 0..ops {
                let (req, ireq) = (graph.requires(r, op), graph.irequires(r, op));
                for &d in req {
                    on_complete[d as usize].push(op);
                }
                for &d in ireq {
                    on_start[d as usize].push(op);
                }
                to_complete.push(req.len() as u32);
                to_start.push(ireq.len() as u32);
                if req.is_empty() && ireq.is_empty() {
                    s.ready[r as usize].insert(op);
                }
            }
            s.to_complete.push(to_complete);
            s.to_start.push(to_start);
            s.on_complete.push(on_complete);
            s.on_start.push(on_start);
        }
        s
    }

    /// Op `op` of `rank` started (`start`) or completed: its dependents' counts drop, and those
    /// with none left become ready.
    fn event(&mut self, rank: u32, op: u32, start: bool) {
        let r = rank as usize;
        let list = if start {
            &self.on_start[r][op as usize]
        } else {
            &self.on_complete[r][op as usize]
        };
        for &d in list {
            let d = d as usize;
            let count = if start {
                &mut self.to_start[r][d]
            } else {
                &mut self.to_complete[r][d]
            };
            *count -= 1;
            if self.to_start[r][d] == 0 && self.to_complete[r][d] == 0 {
                self.ready[r].insert(d as u32);
            }
        }
        if !start {
            self.completed[r] += 1;
        }
    }

    /// The state of `rank`'s CPU `cpu`, created idle on first use.
    fn cpu(&mut self, rank: u32, cpu: u32) -> &mut (u32, bool, VecDeque<u32>) {
        let list = &mut self.cpus[rank as usize];
        let i = match list.iter().position(|c| c.0 == cpu) {
            Some(i) => i,
            None => {
                list.push((cpu, false, VecDeque::new()));
                list.len() - 1
            }
        };
        &mut list[i]
    }
}

impl Ranks<'_> {
    /// Starts every ready op of `rank`, lowest index first, until none is ready; the rank is
    /// finished once every op has completed.
    pub(super) fn advance_graph(&mut self, rank: u32, out: &mut Vec<Step>) {
        let r = rank as usize;
        while let Some(op) = self.graph_state().ready[r].pop_first() {
            self.start_op(rank, op, out);
        }
        let ops = self.program.rank_ops(rank).len() as u32;
        let g = self.graph_state();
        if g.completed[r] == ops {
            // Marked past the count so a later call does not finish the rank twice.
            g.completed[r] = ops + 1;
            self.rank_finished(rank);
        }
    }

    fn graph_state(&mut self) -> &mut GraphState {
        self.graph.as_deref_mut().expect("graph mode")
    }

    fn start_op(&mut self, rank: u32, op: u32, out: &mut Vec<Step>) {
        match self.program.rank_ops(rank)[op as usize] {
            Op::Send { to, bytes, tag } => {
                self.graph_state().event(rank, op, true);
                self.send(rank, to, bytes, tag, op, false, out);
                if !self.pending.contains(rank, op) {
                    self.graph_state().event(rank, op, false);
                }
            }
            Op::Recv { from, tag } => {
                self.graph_state().event(rank, op, true);
                if self.post(rank, from, tag, op, out) {
                    self.graph_state().event(rank, op, false);
                }
            }
            Op::Compute { cycles } => {
                let cpu = self.program.graph().expect("graph mode").cpu(rank, op);
                let state = self.graph_state().cpu(rank, cpu);
                if state.1 {
                    state.2.push_back(op);
                } else {
                    self.start_calc(rank, op, cycles, out);
                }
            }
            other => unreachable!("graph programs hold sends, receives and calcs, not {other:?}"),
        }
    }

    /// Op `op` (a calc) of `rank` gets its CPU now.
    fn start_calc(&mut self, rank: u32, op: u32, cycles: u64, out: &mut Vec<Step>) {
        let c = self.model.compute_cycles(cycles);
        self.graph_state().event(rank, op, true);
        if c == 0 {
            self.graph_state().event(rank, op, false);
            return;
        }
        let r = rank as usize;
        self.compute[r] = self.compute[r].saturating_add(c);
        let cpu = self.program.graph().expect("graph mode").cpu(rank, op);
        let end = self.now.saturating_add(c);
        let g = self.graph_state();
        g.cpu(rank, cpu).1 = true;
        g.running[r].push(Reverse((end, op)));
        if let Some(w) = self.watch.as_deref_mut() {
            w.sleep_since[r] = self.now;
            w.sleep_copy[r] = false;
        }
        out.push(Step::Sleep { rank, cycles: c });
    }

    /// A wake-up of `rank`: its earliest running calc ended; its CPU takes the next waiting calc.
    pub(super) fn wake_graph(&mut self, rank: u32, out: &mut Vec<Step>) {
        let r = rank as usize;
        let Some(Reverse((_, op))) = self.graph_state().running[r].pop() else {
            return;
        };
        self.graph_state().event(rank, op, false);
        let cpu = self.program.graph().expect("graph mode").cpu(rank, op);
        let state = self.graph_state().cpu(rank, cpu);
        state.1 = false;
        if let Some(next) = state.2.pop_front()
            && let Op::Compute { cycles } = self.program.rank_ops(rank)[next as usize]
        {
            self.start_calc(rank, next, cycles, out);
        }
        self.advance_graph(rank, out);
    }

    /// Request `req` (an op) of `rank` completed.
    pub(super) fn complete_graph(&mut self, rank: u32, req: u32) {
        if self.pending.remove(rank, req).is_some() {
            self.outstanding[rank as usize] -= 1;
        }
        self.graph_state().event(rank, req, false);
    }

    /// Ranks of a graph program with receives outstanding: (rank, source, tag) of the smallest.
    pub(super) fn blocked_graph(&self) -> Vec<(u32, u32, u64)> {
        let mut by_rank: Vec<Option<(u32, u64)>> = vec![None; self.count() as usize];
        for (rank, p) in self.pending.iter() {
            if let Pending::Recv { from, tag } | Pending::Data { from, tag } = *p {
                let slot = &mut by_rank[rank as usize];
                *slot = Some(slot.map_or((from, tag), |s| s.min((from, tag))));
            }
        }
        by_rank
            .into_iter()
            .enumerate()
            .filter_map(|(r, s)| s.map(|(from, tag)| (r as u32, from, tag)))
            .collect()
    }
}
