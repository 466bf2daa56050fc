//! The binary end to end: `topology --json` against seed 004 Table 2, `run --json` fields, and bad
//! input that must exit non-zero with a clear one-paragraph message and no panic.

use std::process::Command;

mod common;
use common::netreplay;

fn json(args: &[&str]) -> serde_json::Value {
    let out = netreplay(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// Fails unless the command exits non-zero, without a panic, with every `needle` in its message.
fn rejects(args: &[&str], needles: &[&str]) {
    let out = netreplay(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    assert!(err.starts_with("netreplay: error: "), "{args:?}: {err}");
    for needle in needles {
        assert!(
            err.contains(needle),
            "{args:?}: `{needle}` missing from: {err}"
        );
    }
    assert!(out.stdout.is_empty(), "{args:?} printed a partial result");
}

/// Seed 004 Table 2: the ten complete networks (eight distinct) and their switch radix.
#[test]
fn topology_json_reproduces_table_2() {
    let table = [
        ("fat-tree:k=8,n=4", 4096, 2048, 16384, 16),
        ("thin-tree:k=8,up=4,n=4", 4096, 960, 7680, 12),
        ("thin-tree:k=8,up=2,n=4", 4096, 680, 5440, 10),
        ("slender-tree:k=8,up=4,n=8", 4096, 1020, 8160, 12),
        ("slender-tree:k=8,up=2,n=5", 4096, 682, 5456, 10),
        ("fat-tree:k=6,n=5", 7776, 6480, 38880, 12),
        ("thin-tree:k=9,up=3,n=4", 6561, 1080, 9720, 12),
        ("slender-tree:k=9,up=3,n=6", 6561, 1092, 9828, 12),
    ];
    for (spec, nodes, switches, links, radix) in table {
        let v = json(&["topology", spec, "--json"]);
        let got = (&v["nodes"], &v["switches"], &v["links"], &v["radix"]);
        assert_eq!(
            got,
            (
                &nodes.into(),
                &switches.into(),
                &links.into(),
                &radix.into()
            ),
            "{spec}"
        );
        assert_eq!(v["topology"], spec);
    }
}

/// Bisection widths in `topology --json` against seed 003: Table 3's FleX rows with an even smallest
/// axis (eq. 8, 3 N_x N_y min(N_x, N_y) / 2: 4x4 -> 96, 20x20 -> 12,000, 4x100 -> 2,400), and Table 4's
/// bisection ratios at about 1000 terminals, width over inter-router links: fat tree 500 / 2000 = 0.250
/// (k^n/2), HyperX 250 / 900 = 0.278 (S^3/4), FleX 324 / 1080 = 0.300 (3 * 36 * 6 / 2). Table 3's odd
/// row (15x20, where eq. 8 gives 6,750 and METIS found 9,000) has no closed form: the partitioner's
/// bound, 7,280 over 450 + 450 routers, is labelled as one. The text output says the same.
#[test]
fn topology_reports_seed_003_bisection_widths() {
    for (spec, width, links) in [
        ("flex:x=4,y=4,z=3,p=1", 96, 0),
        ("flex:x=20,y=20,z=3,p=1", 12_000, 0),
        ("flex:x=4,y=100,z=3,p=1", 2_400, 0),
        ("fat-tree:k=10,n=3", 500, 2000),
        ("hyperx:l=2,s=10,t=10", 250, 900),
        ("flex:x=6,y=6,z=3,p=10", 324, 1080),
    ] {
        let v = json(&["topology", spec, "--json"]);
        assert_eq!(v["bisection_width"], width, "{spec}");
        assert_eq!(v["bisection_exact"], true, "{spec}");
        assert_eq!(v["bisection_method"], "closed-form", "{spec}");
        if links > 0 {
            assert_eq!(v["switch_links"], links, "{spec}");
        }
    }
    let v = json(&["topology", "flex:x=15,y=20,z=3,p=1", "--json"]);
    assert_eq!(
        (
            &v["bisection_width"],
            &v["bisection_exact"],
            &v["bisection_method"]
        ),
        (&7280.into(), &false.into(), &"partitioner".into())
    );
    assert_eq!(v["bisection_sides"], serde_json::json!([450, 450]));
    let text = netreplay(&["topology", "torus:k=5,n=2"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(
            "bisection_width   12 switch links (upper bound, partitioner; 12 + 13 nodes)"
        ),
        "{text}"
    );
}

/// Worst-case link faults in `topology --json` (seed 000 §5.4): the closed forms at sizes the paper
/// evaluates (mesh n-1, torus 2n-1, 4-ary 8-tree k-1, flattened butterfly (k-1)n-1 = 15 x 3 - 1,
/// KNS n_h-1), and a family without one by maximum flow: a 6-cube's routers have 6 links, so 5.
#[test]
fn topology_reports_seed_000_worst_case_link_faults() {
    for (spec, tolerated, method) in [
        ("mesh:k=16,n=2", 1, "closed-form"),
        ("torus:k=8,n=3", 5, "closed-form"),
        ("fat-tree:k=4,n=8", 3, "closed-form"),
        ("flattened-butterfly:k=16,n=3,p=16", 44, "closed-form"),
        ("kns:k=256,n=2,s=2,sub=ft", 1, "closed-form"),
        ("hypercube:n=6", 5, "max-flow"),
    ] {
        let v = json(&["topology", spec, "--json"]);
        assert_eq!(v["link_faults_tolerated"], tolerated, "{spec}");
        assert_eq!(v["link_faults_to_disconnect"], tolerated + 1, "{spec}");
        assert_eq!(v["link_faults_method"], method, "{spec}");
    }
}

#[test]
fn run_json_has_the_contract_fields() {
    let v = json(&[
        "run",
        "--topology",
        "fat-tree:k=4,n=1",
        "--workload",
        "bu:size=64",
        "--json",
    ]);
    for field in [
        "completion_cycles",
        "messages",
        "packets",
        "phits",
        "phit_hops",
        "ranks",
    ] {
        assert!(v[field].is_u64(), "missing {field}: {v}");
    }
    // 4 ranks on one switch, 2 stages of one packet over L = 2 links each (no two packets want the
    // same output, so the output selection cannot add contention).
    assert_eq!(v["completion_cycles"], 2 * 18);
    assert_eq!(v["messages"], 8);
    assert!(v["wall_seconds"].is_f64() && v["phit_hops_per_second"].is_f64());
}

/// `contiguous` follows locality where seed 001's labels put a leaf's nodes k^(n-1) ids apart: 16 BU
/// ranks on a 4,3 MiKANT or Clos take the 4 leaves of one top subtree (2 or 4 links a packet, 3 on
/// average), where `consecutive` (rank i on node i: one rank a leaf) takes 4 or 6.
#[test]
fn contiguous_keeps_a_job_in_one_subtree_of_mikant_and_clos() {
    for topology in ["mikant:k=4,n=3", "clos:k=4,n=3"] {
        for (placement, hops) in [("contiguous", 3.0), ("consecutive", 5.0)] {
            let v = json(&[
                "run",
                "--topology",
                topology,
                "--workload",
                "bu:size=1000,ranks=16",
                "--placement",
                placement,
                "--json",
            ]);
            assert_eq!(v["mean_hops"], hops, "{topology}, {placement}");
        }
    }
}

#[test]
fn config_file_and_flags_combine_and_out_is_written() {
    let dir = std::env::temp_dir().join(format!("netreplay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("run.toml");
    std::fs::write(
        &cfg,
        "topology = \"fat-tree:k=4,n=2\"\nworkload = \"bt:size=64\"\n[network]\nfly_time = 8\n",
    )
    .unwrap();
    let out = dir.join("report.json");
    let v = json(&[
        "run",
        cfg.to_str().unwrap(),
        "--placement",
        "random:seed=3",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["placement"], "random:seed=3");
    assert_eq!(v["network"]["fly_time"], 8);
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(written["completion_cycles"], v["completion_cycles"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_specs_are_clear_errors() {
    rejects(
        &["topology", "fat-forest:k=8,n=4"],
        &["unknown topology `fat-forest`", "thin-tree"],
    );
    rejects(
        &["topology", "fat-tree:k=8,n=4,up=2"],
        &["no parameter `up`", "accepted: k, n"],
    );
    rejects(
        &["topology", "fat-tree:k=0,n=4"],
        &["`k` = 0 is out of range"],
    );
    rejects(&["topology", "fat-tree:k=8"], &["`n` is required"]);
    rejects(&["topology", "fat-tree:k=8,,n=4"], &["column 14"]);
    rejects(&["topology", "slender-tree:k=8,up=3,n=4"], &["divisible"]);
    let run = |t: &str, w: &str| {
        vec![
            "run".to_string(),
            "--topology".into(),
            t.into(),
            "--workload".into(),
            w.into(),
        ]
    };
    let args = run("fat-tree:k=4,n=2", "bu:size=100,ranks=32");
    rejects(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &["32 ranks", "only 16 nodes"],
    );
    let args = run("fat-tree:k=10,n=3", "2w:size=100");
    rejects(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &["2w", "1000", "961"],
    );
    let args = run("fat-tree:k=4,n=2", "bu:size=ten");
    rejects(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &["size", "not a whole number"],
    );
    let args = run("fat-tree:k=4,n=2", "zz");
    rejects(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &["unknown workload", "bu"],
    );
    rejects(&["run", "--workload", "bu"], &["no topology given"]);
    rejects(
        &[
            "run",
            "--topology",
            "torus:k=4,n=2,deadlock=none",
            "--workload",
            "bu",
        ],
        &["bubble, dateline"],
    );
}

/// A placement's errors quote its spec as written (the policy's `seed` or `path` beside `busy`), and
/// an unknown key's list of accepted ones has `busy` and `busy_seed`, which every policy takes.
#[test]
fn placement_errors_quote_the_spec_and_list_every_key() {
    let place = |spec: &str| {
        [
            "run",
            "--topology",
            "fat-tree:k=4,n=2",
            "--workload",
            "bu:size=10",
            "--placement",
        ]
        .into_iter()
        .chain([spec])
        .map(String::from)
        .collect::<Vec<_>>()
    };
    for (spec, needle) in [
        (
            "random:seed=3,busy=2",
            "error: placement `random:seed=3,busy=2`: busy=2 must be a fraction in 0..1",
        ),
        (
            "random:seed=3,busy_seed=4",
            "error: placement `random:seed=3,busy_seed=4`: busy_seed needs busy=F",
        ),
        (
            "file:path=map.txt,busy=x",
            "error: placement `file:path=map.txt,busy=x`: busy=x must be a fraction in 0..1",
        ),
        (
            "file:busy=0.5",
            "error: placement `file:busy=0.5`: needs path=FILE",
        ),
        (
            "random:seed=3,x=1",
            "placement `random` has no parameter `x`; accepted: seed, busy, busy_seed\n",
        ),
        (
            "file:path=map.txt,x=1",
            "placement `file` has no parameter `x`; accepted: path, busy, busy_seed\n",
        ),
        (
            "consecutive:busy=0.5,x=1",
            "placement `consecutive` has no parameter `x`; accepted: busy, busy_seed\n",
        ),
    ] {
        let args = place(spec);
        rejects(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            &[needle],
        );
    }
}

/// A workload's unknown key is refused with `ranks`, which every workload takes, among the accepted
/// keys, as a placement's lists `busy`.
#[test]
fn workload_errors_list_ranks_among_the_keys() {
    for (spec, needle) in [
        (
            "bu:ranks=4,sizee=10",
            "error: workload `bu` has no parameter `sizee`; accepted: size, ranks\n",
        ),
        ("trace:file=t.trc,ranks=4,x=1", ", compute, ranks\n"),
    ] {
        rejects(
            &["run", "--topology", "fat-tree:k=4,n=2", "--workload", spec],
            &[needle],
        );
    }
}

#[test]
fn bad_config_files_give_file_line_column() {
    let dir = std::env::temp_dir().join(format!("netreplay-badcfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("bad.toml");
    std::fs::write(
        &cfg,
        "topology = \"fat-tree:k=4,n=2\"\n[network]\nfly_tim = 8\n",
    )
    .unwrap();
    rejects(
        &["run", cfg.to_str().unwrap()],
        &["bad.toml:3:1", "fly_tim"],
    );
    std::fs::write(
        &cfg,
        "topology = \"fat-tree:k=4,n=2\"\n[network]\ninput_queue_packets = 0\n",
    )
    .unwrap();
    rejects(
        &["run", cfg.to_str().unwrap(), "--workload", "bu"],
        &["input_queue_packets"],
    );
    rejects(
        &["run", dir.join("missing.toml").to_str().unwrap()],
        &["missing.toml"],
    );
    // A spec the file gives is placed at its parameter (or bad character, or name) in the file; the
    // same spec from a flag has no file position.
    for (text, at) in [
        (
            "topology = \"fat-tree:k=0,n=2\"\nworkload = \"bu:size=10\"\n",
            "bad.toml:1:22: topology `fat-tree`: parameter `k`",
        ),
        (
            "topology = \"fat-tree:k=4,,n=2\"\nworkload = \"bu:size=10\"\n",
            "bad.toml:1:26: malformed topology spec",
        ),
        (
            "topology = \"fat-tre:k=4\"\nworkload = \"bu:size=10\"\n",
            "bad.toml:1:13: unknown topology",
        ),
        (
            "topology = \"fat-tree:k=4,n=2\"\nworkload =  \"bu:size=x\"\n",
            "bad.toml:2:17: workload `bu`",
        ),
        (
            "topology = \"fat-tree:k=4,n=2\"\nworkload = \"bu:size=10\"\nplacement = \"random:seed=x\"\n",
            "bad.toml:3:21: placement `random`",
        ),
    ] {
        std::fs::write(&cfg, text).unwrap();
        rejects(&["run", cfg.to_str().unwrap()], &[at]);
    }
    rejects(
        &["run", cfg.to_str().unwrap(), "--placement", "random:seed=y"],
        &["netreplay: error: placement `random`"],
    );
    // A value the preset sets, refused on this topology, is named with its value.
    std::fs::write(
        &cfg,
        "topology = \"torus:k=4,n=2\"\nworkload = \"bu:size=10\"\n[network]\npreset = \"fsin-default\"\n",
    )
    .unwrap();
    rejects(
        &["run", cfg.to_str().unwrap()],
        &["`virtual_channels` is 2 (set, or from the preset) but must be 1"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A spec of one of a run config's `[[jobs]]` is placed at that job's value, after an earlier job
/// that sets the same key; the run's own `placement`, which a job without one takes, at its line.
#[test]
fn bad_job_specs_give_file_line_column() {
    let dir = std::env::temp_dir().join(format!("netreplay-badjobs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("jobs.toml");
    let jobs = |second: &str| {
        format!(
            "topology = \"fat-tree:k=4,n=2\"\n\n[[jobs]]\nworkload = \"bu:size=10,ranks=4\"\n\
             placement = \"random:seed=3\"\n\n[[jobs]]\n{second}\n"
        )
    };
    for (text, at) in [
        (
            jobs("workload = \"bu:size=0,ranks=4\""),
            "8:16: workload `bu`: parameter `size` = 0 is out of range",
        ),
        (
            jobs("workload = \"bu:size=10,,ranks=4\""),
            "8:24: malformed workload spec",
        ),
        (
            jobs("workload = \"bx:size=10,ranks=4\""),
            "8:13: unknown workload `bx`",
        ),
        (
            jobs("workload = \"bu:size=10,ranks=4\"\nplacement = \"random:seed=3,x=1\""),
            "9:28: placement `random` has no parameter `x`",
        ),
        (
            format!(
                "placement = \"random:sed=1\"\n{}",
                jobs("workload = \"bu:size=10,ranks=4\"")
            ),
            "1:21: placement `random` has no parameter `sed`",
        ),
    ] {
        std::fs::write(&cfg, &text).unwrap();
        rejects(
            &["run", cfg.to_str().unwrap()],
            &[&format!("error: {}:{at}", cfg.display())],
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A load-latency config's specs are placed as a run config's are: the element of `topologies`
/// that is the bad spec (on any line of the array), the `traffic`, the `cost`. A flag's spec that
/// the file does not give has no position.
#[test]
fn bad_sweep_specs_give_file_line_column() {
    let dir = std::env::temp_dir().join(format!("netreplay-badsweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("sweep.toml");
    let sweep = |topologies: &str, rest: &str| {
        format!("topologies = {topologies}\nloads = \"0.1\"\n{rest}")
    };
    for (text, at) in [
        (
            sweep("[\"torus:k=4,n=2\", \"torus:k=0,n=2\"]", ""),
            "1:39: topology `torus`: parameter `k` = 0 is out of range",
        ),
        (
            sweep("[\n  \"torus:k=4,n=2\",\n  \"torus:k=4,,n=2\",\n]", ""),
            "3:14: malformed topology spec `torus:k=4,,n=2` at column 11",
        ),
        (
            sweep(
                "[\"torus:k=4,n=2\"]",
                "traffic = \"hotspot:fractionn=0.1\"\n",
            ),
            "3:20: traffic `hotspot` has no parameter `fractionn`",
        ),
        (
            sweep("[\"torus:k=4,n=2\"]", "cost = \"seed0000\"\n"),
            "3:9: unknown cost model `seed0000`",
        ),
    ] {
        std::fs::write(&cfg, &text).unwrap();
        rejects(
            &["load-latency", cfg.to_str().unwrap()],
            &[&format!("error: {}:{at}", cfg.display())],
        );
    }
    std::fs::write(&cfg, sweep("[\"torus:k=0,n=2\"]", "")).unwrap();
    rejects(
        &[
            "load-latency",
            cfg.to_str().unwrap(),
            "--topology",
            "torus:k=1,n=2",
        ],
        &["netreplay: error: topology `torus`: parameter `k` = 1"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A campaign config's specs are placed as a run config's are, at the occurrence that holds the bad
/// spec: the candidate whose `topology` or `placement` it is (after others that set the same key),
/// the element of a `workloads` array spread over lines, the `cost`. Nothing is written.
#[test]
fn bad_campaign_specs_give_file_line_column() {
    let dir = std::env::temp_dir().join(format!("netreplay-badcampaign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("c.toml");
    let out = dir.join("out");
    let candidates = |second: &str| {
        format!(
            "[[candidate]]\nlabel = \"a\"\ntopology = \"fat-tree:k=4,n=2\"\nplacement = \"random:seed=1\"\n\n\
             [[candidate]]\nlabel = \"b\"\n{second}\n"
        )
    };
    let head = "reference = \"a\"\nsizes = [10]\nworkloads = [\"bu\"]\n";
    for (text, at) in [
        (
            format!("{head}{}", candidates("topology = \"fat-tree:k=0,n=2\"")),
            "11:22: topology `fat-tree`: parameter `k` = 0 is out of range",
        ),
        (
            format!("{head}{}", candidates("topology = 'fat-tree:k=4,,n=2'")),
            "11:26: malformed topology spec",
        ),
        (
            format!(
                "{head}{}",
                candidates("topology = \"fat-tree:k=4,n=2\"\nplacement = \"random:sed=1\"")
            ),
            "12:21: placement `random` has no parameter `sed`",
        ),
        (
            format!(
                "reference = \"a\"\nsizes = [10]\nworkloads = [\n    \"bu\",\n    \"wf\", \"bu:x=1\",\n]\n{}",
                candidates("topology = \"fat-tree:k=4,n=2\"")
            ),
            "5:15: workload `bu` has no parameter `x`",
        ),
        (
            format!(
                "reference = \"a\"\nsizes = [10]\nworkloads = [\"bu\", \"bx\"]\n{}",
                candidates("topology = \"fat-tree:k=4,n=2\"")
            ),
            "3:21: unknown workload `bx`",
        ),
        (
            format!(
                "{head}cost = \"seed04\"\n{}",
                candidates("topology = \"fat-tree:k=4,n=2\"")
            ),
            "4:9: unknown cost model `seed04`",
        ),
    ] {
        std::fs::write(&cfg, &text).unwrap();
        rejects(
            &[
                "campaign",
                cfg.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            &[&format!("error: {}:{at}", cfg.display())],
        );
        assert!(!out.exists(), "{at}: the results directory was written");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A config value that must be one of a few names (the `[network]` enums, `selection`, `preset`, a
/// candidate's `model`) lists them when it is none of them or not a string, at the value's place.
#[test]
fn named_values_list_the_accepted_names() {
    let dir = std::env::temp_dir().join(format!("netreplay-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("n.toml");
    for (line, message) in [
        (
            "credits = 0",
            "n.toml:4:11: credits: expected one of \"packet\", \"phit\", got 0",
        ),
        (
            "credits = \"flit\"",
            "n.toml:4:11: credits: expected one of \"packet\", \"phit\", got \"flit\"",
        ),
        (
            "credits = { phit = 1 }",
            "n.toml:4:11: credits: expected one of \"packet\", \"phit\", got { phit = 1 }",
        ),
        (
            "arbitration = 1",
            "n.toml:4:15: arbitration: expected one of \"random\", \"round-robin\", got 1",
        ),
        (
            "loser_retry = \"later\"",
            "n.toml:4:15: loser_retry: expected one of \"next-cycle\", \"same-cycle\", got \"later\"",
        ),
        (
            "model = true",
            "n.toml:4:9: model: expected one of \"flit\", \"flow\", got true",
        ),
        (
            "selection = 0",
            "n.toml:4:13: selection: expected one of \"fsin\", \"fixed\", \"free\", \"fsin-poll\", got 0",
        ),
        (
            "preset = 1",
            "n.toml:4:10: preset: expected one of \"seed004\", \"fsin-paper\", \"fsin-default\", \"booksim-iq\", got 1",
        ),
    ] {
        std::fs::write(
            &cfg,
            format!(
                "topology = \"fat-tree:k=4,n=2\"\nworkload = \"bu:size=10\"\n[network]\n{line}\n"
            ),
        )
        .unwrap();
        rejects(&["run", cfg.to_str().unwrap()], &[&format!("{message}\n")]);
    }
    std::fs::write(
        &cfg,
        "reference = \"a\"\nsizes = [10]\nworkloads = [\"bu\"]\n[[candidate]]\nlabel = \"a\"\n\
         topology = \"fat-tree:k=4,n=2\"\nmodel = \"fluid\"\n",
    )
    .unwrap();
    rejects(
        &[
            "campaign",
            cfg.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        &["n.toml:7:9: model: expected one of \"flit\", \"flow\", got \"fluid\"\n"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The stdout of a command that must succeed.
fn stdout(args: &[&str]) -> String {
    let out = netreplay(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn shell_completions_man_page_and_version() {
    // Each shell's script completes the subcommands.
    for (shell, marker) in [
        ("bash", "_netreplay()"),
        ("zsh", "#compdef netreplay"),
        ("fish", "complete -c netreplay"),
    ] {
        let script = stdout(&["completions", shell]);
        assert!(script.contains(marker), "{shell}: {script:.300}");
        for sub in ["run", "campaign", "load-latency", "completions"] {
            assert!(script.contains(sub), "{shell} script lacks `{sub}`");
        }
    }
    let out = netreplay(&["completions", "tcsh"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values: bash"));
    let man = stdout(&["man"]);
    assert!(man.contains(".TH netreplay 1"), "{man:.300}");
    assert!(
        man.contains("load\\-latency"),
        "the manual lists the subcommands"
    );
    // The version names the commit it was built from (this test runs in a git checkout) or says
    // it is unknown.
    let version = stdout(&["--version"]);
    let v = version.trim();
    assert!(
        v.starts_with(&format!("netreplay {} (", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    assert!(
        v.ends_with(")") && (v.contains("(commit ") || v.contains("(unknown commit)")),
        "{v}"
    );
}

#[test]
fn run_help_lists_every_placement_policy() {
    let help = stdout(&["run", "--help"]);
    for policy in netreplay::placement::REGISTRY.names() {
        assert!(help.contains(policy), "`{policy}` missing from run --help");
    }
    assert!(help.contains("busy=F"), "the fragmented machine (busy=F)");
}

#[test]
fn verbose_logs_to_stderr_and_rust_log_overrides_it() {
    let args = [
        "run",
        "--topology",
        "fat-tree:k=4,n=2",
        "--workload",
        "bu:size=100",
        "--quiet",
    ];
    let err = |extra: &[&str], env: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_netreplay"));
        cmd.args(extra).args(args).env_remove("RUST_LOG");
        if let Some(e) = env {
            cmd.env("RUST_LOG", e);
        }
        let out = cmd.output().expect("the binary runs");
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    assert_eq!(err(&[], None), "");
    let info = err(&["-v"], None);
    assert!(
        info.contains(
            "[INFO  netreplay::run] 16 ranks of `bu:size=100` placed on `fat-tree:k=4,n=2`"
        ),
        "{info}"
    );
    assert!(!info.contains("DEBUG"), "{info}");
    assert!(err(&["-vv"], None).contains("[DEBUG netreplay::run] 64 messages"));
    assert_eq!(err(&["-v"], Some("off")), "");
}

/// A network of one switch has nothing to cut or fail: `topology` says so in words, not as a
/// percentage of zero links or a width of 0, and prints no negative cable length.
#[test]
fn one_switch_topology_text_says_there_is_nothing_to_cut() {
    let out = netreplay(&["topology", "fat-tree:k=4,n=1", "--fault-tolerance"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "link_faults       none can separate two nodes (all nodes on one switch)",
        "fault_tolerance   no switch-to-switch links to fail",
    ] {
        assert!(text.contains(line), "no `{line}` in:\n{text}");
    }
    assert!(!text.contains("% of 0") && !text.contains("-0.0"), "{text}");
}

/// A rank count the workload cannot take says where it came from: defaulted from the network's
/// nodes, the error says so and names `ranks=` and its bound; given by the user, it does not.
#[test]
fn a_bad_defaulted_rank_count_names_ranks_and_the_nodes() {
    let err = |workload: &str| {
        let out = netreplay(&[
            "run",
            "--topology",
            "fat-tree:k=2,n=3",
            "--workload",
            workload,
        ]);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let defaulted = err("2w");
    assert!(
        defaulted.contains("got 8")
            && defaulted.contains("ranks default to the 8 nodes of `fat-tree:k=2,n=3`")
            && defaulted.contains("`ranks=`, at most 8"),
        "{defaulted}"
    );
    let given = err("2w:ranks=8");
    assert!(
        given.contains("got 8") && !given.contains("default"),
        "{given}"
    );
}
