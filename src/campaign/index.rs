//! Seed 004 §5.2-5.3's performance index: per pattern P and size S a relative time T_{P,S} (completion
//! time over the reference network's), weights w_P * w_S (or a full matrix w_{P,S}), the performance
//! phi = 1 / sum(w * T), normalised phi = phi / phi_ref (the paper multiplies by 35 = sum of the weights,
//! the reference's sum since its T are all 1), normalised cost per node = cost / cost_ref, and
//! performance/cost = normalised phi / normalised cost.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Weights of a campaign config's `[weights]`: per pattern (`pattern`), per size (`size`) or a full
/// matrix (`matrix.PATTERN.SIZE`). An empty table weighs everything 1; a table that is given must
/// list every workload (or size) of the campaign, so a typo cannot silently weigh a pattern 0.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// w_P by workload as written in `workloads` (e.g. `bu`).
    #[serde(default)]
    pub pattern: BTreeMap<String, f64>,
    /// w_S by message size in bytes (TOML keys are strings: `"100000" = 1`).
    #[serde(default)]
    pub size: BTreeMap<String, f64>,
    /// w_{P,S}, replacing both when given.
    #[serde(default)]
    pub matrix: BTreeMap<String, BTreeMap<String, f64>>,
}

/// The smallest positive weight, so that a weighted sum of relative times cannot come near 0 and
/// phi = 1 / sum stays finite.
pub const MIN_WEIGHT: f64 = 1e-6;

/// The largest weight: w_P * w_S times a relative time (at most 2^63) summed over any number of
/// cells stays finite.
pub const MAX_WEIGHT: f64 = 1e6;

fn size_key(size: Option<u64>) -> String {
    size.map_or_else(|| "trace".to_string(), |s| s.to_string())
}

impl Weights {
    /// Checks that every table given covers every cell (workload, size) of the campaign, with finite
    /// non-negative values. Traces have no size: their matrix key is `trace` and w_S does not apply.
    pub fn validate(&self, cells: &[(String, Option<u64>)]) -> Result<()> {
        let check = |table: &str, key: &str, v: Option<&f64>| match v {
            None => Err(Error::Invalid(format!(
                "weights.{table} is given but has no entry for `{key}`; list every one (0 to leave it out)"
            ))),
            Some(v) if !(*v == 0.0 || (MIN_WEIGHT..=MAX_WEIGHT).contains(v)) => {
                Err(Error::Invalid(format!(
                    "weights.{table}.{key} = {v:?}: a weight is 0 (left out) or from {MIN_WEIGHT:e} \
                     to {MAX_WEIGHT:e}"
                )))
            }
            Some(_) => Ok(()),
        };
        for (w, size) in cells {
            if !self.pattern.is_empty() {
                check("pattern", w, self.pattern.get(w))?;
            }
            if let Some(s) = size
                && !self.size.is_empty()
            {
                check("size", &s.to_string(), self.size.get(&s.to_string()))?;
            }
            if !self.matrix.is_empty() {
                let key = size_key(*size);
                let v = self.matrix.get(w).and_then(|r| r.get(&key));
                check(&format!("matrix.{w}"), &key, v)?;
            }
        }
        let unknown = self
            .pattern
            .keys()
            .chain(self.matrix.keys())
            .find(|k| !cells.iter().any(|(w, _)| w == *k));
        if let Some(k) = unknown {
            return Err(Error::Invalid(format!(
                "weights name workload `{k}`, which is not in `workloads`"
            )));
        }
        // A size the campaign does not run (a typo, `"1OOO"`) would silently weigh nothing.
        let sizes = self.size.keys().map(|k| ("size".to_string(), None, k));
        let matrix = self
            .matrix
            .iter()
            .flat_map(|(w, row)| row.keys().map(move |k| (format!("matrix.{w}"), Some(w), k)));
        for (table, workload, key) in sizes.chain(matrix) {
            let known = cells
                .iter()
                .any(|(w, s)| workload.is_none_or(|v| v == w) && size_key(*s) == *key);
            if !known {
                return Err(Error::Invalid(format!(
                    "weights.{table} names size `{key}`, which the campaign does not run"
                )));
            }
        }
        let total: f64 = cells.iter().map(|(w, s)| self.weight(w, *s)).sum();
        if !total.is_finite() {
            return Err(Error::Invalid(format!(
                "the weights sum to {total}; give smaller weights"
            )));
        }
        if cells.iter().all(|(w, s)| self.weight(w, *s) == 0.0) {
            return Err(Error::Invalid(
                "every weight is 0, so the weighted sum of relative times is 0 and the index \
                 undefined; give at least one (workload, size) a positive weight"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The weight of pattern `workload` at message `size` (`None` for traces, whose size weight is 1).
    pub fn weight(&self, workload: &str, size: Option<u64>) -> f64 {
        if !self.matrix.is_empty() {
            return self
                .matrix
                .get(workload)
                .and_then(|r| r.get(&size_key(size)))
                .copied()
                .unwrap_or(0.0);
        }
        let wp = self.pattern.get(workload).copied().unwrap_or(1.0);
        let ws = match size {
            Some(s) if !self.size.is_empty() => {
                self.size.get(&s.to_string()).copied().unwrap_or(0.0)
            }
            _ => 1.0,
        };
        wp * ws
    }
}

/// One network's line of seed 004 Tables 4 and 5.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
pub struct Index {
    /// sum over (P, S) of w_{P,S} * T_{P,S} ("Sigma relative time").
    pub weighted_sum: f64,
    /// phi = 1 / weighted_sum.
    pub phi: f64,
    /// phi / phi of the reference network.
    pub normalised_phi: f64,
    /// Cost per node in dollars.
    pub cost_per_node: f64,
    /// Cost per node / the reference's.
    pub normalised_cost: f64,
    /// Normalised phi / normalised cost ("Perf./Cost").
    pub perf_per_cost: f64,
}

/// Sum of w * T over the cells.
pub fn weighted_sum(cells: impl IntoIterator<Item = (f64, f64)>) -> f64 {
    cells.into_iter().map(|(w, t)| w * t).sum()
}

/// The index of a network from its weighted sum and cost per node, against the reference's.
pub fn index(
    weighted_sum: f64,
    cost_per_node: f64,
    reference_sum: f64,
    reference_cost: f64,
) -> Index {
    let phi = 1.0 / weighted_sum;
    let normalised_phi = reference_sum / weighted_sum;
    let normalised_cost = cost_per_node / reference_cost;
    Index {
        weighted_sum,
        phi,
        normalised_phi,
        cost_per_node,
        normalised_cost,
        perf_per_cost: normalised_phi / normalised_cost,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published values are two-decimal roundings computed from unrounded sums, and the sums are
    /// printed rounded to 0.01, so ours may differ by one unit in the last place, no more. Table 5b
    /// needs it: 7 / 6.39 = 1.0955 prints 1.10 where the paper has 1.09, and the 8:4,8-slender-tree's
    /// perf/cost 2.7752 prints 2.78 where the paper has 2.77; their unrounded sums were a bit larger.
    fn close(x: f64, published: &str) -> bool {
        (x - published.parse::<f64>().unwrap()).abs() <= 0.006
    }

    /// Tables 4 and 5 of seed 004 from their published sums and our Table 3 costs per node.
    #[test]
    fn tables_4_and_5_arithmetic() {
        let same_size = [3412.5, 1022.83, 563.99, 1086.75, 565.66];
        let cn = [3386.72, 1022.83, 743.06, 1086.75, 751.31];
        let u = [4080.11, 1022.83, 764.67, 1086.75, 762.01];
        type Case<'a> = (&'a [f64; 5], &'a [f64; 5], [&'a str; 5], [&'a str; 5]);
        let cases: [Case; 5] = [
            // Table 4a: sums, costs, normalised phi, perf/cost.
            (
                &[35.00, 46.95, 131.66, 91.17, 243.85],
                &same_size,
                ["1.00", "0.75", "0.27", "0.38", "0.14"],
                ["1.00", "2.49", "1.61", "1.21", "0.87"],
            ),
            // Table 4b, complete networks and used resources.
            (
                &[35.00, 34.17, 55.74, 55.77, 100.10],
                &cn,
                ["1.00", "1.02", "0.63", "0.63", "0.35"],
                ["1.00", "3.39", "2.86", "1.96", "1.58"],
            ),
            (
                &[35.00, 34.17, 55.74, 55.77, 100.10],
                &u,
                ["1.00", "1.02", "0.63", "0.63", "0.35"],
                ["1.00", "4.09", "3.35", "2.36", "1.87"],
            ),
            // Table 5a (BU and BT only) and 5b (100 KB only, used resources).
            (
                &[10.00, 17.00, 67.43, 56.29, 160.82],
                &same_size,
                ["1.00", "0.59", "0.15", "0.18", "0.06"],
                ["1.00", "1.96", "0.90", "0.56", "0.38"],
            ),
            (
                &[7.00, 6.39, 10.58, 9.47, 15.19],
                &u,
                ["1.00", "1.09", "0.66", "0.74", "0.46"],
                ["1.00", "4.37", "3.53", "2.77", "2.47"],
            ),
        ];
        for (sums, costs, phis, ppc) in cases {
            for i in 0..5 {
                let ix = index(sums[i], costs[i], sums[0], costs[0]);
                assert!(
                    close(ix.normalised_phi, phis[i]),
                    "{sums:?} #{i}: phi {} vs {}",
                    ix.normalised_phi,
                    phis[i]
                );
                assert!(
                    close(ix.perf_per_cost, ppc[i]),
                    "{sums:?} #{i}: perf/cost {} vs {}",
                    ix.perf_per_cost,
                    ppc[i]
                );
            }
        }
    }

    /// w_P * w_S, the matrix overriding both, and incomplete tables refused.
    #[test]
    fn weights_per_pattern_size_and_matrix() {
        let cells = |sizes: &[u64]| -> Vec<(String, Option<u64>)> {
            ["bu", "bt"]
                .iter()
                .flat_map(|w| sizes.iter().map(move |s| (w.to_string(), Some(*s))))
                .collect()
        };
        let w: Weights =
            toml::from_str("pattern = { bu = 2, bt = 0 }\nsize = { \"10\" = 3, \"100\" = 1 }")
                .unwrap();
        w.validate(&cells(&[10, 100])).unwrap();
        assert_eq!(w.weight("bu", Some(10)), 6.0);
        assert_eq!(w.weight("bt", Some(10)), 0.0);
        assert_eq!(w.weight("bu", None), 2.0);
        let e = w.validate(&cells(&[10, 1000])).unwrap_err().to_string();
        assert!(e.contains("weights.size") && e.contains("1000"), "{e}");
        let m: Weights =
            toml::from_str("[matrix]\nbu = { \"10\" = 5 }\nbt = { \"10\" = 1 }").unwrap();
        m.validate(&cells(&[10])).unwrap();
        assert_eq!(m.weight("bu", Some(10)), 5.0);
        assert!(m.validate(&cells(&[10, 100])).is_err());
        assert!(Weights::default().validate(&cells(&[1])).is_ok());
        assert_eq!(Weights::default().weight("x", Some(5)), 1.0);
        let bad: Weights = toml::from_str("pattern = { bu = 1, bt = 1, zz = 1 }").unwrap();
        assert!(
            bad.validate(&cells(&[1]))
                .unwrap_err()
                .to_string()
                .contains("zz")
        );
    }
}
