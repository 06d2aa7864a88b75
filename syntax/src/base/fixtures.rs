//! The fixture harness every language's tests share: data files in folders, each checked
//! against a snapshot beside it.
//!
//! Parser fixtures live in `ok/` (must parse without errors) and `err/` (must report errors);
//! every fixture's tree and errors are compared with the `.rast` file beside it by the caller's
//! snapshot assertion (the tests use `expect-test`, so `UPDATE_EXPECT=1` rewrites snapshots).

use super::Parse;
use rowan::Language;
use std::path::{Path, PathBuf};

/// The files in `dir` whose names end in `.{extension}`, sorted. Panics (this is for tests) when
/// the folder cannot be read or holds no such file.
pub fn files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let suffix = format!(".{extension}");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(&suffix)))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no *{suffix} fixtures in {}", dir.display());
    files
}

/// Checks the parser fixtures `root/ok/*.{extension}` and `root/err/*.{extension}`: each parse
/// keeps every byte, has errors exactly under `err/`, and its dump matches `snapshot(path of the
/// .rast file, dump)`.
pub fn check_parser<L: Language>(
    root: &Path,
    extension: &str,
    parse: impl Fn(&str) -> Parse<L>,
    snapshot: impl Fn(&Path, &str),
) {
    for (dir, expect_errors) in [("ok", false), ("err", true)] {
        for path in files(&root.join(dir), extension) {
            let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
            let parsed = parse(&text);
            assert_eq!(parsed.syntax().to_string(), text, "{}: the tree lost text", path.display());
            assert_eq!(
                !parsed.errors().is_empty(),
                expect_errors,
                "{}: expected {} errors, got:\n{}",
                path.display(),
                if expect_errors { "some" } else { "no" },
                parsed.errors().iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
            );
            snapshot(&path.with_extension("rast"), &parsed.debug_dump());
        }
    }
}

/// Checks a layer's list of codes: each is unique, spelled as one of `letters` and four digits, and
/// has its row `| code | summary |` in `readme` (the README's tables of codes).
pub fn check_codes(codes: impl IntoIterator<Item = crate::Code>, readme: &str, letters: &[char]) {
    let mut seen = std::collections::HashSet::new();
    for code in codes {
        let s = code.as_str();
        assert!(seen.insert(s), "duplicate code {s}");
        assert!(
            s.len() == 5 && s.starts_with(letters) && s[1..].bytes().all(|b| b.is_ascii_digit()),
            "malformed code {s}"
        );
        let row = format!("| {} | {} |", s, code.summary());
        assert!(readme.contains(&row), "README.md lacks the row `{row}`");
    }
}
