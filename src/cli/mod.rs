//! The command line: clap definitions turned into validated library calls. The one place that knows
//! about flags; everything else takes typed config.
//!
//! `args.rs` holds every clap definition, `overlay.rs` lays flags over configs, `commands/` has one
//! function per command, and [`dispatch`] only picks the function.

mod args;
mod commands;
mod overlay;
mod values;
pub use args::Cli;
use args::Command;

impl Cli {
    /// Starts logging to stderr at the level `-v` asks (warnings only without it), unless
    /// `RUST_LOG` says otherwise.
    pub fn init_logging(&self) {
        let level = match self.verbose {
            0 => "warn",
            1 => "info",
            2 => "debug",
            _ => "trace",
        };
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level))
            .format_timestamp(None)
            .init();
    }
}

/// Runs the parsed command, printing its result to stdout.
pub fn dispatch(cli: Cli) -> crate::error::Result<()> {
    match cli.command {
        Command::Topology(args) => commands::topology::topology(args),
        Command::Run(args) => commands::run::run(args),
        Command::Campaign(args) => commands::campaign::campaign(args),
        Command::Report(args) => commands::campaign::report(args),
        Command::Generate(args) => commands::generate::generate(args),
        Command::Completions { shell } => commands::docs::completions(shell),
        Command::Man => commands::docs::man(),
        Command::Trace { action } => commands::trace::trace(action),
        Command::LoadLatency(args) => commands::load_latency::load_latency(args),
    }
}
