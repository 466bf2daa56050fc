//! How much memory a simulation will take, estimated before anything large is built, so that a run
//! too big for the machine is refused at once with the figure instead of growing for minutes and
//! aborting on an allocation failure.
//!
//! The estimate counts the engine's flat arrays (per switch port and virtual channel: a buffer, its
//! credits and FIFO slots; per port and node: a channel with its busy time, phit count and waiter
//! list; per node: its injection queue) and the packet slab at its largest (every FIFO slot full plus
//! a packet on each injection link); a program's operations are `crate::replay::program_bytes`'s.
//! Messages in flight and the event queue grow with the workload's parallelism and are left out;
//! they are small next to the arrays on the networks where the estimate matters.

use super::NetworkModel;
use super::engine::{RECORD_BYTES, ROUTE_BYTES};
use crate::error::{Error, Result};
use crate::topology::Topology;

/// Bytes the engine will allocate for `topo` under `model` (`non_minimal`: the routing uses a
/// second set of virtual channels); the flow model's own arrays when `model` chooses it.
pub fn engine_bytes(topo: &dyn Topology, model: &NetworkModel, non_minimal: bool) -> u64 {
    if model.model == super::Model::Flow {
        return super::flow::memory_bytes(topo);
    }
    let [buffer, channel, packet, _] = RECORD_BYTES.map(|b| b as u64);
    let vcs = u64::from(topo.virtual_channels())
        * if non_minimal { 2 } else { 1 }
        * u64::from(model.virtual_channels);
    let nodes = u64::from(topo.nodes());
    let switches = u64::from(topo.switches());
    let ports: u64 = (0..topo.switches()).map(|s| u64::from(topo.ports(s))).sum();
    let output = u64::from(model.output_queue_packets > 0);
    let queues = ports * vcs * (1 + output);
    let buffers = queues + nodes;
    let channels = ports * (1 + output) + nodes;
    let slots = ports
        * vcs
        * (u64::from(model.input_queue_packets) + u64::from(model.output_queue_packets));
    // Per buffer: the record (free phits included), the construction-time free-phit, feeder and
    // capacity arrays, and the room lent under phit credits.
    let lent = if model.credits == super::CreditUnit::Phit {
        2
    } else {
        0
    };
    // A watching buffer has an entry of 8 bytes on each of its candidates' channels: 4 on average.
    let per_buffer = buffer + 4 + 4 + 4 + lent + 32;
    // Per channel: the record, busy-until and phit counters, its next buffer, latency, waiter and
    // watcher lists (their entries are bounded by the buffers waiting, counted with the buffers),
    // and a byte for its two bits saying whether those lists are empty (a quarter of that is used).
    let per_channel = channel + 8 + 8 + 4 + 4 + 24 + 24 + 1;
    // Per node: attachment, rank map, the ends of its queue of messages; per switch port: its
    // switch and start.
    let per_node = 4 + 4 + 4 + super::node_queues::NodeQueues::BYTES_PER_NODE;
    let packets = (slots + nodes) * (packet + 4);
    // Per switch input queue: the candidates its head keeps while it waits (`engine/routes.rs`).
    let kept = ports * vcs * ROUTE_BYTES as u64;
    buffers * per_buffer
        + kept
        + slots * 4
        + channels * per_channel
        + nodes * per_node
        + ports * 4
        + switches * 4
        // Per link (switch ports and injection links): its class for the summary.
        + (ports + nodes) * super::stats::CLASS_BYTES_PER_LINK
        + packets
}

/// Memory the machine can give now: `MemAvailable` of `/proc/meminfo` (Linux), else `None`.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

thread_local! {
    /// The `--max-memory` value of the command running on this thread, while it builds its inputs.
    static LIMIT: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Runs `build` with `limit` (a `--max-memory` value) as the limit of what is built on this thread
/// meanwhile ([`Cap::current`]): a trace is read by a workload's registry entry, which takes only
/// its spec, so a run's limit reaches the trace's lowering this way. The previous limit is restored
/// afterwards.
pub fn with_limit<T>(limit: Option<u64>, build: impl FnOnce() -> T) -> T {
    let before = LIMIT.with(|l| l.replace(limit));
    let out = build();
    LIMIT.with(|l| l.set(before));
    out
}

/// A memory cap for what is built step by step (a trace's program as its calls are lowered), read
/// once so each step's check is a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    /// The bytes allowed.
    pub bytes: u64,
    /// Whether they come from `--max-memory` (else from the memory available when it was read).
    pub given: bool,
}

impl Cap {
    /// The cap in force on this thread: the `--max-memory` of [`with_limit`], else the memory
    /// available on the machine now; `None` when neither is known.
    pub fn current() -> Option<Cap> {
        Cap::of(LIMIT.with(std::cell::Cell::get))
    }

    /// The cap of a `--max-memory` value `limit`, else the memory available on the machine now;
    /// `None` when neither is known.
    pub fn of(limit: Option<u64>) -> Option<Cap> {
        match limit {
            Some(bytes) => Some(Cap { bytes, given: true }),
            None => available_bytes().map(|bytes| Cap {
                bytes,
                given: false,
            }),
        }
    }

    /// The refusal of `what`, estimated at `bytes` past this cap (what [`check`] says too).
    pub fn refusal(&self, bytes: u64, what: &str) -> String {
        let (source, advice) = if self.given {
            ("the --max-memory limit", ", or raise --max-memory")
        } else {
            (
                "the memory available on this machine",
                " (or pass --max-memory to override the check)",
            )
        };
        format!(
            "{what} would need about {} but {source} is {}; use a smaller network or \
             workload{advice}",
            human(bytes),
            human(self.bytes)
        )
    }
}

/// Refuses a run whose estimated `bytes` exceed `limit` (a `--max-memory` value) or, without one,
/// the memory available now; `what` says what was estimated.
pub fn check(bytes: u64, limit: Option<u64>, what: &str) -> Result<()> {
    match Cap::of(limit) {
        Some(cap) if bytes > cap.bytes => Err(Error::Invalid(cap.refusal(bytes, what))),
        _ => Ok(()),
    }
}

/// `bytes` in binary units, e.g. `7.3 GiB`.
pub fn human(bytes: u64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

/// Parses a memory size: bytes, or a number with a K, M, G or T suffix (binary units, `iB` or `B`
/// optional), e.g. `512M`, `8GiB`, `1.5T`.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => {
            return Err(format!(
                "`{text}`: write bytes or a size like 512M, 8G, 1.5T"
            ));
        }
    };
    let v: f64 = number
        .parse()
        .map_err(|_| format!("`{text}`: write bytes or a size like 512M, 8G, 1.5T"))?;
    let bytes = v * scale as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("`{text}`: a size between 1 byte and 16 EiB"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("8GiB"), Ok(8 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        for bad in ["", "x", "-1G", "1Q", "0", "1e30T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(human(3 << 30), "3.0 GiB");
    }

    /// The 16.7 M-node fat-tree is estimated (without building the engine) at
    /// far more than a small limit, and refused with the figure.
    #[test]
    fn p6_memory_estimate_refuses_a_network_too_large() {
        let topo = crate::topology::build("fat-tree:k=64,n=4").unwrap();
        let bytes = engine_bytes(topo.as_ref(), &NetworkModel::default(), false);
        assert!(bytes > 8 << 30, "{}", human(bytes));
        let e = check(bytes, Some(1 << 30), "the network")
            .unwrap_err()
            .to_string();
        assert!(e.contains("GiB") && e.contains("--max-memory"), "{e}");
        let small = crate::topology::build("fat-tree:k=4,n=2").unwrap();
        let bytes = engine_bytes(small.as_ref(), &NetworkModel::default(), false);
        assert!(bytes < 1 << 20, "{}", human(bytes));
        check(bytes, Some(1 << 30), "the network").unwrap();
    }
}
