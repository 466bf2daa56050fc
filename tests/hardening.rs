//! Hardening: one regression test per problem found by probing as a careless user would, each named
//! after it (`pN_...`). Bad or
//! extreme input ends in a clear error and a non-zero exit, never a panic, a wrong number, an
//! unbounded allocation or a lost result.

use netreplay::network::{self, NetworkModel, OpenLoopParams};
use netreplay::program::{Op, Program};
use netreplay::run::{JobConfig, RunConfig, execute};
use netreplay::{topology, traffic};
use std::path::PathBuf;
mod common;

use common::{campaign_config as campaign, netreplay, rejects};
use std::process::Command;

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::fresh_dir("hardening", name)
}

#[test]
fn p1_load_list_length_checked_before_building() {
    for step in ["1e-19", "1e-12"] {
        let loads = format!("0.1:1:{step}");
        rejects(
            &[
                "load-latency",
                "--topology",
                "fat-tree:k=4,n=2",
                "--loads",
                &loads,
            ],
            &["more than 1000", "larger step"],
        );
    }
}

/// A trace of `lines` (after the header) for two ranks, written to a scratch file.
fn trace(dir: &std::path::Path, lines: &str) -> String {
    let path = dir.join("t.trace");
    std::fs::write(&path, format!("netreplay-trace 3\nranks 2\n{lines}")).unwrap();
    path.display().to_string()
}

/// `run` of trace `file` (uncached) on a two-node network, expected to fail with `needles`.
fn rejects_run(file: &str, needles: &[&str]) -> String {
    let workload = format!("trace:file={file},cache=off");
    rejects(
        &[
            "run",
            "--topology",
            "fat-tree:k=2,n=1",
            "--workload",
            &workload,
        ],
        needles,
    )
}

/// `trace check` fails what `run` refuses whatever the network, naming it: a message past 1 TiB, a
/// rank computing past 2^63 cycles in all (each op and the total fitting u64).
#[test]
fn p2_trace_check_fails_what_run_refuses() {
    let dir = scratch("p2-check");
    for (lines, needle) in [
        (
            "0 send 1 1099511627777\n1 recv 0\n",
            "1 message(s) pass the 1099511627776 bytes (1 TiB) a message may carry, the first \
             1099511627777 bytes from rank 0 to rank 1",
        ),
        (
            "0 compute 9223372036854775807\n0 compute 2\n",
            "rank 0 computes for 9223372036854775809 cycles in all, past the simulator's limit",
        ),
    ] {
        let file = trace(&dir, lines);
        rejects(&["trace", "check", &file], &[needle]);
        rejects_run(&file, &[]);
    }
    // At the limits themselves both pass.
    let file = trace(
        &dir,
        "0 send 1 1099511627776\n1 recv 0\n0 compute 9223372036854775808\n",
    );
    let out = netreplay(&["trace", "check", &file]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn p2_compute_sums_near_2_pow_64_are_refused_not_wrapped() {
    let dir = scratch("p2");
    let file = trace(&dir, "0 compute 18446744073709551615\n0 compute 10\n");
    rejects_run(&file, &["18446744073709551615", "cycles"]);
    rejects(&["trace", "check", &file], &["compute cycles", "overflows"]);
    // Just below the limit runs and reports the exact sum.
    let file = trace(&dir, "0 compute 4611686018427387904\n0 compute 10\n");
    let out = netreplay(&[
        "run",
        "--topology",
        "fat-tree:k=2,n=1",
        "--workload",
        &format!("trace:file={file},cache=off"),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["completion_cycles"], 4611686018427387914u64);
}

#[test]
fn p2_measure_near_2_pow_64_is_refused() {
    rejects(
        &[
            "load-latency",
            "--topology",
            "fat-tree:k=2,n=1",
            "--loads",
            "0.1",
            "--measure",
            "18446744073709551615",
        ],
        &["18446744073709551615", "phases too long"],
    );
    let topo = topology::build("fat-tree:k=2,n=1").unwrap();
    let dests = traffic::build("uniform")
        .unwrap()
        .bind(topo.nodes(), 1)
        .unwrap();
    let params = OpenLoopParams {
        warmup_cycles: u64::MAX - 5,
        ..OpenLoopParams::default()
    };
    let e = netreplay::network::Network::new(topo.as_ref(), &NetworkModel::default())
        .and_then(|n| n.open_loop(&dests, &params, 1))
        .unwrap_err();
    assert!(e.to_string().contains("phases too long"), "{e}");
}

#[test]
fn p2_job_start_near_2_pow_64_is_refused_not_a_deadlock() {
    let cfg = RunConfig {
        topology: Some("fat-tree:k=2,n=2".into()),
        jobs: vec![
            JobConfig {
                workload: "bu:size=64,ranks=2".into(),
                ..JobConfig::default()
            },
            JobConfig {
                workload: "bu:size=64,ranks=2".into(),
                start: u64::MAX - 3,
                ..JobConfig::default()
            },
        ],
        ..RunConfig::default()
    };
    let e = execute(&cfg).unwrap_err().to_string();
    assert!(
        e.contains("18446744073709551612") && e.contains("job 1"),
        "{e}"
    );
    assert!(!e.contains("cannot complete"), "{e}");
}

#[test]
fn p2_engine_refuses_a_wake_up_past_the_limit() {
    let topo = topology::build("fat-tree:k=2,n=1").unwrap();
    let program = Program::from_fn(2, |r, ops| {
        ops.push(Op::Compute {
            cycles: network::MAX_CYCLE - 1,
        });
        if r == 0 {
            ops.push(Op::Compute { cycles: 5 });
        }
    });
    let e = netreplay::replay::simulate(
        topo.as_ref(),
        &NetworkModel::default(),
        &program,
        &[0, 1],
        1,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("asks to wait 5 cycles"), "{e}");
}

/// A message sent just before the limit (after a computation that long) would still be in flight
/// past it: both models refuse the run naming the limit, where the flit engine's occupancy trends
/// overflowed (a panic) or its clock went past 2^63 unchecked. A message that arrives before the
/// limit (34 cycles here, two packets over two links) stays valid.
#[test]
fn p2_messages_sent_at_the_limit_are_refused_in_both_models() {
    let topo = topology::build("fat-tree:k=2,n=1").unwrap();
    for wait in [50, 30, 8, 1, 0] {
        let program = Program::from_fn(2, |r, ops| {
            if r == 0 {
                ops.push(Op::Compute {
                    cycles: network::MAX_CYCLE - wait,
                });
                ops.push(Op::Send {
                    to: 1,
                    bytes: 100,
                    tag: 0,
                });
            } else {
                ops.push(Op::Recv { from: 0, tag: 0 });
            }
        });
        for model in [network::Model::Flit, network::Model::Flow] {
            let model = NetworkModel {
                model,
                ..NetworkModel::default()
            };
            let r = netreplay::replay::simulate(topo.as_ref(), &model, &program, &[0, 1], 1);
            if wait == 50 {
                let end = r.unwrap().completion_cycles;
                assert!(end > network::MAX_CYCLE - 50 && end <= network::MAX_CYCLE);
                continue;
            }
            let e = r.unwrap_err().to_string();
            assert!(
                e.contains("simulated time would pass 9223372036854775808 cycles"),
                "{wait} before the limit, {:?}: {e}",
                model.model
            );
        }
    }
}

/// A two-rank trace that cannot complete (rank 0 waits for a message nobody sends): if a command
/// reports the deadlock, it simulated before checking its output.
fn deadlocking_trace(dir: &std::path::Path) -> String {
    format!("trace:file={},cache=off", trace(dir, "0 recv 1\n"))
}

#[test]
fn p4_run_out_is_checked_before_simulating_and_created() {
    let dir = scratch("p4-run");
    let blocker = dir.join("a-file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let out = blocker.join("r.json");
    let err = rejects(
        &[
            "run",
            "--topology",
            "fat-tree:k=2,n=1",
            "--workload",
            &deadlocking_trace(&dir),
            "--out",
            &out.display().to_string(),
        ],
        &["a-file"],
    );
    assert!(!err.contains("cannot complete"), "simulated first: {err}");
    // A missing parent directory is created, and the result is written.
    let out = dir.join("new").join("deeper").join("r.json");
    let o = netreplay(&[
        "run",
        "--topology",
        "fat-tree:k=2,n=1",
        "--workload",
        "bu:size=64",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(v["completion_cycles"].as_u64().unwrap() > 0);
    // A directory given as the output file is refused before simulating.
    let err = rejects(
        &[
            "run",
            "--topology",
            "fat-tree:k=2,n=1",
            "--workload",
            &deadlocking_trace(&dir),
            "--out",
            &dir.display().to_string(),
        ],
        &["is a directory"],
    );
    assert!(!err.contains("cannot complete"), "{err}");
}

#[test]
fn p4_load_latency_out_is_checked_before_simulating() {
    let dir = scratch("p4-ll");
    let blocker = dir.join("a-file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let started = std::time::Instant::now();
    rejects(
        &[
            "load-latency",
            "--topology",
            "fat-tree:k=4,n=3",
            "--loads",
            "0.1:1:0.1",
            "--measure",
            "100000000",
            "--out",
            &blocker.join("ll").display().to_string(),
        ],
        &["a-file"],
    );
    assert!(started.elapsed().as_secs() < 20, "simulated before failing");
}

#[test]
fn p10_generate_out_creates_parent_directories() {
    let dir = scratch("p10-generate");
    let out = dir.join("a").join("b").join("bu.trace");
    let o = netreplay(&[
        "generate",
        "bu:size=8",
        "--ranks",
        "4",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("netreplay-trace")
    );
}

/// A campaign config with two 16-node candidates (radix 4 and 8), `extra` appended.

#[test]
fn p5_campaign_validates_cost_table_and_ranks_before_running() {
    let dir = scratch("p5");
    let out = dir.join("out");
    let cfg = campaign(
        &dir,
        "",
        "[cost_table]\nswitch = { \"4\" = 100.0 }\nlink = 1.0\n",
    );
    let err = rejects(
        &["campaign", &cfg, "--out", &out.display().to_string()],
        &["candidate `a`", "no switch with 8 or more ports"],
    );
    assert!(!err.contains("Some("), "{err}");
    assert!(
        !out.join("results.jsonl").exists(),
        "runs ran before the check"
    );
    let cfg = campaign(&dir, "ranks = 32", "");
    let err = rejects(
        &["campaign", &cfg, "--out", &out.display().to_string()],
        &["candidate `a`", "16 nodes", "32 ranks"],
    );
    assert!(!err.contains("Some("), "{err}");
    assert!(
        !out.join("results.jsonl").exists(),
        "runs ran before the check"
    );
}

#[test]
fn p8_simgrid_negative_and_absurd_amounts_are_refused_with_their_line() {
    let dir = scratch("p8");
    let cases = [
        ("0 send 1 0 -8\n1 recv 0 0 8\n", ":3:", "negative"),
        (
            "0 send 1 0 1e300\n1 recv 0 0 8\n",
            ":3:",
            "bytes a message may carry",
        ),
        (
            "0 send 1 0 1099511627777\n",
            ":3:",
            "bytes a message may carry",
        ),
        ("0 send 1 0 200000000000 12\n", ":3:", "elements of 8 bytes"),
        ("0 compute -100\n", ":3:", "negative"),
        ("0 compute 1e300\n", ":3:", "past the simulator's limit"),
        ("0 sleep -1\n", ":3:", "negative"),
        ("1 allreduce 8 -5\n", ":3:", "negative"),
        ("1 bcast -8\n", ":3:", "negative"),
    ];
    for (i, (body, at, why)) in cases.iter().enumerate() {
        let path = dir.join(format!("t{i}.txt"));
        std::fs::write(&path, format!("0 init\n1 init\n{body}")).unwrap();
        let workload = format!("trace:file={},format=simgrid,cache=off", path.display());
        rejects(
            &[
                "run",
                "--topology",
                "fat-tree:k=2,n=1",
                "--workload",
                &workload,
            ],
            &[&format!("t{i}.txt{at}"), why],
        );
    }
}

/// Writes `size` bytes of `x` with no newline, without holding them in memory.
fn huge_line(path: &std::path::Path, size: usize) {
    use std::io::Write as _;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let chunk = vec![b'x'; 1 << 16];
    for _ in 0..size / chunk.len() {
        f.write_all(&chunk).unwrap();
    }
    f.flush().unwrap();
}

#[test]
fn p7_a_huge_line_is_refused_with_bounded_memory_and_a_short_message() {
    let dir = scratch("p7");
    let path = dir.join("huge.txt");
    huge_line(&path, 200 << 20);
    let file = path.display().to_string();
    for format in ["auto", "native", "simgrid", "trc"] {
        let workload = format!("trace:file={file},format={format},cache=off");
        let err = rejects(
            &[
                "run",
                "--topology",
                "fat-tree:k=2,n=1",
                "--workload",
                &workload,
            ],
            &["huge.txt:1:1", "line longer than"],
        );
        assert!(err.len() < 1000, "{format}: a {} byte message", err.len());
    }
    let err = rejects(&["trace", "check", &file], &["line longer than"]);
    assert!(err.len() < 1000, "a {} byte message", err.len());
}

#[test]
fn p10_all_zero_weights_are_refused() {
    let dir = scratch("p10-weights");
    let cfg = campaign(&dir, "", "[weights]\npattern = { bu = 0.0 }\n");
    rejects(
        &[
            "campaign",
            &cfg,
            "--out",
            &dir.join("out").display().to_string(),
        ],
        &["every weight is 0"],
    );
}

/// A size or workload listed twice, or a weight for a size the campaign does not run, is refused
/// before anything runs: the repeated cells would run again and count again in every sum, and the
/// stray weight would weigh nothing.
#[test]
fn p10_repeated_cells_and_stray_size_weights_are_refused() {
    let dir = scratch("p10-repeats");
    let cases = [
        (
            "sizes = [10, 10]\nworkloads = [\"bu\"]\n",
            "",
            "size 10 is listed twice",
        ),
        (
            "sizes = [10]\nworkloads = [\"bu\", \" bu\"]\n",
            "",
            "workload `bu` is listed twice",
        ),
        (
            "sizes = [10]\nworkloads = [\"bu\"]\n",
            "[weights]\nsize = { \"10\" = 1, \"99\" = 1 }\n",
            "weights.size names size `99`",
        ),
        (
            "sizes = [10]\nworkloads = [\"bu\"]\n",
            "[weights.matrix.bu]\n\"10\" = 1\n\"100\" = 1\n",
            "weights.matrix.bu names size `100`",
        ),
    ];
    for (cells, weights, needle) in cases {
        let path = dir.join("c.toml");
        std::fs::write(
            &path,
            format!(
                "reference = \"a\"\n{cells}[[candidate]]\nlabel = \"a\"\n\
                 topology = \"fat-tree:k=4,n=2\"\n{weights}"
            ),
        )
        .unwrap();
        let out = dir.join("out");
        rejects(
            &[
                "campaign",
                path.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            &[needle],
        );
        assert!(!out.exists(), "{needle}: the results directory was written");
    }
}

/// `topology --trials` without `--fault-tolerance` is refused, not silently ignored.
#[test]
fn p10_trials_need_the_fault_tolerance_measure() {
    rejects(
        &["topology", "mesh:k=4,n=2", "--trials", "5"],
        &["--fault-tolerance"],
    );
}

/// `campaign --jobs 0` is refused by the flag's parser, before the config is read.
#[test]
fn p10_zero_campaign_jobs_are_refused() {
    let dir = scratch("p10-jobs");
    let cfg = campaign(&dir, "", "");
    rejects(
        &["campaign", &cfg, "--jobs", "0"],
        &["invalid value '0'", "--jobs"],
    );
}

/// Cells of a Markdown table row, `\|` not counting as a separator.
fn cells(row: &str) -> usize {
    row.replace("\\|", "").matches('|').count() - 1
}

#[test]
fn p10_pipe_in_labels_is_escaped_in_markdown() {
    let dir = scratch("p10-pipe");
    let path = dir.join("c.toml");
    std::fs::write(
        &path,
        "name = \"x <b>y</b>\"\nreference = \"a|b\"\nsizes = [10]\nworkloads = [\"bu\"]\n\
         [[candidate]]\nlabel = \"a|b\"\ntopology = \"fat-tree:k=2,n=2\"\n\
         [[candidate]]\nlabel = \"c\\\"d <i>\"\ntopology = \"fat-tree:k=2,n=2\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = netreplay(&[
        "campaign",
        &path.display().to_string(),
        "--out",
        &out.display().to_string(),
        "--jobs",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    assert!(rows.iter().any(|r| r.contains("a\\|b")), "{md}");
    // Names are text, not HTML, where the Markdown is rendered.
    assert!(md.starts_with("# x &lt;b&gt;y&lt;/b&gt;\n"), "{md}");
    assert!(
        rows[0].contains("c\"d &lt;i&gt;") && !md.contains("<i>"),
        "{md}"
    );
    for r in &rows[..3] {
        assert_eq!(cells(r), 5, "row `{r}` of\n{md}");
    }
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(csv.contains("\"c\"\"d <i>\""), "{csv}");
}

#[test]
fn p10_circular_wait_is_reported_as_a_circle() {
    let dir = scratch("p10-circle");
    let file = trace(&dir, "0 recv 1\n0 send 1 8\n1 recv 0\n1 send 0 8\n");
    let err = rejects_run(&file, &["in a circle", "rank 0 -> rank 1 -> rank 0"]);
    assert!(!err.contains("nobody sends"), "{err}");
    // Blocked in synchronous sends, each waiting for the other's receive: the same circle, not
    // said to be blocked in receives.
    let file = trace(&dir, "0 ssend 1 8\n0 recv 1\n1 ssend 0 8\n1 recv 0\n");
    let err = rejects_run(
        &file,
        &[
            "in a circle",
            "each blocked before it sends or receives what the next one waits for",
        ],
    );
    assert!(!err.contains("blocked in a receive"), "{err}");
    // A receive with no send at all is still told apart: refused before simulating, as `trace
    // check` refuses it.
    let file = trace(&dir, "0 recv 1\n");
    rejects(
        &[
            "run",
            "--topology",
            "fat-tree:k=2,n=1",
            "--workload",
            &format!("trace:file={file},cache=off"),
        ],
        &[
            "cannot complete",
            "receive(s) at rank 0 from rank 1 tag 0 have no send",
        ],
    );
}

#[test]
fn p10_trace_check_writes_no_cache_and_pipes_get_an_honest_message() {
    let dir = scratch("p10-check");
    let file = trace(&dir, "0 send 1 8\n1 recv 0\n");
    let o = netreplay(&["trace", "check", &file]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["t.trace"],
        "trace check left files beside the trace"
    );
    // A directory that is neither an OTF2 archive nor a DUMPI trace is refused with a message that
    // says why.
    rejects(
        &["trace", "check", &dir.display().to_string()],
        &["a folder, but neither an OTF2 archive", "DUMPI"],
    );
    rejects(
        &[
            "run",
            "--topology",
            "fat-tree:k=2,n=1",
            "--workload",
            "trace:file=/dev/stdin",
        ],
        &["not a regular file", "save it to a file first"],
    );
}

#[test]
fn p10_config_value_errors_carry_file_line_column() {
    let dir = scratch("p10-config");
    let path = dir.join("run.toml");
    std::fs::write(
        &path,
        "topology = \"fat-tree:k=2,n=1\"\nworkload = \"bu:size=8\"\n\n[network]\n  packet_phits = 0\n",
    )
    .unwrap();
    let cfg = path.display().to_string();
    rejects(&["run", &cfg], &[&format!("{cfg}:5:18:"), "packet_phits"]);
    let path = dir.join("ll.toml");
    std::fs::write(
        &path,
        "topologies = [\"fat-tree:k=2,n=1\"]\n[network]\nfly_time = 100000\n",
    )
    .unwrap();
    let cfg = path.display().to_string();
    rejects(
        &["load-latency", &cfg],
        &[&format!("{cfg}:3:12:"), "fly_time"],
    );
}

#[test]
fn p3_second_campaign_on_a_directory_is_refused_and_a_stale_lock_recovered() {
    let dir = scratch("p3");
    let cfg = campaign(&dir, "", "");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let held = netreplay::campaign::lock::DirLock::acquire(&out).unwrap();
    rejects(
        &["campaign", &cfg, "--out", &out.display().to_string()],
        &[&format!("process {}", std::process::id()), "another --out"],
    );
    assert!(
        !out.join("results.jsonl").exists(),
        "the second campaign ran"
    );
    drop(held);
    // A lock file left by a killed campaign (its pid, no lock held) does not block the next one.
    std::fs::write(out.join(".lock"), "4194000\n").unwrap();
    let o = netreplay(&["campaign", &cfg, "--out", &out.display().to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 2);
    // A campaign killed while it holds the lock leaves it free for the next.
    let out = dir.join("killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(["campaign", &cfg, "--out", &out.display().to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    let _ = child.kill();
    let _ = child.wait();
    let o = netreplay(&["campaign", &cfg, "--out", &out.display().to_string()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Beyond the list: a native trace's message of 2^64 - 1 bytes (2.9e17 packets) replayed for ever.
#[test]
fn p8_native_messages_past_1_tib_are_refused() {
    let dir = scratch("p8-native");
    let file = trace(&dir, "0 send 1 18446744073709551615\n1 recv 0\n");
    rejects(
        &[
            "run",
            "--topology",
            "fat-tree:k=2,n=1",
            "--workload",
            &format!("trace:file={file},cache=off"),
        ],
        &["18446744073709551615 bytes", "1 TiB"],
    );
}
