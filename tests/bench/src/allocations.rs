//! `nacl-ls-bench-allocations DIR`: the full check of a workspace, as `nacl-ls check` runs it,
//! printing how many allocations it made (the count does not depend on the allocator, so the
//! system's, counted, stands in for `nacl-ls`'s), then how many heap bytes every file's results
//! (fragments and syntax errors) hold apart from the texts they slice: what the compact fragment
//! store is to bring to at most 0.7 bytes per byte of input. The performance suite runs it apart
//! from the timed check: counting every allocation costs time.

use nacl_analysis::{db::FileFragments, fragments::Text};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::{alloc::System, process::ExitCode};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: nacl-ls-bench-allocations DIR");
        return ExitCode::from(2);
    };
    let root = nacl_analysis::layout::find_root(std::path::Path::new(&dir));
    // First, and freed before the check: the two do not hold their memory at once.
    let held = results_held(&root);
    let region = Region::new(GLOBAL);
    let loaded = nacl_analysis::workspace::load_with_state(&root, None, true);
    std::hint::black_box(loaded.check_once_with_progress(None, &|_, _| {}).len());
    println!("{} {held}", region.change().allocations);
    // As `nacl-ls check`, the process ends without freeing the database.
    std::mem::forget(loaded);
    ExitCode::SUCCESS
}

/// The heap bytes that the results of every NaCl file under `root` hold once built, the texts
/// they slice left out (read before counting).
fn results_held(root: &std::path::Path) -> usize {
    let texts: Vec<Text> = nacl_corpus::read_all(&nacl_corpus::nacl_files(root)).into_iter().map(Text::from).collect();
    let mut results = Vec::with_capacity(texts.len());
    let region = Region::new(GLOBAL);
    results.extend(texts.iter().map(FileFragments::of_text));
    let change = region.change();
    std::hint::black_box(&results);
    // (A reallocation's growth or shrinking is already counted in these two.)
    change.bytes_allocated.saturating_sub(change.bytes_deallocated)
}
