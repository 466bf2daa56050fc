//! Flag values parsed into typed values, and the registry listing `--help` ends with.

use crate::error::Result;
use crate::network::Routing;
use crate::{placement, topology, traffic, workload};

/// A `--routing` value as a validated routing spec.
pub(super) fn parse_routing(text: &str) -> std::result::Result<Routing, String> {
    Routing::parse(text).map_err(|e| e.to_string())
}

/// A `--model` value (`flit` or `flow`).
pub(super) fn parse_model(text: &str) -> std::result::Result<crate::network::Model, String> {
    text.parse().map_err(|e: crate::error::Error| e.to_string())
}

/// A comma-separated list of routing specs, whose own parameters are comma-separated too: a piece
/// that is only `key=value` continues the spec before it (`minimal,lbr:period=8,valiant=2,ugal`).
pub(super) fn parse_routings(text: &str) -> Result<Vec<Routing>> {
    let mut specs: Vec<String> = Vec::new();
    for piece in text.split(',') {
        match specs.last_mut() {
            Some(last) if piece.contains('=') && !piece.contains(':') => {
                last.push(',');
                last.push_str(piece);
            }
            _ => specs.push(piece.to_string()),
        }
    }
    specs.iter().map(|s| Routing::parse(s)).collect()
}

/// `run --placement`'s help, listing every policy of the registry.
pub(super) fn placement_help() -> String {
    format!(
        "Placement spec: {} (default consecutive), with the policy's keys (e.g. random:seed=7); any \
         takes busy=F[,busy_seed=N], a fraction F of the nodes already taken at random",
        placement::REGISTRY.names().join(", ")
    )
}

/// `  name  help` lines of a list without parameters (selection policies, presets).
fn named_lines<'a>(entries: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    entries
        .map(|(name, help)| format!("  {name:<12} {help}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The registries' lists for the top-level `--help`.
pub(super) fn registry_help() -> String {
    format!(
        "Topologies:\n{}\n\nWorkloads (size = message bytes; ranks = N optional):\n{}\n\nPlacements:\n{}\n\nTraffic patterns (load-latency):\n{}\n\nRouting algorithms (--routing, [network] routing):\n{}\n\nOutput selection ([network] selection):\n{}\n\nNetwork presets ([network] preset):\n{}\n\nCost models (a campaign's `cost`):\n{}\n\nTrace formats (trace:format=, trace check --format; default auto, detected):\n{}",
        topology::REGISTRY.help(),
        workload::REGISTRY.help(),
        placement::REGISTRY.help(),
        traffic::REGISTRY.help(),
        crate::routing::REGISTRY.help(),
        named_lines(
            crate::network::selection::POLICIES
                .iter()
                .map(|p| (p.name, p.help))
        ),
        named_lines(crate::network::PRESETS.iter().map(|p| (p.name, p.help))),
        crate::cost::REGISTRY.help(),
        crate::trace::Format::help(),
    )
}
