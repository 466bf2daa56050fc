//! Progress of long runs on stderr: an indicatif bar when stderr is a terminal,
//! plain lines every few seconds when `--progress` asks for it on a pipe or file, nothing with
//! `--quiet`. The work runs on the calling thread; a scoped thread polls what it publishes.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal as _;
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

/// How often plain progress lines are written.
const LINE_EVERY: Duration = Duration::from_secs(2);

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

/// Runs `work` while showing `read()` (units done, a note) against `total` units of `unit`.
pub fn observe<T>(
    show: Show,
    total: u64,
    unit: &str,
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
            let bar = if show == Show::Bar {
                ProgressBar::new(total)
            } else {
                ProgressBar::hidden()
            };
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{per_sec}}), {{msg}}, ETA {{eta}}"
                ))
                .expect("valid template")
                .progress_chars("=> "),
            );
            if show == Show::Lines {
                eprintln!("progress: started, {total} {unit} to go");
            }
            let mut last_line = start;
            while !done.load(Ordering::Relaxed) {
                let (pos, note) = read();
                bar.set_position(pos.min(total));
                bar.set_message(note.clone());
                if show == Show::Lines && last_line.elapsed() >= LINE_EVERY {
                    last_line = Instant::now();
                    eprintln!(
                        "progress: {}/{total} {unit}, {note}, {:.0} s",
                        pos.min(total),
                        start.elapsed().as_secs_f64()
                    );
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
            if show == Show::Lines {
                eprintln!(
                    "progress: finished in {:.1} s",
                    start.elapsed().as_secs_f64()
                );
            }
        });
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    })
}
