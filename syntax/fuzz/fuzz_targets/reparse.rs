//! Reparsing after an edit equals parsing the edited text. The input is a NaCl text; a few edits
//! (inserting or deleting characters that keep or end string text, objects, lists and blocks)
//! are made to it at places drawn from its length, each reparsed from the tree before it.
#![no_main]

/// What the edits insert ("" deletes a character).
const INSERTS: [&str; 12] = ["a", "é", "", " x ", "\"", "$", "", "\n", "{", "}", "]", " = "];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut text = text.to_owned();
    let mut parse = nacl_syntax::nacl::parse(&text);
    let mut seed = text.len() as u64 ^ 0x9E37_79B9_7F4A_7C15;
    for insert in INSERTS {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let mut at = (seed >> 33) as usize % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let end = if insert.is_empty() { text[at..].chars().next().map_or(at, |c| at + c.len_utf8()) } else { at };
        let mut edited = text.clone();
        edited.replace_range(at..end, insert);
        let reparsed = nacl_syntax::nacl::reparse(&parse, &text, &edited);
        let full = nacl_syntax::nacl::parse(&edited);
        assert_eq!(reparsed, full, "edit at {at}..{end} inserting {insert:?}");
        (text, parse) = (edited, full);
    }
});
