//! Every `.nacl` file of the real-world corpus parses with no error and round-trips losslessly.

use std::{collections::BTreeMap, path::PathBuf};

#[test]
fn corpus_parses_cleanly_and_losslessly() {
    let mut files = 0usize;
    let mut bytes = 0usize;
    let mut failures: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for workspace in nacl_corpus::workspaces() {
        for path in nacl_corpus::nacl_files(&workspace) {
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(err) => {
                    failures.entry(path).or_default().push(format!("unreadable: {err}"));
                    continue;
                }
            };
            files += 1;
            bytes += text.len();
            let parse = nacl_syntax::parse(&text);
            if parse.syntax().text() != text.as_str() {
                failures.entry(path.clone()).or_default().push("tree text differs from the file".into());
            }
            for error in parse.errors() {
                failures.entry(path.clone()).or_default().push(format!("{error}"));
            }
        }
    }
    eprintln!("parsed {files} corpus files, {bytes} bytes");
    assert!(files > 70_000, "the corpus looks incomplete: only {files} files");
    let report: String = failures
        .iter()
        .take(30)
        .map(|(path, errors)| {
            format!("{}\n  {}\n", path.display(), errors.iter().take(5).cloned().collect::<Vec<_>>().join("\n  "))
        })
        .collect();
    assert!(failures.is_empty(), "{} corpus files have errors:\n{report}", failures.len());
}
