//! Data-driven parser tests: every `test_data/parser/{ok,err}/*.nacl` file is parsed and its
//! tree and errors compared with the `.rast` snapshot beside it (`UPDATE_EXPECT=1` rewrites
//! them). Files under `ok/` must parse without errors; files under `err/` must have errors.

use std::path::{Path, PathBuf};

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/parser").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "nacl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

fn check(dir: &str, expect_errors: bool) {
    for path in fixtures(dir) {
        let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
        let parse = nacl_syntax::parse(&text);
        assert_eq!(parse.syntax().to_string(), text, "{}: the tree lost text", path.display());
        assert_eq!(
            !parse.errors().is_empty(),
            expect_errors,
            "{}: expected {} errors, got:\n{}",
            path.display(),
            if expect_errors { "some" } else { "no" },
            parse.errors().iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")
        );
        expect_test::expect_file![path.with_extension("rast")].assert_eq(&parse.debug_dump());
    }
}

#[test]
fn ok_fixtures_parse_without_errors() {
    check("ok", false);
}

#[test]
fn err_fixtures_report_errors() {
    check("err", true);
}
