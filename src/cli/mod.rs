//! The command line: clap definitions turned into validated library calls. The one place that knows
//! about flags; everything else takes typed config.

use crate::error::{Error, Result};
use crate::load_latency::{self, SweepConfig};
use crate::network::Routing;
use crate::report::{self, TopologyReport};
use crate::run::{self, RunConfig};
use crate::{campaign, output, topology, trace, workload};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

mod args;
mod growth;
mod values;
use args::{ShowProgress, SlurmArgs, TraceAction};
use values::{parse_model, parse_routing, parse_routings, placement_help, registry_help};

/// Trace-driven application replay over flit-level models of interconnection networks.
#[derive(Debug, Parser)]
#[command(name = "netreplay", version = crate::VERSION, about, after_help = registry_help())]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// More detail on stderr: -v what is read and built, -vv debugging, -vvv everything
    /// (`RUST_LOG`, e.g. `RUST_LOG=netreplay=debug`, overrides it).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

impl Cli {
    /// Starts logging to stderr at the level `-v` asks (warnings only without it), unless
    /// `RUST_LOG` says otherwise.
    pub fn init_logging(&self) {
        let level = match self.verbose {
            0 => "warn",
            1 => "info",
            2 => "debug",
            _ => "trace",
        };
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level))
            .format_timestamp(None)
            .init();
    }
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
        /// Also measure fault tolerance by random link removal (seed 003 §III-A-4).
        #[arg(long)]
        fault_tolerance: bool,
        /// Trials per 5% step of the fault-tolerance measure (1 to 100000).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        trials: u32,
        /// DSN-F only: grow the network to this many nodes (seed 002 §III-D, Fig. 4) and print, per
        /// step, the cables added and removed, diameter and average shortest path length.
        #[arg(long, value_name = "NODES")]
        grow_to: Option<u32>,
        /// Nodes added per growth step.
        #[arg(long, default_value_t = 64, requires = "grow_to")]
        step: u32,
        /// Print the growth as CSV.
        #[arg(long, requires = "grow_to", conflicts_with = "json")]
        csv: bool,
        /// Also write the growth's Fig. 4 plot (SVG) to this file.
        #[arg(long, value_name = "FILE", requires = "grow_to")]
        svg: Option<PathBuf>,
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
        #[arg(long, help = placement_help())]
        placement: Option<String>,
        /// Seed of every random choice (arbitration, tie-breaks, random placement).
        #[arg(long)]
        seed: Option<u64>,
        /// Routing algorithm: minimal (default), valiant, ugal or lbr[:period=T,valiant=M]
        /// (overrides `[network] routing`).
        #[arg(long, value_parser = parse_routing)]
        routing: Option<Routing>,
        /// Network model: flit (default; packets, phit-exact) or flow (max-min fair flows, fast for
        /// large messages, approximate under contention). Overrides `[network] model`.
        #[arg(long, value_parser = parse_model)]
        model: Option<crate::network::Model>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Also write the JSON report to this file (atomically; its directory is created).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Refuse the run at once if its memory estimate passes SIZE (bytes, or 512M, 8G, ...);
        /// default: the memory available on the machine.
        #[arg(long, value_name = "SIZE", value_parser = crate::network::memory::parse_size)]
        max_memory: Option<u64>,
        /// Write the replay timeline to FILE: Chrome trace-event JSON for Perfetto, chrome://tracing
        /// or speedscope (real time at the network clock, 1 GHz unless the trace sets
        /// `cycles_per_second`; arrows for the first 10,000 messages; written atomically).
        #[arg(long, value_name = "FILE")]
        timeline: Option<PathBuf>,
        /// Record link load over time: DIR/link_load.csv (per class), DIR/top_links.csv and
        /// DIR/link_load.svg (heat map), and `link_load` in the JSON report.
        #[arg(long, value_name = "DIR")]
        link_load: Option<PathBuf>,
        /// Most time bins of the link-load series (2 to 10000; default 200, the result has half to
        /// all of them).
        #[arg(long, value_parser = clap::value_parser!(u32).range(2..=10_000))]
        bins: Option<u32>,
        /// Write a self-contained HTML report of the run (tables, link-load heat map, critical
        /// path) to FILE.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Progress on stderr: share of the phits delivered, rate, ETA, simulated cycle.
        #[command(flatten)]
        show: ShowProgress,
    },
    /// Run a campaign (candidates x workloads x sizes) in parallel, resumably, and write its report
    /// (relative times, performance index, cost, performance/cost) into DIR.
    Campaign {
        /// The campaign config (configs/seed004-*.toml).
        #[arg(required_unless_present = "status")]
        config: Option<PathBuf>,
        /// Results directory (default: results/<config file stem>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Simulations run at once (default: all cores).
        #[arg(long, conflicts_with = "slurm")]
        jobs: Option<usize>,
        /// Run only slice I of N (1-based), e.g. 2/4, for job arrays; merge with `report`.
        #[arg(long, conflicts_with = "slurm")]
        shard: Option<campaign::Shard>,
        /// Print which runs of results directory DIR (a campaign's --out, or a Slurm layout) are
        /// done and which are missing, per shard; exit 1 while any is missing. Runs nothing.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["config", "out", "jobs", "shard", "slurm"])]
        status: Option<PathBuf>,
        /// Slurm job array and merge job (`--slurm`, `--array`, `--submit`, ...).
        #[command(flatten)]
        slurm: SlurmArgs,
        /// Progress on stderr: the run count, then runs done, rate, ETA.
        #[command(flatten)]
        show: ShowProgress,
    },
    /// Merge campaign results directories (shards of one config) and print and write the report.
    Report {
        /// Results directories written by `campaign`.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where to write the report files (default: the first directory).
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
        /// `native` (traces/FORMAT.md, default) or `trc` (INSEE/FSIN; blocking operations only).
        #[arg(long, default_value = "native")]
        format: String,
        /// Refuse at once if the program would take more than SIZE (bytes, or 512M, 8G, ...);
        /// default: the memory available on the machine.
        #[arg(long, value_name = "SIZE", value_parser = crate::network::memory::parse_size)]
        max_memory: Option<u64>,
    },
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
    LoadLatency {
        /// A TOML sweep config (topologies, traffic, loads, seed, [open_loop], [network]).
        config: Option<PathBuf>,
        /// Topology spec; repeat for several curves.
        #[arg(long)]
        topology: Vec<String>,
        /// Traffic pattern spec (default uniform).
        #[arg(long)]
        traffic: Option<String>,
        /// Offered loads in phits/node/cycle: FROM:TO:STEP or a list (default 0.05:1.0:0.05).
        #[arg(long)]
        loads: Option<String>,
        /// Seed of every random choice.
        #[arg(long)]
        seed: Option<u64>,
        /// Cycles before measurement starts.
        #[arg(long)]
        warmup: Option<u64>,
        /// Cycles of the measurement window.
        #[arg(long)]
        measure: Option<u64>,
        /// Longest drain before a point is declared unstable.
        #[arg(long)]
        drain: Option<u64>,
        /// Sample periods the measurement window is split into to judge stability (default 5).
        #[arg(long)]
        samples: Option<u32>,
        /// Routing algorithms, comma-separated (minimal, valiant, ugal, lbr[:period=T,valiant=M]):
        /// one curve per topology and routing (overrides `routings` and `[network] routing`).
        #[arg(long)]
        routing: Option<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Directory for load-latency.{csv,json,svg,html} (each written atomically).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Refuse the sweep at once if its memory estimate (one engine per thread) passes SIZE;
        /// default: the memory available on the machine.
        #[arg(long, value_name = "SIZE", value_parser = crate::network::memory::parse_size)]
        max_memory: Option<u64>,
        /// Progress on stderr: points done, rate, ETA.
        #[command(flatten)]
        show: ShowProgress,
    },
}

/// Runs the parsed command, printing its result to stdout.
pub fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "netreplay", &mut script);
            std::io::Write::write_all(&mut std::io::stdout(), &script)
                .map_err(Error::io("standard output"))?;
        }
        Command::Man => {
            let mut page = Vec::new();
            clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
                .render(&mut page)
                .map_err(Error::io("the manual page"))?;
            std::io::Write::write_all(&mut std::io::stdout(), &page)
                .map_err(Error::io("standard output"))?;
        }
        Command::Topology {
            spec,
            json,
            grow_to: Some(to),
            step,
            csv,
            svg,
            ..
        } => growth::grow(&spec, to, step, json, csv, svg.as_deref())?,
        Command::Topology {
            spec,
            json,
            exact,
            fault_tolerance,
            trials,
            ..
        } => {
            let topo = topology::build(&spec)?;
            let budget = if exact {
                topology::metrics::Budget::EXACT
            } else {
                topology::metrics::Budget::DEFAULT
            };
            let mut r = TopologyReport::new(topo.as_ref())
                .with_metrics(topo.as_ref(), budget)
                .with_bisection(topo.as_ref());
            if fault_tolerance {
                r.fault_tolerance = Some(topology::fault_tolerance::fault_tolerance(
                    topo.as_ref(),
                    trials.max(1),
                    1,
                ));
            }
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
            routing,
            model,
            json,
            out,
            max_memory,
            timeline,
            link_load,
            bins,
            html,
            show,
        } => {
            let mut cfg = match &config {
                Some(path) => RunConfig::load(path)?,
                None => RunConfig::default(),
            };
            if let Some(routing) = routing {
                cfg.network.routing = routing;
            }
            if let Some(model) = model {
                cfg.network.model = model;
            }
            cfg.topology = topology.or(cfg.topology);
            cfg.workload = workload.or(cfg.workload);
            cfg.placement = placement.or(cfg.placement);
            cfg.seed = seed.or(cfg.seed);
            cfg.max_memory = max_memory;
            cfg.progress = report::progress::Show::choose(show.progress, show.quiet);
            if let Some(path) = &out {
                output::prepare_output(path)?;
            }
            for path in [&timeline, &html].into_iter().flatten() {
                output::prepare_output(path)?;
            }
            if let Some(dir) = &link_load {
                output::prepare_dir(dir)?;
            }
            cfg.timeline = timeline;
            cfg.link_load = link_load.is_some() || html.is_some();
            cfg.bins = bins.map(|b| b as usize);
            let r = run::execute(&cfg)?;
            let text = report::json(&r) + "\n";
            // Printed before the file is written, so a failing write cannot lose the result.
            if json {
                print!("{text}");
            } else {
                print!("{}", report::run_text(&r));
            }
            if let Some(path) = out {
                output::write_atomic(&path, text.as_bytes())?;
            }
            if let (Some(dir), Some(series)) = (&link_load, &r.link_load) {
                report::link_load::write_all(series, dir)?;
            }
            if let Some(path) = html {
                output::write_atomic(&path, report::html::run(&r).as_bytes())?;
            }
        }
        Command::Campaign {
            config,
            out,
            jobs,
            shard,
            status,
            slurm,
            show,
        } => {
            if let Some(dir) = status {
                let s = campaign::status::status(&dir)?;
                print!("{}", s.text());
                if s.missing() > 0 {
                    return Err(Error::Invalid(format!(
                        "{} of {} runs are missing; rerun the campaign with the same --out (with \
                         --slurm --submit for a Slurm layout) to run only those",
                        s.missing(),
                        s.runs()
                    )));
                }
                return Ok(());
            }
            let config = config.ok_or_else(|| Error::Invalid("campaign needs a CONFIG".into()))?;
            let cfg = campaign::CampaignConfig::load(&config)?;
            let dir = out.unwrap_or_else(|| {
                PathBuf::from("results").join(config.file_stem().unwrap_or_default())
            });
            if slurm.slurm {
                let exe = std::env::current_exe()
                    .map_err(Error::io("the path of the netreplay binary"))?;
                let req = campaign::slurm::Request {
                    array: slurm.array,
                    partition: slurm.partition,
                    time: slurm.time,
                    cpus_per_task: slurm.cpus_per_task,
                };
                let p = campaign::slurm::prepare(&cfg, &config, &dir, &exe, &req)?;
                let sub = if slurm.submit {
                    Some(campaign::slurm::submit(&p)?)
                } else {
                    None
                };
                print!("{}", campaign::slurm::text(&p, sub.as_ref()));
                return Ok(());
            }
            let jobs = jobs.unwrap_or_else(rayon::current_num_threads);
            output::interrupt::describe(&format!(
                "campaign {} into {}: the runs finished so far are kept; rerun with the same --out \
                 to run only the rest",
                config.display(),
                dir.display()
            ));
            let show = report::progress::Show::choose(show.progress, show.quiet);
            let p = campaign::run_campaign(&cfg, &dir, jobs, shard, show)?;
            eprintln!(
                "{} runs in this {}: {} already done, {} run now; results in {}",
                p.shard_runs,
                if shard.is_some() { "shard" } else { "campaign" },
                p.resumed,
                p.ran,
                dir.display()
            );
            let (cfg, records) = campaign::merge(std::slice::from_ref(&dir))?;
            let a = campaign::analysis::analyse(&cfg, &records)?;
            report::campaign::write_all(&a, &dir)?;
            print!("{}", report::campaign::markdown(&a));
        }
        Command::Report { dirs, out } => {
            let (cfg, records) = campaign::merge(&dirs)?;
            let a = campaign::analysis::analyse(&cfg, &records)?;
            let dir = out.unwrap_or_else(|| dirs[0].clone());
            std::fs::create_dir_all(&dir).map_err(Error::io(dir.display()))?;
            report::campaign::write_all(&a, &dir)?;
            print!("{}", report::campaign::markdown(&a));
        }
        Command::Trace {
            action: TraceAction::Check { file, json, format },
        } => {
            let opts = trace::ReadOptions {
                format: trace::Format::parse(&format)?,
                ..trace::ReadOptions::default()
            };
            let c = trace::check::check_file(&file, &opts)?;
            print!(
                "{}",
                if json {
                    report::json(&c) + "\n"
                } else {
                    trace::check::text(&c)
                }
            );
            c.require_ok(&file.display().to_string())?;
        }
        Command::Generate {
            spec,
            ranks,
            out,
            format,
            max_memory,
        } => {
            let format = trace::Format::parse_writable(&format)?;
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
            output::prepare_output(&out)?;
            if let Some(bytes) = wl.generator.bytes_bound(ranks) {
                crate::network::memory::check(
                    bytes,
                    max_memory,
                    &format!("generating `{}` on {ranks} ranks", wl.generator.spec()),
                )?;
            }
            let program = wl.generator.generate(ranks)?;
            trace::write_as(&program, &out, format)?;
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
        Command::LoadLatency {
            config,
            topology,
            traffic,
            loads,
            seed,
            warmup,
            measure,
            drain,
            samples,
            routing,
            json,
            out,
            max_memory,
            show,
        } => {
            let mut cfg = match &config {
                Some(path) => SweepConfig::load(path)?,
                None => SweepConfig::default(),
            };
            if let Some(routing) = routing {
                cfg.routings = parse_routings(&routing)?;
            }
            if !topology.is_empty() {
                cfg.topologies = topology;
            }
            cfg.traffic = traffic.or(cfg.traffic);
            cfg.loads = loads.or(cfg.loads);
            cfg.seed = seed.or(cfg.seed);
            cfg.progress = report::progress::Show::choose(show.progress, show.quiet);
            cfg.max_memory = max_memory;
            let phases = &mut cfg.open_loop;
            phases.warmup_cycles = warmup.unwrap_or(phases.warmup_cycles);
            phases.measure_cycles = measure.unwrap_or(phases.measure_cycles);
            phases.drain_cycles = drain.unwrap_or(phases.drain_cycles);
            phases.sample_periods = samples.unwrap_or(phases.sample_periods);
            if let Some(dir) = &out {
                output::prepare_dir(dir)?;
            }
            let curves = load_latency::sweep(&cfg)?;
            let text = report::json(&curves) + "\n";
            if json {
                print!("{text}");
            } else {
                print!("{}", report::load_latency::text(&curves));
            }
            if let Some(dir) = out {
                let csv = report::load_latency::csv(&curves);
                let svg = report::load_latency::svg(&curves);
                let html = report::html::load_latency(&curves);
                output::write_set(
                    &dir,
                    &[
                        ("load-latency.json", text.as_bytes()),
                        ("load-latency.csv", csv.as_bytes()),
                        ("load-latency.svg", svg.as_bytes()),
                        ("load-latency.html", html.as_bytes()),
                    ],
                )?;
            }
        }
    }
    Ok(())
}
