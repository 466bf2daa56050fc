//! Workloads: the workload spec (`bu:size=1000`, `trace:file=...`) parsed once and built into a
//! [`Generator`] of a [`Program`](crate::program::Program): the seven causal patterns of seed 004 §3.3 (one file each in
//! `generators/`) or a trace (`crate::trace`). Both emit the same program type (`crate::program`).

#[path = "../../generators/mod.rs"]
mod generators;

use crate::error::Result;
use crate::spec::{Registry, Spec};

use crate::program::Generator;
pub use generators::REGISTRY;

/// A workload spec taken apart: its generator and the rank count, if the spec gives one.
#[derive(Debug)]
pub struct WorkloadSpec {
    /// The generator.
    pub generator: Box<dyn Generator>,
    /// `ranks=` if given; otherwise the generator's own count (a trace's), else every node.
    pub ranks: Option<u32>,
}

/// A workload spec parsed once, at the edge: the generator's spec (its name and parameters) with
/// the rank count taken off, before anything is built (a run checks a trace's declared ranks against
/// the network before reading it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The generator's name and parameters, `ranks` excepted.
    pub spec: Spec,
    /// `ranks=` if given.
    pub ranks: Option<u32>,
}

impl Parsed {
    /// The value of parameter `key`, if given.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.spec
            .params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Builds the generator (a trace is read now).
    pub fn build(&self) -> Result<WorkloadSpec> {
        Ok(WorkloadSpec {
            generator: Registry::build(&REGISTRY, &self.spec)?,
            ranks: self.ranks,
        })
    }
}

impl std::fmt::Display for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.spec)?;
        match (self.ranks, self.spec.params.is_empty()) {
            (Some(r), true) => write!(f, ":ranks={r}"),
            (Some(r), false) => write!(f, ",ranks={r}"),
            (None, _) => Ok(()),
        }
    }
}

/// Parses a workload spec; `ranks` is accepted by every generator and taken off here.
pub fn parse(text: &str) -> Result<Parsed> {
    let mut spec = Spec::parse(REGISTRY.kind, text)?;
    let mut ranks = None;
    if let Some(i) = spec.params.iter().position(|(k, _)| k == "ranks") {
        let (_, v) = spec.params.remove(i);
        let rank_spec = Spec {
            name: spec.name.clone(),
            params: vec![("ranks".to_string(), v)],
        };
        let p = crate::spec::Params::new(REGISTRY.kind, &rank_spec, &["ranks"])?;
        ranks = Some(p.u32_in("ranks", None, 2, crate::topology::MAX_NODES as u32)?);
    }
    Ok(Parsed { spec, ranks })
}

/// Parses a workload spec and builds its generator.
pub fn build(text: &str) -> Result<WorkloadSpec> {
    parse(text)?.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parsed_spec_prints_back_what_parses_to_it() {
        for text in ["bu:size=1000,ranks=16", "bu:ranks=8", "bu:size=10", "2m"] {
            let parsed = parse(text).unwrap();
            assert_eq!(parsed.to_string(), text);
            assert_eq!(parse(&parsed.to_string()).unwrap(), parsed);
        }
        let parsed = parse("trace:file=x.trc,format=dumpi").unwrap();
        assert_eq!(parsed.param("file"), Some("x.trc"));
        assert_eq!((parsed.param("ranks"), parsed.ranks), (None, None));
        assert!(parse("bu:ranks=1").is_err());
    }
}
