//! What the benchmarks share.

/// CPU time this process has run, in seconds (`CLOCK_PROCESS_CPUTIME_ID`, nanosecond resolution), so
/// that a machine shared with other work changes a measured rate little. Linux's scheduler
/// statistics and `getrusage` count in whole clock ticks on this project's VM (4 ms), too coarse for
/// the flow model's millisecond runs.
pub fn cpu_seconds() -> f64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to write; the clock id is a constant Linux has.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) } == 0;
    assert!(ok, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
}
