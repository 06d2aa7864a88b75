//! HCL formatting changes only spaces, is idempotent, and never changes whether a file parses.
#![no_main]

use nacl_syntax::hcl;

fn significant(text: &str) -> Vec<&str> {
    let mut at = 0usize;
    let mut out = Vec::new();
    for token in hcl::lexer::lex(text).tokens {
        let piece = &text[at..at + token.len as usize];
        at += token.len as usize;
        if token.kind != hcl::SyntaxKind::WHITESPACE {
            out.push(piece);
        }
    }
    out
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let once = hcl::format::format(text);
    assert_eq!(hcl::format::format(&once), once, "formatting must be idempotent");
    assert_eq!(significant(&once), significant(text), "formatting must change only spaces");
    assert_eq!(hcl::parse(&once).errors().is_empty(), hcl::parse(text).errors().is_empty());
});
