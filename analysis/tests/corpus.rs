//! The whole check on every corpus workspace: no errors anywhere, and the warnings per code are
//! printed (README explains each kind that remains).

use nacl_analysis::{layout, workspace};
use std::collections::BTreeMap;

#[test]
fn corpus_workspaces_have_no_errors() {
    let mut failures = Vec::new();
    for dir in nacl_corpus::workspaces() {
        let root = layout::find_root(&dir);
        let loaded = workspace::load(&root, None);
        let reports = loaded.check(None);
        let mut by_code: BTreeMap<&str, usize> = BTreeMap::new();
        for report in &reports {
            for diagnostic in &report.diagnostics {
                *by_code.entry(diagnostic.code.as_str()).or_default() += 1;
                if diagnostic.severity() == nacl_syntax::Severity::Error {
                    failures.push(format!("{}: {} {}", report.path.display(), diagnostic.code, diagnostic.message));
                }
            }
        }
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        eprintln!("{name}: {} files, diagnostics by code {by_code:?}", reports.len());
    }
    assert!(
        failures.is_empty(),
        "{} errors on the corpus:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
}
