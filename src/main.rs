//! The `netreplay` binary: parse the command line, call the library, print errors, set the exit code.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = netreplay::cli::Cli::parse();
    match netreplay::cli::dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("netreplay: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
