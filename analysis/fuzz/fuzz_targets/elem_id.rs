//! Element-ID parsing never panics, and what it parses renders to a name that parses back to
//! the same ID.
#![no_main]

use nacl_analysis::elem_id::ElemId;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(id) = ElemId::parse(text) else { return };
    let rendered = id.to_string();
    let again = ElemId::parse(&rendered).unwrap_or_else(|e| panic!("`{rendered}` (from `{text}`) does not parse: {e}"));
    assert_eq!(again, id, "`{text}` renders as `{rendered}`, which parses to another ID");
    let _ = (id.top_level(), id.is_top_level());
});
