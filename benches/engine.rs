//! Engine speed: phit-hops per second and node-cycles per second on one core.
//!
//! `cargo bench --bench engine` replays `bu:size=10000` over `fat-tree:k=8,n=4` (4096 nodes), the
//! reference case of the engine issue; `cargo bench --bench engine -- TOPOLOGY WORKLOAD [REPEATS]` runs
//! another. Each case is repeated (3 times by default) and the best and median are printed, with the
//! process's peak resident memory.

use netreplay::network::{NetworkModel, simulate};
use netreplay::{placement, topology, workload};
use std::time::Instant;

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let topo_spec = args.first().map_or("fat-tree:k=8,n=4", String::as_str);
    let workload_spec = args.get(1).map_or("bu:size=10000", String::as_str);
    let repeats: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);

    let topo = topology::build(topo_spec).expect("topology");
    let wl = workload::build(workload_spec).expect("workload");
    let ranks = wl.ranks.unwrap_or(topo.nodes());
    let program = wl.generator.generate(ranks).expect("program");
    let rank_node = placement::build("consecutive")
        .unwrap()
        .place(ranks, topo.as_ref(), 1)
        .expect("placement");
    let model = NetworkModel::default();

    let mut runs = Vec::new();
    for _ in 0..repeats {
        let start = Instant::now();
        let o = simulate(topo.as_ref(), &model, &program, &rank_node, 1).expect("simulation");
        let wall = start.elapsed().as_secs_f64();
        runs.push((wall, o));
    }
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (best, o) = &runs[0];
    let median = runs[runs.len() / 2].0;
    let node_cycles = f64::from(topo.nodes()) * o.completion_cycles as f64;
    println!(
        "case                 {} / {} ({} ranks)",
        topo.spec(),
        workload_spec,
        ranks
    );
    println!("completion_cycles    {}", o.completion_cycles);
    println!("messages / packets   {} / {}", o.messages, o.packets);
    println!("phit_hops            {}", o.phit_hops);
    println!("events               {}", o.events);
    println!(
        "wall (best, median)  {:.3} s, {:.3} s over {} runs",
        best,
        median,
        runs.len()
    );
    println!(
        "phit-hops/s          {:.1} M (best), {:.1} M (median)",
        o.phit_hops as f64 / best / 1e6,
        o.phit_hops as f64 / median / 1e6
    );
    println!(
        "node-cycles/s        {:.1} M (best)",
        node_cycles / best / 1e6
    );
    println!(
        "events/s             {:.1} M (best)",
        o.events as f64 / best / 1e6
    );
    if let Some(mib) = peak_rss_mib() {
        println!("peak RSS             {mib:.0} MiB");
    }
}
