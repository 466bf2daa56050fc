//! Campaigns and costs end to end (issue 6): `topology --json` cost against seed 004 Table 3, campaigns
//! that resume after a kill without losing or duplicating a run, shards that merge into the same report.

use std::process::{Command, Output};

fn netreplay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = netreplay(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The contract's `cost: {total, per_node}` under the default (seed 004) model, Table 3a.
#[test]
fn topology_json_carries_seed_004_cost() {
    for (spec, total, per_node) in [
        ("fat-tree:k=8,n=4", 13977600.0, 3412.5),
        ("thin-tree:k=8,up=2,n=4", 2310140.625, 2310140.625 / 4096.0),
    ] {
        let v: serde_json::Value =
            serde_json::from_str(&ok(&["topology", spec, "--json"])).unwrap();
        assert_eq!(v["cost"]["total"].as_f64(), Some(total), "{spec}");
        assert_eq!(v["cost"]["per_node"].as_f64(), Some(per_node), "{spec}");
    }
}
