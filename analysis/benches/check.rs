//! The cost of recomputing one file's diagnostics after editing a value in the largest corpus
//! workspace, in the database directly (`cargo bench -p nacl-analysis --bench check`). The full
//! check of each corpus workspace is measured by the performance suite (`nacl-ls-bench corpus`).

use nacl_analysis::{db::SourceFile, diagnostics::file_diagnostics, fragments::Text, layout, workspace};
use salsa::Setter;
use std::{
    path::Path,
    time::{Duration, Instant},
};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
        let text = f.text(&db).get();
        text.find(" = \"").map(|at| (f, at + 4))
    }) else {
        println!("no string value to edit");
        return;
    };
    let mut times: Vec<Duration> = Vec::new();
    for i in 0..20 {
        let mut text = file.text(&db).get().to_string();
        text.insert_str(at, &format!("e{i}"));
        file.set_text(&mut db).to(Text::from(text).into());
        let start = Instant::now();
        let count = file_diagnostics(&db, file).len();
        times.push(start.elapsed());
        std::hint::black_box(count);
    }
    times.sort();
    println!(
        "edit one value in {}, recompute that file's diagnostics: median {:.2} ms, max {:.2} ms ({} bytes)",
        file.path(&db).display(),
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        file.text(&db).get().len()
    );
}

fn main() {
    let largest = nacl_corpus::workspaces().into_iter().max_by_key(|dir| {
        nacl_corpus::nacl_files(dir).iter().filter_map(|f| f.metadata().ok()).map(|m| m.len()).sum::<u64>()
    });
    match largest {
        Some(dir) => edit_latency(&dir),
        None => println!("the corpus has no workspace"),
    }
}
