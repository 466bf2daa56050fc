//! What the benchmarks share.

/// CPU time this process has run, in seconds (Linux's scheduler statistics), so that a machine
/// shared with other work changes a measured rate little.
pub fn cpu_seconds() -> f64 {
    let text = std::fs::read_to_string("/proc/self/schedstat").unwrap_or_default();
    let ns: f64 = text
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    ns / 1e9
}
