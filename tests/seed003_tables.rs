//! Seed 003's Tables 4 and 6 as `results/seed003_tables.py` reproduces them
//! (`results/seed003-table3-4/`, `results/seed003-table6-cost/`): bisection widths of the five
//! families at the four sizes of Table 4, and `topology --cost seed003`.

use netreplay::topology::{self, bisection};
use std::process::Command;

/// Table 4's bisection ratio (width over router-to-router links) at about 1,000, 2,000, 5,000 and
/// 10,000 terminals. The paper's ratios: fat tree 0.250 throughout; dragonfly 0.187 / 0.182 / 0.179 /
/// 0.177; HyperX 0.278 / 0.269 / 0.265 / 0.262; Slim Fly (METIS) 0.326 / 0.354 / 0.345 / 0.328; FleX
/// 0.300 / 0.286 / 0.278 / 0.273. Fat tree, HyperX and FleX widths are closed forms and give the
/// paper's ratios to its three digits. The dragonfly's odd group counts g = 33, 51, 73, 99 have no
/// closed form: the paper's ratios are floor(g/2) ceil(g/2) global links (272, 650, 1332, 2450), a
/// split by whole groups that leaves the halves a group apart; the partitioner's balanced cuts are
/// 276, 656, 1348, 2464. Slim Fly's widths are partitioner bounds, as the paper's METIS ones are.
#[test]
fn table_4_bisection_widths() {
    for (spec, links, width, exact) in [
        ("fat-tree:k=10,n=3", 2000, 500, true),
        ("fat-tree:k=12,n=3", 3456, 864, true),
        ("fat-tree:k=18,n=3", 11664, 2916, true),
        ("fat-tree:k=22,n=3", 21296, 5324, true),
        ("dragonfly:p=4,a=8,h=4", 1452, 276, false),
        ("dragonfly:p=5,a=10,h=5", 3570, 656, false),
        ("dragonfly:p=6,a=12,h=6", 7446, 1348, false),
        ("dragonfly:p=7,a=14,h=7", 13860, 2464, false),
        ("hyperx:l=2,s=10,t=10", 900, 250, true),
        ("hyperx:l=2,s=14,t=13", 2548, 686, true),
        ("hyperx:l=2,s=18,t=17", 5508, 1458, true),
        ("hyperx:l=2,s=22,t=21", 10164, 2662, true),
        ("slimfly:q=9,p=6", 1053, 369, false),
        ("slimfly:q=11,p=8", 2057, 671, false),
        ("slimfly:q=16,p=12", 6144, 2048, false),
        ("slimfly:q=19,p=14", 10469, 3439, false),
        ("flex:x=6,y=6,z=3,p=10", 1080, 324, true),
        ("flex:x=8,y=8,z=3,p=14", 2688, 768, true),
        ("flex:x=10,y=10,z=3,p=18", 5400, 1500, true),
        ("flex:x=12,y=12,z=3,p=22", 9504, 2592, true),
    ] {
        let t = topology::build(spec).unwrap();
        let s = topology::structure(t.as_ref());
        let b = bisection::report(t.as_ref());
        assert_eq!(
            (s.switch_links, b.bisection_width, b.bisection_exact),
            (links, Some(width), exact),
            "{spec}"
        );
    }
}

/// `topology --cost seed003 --json` prices Table 6's FleX over Fig. 7's racks: 3,045,481 $ (the
/// paper's 3.05 M) and 9,072 W; an unknown model is an error naming the accepted ones.
#[test]
fn topology_cost_flag_prices_under_the_named_model() {
    let bin = env!("CARGO_BIN_EXE_netreplay");
    let out = Command::new(bin)
        .args([
            "topology",
            "flex:x=6,y=6,z=3,p=10",
            "--cost",
            "seed003",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cost"]["model"], "seed003:gbps=100,pitch=1");
    assert_eq!(v["cost"]["total"].as_f64().unwrap().round(), 3_045_481.0);
    assert_eq!(v["cost"]["power_watts"].as_f64().unwrap().round(), 9_072.0);
    let bad = Command::new(bin)
        .args(["topology", "flex:x=6,y=6,z=3,p=10", "--cost", "seed005"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && err.contains("seed003"), "{err}");
}
