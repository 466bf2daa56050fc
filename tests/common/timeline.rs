//! The checks every replay timeline must pass (the trace-event rules netreplay promises), shared by
//! the timeline tests and the test that opens timelines in a third-party viewer.

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// What a validated timeline says about each rank track: (sum of its interval durations, its `end`
/// instant), in cycles, and how many collective slices it holds.
pub struct Checked {
    /// Per rank track (tid): (its intervals' cycles, its `end` instant).
    pub ranks: HashMap<u64, (u64, Option<u64>)>,
    /// Collective slices.
    pub collectives: usize,
    /// Cycles of the critical-path track (process 3).
    pub critical: u64,
    /// Slices (`B`/`E` pairs) in the file.
    pub slices: usize,
    /// Slices a viewer that drops zero-length slices and merges a slice with the next one on its
    /// track when it begins where the first ends, with the same name and arguments (speedscope's
    /// call tree), shows.
    pub merged_slices: usize,
    /// Send-to-receive arrows.
    pub flows: usize,
    /// The file's `otherData`.
    pub other: Value,
}

/// A timestamp in microseconds at 1 GHz as cycles, checked to be a whole number of them.
pub fn cycles(e: &Value) -> u64 {
    let us = e["ts"].as_f64().unwrap_or_else(|| panic!("ts in {e}"));
    let c = (us * 1000.0).round();
    assert!((us * 1000.0 - c).abs() < 1e-6, "not a whole cycle: {e}");
    c as u64
}

/// Checks the trace-event rules netreplay promises: every event has `ph`, `pid`, `tid`, `name` and
/// (except metadata) a numeric `ts`; `B`/`E` match per track, each `E` with its `B`'s name and
/// arguments; timestamps never go back on a track (a thread for slices and instants, a (pid, name)
/// counter for `C` events); each arrow has one start (`s`) and one end (`f`, bound to its enclosing
/// slice), each inside a slice open on its track, the end no earlier than the start.
pub fn validate(path: &Path) -> Checked {
    let text = std::fs::read_to_string(path).unwrap();
    let v: Value = serde_json::from_str(&text).expect("the timeline is JSON");
    assert_eq!(v["displayTimeUnit"], "ns");
    let events = v["traceEvents"].as_array().expect("traceEvents");
    assert!(events.len() > 10, "{}: too few events", path.display());
    let mut last: HashMap<String, u64> = HashMap::new();
    let mut open: HashMap<(u64, u64), Vec<&Value>> = HashMap::new();
    // The last slice closed on each track: (name, args, end), for the merge count.
    let mut closed: HashMap<(u64, u64), (String, Value, u64)> = HashMap::new();
    let mut ranks: HashMap<u64, (u64, Option<u64>)> = HashMap::new();
    let mut arrows: HashMap<u64, (Option<u64>, Option<u64>)> = HashMap::new();
    let (mut collectives, mut critical, mut slices, mut merged) = (0, 0, 0, 0);
    for e in events {
        let ph = e["ph"].as_str().expect("ph");
        let pid = e["pid"].as_u64().expect("pid");
        let tid = e["tid"].as_u64().expect("tid");
        let name = e["name"].as_str().expect("name").to_string();
        if ph == "M" {
            continue;
        }
        let ts = cycles(e);
        let track = if ph == "C" {
            format!("C {pid} {name}")
        } else {
            format!("{pid} {tid}")
        };
        let before = last.insert(track.clone(), ts).unwrap_or(0);
        assert!(ts >= before, "time goes back on track {track}: {e}");
        match ph {
            "B" => {
                slices += 1;
                if e["cat"] == "collective" {
                    collectives += 1;
                }
                let prev = closed.remove(&(pid, tid));
                let same =
                    |(n, a, end): (String, Value, u64)| n == name && a == e["args"] && end == ts;
                if prev.is_some_and(same) {
                    merged += 1;
                }
                open.entry((pid, tid)).or_default().push(e);
            }
            "E" => {
                let b = open
                    .entry((pid, tid))
                    .or_default()
                    .pop()
                    .unwrap_or_else(|| panic!("E without B on {track}: {e}"));
                assert_eq!(b["name"], e["name"], "E's name is its B's: {e}");
                assert_eq!(b["args"], e["args"], "E's args are its B's: {e}");
                let start = cycles(b);
                if start == ts {
                    merged += 1; // dropped
                }
                if pid == 3 {
                    critical += ts - start;
                } else if b["cat"] == "compute" || b["cat"] == "wait" {
                    ranks.entry(tid).or_default().0 += ts - start;
                }
                closed.insert((pid, tid), (name, e["args"].clone(), ts));
            }
            "s" | "f" => {
                let inside = open.get(&(pid, tid)).and_then(|s| s.last());
                assert!(inside.is_some(), "arrow end outside any slice: {e}");
                let id = e["id"].as_u64().expect("id");
                let ends = arrows.entry(id).or_default();
                if ph == "s" {
                    assert!(ends.0.replace(ts).is_none(), "two starts: {e}");
                } else {
                    assert_eq!(e["bp"], "e", "{e}");
                    assert!(ends.1.replace(ts).is_none(), "two ends: {e}");
                }
            }
            "i" if name == "end" => ranks.entry(tid).or_default().1 = Some(ts),
            "i" | "C" => {}
            other => panic!("unexpected phase {other}"),
        }
    }
    for ((pid, tid), stack) in open {
        assert!(stack.is_empty(), "unclosed B on {pid}/{tid}: {stack:?}");
    }
    for (id, ends) in &arrows {
        let (Some(s), Some(f)) = *ends else {
            panic!("arrow {id} has one end only: {ends:?}");
        };
        assert!(f >= s, "arrow {id} ends before it starts");
    }
    Checked {
        ranks,
        collectives,
        critical,
        slices,
        merged_slices: slices - merged,
        flows: arrows.len(),
        other: v["otherData"].clone(),
    }
}
