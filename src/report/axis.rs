//! Chart axes and numbers as a reader expects them: tick values at steps of 1, 2 or 5 times a power of
//! ten, numbers with thousands separators, message sizes with their unit. Every chart of the reports
//! takes its ticks from here, so that no axis shows 331/662/993.

use std::fmt::Write as _;

/// The ticks of one axis: `values` from the first at or below the data's low end to the first at or
/// above its high end, `step` apart.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticks {
    /// Tick values, increasing.
    pub values: Vec<f64>,
    /// Distance between two ticks: 1, 2 or 5 times a power of ten.
    pub step: f64,
}

impl Ticks {
    /// The axis's low end (the first tick).
    pub fn low(&self) -> f64 {
        self.values[0]
    }

    /// The axis's high end (the last tick).
    pub fn high(&self) -> f64 {
        self.values[self.values.len() - 1]
    }

    /// A tick's label: as many decimals as the step needs, thousands separated.
    pub fn label(&self, v: f64) -> String {
        number(v, decimals(self.step))
    }

    /// A tick of an axis of fractions, as a percentage with the decimals the step needs in percent
    /// (`0.5%`, `20%`).
    pub fn percent(&self, u: f64) -> String {
        format!("{}%", number(100.0 * u, decimals(100.0 * self.step)))
    }
}

/// Decimals a label needs to tell ticks `step` apart: none for whole steps, one for 0.1-0.5, ...
fn decimals(step: f64) -> usize {
    if step >= 1.0 {
        0
    } else {
        // The small margin keeps an exact 0.1 at one decimal despite log10's rounding.
        (-step.log10() - 1e-9).ceil().max(0.0) as usize
    }
}

/// Ticks covering `lo..=hi` in about `intervals` steps (at most twice as many), each step 1, 2 or 5
/// times a power of ten. An empty or reversed range gets the ticks of `lo..=lo + 1`.
pub fn ticks(lo: f64, hi: f64, intervals: usize) -> Ticks {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() && hi > lo {
        (lo, hi)
    } else {
        let lo = if lo.is_finite() { lo } else { 0.0 };
        (lo, lo + 1.0)
    };
    let raw = (hi - lo) / intervals.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = match raw / magnitude {
        n if n <= 1.0 => 1.0,
        n if n <= 2.0 => 2.0,
        n if n <= 5.0 => 5.0,
        _ => 10.0,
    } * magnitude;
    // The margins keep a bound that is a multiple of the step up to rounding (0.6 / 0.2 =
    // 2.9999999999999996) from gaining a tick.
    let first = (lo / step + 1e-9).floor();
    let last = (hi / step - 1e-9).ceil();
    let values = (0..=(last - first) as i64)
        .map(|k| (first + k as f64) * step)
        .collect();
    Ticks { values, step }
}

/// `x` with `decimals` decimals and its integer part in groups of three (`2,244,608`, `1,234.5`).
pub fn number(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    // `-0` reads as a glitch on an axis.
    let text = if text
        .trim_start_matches('-')
        .bytes()
        .all(|b| b == b'0' || b == b'.')
    {
        text.trim_start_matches('-').to_string()
    } else {
        text
    };
    group_digits(&text)
}

/// `text` with every run of four or more digits that is a number's integer part written in groups of
/// three. Runs after a decimal point or inside a word or spec (`k=1000`, `x1000`, `8:4,4`) are left as
/// they are, so formatted table cells can be passed through whole.
pub fn group_digits(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 3);
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_digit() {
            out.push(c);
            prev = Some(c);
            continue;
        }
        let mut run = String::from(c);
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            run.push(d);
            chars.next();
        }
        let starts_number = prev.is_none_or(|p| !(p.is_alphanumeric() || ".=:_,".contains(p)));
        if starts_number && run.len() > 3 {
            for (i, d) in run.chars().enumerate() {
                if i > 0 && (run.len() - i) % 3 == 0 {
                    out.push(',');
                }
                out.push(d);
            }
        } else {
            out.push_str(&run);
        }
        prev = run.chars().last();
    }
    out
}

/// A message size in bytes with its unit, as seed 004 writes sizes (1 KB = 1000 bytes): `10 B`,
/// `1 KB`, `100 KB`, `2 MB`; a size that is not a whole number of KB stays in bytes (`1,500 B`).
pub fn bytes(size: u64) -> String {
    let mut t = String::new();
    let _ = match size {
        s if s >= 1_000_000 && s % 1_000_000 == 0 => {
            write!(t, "{} MB", number((s / 1_000_000) as f64, 0))
        }
        s if s >= 1000 && s % 1000 == 0 => write!(t, "{} KB", s / 1000),
        s => write!(t, "{} B", number(s as f64, 0)),
    };
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(lo: f64, hi: f64, n: usize) -> Vec<String> {
        let t = ticks(lo, hi, n);
        t.values.iter().map(|&v| t.label(v)).collect()
    }

    #[test]
    fn ticks_step_by_one_two_or_five() {
        // A bar chart's 993-cycle maximum: not 331/662/993 but 200s up to 1,000.
        assert_eq!(
            labels(0.0, 993.0, 5),
            ["0", "200", "400", "600", "800", "1,000"]
        );
        assert_eq!(
            labels(0.0, 2_244_608.0, 5),
            [
                "0",
                "500,000",
                "1,000,000",
                "1,500,000",
                "2,000,000",
                "2,500,000"
            ]
        );
        assert_eq!(labels(0.0, 1.0, 4), ["0.0", "0.5", "1.0"]);
        assert_eq!(labels(0.0, 0.023, 4), ["0.00", "0.01", "0.02", "0.03"]);
        assert_eq!(labels(0.0, 0.58, 5), ["0.0", "0.2", "0.4", "0.6"]);
        assert_eq!(labels(0.0, 118.5, 5), ["0", "50", "100", "150"]);
        assert_eq!(labels(0.0, 60.3, 5), ["0", "20", "40", "60", "80"]);
        assert_eq!(labels(0.3, 0.7, 4), ["0.3", "0.4", "0.5", "0.6", "0.7"]);
        let t = ticks(0.0, 0.023, 4);
        assert_eq!(
            (t.percent(0.01), t.percent(t.high())),
            ("1%".into(), "3%".into())
        );
        assert_eq!(ticks(0.0, 0.0123, 5).percent(0.005), "0.5%");
        let t = ticks(0.0, 12_345.0, 5);
        assert_eq!((t.step, t.low(), t.high()), (5000.0, 0.0, 15_000.0));
    }

    #[test]
    fn degenerate_ranges_still_get_ticks() {
        assert_eq!(
            labels(0.0, 0.0, 5),
            ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(labels(5.0, 2.0, 5).first().map(String::as_str), Some("5.0"));
        assert_eq!(labels(f64::NAN, f64::INFINITY, 5).len(), 6);
    }

    #[test]
    fn numbers_get_thousands_separators() {
        assert_eq!(number(2_244_608.0, 0), "2,244,608");
        assert_eq!(number(1234.5678, 2), "1,234.57");
        assert_eq!(number(999.0, 0), "999");
        assert_eq!(number(-1_000_000.0, 0), "-1,000,000");
        assert_eq!(number(-0.0001, 2), "0.00");
        assert_eq!(group_digits("89644 / 1000000"), "89,644 / 1,000,000");
        assert_eq!(
            group_digits("0.12345 and 12345.6789"),
            "0.12345 and 12,345.6789"
        );
        assert_eq!(
            group_digits("k=1000,x1000 8:4,4 1234"),
            "k=1000,x1000 8:4,4 1,234"
        );
        assert_eq!(group_digits("12.3% busy"), "12.3% busy");
    }

    #[test]
    fn sizes_carry_units() {
        assert_eq!(bytes(10), "10 B");
        assert_eq!(bytes(1000), "1 KB");
        assert_eq!(bytes(100_000), "100 KB");
        assert_eq!(bytes(2_000_000), "2 MB");
        assert_eq!(bytes(1500), "1,500 B");
    }
}
