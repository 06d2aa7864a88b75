//! Fixture workspaces: each folder under `test_data/workspaces` is checked whole and its
//! diagnostics compared with the `.diagnostics` snapshot beside it (`UPDATE_EXPECT=1` rewrites).

use nacl_analysis::workspace;
use std::{fmt::Write, path::Path};

/// One line a diagnostic, then one line per related place: `path:line:col code message`.
fn dump(root: &Path) -> String {
    let loaded = workspace::load(root, None);
    let mut out = String::new();
    let line_col = |text: &str, offset: usize| {
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rfind('\n').map_or(offset, |nl| offset - nl - 1) + 1;
        format!("{line}:{col}")
    };
    let texts: std::collections::HashMap<_, _> = loaded
        .workspace
        .files(&loaded.db)
        .iter()
        .map(|f| (f.path(&loaded.db).clone(), f.text(&loaded.db).clone()))
        .collect();
    let relative = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    for report in loaded.check(None) {
        for d in &report.diagnostics {
            let at = line_col(&report.text, d.range.start().into());
            let _ = writeln!(out, "{}:{at} {} {}", relative(&report.path), d.code, d.message);
            for r in &d.related {
                let at = texts.get(&r.path).map_or_else(String::new, |t| line_col(t, r.range.start().into()));
                let _ = writeln!(out, "    related {}:{at} {}", relative(&r.path), r.message);
            }
        }
    }
    out
}

#[test]
fn fixture_workspaces() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/workspaces");
    let mut roots: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures exist")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    roots.sort();
    assert!(!roots.is_empty());
    for root in roots {
        expect_test::expect_file![root.with_extension("diagnostics")].assert_eq(&dump(&root));
    }
}
