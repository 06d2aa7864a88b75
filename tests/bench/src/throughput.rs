//! Throughput over a workspace's files: the reference (reading the files and counting their
//! lines), parsing and formatting on one thread, and the full check on all cores in a child
//! process (for its own peak memory).

use std::{
    path::{Path, PathBuf},
    time::Instant,
};

/// Bytes processed and the seconds it took.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rate {
    /// Bytes.
    pub bytes: u64,
    /// Seconds.
    pub seconds: f64,
}

impl Rate {
    /// Megabytes per second.
    pub fn mb_per_s(self) -> f64 {
        self.bytes as f64 / 1e6 / self.seconds.max(1e-9)
    }
}

/// Reads every file and counts its lines: the throughput every other figure is compared with.
pub fn read_and_count(files: &[PathBuf]) -> Rate {
    let start = Instant::now();
    let mut bytes = 0u64;
    let mut lines = 0usize;
    for path in files {
        let Ok(text) = std::fs::read(path) else { continue };
        bytes += text.len() as u64;
        lines += text.iter().filter(|&&b| b == b'\n').count();
    }
    std::hint::black_box(lines);
    Rate { bytes, seconds: start.elapsed().as_secs_f64() }
}

/// Reads every file on all cores: the reference a full check is measured against (it cannot be
/// faster than reading what it checks).
pub fn read_parallel(files: &[PathBuf]) -> Rate {
    use rayon::prelude::*;
    let start = Instant::now();
    let bytes: u64 = files.par_iter().filter_map(|path| std::fs::read(path).ok()).map(|text| text.len() as u64).sum();
    Rate { bytes, seconds: start.elapsed().as_secs_f64() }
}

/// Parses every file and reads it into fragments on one thread, as loading a workspace does for
/// each file (the texts read beforehand, not timed).
pub fn parse_and_fragments(texts: &[String]) -> Rate {
    let texts: Vec<nacl_analysis::fragments::Text> = texts.iter().map(|t| t.as_str().into()).collect();
    let start = Instant::now();
    for text in &texts {
        std::hint::black_box(nacl_analysis::db::FileFragments::of_text(text).fragments.len());
    }
    Rate { bytes: texts.iter().map(|t| t.len() as u64).sum(), seconds: start.elapsed().as_secs_f64() }
}

/// Parses every file on one thread (the texts read beforehand, not timed).
pub fn parse(texts: &[String]) -> Rate {
    let start = Instant::now();
    for text in texts {
        std::hint::black_box(nacl_syntax::nacl::parse(text).errors().len());
    }
    Rate { bytes: texts.iter().map(|t| t.len() as u64).sum(), seconds: start.elapsed().as_secs_f64() }
}

/// Formats every file on one thread.
pub fn format(texts: &[String]) -> Rate {
    let start = Instant::now();
    for text in texts {
        std::hint::black_box(nacl_syntax::nacl::format::format(text).len());
    }
    Rate { bytes: texts.iter().map(|t| t.len() as u64).sum(), seconds: start.elapsed().as_secs_f64() }
}

/// The full check of a workspace as `nacl-ls check` runs it, in this process: prints
/// `bytes seconds peak_bytes errors warnings` for the parent to read.
pub fn check_here(dir: &Path) {
    let start = Instant::now();
    let loaded = nacl_analysis::workspace::load_with_state(&nacl_analysis::layout::find_root(dir), None, true);
    let reports = loaded.check_once_with_progress(None, &|_, _| {});
    // As `nacl-ls check`, the check ends with its notes on instances of types NaCl lacks.
    std::hint::black_box(loaded.untyped_instances().len());
    // As `nacl-ls check`, the check writes the cache when it has one that is not up to date.
    if let Err(error) = loaded.save_cache().and_then(|()| loaded.save_reports(&reports)) {
        eprintln!("cannot write the cache: {error}");
    }
    let seconds = start.elapsed().as_secs_f64();
    let bytes: usize = reports.iter().map(|r| r.text.len()).sum();
    let count =
        |s: nacl_syntax::Severity| reports.iter().flat_map(|r| &r.diagnostics).filter(|d| d.severity() == s).count();
    println!(
        "{bytes} {seconds} {} {} {}",
        nacl_corpus::peak_rss(std::process::id()),
        count(nacl_syntax::Severity::Error),
        count(nacl_syntax::Severity::Warning)
    );
}

/// The result of a full check.
#[derive(Debug, Clone, Copy, Default)]
pub struct Check {
    /// Bytes and seconds.
    pub rate: Rate,
    /// Peak resident memory, in bytes.
    pub peak: u64,
    /// Errors reported.
    pub errors: u64,
    /// Warnings reported.
    pub warnings: u64,
}

/// What `nacl-ls-bench-allocations` counts of one workspace.
#[derive(Debug, Clone, Copy)]
pub struct Allocations {
    /// How many allocations its full check makes.
    pub count: u64,
    /// How many heap bytes every file's results hold, apart from the texts they slice.
    pub results_held: u64,
}

/// What `nacl-ls-bench-allocations` counts of the full check of `dir` (the program is built
/// beside this one: counting every allocation slows the check, so it runs apart).
pub fn allocations(dir: &Path) -> Option<Allocations> {
    let exe = std::env::current_exe().ok()?.with_file_name("nacl-ls-bench-allocations");
    let output = std::process::Command::new(&exe).arg(dir).env("NACL_LS_CACHE_DIR", "").output().ok()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut numbers = stdout.split_whitespace().map(str::parse::<u64>);
    let counted = match (numbers.next(), numbers.next()) {
        (Some(Ok(count)), Some(Ok(results_held))) => Some(Allocations { count, results_held }),
        _ => None,
    };
    if counted.is_none() {
        eprintln!("cannot count allocations with {}: {}", exe.display(), String::from_utf8_lossy(&output.stderr));
    }
    counted
}

/// Runs the full check of `dir` without the persistent cache three times, each in a child
/// process of this program (`check-here`), and keeps the fastest run (the others met a busier
/// machine).
pub fn check(dir: &Path) -> Option<Check> {
    fastest_of_three(|| check_once(dir, None))
}

/// The fastest of three runs (stopping at one that fails).
fn fastest_of_three(run: impl FnMut() -> Option<Check>) -> Option<Check> {
    let mut run = run;
    let runs: Vec<Check> = (0..3).map_while(|_| run()).collect();
    runs.into_iter().min_by(|a, b| a.rate.seconds.total_cmp(&b.rate.seconds))
}

/// The full check with a cache folder that starts empty, as a first `nacl-ls check` runs it:
/// the check, then every file's results and the reports written to the cache (a check after any
/// file changed writes the whole cache again too). The fastest of three runs.
pub fn first_check(dir: &Path) -> Option<Check> {
    let cache = crate::bench_cache();
    fastest_of_three(|| {
        let _ = std::fs::remove_dir_all(&cache);
        check_once(dir, Some(&cache))
    })
}

/// The same with the persistent cache, written by a first run that is not counted: the check
/// of an unchanged workspace after a restart (its reports read from the cache).
pub fn warm_check(dir: &Path) -> Option<Check> {
    let cache = crate::bench_cache();
    let _ = std::fs::remove_dir_all(&cache);
    check_once(dir, Some(&cache))?;
    fastest_of_three(|| check_once(dir, Some(&cache)))
}

/// The same with only the cache's file results (its reports removed before each run, as a
/// change anywhere in the workspace makes them unusable).
pub fn file_cache_check(dir: &Path) -> Option<Check> {
    let cache = crate::bench_cache();
    let _ = std::fs::remove_dir_all(&cache);
    check_once(dir, Some(&cache))?;
    fastest_of_three(|| {
        for entry in std::fs::read_dir(&cache).ok()?.flatten() {
            if entry.path().extension().is_some_and(|x| x == "reports") {
                std::fs::remove_file(entry.path()).ok()?;
            }
        }
        check_once(dir, Some(&cache))
    })
}

/// One full check of `dir` in a child process, with the cache in `cache` (none when `None`).
fn check_once(dir: &Path, cache: Option<&Path>) -> Option<Check> {
    let exe = std::env::current_exe().ok()?;
    let output = std::process::Command::new(exe)
        .arg("check-here")
        .arg(dir)
        .env("NACL_LS_CACHE_DIR", cache.unwrap_or(Path::new("")))
        .output()
        .ok()?;
    let line = String::from_utf8_lossy(&output.stdout);
    let v: Vec<f64> = line.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    let [bytes, seconds, peak, errors, warnings] = v[..] else {
        eprintln!("the check of {} failed: {}", dir.display(), String::from_utf8_lossy(&output.stderr));
        return None;
    };
    Some(Check {
        rate: Rate { bytes: bytes as u64, seconds },
        peak: peak as u64,
        errors: errors as u64,
        warnings: warnings as u64,
    })
}
