//! Progress of long runs on stderr: an indicatif bar when stderr is a terminal, plain lines every few
//! seconds when `--progress` asks for it on a pipe or file, nothing with `--quiet`. The work runs on
//! the calling thread; a scoped thread polls what it publishes.
//!
//! Both show the same fields: the share of the work done, its rate, and the time left at that rate
//! (ETA), shown only once the estimate means something: after [`ETA_AFTER_SHARE`] of the work and
//! [`ETA_AFTER`] of wall time. A run's work is its phits delivered of all it will deliver
//! (`replay::program_phits`), so progress follows the simulated traffic, not the clock of the
//! simulated machine; its rate is over the last [`RATE_WINDOW`]. Work credited only when a piece
//! ends (a sweep's points, a campaign's runs) is rated over the whole time since the start
//! ([`Rate::SinceStart`]): a window shorter than a piece would see no work at all.

use indicatif::{ProgressBar, ProgressStyle};
use std::collections::VecDeque;
use std::io::{IsTerminal as _, Write as _};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Show {
    /// Not at all.
    #[default]
    Off,
    /// An indicatif bar (stderr is a terminal).
    Bar,
    /// A plain line every `LINE_EVERY` (stderr is a pipe or file and `--progress` was given).
    Lines,
}

/// Writes a progress line on stderr, ignoring errors: a closed pipe must not stop the work (the
/// `eprintln!` macro would panic).
fn say(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// How often plain progress lines are written.
const LINE_EVERY: Duration = Duration::from_secs(2);

/// The rate is measured over this much of the latest wall time (a moving window: it follows a
/// run whose speed changes, without the noise of one poll).
pub const RATE_WINDOW: Duration = Duration::from_secs(10);

/// No ETA before this share of the work is done: early rates mislead (start-up, first phases).
pub const ETA_AFTER_SHARE: f64 = 0.05;

/// No ETA before this much wall time: too few samples before.
pub const ETA_AFTER: Duration = Duration::from_secs(2);

impl Show {
    /// `--quiet` silences; otherwise a bar when stderr is a terminal, lines when `--progress` forces
    /// progress onto a pipe or file, nothing by default.
    pub fn choose(progress: bool, quiet: bool) -> Show {
        if quiet {
            Show::Off
        } else if std::io::stderr().is_terminal() {
            Show::Bar
        } else if progress {
            Show::Lines
        } else {
            Show::Off
        }
    }
}

/// `n` followed by `unit`, singular when `n` is 1 (`1 message`, `2 messages`): `unit` is the plural.
pub fn count(n: u64, unit: &str) -> String {
    if n == 1 {
        format!("1 {}", unit.strip_suffix('s').unwrap_or(unit))
    } else {
        format!("{n} {unit}")
    }
}

/// A number with an SI prefix and three significant digits (`8.94 M`, `123 k`), then a space.
pub fn si(x: f64) -> String {
    const PREFIXES: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    let (v, p) = PREFIXES
        .iter()
        .find(|(scale, _)| x.abs() >= *scale)
        .map_or((x, ""), |&(scale, p)| (x / scale, p));
    if p.is_empty() || v.abs() >= 100.0 {
        format!("{v:.0} {p}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1} {p}")
    } else {
        format!("{v:.2} {p}")
    }
}

/// Seconds as `1h02m03s`, `2m03s` or `3s`.
pub fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

/// Over what time the rate of the work is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rate {
    /// The last [`RATE_WINDOW`]: work that moves continuously (a run's phits).
    Windowed,
    /// Everything since the start: work credited in pieces as they end.
    SinceStart,
}

/// The rate of the work and the time left, from samples of the work done.
#[derive(Debug)]
pub struct Estimate {
    total: u64,
    start: Instant,
    rate: Rate,
    samples: VecDeque<(Instant, u64)>,
}

impl Estimate {
    /// An estimate for `total` units of work starting at `start`, rated over [`RATE_WINDOW`].
    pub fn new(total: u64, start: Instant) -> Estimate {
        Estimate::rated(total, start, Rate::Windowed)
    }

    /// An estimate for `total` units of work starting at `start`, rated as `rate` says.
    pub fn rated(total: u64, start: Instant, rate: Rate) -> Estimate {
        Estimate {
            total,
            start,
            rate,
            samples: VecDeque::from([(start, 0)]),
        }
    }

    /// Records that `done` units were done at `now`.
    pub fn sample(&mut self, now: Instant, done: u64) {
        if self.rate == Rate::SinceStart && self.samples.len() == 2 {
            // The start and the latest sample are all the rate needs.
            self.samples.pop_back();
        }
        self.samples.push_back((now, done));
        while self.samples.len() > 2 && now.duration_since(self.samples[1].0) >= RATE_WINDOW {
            self.samples.pop_front();
        }
    }

    /// Units per second over the window (or since the start), if any time passed.
    pub fn rate(&self) -> Option<f64> {
        let (&(t0, d0), &(t1, d1)) = (self.samples.front()?, self.samples.back()?);
        let secs = t1.duration_since(t0).as_secs_f64();
        (secs > 0.0).then(|| d1.saturating_sub(d0) as f64 / secs)
    }

    /// Share of the work done, 0 to 1 (1 for no work).
    pub fn share(&self) -> f64 {
        let done = self.samples.back().map_or(0, |s| s.1);
        if self.total == 0 {
            1.0
        } else {
            (done as f64 / self.total as f64).min(1.0)
        }
    }

    /// Seconds left at the current rate, once [`ETA_AFTER_SHARE`] of the work and [`ETA_AFTER`]
    /// of time have passed and the rate is positive.
    pub fn eta(&self) -> Option<f64> {
        let &(now, done) = self.samples.back()?;
        if self.share() < ETA_AFTER_SHARE || now.duration_since(self.start) < ETA_AFTER {
            return None;
        }
        let rate = self.rate().filter(|&r| r > 0.0)?;
        Some(self.total.saturating_sub(done) as f64 / rate)
    }

    /// The fields progress shows, the same on a bar and in plain lines: `12.5% of 1.20 Gphits,
    /// 40.1 Mphits/s, ETA 26s`.
    pub fn fields(&self, unit: &str) -> String {
        let rate = self
            .rate()
            .map_or("-".to_string(), |r| format!("{}{unit}/s", si(r)));
        let eta = self
            .eta()
            .map_or("ETA -".to_string(), |s| format!("ETA {}", duration(s)));
        format!(
            "{:.1}% of {}{unit}, {rate}, {eta}",
            100.0 * self.share(),
            si(self.total as f64)
        )
    }
}

/// Runs `work` while showing `read()` (units done, a note) against `total` units of `unit` (a
/// plural noun), their rate measured as `rate` says.
pub fn observe<T>(
    show: Show,
    (total, unit, rate): (u64, &str, Rate),
    read: impl Fn() -> (u64, String) + Sync,
    work: impl FnOnce() -> T,
) -> T {
    if show == Show::Off {
        return work();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            let mut estimate = Estimate::rated(total, start, rate);
            let bar = if show == Show::Bar {
                ProgressBar::new(total)
            } else {
                ProgressBar::hidden()
            };
            bar.set_style(
                ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {msg}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            if show == Show::Lines {
                say(format_args!(
                    "progress: started, {}{unit} to go",
                    si(total as f64)
                ));
            }
            let mut last_line = start;
            while !done.load(Ordering::Relaxed) {
                let (pos, note) = read();
                let now = Instant::now();
                estimate.sample(now, pos.min(total));
                let fields = format!("{}, {note}", estimate.fields(unit));
                bar.set_position(pos.min(total));
                bar.set_message(fields.clone());
                if show == Show::Lines && now.duration_since(last_line) >= LINE_EVERY {
                    last_line = now;
                    say(format_args!(
                        "progress: {fields}, {:.0} s elapsed",
                        start.elapsed().as_secs_f64()
                    ));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
            if show == Show::Lines {
                say(format_args!(
                    "progress: finished in {:.1} s",
                    start.elapsed().as_secs_f64()
                ));
            }
        });
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(1, "messages"), "1 message");
        assert_eq!(count(0, "messages"), "0 messages");
        assert_eq!(count(2, "runs"), "2 runs");
    }

    #[test]
    fn numbers_and_durations_read_as_a_person_writes_them() {
        assert_eq!(si(8_935_622.0), "8.94 M");
        assert_eq!(si(123_470_000.0), "123 M");
        assert_eq!(si(58_400.0), "58.4 k");
        assert_eq!(si(950.0), "950 ");
        assert_eq!(duration(5.4), "5s");
        assert_eq!(duration(125.0), "2m05s");
        assert_eq!(duration(3723.0), "1h02m03s");
    }

    #[test]
    fn no_eta_before_five_percent_and_two_seconds_then_the_windowed_rate() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut e = Estimate::new(1000, t0);
        e.sample(t0 + s(1), 100);
        assert_eq!(e.eta(), None, "10% done but only 1 s in");
        let mut e = Estimate::new(1000, t0);
        e.sample(t0 + s(3), 30);
        assert_eq!(e.eta(), None, "3 s in but only 3% done");
        e.sample(t0 + s(4), 100);
        // 100 units in 4 s: 25 per second, 900 left.
        assert_eq!(e.eta(), Some(36.0));
        assert_eq!(
            e.fields("phits"),
            "10.0% of 1.00 kphits, 25 phits/s, ETA 36s"
        );
        // Past the window only the latest 10 s count: 20 s in, 500 done, 300 of them in the last
        // 10 s.
        for (t, d) in [(10, 200), (14, 300), (20, 500)] {
            e.sample(t0 + s(t), d);
        }
        assert_eq!(e.rate(), Some(30.0));
        assert_eq!(e.eta(), Some(500.0 / 30.0));
        // Rated since the start, the same samples give 500 in 20 s: 25 per second.
        let mut e = Estimate::rated(1000, t0, Rate::SinceStart);
        for (t, d) in [(4, 100), (10, 200), (14, 300), (20, 500)] {
            e.sample(t0 + s(t), d);
        }
        assert_eq!(e.rate(), Some(25.0));
        assert_eq!(e.eta(), Some(20.0));
        assert_eq!(e.samples.len(), 2);
    }
}
