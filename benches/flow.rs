//! Flow model against flit model: CPU time of the same replay under both (`[network] model`), the
//! simulation alone (the program and the network are built before the clock starts).
//!
//! `cargo bench --bench flow` runs the default cases: large-message workloads on 64- and 4096-node
//! fat trees, BU 1 KB at 4,096 nodes in both models, BU 1 KB on the 65,536-node 16,4-fat-tree and
//! BT 1 KB on the 2^20-node 32,4-fat-tree with the flow model, and SimGrid's 32-rank example (`ti_traces_32_1`, 6.9 GB of messages: two alltoallv
//! rounds of about 3.3 MB per pair) on a 4,3-fat-tree with the flow model, timing the trace reading
//! (with and without the bincode cache) apart from the simulation. The flit model is run only where
//! it takes seconds; `cargo bench --bench flow -- flit` adds it for the trace (about two to four
//! minutes on one core). `cargo bench --bench flow -- TOPOLOGY WORKLOAD` runs one case in both models;
//! `cargo bench --bench flow -- 4096` runs the cases `configs/flow-vs-flit-4096.toml` lists (seed 004's
//! seven patterns at 1 KB on its three 4,096-node networks: 21) in both, the best of three CPU times
//! each, and prints how many times faster the flow model is.

use netreplay::campaign::CampaignConfig;
use netreplay::network::{Model, NetworkModel};
use netreplay::program::Program;
use netreplay::replay::simulate;
use netreplay::{placement, topology, workload};
use std::time::Instant;

mod common;
use common::cpu_seconds;

/// The flow-vs-flit set at 4,096 nodes (`-- 4096`), relative to the crate.
const SET_4096: &str = "configs/flow-vs-flit-4096.toml";
const TI_TRACE: &str = "/work/shared/traces/simgrid-ti/ti_traces_32_1/smpi_replay.txt";

fn build(spec: &str, ranks: Option<u32>, nodes: u32) -> (Program, f64) {
    let start = Instant::now();
    let wl = workload::build(spec).expect("workload");
    let ranks = wl.ranks.or(wl.generator.ranks()).or(ranks).unwrap_or(nodes);
    let program = wl.generator.generate(ranks).expect("program");
    (program, start.elapsed().as_secs_f64())
}

/// Completion cycles and the CPU seconds of the simulation alone (seed 1).
fn replay(topo_spec: &str, program: &Program, model: Model) -> (u64, f64) {
    replay_seeded(topo_spec, program, model, 1)
}

/// [`replay`] under run seed `seed`.
fn replay_seeded(topo_spec: &str, program: &Program, model: Model, seed: u64) -> (u64, f64) {
    let topo = topology::build(topo_spec).expect("topology");
    let rank_node = placement::build("consecutive")
        .unwrap()
        .place(program.ranks(), topo.as_ref(), seed)
        .expect("placement");
    let network = NetworkModel {
        model,
        ..NetworkModel::default()
    };
    let start = cpu_seconds();
    let o = simulate(topo.as_ref(), &network, program, &rank_node, seed).expect("simulation");
    (o.completion_cycles, cpu_seconds() - start)
}

fn case(topo: &str, workload: &str, models: &[Model]) {
    let nodes = topology::build(topo).expect("topology").nodes();
    let (program, read) = build(workload, None, nodes);
    let mut flit = None;
    for &model in models {
        let (cycles, cpu) = replay(topo, &program, model);
        let error = match (model, flit) {
            (Model::Flow, Some(f)) => {
                format!(
                    ", {:+.1}% vs flit",
                    (cycles as f64 - f as f64) / f as f64 * 100.0
                )
            }
            _ => String::new(),
        };
        if model == Model::Flit {
            flit = Some(cycles);
        }
        println!(
            "{topo:<18} {workload:<26} {model}: {cycles:>14} cycles in {cpu:9.4} s of CPU (program \
             built in {read:.3} s){error}"
        );
    }
}

/// The cases of `configs/flow-vs-flit-4096.toml`, read from the file: for each network it lists, the
/// flit and flow models' CPU seconds on every (workload, size) cell (best of three each, the
/// simulation alone, the config's seed) and their ratio.
fn set_4096() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SET_4096);
    let cfg = CampaignConfig::load(&path).expect("the 4,096-node config");
    let seed = cfg.seed.unwrap_or(1);
    let mut networks: Vec<&str> = Vec::new();
    for c in &cfg.candidates {
        if !networks.contains(&c.topology.as_str()) {
            networks.push(&c.topology);
        }
    }
    println!("network                 workload          flit ms    flow ms   flow faster");
    for topo in networks {
        let nodes = topology::build(topo).expect("topology").nodes();
        for (workload, size) in cfg.cells() {
            let spec = cfg.workload_spec(&workload, size).expect("workload spec");
            let (program, _) = build(&spec, None, nodes);
            let best = |model| {
                (0..3)
                    .map(|_| replay_seeded(topo, &program, model, seed).1)
                    .fold(f64::INFINITY, f64::min)
            };
            let (flit, flow) = (best(Model::Flit), best(Model::Flow));
            let cell = match size {
                Some(s) => format!("{workload} {s} B"),
                None => workload,
            };
            println!(
                "{topo:<23} {cell:<15} {:>8.1}   {:>8.2}   {:>6.1}x",
                flit * 1e3,
                flow * 1e3,
                flit / flow
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let both = [Model::Flit, Model::Flow];
    if args.len() >= 2 {
        case(&args[0], &args[1], &both);
        return;
    }
    if args.first().is_some_and(|a| a == "4096") {
        set_4096();
        return;
    }
    case("fat-tree:k=4,n=3", "bu:size=100000", &both);
    case("fat-tree:k=4,n=3", "3m:size=1000000", &both);
    case("fat-tree:k=4,n=3", "wf:size=1000000", &both);
    case("fat-tree:k=8,n=4", "bu:size=100000", &[Model::Flow]);
    case("fat-tree:k=8,n=4", "3m:size=100000", &[Model::Flow]);
    case("fat-tree:k=8,n=4", "bu:size=1000", &both);
    case("fat-tree:k=16,n=4", "bu:size=1000", &[Model::Flow]);
    case("fat-tree:k=32,n=4", "bt:size=1000", &[Model::Flow]);
    if !std::path::Path::new(TI_TRACE).exists() {
        println!("{TI_TRACE} not found: the SimGrid case is skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("netreplay-flow-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("cache folder");
    let cached = format!("trace:file={TI_TRACE},cache={}", dir.display());
    let plain = format!("trace:file={TI_TRACE},cache=off");
    let models: &[Model] = if args.iter().any(|a| a == "flit") {
        &both
    } else {
        &[Model::Flow]
    };
    let (_, read_plain) = build(&plain, None, 64);
    let (_, read_cold) = build(&cached, None, 64);
    let (_, read_warm) = build(&cached, None, 64);
    println!(
        "SimGrid ti_traces_32_1: reading {read_plain:.3} s without cache, {read_cold:.3} s writing the \
         cache, {read_warm:.3} s from it"
    );
    case("fat-tree:k=4,n=3", &plain, models);
    let _ = std::fs::remove_dir_all(&dir);
}
