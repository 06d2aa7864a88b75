//! The real-world corpus: every `.nacl` file parses with no error and round-trips losslessly,
//! and formatting keeps its meaning and comments, is idempotent, and changes only what Salto's
//! own splicing leaves untidy.

mod common;

use rayon::prelude::*;
use std::{collections::BTreeMap, path::PathBuf};

/// Every corpus file with its path relative to the corpus folder.
fn corpus_texts() -> Vec<(String, String)> {
    let root = nacl_corpus::corpus_dir();
    let files: Vec<PathBuf> = nacl_corpus::workspaces().iter().flat_map(|w| nacl_corpus::nacl_files(w)).collect();
    assert!(files.len() > 70_000, "the corpus looks incomplete: only {} files", files.len());
    files
        .par_iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path.strip_prefix(&root).unwrap_or(path).display().to_string();
            (name, text)
        })
        .collect()
}

#[test]
fn corpus_parses_cleanly_and_losslessly() {
    let texts = corpus_texts();
    let failures: BTreeMap<&str, Vec<String>> = texts
        .par_iter()
        .filter_map(|(name, text)| {
            let parse = nacl_syntax::parse(text);
            let mut problems: Vec<String> = parse.errors().iter().map(|e| e.to_string()).collect();
            if parse.syntax().text() != text.as_str() {
                problems.push("tree text differs from the file".into());
            }
            (!problems.is_empty()).then_some((name.as_str(), problems))
        })
        .collect();
    let report: String = failures
        .iter()
        .take(30)
        .map(|(name, errors)| format!("{name}\n  {}\n", errors[..errors.len().min(5)].join("\n  ")))
        .collect();
    assert!(failures.is_empty(), "{} corpus files have errors:\n{report}", failures.len());
}

/// Files whose formatting changes more than whitespace, each with the reason.
const HAND_EDITED: &[(&str, &str)] = &[
    (
        "pgonzaleznetwork__cpqwebinar/salto.config/adapters/salesforce/salesforce.nacl",
        "hand-edited adapter config: list items without their trailing comma, and off indentation",
    ),
    (
        "zalary__salto-zd-prod/salto.config/adapters/zendesk/zendesk.nacl",
        "hand-edited adapter config: one-line objects and lists, and off indentation",
    ),
];

/// The text without trailing whitespace and without blank lines.
fn without_blank_lines(text: &str) -> String {
    text.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
}

#[test]
fn corpus_formatting_keeps_meaning_and_is_canonical() {
    let texts = corpus_texts();
    let changed: Vec<(&str, bool)> = texts
        .par_iter()
        .filter_map(|(name, text)| {
            let formatted = common::check_format_invariants(text);
            (formatted != *text).then(|| (name.as_str(), without_blank_lines(&formatted) == without_blank_lines(text)))
        })
        .collect();
    let whitespace_only = changed.iter().filter(|(_, ws)| *ws).count();
    eprintln!(
        "formatting changes {} of {} corpus files; {whitespace_only} of them only in blank lines and trailing whitespace (Salto leaves indentation on lines it empties)",
        changed.len(),
        texts.len()
    );
    let mut other: Vec<&str> = changed.iter().filter(|(_, ws)| !ws).map(|(name, _)| *name).collect();
    other.sort();
    let expected: Vec<&str> = HAND_EDITED.iter().map(|(name, _)| *name).collect();
    assert_eq!(other, expected, "files whose formatting changes more than whitespace");
}
