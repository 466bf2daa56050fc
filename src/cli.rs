//! The command line: clap definitions turned into validated library calls. The one place that knows
//! about flags; everything else takes typed config.

use crate::error::{Error, Result};
use crate::report::{self, TopologyReport};
use crate::run::{self, RunConfig};
use crate::{placement, topology, trace, workload};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Trace-driven application replay over flit-level models of interconnection networks.
#[derive(Debug, Parser)]
#[command(name = "netreplay", version, about, after_help = registry_help())]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build a topology and print its structure (nodes, switches, links, radix).
    Topology {
        /// Topology spec, e.g. `fat-tree:k=8,n=4`.
        spec: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Compute diameter, average distance and route hops exactly however large the network
        /// (by default they are sampled above a size, and the output says so).
        #[arg(long)]
        exact: bool,
    },
    /// Replay one workload over one topology and print the completion time and counters.
    Run {
        /// A TOML run config (topology, workload, placement, seed, [network]); flags override it.
        config: Option<PathBuf>,
        /// Topology spec, e.g. `thin-tree:k=8,up=4,n=4`.
        #[arg(long)]
        topology: Option<String>,
        /// Workload spec, e.g. `bu:size=100000` (add `ranks=N` to use fewer ranks than nodes).
        #[arg(long)]
        workload: Option<String>,
        /// Placement spec: consecutive (default), central, random[:seed=N].
        #[arg(long)]
        placement: Option<String>,
        /// Seed of every random choice (arbitration, tie-breaks, random placement).
        #[arg(long)]
        seed: Option<u64>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Also write the JSON report to this file (atomically).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Write a workload as a trace file (traces/FORMAT.md) that `run --workload trace:file=FILE`
    /// replays with the same completion time.
    Generate {
        /// Workload spec, e.g. `bt:size=1000` (a `trace:file=...` spec converts a trace).
        spec: String,
        /// Number of ranks to generate.
        #[arg(long)]
        ranks: u32,
        /// Output file, written atomically; zstd-compressed when it ends in `.zst`.
        #[arg(long)]
        out: PathBuf,
    },
}

fn registry_help() -> String {
    format!(
        "Topologies:\n{}\n\nWorkloads (size = message bytes; ranks = N optional):\n{}\n\nPlacements:\n{}",
        topology::REGISTRY.help(),
        workload::REGISTRY.help(),
        placement::REGISTRY.help()
    )
}

/// Runs the parsed command, printing its result to stdout.
pub fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Topology { spec, json, exact } => {
            let topo = topology::build(&spec)?;
            let budget = if exact {
                topology::metrics::Budget::EXACT
            } else {
                topology::metrics::Budget::DEFAULT
            };
            let r = TopologyReport::new(topo.as_ref()).with_metrics(topo.as_ref(), budget);
            print!(
                "{}",
                if json {
                    report::json(&r) + "\n"
                } else {
                    r.text()
                }
            );
        }
        Command::Run {
            config,
            topology,
            workload,
            placement,
            seed,
            json,
            out,
        } => {
            let mut cfg = match &config {
                Some(path) => RunConfig::load(path)?,
                None => RunConfig::default(),
            };
            cfg.topology = topology.or(cfg.topology);
            cfg.workload = workload.or(cfg.workload);
            cfg.placement = placement.or(cfg.placement);
            cfg.seed = seed.or(cfg.seed);
            let r = run::execute(&cfg)?;
            let text = report::json(&r) + "\n";
            if let Some(path) = out {
                report::write_atomic(&path, text.as_bytes())?;
            }
            print!("{}", if json { text } else { report::run_text(&r) });
        }
        Command::Generate { spec, ranks, out } => {
            let wl = workload::build(&spec)?;
            if wl.ranks.is_some_and(|r| r != ranks) {
                return Err(Error::Invalid(format!(
                    "workload `{spec}` says ranks={} but --ranks is {ranks}; give the count once",
                    wl.ranks.unwrap_or(ranks)
                )));
            }
            let max = topology::MAX_NODES;
            if u64::from(ranks) > max {
                return Err(Error::Invalid(format!(
                    "--ranks {ranks} is more than the simulator handles (at most {max})"
                )));
            }
            let program = wl.generator.generate(ranks)?;
            trace::write(&program, &out)?;
            println!(
                "wrote {} ({} ranks, {} ops) to {}",
                wl.generator.spec(),
                program.ranks(),
                (0..program.ranks())
                    .map(|r| program.rank_ops(r).len())
                    .sum::<usize>(),
                out.display()
            );
        }
    }
    Ok(())
}
