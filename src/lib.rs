//! netreplay: trace-driven application replay over flit-level models of interconnection networks.
//!
//! See `ARCHITECTURE.md` for the map of modules and the path of data from spec to report.

pub mod campaign;
pub mod cli;
pub mod cost;
pub mod disjoint_sets;
pub mod error;
pub mod input;
pub mod load_latency;
pub mod mpi;
pub mod network;
pub mod output;
pub mod placement;
pub mod program;
pub mod replay;
pub mod report;
pub mod rng;
pub mod routing;
pub mod run;
pub mod spec;
pub mod topology;
pub mod trace;
pub mod traffic;
pub mod workload;

/// What `netreplay --version` prints: the package version and the git commit it was built from
/// (`build.rs`; `unknown commit` when built outside a git checkout), so a result can be traced to
/// the code that produced it.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("NETREPLAY_GIT_COMMIT"),
    ")"
);

/// The git commit this build comes from, as `git rev-parse --short HEAD` names it (`unknown` when
/// built outside a git checkout): what campaign results record beside [`VERSION`].
pub fn commit() -> &'static str {
    env!("NETREPLAY_GIT_COMMIT")
        .strip_prefix("commit ")
        .unwrap_or("unknown")
}
