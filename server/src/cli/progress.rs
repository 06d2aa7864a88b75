//! A progress bar on stderr for long runs (`check`, `fmt`, `elements`): files read, checked or
//! formatted, with the rate and the time left. Drawn only when stderr is a terminal and the
//! output is for people (never with `--format json` or `--quiet`), and cleared when done.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::{io::IsTerminal, sync::Mutex};

/// The progress of one run, or nothing when it is not drawn.
pub struct Progress(Option<Drawn>);

struct Drawn {
    bar: ProgressBar,
    /// The phase shown; reports come from several threads, and a phase starts once.
    phase: Mutex<&'static str>,
}

impl Progress {
    /// A progress display, drawn when `wanted` and stderr is a terminal.
    pub fn new(wanted: bool) -> Progress {
        if !wanted || !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let rate = |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.0} files/s", state.per_sec());
        };
        let style = ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len} files, {rate}, {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("rate", rate)
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr()).with_style(style);
        Progress(Some(Drawn { bar, phase: Mutex::new("") }))
    }

    /// Starts a phase (`reading`, `checking`, ...) of `total` files.
    pub fn phase(&self, name: &'static str, total: usize) {
        if let Some(drawn) = &self.0 {
            *drawn.phase.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = name;
            drawn.start(name, total);
        }
    }

    /// `done` files of `total` in phase `name` (which starts with its first report).
    pub fn report(&self, name: &'static str, done: usize, total: usize) {
        let Some(drawn) = &self.0 else { return };
        let mut phase = drawn.phase.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if *phase != name {
            *phase = name;
            drawn.start(name, total);
        }
        // Reports from several threads may arrive out of order: the bar only moves forward.
        if done as u64 > drawn.bar.position() {
            drawn.bar.set_position(done as u64);
        }
    }

    /// One more file done.
    pub fn inc(&self) {
        if let Some(drawn) = &self.0 {
            drawn.bar.inc(1);
        }
    }

    /// Clears the display.
    pub fn finish(&self) {
        if let Some(drawn) = &self.0 {
            drawn.bar.finish_and_clear();
        }
    }
}

impl Drawn {
    fn start(&self, name: &'static str, total: usize) {
        self.bar.set_message(name);
        self.bar.set_length(total as u64);
        self.bar.set_position(0);
        self.bar.reset_eta();
        self.bar.reset_elapsed();
    }
}
