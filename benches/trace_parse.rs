//! Trace parse speed: MB/s of native trace text, plain and zstd-compressed, and the cached re-run.
//!
//! `cargo bench --bench trace_parse` writes a 256 MB trace (1024 ranks of sends, receives,
//! non-blocking requests and computation, the mix an MPI application produces) into the bench's
//! scratch folder; `cargo bench --bench trace_parse -- MB` writes MB megabytes instead (1024 for the
//! 1 GB case of issue 3). It then times reading the plain file, the zstd file, a first cached read
//! (parse + cache write) and a cached re-run (hash + decode, no parsing), printing MB/s of text.

use netreplay::trace::{self, ReadOptions, cache};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

const RANKS: u32 = 1024;

/// Streams about `mb` megabytes of valid trace text to `path` (never held in memory). Returns the
/// exact size and the number of events.
fn generate(path: &Path, mb: u64) -> (u64, u64) {
    let target = mb * 1_000_000;
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let mut written = 0u64;
    let mut events = 0u64;
    let mut line = String::new();
    use std::fmt::Write as _;
    writeln!(out, "netreplay-trace 2\nranks {RANKS}").unwrap();
    let mut step = 0u64;
    while written < target {
        // One round: every rank sends to its right neighbour, receives from the left, computes,
        // and exchanges a non-blocking pair with a farther partner.
        for r in 0..RANKS {
            let right = (r + 1) % RANKS;
            let left = (r + RANKS - 1) % RANKS;
            let far = (r + RANKS / 2) % RANKS;
            let bytes = 1024 + (step * 7919 + u64::from(r) * 104_729) % 1_000_000;
            let tag = (step % 100) as u32;
            line.clear();
            writeln!(line, "{r} send {right} {bytes} {tag}").unwrap();
            writeln!(line, "{r} recv {left} {tag}").unwrap();
            writeln!(line, "{r} compute {}", 1000 + bytes % 5000).unwrap();
            writeln!(line, "{r} isend {far} {bytes} {} 1", tag + 1).unwrap();
            writeln!(line, "{r} irecv {far} {} 2", tag + 1).unwrap();
            writeln!(line, "{r} waitall").unwrap();
            out.write_all(line.as_bytes()).unwrap();
            written += line.len() as u64;
            events += 6;
        }
        step += 1;
    }
    out.flush().unwrap();
    (std::fs::metadata(path).unwrap().len(), events)
}

fn main() {
    let mb: u64 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .and_then(|a| a.parse().ok())
        .unwrap_or(256);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-traces");
    std::fs::create_dir_all(&dir).unwrap();
    let plain = dir.join(format!("bench-{mb}MB.trc"));
    let t = Instant::now();
    let (size, events) = generate(&plain, mb);
    let text_mb = size as f64 / 1e6;
    println!(
        "generated {text_mb:.1} MB of text, {events} events, {RANKS} ranks in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let zst = dir.join(format!("bench-{mb}MB.trc.zst"));
    {
        let t = Instant::now();
        let mut enc = zstd::stream::write::Encoder::new(
            BufWriter::new(std::fs::File::create(&zst).unwrap()),
            3,
        )
        .unwrap();
        std::io::copy(&mut std::fs::File::open(&plain).unwrap(), &mut enc).unwrap();
        enc.finish().unwrap().flush().unwrap();
        let zsize = std::fs::metadata(&zst).unwrap().len() as f64 / 1e6;
        println!(
            "compressed to {zsize:.1} MB ({:.1}x) in {:.1} s",
            text_mb / zsize,
            t.elapsed().as_secs_f64()
        );
    }

    let time = |label: &str, f: &dyn Fn() -> usize| {
        let t = Instant::now();
        let ops = f();
        let s = t.elapsed().as_secs_f64();
        println!(
            "{label:<28} {s:>7.2} s  {:>8.1} MB/s of text  ({ops} ops)",
            text_mb / s
        );
    };
    let count = |p: netreplay::workload::Program| {
        (0..p.ranks()).map(|r| p.rank_ops(r).len()).sum::<usize>()
    };
    time("parse plain", &|| count(trace::read(&plain).unwrap()));
    time("parse zstd", &|| count(trace::read(&zst).unwrap()));
    let loc = cache::Location::Dir(dir.join("cache"));
    let _ = std::fs::remove_dir_all(dir.join("cache"));
    let opts = ReadOptions::default();
    time("first cached read (writes)", &|| {
        count(cache::read(&plain, &opts, &loc).unwrap())
    });
    time("cached re-run", &|| {
        count(cache::read(&plain, &opts, &loc).unwrap())
    });
    let cache_mb = std::fs::read_dir(dir.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum::<u64>() as f64
        / 1e6;
    println!("cache file {cache_mb:.1} MB");
}
