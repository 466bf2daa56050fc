//! Argument groups shared by several commands (progress, Slurm) and the `trace` subcommands.

use crate::trace;
use clap::Subcommand;
use std::path::PathBuf;

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
    },
}
