//! Typed errors: every bad input names what was wrong, where, and what is accepted.
//!
//! Library code returns [`Error`]; the binary prints it with `{:#}` and exits non-zero.

use std::fmt;

/// Everything that can go wrong between a spec string and a report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A spec string (`NAME:key=value,...`) that does not parse.
    #[error("malformed {kind} spec `{spec}` at column {column}: {message}")]
    SpecSyntax {
        kind: &'static str,
        spec: String,
        column: usize,
        message: String,
    },
    /// A spec whose name is not in the registry.
    #[error("unknown {kind} `{name}`; accepted: {accepted}")]
    UnknownName {
        kind: &'static str,
        name: String,
        accepted: String,
    },
    /// A key the component does not take.
    #[error("{kind} `{name}` has no parameter `{key}`; accepted: {accepted}")]
    UnknownKey {
        kind: &'static str,
        name: String,
        key: String,
        accepted: String,
    },
    /// A value that is missing, unparsable or out of range.
    #[error("{kind} `{name}`: parameter `{key}` {problem}")]
    BadValue {
        kind: &'static str,
        name: String,
        key: String,
        problem: String,
    },
    /// A combination of valid parts that cannot run together (e.g. more ranks than nodes).
    #[error("{0}")]
    Invalid(String),
    /// A configuration or input file that does not parse, with its position. The message is clipped
    /// when shown (see [`clip`]): it may quote a token of a line without spaces or newlines.
    #[error("{path}:{line}:{column}: {}", clip(message))]
    File {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The simulation stopped making progress before every message was consumed.
    #[error("{0}")]
    Deadlock(Box<DeadlockReport>),
}

impl Error {
    /// An I/O failure on `path`, for `map_err`: `fs::read(p).map_err(Error::io(p.display()))`.
    /// The path is formatted only if the error happens (parsers call this once per line).
    pub fn io<P: fmt::Display>(path: P) -> impl Fn(std::io::Error) -> Error {
        move |source| Error::Io {
            path: path.to_string(),
            source,
        }
    }
}

/// The longest message shown of a file error, in bytes.
const MAX_MESSAGE: usize = 300;

/// `message`, cut to its first `MAX_MESSAGE` (300) bytes (at a character boundary) with how much was left
/// out: a message quoting an input token must not print a gigabyte.
pub fn clip(message: &str) -> std::borrow::Cow<'_, str> {
    if message.len() <= MAX_MESSAGE {
        return message.into();
    }
    let mut end = MAX_MESSAGE;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}... ({} more bytes not shown)",
        &message[..end],
        message.len() - end
    )
    .into()
}

/// Who waits on what when a replay can go no further (NeXosim-style deadlock report).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadlockReport {
    /// Cycle at which the last event was processed.
    pub cycle: u64,
    /// Packets still inside the network (buffers that can never drain).
    pub packets_in_network: u64,
    /// A few of the switch buffers holding stuck packets, as `switch S port P vc V`.
    pub stuck_buffers: Vec<String>,
    /// Ranks blocked in a receive: (rank, source rank it waits for, tag).
    pub blocked_ranks: Vec<(u32, u32, u64)>,
    /// How many ranks are blocked in total (the list above may be truncated).
    pub blocked_total: usize,
}

impl DeadlockReport {
    /// A circle among the blocked ranks listed (each waiting for the next), if there is one: ranks
    /// blocked receiving from each other are not waiting for "messages nobody sends".
    pub fn circular_wait(&self) -> Option<Vec<u32>> {
        let waits_for = |r: u32| self.blocked_ranks.iter().find(|b| b.0 == r).map(|b| b.1);
        for &(start, _, _) in &self.blocked_ranks {
            let mut path = vec![start];
            let mut at = start;
            while let Some(next) = waits_for(at) {
                if let Some(i) = path.iter().position(|&r| r == next) {
                    return Some(path.split_off(i));
                }
                path.push(next);
                at = next;
            }
        }
        None
    }
}

impl fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.packets_in_network > 0 {
            write!(
                f,
                "routing deadlock at cycle {}: {} packets can never advance (e.g. {}); \
                 the routing function is not deadlock-free on this topology with these queue sizes",
                self.cycle,
                self.packets_in_network,
                self.stuck_buffers.join(", ")
            )
        } else {
            let shown: Vec<String> = self
                .blocked_ranks
                .iter()
                .map(|&(r, s, t)| {
                    format!(
                        "rank {r} waits for rank {s} {}",
                        crate::mpi::describe_tag(t)
                    )
                })
                .collect();
            let why = match self.circular_wait() {
                Some(cycle) => format!(
                    "wait for each other in a circle ({}), each blocked before it sends or \
                     receives what the next one waits for",
                    cycle
                        .iter()
                        .chain(cycle.first())
                        .map(|r| format!("rank {r}"))
                        .collect::<Vec<_>>()
                        .join(" -> ")
                ),
                None => "wait for messages nobody sends".into(),
            };
            write!(
                f,
                "the workload cannot complete at cycle {}: {} ranks {why} ({}{})",
                self.cycle,
                self.blocked_total,
                shown.join("; "),
                if self.blocked_total > shown.len() {
                    "; ..."
                } else {
                    ""
                }
            )
        }
    }
}

/// Result with the crate's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A file error quoting a huge token shows a short prefix only.
    #[test]
    fn p7_file_errors_quote_a_short_prefix() {
        let e = Error::File {
            path: "t".into(),
            line: 1,
            column: 1,
            message: format!("found `{}`", "é".repeat(1 << 20)),
        };
        let shown = e.to_string();
        assert!(shown.len() < 400, "{} bytes", shown.len());
        assert!(shown.contains("more bytes not shown"), "{shown}");
        assert_eq!(clip("short").as_ref(), "short");
    }
}
