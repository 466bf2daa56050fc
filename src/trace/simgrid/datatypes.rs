//! SimGrid's datatype ids: the sizes of its predefined types, and the sizes a user gives for a
//! trace's derived types (`dtsize=ID:BYTES/ID:BYTES...`), which SimGrid's tracer writes with an id
//! of their own (-1) and no size.

/// Size in bytes of SimGrid 3.32's predefined datatype `id` (`smpi_datatype.cpp`, x86-64 sizes), if
/// replayable. 38..=49 are the Fortran types (REAL 4, REAL4 4, REAL8 8, REAL16 16, COMPLEX8 8,
/// COMPLEX16 16, COMPLEX32 16 as SimGrid defines it, INTEGER1 4 as SimGrid defines it, INTEGER2 2,
/// INTEGER4 4, INTEGER8 8, INTEGER16 16), 50..=54 LONG_DOUBLE_INT 32, CXX_BOOL 1, the C++ complex types
/// 8/16/32; 55 and 56 (UB, LB) have no size; 57 PACKED 1, 58 PTR 8, 59 COUNT 8.
pub(super) fn datatype_size(id: i64) -> Option<u64> {
    Some(match id {
        2 | 6 | 8 | 9 | 16 | 17 | 21 | 51 | 57 => 1,
        3 | 10 | 18 | 22 | 46 => 2,
        1 | 5 | 11 | 15 | 19 | 23 | 38 | 39 | 45 | 47 => 4,
        0 | 4 | 7 | 12 | 13 | 20 | 24 | 25 | 28 | 29 | 30 | 33 | 34 | 35 | 40 | 42 | 48 | 52
        | 58 | 59 => 8,
        14 | 26 | 31 | 32 | 36 | 37 | 41 | 43 | 44 | 49 | 53 => 16,
        27 | 50 | 54 => 32,
        55 | 56 => 0,
        _ => return None,
    })
}

/// The sizes of derived datatypes, by the id the trace writes for them (`dtsize=-1:24/-2:12`): at
/// most [`DerivedSizes::MAX`], kept inline so read options stay plain values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DerivedSizes {
    entries: [(i64, u64); DerivedSizes::MAX],
    len: usize,
}

impl DerivedSizes {
    /// The most derived datatypes one option names.
    pub const MAX: usize = 16;

    /// Parses `ID:BYTES` pairs separated by `/` (the spec grammar keeps `,` between keys); an id of
    /// a predefined type, a repeated id or a size past [`super::MAX_BYTES`] is refused.
    pub fn parse(text: &str) -> Result<DerivedSizes, String> {
        let mut out = DerivedSizes::default();
        for pair in text.split('/') {
            let (id, bytes) = pair
                .split_once(':')
                .ok_or_else(|| format!("`{pair}` is not ID:BYTES (e.g. -1:24)"))?;
            let id: i64 = id
                .trim()
                .parse()
                .map_err(|_| format!("`{id}` in `{pair}` is not a datatype id"))?;
            let bytes: u64 = bytes
                .trim()
                .parse()
                .ok()
                .filter(|&b| b <= super::MAX_BYTES)
                .ok_or_else(|| format!("`{bytes}` in `{pair}` is not a size in bytes"))?;
            if datatype_size(id).is_some() {
                return Err(format!(
                    "datatype id {id} is one of SimGrid's predefined types, whose size is known"
                ));
            }
            if out.get(id).is_some() {
                return Err(format!("datatype id {id} is given twice"));
            }
            if out.len == Self::MAX {
                return Err(format!("at most {} derived datatypes", Self::MAX));
            }
            out.entries[out.len] = (id, bytes);
            out.len += 1;
        }
        Ok(out)
    }

    /// The size given for derived datatype `id`.
    pub fn get(&self, id: i64) -> Option<u64> {
        self.entries[..self.len]
            .iter()
            .find(|e| e.0 == id)
            .map(|e| e.1)
    }

    /// True when no size is given.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_sizes_parse_and_refuse_predefined_and_repeated_ids() {
        let d = DerivedSizes::parse("-1:24/-2:12").unwrap();
        assert_eq!(
            (d.get(-1), d.get(-2), d.get(-3)),
            (Some(24), Some(12), None)
        );
        assert!(
            DerivedSizes::parse("6:1")
                .unwrap_err()
                .contains("predefined")
        );
        assert!(
            DerivedSizes::parse("-1:2/-1:3")
                .unwrap_err()
                .contains("twice")
        );
        assert!(DerivedSizes::parse("-1").is_err());
        assert!(DerivedSizes::parse("-1:x").is_err());
        assert!(DerivedSizes::default().is_empty());
    }
}
