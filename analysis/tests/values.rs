//! Data-driven value tests: every `test_data/values/*.nacl` file is read into fragments and the
//! value of each key is compared with the `.values` snapshot beside it (`UPDATE_EXPECT=1`
//! rewrites them). Strings are shown with Rust escapes, so a `\r` in a value is visible.

use nacl_analysis::db::FileFragments;
use nacl_analysis::fragments::{Entry, TemplatePart, Value, ValueKind};
use std::{fmt::Write, path::Path};

fn dump_value(value: &Value) -> String {
    match &value.kind {
        ValueKind::String(s) => format!("{s:?}"),
        ValueKind::Template(parts) => {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| match p {
                    TemplatePart::Text(t) => format!("{t:?}"),
                    TemplatePart::Reference(r) => format!("${{{}}}", r.text),
                })
                .collect();
            format!("template [{}]", parts.join(", "))
        }
        ValueKind::Number(n) => n.to_string(),
        ValueKind::Bool(b) => b.to_string(),
        ValueKind::Reference(r) => format!("reference {r}"),
        ValueKind::List(items) => format!("[{}]", items.iter().map(dump_value).collect::<Vec<_>>().join(", ")),
        ValueKind::Object(entries) => format!("{{{}}}", dump_entries(entries, "; ")),
        other => format!("{other:?}"),
    }
}

fn dump_entries(entries: &[Entry], separator: &str) -> String {
    entries.iter().map(|e| format!("{} = {}", e.key, dump_value(&e.value))).collect::<Vec<_>>().join(separator)
}

#[test]
fn values_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/values");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the values fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "nacl"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let text = std::fs::read_to_string(&path).expect("fixtures are UTF-8");
        let read = FileFragments::of_text(&text.into());
        assert!(read.syntax_errors.is_empty(), "{}: {:?}", path.display(), read.syntax_errors);
        let mut out = String::new();
        for fragment in read.fragments.iter() {
            for entry in &fragment.values {
                let _ = writeln!(out, "{}.{} = {}", fragment.id, entry.key, dump_value(&entry.value));
            }
        }
        expect_test::expect_file![path.with_extension("values")].assert_eq(&out);
    }
}
