//! The fixed parts of a DUMPI rank file (sst-dumpi `dumpi/common/io.c`): the leading magic, the index
//! at the end that locates every section, the header (format version, start time, host), the footer
//! (per-function call counts), the performance-counter labels and the datatype size table.
//!
//! ```text
//! 0        magic ff aa dd 44 55 4d 50 49
//! body     cpu and wall time offsets (u32 each), then the call records, then the id 293 (end of stream)
//! header   version (3 bytes), start time (u64), hostname, username (u16 length + bytes),
//!          mesh coordinates and mesh size (u32 count + u32 values)
//! footer   magic 00 00 00 00 f0 07 fe e7, then per function id 0..=290 the calls made (u32), then the
//!          calls made but not written (u32)
//! perflbl  counter count (u32) and their names;  addrlbl  function addresses;
//! sizelbl  datatype count (u32), then each datatype's size in bytes (u32), indexed by datatype id
//! end-64   index: magic, sizelbl, addrlbl, perflbl, header, body, footer, keyval (u64 each; formats
//!          before 0.6.6 lack the first offsets, which sst-dumpi detects by the magic's position)
//! ```

use super::functions::ALL_FUNCTIONS;
use super::input::Input;
use crate::error::Error;

/// The first eight bytes of every DUMPI file, and the first word of its index.
pub(crate) const MAGIC: u64 = 0xffaa_dd44_554d_5049;

/// The first word of the footer.
const FOOT_MAGIC: u64 = 0xf007_fee7;

/// Bytes of the full index at the end of a file.
const INDEX: u64 = 64;

/// What the fixed sections of one rank file say.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// Format version (major, minor, sub), from the header; 0.0.0 without one.
    pub(crate) version: [u8; 3],
    /// Host the rank ran on (header), for messages.
    pub(crate) hostname: String,
    /// Start of the body: the two time offsets, then the records.
    pub(crate) body: u64,
    /// Where the records end at the latest: the first section after the body.
    pub(crate) body_end: u64,
    /// Size in bytes of each datatype id; `None` when the file has no table (format before 0.6.6).
    pub(crate) type_sizes: Option<Vec<i32>>,
    /// Number of performance counters each record with counters carries (the label table's count).
    pub(crate) perf_counters: u32,
    /// Per function id: calls recorded (made minus ignored), from the footer; empty without one.
    pub(crate) recorded: Vec<u64>,
}

impl Layout {
    /// Whether the file's format is at least `major.minor.sub` (sst-dumpi's `dumpi_have_version`).
    pub(crate) fn at_least(&self, major: u8, minor: u8, sub: u8) -> bool {
        self.version >= [major, minor, sub]
    }

    /// Size in bytes of datatype `id`, for message sizes.
    pub(crate) fn type_size(&self, id: i64) -> Result<u64, String> {
        let Some(table) = &self.type_sizes else {
            return Err(format!(
                "the file has no datatype size table (DUMPI format before 0.6.6), so the size of \
                 datatype {id} is unknown"
            ));
        };
        match usize::try_from(id).ok().and_then(|i| table.get(i)) {
            Some(&s) if s >= 0 => Ok(s as u64),
            Some(&s) => Err(format!(
                "the datatype size table gives datatype {id} a negative size ({s})"
            )),
            None => Err(format!(
                "datatype {id} is not in the file's datatype size table (ids 0..{})",
                table.len()
            )),
        }
    }
}

/// Reads the magic, the index and the sections it points to, leaving `input` anywhere.
pub(crate) fn read_layout(input: &mut Input) -> Result<Layout, Error> {
    let len = input.len();
    if len < 8 {
        return Err(input.place.error(
            0,
            format!("not a DUMPI file: {len} bytes, shorter than the DUMPI magic"),
        ));
    }
    input.seek(0)?;
    if input.u64("the DUMPI magic")? != MAGIC {
        return Err(input.place.error(
            0,
            "not a DUMPI file: it does not start with the DUMPI magic ff aa dd 44 55 4d 50 49",
        ));
    }
    if len < 8 + INDEX {
        return Err(input.place.error(
            len,
            "truncated: the file ends before the index DUMPI writes at its end",
        ));
    }
    let at = len - INDEX;
    input.seek(at)?;
    let what = "the index at the end of the file";
    let (mut sizelbl, mut perflbl) = (0, 0);
    let mut m = input.u64(what)?;
    if m != MAGIC {
        m = input.u64(what)?;
    } else {
        sizelbl = input.u64(what)?;
    }
    if m != MAGIC {
        m = input.u64(what)?;
    } else {
        input.u64(what)?; // function address labels
    }
    if m != MAGIC {
        m = input.u64(what)?;
    } else {
        perflbl = input.u64(what)?;
    }
    if m != MAGIC {
        return Err(input.place.error(
            at,
            "truncated or corrupt: the index at the end of the file does not start with the DUMPI \
             magic (the trace was not closed by MPI_Finalize, or was cut)",
        ));
    }
    let header = input.u64(what)?;
    let body = input.u64(what)?;
    let footer = input.u64(what)?;
    let _keyval = input.u64(what)?;
    for (name, off) in [
        ("header", header),
        ("body", body),
        ("footer", footer),
        ("datatype size table", sizelbl),
        ("counter labels", perflbl),
    ] {
        if off > at {
            return Err(input.place.error(
                at,
                format!("corrupt index: the {name} offset {off} is past the index (byte {at})"),
            ));
        }
    }
    if body < 8 {
        return Err(input.place.error(
            at,
            format!("corrupt index: the body offset {body} is inside the magic"),
        ));
    }
    // The records end at the first section written after them (sst-dumpi stops at the footer).
    let body_end = [header, footer, sizelbl, perflbl]
        .into_iter()
        .filter(|&o| o > body)
        .min()
        .unwrap_or(at);

    let mut layout = Layout {
        version: [0; 3],
        hostname: String::new(),
        body,
        body_end,
        type_sizes: None,
        perf_counters: 0,
        recorded: Vec::new(),
    };
    if header > 0 {
        read_header(input, header, at, &mut layout)?;
    }
    if footer > 0 {
        layout.recorded = read_footer(input, footer, at)?;
    }
    if sizelbl > 0 {
        input.seek(sizelbl)?;
        input.set_limit(at);
        let n = input.u32("the datatype size table")?;
        input.check_room(u64::from(n), 4, "the datatype size table")?;
        let mut sizes = Vec::with_capacity(n as usize);
        for _ in 0..n {
            sizes.push(input.i32("the datatype size table")?);
        }
        layout.type_sizes = Some(sizes);
    }
    if perflbl > 0 {
        input.seek(perflbl)?;
        input.set_limit(at);
        layout.perf_counters = input.u32("the performance counter labels")?;
    }
    input.set_limit(len);
    Ok(layout)
}

fn read_header(input: &mut Input, header: u64, at: u64, layout: &mut Layout) -> Result<(), Error> {
    input.seek(header)?;
    input.set_limit(at);
    let what = "the header";
    for v in &mut layout.version {
        *v = input.u8(what)?;
    }
    let _start = input.u64(what)?;
    let n = input.u16(what)?;
    let host = input.bytes(n as usize, what)?;
    layout.hostname = String::from_utf8_lossy(&host).into_owned();
    Ok(())
}

fn read_footer(input: &mut Input, footer: u64, at: u64) -> Result<Vec<u64>, Error> {
    input.seek(footer)?;
    input.set_limit(at);
    let what = "the footer";
    if input.u64(what)? != FOOT_MAGIC {
        return Err(input.place.error(
            footer,
            "corrupt: the footer does not start with its magic 00 00 00 00 f0 07 fe e7",
        ));
    }
    let n = usize::from(ALL_FUNCTIONS) + 1;
    let mut called = Vec::with_capacity(n);
    for _ in 0..n {
        called.push(u64::from(input.u32(what)?));
    }
    let mut recorded = Vec::with_capacity(n);
    for c in called {
        recorded.push(c.saturating_sub(u64::from(input.u32(what)?)));
    }
    Ok(recorded)
}
