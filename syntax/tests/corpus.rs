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
            let parse = nacl_syntax::nacl::parse(text);
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

/// The value of a multiline string computed from its raw text alone: the text between the
/// opening line and the closing line, minus one final line break (one `\n`, as Salto drops), with the escapes of `'''`
/// strings applied and templates written as `${ id }`.
fn multiline_value_from_raw(raw: &str) -> String {
    let raw = raw.strip_suffix(['\n', '\r']).unwrap_or(raw);
    let mut out = String::new();
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        if c == '\\' {
            let run = rest.len() - rest.trim_start_matches('\\').len();
            let after = &rest[run..];
            let marker = if after.starts_with("${") {
                2
            } else if after.starts_with("'''") {
                3
            } else {
                0
            };
            if marker == 0 {
                out.push_str(&rest[..run]);
                rest = after;
                continue;
            }
            out.push_str(&"\\".repeat(run / 2));
            if run % 2 == 1 {
                out.push_str(&after[..marker]);
                rest = &after[marker..];
            } else {
                rest = after;
            }
            if run % 2 == 1 || marker == 3 {
                continue;
            }
        }
        if let Some(template) = rest.strip_prefix("${")
            && let Some(end) = template.find('}')
        {
            let inner = template[..end].trim_matches([' ', '\t']);
            let legal = inner.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && inner.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '@'));
            if legal {
                out.push_str(&format!("${{ {inner} }}"));
                rest = &template[end + 1..];
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[test]
fn corpus_multiline_values_are_their_raw_text() {
    use nacl_syntax::nacl::{SyntaxKind, ast::AstNodeExt};
    let texts = corpus_texts();
    let counted = std::sync::atomic::AtomicUsize::new(0);
    let mismatches: Vec<String> = texts
        .par_iter()
        .flat_map_iter(|(name, text)| {
            let parse = nacl_syntax::nacl::parse(text);
            let mut found = Vec::new();
            for node in parse.syntax().descendants().filter(|n| n.kind() == SyntaxKind::MULTILINE_STRING) {
                let Some(string) = nacl_syntax::nacl::ast::MultilineString::cast(node.clone()) else { continue };
                counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let tokens: Vec<_> = node.children_with_tokens().collect();
                let start = tokens.first().map(|t| t.text_range().end());
                let end =
                    tokens.iter().find(|t| t.kind() == SyntaxKind::MULTILINE_CLOSE).map(|t| t.text_range().start());
                let (Some(start), Some(end)) = (start, end) else { continue };
                let raw = &text[usize::from(start)..usize::from(end)];
                if string.value() != multiline_value_from_raw(raw) {
                    found.push(format!(
                        "{name} at {start:?}: {:?} != {:?}",
                        string.value(),
                        multiline_value_from_raw(raw)
                    ));
                }
            }
            found
        })
        .collect();
    let counted = counted.into_inner();
    assert!(counted > 800, "only {counted} multiline strings in the corpus");
    assert!(
        mismatches.is_empty(),
        "{} multiline values differ from their raw text:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
}

#[test]
fn raw_multiline_oracle_applies_escapes() {
    assert_eq!(multiline_value_from_raw("a\r\nb\n"), "a\r\nb");
    assert_eq!(multiline_value_from_raw("a\r\nb\r\n"), "a\r\nb\r");
    assert_eq!(multiline_value_from_raw("x \\${ y }\n"), "x ${ y }");
    assert_eq!(multiline_value_from_raw("x \\\\${y}\n"), "x \\${ y }");
    assert_eq!(multiline_value_from_raw("\\''' q\n"), "''' q");
    assert_eq!(multiline_value_from_raw("a\\b\n"), "a\\b");
}

/// What [`corpus_edits_reparse_as_a_full_parse`] inserts: text, and bytes that start, end or
/// split tokens, objects and lists.
const INSERTIONS: &[&str] = &[
    "a",
    "é",
    " ",
    "1",
    "\"",
    "\\",
    "$",
    "{",
    "}",
    "[",
    "]",
    ",",
    "'''",
    "\n",
    "\r\n",
    "=",
    ".",
    "//",
    "\n  k = 1",
    "x = {",
];

#[test]
fn corpus_edits_reparse_as_a_full_parse() {
    let texts = corpus_texts();
    // One file in 25, eight chained edits each, at places a linear congruential generator picks
    // (seeded by the file's place in the list, so every run makes the same edits).
    let failures: Vec<String> = texts
        .par_iter()
        .enumerate()
        .filter(|(index, _)| index % 25 == 0)
        .filter_map(|(index, (name, text))| {
            let mut seed = index as u64;
            let mut next = |below: usize| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 33) as usize % below.max(1)
            };
            let (mut text, mut parse) = (text.clone(), nacl_syntax::nacl::parse(text));
            for _ in 0..8 {
                let start = (0..=next(text.len() + 1).min(text.len())).rev().find(|&i| text.is_char_boundary(i))?;
                let end = (start + next(4)..=text.len()).find(|&i| text.is_char_boundary(i))?;
                let mut edited = text.clone();
                edited.replace_range(start..end, INSERTIONS[next(INSERTIONS.len())]);
                let full = nacl_syntax::nacl::parse(&edited);
                if nacl_syntax::nacl::reparse_part(&parse, &text, &edited).is_some_and(|reparsed| reparsed != full) {
                    return Some(format!("{name}: replacing {start}..{end}"));
                }
                (text, parse) = (edited, full);
            }
            None
        })
        .collect();
    assert!(failures.is_empty(), "{} edits reparse unlike a full parse:\n{}", failures.len(), failures.join("\n"));
}
