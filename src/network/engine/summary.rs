//! The end of a run: final counters and link loads, or a deadlock report saying who waits on what.

use super::*;

impl<D: Driver> Engine<'_, D> {
    // ---- end of run ----

    /// The queue ran dry: either every source finished and every message was consumed, or nothing can
    /// move any more (a deadlock, reported with who waits on what).
    pub(super) fn finish(self) -> Result<(Outcome, D)> {
        if self.driver.complete() && self.messages_open == 0 {
            // Every credit is home once the event queue is empty: each buffer's room is whole again
            // (under phit credits, every borrowed phit repaid).
            debug_assert!(
                (0..self.bufs.len()).all(|b| {
                    self.is_injection(b as u32)
                        || self.bufs[b].free
                            == u32::from(self.fifo_cap(b as u32)) * self.packet_phits
                            && self.lent.get(b).is_none_or(|&l| l == 0)
                }),
                "a buffer's credits did not all return"
            );
            return Ok(self.summarise());
        }
        let in_network = self.outcome.phits_injected - self.outcome.phits_delivered;
        let mut stuck_buffers = Vec::new();
        for b in 0..self.inj_base {
            if self.bufs[b as usize].fifo_len > 0 && stuck_buffers.len() < 6 {
                let port = b / self.vcs;
                let sw = self.port_switch[port as usize];
                stuck_buffers.push(format!(
                    "switch {sw} port {} vc {} holds {} packets",
                    port - self.port_start[sw as usize],
                    b % self.vcs,
                    self.bufs[b as usize].fifo_len
                ));
            }
        }
        let blocked = self.driver.blocked();
        Err(Error::Deadlock(Box::new(DeadlockReport {
            cycle: self.now,
            packets_in_network: in_network / u64::from(self.packet_phits),
            stuck_buffers,
            blocked_total: blocked.len(),
            blocked_ranks: blocked.into_iter().take(8).collect(),
        })))
    }

    /// Final counters, with link loads grouped by class and the busiest links.
    pub(super) fn summarise(mut self) -> (Outcome, D) {
        // The link iterator reads the engine, so the counters are closed outside it.
        let mut outcome = std::mem::take(&mut self.outcome);
        outcome.close(
            self.active_at,
            u64::from(self.packet_phits),
            self.latency_sum,
            self.messages_open,
            self.link_classes
                .run_links(self.topo, &self.chan_phits, |c| self.link_name(c)),
        );
        (outcome, self.driver)
    }

    /// Class (for grouping) and name (for listing) of link channel `c`; `None` if it is unplugged.
    pub(super) fn describe_link(&self, c: u32) -> Option<(String, String)> {
        let class = self.link_classes.get(c)?;
        Some((self.link_classes.spell(class, self.topo), self.link_name(c)))
    }

    /// The name of link `c` in reports.
    fn link_name(&self, c: u32) -> String {
        if c >= self.ports {
            return crate::network::stats::injection_name(c - self.ports);
        }
        let sw = self.port_switch[c as usize];
        crate::network::stats::port_name(self.topo, sw, c - self.port_start[sw as usize])
    }
}
