//! Engine speed: events, decisions, phit-hops and events per CPU-second, under the default model
//! (FSIN's selection, planned) beside the free-outputs rule on the same runs.
//!
//! `cargo bench --bench engine` runs the five reference cases (4,096-node trees with BU and 2M, a
//! 16-ary 3-cube with 3M, a 1,056-node dragonfly with BU on 1,024 ranks, all 10 KB messages);
//! `cargo bench --bench engine -- TOPOLOGY WORKLOAD [SELECTION...]` runs one case, e.g.
//! `-- thin-tree:k=8,up=4,n=4 bu:size=1000 fsin fsin-poll free`, or an application trace, e.g. the
//! alltoall-heavy `-- fat-tree:k=4,n=3 trace:file=traces/simgrid/npb3.3-64/ft.A.64/ft.A.64.txt`
//! (about 40 s for both rules). CPU time is the process's own
//! (`CLOCK_PROCESS_CPUTIME_ID`), so a loaded machine changes it little; events and decisions do not
//! depend on the machine at all.

mod common;

use common::cpu_seconds;
use netreplay::network::{NetworkModel, Selection};
use netreplay::replay::simulate;
use netreplay::{placement, topology, workload};

const CASES: [(&str, &str, Option<u32>); 5] = [
    ("fat-tree:k=8,n=4", "bu:size=10000", None),
    ("thin-tree:k=8,up=4,n=4", "bu:size=10000", None),
    ("thin-tree:k=8,up=4,n=4", "2m:size=10000", None),
    ("torus:k=16,n=3", "3m:size=10000", None),
    ("dragonfly:p=4,a=8,h=4", "bu:size=10000", Some(1024)),
];

fn run_case(topo_spec: &str, workload_spec: &str, ranks: Option<u32>, selections: &[String]) {
    let topo = topology::build(topo_spec).expect("topology");
    let wl = workload::build(workload_spec).expect("workload");
    let ranks = ranks.or(wl.ranks).unwrap_or(topo.nodes());
    let program = wl.generator.generate(ranks).expect("program");
    let rank_node = placement::build("consecutive")
        .unwrap()
        .place(ranks, topo.as_ref(), 1)
        .expect("placement");
    println!("{} / {workload_spec} ({ranks} ranks)", topo.spec());
    let mut reference = None;
    for name in selections {
        let model = NetworkModel {
            selection: Selection::parse(name).expect("selection"),
            ..NetworkModel::default()
        };
        let start = cpu_seconds();
        let o = simulate(topo.as_ref(), &model, &program, &rank_node, 1).expect("simulation");
        let cpu = cpu_seconds() - start;
        let packet_hops = o.phit_hops as f64 / f64::from(model.packet_phits);
        println!(
            "  {name:<9} cycles {:>10}  events {:>11}  decisions {:>11}  events/packet-hop {:.2}  \
             cpu {cpu:>7.2} s  phit-hops/s {:>6.1} M  events/s {:>5.1} M",
            o.completion_cycles,
            o.events,
            o.decisions,
            o.events as f64 / packet_hops,
            o.phit_hops as f64 / cpu / 1e6,
            o.events as f64 / cpu / 1e6,
        );
        match reference {
            None => reference = Some((o.events, cpu)),
            Some((events, seconds)) => println!(
                "  {name:<9} against {}: {:.2}x the events, {:.2}x the CPU time",
                selections[0],
                o.events as f64 / events as f64,
                cpu / seconds
            ),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let defaults = ["free".to_string(), "fsin".to_string()];
    match args.as_slice() {
        [topo, wl, selections @ ..] => {
            let selections = if selections.is_empty() {
                &defaults[..]
            } else {
                selections
            };
            run_case(topo, wl, None, selections);
        }
        _ => {
            for (topo, wl, ranks) in CASES {
                run_case(topo, wl, ranks, &defaults);
            }
        }
    }
}
