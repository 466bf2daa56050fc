//! A minimal OTF2 writer for tests: archives with exactly the records an edge case needs, in either
//! byte order and with any chunk size, encoded as OTF2 2.x/3.x writes them (`OTF2_Buffer.h`).

use super::buffer::{ATTRIBUTE_LIST, BIG_ENDIAN, CHUNK_HEADER, LITTLE_ENDIAN, TIMESTAMP};
use std::path::{Path, PathBuf};

/// Attribute bytes of one record.
#[derive(Debug, Clone)]
pub(crate) struct Attrs {
    big: bool,
    /// The encoded bytes.
    pub bytes: Vec<u8>,
}

impl Attrs {
    /// Empty attributes in the given byte order.
    pub fn new(big: bool) -> Attrs {
        Attrs {
            big,
            bytes: Vec::new(),
        }
    }

    fn int(&mut self, v: u64, n: usize) {
        let le = v.to_le_bytes();
        if self.big {
            self.bytes.extend(le[..n].iter().rev());
        } else {
            self.bytes.extend(&le[..n]);
        }
    }

    /// One byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.bytes.push(v);
        self
    }

    /// A full 8-byte integer.
    pub fn full(&mut self, v: u64) -> &mut Self {
        self.int(v, 8);
        self
    }

    /// A full 4-byte integer.
    pub fn full32(&mut self, v: u32) -> &mut Self {
        self.int(u64::from(v), 4);
        self
    }

    fn compressed(&mut self, v: u64, max: u64) -> &mut Self {
        if v == 0 || v == max {
            self.bytes.push(if v == 0 { 0 } else { 0xff });
        } else {
            let n = 8 - (v.leading_zeros() / 8) as usize;
            self.bytes.push(n as u8);
            self.int(v, n);
        }
        self
    }

    /// A compressed 32-bit integer.
    pub fn u32c(&mut self, v: u32) -> &mut Self {
        self.compressed(u64::from(v), u64::from(u32::MAX))
    }

    /// A compressed 64-bit integer.
    pub fn u64c(&mut self, v: u64) -> &mut Self {
        self.compressed(v, u64::MAX)
    }

    /// A NUL-terminated string.
    pub fn string(&mut self, s: &str) -> &mut Self {
        self.bytes.extend(s.as_bytes());
        self.bytes.push(0);
        self
    }
}

/// A chunked file being written.
#[derive(Debug)]
pub(crate) struct ChunkWriter {
    big: bool,
    chunk: usize,
    events: bool,
    out: Vec<u8>,
    cur: Vec<u8>,
    first: u64,
    count: u64,
    time: Option<u64>,
}

impl ChunkWriter {
    /// A file of `chunk`-byte chunks; `events` for event files (counted events, timestamps).
    pub fn new(chunk: u64, big: bool, events: bool) -> ChunkWriter {
        let mut w = ChunkWriter {
            big,
            chunk: chunk as usize,
            events,
            out: Vec::new(),
            cur: Vec::new(),
            first: 1,
            count: 0,
            time: None,
        };
        w.header();
        w
    }

    fn header(&mut self) {
        let mut a = Attrs::new(self.big);
        a.u8(CHUNK_HEADER)
            .u8(if self.big { BIG_ENDIAN } else { LITTLE_ENDIAN })
            .full(self.first)
            .full(0);
        self.cur = a.bytes;
        self.time = None;
    }

    /// Closes the current chunk: its last event number, then padding.
    fn close_chunk(&mut self) {
        let mut last = Attrs::new(self.big);
        last.full(self.first + self.count - 1);
        self.cur[10..18].copy_from_slice(&last.bytes);
        self.cur.resize(self.chunk, 0);
        self.out.append(&mut self.cur);
        self.first += self.count;
        self.count = 0;
        self.header();
    }

    /// Appends `bytes` (a whole record), opening a new chunk if they do not fit in this one with the
    /// end-of-chunk byte after them.
    fn put(&mut self, time: Option<u64>, bytes: &[u8]) {
        let stamp = |w: &Self| match time {
            Some(t) if w.time != Some(t) => 9,
            _ => 0,
        };
        if self.cur.len() + stamp(self) + bytes.len() >= self.chunk {
            self.close_chunk();
        }
        assert!(
            self.cur.len() + stamp(self) + bytes.len() < self.chunk,
            "record of {} bytes does not fit in a chunk of {}",
            bytes.len(),
            self.chunk
        );
        if let Some(t) = time
            && self.time != Some(t)
        {
            let mut a = Attrs::new(self.big);
            a.u8(TIMESTAMP).full(t);
            self.cur.extend(&a.bytes);
            self.time = Some(t);
        }
        self.cur.extend(bytes);
        self.count += u64::from(self.events);
    }

    /// A length-prefixed record.
    pub fn record(&mut self, time: Option<u64>, kind: u8, attrs: &Attrs) {
        let mut b = vec![kind];
        let n = attrs.bytes.len();
        if n < 255 {
            b.push(n as u8);
        } else {
            let mut a = Attrs::new(self.big);
            a.u8(0xff).full(n as u64);
            b.extend(a.bytes);
        }
        b.extend(&attrs.bytes);
        self.put(time, &b);
    }

    /// A singleton record (one compressed attribute, no length).
    pub fn singleton(&mut self, time: u64, kind: u8, attr: &Attrs) {
        let mut b = vec![kind];
        b.extend(&attr.bytes);
        self.put(Some(time), &b);
    }

    /// An attribute list before the next event (skipped by readers that do not use it).
    pub fn attribute_list(&mut self, attrs: &Attrs) {
        let mut b = vec![ATTRIBUTE_LIST, attrs.bytes.len() as u8];
        b.extend(&attrs.bytes);
        self.count -= u64::from(self.events);
        self.put(None, &b);
    }

    /// The file: chunks, the last one cut after the end-of-file markers.
    pub fn finish(mut self) -> Vec<u8> {
        if self.cur.len() + 2 >= self.chunk {
            self.close_chunk();
        }
        self.cur.extend([2, 1]);
        let mut last = Attrs::new(self.big);
        last.full(self.first + self.count.max(1) - 1);
        self.cur[10..18].copy_from_slice(&last.bytes);
        self.out.append(&mut self.cur);
        self.out
    }
}

/// One event of a test trace.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ev {
    Enter(&'static str),
    Leave(&'static str),
    /// An Enter of region id `n`, defined or not.
    EnterId(u32),
    Send {
        to: u32,
        comm: u32,
        tag: u32,
        len: u64,
    },
    Isend {
        to: u32,
        comm: u32,
        tag: u32,
        len: u64,
        req: u64,
    },
    IsendComplete(u64),
    IrecvRequest(u64),
    Recv {
        from: u32,
        comm: u32,
        tag: u32,
        len: u64,
    },
    Irecv {
        from: u32,
        comm: u32,
        tag: u32,
        len: u64,
        req: u64,
    },
    Test(u64),
    Cancelled(u64),
    CollBegin,
    CollEnd {
        op: u8,
        comm: u32,
        root: u32,
        sent: u64,
        recvd: u64,
    },
    Measurement(bool),
    Flush(u64),
    /// Any record (a type this reader does not know), with its attribute bytes.
    Raw(u8, Vec<u8>),
    /// An attribute list with these bytes.
    AttrList(Vec<u8>),
}

/// An extra communicator (the world one, id 0, is always there).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CommSpec {
    /// A COMM_GROUP of world ranks; `global` sets OTF2_GROUP_FLAG_GLOBAL_MEMBERS.
    Group { members: Vec<u32>, global: bool },
    /// A COMM_SELF group: one communicator per rank.
    SelfGroup,
}

/// A test archive.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    pub ranks: u32,
    pub ticks_per_second: u64,
    /// Communicators 1, 2, ... (id 0 is MPI_COMM_WORLD).
    pub comms: Vec<CommSpec>,
    /// (timestamp, event) per rank.
    pub events: Vec<Vec<(u64, Ev)>>,
    pub big: bool,
    pub event_chunk: u64,
    pub def_chunk: u64,
    /// Dense local -> global communicator map per rank (written in its local definitions).
    pub comm_maps: Vec<Option<Vec<u64>>>,
    /// Location of rank r: `location_base + r`.
    pub location_base: u64,
    pub version: (u8, u8, u8),
    /// Write the ClockProperties definition.
    pub clock: bool,
}

impl Spec {
    /// `ranks` ranks, 1e9 ticks per second, little endian, 4 KiB chunks, OTF2 3.0.3.
    pub fn new(ranks: u32) -> Spec {
        Spec {
            ranks,
            ticks_per_second: 1_000_000_000,
            comms: Vec::new(),
            events: vec![Vec::new(); ranks as usize],
            big: false,
            event_chunk: 4096,
            def_chunk: 4096,
            comm_maps: vec![None; ranks as usize],
            location_base: 0,
            version: (3, 0, 3),
            clock: true,
        }
    }

    /// Appends `ev` at `time` to rank `rank`.
    pub fn at(&mut self, rank: u32, time: u64, ev: Ev) -> &mut Self {
        self.events[rank as usize].push((time, ev));
        self
    }

    /// A call of MPI region `name` at `t0..t1` on `rank` holding the records `evs` (at `t0`).
    pub fn call(
        &mut self,
        rank: u32,
        name: &'static str,
        t0: u64,
        t1: u64,
        evs: Vec<Ev>,
    ) -> &mut Self {
        self.at(rank, t0, Ev::Enter(name));
        for e in evs {
            self.at(rank, t0, e);
        }
        self.at(rank, t1, Ev::Leave(name))
    }

    fn regions(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        for (_, e) in self.events.iter().flatten() {
            if let Ev::Enter(n) | Ev::Leave(n) = e
                && !names.contains(n)
            {
                names.push(*n);
            }
        }
        names
    }

    fn anchor(&self) -> Vec<u8> {
        let mut a = Attrs::new(self.big);
        a.u8(CHUNK_HEADER)
            .u8(if self.big { BIG_ENDIAN } else { LITTLE_ENDIAN })
            .string("OTF2")
            .u8(3)
            .u8(2)
            .u8(self.version.0)
            .u8(self.version.1)
            .u8(self.version.2)
            .full(self.event_chunk)
            .full(self.def_chunk)
            .u8(1)
            .u8(1)
            .full(u64::from(self.ranks))
            .full(0)
            .string("")
            .string("netreplay test writer")
            .string("")
            .full32(0)
            .full(0x1234)
            .full32(0)
            .full32(0)
            .u8(2);
        a.bytes
    }

    fn global_defs(&self) -> Vec<u8> {
        let mut w = ChunkWriter::new(self.def_chunk, self.big, false);
        let rec = |w: &mut ChunkWriter, kind: u8, f: &dyn Fn(&mut Attrs)| {
            let mut a = Attrs::new(self.big);
            f(&mut a);
            w.record(None, kind, &a);
        };
        if self.clock {
            rec(&mut w, 5, &|a| {
                a.u64c(self.ticks_per_second)
                    .u64c(1000)
                    .u64c(1 << 40)
                    .u64c(u64::MAX);
            });
        }
        let regions = self.regions();
        let mut strings = vec!["", "MPI_COMM_WORLD", "rank"];
        strings.extend(&regions);
        for (i, s) in strings.iter().enumerate() {
            rec(&mut w, 10, &|a| {
                a.u32c(i as u32).string(s);
            });
        }
        // A record this reader skips: a system tree node.
        rec(&mut w, 12, &|a| {
            a.u32c(0).u32c(0).u32c(0).u32c(u32::MAX);
        });
        for r in 0..self.ranks {
            rec(&mut w, 14, &|a| {
                a.u64c(self.location_base + u64::from(r))
                    .u32c(2)
                    .u8(1)
                    .u64c(self.events[r as usize].len() as u64)
                    .u32c(r);
            });
        }
        for (i, name) in regions.iter().enumerate() {
            let mpi = name.starts_with("MPI_");
            rec(&mut w, 15, &|a| {
                a.u32c(i as u32)
                    .u32c(3 + i as u32)
                    .u32c(0)
                    .u8(0)
                    .u32c(0)
                    .u32c(0)
                    .u32c(0)
                    .u32c(3 + i as u32)
                    .u8(if mpi { 13 } else { 1 })
                    .u8(if mpi { 4 } else { 1 })
                    .u32c(0);
            });
        }
        // Group 0: MPI locations; 1: world; 2: COMM_SELF; 3..: extra communicators.
        let group = |w: &mut ChunkWriter, id: u32, kind: u8, flags: u32, members: &[u64]| {
            rec(w, 18, &|a| {
                a.u32c(id).u32c(0).u8(0).u32c(members.len() as u32);
                for &m in members {
                    a.u64c(m);
                }
                a.u8(kind).u8(4).u32c(flags);
            });
        };
        let locations: Vec<u64> = (0..self.ranks)
            .map(|r| self.location_base + u64::from(r))
            .collect();
        group(&mut w, 0, 4, 0, &locations);
        let all: Vec<u64> = (0..u64::from(self.ranks)).collect();
        group(&mut w, 1, 5, 0, &all);
        group(&mut w, 2, 6, 0, &[]);
        for (i, c) in self.comms.iter().enumerate() {
            if let CommSpec::Group { members, global } = c {
                let m: Vec<u64> = members.iter().map(|&r| u64::from(r)).collect();
                group(&mut w, 3 + i as u32, 5, u32::from(*global), &m);
            }
        }
        let comm = |w: &mut ChunkWriter, id: u32, name: u32, group: u32, parent: u32| {
            rec(w, 22, &|a| {
                a.u32c(id).u32c(name).u32c(group).u32c(parent).u32c(0);
            });
        };
        comm(&mut w, 0, 1, 1, u32::MAX);
        for (i, c) in self.comms.iter().enumerate() {
            let group = match c {
                CommSpec::Group { .. } => 3 + i as u32,
                CommSpec::SelfGroup => 2,
            };
            comm(&mut w, 1 + i as u32, 0, group, 0);
        }
        w.finish()
    }

    fn local_defs(&self, rank: u32) -> Vec<u8> {
        let mut w = ChunkWriter::new(self.def_chunk, self.big, false);
        if let Some(map) = &self.comm_maps[rank as usize] {
            let mut a = Attrs::new(self.big);
            a.u8(6).u64c(map.len() as u64).u8(0);
            for &g in map {
                a.u64c(g);
            }
            w.record(None, 5, &a);
        }
        let mut a = Attrs::new(self.big);
        a.full(5).u64c(7).full(0);
        w.record(None, 6, &a);
        w.finish()
    }

    fn events(&self, rank: u32) -> Vec<u8> {
        let regions = self.regions();
        let region = |n: &str| regions.iter().position(|r| *r == n).unwrap() as u32;
        let mut w = ChunkWriter::new(self.event_chunk, self.big, true);
        for (t, e) in &self.events[rank as usize] {
            let t = *t;
            let mut a = Attrs::new(self.big);
            let kind = match e {
                Ev::Enter(n) | Ev::Leave(n) => {
                    a.u32c(region(n));
                    let k = if matches!(e, Ev::Enter(_)) { 12 } else { 13 };
                    w.singleton(t, k, &a);
                    continue;
                }
                Ev::EnterId(id) => {
                    a.u32c(*id);
                    w.singleton(t, 12, &a);
                    continue;
                }
                Ev::IsendComplete(r) | Ev::IrecvRequest(r) | Ev::Test(r) | Ev::Cancelled(r) => {
                    a.u64c(*r);
                    let k = match e {
                        Ev::IsendComplete(_) => 16,
                        Ev::IrecvRequest(_) => 17,
                        Ev::Test(_) => 20,
                        _ => 21,
                    };
                    w.singleton(t, k, &a);
                    continue;
                }
                Ev::Send { to, comm, tag, len } => {
                    a.u32c(*to).u32c(*comm).u32c(*tag).u64c(*len);
                    14
                }
                Ev::Isend {
                    to,
                    comm,
                    tag,
                    len,
                    req,
                } => {
                    a.u32c(*to).u32c(*comm).u32c(*tag).u64c(*len).u64c(*req);
                    15
                }
                Ev::Recv {
                    from,
                    comm,
                    tag,
                    len,
                } => {
                    a.u32c(*from).u32c(*comm).u32c(*tag).u64c(*len);
                    18
                }
                Ev::Irecv {
                    from,
                    comm,
                    tag,
                    len,
                    req,
                } => {
                    a.u32c(*from).u32c(*comm).u32c(*tag).u64c(*len).u64c(*req);
                    19
                }
                Ev::CollBegin => 22,
                Ev::CollEnd {
                    op,
                    comm,
                    root,
                    sent,
                    recvd,
                } => {
                    a.u8(*op).u32c(*comm).u32c(*root).u64c(*sent).u64c(*recvd);
                    23
                }
                Ev::Measurement(on) => {
                    a.u8(if *on { 1 } else { 2 });
                    11
                }
                Ev::Flush(stop) => {
                    a.full(*stop);
                    10
                }
                Ev::Raw(k, bytes) => {
                    a.bytes.extend(bytes);
                    *k
                }
                Ev::AttrList(bytes) => {
                    a.bytes.extend(bytes);
                    w.attribute_list(&a);
                    continue;
                }
            };
            w.record(Some(t), kind, &a);
        }
        w.finish()
    }

    /// Writes the archive under `dir` (created); returns the anchor file's path.
    pub fn write(&self, dir: &Path) -> PathBuf {
        std::fs::create_dir_all(dir.join("traces")).unwrap();
        let anchor = dir.join("traces.otf2");
        std::fs::write(&anchor, self.anchor()).unwrap();
        std::fs::write(dir.join("traces.def"), self.global_defs()).unwrap();
        for r in 0..self.ranks {
            let loc = self.location_base + u64::from(r);
            let base = dir.join("traces").join(loc.to_string());
            std::fs::write(base.with_extension("evt"), self.events(r)).unwrap();
            std::fs::write(base.with_extension("def"), self.local_defs(r)).unwrap();
        }
        anchor
    }
}

/// A fresh empty folder for a test, under the target folder's temporary space.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("netreplay-otf2-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
