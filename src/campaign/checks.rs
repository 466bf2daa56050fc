//! The checks of a campaign config that need more than its own fields, run before its results
//! directory is written: names that reach scripts and reports, each pattern's rank count on each
//! candidate, and prices that give finite, positive costs.

use super::{CampaignConfig, analysis};
use crate::cost::CostModel;
use crate::error::{Error, Result};
use std::path::Path;

/// Refuses control characters (newline, carriage return, tab, escape, ...) in a name that is
/// written into Slurm scripts, Markdown and CSV, where a newline would end a `#` comment and start a
/// command.
pub fn check_text(what: &str, text: &str) -> Result<()> {
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        return Err(Error::Invalid(format!(
            "{what} {text:?} contains the control character {c:?}; names are written into scripts \
             and reports, so they must be printable"
        )));
    }
    Ok(())
}

/// The name and every label are printable.
pub fn check_names(cfg: &CampaignConfig) -> Result<()> {
    if let Some(name) = &cfg.name {
        check_text("`name`", name)?;
    }
    check_text("`reference`", &cfg.reference)?;
    for c in &cfg.candidates {
        check_text("candidate label", &c.label)?;
    }
    Ok(())
}

/// No size or workload is listed twice: a repeated one would run its cells again and count them
/// again in every sum of the report.
pub fn check_unique(cfg: &CampaignConfig) -> Result<()> {
    for (i, size) in cfg.sizes.iter().enumerate() {
        if cfg.sizes[..i].contains(size) {
            return Err(Error::Invalid(format!(
                "size {size} is listed twice in `sizes`"
            )));
        }
    }
    for (i, w) in cfg.workloads.iter().enumerate() {
        if cfg.workloads[..i].iter().any(|v| v.trim() == w.trim()) {
            return Err(Error::Invalid(format!(
                "workload `{}` is listed twice in `workloads`",
                w.trim()
            )));
        }
    }
    Ok(())
}

/// Every generated workload can run with the rank count it gets on every candidate (`ranks`, the
/// spec's own `ranks=`, else the candidate's node count): `bu` needs a power of two, the meshes a
/// square or a cube. Each workload is built once (a trace is read once, not once per candidate).
/// A workload spec's error is placed in the config file at `path`, if it was read from one.
pub fn check_ranks(cfg: &CampaignConfig, path: Option<&Path>) -> Result<()> {
    let nodes = cfg
        .candidates
        .iter()
        .map(|c| Ok(crate::topology::build(&c.topology)?.nodes()))
        .collect::<Result<Vec<u32>>>()?;
    for (w, size) in cfg.cells() {
        let at = |e| crate::run::locate_spec(path, ("workload", "workloads"), &w, e);
        let spec = cfg.workload_spec(&w, size).map_err(at)?;
        let wl = crate::workload::build(&spec).map_err(at)?;
        for (c, &nodes) in cfg.candidates.iter().zip(&nodes) {
            let ranks = wl.ranks.or(wl.generator.ranks()).unwrap_or(nodes);
            if ranks > nodes {
                return Err(Error::Invalid(format!(
                    "candidate `{}` ({}) has {nodes} nodes but workload `{spec}` has {ranks} ranks; \
                     lower `ranks` or drop the candidate",
                    c.label, c.topology
                )));
            }
            wl.generator.check_ranks(ranks).map_err(|e| {
                Error::Invalid(format!(
                    "workload `{spec}` on candidate `{}` ({}, {ranks} ranks): {e}",
                    c.label, c.topology
                ))
            })?;
        }
    }
    Ok(())
}

/// Every candidate prices to finite costs, and the reference's are positive (every other cost is
/// divided by them).
pub fn check_costs(cfg: &CampaignConfig, model: &dyn CostModel) -> Result<()> {
    for c in &cfg.candidates {
        let priced = analysis::price(cfg, model, c)?;
        for (what, cost) in [("complete", &priced.complete), ("used", &priced.used)] {
            if !cost.total.is_finite() || cost.total < 0.0 {
                return Err(Error::Invalid(format!(
                    "candidate `{}` ({}): its {what} network costs {}; prices must give a finite, \
                     non-negative total",
                    c.label, c.topology, cost.total
                )));
            }
            if c.label == cfg.reference && cost.per_node <= 0.0 {
                return Err(Error::Invalid(format!(
                    "the reference `{}` costs {} per node ({what} network); every cost is divided \
                     by it, so its prices must not all be 0",
                    c.label, cost.per_node
                )));
            }
        }
    }
    Ok(())
}
