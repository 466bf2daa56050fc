//! `completions SHELL` and `man`: netreplay's own clap definitions written out for shells and man.

use crate::cli::Cli;
use crate::error::{Error, Result};

/// `completions SHELL`: the shell's completion script on stdout.
pub(in crate::cli) fn completions(shell: clap_complete::Shell) -> Result<()> {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "netreplay", &mut script);
    std::io::Write::write_all(&mut std::io::stdout(), &script).map_err(Error::io("standard output"))
}

/// `man`: the manual page in roff on stdout.
pub(in crate::cli) fn man() -> Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
        .render(&mut page)
        .map_err(Error::io("the manual page"))?;
    std::io::Write::write_all(&mut std::io::stdout(), &page).map_err(Error::io("standard output"))
}
