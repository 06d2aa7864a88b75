//! ARMLang's semantics and compiler, as data: every `test_data/arm/check/*.arm` file's diagnostics
//! and every `test_data/arm/build/*.arm` file's template are compared with the snapshot beside it
//! (`UPDATE_EXPECT=1` rewrites them); the build fixtures must have no diagnostics, and their
//! templates depend neither on the order of their declarations (a property test) nor on formatting.

use nacl_analysis::arm;
use nacl_syntax::{TextSize, fixtures};
use proptest::strategy::Strategy;
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/arm").join(name)
}

fn line_col(text: &str, offset: TextSize) -> String {
    let offset = usize::from(offset).min(text.len());
    let line = text[..offset].matches('\n').count() + 1;
    let col = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{line}:{col}")
}

fn diagnostics(path: &Path, text: &str) -> String {
    match arm::build_template(text, path) {
        Ok(_) => String::new(),
        Err(diagnostics) => diagnostics
            .iter()
            .map(|d| {
                let related: String = d
                    .related
                    .iter()
                    .map(|r| format!("\n    related {}: {}", line_col(text, r.range.start()), r.message))
                    .collect();
                format!(
                    "{} {}-{} {}{related}\n",
                    d.code,
                    line_col(text, d.range.start()),
                    line_col(text, d.range.end()),
                    d.message
                )
            })
            .collect(),
    }
}

#[test]
fn check_fixtures() {
    for path in fixtures::files(&dir("check"), "arm") {
        let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
        let out = diagnostics(&path, &text);
        assert!(!out.is_empty(), "{}: expected diagnostics", path.display());
        expect_test::expect_file![path.with_extension("diagnostics")].assert_eq(&out);
    }
}

/// The top-level declarations of `text` as texts (comments between them left out).
fn declarations(text: &str) -> Vec<String> {
    let parse = nacl_syntax::arm::parse(text);
    parse
        .tree()
        .declarations()
        .map(|d| text[std::ops::Range::<usize>::from(d.syntax().text_range())].to_owned())
        .collect()
}

#[test]
fn build_fixtures() {
    for path in fixtures::files(&dir("build"), "arm") {
        let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
        let template = match arm::build_template(&text, &path) {
            Ok(template) => template,
            Err(_) => panic!("{} does not build:\n{}", path.display(), diagnostics(&path, &text)),
        };
        expect_test::expect_file![path.with_extension("json")].assert_eq(&template);
        serde_json::from_str::<serde_json::Value>(&template).expect("the template is JSON");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any order of a build fixture's declarations builds the same template.
    #[test]
    fn templates_do_not_depend_on_the_order_of_declarations(
        (file, order) in proptest::prelude::Just(fixtures::files(&dir("build"), "arm")).prop_flat_map(|files| {
            let count = files.len();
            (0..count).prop_flat_map(move |i| {
                let text = std::fs::read_to_string(&files[i]).expect("fixtures are UTF-8");
                let decls = declarations(&text);
                (proptest::prelude::Just(files[i].clone()), proptest::prelude::Just(decls).prop_shuffle())
            })
        })
    ) {
        let text = std::fs::read_to_string(&file).expect("fixtures are UTF-8");
        let template = arm::build_template(&text, &file).expect("the fixture builds");
        let shuffled = arm::build_template(&order.join("\n"), &file).expect("reordered declarations build");
        proptest::prop_assert_eq!(shuffled, template);
    }
}

#[test]
fn formatting_keeps_the_template() {
    for path in fixtures::files(&dir("build"), "arm") {
        let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
        let formatted = nacl_syntax::arm::format::format(&text);
        assert_eq!(
            arm::build_template(&formatted, &path).ok(),
            arm::build_template(&text, &path).ok(),
            "{}",
            path.display()
        );
    }
}
