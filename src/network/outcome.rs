//! What a simulation measured: the engine's report to the layers above.

use serde::Serialize;

/// What a simulation measured (all zero before a run starts).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Outcome {
    /// Cycle at which the last message was consumed and the network was empty again.
    pub completion_cycles: u64,
    /// Messages sent (and consumed).
    pub messages: u64,
    /// Packets sent.
    pub packets: u64,
    /// Phits sent, padding included (packets x packet size).
    pub phits: u64,
    /// Phits injected into the network by nodes.
    pub phits_injected: u64,
    /// Phits consumed by destination nodes.
    pub phits_delivered: u64,
    /// Phit-link traversals, node links included.
    pub phit_hops: u64,
    /// Mean links crossed per packet, node links included (phit_hops / phits).
    pub mean_hops: f64,
    /// Longest time from a send being issued to its message being consumed, in cycles. In a
    /// replay of rank programs, over the application's messages only, from the send's posting
    /// (its request-to-send under rendezvous) to its data's consumption: the replay layer puts the
    /// MPI layer's figures here, since the engine cannot tell control messages from data.
    pub max_message_latency: u64,
    /// Mean of the same, in cycles.
    pub mean_message_latency: f64,
    /// Events the engine processed.
    pub events: u64,
    /// Times a packet head asked the output selection policy for an output (the engine's main work
    /// besides events).
    pub decisions: u64,
    /// Load per class of link (injection, ejection, tree level up/down, switch-switch).
    pub link_classes: Vec<super::stats::ClassLoad>,
    /// The most loaded links.
    pub busiest_links: Vec<super::stats::LinkLoad>,
}

impl Outcome {
    /// Counts a message issued at `issued_at` and consumed at `now` (the latest consumption so far):
    /// the run's end and longest latency move; returns the message's latency for the mean.
    pub(crate) fn message_consumed(&mut self, now: u64, issued_at: u64) -> u64 {
        let latency = now - issued_at;
        self.max_message_latency = self.max_message_latency.max(latency);
        self.completion_cycles = now;
        latency
    }

    /// Closes the counters at the end of a run (either engine): the run ends no earlier than its last
    /// event at `active_at`; phits, mean hops and mean latency follow from the counts (`latency_sum`
    /// over the messages consumed, all but `messages_open`); `links` give the per-class loads and the
    /// busiest links ([`super::stats::link_loads`] over the run's cycles).
    pub(crate) fn close<K: Copy + PartialEq>(
        &mut self,
        active_at: u64,
        packet_phits: u64,
        latency_sum: u128,
        messages_open: u64,
        links: super::stats::RunLinks<
            impl Iterator<Item = (u32, K, u64)>,
            impl Fn(K) -> String,
            impl Fn(u32) -> String,
        >,
    ) {
        self.completion_cycles = self.completion_cycles.max(active_at);
        self.phits = self.packets * packet_phits;
        if self.phits > 0 {
            self.mean_hops = self.phit_hops as f64 / self.phits as f64;
        }
        let done = self.messages - messages_open;
        if done > 0 {
            self.mean_message_latency = latency_sum as f64 / done as f64;
        }
        (self.link_classes, self.busiest_links) =
            super::stats::link_loads(links, active_at.max(1), packet_phits);
    }
}
