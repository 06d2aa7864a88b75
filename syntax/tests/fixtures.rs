//! Data-driven parser tests: every `test_data/nacl/parser/{ok,err}/*.nacl` file is parsed and its
//! tree and errors compared with the `.rast` snapshot beside it (`UPDATE_EXPECT=1` rewrites
//! them). Files under `ok/` must parse without errors; files under `err/` must have errors.

use nacl_syntax::fixtures;
use std::path::Path;

#[test]
fn nacl_parser_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/nacl/parser");
    fixtures::check_parser(&root, "nacl", nacl_syntax::nacl::parse, |path, dump| {
        expect_test::expect_file![path].assert_eq(dump)
    });
}
