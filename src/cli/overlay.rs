//! Flags laid over configs: the one place where a command's flags become a [`RunConfig`] and its
//! [`RunOptions`], a [`SweepConfig`] and its [`SweepOptions`], or a campaign's config, results
//! directory and Slurm request. A flag given wins over the config file; one not given keeps the
//! file's value (or the default without a file).

use super::args::{CampaignArgs, LoadLatencyArgs, RunArgs, ShowProgress, SlurmArgs};
use super::values::parse_routings;
use crate::campaign::{self, CampaignConfig};
use crate::error::{Error, Result};
use crate::load_latency::{SweepConfig, SweepOptions};
use crate::report::progress::Show;
use crate::run::{RunConfig, RunOptions};
use std::path::PathBuf;

impl ShowProgress {
    /// How progress is shown: `--progress` forces it, `--quiet` hides it, else a terminal decides.
    pub(super) fn show(&self) -> Show {
        Show::choose(self.progress, self.quiet)
    }
}

/// `run [CONFIG] --topology ...`: the config file (or the defaults) with the flags laid over it,
/// and what only the flags give.
pub(super) fn run(args: &RunArgs) -> Result<(RunConfig, RunOptions)> {
    let mut cfg = match &args.config {
        Some(path) => RunConfig::load(path)?,
        None => RunConfig::default(),
    };
    if let Some(routing) = &args.routing {
        cfg.network.routing = routing.clone();
    }
    if let Some(model) = args.model {
        cfg.network.model = model;
    }
    cfg.topology = args.topology.clone().or(cfg.topology);
    cfg.workload = args.workload.clone().or(cfg.workload);
    cfg.placement = args.placement.clone().or(cfg.placement);
    cfg.seed = args.seed.or(cfg.seed);
    // The HTML page shows the series over time the model has: the flit model's link load and
    // packet counters; the flow model's page has its tables alone.
    let html_series = args.html.is_some() && cfg.network.model.is_flit();
    let options = RunOptions {
        max_memory: args.max_memory,
        progress: args.show.show(),
        timeline: args.timeline.clone(),
        link_load: args.link_load.is_some() || html_series,
        bins: args.bins.map(|b| b as usize),
        counters: args.received_per_cycle.is_some() || html_series,
        config: args.config.clone(),
    };
    Ok((cfg, options))
}

/// `load-latency [CONFIG] --topology ...`: the sweep config (or the defaults) with the flags laid
/// over it, and what only the flags give.
pub(super) fn sweep(args: &LoadLatencyArgs) -> Result<(SweepConfig, SweepOptions)> {
    let mut cfg = match &args.config {
        Some(path) => SweepConfig::load(path)?,
        None => SweepConfig::default(),
    };
    if let Some(routing) = &args.routing {
        cfg.routings = parse_routings(routing)?;
    }
    if !args.topology.is_empty() {
        cfg.topologies = args.topology.clone();
    }
    cfg.traffic = args.traffic.clone().or(cfg.traffic);
    cfg.loads = args.loads.clone().or(cfg.loads);
    cfg.seed = args.seed.or(cfg.seed);
    let phases = &mut cfg.open_loop;
    phases.warmup_cycles = args.warmup.unwrap_or(phases.warmup_cycles);
    phases.measure_cycles = args.measure.unwrap_or(phases.measure_cycles);
    phases.drain_cycles = args.drain.unwrap_or(phases.drain_cycles);
    phases.sample_periods = args.samples.unwrap_or(phases.sample_periods);
    let options = SweepOptions {
        progress: args.show.show(),
        max_memory: args.max_memory,
        config: args.config.clone(),
    };
    Ok((cfg, options))
}

/// A campaign as its flags give it: the config's path and contents, and the results directory.
pub(super) struct Campaign {
    /// The config file, as given.
    pub(super) path: PathBuf,
    /// Its contents.
    pub(super) config: CampaignConfig,
    /// `--out`, default `results/<config file stem>`.
    pub(super) dir: PathBuf,
}

/// `campaign CONFIG [--out DIR]`: the config read and where its results go.
pub(super) fn campaign(args: &CampaignArgs) -> Result<Campaign> {
    let path = args
        .config
        .clone()
        .ok_or_else(|| Error::Invalid("campaign needs a CONFIG".into()))?;
    let config = CampaignConfig::load(&path)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(path.file_stem().unwrap_or_default()));
    Ok(Campaign { path, config, dir })
}

/// `campaign --slurm --array ...`: the job array asked for.
pub(super) fn slurm(args: &SlurmArgs) -> campaign::slurm::Request {
    campaign::slurm::Request {
        array: args.array,
        partition: args.partition.clone(),
        time: args.time.clone(),
        cpus_per_task: args.cpus_per_task,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use crate::cli::args::Command;
    use clap::Parser;

    fn command(args: &[&str]) -> Command {
        Cli::try_parse_from(std::iter::once("netreplay").chain(args.iter().copied()))
            .expect("the flags parse")
            .command
    }

    #[test]
    fn run_flags_win_and_the_config_keeps_the_rest() {
        let path =
            std::env::temp_dir().join(format!("netreplay-overlay-{}.toml", std::process::id()));
        std::fs::write(
            &path,
            "topology = \"fat-tree:k=2,n=2\"\nworkload = \"bu:size=8\"\nseed = 3\n",
        )
        .unwrap();
        let Command::Run(args) = command(&[
            "run",
            path.to_str().unwrap(),
            "--seed",
            "7",
            "--html",
            "r.html",
            "--bins",
            "9",
            "--max-memory",
            "1K",
            "--quiet",
        ]) else {
            panic!("not run")
        };
        let (cfg, options) = run(&args).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(cfg.topology.as_deref(), Some("fat-tree:k=2,n=2"));
        assert_eq!(cfg.workload.as_deref(), Some("bu:size=8"));
        assert_eq!(cfg.seed, Some(7));
        assert_eq!(cfg.placement, None);
        // --html needs the link-load series and the counters even without their own flags.
        assert_eq!(
            options,
            RunOptions {
                max_memory: Some(1024),
                progress: Show::Off,
                timeline: None,
                link_load: true,
                bins: Some(9),
                counters: true,
                config: Some(path),
            }
        );
    }

    #[test]
    fn sweep_flags_set_only_what_they_name() {
        let Command::LoadLatency(args) = command(&[
            "load-latency",
            "--topology",
            "torus:k=4,n=2",
            "--routing",
            "minimal,lbr:period=8,valiant=2",
            "--warmup",
            "5",
            "--quiet",
        ]) else {
            panic!("not load-latency")
        };
        let (cfg, options) = sweep(&args).unwrap();
        assert_eq!(cfg.topologies, ["torus:k=4,n=2"]);
        assert_eq!(cfg.routings.len(), 2);
        assert_eq!(cfg.routings[1].to_string(), "lbr:period=8,valiant=2");
        assert_eq!(cfg.open_loop.warmup_cycles, 5);
        assert_eq!(cfg.open_loop.measure_cycles, 10_000);
        assert_eq!(cfg.seed, None);
        assert_eq!(options, SweepOptions::default());
    }

    #[test]
    fn a_campaign_defaults_its_results_under_results() {
        let Command::Campaign(args) = command(&["campaign", "configs/quick-campaign.toml"]) else {
            panic!("not campaign")
        };
        let c = campaign(&args).unwrap();
        assert_eq!(c.dir, PathBuf::from("results/quick-campaign"));
        assert_eq!(c.path, PathBuf::from("configs/quick-campaign.toml"));
    }
}
