//! Deterministic mutation testing on stable Rust: every sample trace format, the trace cache, spec
//! strings and TOML configs, mutated by a seeded generator (bit flips, truncation, insertion,
//! deletion, duplicated ranges, huge numbers, varints and lengths, swapped rank files) and read in
//! process. A mutant may be refused with an error; a panic fails the test naming the format, seed
//! and mutation, and so does an allocation beyond [`MAX_ALLOC`] (this binary's allocator refuses it
//! after printing the mutant) or a mutant that makes no progress for [`HANG_SECONDS`].

mod common;

use netreplay::rng::Rng;
use netreplay::trace::{self, Format, ReadOptions, cache};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};

/// The largest single allocation a mutant may ask for (256 MiB).
const MAX_ALLOC: usize = 256 << 20;
/// The most memory the test may hold at once (the inputs are kilobytes; 512 MiB is far above
/// anything a reader needs for them).
const MAX_LIVE: usize = 512 << 20;
/// The longest a mutant may run before the test is stopped as hung.
const HANG_SECONDS: u64 = 120;
/// The seed all mutants derive from.
const SEED: u64 = 0x6E65_7472_6570_6C61;

/// The system allocator, refusing requests over [`MAX_ALLOC`] after naming the current mutant.
struct Bounded;

#[global_allocator]
static ALLOC: Bounded = Bounded;

/// The current mutant's description (written without allocating, read by the allocator).
static LABEL: [AtomicU8; 256] = [const { AtomicU8::new(0) }; 256];
static LABEL_LEN: AtomicUsize = AtomicUsize::new(0);
/// Mutants done, for the hang watchdog.
static DONE: AtomicU64 = AtomicU64::new(0);
/// Bytes allocated and not yet freed.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Whether `size` more bytes stay within both bounds (reported when not).
fn admit(size: usize) -> bool {
    if size > MAX_ALLOC {
        report(b": asked for an allocation over 256 MiB\n");
        return false;
    }
    if LIVE.load(Ordering::Relaxed).saturating_add(size) > MAX_LIVE {
        report(b": holds more than 512 MiB\n");
        return false;
    }
    true
}

fn set_label(text: &str) {
    let bytes = &text.as_bytes()[..text.len().min(LABEL.len())];
    for (slot, &b) in LABEL.iter().zip(bytes) {
        slot.store(b, Ordering::Relaxed);
    }
    LABEL_LEN.store(bytes.len(), Ordering::Release);
}

/// Writes the current mutant's label and `what` to stderr without allocating.
fn report(what: &[u8]) {
    let mut buf = [0u8; 256];
    let n = LABEL_LEN.load(Ordering::Acquire);
    for (b, slot) in buf.iter_mut().zip(&LABEL[..n]) {
        *b = slot.load(Ordering::Relaxed);
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(b"mutation test: ");
    let _ = err.write_all(&buf[..n]);
    let _ = err.write_all(what);
}

unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && !admit(new_size - layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

/// Stops the process, naming the mutant, when no mutant finishes for [`HANG_SECONDS`].
fn watchdog() {
    std::thread::spawn(|| {
        let mut last = u64::MAX;
        loop {
            std::thread::sleep(std::time::Duration::from_secs(HANG_SECONDS));
            let now = DONE.load(Ordering::Relaxed);
            if now == last {
                report(b": no progress (hung)\n");
                std::process::abort();
            }
            last = now;
        }
    });
}

/// Numbers that stress bounds when they replace a token of a text format.
const HUGE_TEXT: [&str; 10] = [
    "16777215",
    "1048575",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1e308",
    "-1",
    "nan",
    "0",
];

/// One mutation of `bytes`, described; `text` picks token-level huge numbers, otherwise binary
/// huge varints and lengths.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>, text: bool) -> String {
    let len = bytes.len().max(1) as u32;
    let at = rng.below(len) as usize % (bytes.len() + 1);
    match rng.below(7) {
        0 => {
            let flips = 1 + rng.below(8);
            for _ in 0..flips {
                if !bytes.is_empty() {
                    let i = rng.below(len) as usize;
                    bytes[i] ^= 1 << rng.below(8);
                }
            }
            format!("{flips} bit flips")
        }
        1 => {
            bytes.truncate(at);
            format!("truncated at {at}")
        }
        2 => {
            let n = 1 + rng.below(16) as usize;
            let junk: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
            bytes.splice(at..at, junk);
            format!("{n} random bytes inserted at {at}")
        }
        3 => {
            let end = (at + 1 + rng.below(64) as usize).min(bytes.len());
            bytes.drain(at.min(end)..end);
            format!("bytes {at}..{end} deleted")
        }
        4 => {
            let end = (at + 1 + rng.below(256) as usize).min(bytes.len());
            let copy = bytes[at.min(end)..end].to_vec();
            let to = rng.below(len) as usize % (bytes.len() + 1);
            bytes.splice(to..to, copy);
            format!("bytes {at}..{end} duplicated at {to}")
        }
        _ if text => {
            // Replace the digit run around `at` (or insert) with a huge number.
            let huge = HUGE_TEXT[rng.below(HUGE_TEXT.len() as u32) as usize];
            let is_num = |b: u8| b.is_ascii_digit() || b == b'.' || b == b'e';
            let mut start = at.min(bytes.len());
            while start > 0 && is_num(bytes[start - 1]) {
                start -= 1;
            }
            let mut end = start;
            while end < bytes.len() && is_num(bytes[end]) {
                end += 1;
            }
            bytes.splice(start..end, huge.bytes());
            format!("number at {start} replaced by {huge}")
        }
        _ => {
            // A huge varint or length: all-ones bytes, or u32/u64 maxima in either byte order.
            let patterns: [&[u8]; 5] = [
                &[0xFF; 9],
                &[0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                &[0xFF, 0xFF, 0xFF, 0xFF],
                &[0x7F, 0xFF, 0xFF, 0xFF],
                &[0x00, 0xFF, 0xFF, 0xFF],
            ];
            let p = patterns[rng.below(5) as usize];
            let end = (at + p.len()).min(bytes.len());
            bytes.splice(at..end, p.iter().copied());
            format!("huge value {p:02x?} written at {at}")
        }
    }
}

/// Replaces the contents of `path` with `bytes` in place. Not `fs::write`: truncating a file to zero
/// and rewriting it makes ext4 flush it on close (its rename-and-truncate safety), which turned this
/// test's thousands of small rewrites into seconds of waiting on the disk.
fn overwrite(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
    f.set_len(bytes.len() as u64).unwrap();
}

/// A format under test: files (in a scratch copy) mutated one at a time, and how to read it.
struct Target {
    name: &'static str,
    /// What is read: a file or folder of the scratch copy.
    entry: PathBuf,
    /// Files a mutant may change, with their original bytes.
    files: Vec<(PathBuf, Vec<u8>)>,
    /// Text format: huge numbers replace tokens.
    text: bool,
    /// Rank files (indices into `files`) whose contents may be swapped.
    ranks: Vec<usize>,
    format: Format,
}

impl Target {
    /// The format of `format` read from the copy of `sample` (a file or folder) under `tag`, whose
    /// mutable files are those `pick` selects (relative names, rank files first, `ranks` of them).
    fn new(
        name: &'static str,
        sample: &str,
        format: Format,
        pick: &[&str],
        ranks: usize,
        text: bool,
    ) -> Target {
        let src = Path::new(sample);
        let dir = common::scratch("mutation", name);
        let entry = if src.is_dir() {
            common::copy_dir(src, &dir);
            dir.clone()
        } else {
            std::fs::create_dir_all(&dir).unwrap();
            let to = dir.join(src.file_name().unwrap());
            std::fs::copy(src, &to).unwrap();
            to
        };
        let files = pick
            .iter()
            .map(|p| {
                let path = if src.is_dir() {
                    dir.join(p)
                } else {
                    entry.clone()
                };
                let bytes = std::fs::read(&path).unwrap();
                (path, bytes)
            })
            .collect();
        Target {
            name,
            entry,
            files,
            text,
            ranks: (0..ranks).collect(),
            format,
        }
    }

    /// Runs `count` mutants; returns the failures (panics), described, and how many were refused
    /// with an error.
    fn run(&self, count: u64) -> (Vec<String>, u64) {
        let mut failures = Vec::new();
        let mut refused = 0;
        for i in 0..count {
            let seed = SEED ^ netreplay::rng::mix64(i ^ self.name.len() as u64);
            let mut rng = Rng::new(seed);
            let mut touched = Vec::new();
            let what = if self.ranks.len() >= 2 && rng.below(16) == 0 {
                let a = rng.below(self.ranks.len() as u32) as usize;
                let b = (a + 1) % self.ranks.len();
                let (fa, fb) = (&self.files[a], &self.files[b]);
                overwrite(&fa.0, &fb.1);
                overwrite(&fb.0, &fa.1);
                touched.extend([a, b]);
                format!("rank files {a} and {b} swapped")
            } else {
                let f = rng.below(self.files.len() as u32) as usize;
                let (path, original) = &self.files[f];
                let mut bytes = original.clone();
                let mut what = mutate(&mut rng, &mut bytes, self.text);
                if rng.below(4) == 0 {
                    what = format!("{what}, {}", mutate(&mut rng, &mut bytes, self.text));
                }
                overwrite(path, &bytes);
                touched.push(f);
                format!("{what} in {}", path.file_name().unwrap().to_string_lossy())
            };
            let label = format!("{} seed {seed:#x} (mutant {i}): {what}", self.name);
            set_label(&label);
            let detect = rng.below(2) == 0;
            let opts = ReadOptions {
                format: (!detect).then_some(self.format),
                ..ReadOptions::default()
            };
            let entry = self.entry.clone();
            let r = std::panic::catch_unwind(move || match trace::read_any(&entry, &opts) {
                Ok(p) => trace::check::check(&p).is_err(),
                Err(_) => true,
            });
            match r {
                Ok(error) => refused += u64::from(error),
                Err(_) => failures.push(label),
            }
            for f in touched {
                let (path, original) = &self.files[f];
                overwrite(path, original);
            }
            DONE.fetch_add(1, Ordering::Relaxed);
        }
        (failures, refused)
    }
}

/// Mutants per trace format: thousands each, the whole test about a minute on one core.
const PER_FORMAT: u64 = 5000;

fn targets() -> Vec<Target> {
    let native = "traces/bt-size1000-16.trc";
    let zst = common::scratch("mutation-src", "bt.nr.zst");
    trace::write(&trace::read(Path::new(native)).unwrap(), &zst).unwrap();
    let zst = zst.display().to_string();
    vec![
        Target::new("native", native, Format::NATIVE, &["."], 0, true),
        Target::new("native-zst", &zst, Format::NATIVE, &["."], 0, false),
        Target::new(
            "simgrid",
            "traces/simgrid/replay/actions_alltoallv.txt",
            Format::SIMGRID,
            &["."],
            0,
            true,
        ),
        Target::new(
            "fsin",
            "traces/fsin/trace-8n.trc",
            Format::FSIN,
            &["."],
            0,
            true,
        ),
        Target::new(
            "otf2",
            "traces/otf2/sst-elements-test_emberotf2",
            Format::OTF2,
            &[
                "traces/0.evt",
                "traces/1.evt",
                "traces/2.evt",
                "traces/3.evt",
                "traces.otf2",
                "traces.def",
                "traces/0.def",
            ],
            4,
            false,
        ),
        Target::new(
            "dumpi",
            "traces/dumpi/sst-dumpi-tests",
            Format::DUMPI,
            &[
                "testtrace-0000.bin",
                "testtrace-0001.bin",
                "testtrace-0002.bin",
                "testtrace-0003.bin",
                "testtrace.meta",
            ],
            4,
            false,
        ),
    ]
}

#[test]
fn mutated_traces_never_panic_or_allocate_without_bound() {
    watchdog();
    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    for t in targets() {
        let (failed, refused) = t.run(PER_FORMAT);
        eprintln!("{}: {PER_FORMAT} mutants, {refused} refused", t.name);
        failures.extend(failed);
    }
    eprintln!(
        "{PER_FORMAT} mutants per trace format in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "panics: {failures:#?}");
}

/// The trace cache: payload mutations with the checksum and length fixed up, so the decoder itself
/// (not only the checksum) meets them.
#[test]
fn mutated_trace_caches_never_panic() {
    watchdog();
    let program = trace::read(Path::new("traces/bt-size1000-16.trc")).unwrap();
    let good = cache::encode(&program, 7);
    const HEADER: usize = 40;
    let mut failures = Vec::new();
    for i in 0..PER_FORMAT {
        let seed = SEED ^ netreplay::rng::mix64(i ^ 0xCAC4E);
        let mut rng = Rng::new(seed);
        let mut payload = good[HEADER..].to_vec();
        let what = mutate(&mut rng, &mut payload, false);
        let mut bytes = good[..HEADER].to_vec();
        if rng.below(8) != 0 {
            let mut h = cache::Hasher::default();
            h.bytes(&payload);
            bytes[24..32].copy_from_slice(&h.finish().to_le_bytes());
            bytes[32..40].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        }
        bytes.extend_from_slice(&payload);
        let label = format!("cache seed {seed:#x} (mutant {i}): {what}");
        set_label(&label);
        let r = std::panic::catch_unwind(|| {
            if let Some(p) = cache::decode(&bytes, 7) {
                let _ = trace::check::check(&p);
            }
        });
        if r.is_err() {
            failures.push(label);
        }
        DONE.fetch_add(1, Ordering::Relaxed);
    }
    assert!(failures.is_empty(), "panics: {failures:#?}");
}

/// Spec strings of every kind and the TOML configs of `configs/`, mutated as text.
/// `text` with every trace cache location turned off: a config's checks open its traces, and a
/// mutated `cache=off` would otherwise write a cache into a directory named by the mutant.
fn uncached(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("cache=") {
        out.push_str(&rest[..i]);
        out.push_str("cache=off");
        rest = &rest[i + "cache=".len()..];
        let end = rest
            .find(|c: char| c == ',' || c == '"' || c == '\'' || c.is_whitespace())
            .unwrap_or(rest.len());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn uncached_turns_every_cache_location_off() {
    assert_eq!(
        uncached("a=\"trace:file=x,cache=o\u{fffd}ff\", cache=dir,k"),
        "a=\"trace:file=x,cache=off\", cache=off,k"
    );
    assert_eq!(uncached("no cache here"), "no cache here");
}

#[test]
fn mutated_specs_and_configs_never_panic() {
    use netreplay::campaign::CampaignConfig;
    use netreplay::load_latency::SweepConfig;
    use netreplay::run::RunConfig;
    watchdog();
    let specs = [
        "fat-tree:k=4,n=3",
        "thin-tree:k=4,k2=2,n=3",
        "torus:k=4,n=2,vcs=2",
        "bu:size=100,ranks=16",
        "trace:file=x.trc,format=trc,bcast=binomial,cache=off",
        "random:busy=0.5",
        "file:path=map.txt",
        "uniform",
        "hotspot:fraction=0.1,nodes=2",
        "ugal:bias=45",
        "seed004",
        "0.1:1:0.1",
        "16G",
    ];
    let mut configs: Vec<(String, Vec<u8>)> = std::fs::read_dir("configs")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    configs.sort();
    let mut failures = Vec::new();
    for i in 0..2 * PER_FORMAT {
        let seed = SEED ^ netreplay::rng::mix64(i ^ 0x5BEC);
        let mut rng = Rng::new(seed);
        let spec = rng.below(2) == 0;
        let (name, original) = if spec {
            let s = specs[rng.below(specs.len() as u32) as usize];
            (s.to_string(), s.as_bytes().to_vec())
        } else {
            configs[rng.below(configs.len() as u32) as usize].clone()
        };
        let mut bytes = original;
        let what = mutate(&mut rng, &mut bytes, true);
        let text = uncached(&String::from_utf8_lossy(&bytes));
        let label = format!("{name} seed {seed:#x} (mutant {i}): {what}");
        set_label(&label);
        let r = std::panic::catch_unwind(|| {
            if spec {
                for kind in ["topology", "workload", "placement", "traffic", "routing"] {
                    if let Ok(s) = netreplay::spec::Spec::parse(kind, &text) {
                        let again = netreplay::spec::Spec::parse(kind, &s.to_string())
                            .expect("a printed spec parses");
                        assert_eq!(again.to_string(), s.to_string());
                    }
                }
                let _ = netreplay::network::Routing::parse(&text);
                let _ = netreplay::traffic::build(&text);
                let _ = netreplay::placement::build(&text);
                let _ = netreplay::load_latency::parse_loads(&text);
                let _ = netreplay::network::memory::parse_size(&text);
            } else {
                if let Ok(c) = toml::from_str::<RunConfig>(&text) {
                    let _ = c.network.check_values();
                }
                if let Ok(c) = toml::from_str::<SweepConfig>(&text) {
                    let _ = c.network.check_values();
                    let _ = c.open_loop.validate();
                }
                if let Ok(c) = toml::from_str::<CampaignConfig>(&text) {
                    let _ = c.validate();
                    let _ = c.weights.validate(&c.cells());
                }
            }
        });
        if r.is_err() {
            failures.push(label);
        }
        DONE.fetch_add(1, Ordering::Relaxed);
    }
    assert!(failures.is_empty(), "panics: {failures:#?}");
}
