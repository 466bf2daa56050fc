//! `topology dsnf:n=N --grow-to M`: a DSN-F growth (seed 002 §III-D, Fig. 4) printed and plotted.

use crate::error::{Error, Result};
use crate::{report, topology};

/// `topology dsnf:n=N --grow-to M`: the growth's rows as text, JSON or CSV, and its plot.
pub(super) fn grow(
    spec: &str,
    to: u32,
    step: u32,
    json: bool,
    csv: bool,
    svg: Option<&std::path::Path>,
) -> Result<()> {
    let topo = topology::build(spec)?;
    let from = match spec.split_once(':') {
        Some(("dsnf", _)) => topo.nodes(),
        _ => {
            return Err(Error::Invalid(format!(
                "--grow-to grows DSN-F networks (seed 002 §III-D); `{spec}` is not one"
            )));
        }
    };
    let rows = topology::dsnf_growth::grow(from, to, step)?;
    if let Some(path) = svg {
        crate::output::write_atomic(path, report::growth::svg(&rows).as_bytes())?;
    }
    print!(
        "{}",
        if json {
            report::json(&rows) + "\n"
        } else if csv {
            report::growth::csv(&rows)
        } else {
            report::growth::text(&rows)
        }
    );
    Ok(())
}
