//! ARMLang's formatter: fixtures with expected output, and properties on generated input (the
//! parse keeps every byte, formatting twice is formatting once, and formatting keeps the meaning).

use proptest::prelude::*;
use std::path::Path;

fn tokens_without_trivia(text: &str) -> Vec<String> {
    use nacl_syntax::arm::SyntaxKind;
    let parse = nacl_syntax::arm::parse(text);
    parse
        .syntax()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| !t.kind().is_trivia() && t.kind() != SyntaxKind::NEWLINE && t.kind() != SyntaxKind::COLON)
        .map(|t| t.text().to_owned())
        .collect()
}

/// Formats `text`, checking the invariants every formatting keeps.
fn check_format(text: &str) -> String {
    let formatted = nacl_syntax::arm::format::format(text);
    assert_eq!(nacl_syntax::arm::format::format(&formatted), formatted, "formatting twice differs for {text:?}");
    let before = nacl_syntax::arm::parse(text);
    let after = nacl_syntax::arm::parse(&formatted);
    if before.errors().is_empty() {
        assert!(after.errors().is_empty(), "formatting broke {text:?} into {formatted:?}");
        assert_eq!(tokens_without_trivia(text), tokens_without_trivia(&formatted), "meaning changed for {text:?}");
    }
    formatted
}

#[test]
fn format_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/arm/format");
    for path in nacl_syntax::fixtures::files(&dir, "arm") {
        let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
        let formatted = check_format(&text);
        expect_test::expect_file![path.with_extension("fmt")].assert_eq(&formatted.replace('\r', "␍"));
    }
}

fn expr(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop::sample::select(vec![
        "1",
        "-2.5",
        "1e3",
        "true",
        "null",
        "x",
        "'s'",
        "'a${x}b'",
        "'''\nm\n'''",
        "f()",
        "r.id()",
        "a.b",
        "a[0]",
    ])
    .prop_map(str::to_owned);
    leaf.prop_recursive(depth, 24, 4, |inner| {
        prop_oneof![
            (inner.clone(), prop::sample::select(vec!["+", "-", "*", "==", "&&", "=~"]), inner.clone())
                .prop_map(|(a, op, b)| format!("{a} {op} {b}")),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, a, b)| format!("({c}) ? ({a}) : ({b})")),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|items| format!("[{}]", items.join("\n"))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|values| {
                let props: Vec<String> = values.iter().enumerate().map(|(i, v)| format!("k{i}: {v}")).collect();
                format!("{{\n{}\n}}", props.join("\n"))
            }),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|args| format!("f({})", args.join(", "))),
            inner.prop_map(|x| format!("({x})")),
        ]
    })
    .boxed()
}

fn declaration() -> impl Strategy<Value = String> {
    (0..5usize, expr(3), prop::sample::select(vec!["", " // c", " /* c */"])).prop_map(|(kind, value, comment)| {
        match kind {
            0 => format!("input string i: {value}{comment}"),
            1 => format!("output o: {value}{comment}"),
            2 => format!("variable v: {value}{comment}"),
            3 => format!("resource azrm 'T@1' r: {value}{comment}"),
            _ => format!("for x, i in {value} as l {{\n  variable v: x{comment}\n}}"),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn formatting_is_idempotent_and_keeps_meaning(decls in prop::collection::vec(declaration(), 0..5), spaces in "[ \t]{0,3}") {
        let text = decls.iter().map(|d| format!("{spaces}{d}")).collect::<Vec<_>>().join("\n");
        check_format(&text);
    }

    #[test]
    fn parsing_keeps_every_byte(text in "(input|output|variable|resource|for|in|as|[a-z]{1,3}|[0-9.eE]{1,3}|'|'''|\\$\\{|[{}\\[\\]():,.?!=~&|+*-]|\\\\|//|/\\*|\\*/| |\n){0,40}") {
        let parse = nacl_syntax::arm::parse(&text);
        prop_assert_eq!(parse.syntax().to_string(), text.clone());
        check_format(&text);
    }
}
