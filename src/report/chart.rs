//! What the campaign charts share: each candidate's style (a colour of a 20-colour qualitative
//! palette, then a second cue, bar hatching or marker shape, for candidates 21 on), the extent of
//! their text as [`super::svg`] lays it out, and short workload labels for the x axis.

use crate::campaign::analysis::Cell;
use std::fmt::Write as _;

/// Tableau 10 (in its order up to the eighth, as these charts always drew them), then ten more from
/// Tableau 20 and two dark tones, chosen so that no two are closer than 12 CIELAB units.
const PALETTE: [&str; 20] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f",
    "#ff9da7", "#bab0ac", "#a0cbe8", "#ffbe7d", "#8cd17d", "#499894", "#b6992d", "#d4a6c8",
    "#d37295", "#79706e", "#2f4b7c", "#a4262c",
];

/// Second cues: none, then three hatch angles for bars (degrees) and three marker shapes for points
/// (paths around 0,0: square, triangle, diamond). Styles repeat after 80 candidates.
const CUES: usize = 4;
const HATCH_ANGLES: [i32; CUES] = [0, 45, -45, 90];
const MARKERS: [&str; CUES] = [
    "",
    "M-4.5-4.5h9v9h-9z",
    "M0-6L5.5 4h-11z",
    "M0-6L6 0 0 6-6 0z",
];

/// How candidate `i` (in config order) is drawn in every chart and legend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Style {
    /// Fill colour.
    pub colour: &'static str,
    /// Second cue: 0 plain (solid bar, circle), else a hatch and outline, or a marker shape.
    pub cue: usize,
}

/// The style of candidate `i`: colours first, a second cue once the colours are used up.
pub fn style(i: usize) -> Style {
    Style {
        colour: PALETTE[i % PALETTE.len()],
        cue: (i / PALETTE.len()) % CUES,
    }
}

impl Style {
    /// The attributes of a bar (or its legend swatch): `fill` and, with a hatch, a dark outline.
    pub fn bar(&self) -> String {
        match self.cue {
            0 => format!("fill=\"{}\"", self.colour),
            _ => format!(
                "fill=\"url(#{})\" stroke=\"#222\" stroke-width=\"0.6\"",
                self.hatch_id()
            ),
        }
    }

    fn hatch_id(&self) -> String {
        format!("rt-h{}-{}", self.cue, self.colour.trim_start_matches('#'))
    }

    /// A point of the scatter at (`x`, `y`) with `inner` content (its tooltip): a circle, or the
    /// cue's marker shape from [`marker_defs`].
    pub fn marker(&self, x: f64, y: f64, inner: &str) -> String {
        let colour = self.colour;
        match self.cue {
            0 => format!(
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="5" fill="{colour}" fill-opacity="0.85">{inner}</circle>"#
            ),
            k => format!(
                r##"<use href="#pc-m{k}" x="{x:.1}" y="{y:.1}" fill="{colour}" fill-opacity="0.85">{inner}</use>"##
            ),
        }
    }
}

/// The `<defs>` the bars of `styles` need: one hatch pattern per hatched style (none if none is).
pub fn hatch_defs(styles: &[Style]) -> String {
    let mut t = String::new();
    let mut done = Vec::new();
    for s in styles.iter().filter(|s| s.cue > 0) {
        if done.contains(s) {
            continue;
        }
        done.push(*s);
        let _ = writeln!(
            t,
            r##"<pattern id="{}" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate({})"><rect width="4" height="4" fill="{}"/><rect width="1.6" height="4" fill="#fff" fill-opacity="0.75"/></pattern>"##,
            s.hatch_id(),
            HATCH_ANGLES[s.cue],
            s.colour
        );
    }
    wrap_defs(t)
}

/// The `<defs>` the points of `styles` need: the marker shapes other than the circle.
pub fn marker_defs(styles: &[Style]) -> String {
    let mut t = String::new();
    for (k, shape) in MARKERS.iter().enumerate().skip(1) {
        if styles.iter().any(|s| s.cue == k) {
            let _ = writeln!(t, r#"<path id="pc-m{k}" d="{shape}"/>"#);
        }
    }
    wrap_defs(t)
}

fn wrap_defs(t: String) -> String {
    if t.is_empty() {
        t
    } else {
        format!("<defs>\n{t}</defs>\n")
    }
}

/// The width of `text` in a sans-serif font of `size` px, estimated from the widths of DejaVu Sans's
/// and Arial's glyphs (the wider of the two, rounded up per class of characters), so that space
/// reserved for it is enough.
pub fn text_width(text: &str, size: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | ' ' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' => 0.33,
            'f' | 't' | 'r' | 'I' | '(' | ')' | '[' | ']' | '/' | '\\' | '-' => 0.42,
            '=' | '+' | '<' | '>' | '~' | '#' | '&' => 0.84,
            'm' | 'w' | 'M' | 'W' | '@' | '%' => 1.0,
            c if c.is_ascii_uppercase() => 0.78,
            c if c.is_ascii() => 0.65,
            _ => 1.0,
        })
        .sum();
    em * size
}

/// The x-axis label of each cell's workload, without its size: the workload as written, except a
/// trace (`trace:file=DIR/bt.S.16.txt,cache=off`), which is its file's stem and the options that
/// change the run (`bt.S.16`; `cache` does not), with as many of the file's directories as it takes
/// to tell two traces apart; two workloads that still read alike keep their whole spec.
pub fn workload_labels(cells: &[Cell]) -> Vec<String> {
    let mut distinct: Vec<&str> = cells.iter().map(|c| c.workload.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    // A workload's label with up to `d` directories (all its file has, if fewer).
    let at = |w: &str, d: usize| {
        (0..=d)
            .rev()
            .find_map(|d| trace_label(w, d))
            .unwrap_or_else(|| w.to_string())
    };
    let deepest = distinct
        .iter()
        .map(|w| (0..).take_while(|&d| trace_label(w, d).is_some()).count())
        .max()
        .unwrap_or(0);
    // Each takes the fewest directories that no other workload's label has at that depth.
    let mut labels: Vec<String> = distinct
        .iter()
        .map(|w| {
            (0..=deepest)
                .map(|d| (d, at(w, d)))
                .find(|(d, l)| distinct.iter().all(|v| v == w || at(v, *d) != *l))
                .map_or_else(|| w.to_string(), |(_, l)| l)
        })
        .collect();
    let taken = labels.clone();
    for (label, w) in labels.iter_mut().zip(&distinct) {
        if taken.iter().filter(|l| *l == label).count() > 1 {
            *label = w.to_string();
        }
    }
    cells
        .iter()
        .map(|c| {
            let i = distinct
                .binary_search(&c.workload.as_str())
                .expect("every cell's workload is listed");
            labels[i].clone()
        })
        .collect()
}

/// A trace workload's label with the last `dirs` directories of its file (None: not a trace, or a
/// path with fewer directories).
fn trace_label(workload: &str, dirs: usize) -> Option<String> {
    let spec = crate::spec::Spec::parse("workload", workload).ok()?;
    if spec.name != "trace" {
        return None;
    }
    let file = spec.params.iter().find(|(k, _)| k == "file")?.1.as_str();
    let mut parts: Vec<&str> = file.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let name = parts.pop()?;
    if dirs > parts.len() {
        return None;
    }
    // The stem: without a compression suffix, then without the format's extension.
    let name = [".zst", ".gz"]
        .iter()
        .find_map(|z| name.strip_suffix(z))
        .unwrap_or(name);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let mut label = parts[parts.len() - dirs..].join("/");
    if dirs > 0 {
        label.push('/');
    }
    label.push_str(if stem.is_empty() { name } else { stem });
    let options: Vec<String> = spec
        .params
        .iter()
        .filter(|(k, _)| k != "file" && k != "cache")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if !options.is_empty() {
        label = format!("{label} {}", options.join(","));
    }
    Some(label)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(workloads: &[&str]) -> Vec<Cell> {
        workloads
            .iter()
            .map(|w| Cell {
                workload: w.to_string(),
                size: None,
                weight: 1.0,
            })
            .collect()
    }

    #[test]
    fn traces_are_labelled_by_their_stem_and_told_apart() {
        let npb =
            |k: &str| format!("trace:file=traces/simgrid/npb3.3/{k}.S.16/{k}.S.16.txt,cache=off");
        let (bt, cg) = (npb("bt"), npb("cg"));
        let got = workload_labels(&cells(&["bu", &bt, &cg, &bt]));
        assert_eq!(got, ["bu", "bt.S.16", "cg.S.16", "bt.S.16"]);
        // Options that change the run stay; the same stem in two directories gets its directory.
        let got = workload_labels(&cells(&[
            "trace:file=a/x.trc.zst,compute=off",
            "trace:file=b/x.trc",
            "trace:file=/abs/c/x.trc",
        ]));
        assert_eq!(got, ["x compute=off", "b/x", "c/x"]);
        let got = workload_labels(&cells(&["trace:file=a/x.trc", "trace:file=b/a/x.trc"]));
        assert_eq!(got, ["a/x", "b/a/x"]);
        // Alike but for the cache: the whole specs.
        let got = workload_labels(&cells(&[
            "trace:file=x.trc",
            "trace:file=x.trc,cache=off",
            "trace:file",
        ]));
        assert_eq!(
            got,
            [
                "trace:file=x.trc",
                "trace:file=x.trc,cache=off",
                "trace:file"
            ]
        );
    }

    #[test]
    fn eighty_candidates_have_distinct_styles() {
        let styles: Vec<Style> = (0..4 * PALETTE.len()).map(style).collect();
        for (i, a) in styles.iter().enumerate() {
            assert!(!styles[..i].contains(a), "candidate {i}: {a:?}");
        }
        let mut colours = PALETTE.to_vec();
        colours.sort_unstable();
        colours.dedup();
        assert_eq!(colours.len(), PALETTE.len());
        assert_eq!(style(3).bar(), "fill=\"#76b7b2\"");
        assert!(style(20).bar().contains("url(#rt-h1-4e79a7)"));
        assert!(hatch_defs(&styles).contains("id=\"rt-h3-a4262c\""));
        assert_eq!(hatch_defs(&styles[..20]), "");
    }
}
