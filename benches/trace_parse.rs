//! Trace parse speed on one core, in MB/s of trace files.
//!
//! Native: `cargo bench --bench trace_parse` writes a 256 MB trace (1024 ranks of sends, receives,
//! non-blocking requests and computation, the mix an MPI application produces) into the bench's
//! scratch folder; `cargo bench --bench trace_parse -- MB` writes MB megabytes instead (1024 for the
//! 1 GB case). It then times reading the plain file, the zstd file, a first cached read
//! (parse + cache write) and a cached re-run (hash + decode, no parsing), printing MB/s of text.
//!
//! DUMPI: the records of the NPB MG sample (`traces/dumpi/npb3.3-mpich/mg.S.16`) repeated into
//! 16 rank files of about 230 MB in all, decoded to MPI calls, then read (decode + MPI layer).
//! OTF2: the TraceR 64-rank stencil sample (`traces/otf2/tracer-stencil4d-64`, 64 event files of
//! about 2 KB) with each rank's events repeated into event files of about 3 MB (200 MB in all, in
//! OTF2's 1 MiB chunks), decoded and read once; then the sample itself read over and over, which
//! measures opening 130 small files and reading their definitions on every pass.
//! `cargo bench --bench trace_parse -- native|dumpi|otf2` runs one part only.
//!
//! Each line gives MB/s of wall time and MB/s of the process's own CPU time (`CLOCK_PROCESS_CPUTIME_ID`,
//! user and system: page faults count), which a machine shared with other work changes little.

mod common;

use common::cpu_seconds;
use netreplay::mpi::collectives::Algorithms;
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(256);
    let parts = ["native", "dumpi", "otf2"];
    let only: Vec<&str> = parts
        .into_iter()
        .filter(|p| args.iter().any(|a| a == p))
        .collect();
    let run = |part: &str| only.is_empty() || only.contains(&part);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-traces");
    std::fs::create_dir_all(&dir).unwrap();
    if run("native") {
        native(&dir, mb);
    }
    if run("dumpi") {
        dumpi(&dir);
    }
    if run("otf2") {
        otf2(&dir);
    }
}

/// Times `f` over `bytes` of trace files and prints MB/s of wall and of CPU time.
fn rate(label: &str, bytes: u64, f: impl FnOnce() -> usize) {
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let n = f();
    let (s, c) = (t.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    let mb = bytes as f64 / 1e6;
    println!(
        "{label:<34} {s:>7.2} s {:>7.1} MB/s  CPU {c:>6.2} s {:>7.1} MB/s  ({n} calls or ops)",
        mb / s,
        mb / c
    );
}

fn op_count(p: &netreplay::program::Program) -> usize {
    (0..p.ranks()).map(|r| p.rank_ops(r).len()).sum()
}

fn dumpi(dir: &Path) {
    let dir = dir.join("dumpi-mg");
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/dumpi/npb3.3-mpich/mg.S.16");
    let mut total = 0u64;
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_owned();
        if p.extension().is_some_and(|x| x == "bin") {
            let big = repeat_records(&std::fs::read(&p).unwrap(), 220);
            total += big.len() as u64;
            std::fs::write(dir.join(name), big).unwrap();
        } else if p.extension().is_some_and(|x| x == "meta") {
            std::fs::copy(&p, dir.join(name)).unwrap();
        }
    }
    rate("DUMPI decode (MG x 220)", total, || {
        let d = trace::dumpi::read_calls(&dir, 1e9).unwrap();
        d.calls.iter().map(Vec::len).sum()
    });
    rate("DUMPI read (decode + MPI layer)", total, || {
        op_count(&trace::dumpi::read(&dir, &Algorithms::default(), 1e9).unwrap())
    });
}

fn otf2(dir: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/otf2/tracer-stencil4d-64");
    let size: u64 = trace::otf2::sources(&src)
        .unwrap()
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    let times = (200_000_000 / size).max(1);
    let big = repeat_archive(&src, &dir.join("otf2-stencil"), times as usize);
    let big_size: u64 = trace::otf2::sources(&big)
        .unwrap()
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    rate(&format!("OTF2 decode (events x {times})"), big_size, || {
        let c = trace::otf2::read_calls(&big, 1e9).unwrap();
        c.calls.iter().map(Vec::len).sum()
    });
    rate("OTF2 read (decode + MPI layer)", big_size, || {
        op_count(&trace::otf2::read(&big, &Algorithms::default(), 1e9).unwrap())
    });
    rate(
        &format!("OTF2 small archive, decode x {times}"),
        size * times,
        || {
            (0..times)
                .map(|_| {
                    let c = trace::otf2::read_calls(&src, 1e9).unwrap();
                    c.calls.iter().map(Vec::len).sum::<usize>()
                })
                .sum()
        },
    );
    rate("OTF2 small archive, read", size * times, || {
        (0..times)
            .map(|_| op_count(&trace::otf2::read(&src, &Algorithms::default(), 1e9).unwrap()))
            .sum()
    });
}

fn native(dir: &Path, mb: u64) {
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

    let time = |label: &str, f: &dyn Fn() -> usize| rate(label, size, f);
    let count =
        |p: netreplay::program::Program| (0..p.ranks()).map(|r| p.rank_ops(r).len()).sum::<usize>();
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

/// A rank file whose records between MPI_Init and MPI_Finalize are repeated `times` times, its index
/// moved to match (the footer's counts are left as they were).
fn repeat_records(file: &[u8], times: usize) -> Vec<u8> {
    let word = |at: usize| u64::from_be_bytes(file[at..at + 8].try_into().unwrap()) as usize;
    let index = file.len() - 64;
    let (header, body) = (word(index + 32), word(index + 40));
    // MPI_Init: id, mask 0x4f, thread, CPU and wall times (29 bytes), argc, argc strings.
    let mut init_end = body + 8 + 29;
    let argc = u32::from_be_bytes(file[init_end..init_end + 4].try_into().unwrap());
    init_end += 4;
    for _ in 0..argc {
        let n = u32::from_be_bytes(file[init_end..init_end + 4].try_into().unwrap()) as usize;
        init_end += 4 + n;
    }
    let finalize = header - 2 - 29;
    assert_eq!(
        &file[finalize..finalize + 2],
        &[0, 125],
        "MPI_Finalize ends the records"
    );
    let middle = &file[init_end..finalize];
    let shift = (middle.len() * (times - 1)) as u64;
    let mut out = file[..init_end].to_vec();
    for _ in 0..times {
        out.extend_from_slice(middle);
    }
    out.extend_from_slice(&file[finalize..index]);
    for k in 0..8 {
        let v = word(index + 8 * k) as u64;
        let moved = if k > 0 && v as usize > body {
            v + shift
        } else {
            v
        };
        out.extend_from_slice(&moved.to_be_bytes());
    }
    out
}

/// Copies the OTF2 archive `src` to `dst` with every event file's events repeated `times` times
/// (see [`repeat_events`]); returns the new anchor file.
fn repeat_archive(src: &Path, dst: &Path, times: usize) -> std::path::PathBuf {
    let anchor = std::fs::read(src.join("traces.otf2")).unwrap();
    assert_eq!(anchor[1], 0x42, "a little endian anchor file");
    let chunk = u64::from_le_bytes(anchor[12..20].try_into().unwrap()) as usize;
    std::fs::create_dir_all(dst.join("traces")).unwrap();
    std::fs::write(dst.join("traces.otf2"), &anchor).unwrap();
    std::fs::copy(src.join("traces.def"), dst.join("traces.def")).unwrap();
    for e in std::fs::read_dir(src.join("traces")).unwrap() {
        let p = e.unwrap().path();
        let to = dst.join("traces").join(p.file_name().unwrap());
        if p.extension().is_some_and(|x| x == "evt") {
            let file = std::fs::read(&p).unwrap();
            std::fs::write(to, repeat_events(&file, chunk, times)).unwrap();
        } else {
            std::fs::copy(&p, to).unwrap();
        }
    }
    dst.join("traces.otf2")
}

/// A one-chunk OTF2 event file (little endian) whose longest stretch of whole regions (nesting
/// back to where it started, no measurement switched on or off inside) is repeated `times` times,
/// each repetition's timestamps moved past the previous one's, cut into chunks of `chunk` bytes at
/// timestamps as OTF2 writes them.
fn repeat_events(file: &[u8], chunk: usize, times: usize) -> Vec<u8> {
    assert!(
        file.len() < chunk && file[1] == 0x42,
        "one little endian chunk"
    );
    // Each record: its start (with the timestamp just before it), type and region depth before it.
    let (mut records, mut depth, mut at, mut start) = (Vec::new(), 0i64, 18, None);
    let mut stamp = vec![false; file.len()];
    let end = loop {
        let kind = file[at];
        if kind <= 2 {
            break at;
        }
        if kind == 0x05 {
            stamp[at] = true;
            start.get_or_insert(at);
            at += 9;
            continue;
        }
        records.push((start.take().unwrap_or(at), kind, depth));
        depth += i64::from(kind == 12) - i64::from(kind == 13);
        at += match (kind, file[at + 1]) {
            (12 | 13 | 16 | 17 | 20 | 21 | 24 | 28 | 29 | 30, s) => 2 + usize::from(s % 0xff),
            (_, 0xff) => {
                10 + u64::from_le_bytes(file[at + 2..at + 10].try_into().unwrap()) as usize
            }
            (_, n) => 2 + usize::from(n),
        };
    };
    records.push((start.unwrap_or(end), 0, depth));
    let (mut a, mut b) = (0, 0);
    for i in 0..records.len() - 1 {
        for j in i..records.len() - 1 {
            if records[j].1 == 11 || records[j + 1].2 < records[i].2 {
                break;
            }
            if records[j + 1].2 == records[i].2 && j + 1 - i > b - a {
                (a, b) = (i, j + 1);
            }
        }
    }
    let (from, to) = (records[a].0, records[b].0);
    // Timestamps of the repeated stretch, to move each repetition past the previous one.
    let stamps: Vec<usize> = (from..to).filter(|&i| stamp[i]).collect();
    let time = |i: usize| u64::from_le_bytes(file[i + 1..i + 9].try_into().unwrap());
    let period = stamps.last().map_or(0, |&l| time(l) - time(stamps[0]) + 1);
    // The data as pieces between timestamps, each with the shift of its timestamp.
    let mut units: Vec<(usize, usize, u64)> = Vec::new();
    let cut = |lo: usize, hi: usize, shift: u64, units: &mut Vec<_>| {
        let mut s = lo;
        for i in (lo + 1..hi).filter(|&i| stamp[i]) {
            units.push((s, i, shift));
            s = i;
        }
        units.push((s, hi, shift));
    };
    cut(18, from, 0, &mut units);
    for k in 0..times as u64 {
        cut(from, to, k * period, &mut units);
    }
    cut(to, end, (times as u64 - 1) * period, &mut units);
    let mut out = Vec::new();
    let mut chunk_start = 0;
    out.extend_from_slice(&file[..18]);
    for (lo, hi, shift) in units.into_iter().filter(|u| u.0 < u.1) {
        if out.len() - chunk_start + (hi - lo) + 1 > chunk {
            out.push(0x00);
            out.resize(chunk_start + chunk, 0);
            chunk_start = out.len();
            out.extend_from_slice(&file[..18]);
        }
        let at = out.len();
        out.extend_from_slice(&file[lo..hi]);
        if stamp[lo] {
            let t = time(lo) + shift;
            out[at + 1..at + 9].copy_from_slice(&t.to_le_bytes());
        }
    }
    out.push(file[end]);
    out
}
