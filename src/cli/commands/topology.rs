//! `topology`: a topology's structure and metrics, or a DSN-F growth (seed 002 §III-D, Fig. 4)
//! printed and plotted.

use crate::cli::args::TopologyArgs;
use crate::error::{Error, Result};
use crate::report::{self, TopologyReport};
use crate::topology;

/// `topology SPEC`: its structure, metrics and bisection (and fault tolerance when asked) as text
/// or JSON; with `--grow-to`, its growth instead.
pub(in crate::cli) fn topology(args: TopologyArgs) -> Result<()> {
    if let Some(to) = args.grow_to {
        return grow(&args, to);
    }
    let topo = topology::build(&args.spec)?;
    let budget = if args.exact {
        topology::metrics::Budget::EXACT
    } else {
        topology::metrics::Budget::DEFAULT
    };
    let mut r = TopologyReport::new(topo.as_ref())
        .with_metrics(topo.as_ref(), budget)
        .with_bisection(topo.as_ref())
        .with_link_faults(
            topo.as_ref(),
            if args.exact {
                u64::MAX
            } else {
                topology::link_faults::MAX_WORK
            },
        );
    if let Some(model) = &args.cost {
        let whole = crate::cost::complete(topo.as_ref());
        r.cost = Some(crate::cost::build(model)?.price(topo.as_ref(), &whole)?);
    }
    if args.fault_tolerance {
        r.fault_tolerance = Some(topology::fault_tolerance::fault_tolerance(
            topo.as_ref(),
            args.trials.max(1),
            1,
        ));
    }
    print!(
        "{}",
        if args.json {
            report::json(&r) + "\n"
        } else {
            r.text()
        }
    );
    Ok(())
}

/// `topology dsnf:n=N --grow-to M`: the growth's rows as text, JSON or CSV, and its plot.
fn grow(args: &TopologyArgs, to: u32) -> Result<()> {
    let spec = &args.spec;
    let topo = topology::build(spec)?;
    let from = match spec.split_once(':') {
        Some(("dsnf", _)) => topo.nodes(),
        _ => {
            return Err(Error::Invalid(format!(
                "--grow-to grows DSN-F networks (seed 002 §III-D); `{spec}` is not one"
            )));
        }
    };
    let rows = topology::dsnf_growth::grow(from, to, args.step)?;
    if let Some(path) = &args.svg {
        crate::output::write_atomic(path, report::growth::svg(&rows).as_bytes())?;
    }
    print!(
        "{}",
        if args.json {
            report::json(&rows) + "\n"
        } else if args.csv {
            report::growth::csv(&rows)
        } else {
            report::growth::text(&rows)
        }
    );
    Ok(())
}
