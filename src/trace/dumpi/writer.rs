//! Test-only writer of small DUMPI traces, laid out as sst-dumpi writes them (see [`super::header`] and
//! [`super::record`]), so tests can state exact timings, wildcards, request patterns and corruptions.
//! Arguments are written as given: each test follows the function's layout in [`super::functions`].

use super::functions::{ALL_FUNCTIONS, END_OF_STREAM, FINALIZE};
use super::header::MAGIC;
use super::record::RawStatus;
use std::path::{Path, PathBuf};

/// One argument value.
#[derive(Debug, Clone)]
pub(crate) enum Arg {
    /// A 32-bit `int`.
    I(i32),
    /// A 16-bit handle.
    H(u16),
    /// An 8-bit value.
    B(u8),
    /// An `int` array.
    Ints(Vec<i32>),
    /// A string.
    Str(&'static str),
    /// Statuses (written only when the writer's mask records them).
    St(Vec<RawStatus>),
}

/// A status with `source` and `tag`.
pub(crate) fn status(source: i32, tag: i32) -> RawStatus {
    RawStatus {
        bytes: 4,
        source,
        cancelled: 0,
        error: 0,
        tag,
    }
}

/// The sizes sst-dumpi's table gives the predefined datatypes on x86-64 (ids 0..=27), MPI_INT = 9,
/// MPI_DOUBLE = 14, MPI_BYTE = 5.
pub(crate) const TYPE_SIZES: [i32; 28] = [
    0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 0, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20,
];

/// One rank file under construction.
pub(crate) struct RankWriter {
    buf: Vec<u8>,
    /// Record mask: statuses 0x03, CPU 0x04, wall 0x08, thread 0x40, counters 0x80.
    pub(crate) mask: u8,
    /// Header version.
    pub(crate) version: [u8; 3],
    /// Number of performance counters in the label table.
    pub(crate) counters: u32,
    wall_base: u32,
    now: u64,
    counts: Vec<u32>,
}

impl RankWriter {
    /// A rank file whose clock starts at `start_ns` (the wall offset is its whole seconds).
    pub(crate) fn new(start_ns: u64) -> RankWriter {
        let mut buf = Vec::new();
        buf.extend_from_slice(&MAGIC.to_be_bytes());
        buf.extend_from_slice(&0u32.to_be_bytes());
        buf.extend_from_slice(&((start_ns / 1_000_000_000) as u32).to_be_bytes());
        RankWriter {
            buf,
            mask: 0x4f,
            version: [1, 1, 0],
            counters: 0,
            wall_base: (start_ns / 1_000_000_000) as u32,
            now: start_ns,
            counts: vec![0; usize::from(ALL_FUNCTIONS) + 1],
        }
    }

    /// Time passes outside MPI.
    pub(crate) fn compute(&mut self, ns: u64) {
        self.now += ns;
    }

    fn time(&mut self, ns: u64) {
        let sec = (ns / 1_000_000_000) as u32;
        self.buf
            .extend_from_slice(&(sec.wrapping_sub(self.wall_base) as u16).to_be_bytes());
        self.buf
            .extend_from_slice(&((ns % 1_000_000_000) as u32).to_be_bytes());
    }

    /// A record of function `id` lasting 1 µs, with `args`.
    pub(crate) fn call(&mut self, id: u16, args: &[Arg]) {
        self.raw_id(id);
        if let Some(c) = self.counts.get_mut(id as usize) {
            *c += 1;
        }
        self.buf.push(self.mask);
        if self.mask & 0x40 != 0 {
            self.buf.extend_from_slice(&0u16.to_be_bytes());
        }
        let (start, stop) = (self.now, self.now + 1_000);
        self.now = stop;
        for bit in [0x04, 0x08] {
            if self.mask & bit != 0 {
                self.time(start);
                self.time(stop);
            }
        }
        if self.mask & 0x80 != 0 {
            self.buf.push(self.counters as u8);
            for i in 0..u64::from(self.counters) * 2 {
                self.buf.extend_from_slice(&i.to_be_bytes());
            }
        }
        for a in args {
            match a {
                Arg::I(v) => self.buf.extend_from_slice(&v.to_be_bytes()),
                Arg::H(v) => self.buf.extend_from_slice(&v.to_be_bytes()),
                Arg::B(v) => self.buf.push(*v),
                Arg::Ints(v) => {
                    self.buf.extend_from_slice(&(v.len() as i32).to_be_bytes());
                    for x in v {
                        self.buf.extend_from_slice(&x.to_be_bytes());
                    }
                }
                Arg::Str(s) => {
                    self.buf.extend_from_slice(&(s.len() as i32).to_be_bytes());
                    self.buf.extend_from_slice(s.as_bytes());
                }
                Arg::St(v) => {
                    if self.mask & 0x03 != 0 {
                        self.buf.extend_from_slice(&(v.len() as i32).to_be_bytes());
                        for s in v {
                            self.buf.extend_from_slice(&s.bytes.to_be_bytes());
                            self.buf.extend_from_slice(&s.source.to_be_bytes());
                            self.buf.push(s.cancelled);
                            self.buf.push(s.error);
                            if self.version >= [0, 6, 3] {
                                self.buf.extend_from_slice(&s.tag.to_be_bytes());
                            }
                        }
                    }
                }
            }
        }
    }

    /// Just a function id (for corrupt streams).
    pub(crate) fn raw_id(&mut self, id: u16) {
        self.buf.extend_from_slice(&id.to_be_bytes());
    }

    /// MPI_Init with one argument, as every trace starts.
    pub(crate) fn init(&mut self) {
        let args = [Arg::I(1), Arg::Str("./app")];
        self.call(124, &args);
    }

    /// MPI_Finalize.
    pub(crate) fn finalize(&mut self) {
        self.call(FINALIZE, &[]);
    }

    /// The finished file with datatype sizes `sizes`.
    pub(crate) fn finish(mut self, sizes: &[i32]) -> Vec<u8> {
        let put64 = |b: &mut Vec<u8>, v: u64| b.extend_from_slice(&v.to_be_bytes());
        self.raw_id(END_OF_STREAM);
        let header = self.buf.len() as u64;
        self.buf.extend_from_slice(&self.version);
        put64(&mut self.buf, u64::from(self.wall_base));
        for s in ["testhost", "tester"] {
            self.buf.extend_from_slice(&(s.len() as u16).to_be_bytes());
            self.buf.extend_from_slice(s.as_bytes());
        }
        self.buf.extend_from_slice(&[0; 8]); // no mesh coordinates, no mesh size
        let footer = self.buf.len() as u64;
        put64(&mut self.buf, 0xf007_fee7);
        let total: u32 = self.counts.iter().sum();
        let n = self.counts.len();
        self.counts[n - 1] = total;
        for c in self.counts.iter().chain(std::iter::repeat_n(&0, n)) {
            self.buf.extend_from_slice(&c.to_be_bytes());
        }
        let perflbl = self.buf.len() as u64;
        self.buf.extend_from_slice(&self.counters.to_be_bytes());
        for i in 0..self.counters {
            let name = format!("C{i}");
            self.buf
                .extend_from_slice(&(name.len() as u16).to_be_bytes());
            self.buf.extend_from_slice(name.as_bytes());
        }
        let sizelbl = self.buf.len() as u64;
        self.buf
            .extend_from_slice(&(sizes.len() as u32).to_be_bytes());
        for s in sizes {
            self.buf.extend_from_slice(&s.to_be_bytes());
        }
        let addrlbl = self.buf.len() as u64;
        self.buf.extend_from_slice(&0u32.to_be_bytes());
        for v in [MAGIC, sizelbl, addrlbl, perflbl, header, 8, footer, 0] {
            put64(&mut self.buf, v);
        }
        self.buf
    }
}

/// Writes `PREFIX.meta` and one `PREFIX-NNNN.bin` per entry of `ranks` in `dir`; returns the meta path.
pub(crate) fn write_trace(dir: &Path, prefix: &str, ranks: &[Vec<u8>]) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let meta = dir.join(format!("{prefix}.meta"));
    let text = format!(
        "hostname=testhost\nnumprocs={}\nusername=tester\nstartime=0\nfileprefix={prefix}\n\
         version=1\nsubversion=1\nsubsubversion=0\n",
        ranks.len()
    );
    std::fs::write(&meta, text).unwrap();
    for (r, bytes) in ranks.iter().enumerate() {
        std::fs::write(dir.join(format!("{prefix}-{r:04}.bin")), bytes).unwrap();
    }
    meta
}

/// A fresh empty directory under the target's temporary space for test `name`.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("netreplay-dumpi-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
