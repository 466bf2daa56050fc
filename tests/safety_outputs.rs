//! What a hostile or careless user can do with outputs and campaign configs: names that would inject
//! commands into Slurm scripts, paths that would run commands when a printed hint is pasted, outputs
//! that are FIFOs or devices, temporary files left by a kill or an interrupt, non-finite numbers, and
//! configs that fail only after their directory is written.

mod common;

use common::{campaign_config as campaign, fresh_dir, netreplay, rejects, wait_guarded};
use netreplay::campaign::slurm::Scripts;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const TAG: &str = "safety_outputs";

/// `run` of `bu` on a 16-node fat tree, the quickest run there is, before the output flags.
const SMALL_RUN: [&str; 5] = [
    "run",
    "--topology",
    "fat-tree:k=4,n=2",
    "--workload",
    "bu:size=10",
];

/// Starts `netreplay ARGS FLAG PATH` with stdout discarded and stderr kept.
fn spawn(args: &[&str], flag: &str, path: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(args)
        .arg(flag)
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A directory of executables `names`, each appending its arguments to `LOG` and printing `42`
/// (a job id), to put first on PATH in place of Slurm's commands.
fn stubs(dir: &Path, names: &[&str]) -> PathBuf {
    let bin = dir.join("stubs");
    std::fs::create_dir_all(&bin).unwrap();
    for name in names {
        let path = bin.join(name);
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\necho 42\n",
                dir.join(format!("{name}.log")).display()
            ),
        )
        .unwrap();
        Command::new("chmod").arg("+x").arg(&path).status().unwrap();
    }
    bin
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A `name` with a newline would end the scripts' `#` comment and run `touch`: it is refused before
/// anything is written, with or without `--slurm`.
#[test]
fn a_campaign_name_with_a_newline_is_refused_before_anything_is_written() {
    let dir = fresh_dir(TAG, "name-newline");
    let cfg = campaign(
        &dir,
        r##"name = "Quick\ntouch PWNED\n#SBATCH --mem=1""##,
        "",
    );
    let out = dir.join("out");
    for slurm in [true, false] {
        let mut args = vec!["campaign", &cfg, "--out", out.to_str().unwrap()];
        if slurm {
            args.push("--slurm");
        }
        rejects(&args, &["`name`", "control character '\\n'"]);
        assert!(!out.exists(), "a refused config wrote {}", out.display());
    }
    let cfg = campaign(
        &dir,
        "",
        "[[candidate]]\nlabel = \"c\\rd\"\ntopology = \"fat-tree:k=4,n=2\"\n",
    );
    rejects(
        &["campaign", &cfg, "--out", out.to_str().unwrap()],
        &["candidate label", "'\\r'"],
    );
}

/// Scripts written from a title with newlines (built directly, past the config check) keep it in
/// their comment: run with bash, they create nothing, and carry only their own `#SBATCH` lines.
#[test]
fn a_title_with_newlines_stays_a_comment_in_both_scripts() {
    let dir = fresh_dir(TAG, "title");
    let scripts = Scripts {
        netreplay: "/bin/true".into(),
        config: dir.join("c.toml"),
        dir: dir.join("results"),
        workdir: dir.clone(),
        name: "netreplay-c".into(),
        title: "Quick\ntouch PWNED\n#SBATCH --mem=1\r\n#".into(),
        runs: 2,
        array: 2,
        cpus_per_task: 1,
        partition: None,
        time: None,
    };
    for (file, script) in [
        ("array.sbatch", scripts.array_script().unwrap()),
        ("merge.sbatch", scripts.merge_script().unwrap()),
    ] {
        assert!(
            !script.lines().any(|l| l.starts_with("#SBATCH --mem")),
            "{file}:\n{script}"
        );
        let path = dir.join(file);
        std::fs::write(&path, &script).unwrap();
        let status = Command::new("bash")
            .arg(&path)
            .current_dir(&dir)
            .env("SLURM_ARRAY_TASK_ID", "1")
            .status()
            .unwrap();
        assert!(status.success(), "{file}");
        assert!(
            !dir.join("PWNED").exists(),
            "{file} ran the title:\n{script}"
        );
        assert!(
            script
                .lines()
                .nth(2)
                .unwrap()
                .contains(r"Quick\ntouch PWNED"),
            "{script}"
        );
    }
}

/// An `--out` with `$(...)` is quoted in the scripts and in the printed `submit with:` and
/// `follow with:` hints: pasted into bash (with stub Slurm commands), nothing runs but sbatch.
#[test]
fn hints_and_scripts_quote_an_out_with_a_command_substitution() {
    let dir = fresh_dir(TAG, "hints");
    let cfg = campaign(&dir, "", "");
    let out = dir.join("res$(touch${IFS}PWNED)");
    let bin = stubs(&dir, &["sbatch", "netreplay"]);
    let hint = |stdout: &str, prefix: &str| -> String {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` in:\n{stdout}"))
            .to_string()
    };
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_netreplay"))
            .args(args)
            .current_dir(&dir)
            .env("PATH", path_with(&bin))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let stdout = run(&["campaign", &cfg, "--slurm", "--out", out.to_str().unwrap()]);
    let submit = hint(&stdout, "submit with: ");
    let bash = |line: &str| {
        let status = Command::new("bash")
            .args(["-c", line])
            .current_dir(&dir)
            .env("PATH", path_with(&bin))
            .status()
            .unwrap();
        assert!(status.success(), "{line}");
    };
    bash(&submit);
    assert!(
        !dir.join("PWNED").exists(),
        "the hint ran the path: {submit}"
    );
    let log = std::fs::read_to_string(dir.join("sbatch.log")).unwrap();
    let array = out.canonicalize().unwrap().join("slurm/array.sbatch");
    assert!(log.lines().any(|l| Path::new(l) == array), "{log}");
    // The array script itself, run by hand as task 1, runs its shard and nothing else.
    let status = Command::new("bash")
        .arg(&array)
        .current_dir(&dir)
        .env("SLURM_ARRAY_TASK_ID", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(!dir.join("PWNED").exists(), "the array script ran the path");
    assert!(out.join("shards/1/results.jsonl").exists());
    let stdout = run(&[
        "campaign",
        &cfg,
        "--slurm",
        "--submit",
        "--out",
        out.to_str().unwrap(),
    ]);
    let follow = hint(&stdout, "follow with: ");
    bash(&follow);
    assert!(
        !dir.join("PWNED").exists(),
        "the hint ran the path: {follow}"
    );
    let log = std::fs::read_to_string(dir.join("netreplay.log")).unwrap();
    assert_eq!(
        log.lines().last(),
        Some(out.canonicalize().unwrap().to_str().unwrap())
    );
}

/// `run --out FIFO` writes through the FIFO (a reader gets the JSON) and leaves it a FIFO.
#[test]
fn run_out_to_a_fifo_is_written_through_and_stays_a_fifo() {
    use std::os::unix::fs::FileTypeExt as _;
    let dir = fresh_dir(TAG, "fifo");
    let fifo = dir.join("out.json");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = Command::new("cat")
        .arg(&fifo)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (run, ran) = wait_guarded(spawn(&SMALL_RUN, "--out", &fifo), 120);
    // If the run replaced the FIFO, the reader waits for a writer for ever: open it to end `cat`.
    if !fifo.metadata().unwrap().file_type().is_fifo() || !ran {
        let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
    }
    let (read, _) = wait_guarded(reader, 30);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        fifo.symlink_metadata().unwrap().file_type().is_fifo(),
        "the FIFO was replaced"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&read.stdout).expect("JSON through the FIFO");
    assert!(json.to_string().contains("completion_cycles"), "{json}");
}

/// `run --out /dev/fd/1` with stdout redirected to a file appends the JSON after the printed
/// report, in that file.
#[test]
fn run_out_to_dev_fd_1_appends_to_the_redirected_stdout() {
    let dir = fresh_dir(TAG, "dev-fd");
    let file = dir.join("stdout.txt");
    let status = Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(SMALL_RUN)
        .args(["--out", "/dev/fd/1"])
        .stdout(std::fs::File::create(&file).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&file).unwrap();
    let json_at = text.find("{\n").expect("the JSON report");
    assert!(text[..json_at].contains("completion_cycles    "), "{text}");
    let json: serde_json::Value = serde_json::from_str(&text[json_at..]).expect("JSON");
    assert!(json.to_string().contains("completion_cycles"), "{json}");
}

/// The pid of a process that has ended.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Temporary files of the same output left by killed runs are removed by the next run writing it;
/// one of a running process (this test) is left alone.
#[test]
fn stale_temporary_files_are_removed_by_the_next_write() {
    let dir = fresh_dir(TAG, "stale");
    let dead = dead_pid();
    let stale = [
        dir.join(format!(".r.json.netreplay-tmp.{dead}")),
        dir.join(format!(".r.json.tmp{dead}")),
    ];
    let live = dir.join(format!(".r.json.netreplay-tmp.{}", std::process::id()));
    let other = dir.join(format!(".other.json.netreplay-tmp.{dead}"));
    for p in stale.iter().chain([&live, &other]) {
        std::fs::write(p, "partial").unwrap();
    }
    let out = dir.join("r.json");
    let o = netreplay(&[&SMALL_RUN[..], &["--out", out.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for p in &stale {
        assert!(!p.exists(), "{} was left", p.display());
    }
    assert!(
        live.exists(),
        "a running process's temporary file was removed"
    );
    assert!(
        other.exists(),
        "another output's temporary file was removed"
    );
    assert!(out.exists());
}

/// Waits until `child` has begun writing `tmp`, then `delay_ms` more, sends it `signal` (`-INT`,
/// `-TERM`) and waits for it (a minute at most): its output and whether it ended.
fn signal_once_writing(
    child: std::process::Child,
    tmp: &Path,
    signal: &str,
    delay_ms: u64,
) -> (std::process::Output, bool) {
    let start = std::time::Instant::now();
    while !tmp.exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(tmp.exists(), "no temporary file {} appeared", tmp.display());
    std::thread::sleep(std::time::Duration::from_millis(delay_ms));
    let killed = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    wait_guarded(child, 60)
}

/// SIGINT during `run --timeline` removes the timeline's temporary file, says what was interrupted
/// and which outputs were not written (the timeline being written, the report still to come), and
/// exits with 130.
#[test]
fn sigint_during_a_timeline_removes_its_temporary_file_and_says_so() {
    let dir = fresh_dir(TAG, "sigint");
    let timeline = dir.join("t.json");
    let report = dir.join("r.json");
    // A 512-node run of 1 GB messages: far from done when it is interrupted.
    let big = [
        "run",
        "--topology",
        "fat-tree:k=8,n=3",
        "--workload",
        "3m:size=1G",
        "--out",
        report.to_str().unwrap(),
    ];
    let child = spawn(&big, "--timeline", &timeline);
    let tmp = dir.join(format!(".t.json.netreplay-tmp.{}", child.id()));
    let (out, ended) = signal_once_writing(child, &tmp, "-INT", 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(ended, "still running after SIGINT: {err}");
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted `netreplay run"), "{err}");
    assert!(err.contains("t.json was not written"), "{err}");
    assert!(err.contains("r.json was not written"), "{err}");
    assert!(!tmp.exists(), "{} was left", tmp.display());
    assert!(!timeline.exists() && !report.exists());
}

/// SIGTERM still removes the temporary file and exits with 130 when stderr is a closed pipe (the
/// reader of `netreplay ... 2>&1 | head -1` gone), and progress lines into that pipe stop nothing.
#[test]
fn sigterm_with_stderr_closed_still_cleans_up_and_exits() {
    let dir = fresh_dir(TAG, "sigterm-closed");
    let timeline = dir.join("t.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args([
            "run",
            "--topology",
            "fat-tree:k=8,n=3",
            "--workload",
            "3m:size=1G",
        ])
        .args(["--progress", "--timeline"])
        .arg(&timeline)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let tmp = dir.join(format!(".t.json.netreplay-tmp.{}", child.id()));
    // Sent past the first progress lines (every 2 s), each written into the closed pipe.
    let (out, ended) = signal_once_writing(child, &tmp, "-TERM", 2500);
    assert!(ended, "still running after SIGTERM with stderr closed");
    assert_eq!(out.status.code(), Some(130));
    assert!(!tmp.exists(), "{} was left", tmp.display());
}

/// `ranks = 3` with `bu` is refused before the directory is written, so the corrected config runs on
/// the same `--out`; a manifest without results (left by an older version) does not block it either.
#[test]
fn rank_constraints_are_checked_before_the_directory_is_written() {
    let dir = fresh_dir(TAG, "ranks");
    let out = dir.join("out");
    let out_s = out.to_str().unwrap();
    let bad = campaign(&dir, "ranks = 3", "");
    rejects(
        &["campaign", &bad, "--out", out_s],
        &["bu:size=10,ranks=3", "candidate `a`", "power-of-two"],
    );
    assert!(
        !out.join("campaign.json").exists(),
        "a refused config wrote its manifest"
    );
    let good = campaign(&dir, "ranks = 4", "");
    let o = netreplay(&["campaign", &good, "--out", out_s]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A manifest of another config with no result in the directory is taken over.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(out.join("campaign.json"), other.join("campaign.json")).unwrap();
    let good = campaign(&dir, "ranks = 8", "");
    let o = netreplay(&["campaign", &good, "--out", other.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // With results, it is still refused.
    let cfg4 = campaign(&dir, "ranks = 2", "");
    rejects(
        &["campaign", &cfg4, "--out", out_s],
        &["another campaign config"],
    );
}

/// `virtual_channels` against bubble flow control points at the key's file:line:column.
#[test]
fn bubble_virtual_channels_error_carries_its_position() {
    let dir = fresh_dir(TAG, "bubble");
    let cfg = campaign(
        &dir,
        "",
        "[[candidate]]\nlabel = \"t\"\ntopology = \"torus:k=4,n=2\"\n[network]\nvirtual_channels = 2\n",
    );
    rejects(
        &["campaign", &cfg, "--out", dir.join("out").to_str().unwrap()],
        &["c.toml:15:20", "virtual_channels", "bubble"],
    );
}

/// NaN, infinite and negative prices and absurd weights are refused before anything is written, so
/// `campaign.json` never holds `null`.
#[test]
fn non_finite_and_negative_numbers_are_refused_before_writing() {
    let dir = fresh_dir(TAG, "numbers");
    let out = dir.join("out");
    let table = |v: &str| format!("[cost_table]\nswitch = {{ \"8\" = 100.0 }}\nlink = {v}\n");
    for (extra, needle) in [
        (table("nan"), "cost_table.link = NaN"),
        (table("inf"), "cost_table.link = inf"),
        (table("-5.0"), "cost_table.link = -5"),
        (
            "[cost_table]\nswitch = { \"8\" = nan }\n".to_string(),
            "cost_table.switch.8",
        ),
        (
            "[weights]\npattern = { bu = 1e308 }\n".into(),
            "weights.pattern.bu",
        ),
        (
            "[weights]\nsize = { \"10\" = 1e-300 }\n".into(),
            "weights.size.10",
        ),
        (
            "[cost_table]\nswitch = { \"8\" = 0.0 }\n".into(),
            "must not all be 0",
        ),
    ] {
        let cfg = campaign(&dir, "", &extra);
        rejects(
            &["campaign", &cfg, "--out", out.to_str().unwrap()],
            &[needle],
        );
        assert!(!out.exists(), "{extra}: the directory was written");
    }
}

/// Two lines of `results.jsonl` for one run with different results are an error naming both lines;
/// identical ones (another wall time) are taken once.
#[test]
fn duplicate_results_with_different_values_name_both_lines() {
    let dir = fresh_dir(TAG, "duplicates");
    let cfg = campaign(&dir, "", "");
    let out = dir.join("out");
    let o = netreplay(&["campaign", &cfg, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let results = out.join("results.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let mut same = first.clone();
    same["wall_seconds"] = serde_json::json!(123.0);
    std::fs::write(&results, format!("{text}{same}\n")).unwrap();
    let o = netreplay(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut other = first.clone();
    other["completion_cycles"] =
        serde_json::json!(first["completion_cycles"].as_u64().unwrap() + 1);
    std::fs::write(&results, format!("{text}{same}\n{other}\n")).unwrap();
    rejects(
        &["report", out.to_str().unwrap()],
        &["lines 1 and 4", "completion_cycles"],
    );
}

/// Two output flags naming one file, or an output naming the run's input trace, are refused before
/// anything runs, the input left as it was; devices repeat freely.
#[test]
fn outputs_over_one_another_or_over_an_input_are_refused() {
    let dir = fresh_dir(TAG, "distinct");
    let out = dir.join("same.json");
    let dotted = dir.join(".").join("same.json");
    let args = [&SMALL_RUN[..], &["--out", out.to_str().unwrap()]].concat();
    let args = [&args[..], &["--html", dotted.to_str().unwrap()]].concat();
    rejects(&args, &["--out and --html both name"]);
    assert!(!out.exists());

    let trace = dir.join("bt.trc");
    let original = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/bt-size1000-16.trc");
    std::fs::copy(&original, &trace).unwrap();
    let spec = format!("trace:file={},cache=off", trace.display());
    let run = ["run", "--topology", "fat-tree:k=4,n=2", "--workload", &spec];
    let args = [&run[..], &["--timeline", trace.to_str().unwrap()]].concat();
    rejects(&args, &["--timeline", "is an input of this run"]);
    assert_eq!(
        std::fs::read(&trace).unwrap(),
        std::fs::read(&original).unwrap()
    );

    let devices = [
        &SMALL_RUN[..],
        &["--out", "/dev/null", "--timeline", "/dev/null"],
    ]
    .concat();
    let done = netreplay(&devices);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
}

/// `--link-load` names a directory: a regular file there is refused before simulating, and kept.
#[test]
fn link_load_over_a_file_is_refused() {
    let dir = fresh_dir(TAG, "link-load-file");
    let file = dir.join("afile");
    std::fs::write(&file, "kept").unwrap();
    let args = [&SMALL_RUN[..], &["--link-load", file.to_str().unwrap()]].concat();
    rejects(&args, &["afile: is a file", "is a directory"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
}

/// Output directories are made when their files are written: a run refused after its outputs were
/// checked (here the flow model with `--link-load`) leaves none behind, while one that runs makes
/// every missing level.
#[test]
fn a_refused_run_leaves_no_output_directories() {
    let dir = fresh_dir(TAG, "no-early-dirs");
    let deep = dir.join("a/b");
    let report = dir.join("r/x.json");
    let args = [
        "run",
        "--topology",
        "torus:k=4,n=2",
        "--workload",
        "bu:size=100",
        "--link-load",
        deep.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ];
    rejects(
        &[&args[..], &["--model", "flow"]].concat(),
        &["need the flit model"],
    );
    assert!(!dir.join("a").exists() && !dir.join("r").exists());
    let done = netreplay(&args);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(deep.join("link_load.csv").is_file() && report.is_file());
}
