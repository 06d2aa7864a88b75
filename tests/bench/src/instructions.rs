//! The regression guard: instruction counts of parsing and of checking a fixed generated
//! workspace, counted by valgrind's callgrind (the same for the same binary and input, whatever
//! else the machine does), compared with the committed baseline `instructions.txt`.

use std::{path::Path, process::ExitCode};

/// How far a count may move from the baseline before the guard fails (compiler upgrades move
/// counts a few percent; regressions worth stopping for move them more).
const THRESHOLD: f64 = 0.15;
/// The size of the fixed input, in MB.
const INPUT_MB: u64 = 2;
/// Its seed.
const INPUT_SEED: u64 = 7;

/// Measures, compares with the baseline (or writes it with `update`).
pub fn run(update: bool) -> ExitCode {
    let dir = match crate::generated(INPUT_MB, INPUT_SEED) {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("cannot generate the input: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut measured = Vec::new();
    for what in ["parse-here", "check-here"] {
        match count(what, &dir) {
            Some(n) => measured.push((what.trim_end_matches("-here"), n)),
            None => return ExitCode::FAILURE,
        }
    }
    let baseline_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("instructions.txt");
    if update {
        let text: String = measured.iter().map(|(what, n)| format!("{what} {n}\n")).collect();
        if let Err(error) = std::fs::write(&baseline_path, text) {
            eprintln!("cannot write {}: {error}", baseline_path.display());
            return ExitCode::FAILURE;
        }
        println!("baseline written to {}", baseline_path.display());
        return ExitCode::SUCCESS;
    }
    let baseline = std::fs::read_to_string(&baseline_path).unwrap_or_default();
    let mut failed = false;
    for (what, n) in measured {
        let expected =
            baseline.lines().find_map(|l| l.strip_prefix(what).and_then(|rest| rest.trim().parse::<u64>().ok()));
        let Some(expected) = expected else {
            println!("{what}: {n} instructions, no baseline (run `instructions --update`)");
            failed = true;
            continue;
        };
        let ratio = n as f64 / expected as f64;
        let verdict = if (ratio - 1.0).abs() > THRESHOLD { "OUTSIDE" } else { "within" };
        println!(
            "{what}: {n} instructions, {ratio:.3}x the baseline {expected} ({verdict} ±{:.0}%)",
            THRESHOLD * 100.0
        );
        failed |= (ratio - 1.0).abs() > THRESHOLD;
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// The instructions this program executes doing `what` on `dir` under callgrind, on one thread.
fn count(what: &str, dir: &Path) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let output = std::process::Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .arg(what)
        .arg(dir)
        .env("RAYON_NUM_THREADS", "1")
        // Counts without the persistent cache: each run parses everything.
        .env("NACL_LS_CACHE_DIR", "")
        .output();
    let output = match output {
        Ok(output) => output,
        Err(error) => {
            eprintln!("cannot run valgrind ({error}): install it (Debian: apt-get install valgrind)");
            return None;
        }
    };
    let log = String::from_utf8_lossy(&output.stderr);
    let found = log.lines().find_map(|l| l.split("Collected :").nth(1)).and_then(|n| n.trim().parse().ok());
    if found.is_none() {
        eprintln!("no instruction count from callgrind for {what}:\n{log}");
    }
    found
}
