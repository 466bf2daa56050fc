//! Text that goes into the sbatch scripts and the printed hints, made safe for bash: quoted
//! arguments, comments that a control character cannot end, paths that must be UTF-8.

use crate::error::{Error, Result};
use std::path::Path;

/// Single-quotes `text` for bash.
pub(super) fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A path single-quoted for a command line printed to be copied into a shell.
pub(super) fn quote_path(path: &Path) -> String {
    quote(&path.display().to_string())
}

/// `text` for one `#` comment line: control characters (a newline would end the comment and start
/// a command) are written escaped, as `\n`.
pub(super) fn comment(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A path as UTF-8 (scripts are text), or an error naming it.
pub(super) fn utf8(path: &Path) -> Result<&str> {
    path.to_str().ok_or_else(|| {
        Error::Invalid(format!(
            "{} is not UTF-8; the Slurm scripts cannot name it",
            path.display()
        ))
    })
}
