//! Formatting is idempotent and never adds errors: formatting a formatted file changes nothing,
//! and the formatted text parses with no more errors than the input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let once = nacl_syntax::nacl::format::format(text);
    let twice = nacl_syntax::nacl::format::format(&once);
    assert_eq!(once, twice, "formatting must be idempotent");
    let before = nacl_syntax::nacl::parse(text).errors().len();
    let after = nacl_syntax::nacl::parse(&once).errors().len();
    assert!(after <= before, "formatting added errors: {before} before, {after} after");
});
