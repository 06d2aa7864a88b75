//! The full check of each corpus workspace (time, MB/s, peak memory), and the cost of recomputing
//! one file's diagnostics after editing a value in the largest workspace.
//!
//! `cargo bench -p nacl-analysis`. Each workspace is checked in a fresh child process so its peak
//! memory is its own; the child reports `VmHWM` from `/proc/self/status`.

use nacl_analysis::{db::SourceFile, diagnostics::file_diagnostics, layout, workspace};
use salsa::Setter;
use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::Arc,
    time::{Duration, Instant},
};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// In the child: checks one workspace and prints `files bytes seconds peak errors warnings`.
fn check_one(dir: &Path) {
    let start = Instant::now();
    // As `nacl-ls check` does: with Salto's state, when the workspace has it.
    let loaded = workspace::load_with_state(&layout::find_root(dir), None, true);
    let reports = loaded.check(None);
    let seconds = start.elapsed().as_secs_f64();
    let bytes: usize = reports.iter().map(|r| r.text.len()).sum();
    let count =
        |s: nacl_syntax::Severity| reports.iter().flat_map(|r| &r.diagnostics).filter(|d| d.severity() == s).count();
    println!(
        "{} {bytes} {seconds} {} {} {}",
        reports.len(),
        nacl_corpus::peak_rss(std::process::id()),
        count(nacl_syntax::Severity::Error),
        count(nacl_syntax::Severity::Warning)
    );
}

/// Edits one value of an instance in the largest workspace, many times, and times recomputing
/// the edited file's diagnostics.
fn edit_latency(dir: &Path) {
    let loaded = workspace::load(&layout::find_root(dir), None);
    drop(loaded.check(None));
    // A salsa write waits for every other handle to drop: own the only one.
    let workspace::LoadedWorkspace { mut db, workspace, .. } = loaded;
    // A file with an instance whose first line holds a string value.
    let files: Vec<SourceFile> = workspace.files(&db).clone();
    let Some((file, at)) = files.iter().find_map(|&f| {
        let text = f.text(&db);
        text.find(" = \"").map(|at| (f, at + 4))
    }) else {
        println!("no string value to edit");
        return;
    };
    let mut times: Vec<Duration> = Vec::new();
    for i in 0..20 {
        let mut text = file.text(&db).to_string();
        text.insert_str(at, &format!("e{i}"));
        file.set_text(&mut db).to(Arc::from(text));
        let start = Instant::now();
        let count = file_diagnostics(&db, workspace, file).len();
        times.push(start.elapsed());
        std::hint::black_box(count);
    }
    times.sort();
    println!(
        "edit one value in {}, recompute that file's diagnostics: median {:.2} ms, max {:.2} ms ({} bytes)",
        file.path(&db).display(),
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        file.text(&db).len()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(pos) = args.iter().position(|a| a == "--one") {
        check_one(Path::new(&args[pos + 1]));
        return;
    }
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    let workspaces: Vec<PathBuf> = nacl_corpus::workspaces();
    println!(
        "{:<40} {:>7} {:>8} {:>8} {:>8} {:>9} {:>7} {:>7}",
        "workspace", "files", "MB", "time s", "MB/s", "peak MB", "errors", "warns"
    );
    let mut largest = (0usize, PathBuf::new());
    for dir in &workspaces {
        let output = Command::new(&exe).arg("--one").arg(dir).output().expect("the benchmark runs itself");
        let line = String::from_utf8_lossy(&output.stdout);
        let v: Vec<f64> = line.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        let [files, bytes, seconds, peak, errors, warnings] = v[..] else {
            println!("{}: failed: {}", dir.display(), String::from_utf8_lossy(&output.stderr));
            continue;
        };
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        println!(
            "{name:<40} {files:>7} {:>8.1} {seconds:>8.2} {:>8.1} {:>9.0} {errors:>7} {warnings:>7}",
            bytes / 1e6,
            bytes / 1e6 / seconds,
            peak / 1e6
        );
        if bytes as usize > largest.0 {
            largest = (bytes as usize, dir.clone());
        }
    }
    edit_latency(&largest.1);
}
