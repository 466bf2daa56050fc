//! Hostile and careless trace inputs: rank counts that would exhaust memory, traces `run` must refuse
//! as `trace check` does, special files given as inputs, and DUMPI/OTF2 inputs whose errors must say
//! precisely what is wrong.

mod common;

use common::{copy_dir, netreplay_bounded, scratch};
use netreplay::trace::{self, Format, ReadOptions};
use std::path::{Path, PathBuf};

/// Address-space bound for the child processes (KiB): a refusal needs a few MB, building the
/// program of 16 M ranks gigabytes.
const LIMIT_KB: u64 = 400_000;
/// Hang guard in seconds, far above the few milliseconds a refusal takes.
const GUARD: u64 = 120;

fn write(tag: &str, name: &str, text: &str) -> String {
    let p = scratch(tag, name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Asserts that `args` exit with code 1 (an error, not a signal or a hang) and a message holding
/// every one of `needles`; returns it.
fn refused(args: &[&str], needles: &[&str]) -> String {
    let (code, err) = netreplay_bounded(args, LIMIT_KB, GUARD);
    assert_eq!(code, Some(1), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected `{n}` in: {err}");
    }
    err
}

#[test]
fn rank_bombs_are_refused_at_their_line_in_bounded_memory() {
    let simgrid = write(
        "bombs",
        "bomb.txt",
        "0 init\n1 init\n2 init\n16777215 init\n",
    );
    assert_eq!(std::fs::metadata(&simgrid).unwrap().len(), 35);
    let fsin = write("bombs", "bomb.trc", "s 0 16777215 14 1\n");
    let native = write("bombs", "bomb.nr", "netreplay-trace 3\nranks 16000000\n");
    for (file, at) in [
        (&simgrid, "bomb.txt:4:1:"),
        (&fsin, "bomb.trc:1:5:"),
        (&native, "bomb.nr:2:7:"),
    ] {
        let err = refused(&["trace", "check", file], &[at, "1048576"]);
        assert!(!err.contains("memory allocation"), "{err}");
        // A run on a 4-node network refuses at the same line, naming the network.
        let spec = format!("trace:file={file},cache=off");
        refused(
            &["run", "--topology", "fat-tree:k=2,n=2", "--workload", &spec],
            &[at, "`fat-tree:k=2,n=2` has only 4 nodes"],
        );
    }
    // Under the hard cap, a rank past the network's nodes is refused where it is named.
    let five = write("bombs", "five.trc", "s 0 1 14 1\nr 0 1 14 1\ns 4 0 1 1\n");
    let spec = format!("trace:file={five},cache=off");
    refused(
        &["run", "--topology", "fat-tree:k=2,n=2", "--workload", &spec],
        &["five.trc:3:3:", "rank 4 makes the trace 5 ranks"],
    );
}

/// A collective of a few bytes of text that expands into tens of millions of operations (allgatherv
/// blocks of 2^40 bytes, which MPICH's pipelined ring sends in 32 KiB chunks) is refused before it is
/// expanded, at its line and with the estimate, by `trace check`, `run` and `generate` alike, in a
/// bounded address space.
#[test]
fn a_collective_expanding_past_the_memory_limit_is_refused_before_it_is_built() {
    let text: String = (0..4)
        .map(|r| format!("{r} allgatherv 1099511627776 1 1 1\n"))
        .collect();
    let f = write(
        "agv",
        "agv_big.trc",
        &format!("netreplay-trace 3\nranks 4\n{text}"),
    );
    let spec = format!("trace:file={f},cache=off");
    let out = scratch("agv", "out.trc").display().to_string();
    let topology = ["--topology", "fat-tree:k=4,n=2"];
    for args in [
        vec!["trace", "check", "--max-memory", "100M", &f],
        [
            &["run"][..],
            &topology,
            &["--max-memory", "100M", "--workload", &spec],
        ]
        .concat(),
        vec![
            "generate",
            &spec,
            "--ranks",
            "4",
            "--max-memory",
            "100M",
            "--out",
            &out,
        ],
    ] {
        refused(
            &args,
            &[
                &format!("{f}:3: "),
                "with this allgatherv (up to 67108950 operations for it",
                "the --max-memory limit is 100.0 MiB",
            ],
        );
    }
    // Within the limit, the same file with blocks of a few chunks is read.
    let small = text.replace("1099511627776", "100000");
    let f = write(
        "agv",
        "agv_small.trc",
        &format!("netreplay-trace 3\nranks 4\n{small}"),
    );
    let (code, err) = netreplay_bounded(
        &["trace", "check", "--max-memory", "100M", &f],
        LIMIT_KB,
        GUARD,
    );
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn run_refuses_a_collective_only_some_ranks_call_as_trace_check_does() {
    let file = write(
        "check-agree",
        "bcast.txt",
        "0 init\n1 init\n0 bcast 1e6\n0 finalize\n1 finalize\n",
    );
    let needle = "from rank 0 to rank 1 of collective #1 on communicator 0 have no receive";
    refused(&["trace", "check", &file], &["cannot complete", needle]);
    let spec = format!("trace:file={file},cache=off");
    refused(
        &["run", "--topology", "fat-tree:k=2,n=2", "--workload", &spec],
        &["cannot complete", needle],
    );
}

#[test]
fn trailing_tokens_of_a_simgrid_action_are_an_error_at_their_column() {
    let file = write(
        "junk",
        "junk.txt",
        "0 init\n1 init\n0 compute 1e9 junk\n1 compute 1\n",
    );
    let e = trace::read_any(Path::new(&file), &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("junk.txt:3:15:") && e.contains("found `junk`"),
        "{e}"
    );
    // Optional datatype ids are not junk.
    let ok = write(
        "junk",
        "dt.txt",
        "0 init\n1 init\n0 send 1 0 8 6\n1 recv 0 0 8 6\n0 alltoall 2 2 6 6\n1 alltoall 2 2 6 6\n",
    );
    trace::read_any(Path::new(&ok), &ReadOptions::default()).unwrap();
}

/// A FIFO at `path` (made with `mkfifo`, which every POSIX system has).
fn fifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn special_files_as_inputs_are_refused_without_hanging() {
    let pipe = scratch("special", "pipe");
    fifo(&pipe);
    let p = pipe.display().to_string();
    let placement = format!("file:path={p}");
    let graph = format!("graph:file={p}");
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "run",
            "--topology",
            "fat-tree:k=2,n=2",
            "--workload",
            "bu:size=8",
            "--placement",
            &placement,
        ],
        vec!["run", "--topology", &graph, "--workload", "bu:size=8"],
        vec!["run", &p],
        vec!["trace", "check", &p],
    ];
    for args in &cases {
        refused(args, &["FIFO"]);
    }
    refused(
        &[
            "run",
            "--topology",
            "graph:file=/dev/zero",
            "--workload",
            "bu:size=8",
        ],
        &["/dev/zero", "a device"],
    );
}

#[test]
fn an_otf2_event_file_that_is_a_fifo_is_refused_as_not_regular() {
    let dir = scratch("otf2-fifo", "archive");
    copy_dir(Path::new("traces/otf2/sst-elements-test_emberotf2"), &dir);
    fifo(&dir.join("traces").join("2.evt"));
    let e = trace::read_any(&dir, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("2.evt") && e.contains("FIFO"), "{e}");
    assert!(!e.contains("missing"), "{e}");
}

/// A copy of the sample DUMPI trace of 4 ranks in scratch folder `tag`, with its `.meta` path.
fn dumpi_copy(tag: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(tag, "dumpi");
    copy_dir(Path::new("traces/dumpi/sst-dumpi-tests"), &dir);
    let meta = dir.join("testtrace.meta");
    (dir, meta)
}

fn read_error(path: &Path, format: Option<Format>) -> String {
    let opts = ReadOptions {
        format,
        ..ReadOptions::default()
    };
    trace::read_any(path, &opts).unwrap_err().to_string()
}

fn set_numprocs(meta: &Path, line: Option<&str>) {
    let text = std::fs::read_to_string(meta).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("numprocs="))
        .collect();
    let mut out = kept.join("\n") + "\n";
    if let Some(l) = line {
        out.push_str(l);
        out.push('\n');
    }
    std::fs::write(meta, out).unwrap();
}

#[test]
fn dumpi_errors_say_which_rank_file_or_field_is_wrong() {
    // A rank file missing: said of the .meta and of its folder, not "no .meta file".
    let (dir, meta) = dumpi_copy("dumpi-missing");
    std::fs::remove_file(dir.join("testtrace-0003.bin")).unwrap();
    for path in [&meta, &dir] {
        let e = read_error(path, None);
        assert!(
            e.contains("the rank file of rank 3 of 4 is missing")
                && e.contains("testtrace-0003.bin (numprocs = 4)"),
            "{e}"
        );
    }
    let d = dir.display().to_string();
    let err = refused(
        &["trace", "check", &d],
        &["rank file of rank 3 of 4 is missing"],
    );
    assert!(!err.contains("no `.meta` file"), "{err}");
    // numprocs 0, absent, or fewer than the rank files.
    let (_, meta) = dumpi_copy("dumpi-numprocs");
    set_numprocs(&meta, Some("numprocs=0"));
    let e = read_error(&meta, None);
    assert!(
        e.contains("numprocs `0` is not a positive rank count"),
        "{e}"
    );
    // Past u32, a count too large, not a malformed one.
    set_numprocs(&meta, Some("numprocs=4294967296"));
    let e = read_error(&meta, None);
    assert!(
        e.contains("numprocs: the trace has 4294967296 ranks, but"),
        "{e}"
    );
    set_numprocs(&meta, None);
    let e = read_error(&meta, None);
    assert!(e.contains("no `numprocs=` line"), "{e}");
    set_numprocs(&meta, Some("numprocs=3"));
    let e = read_error(&meta, None);
    assert!(
        e.contains("numprocs = 3 but there is also a rank file for rank 3"),
        "{e}"
    );
    // A lone rank file: recognised as DUMPI, detected or named, and told to give the .meta.
    let lone = scratch("dumpi-lone", "run-0000.bin");
    std::fs::copy("traces/dumpi/sst-dumpi-tests/testtrace-0000.bin", &lone).unwrap();
    for format in [None, Some(Format::DUMPI)] {
        let e = read_error(&lone, format);
        assert!(
            e.contains("a DUMPI rank file; give the trace's .meta file")
                && e.contains("run.meta is not beside it"),
            "{e}"
        );
    }
}

#[test]
fn trace_check_takes_the_format() {
    let file = write("check-format", "two.txt", "0 init\n1 init\n");
    let (code, err) =
        netreplay_bounded(&["trace", "check", "--format", "simgrid", &file], 0, GUARD);
    assert_eq!(code, Some(0), "{err}");
    refused(
        &["trace", "check", "--format", "trc", &file],
        &["two.txt:1:1:", "expected an event"],
    );
}
