//! Campaigns and costs end to end: `topology --json` cost against seed 004 Table 3, campaigns
//! that resume after a kill without losing or duplicating a run, shards that merge into the same report.

use std::process::Command;

mod common;
use common::netreplay;

fn ok(args: &[&str]) -> String {
    let out = netreplay(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs netreplay expecting it to fail; returns its stderr.
fn fails(args: &[&str]) -> String {
    let out = netreplay(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} succeeded: {err}");
    err
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
    // Text rounds half away from zero, as Table 3 prints 3412.5 as 3413.
    let text = ok(&["topology", "fat-tree:k=8,n=4"]);
    assert!(
        text.contains("cost              13977600 (3413 per node, seed004)"),
        "{text}"
    );
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("netreplay-campaign-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

const QUICK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick-campaign.toml");

fn lines(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// Run identity of a results line: (label, workload, size).
fn key(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    format!("{}|{}|{}", v["label"], v["workload"], v["size"])
}

/// A campaign killed mid-way (a partial results file ending in a torn line) resumes: the missing runs
/// run, the finished ones do not run again, and the report equals an uninterrupted campaign's.
#[test]
fn killed_campaign_resumes_with_each_run_exactly_once() {
    let full = tmp("full");
    ok(&[
        "campaign",
        QUICK,
        "--out",
        full.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    let all = lines(&full);
    assert_eq!(all.len(), 24);

    let cut = tmp("cut");
    std::fs::create_dir_all(&cut).unwrap();
    std::fs::copy(full.join("campaign.json"), cut.join("campaign.json")).unwrap();
    let partial = format!("{}\n{}", all[..10].join("\n"), &all[10][..20]);
    std::fs::write(cut.join("results.jsonl"), partial).unwrap();
    let out = netreplay(&[
        "campaign",
        QUICK,
        "--out",
        cut.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("10 already done, 14 run now"), "{err}");
    let resumed = lines(&cut);
    assert_eq!(resumed.len(), 24);
    assert_eq!(&resumed[..10], &all[..10]);
    let mut keys: Vec<String> = resumed.iter().map(|l| key(l)).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 24, "a run is missing or duplicated");
    let again = netreplay(&["campaign", QUICK, "--out", cut.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("24 already done, 0 run now"));
    assert_eq!(lines(&cut).len(), 24);
    assert_eq!(
        std::fs::read_to_string(full.join("report.json")).unwrap(),
        std::fs::read_to_string(cut.join("report.json")).unwrap()
    );
    for d in [full, cut] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A config that grew (a size added) takes over the directory of the config it grew from, runs only
/// its new runs and reports as a fresh campaign of it does; a config that defines a run differently
/// under the same identity is refused, naming the run.
#[test]
fn a_grown_config_keeps_the_results_it_grew_from() {
    let dir = tmp("grown");
    let fresh = tmp("grown-fresh");
    let small = std::env::temp_dir().join(format!("netreplay-small-{}.toml", std::process::id()));
    let quick = std::fs::read_to_string(QUICK).unwrap();
    std::fs::write(&small, quick.replace("sizes = [10, 1000]", "sizes = [10]")).unwrap();
    ok(&[
        "campaign",
        small.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let before = lines(&dir);
    assert_eq!(before.len(), 12);

    let out = netreplay(&["campaign", QUICK, "--out", dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("12 already done, 12 run now"), "{err}");
    let after = lines(&dir);
    assert_eq!(after.len(), 24);
    assert_eq!(&after[..12], &before[..]);
    ok(&["campaign", QUICK, "--out", fresh.to_str().unwrap()]);
    assert_eq!(
        std::fs::read_to_string(fresh.join("report.json")).unwrap(),
        std::fs::read_to_string(dir.join("report.json")).unwrap()
    );
    // `report` reads the kept lines, whose config hash is the smaller config's.
    let report = ok(&["report", dir.to_str().unwrap()]);
    assert!(report.contains("Runs: 24 of 24 done"), "{report}");

    std::fs::write(&small, quick.replace("seed = 1", "seed = 2")).unwrap();
    let err = fails(&[
        "campaign",
        small.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        err.contains("another campaign config")
            && err.contains("run `4,3-fat-tree / 2m / size=10` has another seed"),
        "{err}"
    );
    assert_eq!(lines(&dir), after, "a refused config touched the results");
    let _ = std::fs::remove_file(small);
    for d in [dir, fresh] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Two shards merged by `report` give the report of one unsharded campaign; files of every format.
#[test]
fn two_shards_merge_into_the_unsharded_report() {
    let (whole, a, b, merged) = (tmp("whole"), tmp("a"), tmp("b"), tmp("merged"));
    let single = ok(&["campaign", QUICK, "--out", whole.to_str().unwrap()]);
    ok(&[
        "campaign",
        QUICK,
        "--out",
        a.to_str().unwrap(),
        "--shard",
        "1/2",
    ]);
    ok(&[
        "campaign",
        QUICK,
        "--out",
        b.to_str().unwrap(),
        "--shard",
        "2/2",
    ]);
    assert_eq!(lines(&a).len() + lines(&b).len(), 24);
    assert_eq!(lines(&a).len(), 12);
    // A task's directory is complete for its shard, though it holds half the campaign's runs.
    let (a_dir, b_dir) = (a.to_str().unwrap(), b.to_str().unwrap());
    let shard = ok(&["campaign", "--status", a_dir, "--shard", "1/2"]);
    assert!(shard.contains("shard 1/2    12 of 12 done"), "{shard}");
    fails(&["campaign", "--status", b_dir]);
    let report = ok(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(report, single);
    assert!(report.contains("Runs: 24 of 24 done"), "{report}");
    for f in [
        "report.md",
        "relative_times.csv",
        "summary.csv",
        "report.json",
    ] {
        assert_eq!(
            std::fs::read_to_string(whole.join(f)).unwrap(),
            std::fs::read_to_string(merged.join(f)).unwrap(),
            "{f}"
        );
    }
    for f in ["relative_times.svg", "phi_vs_cost.svg"] {
        let svg = std::fs::read_to_string(merged.join(f)).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{f}"
        );
        assert!(svg.contains("4:2,3-thin-tree"), "{f}");
    }
    let csv = std::fs::read_to_string(merged.join("relative_times.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 24);
    for d in [whole, a, b, merged] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Merging directories of different configs is refused; so is reusing a directory for another config;
/// config errors carry file:line:column.
#[test]
fn mismatched_configs_are_refused() {
    let (a, b) = (tmp("ma"), tmp("mb"));
    let other = std::env::temp_dir().join(format!("netreplay-other-{}.toml", std::process::id()));
    let text = std::fs::read_to_string(QUICK)
        .unwrap()
        .replace("sizes = [10, 1000]", "sizes = [10]");
    std::fs::write(&other, text).unwrap();
    ok(&[
        "campaign",
        QUICK,
        "--out",
        a.to_str().unwrap(),
        "--shard",
        "1/2",
    ]);
    ok(&[
        "campaign",
        other.to_str().unwrap(),
        "--out",
        b.to_str().unwrap(),
        "--shard",
        "2/2",
    ]);
    let err = fails(&["report", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(err.contains("refusing to merge"), "{err}");
    let err = fails(&[
        "campaign",
        other.to_str().unwrap(),
        "--out",
        a.to_str().unwrap(),
    ]);
    assert!(err.contains("another campaign config"), "{err}");

    std::fs::write(
        &other,
        "reference = \"x\"\nworkloads = [\"bu\"]\nsizes = [1]\nbogus = 1\n",
    )
    .unwrap();
    let err = fails(&[
        "campaign",
        other.to_str().unwrap(),
        "--out",
        b.to_str().unwrap(),
    ]);
    assert!(err.contains(":4:1:"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    fails(&["campaign", QUICK, "--shard", "3/2"]);
    for d in [a, b] {
        let _ = std::fs::remove_dir_all(d);
    }
    let _ = std::fs::remove_file(other);
}

/// Slurm without a cluster: the scripts `--slurm` writes, run by bash as Slurm would run them
/// (`SLURM_ARRAY_TASK_ID` set), give the report of an unsharded campaign; `--status` follows the
/// shards; a changed `--array` and a `--submit` without sbatch are refused with clear errors.
/// (`tests/slurm.rs` does the same on a real Slurm cluster.)
#[test]
fn slurm_scripts_run_by_hand_merge_into_the_unsharded_report() {
    let (whole, dir) = (tmp("slurm-whole"), tmp("slurm-layout"));
    ok(&["campaign", QUICK, "--out", whole.to_str().unwrap()]);
    let d = dir.to_str().unwrap();
    let text = ok(&["campaign", QUICK, "--slurm", "--array", "2", "--out", d]);
    assert!(
        text.contains("(2 tasks)") && text.contains("0 of 24 runs done"),
        "{text}"
    );
    let array = std::fs::read_to_string(dir.join("slurm/array.sbatch")).unwrap();
    assert!(array.contains("#SBATCH --array=1-2\n"), "{array}");
    assert!(array.contains(env!("CARGO_BIN_EXE_netreplay")), "{array}");
    assert!(
        array.contains("--shard \"$SLURM_ARRAY_TASK_ID/2\""),
        "{array}"
    );

    let status = netreplay(&["campaign", "--status", d]);
    let out = String::from_utf8_lossy(&status.stdout);
    assert!(
        !status.status.success(),
        "--status must fail while runs are missing"
    );
    assert!(out.contains("0 of 24 runs done, 24 missing"), "{out}");
    assert!(
        out.contains("shard 2/2    0 of 12 done, missing: "),
        "{out}"
    );

    let bash = |script: &str, task: Option<&str>| {
        let mut cmd = Command::new("bash");
        cmd.arg(dir.join("slurm").join(script));
        if let Some(t) = task {
            cmd.env("SLURM_ARRAY_TASK_ID", t)
                .env("SLURM_CPUS_PER_TASK", "2");
        }
        cmd.output().unwrap()
    };
    assert!(bash("array.sbatch", Some("2")).status.success());
    let status = netreplay(&["campaign", "--status", d]);
    let out = String::from_utf8_lossy(&status.stdout);
    assert!(out.contains("12 of 24 runs done, 12 missing"), "{out}");
    assert!(out.contains("shard 2/2    12 of 12 done\n"), "{out}");
    // The merge job fails while a shard is missing, after writing the partial report.
    let merge = bash("merge.sbatch", None);
    assert!(!merge.status.success());
    assert!(String::from_utf8_lossy(&merge.stdout).contains("Runs: 12 of 24 done"));

    assert!(bash("array.sbatch", Some("1")).status.success());
    let merge = bash("merge.sbatch", None);
    assert!(
        merge.status.success(),
        "{}",
        String::from_utf8_lossy(&merge.stderr)
    );
    for f in [
        "report.md",
        "relative_times.csv",
        "summary.csv",
        "report.json",
    ] {
        assert_eq!(
            std::fs::read_to_string(whole.join(f)).unwrap(),
            std::fs::read_to_string(dir.join(f)).unwrap(),
            "{f}"
        );
    }
    ok(&["campaign", "--status", d]);
    // `report` of the layout's root reads its shards, as the merge job does.
    let again = ok(&["report", d]);
    assert!(again.contains("Runs: 24 of 24 done"), "{again}");
    assert_eq!(
        std::fs::read_to_string(whole.join("report.md")).unwrap(),
        std::fs::read_to_string(dir.join("report.md")).unwrap()
    );
    let err = fails(&["campaign", "--status", d, "--shard", "1/2"]);
    assert!(err.contains("knows its shards"), "{err}");

    let err = fails(&["campaign", QUICK, "--slurm", "--array", "3", "--out", d]);
    assert!(err.contains("laid out in 2 shards"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(["campaign", QUICK, "--slurm", "--submit", "--out", d])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("cannot run sbatch"),
        "{err}"
    );
    fails(&["campaign", QUICK, "--slurm", "--array", "25", "--out", d]);
    let w = whole.to_str().unwrap();
    let err = fails(&["campaign", QUICK, "--slurm", "--out", w]);
    assert!(err.contains("without --slurm"), "{err}");
    for d in [whole, dir] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A flit-model row carries seed 001's counters exactly as `run --json` reports them for the same run
/// (and the run's HTML page shows them); a flow-model row, whose engine has no packets, omits them.
/// `bu:size=1000` on 16 ranks: four stages of 16 messages, each 1000 bytes in 16 packets of 64 bytes
/// (16 phits of 4 bytes): 1,024 packets received.
#[test]
fn campaign_rows_carry_the_counters_run_reports() {
    let dir = tmp("counters");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("tiny.toml");
    std::fs::write(
        &config,
        "name = \"tiny\"\nreference = \"flit\"\nworkloads = [\"bu\"]\nsizes = [1000]\n\n\
         [[candidate]]\nlabel = \"flit\"\ntopology = \"fat-tree:k=4,n=2\"\n\n\
         [[candidate]]\nlabel = \"flow\"\ntopology = \"fat-tree:k=4,n=2\"\nmodel = \"flow\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    ok(&[
        "campaign",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let rows: Vec<serde_json::Value> = lines(&out)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = |label: &str| rows.iter().find(|r| r["label"] == label).unwrap();
    let (flit, flow) = (row("flit"), row("flow"));
    const FIELDS: [&str; 7] = [
        "output_port_conflicts",
        "packets_received",
        "conflicts_per_cycle",
        "received_per_cycle",
        "peak_received_per_cycle",
        "contested_outputs",
        "contested_per_cycle",
    ];
    for field in FIELDS {
        assert!(flow.get(field).is_none(), "flow row has {field}: {flow}");
    }
    let (csv, html) = (dir.join("received.csv"), dir.join("run.html"));
    let report: serde_json::Value = serde_json::from_str(&ok(&[
        "run",
        "--topology",
        flit["topology"].as_str().unwrap(),
        "--workload",
        flit["workload_spec"].as_str().unwrap(),
        "--json",
        "--received-per-cycle",
        csv.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "--quiet",
    ]))
    .unwrap();
    let counters = &report["counters"];
    for field in FIELDS {
        assert_eq!(flit[field], counters[field], "{field}");
    }
    assert_eq!(flit["packets_received"], 1024);
    assert_eq!(flit["completion_cycles"], report["completion_cycles"]);
    let conflicts = counters["output_port_conflicts"].as_u64().unwrap();
    assert!(conflicts > 0, "sixteen ranks exchanging make conflicts");
    let number = |f: &str| counters[f].as_f64().unwrap();
    let page = std::fs::read_to_string(&html).unwrap();
    for cell in [
        format!(
            "<td class=\"l\">output-port conflicts (total / per cycle)</td><td>{conflicts} / {:.3}</td>",
            number("conflicts_per_cycle")
        ),
        "<td class=\"l\">packets received (total)</td><td>1,024</td>".to_string(),
        format!(
            "<td class=\"l\">packets received per cycle (mean / peak bin)</td><td>{:.3} / {:.3}</td>",
            number("received_per_cycle"),
            number("peak_received_per_cycle")
        ),
        "1,024 packets,".to_string(),
    ] {
        assert!(page.contains(&cell), "{cell} missing from the run's page");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A run that fails (a trace whose ranks wait for each other) does not stop the others: every other
/// run is recorded, the failures are listed together, the command fails, `report` reports the rest,
/// and a rerun runs only the failed ones.
#[test]
fn a_failing_run_leaves_the_others_recorded() {
    let dir = tmp("failing-run");
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("circle.trace");
    std::fs::write(
        &trace,
        "netreplay-trace 3\nranks 2\n0 recv 1\n0 send 1 10\n1 recv 0\n1 send 0 10\n",
    )
    .unwrap();
    let config = dir.join("c.toml");
    std::fs::write(
        &config,
        format!(
            "reference = \"a\"\nranks = 2\nsizes = [10, 1000]\n\
             workloads = [\"bu\", \"trace:file={}\"]\n\
             [[candidate]]\nlabel = \"a\"\ntopology = \"fat-tree:k=2,n=2\"\n\
             [[candidate]]\nlabel = \"b\"\ntopology = \"mesh:k=2,n=2\"\n",
            trace.display()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let args = [
        "campaign",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let err = fails(&args);
    assert!(err.contains("2 of 6 runs failed"), "{err}");
    for label in ["a", "b"] {
        assert!(
            err.contains(&format!("run {label} / trace:file=")) && err.contains("in a circle"),
            "{err}"
        );
    }
    assert_eq!(lines(&out).len(), 4, "the four bu runs are recorded");
    let report = ok(&["report", out.to_str().unwrap()]);
    assert!(report.contains("bu"), "{report}");
    let again = fails(&args);
    assert!(again.contains("2 of 2 runs failed"), "{again}");
    assert_eq!(lines(&out).len(), 4);
}

/// The fields of one CSV line (RFC 4180: quoted fields may hold commas and doubled quotes).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// A partial campaign (one shard: the 10-byte runs only, so no network has its index yet) reports
/// what it knows: in `summary.csv` the index fields are empty, not `-` (a numeric reader would turn
/// the column into strings), and the normalised costs are there, as the costs do not depend on runs.
#[test]
fn a_partial_campaign_leaves_unknown_values_empty_and_gives_normalised_costs() {
    let dir = tmp("partial");
    ok(&[
        "campaign",
        QUICK,
        "--out",
        dir.to_str().unwrap(),
        "--shard",
        "1/2",
    ]);
    let csv = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let mut rows = csv.lines().map(csv_fields);
    let head = rows.next().unwrap();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let rows: Vec<Vec<String>> = rows.collect();
    assert_eq!(rows.len(), 3, "{csv}");
    for row in &rows {
        assert_eq!(row.len(), head.len(), "{csv}");
        for (h, v) in head.iter().zip(row) {
            assert!(
                v.is_empty() || h == "network" || h == "topology" || v.parse::<f64>().is_ok(),
                "{h} = {v:?} is neither a number nor empty:\n{csv}"
            );
        }
        for unknown in ["weighted_sum", "normalised_phi", "perf_per_cost_u"] {
            assert_eq!(row[col(unknown)], "", "{unknown}:\n{csv}");
        }
        // Cost per node over the reference's (the fat tree, first), in both columns.
        for (norm, cost) in [
            ("normalised_cost_cn", "cost_per_node_cn"),
            ("normalised_cost_u", "cost_per_node_u"),
        ] {
            let (n, c, r): (f64, f64, f64) = (
                row[col(norm)].parse().unwrap(),
                row[col(cost)].parse().unwrap(),
                rows[0][col(cost)].parse().unwrap(),
            );
            assert!((n - c / r).abs() < 1e-4, "{norm} {n} vs {c} / {r}:\n{csv}");
        }
    }
    assert_eq!(rows[1][col("normalised_cost_cn")], "0.404449", "{csv}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("| Norm cost/node-CN | 1.00 | 0.40 | 0.43 |"),
        "{md}"
    );
    assert!(md.contains("| Normalised φ | - | - | - |"), "{md}");
    // No network has its index yet: the scatter says so rather than drawing empty axes.
    let scatter = std::fs::read_to_string(dir.join("phi_vs_cost.svg")).unwrap();
    assert!(
        scatter.contains(">no network has all its runs yet (12 of 24 runs done)</text>"),
        "{scatter}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
