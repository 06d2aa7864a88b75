//! Formatter tests: fixtures with expected output, properties on generated input, and the corpus.

mod common;

use common::check_format_invariants;
use proptest::prelude::*;
use std::path::Path;

/// Every `test_data/nacl/format/*.nacl` file formats to its `.fmt` snapshot, keeping its meaning and
/// comments and formatting twice like once.
#[test]
fn format_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/nacl/format");
    for path in nacl_syntax::fixtures::files(&dir, "nacl") {
        let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
        let formatted = check_format_invariants(&text);
        // expect-test reads snapshots with CRLF turned into LF; show carriage returns as `␍`
        // so the snapshot still proves which line breaks the formatter wrote.
        expect_test::expect_file![path.with_extension("fmt")].assert_eq(&formatted.replace('\r', "␍"));
    }
}

#[test]
fn range_formatting_touches_only_the_blocks_in_range() {
    let text = "salto.t a {\n      x = 1\n}\nsalto.t b {\n      y = 2\n}\n";
    let parse = nacl_syntax::nacl::parse(text);
    let b_start = nacl_syntax::TextSize::from(text.find("salto.t b").expect("b") as u32 + 3);
    let edit = nacl_syntax::nacl::format::format_range(text, &parse, nacl_syntax::TextRange::empty(b_start))
        .expect("a block intersects the range");
    let mut result = text.to_owned();
    result.replace_range(std::ops::Range::<usize>::from(edit.range), &edit.new_text);
    assert_eq!(result, "salto.t a {\n      x = 1\n}\nsalto.t b {\n  y = 2\n}\n");
}

/// A generated value: `(text, is_single_line)`.
fn value(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        prop::sample::select(vec![
            "\"a\"",
            "\"b c\"",
            "\"x\\ny\"",
            "\"${ salto.t.instance.i }\"",
            "\"\\u00e9\"",
            "\"\""
        ]),
        prop::sample::select(vec!["1", "-2.5", "1e3", "true", "false", "salto.t.instance.i.a", "var.x"]),
        prop::sample::select(vec!["file(\"a.txt\")", "file(\"a.txt\", \"utf8\")", "file(\n\"b\",\n)"]),
        prop::sample::select(vec!["'''\nline\n  indented ${ salto.x }\n'''", "'''\n'''", "'''   \n\\''' x\n      '''"]),
    ]
    .prop_map(str::to_owned);
    if depth == 0 {
        return leaf.boxed();
    }
    prop_oneof![
        3 => leaf,
        1 => (prop::collection::vec(value(depth - 1), 0..4), any::<bool>(), any::<bool>(), layout()).prop_map(
            |(items, inline, trailing, (pad, comment))| {
                let inline = inline && items.iter().all(|i| !i.contains('\n') && !i.contains("//"));
                if inline {
                    format!("[{}{}]", items.join(&format!(",{pad}")), if trailing && !items.is_empty() { "," } else { "" })
                } else {
                    let body: String = items.iter().map(|i| format!("\n{pad}{i},{comment}")).collect();
                    format!("[{comment}{body}\n]")
                }
            }
        ),
        1 => (prop::collection::vec(attribute(depth - 1), 0..3), layout()).prop_map(|(entries, (pad, comment))| {
            let body: String = entries.iter().map(|e| format!("\n{pad}{e}{comment}")).collect();
            format!("{{{comment}{body}\n}}")
        }),
    ]
    .boxed()
}

/// Padding and an optional trailing comment, for random layout.
fn layout() -> impl Strategy<Value = (String, String)> {
    (
        prop::sample::select(vec!["", " ", "  ", "\t", "\n\n   "]),
        prop::sample::select(vec!["", "", " // c", "  //trailing  "]),
    )
        .prop_map(|(pad, comment)| (pad.to_owned(), comment.to_owned()))
}

fn attribute(depth: u32) -> impl Strategy<Value = String> {
    (prop::sample::select(vec!["a", "b", "_parent", "\"quoted key\"", "\"word\""]), value(depth), layout()).prop_map(
        |(key, value, (pad, _))| {
            format!("{key}{}={}{value}", pad.replace('\n', ""), if pad.contains('\n') { " " } else { &pad })
        },
    )
}

fn block() -> impl Strategy<Value = String> {
    let header = prop::sample::select(vec![
        "type salto.t",
        "salto.t i",
        "salto.t",
        "vars",
        "settings salto.s",
        "\"salto.t\" \"j k\"",
    ]);
    (header, prop::collection::vec((attribute(2), layout()), 0..5), layout()).prop_map(
        |(header, attrs, (pad, comment))| {
            let mut seen = std::collections::HashSet::new();
            let body: String = attrs
                .into_iter()
                .filter(|(a, _)| seen.insert(a.split(['=', ' ']).next().unwrap_or_default().to_owned()))
                .map(|(a, (p, c))| format!("\n{p}{a}{c}"))
                .collect();
            format!("{header}{pad}{{{comment}{body}\n}}")
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn formatting_generated_files_keeps_meaning(blocks in prop::collection::vec((block(), layout()), 0..4)) {
        let text: String = blocks.into_iter().map(|(b, (pad, comment))| format!("{b}{comment}\n{pad}\n")).collect();
        let parse = nacl_syntax::nacl::parse(&text);
        prop_assume!(parse.errors().iter().all(|e| e.code.as_str().starts_with("E03")));
        check_format_invariants(&text);
    }

    #[test]
    fn formatting_any_text_keeps_meaning(text in "[a-z{}\\[\\]=\"\n ,/#'.]{0,80}") {
        check_format_invariants(&text);
    }
}
