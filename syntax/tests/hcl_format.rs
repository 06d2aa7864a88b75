//! The HCL formatter: fixtures with expected output, properties on generated files, and the
//! comparison with HashiCorp's `hclfmt` on the fixtures and on generated files.

mod hcl_gen;

use nacl_syntax::{TextRange, TextSize, hcl};
use std::path::Path;

/// The tokens of `text` other than spaces: formatting may change nothing else.
fn significant(text: &str) -> Vec<String> {
    let lexed = hcl::lexer::lex(text);
    let mut at = 0usize;
    let mut out = Vec::new();
    for token in &lexed.tokens {
        let piece = &text[at..at + token.len as usize];
        at += token.len as usize;
        if token.kind != hcl::SyntaxKind::WHITESPACE {
            out.push(piece.to_owned());
        }
    }
    out
}

/// Formatting keeps every token, is idempotent, and leaves a file with errors as broken as it was.
fn check_invariants(text: &str) -> String {
    let parse = hcl::parse(text);
    let formatted = hcl::format::format_parsed(text, &parse);
    assert_eq!(significant(&formatted), significant(text), "formatting changed more than spaces:\n{text}");
    assert_eq!(hcl::format::format(&formatted), formatted, "formatting twice differs from once:\n{text}");
    assert_eq!(
        hcl::parse(&formatted).errors().is_empty(),
        parse.errors().is_empty(),
        "formatting changed whether the file parses:\n{text}"
    );
    formatted
}

#[test]
fn format_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/hcl/format");
    let oracle = nacl_corpus::hclfmt();
    for path in nacl_syntax::fixtures::files(&dir, "hcl") {
        let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
        let formatted = check_invariants(&text);
        expect_test::expect_file![path.with_extension("fmt")].assert_eq(&formatted.replace('\r', "␍"));
        if let Some(oracle) = &oracle {
            let (parses, reference) = nacl_corpus::hclfmt_reference(oracle, &text);
            if parses {
                assert_eq!(formatted, reference, "{}: differs from hclfmt", path.display());
            }
        }
    }
}

#[test]
fn range_formatting_touches_only_the_lines_in_range() {
    let text = "a = 1\nlong = 2\nblock {\n      x=1\n}\n";
    let parse = hcl::parse(text);
    let at = TextSize::from(text.find("x=1").expect("x") as u32);
    let edit = hcl::format::format_range(text, &parse, TextRange::empty(at)).expect("the line changes");
    let mut result = text.to_owned();
    result.replace_range(std::ops::Range::<usize>::from(edit.range), &edit.new_text);
    assert_eq!(result, "a = 1\nlong = 2\nblock {\n  x = 1\n}\n");
    let whole = hcl::format::format(text);
    assert_eq!(whole, "a    = 1\nlong = 2\nblock {\n  x = 1\n}\n");
}

#[test]
fn generated_files_parse_losslessly_and_format_safely() {
    for seed in 0..2000 {
        let text = hcl_gen::Gen::new(seed).file();
        let parse = hcl::parse(&text);
        assert_eq!(parse.syntax().to_string(), text, "seed {seed}: the tree lost text");
        check_invariants(&text);
    }
}

/// Generated files: the parser agrees with the reference on whether each parses, and the
/// formatter prints what `hclfmt` prints for each that does.
#[test]
fn generated_files_agree_with_hclfmt() {
    let Some(oracle) = nacl_corpus::hclfmt() else { return };
    let mut disagreements = Vec::new();
    let mut parsed = 0;
    for seed in 0..1000 {
        let text = hcl_gen::Gen::new(seed).file();
        let (parses, reference) = nacl_corpus::hclfmt_reference(&oracle, &text);
        let parse = hcl::parse(&text);
        if parse.errors().is_empty() != parses {
            let first = parse.errors().first().map(ToString::to_string).unwrap_or_default();
            disagreements.push(format!("seed {seed}: reference parses: {parses}, here: {first}\n{text}"));
        } else if parses {
            parsed += 1;
            let formatted = hcl::format::format_parsed(&text, &parse);
            if formatted != reference {
                disagreements.push(format!(
                    "seed {seed}: format differs\n--- input\n{text}\n--- hclfmt\n{reference}\n--- here\n{formatted}"
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n\n"));
    assert!(parsed > 100, "too few generated files parse ({parsed}): the generator needs fixing");
}
