//! The clap definitions, all of them: the top-level [`Cli`], its subcommands and their flags, and
//! the argument groups several commands share (progress, Slurm). Doc comments here are the help text.

use super::values::{parse_model, parse_routing, placement_help, registry_help};
use crate::network::Routing;
use crate::{campaign, trace};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Trace-driven application replay over flit-level models of interconnection networks.
#[derive(Debug, Parser)]
#[command(name = "netreplay", version = crate::VERSION, about, after_help = registry_help())]
pub struct Cli {
    #[command(subcommand)]
    pub(super) command: Command,
    /// More detail on stderr: -v what is read and built, -vv debugging, -vvv everything
    /// (`RUST_LOG`, e.g. `RUST_LOG=netreplay=debug`, overrides it).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub(super) verbose: u8,
}

/// The subcommands; each runs through one function of `commands/`.
#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Build a topology and print its structure (nodes, switches, links, radix).
    Topology(TopologyArgs),
    /// Replay one workload over one topology and print the completion time and counters.
    Run(RunArgs),
    /// Run a campaign (candidates x workloads x sizes) in parallel, resumably, and write its report
    /// (relative times, performance index, cost, performance/cost) into DIR.
    Campaign(CampaignArgs),
    /// Merge campaign results directories (shards of one config) and print and write the report.
    Report(ReportArgs),
    /// Write a workload, or convert a trace (`trace:file=...`), as a trace file (traces/FORMAT.md)
    /// that `run --workload trace:file=FILE` replays with the same completion time (the file records
    /// the MPI model, e.g. a SimGrid trace's rendezvous protocol).
    Generate(GenerateArgs),
    /// Print a shell completion script for netreplay (install it where the shell looks, e.g.
    /// `netreplay completions bash > ~/.local/share/bash-completion/completions/netreplay`).
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print netreplay's manual page in roff (e.g. `netreplay man > netreplay.1; man ./netreplay.1`).
    Man,
    /// Inspect trace files.
    Trace {
        #[command(subcommand)]
        action: TraceAction,
    },
    /// Open-loop synthetic traffic: average packet latency and accepted throughput against offered
    /// load, one curve per topology (Booksim-style warm-up, measurement and drain).
    LoadLatency(LoadLatencyArgs),
}

/// `topology`'s flags and arguments.
#[derive(Debug, clap::Args)]
pub(super) struct TopologyArgs {
    /// Topology spec, e.g. `fat-tree:k=8,n=4`.
    pub(super) spec: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub(super) json: bool,
    /// Compute diameter, average distance and route hops exactly however large the network
    /// (by default they are sampled above a size, and the output says so), and the worst-case
    /// link faults by max flow without its work limit.
    #[arg(long)]
    pub(super) exact: bool,
    /// Price the network under this cost model instead of the default `seed004` (e.g. `seed003`,
    /// seed 003 §IV-A's EDR prices over each family's rack layout).
    #[arg(long, value_name = "MODEL")]
    pub(super) cost: Option<String>,
    /// Also measure fault tolerance by random link removal (seed 003 §III-A-4).
    #[arg(long)]
    pub(super) fault_tolerance: bool,
    /// Trials per 5% step of the fault-tolerance measure (1 to 100000).
    #[arg(
        long,
        default_value_t = 100,
        requires = "fault_tolerance",
        value_parser = clap::value_parser!(u32).range(1..=100_000)
    )]
    pub(super) trials: u32,
    /// DSN-F only: grow the network to this many nodes (seed 002 §III-D, Fig. 4) and print, per
    /// step, the cables added and removed, diameter and average shortest path length.
    #[arg(long, value_name = "NODES")]
    pub(super) grow_to: Option<u32>,
    /// Nodes added per growth step.
    #[arg(long, default_value_t = 64, requires = "grow_to")]
    pub(super) step: u32,
    /// Print the growth as CSV.
    #[arg(long, requires = "grow_to", conflicts_with = "json")]
    pub(super) csv: bool,
    /// Also write the growth's Fig. 4 plot (SVG) to this file.
    #[arg(long, value_name = "FILE", requires = "grow_to")]
    pub(super) svg: Option<PathBuf>,
}

/// `run`'s flags and arguments.
#[derive(Debug, clap::Args)]
pub(super) struct RunArgs {
    /// A TOML run config (topology, workload, placement, seed, [network]); flags override it.
    pub(super) config: Option<PathBuf>,
    /// Topology spec, e.g. `thin-tree:k=8,up=4,n=4`.
    #[arg(long)]
    pub(super) topology: Option<String>,
    /// Workload spec, e.g. `bu:size=100000` (add `ranks=N` to use fewer ranks than nodes).
    #[arg(long)]
    pub(super) workload: Option<String>,
    #[arg(long, help = placement_help())]
    pub(super) placement: Option<String>,
    /// Seed of every random choice (arbitration, tie-breaks, random placement).
    #[arg(long)]
    pub(super) seed: Option<u64>,
    /// Routing algorithm: minimal (default), valiant, ugal or lbr[:period=T,valiant=M]
    /// (overrides `[network] routing`).
    #[arg(long, value_parser = parse_routing)]
    pub(super) routing: Option<Routing>,
    /// Network model: flit (default; packets, phit-exact) or flow (max-min fair flows, fast for
    /// large messages, approximate under contention). Overrides `[network] model`.
    #[arg(long, value_parser = parse_model)]
    pub(super) model: Option<crate::network::Model>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub(super) json: bool,
    /// Also write the JSON report to this file (atomically; its directory is created).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// Refuse the run at once if its memory estimate passes SIZE (bytes, or 512M, 8G, ...);
    /// default: the memory available on the machine.
    #[arg(long, value_name = "SIZE", value_parser = crate::network::memory::parse_size)]
    pub(super) max_memory: Option<u64>,
    /// Write the replay timeline to FILE: Chrome trace-event JSON for Perfetto, chrome://tracing
    /// or speedscope (real time at the network clock, 1 GHz unless the trace sets
    /// `cycles_per_second`; arrows for the first 10,000 messages; written atomically).
    #[arg(long, value_name = "FILE")]
    pub(super) timeline: Option<PathBuf>,
    /// Record link load over time: DIR/link_load.csv (per class), DIR/top_links.csv and
    /// DIR/link_load.svg (heat map), and `link_load` in the JSON report.
    #[arg(long, value_name = "DIR")]
    pub(super) link_load: Option<PathBuf>,
    /// Most time bins of the link-load series (2 to 10000; default 200, the result has half to
    /// all of them).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=10_000))]
    pub(super) bins: Option<u32>,
    /// Count output-port conflicts and packets received (seed 001 Figs. 10-12): FILE gets the
    /// packets received and conflicts per cycle over time as CSV (at most --bins rows), and the
    /// JSON report `counters`.
    #[arg(long, value_name = "FILE")]
    pub(super) received_per_cycle: Option<PathBuf>,
    /// Write a self-contained HTML report of the run (tables, critical path and, under the flit
    /// model, the link-load heat map and packets received per cycle) to FILE.
    #[arg(long, value_name = "FILE")]
    pub(super) html: Option<PathBuf>,
    /// Progress on stderr: share of the phits delivered, rate, ETA, simulated cycle.
    #[command(flatten)]
    pub(super) show: ShowProgress,
}

/// `campaign`'s flags and arguments.
#[derive(Debug, clap::Args)]
pub(super) struct CampaignArgs {
    /// The campaign config (configs/seed004-*.toml).
    #[arg(required_unless_present = "status")]
    pub(super) config: Option<PathBuf>,
    /// Results directory (default: results/<config file stem>).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// Simulations run at once (default, and at most: all cores).
    #[arg(long, conflicts_with = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) jobs: Option<u32>,
    /// Run only slice I of N (1-based), e.g. 2/4, for job arrays; merge with `report`.
    #[arg(long, conflicts_with = "slurm")]
    pub(super) shard: Option<campaign::Shard>,
    /// Print which runs of results directory DIR (a campaign's --out, or a Slurm layout) are
    /// done and which are missing, per shard; exit 1 while any is missing. Runs nothing. With
    /// --shard I/N, only that shard's runs (the --out of one task of a hand-written job array).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["config", "out", "jobs", "slurm"])]
    pub(super) status: Option<PathBuf>,
    /// Slurm job array and merge job (`--slurm`, `--array`, `--submit`, ...).
    #[command(flatten)]
    pub(super) slurm: SlurmArgs,
    /// Progress on stderr: the run count, then runs done, rate, ETA.
    #[command(flatten)]
    pub(super) show: ShowProgress,
}

/// `report`'s flags and arguments.
#[derive(Debug, clap::Args)]
pub(super) struct ReportArgs {
    /// Results directories written by `campaign`.
    #[arg(required = true)]
    pub(super) dirs: Vec<PathBuf>,
    /// Where to write the report files (default: the first directory).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
}

/// `generate`'s flags and arguments.
#[derive(Debug, clap::Args)]
pub(super) struct GenerateArgs {
    /// Workload spec, e.g. `bt:size=1000` (a `trace:file=...` spec converts a trace).
    pub(super) spec: String,
    /// Number of ranks to generate.
    #[arg(long)]
    pub(super) ranks: u32,
    /// Output file, written atomically; zstd-compressed when it ends in `.zst`.
    #[arg(long)]
    pub(super) out: PathBuf,
    /// `native` (traces/FORMAT.md, default) or `trc` (INSEE/FSIN; blocking operations only, and
    /// refused when FSIN's eager model would replay a converted trace differently).
    #[arg(long, default_value = "native")]
    pub(super) format: String,
    /// Refuse at once if the program would take more than SIZE (bytes, or 512M, 8G, ...);
    /// default: the memory available on the machine.
    #[arg(long, value_name = "SIZE", value_parser = crate::network::memory::parse_size)]
    pub(super) max_memory: Option<u64>,
}

/// `load-latency`'s flags and arguments.
#[derive(Debug, clap::Args)]
pub(super) struct LoadLatencyArgs {
    /// A TOML sweep config (topologies, traffic, loads, seed, [open_loop], [network]).
    pub(super) config: Option<PathBuf>,
    /// Topology spec; repeat for several curves.
    #[arg(long)]
    pub(super) topology: Vec<String>,
    /// Traffic pattern spec (default uniform).
    #[arg(long)]
    pub(super) traffic: Option<String>,
    /// Offered loads in phits/node/cycle: FROM:TO:STEP or a list (default 0.05:1.0:0.05).
    #[arg(long)]
    pub(super) loads: Option<String>,
    /// Seed of every random choice.
    #[arg(long)]
    pub(super) seed: Option<u64>,
    /// Cycles before measurement starts.
    #[arg(long)]
    pub(super) warmup: Option<u64>,
    /// Cycles of the measurement window.
    #[arg(long)]
    pub(super) measure: Option<u64>,
    /// Longest drain before a point is declared unstable.
    #[arg(long)]
    pub(super) drain: Option<u64>,
    /// Sample periods the measurement window is split into to judge stability (default 5).
    #[arg(long)]
    pub(super) samples: Option<u32>,
    /// Routing algorithms, comma-separated (minimal, valiant, ugal, lbr[:period=T,valiant=M]):
    /// one curve per topology and routing (overrides `routings` and `[network] routing`).
    #[arg(long)]
    pub(super) routing: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub(super) json: bool,
    /// Directory for load-latency.{csv,json,svg,html} (each written atomically).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// Refuse the sweep at once if its memory estimate (one engine per thread) passes SIZE;
    /// default: the memory available on the machine.
    #[arg(long, value_name = "SIZE", value_parser = crate::network::memory::parse_size)]
    pub(super) max_memory: Option<u64>,
    /// Progress on stderr: points done, rate, ETA.
    #[command(flatten)]
    pub(super) show: ShowProgress,
}

/// Whether a long command shows its progress on stderr (`run`, `load-latency`, `campaign`).
#[derive(Debug, clap::Args)]
pub(super) struct ShowProgress {
    /// Show progress on stderr even when it is not a terminal (plain lines then); by default only
    /// on a terminal.
    #[arg(long, conflicts_with = "quiet")]
    pub(super) progress: bool,
    /// Never show progress.
    #[arg(long)]
    pub(super) quiet: bool,
}

/// `campaign --slurm`: write (and submit) an sbatch job array with one task per shard and a merge job.
#[derive(Debug, clap::Args)]
pub(super) struct SlurmArgs {
    /// Write DIR/slurm/array.sbatch (one array task per shard, results in DIR/shards/I) and
    /// DIR/slurm/merge.sbatch (`report` of every shard into DIR) instead of running; resubmitting
    /// runs only the missing runs.
    #[arg(long)]
    pub(super) slurm: bool,
    /// Array tasks (shards); default: one per run, at most 100. Kept on resubmission.
    #[arg(long, requires = "slurm", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) array: Option<u32>,
    /// Slurm partition of both jobs (default: the cluster's).
    #[arg(long, requires = "slurm")]
    pub(super) partition: Option<String>,
    /// Time limit of each job, as sbatch takes it (e.g. 30, 2:00:00, 1-12).
    #[arg(long, requires = "slurm")]
    pub(super) time: Option<String>,
    /// CPUs of each array task, which become its --jobs (default 1).
    #[arg(long, requires = "slurm", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub(super) cpus_per_task: Option<u32>,
    /// Submit with `sbatch --parsable` (the array tasks with missing runs, then the merge job after
    /// them) and print the job ids.
    #[arg(long, requires = "slurm")]
    pub(super) submit: bool,
}

/// The `trace` subcommands.
#[derive(Debug, Subcommand)]
pub(super) enum TraceAction {
    /// Parse a trace (any format), print ranks, messages, bytes, a communication-matrix summary and
    /// the MPI calls by kind and communicator, and check that every send has its receive and every
    /// request is waited on (exit 1 if not).
    #[command(alias = "stats")]
    Check {
        /// The trace (native, SimGrid, FSIN, an OTF2 archive or a DUMPI .meta, or their folder; zstd
        /// recognised by its magic bytes).
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// The trace's format, as the trace workload's `format=` names it (default: detect it).
        #[arg(long, default_value = "auto", value_parser = clap::builder::PossibleValuesParser::new(trace::Format::names()))]
        format: String,
        /// A merged multi-job GOAL schedule's jobs, as the trace workload's `jobs=` gives them:
        /// `connected` or ATLAHS's merge configuration (JSON); each job's ranks, messages and bytes.
        #[arg(long, value_name = "connected|MERGE.json")]
        jobs: Option<String>,
        /// Refuse at once if lowering the trace's calls would take more than SIZE (bytes, or 512M,
        /// 8G, ...); default: the memory available on the machine.
        #[arg(long, value_name = "SIZE", value_parser = crate::network::memory::parse_size)]
        max_memory: Option<u64>,
    },
}
