//! The tables of seed 004 §4-5 from a campaign's results: relative times per pattern and size (the data
//! of Figs. 6 and 7), their weighted sum, normalised phi, cost per node for the complete network (CN)
//! and the used resources (U), normalised cost and performance/cost (Tables 3-5).

use super::index::{self, Index};
use super::{CampaignConfig, RunRecord};
use crate::cost::{self, Cost};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One (workload, size) column of the tables.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Cell {
    /// Workload as written in the config.
    pub workload: String,
    /// Message size in bytes (`None` for traces).
    pub size: Option<u64>,
    /// Its weight w_{P,S}.
    pub weight: f64,
}

/// One candidate network's rows.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct NetworkResult {
    /// Label.
    pub label: String,
    /// Topology spec.
    pub topology: String,
    /// Placement spec.
    pub placement: String,
    /// Completion cycles per cell (`None`: not run yet).
    pub cycles: Vec<Option<u64>>,
    /// Relative time per cell: cycles over the reference network's.
    pub relative: Vec<Option<f64>>,
    /// Cost of the complete network.
    pub cost_complete: Cost,
    /// Cost of the resources the placed ranks use.
    pub cost_used: Cost,
    /// The index against complete-network costs (`None` while a weighted cell is missing).
    pub index_complete: Option<Index>,
    /// The index against used-resource costs.
    pub index_used: Option<Index>,
}

/// Everything a campaign report shows.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Analysis {
    /// Title.
    pub name: String,
    /// Config hash.
    pub config_hash: String,
    /// Reference network label.
    pub reference: String,
    /// Cost model spec.
    pub cost_model: String,
    /// Columns.
    pub cells: Vec<Cell>,
    /// Rows, in config order.
    pub networks: Vec<NetworkResult>,
    /// Runs planned.
    pub runs_planned: usize,
    /// Runs with a result.
    pub runs_done: usize,
}

impl Analysis {
    /// The normalised cost per node of network `n` (its cost per node over the reference's), for the
    /// complete network and for the used resources. Costs do not depend on runs, so this is known
    /// before any run is done, where the index (`index_complete`, `index_used`) is not.
    pub fn normalised_costs(&self, n: &NetworkResult) -> Option<(f64, f64)> {
        let r = self.networks.iter().find(|r| r.label == self.reference)?;
        Some((
            n.cost_complete.per_node / r.cost_complete.per_node,
            n.cost_used.per_node / r.cost_used.per_node,
        ))
    }
}

/// A candidate's canonical specs and its costs, complete and used.
pub(super) struct Priced {
    topology: String,
    placement: String,
    pub(super) complete: Cost,
    pub(super) used: Cost,
}

/// Places the campaign's ranks on candidate `cand` and prices its complete network and the resources
/// they use under `model`; errors name the candidate (campaigns call this before running anything).
pub(super) fn price(
    cfg: &CampaignConfig,
    model: &dyn cost::CostModel,
    cand: &super::Candidate,
) -> Result<Priced> {
    let named = |e: Error| {
        Error::Invalid(format!(
            "candidate `{}` ({}): {e}",
            cand.label, cand.topology
        ))
    };
    let topo = crate::topology::build(&cand.topology)?;
    let place = crate::placement::build(cand.placement.as_deref().unwrap_or("consecutive"))?;
    let ranks = cfg
        .ranks
        .or_else(|| cfg.workload_ranks())
        .unwrap_or(topo.nodes())
        .min(topo.nodes());
    let placed = place
        .place(ranks, topo.as_ref(), cfg.seed.unwrap_or(1))
        .map_err(named)?;
    let cover = if place.spec() == "central" {
        cost::central_cover(topo.nodes(), ranks)
    } else {
        placed.clone()
    };
    Ok(Priced {
        complete: model
            .price(topo.as_ref(), &cost::complete(topo.as_ref()))
            .map_err(named)?,
        used: model
            .price(topo.as_ref(), &cost::used(topo.as_ref(), &placed, &cover))
            .map_err(named)?,
        topology: topo.spec(),
        placement: place.spec(),
    })
}

/// Computes the tables; runs not yet done leave gaps (and no index for the networks concerned).
pub fn analyse(cfg: &CampaignConfig, records: &[RunRecord]) -> Result<Analysis> {
    let model = cfg.cost_model()?;
    let by_key: BTreeMap<_, _> = records
        .iter()
        .map(|r| ((r.label.as_str(), r.workload.as_str(), r.size), r))
        .collect();
    let cells: Vec<Cell> = cfg
        .cells()
        .into_iter()
        .map(|(w, s)| Cell {
            weight: cfg.weights.weight(&w, s),
            workload: w,
            size: s,
        })
        .collect();
    let cycles_of = |label: &str| -> Vec<Option<u64>> {
        cells
            .iter()
            .map(|c| {
                by_key
                    .get(&(label, c.workload.as_str(), c.size))
                    .map(|r| r.completion_cycles)
            })
            .collect()
    };
    let reference = cycles_of(&cfg.reference);
    let mut networks = Vec::new();
    for cand in &cfg.candidates {
        let priced = price(cfg, model.as_ref(), cand)?;
        let cycles = cycles_of(&cand.label);
        let relative: Vec<Option<f64>> = cycles
            .iter()
            .zip(&reference)
            .map(|(c, r)| match (c, r) {
                (Some(c), Some(r)) if *r > 0 => Some(*c as f64 / *r as f64),
                _ => None,
            })
            .collect();
        networks.push(NetworkResult {
            label: cand.label.clone(),
            topology: priced.topology,
            placement: priced.placement,
            cycles,
            relative,
            cost_complete: priced.complete,
            cost_used: priced.used,
            index_complete: None,
            index_used: None,
        });
    }
    let sum_of = |n: &NetworkResult| -> Option<f64> {
        let mut terms = Vec::new();
        for (c, t) in cells.iter().zip(&n.relative) {
            if c.weight != 0.0 {
                terms.push((c.weight, (*t)?));
            }
        }
        Some(index::weighted_sum(terms))
    };
    let reference_row = networks
        .iter()
        .find(|n| n.label == cfg.reference)
        .cloned()
        .expect("validated: the reference is a candidate");
    let ref_sum = sum_of(&reference_row);
    for n in &mut networks {
        if let (Some(s), Some(rs)) = (sum_of(n), ref_sum) {
            n.index_complete = Some(index::index(
                s,
                n.cost_complete.per_node,
                rs,
                reference_row.cost_complete.per_node,
            ));
            n.index_used = Some(index::index(
                s,
                n.cost_used.per_node,
                rs,
                reference_row.cost_used.per_node,
            ));
        }
    }
    Ok(Analysis {
        name: cfg.name.clone().unwrap_or_else(|| "campaign".into()),
        config_hash: cfg.hash(),
        reference: cfg.reference.clone(),
        cost_model: model.spec(),
        runs_planned: cells.len() * cfg.candidates.len(),
        runs_done: networks
            .iter()
            .map(|n| n.cycles.iter().flatten().count())
            .sum(),
        cells,
        networks,
    })
}
