//! `nacl-ls-bench-allocations DIR`: the full check of a workspace, as `nacl-ls check` runs it,
//! printing how many allocations it made (the count does not depend on the allocator, so the
//! system's, counted, stands in for `nacl-ls`'s). The performance suite runs it apart from the
//! timed check: counting every allocation costs time.

use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::{alloc::System, process::ExitCode};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: nacl-ls-bench-allocations DIR");
        return ExitCode::from(2);
    };
    let region = Region::new(GLOBAL);
    let root = nacl_analysis::layout::find_root(std::path::Path::new(&dir));
    let loaded = nacl_analysis::workspace::load_with_state(&root, None, true);
    std::hint::black_box(loaded.check_once_with_progress(None, &|_, _| {}).len());
    println!("{}", region.change().allocations);
    // As `nacl-ls check`, the process ends without freeing the database.
    std::mem::forget(loaded);
    ExitCode::SUCCESS
}
