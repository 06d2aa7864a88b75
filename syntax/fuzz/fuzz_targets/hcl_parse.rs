//! The HCL parser never panics, keeps every byte, and reports errors inside the text.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let parse = nacl_syntax::hcl::parse(text);
    assert_eq!(parse.syntax().to_string(), text, "the tree must hold every byte");
    let len = nacl_syntax::TextSize::of(text);
    for error in parse.errors() {
        assert!(error.range.end() <= len, "error {error} outside the text");
    }
});
