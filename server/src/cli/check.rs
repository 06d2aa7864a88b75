//! `nacl-ls check`: report the errors of `.nacl` files.

use super::{OutputFormat, plural, renderer};
use crate::diagnostics::{Summary, json_report, print_human};
use nacl_analysis::files;
use std::{
    io::{self, Write},
    path::PathBuf,
    process::ExitCode,
    time::Instant,
};

/// Runs the check; exit code 1 when errors were found, 2 when a path could not be searched.
pub fn run(mut paths: Vec<PathBuf>, format: OutputFormat) -> io::Result<ExitCode> {
    let started = Instant::now();
    if paths.is_empty() {
        paths.push(PathBuf::from("."));
    }
    let (files, discovery_errors) = files::discover(&paths);
    for error in &discovery_errors {
        eprintln!("error: cannot search {}: {}", error.path.display(), error.error);
    }
    let checks = files::check_syntax(&files);
    let mut out = io::stdout().lock();
    let summary = match format {
        OutputFormat::Json => {
            let report = json_report(&checks);
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
            report.summary
        }
        OutputFormat::Human => {
            print_human(&mut out, &renderer(), &checks)?;
            let summary = Summary::of(&checks);
            print_summary(&mut out, &summary, started.elapsed().as_secs_f64())?;
            summary
        }
    };
    Ok(if !discovery_errors.is_empty() {
        ExitCode::from(2)
    } else if summary.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_summary(out: &mut impl Write, summary: &Summary, seconds: f64) -> io::Result<()> {
    let checked = format!(
        "{} checked ({:.1} MB in {:.2}s)",
        plural(summary.files_checked, "file"),
        summary.bytes_checked as f64 / 1e6,
        seconds
    );
    if summary.errors == 0 {
        return writeln!(out, "no errors: {checked}");
    }
    let by_code: Vec<String> = summary.by_code.iter().map(|(code, n)| format!("{code} ×{n}")).collect();
    writeln!(
        out,
        "{} in {}: {checked}\nby code: {}",
        plural(summary.errors, "error"),
        plural(summary.files_with_errors, "file"),
        by_code.join(", ")
    )
}
