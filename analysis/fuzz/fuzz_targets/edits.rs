//! Editing a file step by step and analysing it gives the same diagnostics as analysing the
//! final text from scratch. The input is an initial text, a zero byte, then edits of three bytes
//! each (where, how much to delete, what to insert), applied one by one with an analysis after each.
#![no_main]

use nacl_analysis::workspace::LoadedWorkspace;
use std::path::Path;

/// Pieces an edit inserts: the characters that change NaCl's structure most.
const PIECES: &[&str] =
    &["", "a", "{", "}", "\"", "\n", " = ", "[", "]", "${ ", "'''\n", "salto.t.instance.a", "é", "😀", "type ", ","];

/// A second file the edited one can refer to and conflict with.
const OTHER: &str = "type salto.t {\n  string name {\n    _required = true\n  }\n}\nsalto.t a {\n  name = \"x\"\n}\n";

fn diagnostics(workspace: &LoadedWorkspace, path: &Path) -> Vec<String> {
    let Some(file) = workspace.file(path) else { return Vec::new() };
    workspace.file_diagnostics(file).iter().map(|d| format!("{} {:?} {}", d.code, d.range, d.message)).collect()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (initial, edits) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let mut text = String::from_utf8_lossy(initial).into_owned();
    let root = Path::new("/fuzz");
    let (edited, other) = (root.join("edited.nacl"), root.join("other.nacl"));
    let mut workspace = LoadedWorkspace::empty(root);
    workspace.set_file_text(&other, OTHER.into());
    workspace.set_file_text(&edited, text.as_str().into());
    let _ = diagnostics(&workspace, &edited);
    for edit in edits.chunks_exact(3).take(64) {
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let start = boundaries[usize::from(edit[0]) % boundaries.len()];
        let end =
            boundaries.iter().copied().filter(|&b| b >= start).nth(usize::from(edit[1] % 4)).unwrap_or(text.len());
        text.replace_range(start..end, PIECES[usize::from(edit[2]) % PIECES.len()]);
        workspace.set_file_text(&edited, text.as_str().into());
        let _ = diagnostics(&workspace, &edited);
    }
    let incremental = (diagnostics(&workspace, &edited), diagnostics(&workspace, &other));
    let mut fresh = LoadedWorkspace::empty(root);
    fresh.set_file_text(&other, OTHER.into());
    fresh.set_file_text(&edited, text.as_str().into());
    let scratch = (diagnostics(&fresh, &edited), diagnostics(&fresh, &other));
    assert_eq!(incremental, scratch, "incremental analysis differs from a fresh one for:\n{text}");
});
