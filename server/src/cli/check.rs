//! `nacl-ls check`: report the problems of a workspace.

use super::{OutputFormat, plural, renderer};
use crate::diagnostics::{Summary, Texts, json_report, print_human};
use nacl_analysis::{layout, workspace};
use std::{
    io::{self, Write},
    path::PathBuf,
    process::ExitCode,
    time::Instant,
};

/// What `check` was asked.
pub struct CheckArgs {
    /// Files or folders to report on; each one's workspace is analysed whole.
    pub paths: Vec<PathBuf>,
    /// The environment common files are analysed in.
    pub env: Option<String>,
    /// Whether to read Salto's state files (hidden types and values).
    pub state: bool,
    /// Whether warnings fail the check too.
    pub deny_warnings: bool,
    /// How to print.
    pub format: OutputFormat,
    /// Whether to leave out the progress bar.
    pub quiet: bool,
}

/// Runs the check: exit code 1 when errors (or, with `deny_warnings`, warnings) were found,
/// 2 when a path does not exist.
pub fn run(args: CheckArgs) -> io::Result<ExitCode> {
    let started = Instant::now();
    let paths = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths };
    let mut reports = Vec::new();
    let mut texts = Texts::new();
    let mut notes = Vec::new();
    let mut missing = false;
    let (mut from_cache, mut unread) = (0, 0);
    let progress = super::progress::Progress::new(!args.quiet && args.format == OutputFormat::Human);
    for (index, path) in paths.iter().enumerate() {
        if !path.exists() {
            eprintln!(
                "error: cannot search {}: no such file or folder",
                crate::terminal::escaped(&path.display().to_string())
            );
            missing = true;
            continue;
        }
        let root = layout::find_root(path);
        let report = |done, total| progress.report("reading", done, total);
        let loaded = workspace::load_with_state_and_progress(&root, args.env.as_deref(), args.state, &report);
        let filter = std::path::absolute(path).unwrap_or_else(|_| path.clone());
        let absolute_root = std::path::absolute(&root).unwrap_or_else(|_| root.clone());
        // Report on the given path only; its whole workspace is analysed.
        let filter =
            (filter != absolute_root).then(|| root.join(filter.strip_prefix(&absolute_root).unwrap_or(&filter)));
        let first_new = reports.len();
        reports.extend(
            loaded.check_once_with_progress(filter.as_deref(), &|done, total| progress.report("checking", done, total)),
        );
        from_cache += loaded.from_cache;
        unread += loaded.unread_files();
        // The next check of this workspace reads what this one parsed from the cache, and
        // after a check of all of it, its reports.
        let saved = loaded.save_cache().and_then(|()| match filter {
            None => loaded.save_reports(&reports[first_new..]),
            Some(_) => Ok(()),
        });
        if let Err(error) = saved
            && !args.quiet
        {
            eprintln!("warning: cannot write nacl-ls's cache: {error}");
        }
        notes.extend(loaded.state_notes());
        notes.extend(
            loaded
                .untyped_instances()
                .into_iter()
                .map(|u| u.message(if args.state { u.reason() } else { "state files were not read (`--no-state`)" })),
        );
        // The texts of the files related places point into (a report carries its own file's).
        let related = reports[first_new..].iter().flat_map(|r| &r.diagnostics).flat_map(|d| &d.related);
        for related in related {
            if !texts.contains_key(&related.path)
                && let Some(text) = loaded.text_of(&related.path)
            {
                texts.insert(related.path.clone(), text);
            }
        }
        // After the last workspace the process ends: freeing its database (every file's results)
        // would only cost time.
        if index + 1 == paths.len() {
            std::mem::forget(loaded);
        }
    }
    progress.finish();
    let mut out = io::stdout().lock();
    let summary = match args.format {
        OutputFormat::Json => {
            let mut report = json_report(&reports, &texts);
            report.summary.notes = notes;
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
            report.summary
        }
        OutputFormat::Human => {
            print_human(&mut out, &renderer(), &reports, &texts)?;
            let summary = Summary::of(&reports);
            for note in &notes {
                writeln!(out, "note: {}", crate::terminal::escaped(note))?;
            }
            print_summary(&mut out, &summary, started.elapsed().as_secs_f64(), (from_cache, unread))?;
            summary
        }
    };
    let failed = summary.errors > 0 || (args.deny_warnings && summary.warnings > 0);
    Ok(if missing {
        ExitCode::from(2)
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Prints the summary line; `cached` is how many files' results the cache had, and how many of
/// those files were not even read (found unchanged).
fn print_summary(out: &mut impl Write, summary: &Summary, seconds: f64, cached: (usize, usize)) -> io::Result<()> {
    let cached = match cached {
        (0, _) => String::new(),
        (from_cache, 0) => format!(", {from_cache} read from the cache"),
        (from_cache, unread) => format!(", {from_cache} read from the cache, {unread} unchanged files not read"),
    };
    let checked = format!(
        "{} checked ({:.1} MB in {:.2}s{cached})",
        plural(summary.files_checked, "file"),
        summary.bytes_checked as f64 / 1e6,
        seconds
    );
    if summary.errors == 0 && summary.warnings == 0 {
        return writeln!(out, "no problems: {checked}");
    }
    let by_code: Vec<String> = summary.by_code.iter().map(|(code, n)| format!("{code} ×{n}")).collect();
    writeln!(
        out,
        "{}, {} in {}: {checked}\nby code: {}",
        plural(summary.errors, "error"),
        plural(summary.warnings, "warning"),
        plural(summary.files_with_diagnostics, "file"),
        by_code.join(", ")
    )
}
