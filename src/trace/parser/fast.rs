//! The fast path of the native reader: the common event lines (`send`, `recv`, `compute`, `isend`,
//! `irecv`, `wait`, `waitall` with plain fields, no comment, no communicator) decoded straight from the
//! input buffer. Anything else falls back to the general parser, which accepts exactly the same lines
//! with the same meaning and reports errors with their column.

use super::events::{MAX_REQ, RankState};
use crate::mpi::call::{Call, SendMode, Source, TagSel, WORLD};

/// Byte cursor of the fast path.
pub(super) struct Cursor<'a> {
    pub(super) line: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Cursor<'a> {
    fn blanks(&mut self) {
        while matches!(self.line.get(self.at), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// A whole field of 1 to 19 digits, followed by a blank or the end. Nineteen digits always fit
    /// in a u64, so the digits are summed unchecked and a longer field is refused by its length.
    fn number(&mut self) -> Option<u64> {
        self.blanks();
        let start = self.at;
        let mut v = 0u64;
        while let Some(&d) = self.line.get(self.at) {
            if !d.is_ascii_digit() {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
            self.at += 1;
        }
        let len = self.at - start;
        ((1..=19).contains(&len) && self.boundary()).then_some(v)
    }

    fn boundary(&self) -> bool {
        matches!(self.line.get(self.at), None | Some(b' ' | b'\t'))
    }

    fn word(&mut self) -> &'a [u8] {
        self.blanks();
        let start = self.at;
        while matches!(self.line.get(self.at), Some(c) if *c != b' ' && *c != b'\t') {
            self.at += 1;
        }
        &self.line[start..self.at]
    }

    /// Only blanks are left.
    fn end(&mut self) -> bool {
        self.blanks();
        self.at == self.line.len()
    }

    /// Numbers left on the line (up to 4), all valid.
    fn rest(&mut self) -> Option<([u64; 4], usize)> {
        let mut v = [0; 4];
        let mut k = 0;
        loop {
            if self.end() {
                return Some((v, k));
            }
            if k == 4 {
                return None;
            }
            v[k] = self.number()?;
            k += 1;
        }
    }
}

/// Posts request `req` of a non-blocking call with `tag` on `state`; `false` (nothing changed) when
/// the tag or handle is out of range or the handle is already outstanding.
fn post(state: &mut RankState, tag: u64, req: u64) -> bool {
    tag < 1 << 63
        && req <= MAX_REQ
        && !matches!(state.outstanding.insert(req as u32, false), Some(false))
}

/// Decodes one line on the fast path and hands its rank and call to `push`, or returns `None`
/// without changing anything (the general parser then reads the line). The call goes to `push` where
/// it is made rather than being returned: returned, it was copied whole out of the result after being
/// written field by field, and that copy stalled the processor on every line.
#[inline(always)]
pub(super) fn fast_event(
    line: &[u8],
    states: &mut [RankState],
    version: u32,
    push: impl FnOnce(u32, Call),
) -> Option<()> {
    if line.len() > super::MAX_LINE {
        return None;
    }
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut c = Cursor { line, at: 0 };
    let n = states.len() as u64;
    let r = c.number().filter(|&r| r < n)?;
    let peer = |p: u64| p < n;
    let tag_ok = |t: u64| t < 1 << 63;
    let word = c.word();
    let (v, k) = c.rest()?;
    let send = |dest: u64, bytes, tag, req: Option<u32>| Call::Send {
        comm: WORLD,
        dest: dest as u32,
        tag,
        bytes,
        mode: if req.is_some() {
            SendMode::Standard
        } else {
            SendMode::Detached
        },
        req,
    };
    let recv = |src: u64, tag, req| Call::Recv {
        comm: WORLD,
        source: Source::Rank(src as u32),
        tag: TagSel::Tag(tag),
        req,
        status: None,
    };
    let call = match (word, k) {
        (b"send", 2 | 3) if peer(v[0]) && (k == 2 || tag_ok(v[2])) => {
            send(v[0], v[1], if k == 3 { v[2] } else { 0 }, None)
        }
        (b"recv", 1 | 2) if peer(v[0]) && (k == 1 || tag_ok(v[1])) => {
            recv(v[0], if k == 2 { v[1] } else { 0 }, None)
        }
        (b"compute", 1) => Call::Compute { cycles: v[0] },
        _ if version < 2 => return None,
        (b"isend", 3 | 4) if peer(v[0]) => {
            let (tag, req) = if k == 4 { (v[2], v[3]) } else { (0, v[2]) };
            if !post(&mut states[r as usize], tag, req) {
                return None;
            }
            send(v[0], v[1], tag, Some(req as u32))
        }
        (b"irecv", 2 | 3) if peer(v[0]) => {
            let (tag, req) = if k == 3 { (v[1], v[2]) } else { (0, v[1]) };
            if !post(&mut states[r as usize], tag, req) {
                return None;
            }
            recv(v[0], tag, Some(req as u32))
        }
        (b"wait", 1) => {
            if v[0] > MAX_REQ || states[r as usize].outstanding.remove(v[0] as u32).is_none() {
                return None;
            }
            Call::Wait {
                req: v[0] as u32,
                status: None,
            }
        }
        (b"waitall", 0) => {
            states[r as usize].outstanding.clear();
            Call::WaitAll { reqs: None }
        }
        _ => return None,
    };
    push(r as u32, call);
    Some(())
}
