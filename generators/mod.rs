//! The seven causal workloads of seed 004 §3.3, one file per pattern, listed in [`REGISTRY`].

use crate::spec::Registry;
use crate::workload::Generator;

/// Every workload generator, by spec name. One line per pattern.
pub static REGISTRY: Registry<Box<dyn Generator>> = Registry {
    kind: "workload",
    entries: &[],
};
