//! The parser never panics, and its tree holds every byte of the input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let parse = nacl_syntax::nacl::parse(text);
    assert_eq!(parse.syntax().to_string(), text, "the tree must hold the input byte for byte");
    for error in parse.errors().iter() {
        assert!(usize::from(error.range.end()) <= text.len(), "an error outside the text: {error}");
    }
});
