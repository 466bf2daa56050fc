//! The `netreplay` binary: parse the command line, call the library, print errors, set the exit code.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = netreplay::cli::Cli::parse();
    cli.init_logging();
    let command: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) =
        netreplay::output::interrupt::install(&format!("`netreplay {}`", command.join(" ")))
    {
        eprintln!("netreplay: warning: {e}");
    }
    match netreplay::cli::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("netreplay: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
