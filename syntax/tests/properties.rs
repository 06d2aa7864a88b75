//! Invariants that hold for every input: parsing never panics, the tree holds every byte,
//! and every error range lies inside the text.

use proptest::prelude::*;

fn check_invariants(text: &str) {
    let parse = nacl_syntax::nacl::parse(text);
    assert_eq!(parse.syntax().to_string(), text);
    check_errors(text, parse.errors());
}

fn check_hcl_invariants(text: &str) {
    let parse = nacl_syntax::hcl::parse(text);
    assert_eq!(parse.syntax().to_string(), text);
    check_errors(text, parse.errors());
}

fn check_errors(text: &str, errors: &[nacl_syntax::SyntaxError]) {
    let len = nacl_syntax::TextSize::of(text);
    for error in errors {
        assert!(error.range.end() <= len, "error {error} outside the text");
        assert!(text.is_char_boundary(error.range.start().into()) && text.is_char_boundary(error.range.end().into()));
    }
}

/// Fragments of NaCl, so generated inputs reach deep into the grammar instead of failing at the
/// first byte.
fn nacl_soup() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "type",
        "settings",
        "vars",
        "annotations",
        "is",
        "salto.t",
        "x",
        "List<string>",
        "\"List<x>\"",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        ",",
        "=",
        ":",
        "\"",
        "\"s\"",
        "\"a${ b.c }d\"",
        "\\",
        "\\${",
        "'''",
        "'''\n",
        "\n'''",
        "${",
        "1",
        "-2.5e3",
        "007",
        "true",
        "file(",
        "//c",
        "# h",
        "/*",
        "*/",
        "<<<<<<< a",
        "=======",
        ">>>>>>> b",
        "é",
        "😀",
        "\u{2028}",
        "@",
        ".",
        "\\u12",
        "\\ud83d",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

/// Fragments of HCL, the same way.
fn hcl_soup() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "b_c",
        "é",
        "-",
        "1",
        "2.5e3",
        ".",
        "...",
        "*",
        "[",
        "]",
        "{",
        "}",
        "(",
        ")",
        ",",
        "=",
        ":",
        "?",
        "=>",
        "==",
        "!",
        "&&",
        "+",
        "<",
        " ",
        "\t",
        "\n",
        "\r\n",
        "#c\n",
        "// c\n",
        "/* c */",
        "/*",
        "\"",
        "${",
        "%{",
        "~",
        "}",
        "\\n",
        "\\q",
        "$${",
        "if ",
        "else",
        "endif",
        "for ",
        " in ",
        "endfor",
        "<<EOT\n",
        "<<-EOT\n",
        "EOT\n",
        "  EOT\n",
        "true",
        "null",
        "block \"l\" {\n",
        "x = ",
        "\u{feff}",
    ]);
    prop::collection::vec(pieces, 0..80).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_string_parses_as_hcl_losslessly(text in any::<String>()) {
        check_hcl_invariants(&text);
    }

    #[test]
    fn hcl_like_text_parses_losslessly(text in hcl_soup()) {
        check_hcl_invariants(&text);
    }

    #[test]
    fn any_string_parses_losslessly(text in any::<String>()) {
        check_invariants(&text);
    }

    #[test]
    fn nacl_like_text_parses_losslessly(text in nacl_soup()) {
        check_invariants(&text);
    }
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    for open in ["[", "{", "a = {\n", "file("] {
        let text = format!("salto.t x {{\n  v = {}\n}}\n", open.repeat(20_000));
        check_invariants(&text);
        let parse = nacl_syntax::nacl::parse(&text);
        assert!(parse.errors().iter().any(|e| e.code == nacl_syntax::nacl::ErrorCode::NestingTooDeep
            || e.code == nacl_syntax::nacl::ErrorCode::Unclosed));
    }
    let nested_blocks = "a b {\n".repeat(10_000);
    check_invariants(&nested_blocks);
}

#[test]
fn deep_hcl_nesting_does_not_overflow_the_stack() {
    for open in ["[", "{", "(", "f(", "-", "!", "\"${", "\"%{ if x }", "a ? b : ", "{ a = "] {
        let text = format!("v = {}\n", open.repeat(50_000));
        check_hcl_invariants(&text);
        let parse = nacl_syntax::hcl::parse(&text);
        assert!(!parse.errors().is_empty(), "{open}: no error");
        assert!(parse.errors().len() < 1_000, "{open}: {} errors, one per token", parse.errors().len());
    }
    check_hcl_invariants(&"a b {\n".repeat(50_000));
    check_hcl_invariants(&"<<EOT\n".repeat(10_000));
}
