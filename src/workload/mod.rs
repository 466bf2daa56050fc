//! Workloads: the workload spec (`bu:size=1000`, `trace:file=...`) parsed once and built into a
//! [`Generator`] of a [`Program`](crate::program::Program): the seven causal patterns of seed 004 §3.3 (one file each in
//! `generators/`) or a trace (`crate::trace`). Both emit the same program type (`crate::program`).

#[path = "../../generators/mod.rs"]
mod generators;

use crate::error::Result;
use crate::spec::{Params, Spec};

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

/// The keys every workload spec takes besides its generator's own, read here rather than by the
/// generator: `ranks=N`.
pub const KEYS: &[&str] = &["ranks"];

/// A workload spec parsed once, at the edge: the spec as written and the rank count it gives, before
/// anything is built (a run checks a trace's declared ranks against the network before reading it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The generator's name and parameters as written, `ranks` included.
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

    /// Builds the generator (a trace is read now). It sees the whole spec, so that its errors quote
    /// what was written and an unknown key's lists [`KEYS`] beside the generator's own.
    pub fn build(&self) -> Result<WorkloadSpec> {
        Ok(WorkloadSpec {
            generator: REGISTRY.build_with(&self.spec, KEYS)?,
            ranks: self.ranks,
        })
    }
}

impl std::fmt::Display for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.spec)
    }
}

/// Parses a workload spec and reads its `ranks`, which every generator accepts; the other keys are
/// checked when it is built ([`Parsed::build`]).
pub fn parse(text: &str) -> Result<Parsed> {
    let spec = Spec::parse(REGISTRY.kind, text)?;
    let p = Params::checked(REGISTRY.kind, &spec);
    let ranks = match p.raw("ranks") {
        Some(_) => Some(p.u32_in("ranks", None, 2, crate::topology::MAX_NODES as u32)?),
        None => None,
    };
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

    /// The generator is handed the spec as written, `ranks` included, and accepts `ranks` beside
    /// its own keys: an unknown key's error lists it.
    #[test]
    fn the_generator_sees_the_spec_as_written_and_ranks_is_listed() {
        let parsed = parse("bu:ranks=4,size=10").unwrap();
        assert_eq!(parsed.spec.to_string(), "bu:ranks=4,size=10");
        assert_eq!(parsed.ranks, Some(4));
        assert_eq!(
            build("bu:ranks=4,sizee=10").unwrap_err().to_string(),
            "workload `bu` has no parameter `sizee`; accepted: size, ranks"
        );
        let e = build("trace:ranks=4,x=1").unwrap_err().to_string();
        assert!(
            e.starts_with("workload `trace` has no parameter `x`; accepted: file,")
                && e.ends_with(", compute, ranks"),
            "{e}"
        );
    }
}
