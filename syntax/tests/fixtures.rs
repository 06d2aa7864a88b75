//! Data-driven parser tests: every `test_data/<language>/parser/{ok,err}/*` file is parsed and its
//! tree and errors compared with the `.rast` snapshot beside it (`UPDATE_EXPECT=1` rewrites
//! them). Files under `ok/` must parse without errors; files under `err/` must have errors.

use nacl_syntax::fixtures;
use std::path::{Path, PathBuf};

fn root(language: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data").join(language).join("parser")
}

#[test]
fn nacl_parser_fixtures() {
    fixtures::check_parser(&root("nacl"), "nacl", nacl_syntax::nacl::parse, |path, dump| {
        expect_test::expect_file![path].assert_eq(dump)
    });
}

#[test]
fn hcl_parser_fixtures() {
    fixtures::check_parser(&root("hcl"), "hcl", nacl_syntax::hcl::parse, |path, dump| {
        expect_test::expect_file![path].assert_eq(dump)
    });
}

#[test]
fn arm_parser_fixtures() {
    fixtures::check_parser(&root("arm"), "arm", nacl_syntax::arm::parse, |path, dump| {
        expect_test::expect_file![path].assert_eq(dump)
    });
}
