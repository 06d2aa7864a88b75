//! Helpers shared by the integration tests: what a file means, independent of its layout.

#![allow(dead_code)] // each test binary uses a different part

use nacl_syntax::nacl::{
    Parse, SyntaxKind,
    ast::{AstNodeExt, Block, BodyItem, LiteralValue, Value},
};
use std::fmt::Write;

/// A layout-independent dump of a file's meaning: blocks with decoded labels, attributes with
/// decoded values, and nodes the parser could not place as their text.
pub fn semantic_dump(parse: &Parse) -> String {
    let mut out = String::new();
    for node in parse.syntax().children() {
        match Block::cast(node.clone()) {
            Some(block) => dump_block(&mut out, &block, 0),
            None => {
                let _ = writeln!(out, "verbatim {:?}", node.text().to_string());
            }
        }
    }
    out
}

fn dump_block(out: &mut String, block: &Block, depth: usize) {
    let _ = writeln!(out, "{}block {:?}", "  ".repeat(depth), block.label_texts());
    let Some(body) = block.body() else { return };
    for item in body.items() {
        match item {
            BodyItem::Block(nested) => dump_block(out, &nested, depth + 1),
            BodyItem::Attribute(attribute) => {
                let key = attribute.key().map(|k| k.text().into_owned()).unwrap_or_default();
                let value = attribute.value().map(|v| dump_value(&v)).unwrap_or_default();
                let _ = writeln!(out, "{}{key:?} = {value}", "  ".repeat(depth + 1));
            }
        }
    }
}

fn dump_value(value: &Value) -> String {
    match value {
        Value::String(s) => format!("s{:?}", s.value()),
        Value::Multiline(s) => format!("m{:?}", s.value()),
        Value::Literal(l) => match l.value() {
            Some(LiteralValue::Bool(b)) => b.to_string(),
            Some(LiteralValue::Number(n)) => n,
            None => "?".to_owned(),
        },
        Value::Reference(r) => format!("ref {}", r.syntax().text()),
        Value::List(l) => format!("[{}]", l.items().map(|v| dump_value(&v)).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.attributes()
                .map(|a| format!(
                    "{:?} = {}",
                    a.key().map(|k| k.text().into_owned()).unwrap_or_default(),
                    a.value().map(|v| dump_value(&v)).unwrap_or_default()
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Value::Call(c) => format!(
            "{}({})",
            c.name().map(|n| n.text().to_owned()).unwrap_or_default(),
            c.args().map(|v| dump_value(&v)).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The comments of a file, in order, without trailing whitespace.
pub fn comments(parse: &Parse) -> Vec<String> {
    parse
        .syntax()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| matches!(t.kind(), SyntaxKind::COMMENT | SyntaxKind::HASH_COMMENT))
        .map(|t| t.text().trim_end().to_owned())
        .collect()
}

/// Checks what formatting must preserve; returns the formatted text.
pub fn check_format_invariants(text: &str) -> String {
    let before = nacl_syntax::nacl::parse(text);
    let formatted = nacl_syntax::nacl::format::format_parsed(text, &before);
    let after = nacl_syntax::nacl::parse(&formatted);
    assert_eq!(nacl_syntax::nacl::format::format(&formatted), formatted, "formatting is not idempotent for:\n{text}");
    assert!(
        after.errors().len() <= before.errors().len(),
        "formatting added errors: {:?}\ninput:\n{text}\nformatted:\n{formatted}",
        after.errors()
    );
    assert_eq!(
        semantic_dump(&after),
        semantic_dump(&before),
        "formatting changed values of:\n{text}\nformatted:\n{formatted}"
    );
    assert_eq!(comments(&after), comments(&before), "formatting changed comments of:\n{text}");
    formatted
}
