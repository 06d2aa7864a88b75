//! Values and types as JSON, byte for byte as HashiCorp's `hcldec` writes them: compact, object
//! keys sorted, numbers as their shortest decimal, `<`, `>`, `&`, U+2028 and U+2029 escaped as Go's
//! encoder escapes them; types in cty's JSON form (`"string"`, `["list","number"]`,
//! `["object",{"a":"bool"}]`, `"dynamic"`).

use crate::hcl::{
    number::Number,
    value::{Type, Value},
};
use std::fmt::Write;

/// A JSON document being written: the shape of `hcldec`'s output before it is printed.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as its decimal text.
    Number(String),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, its properties in the order written.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The compact text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    /// The text indented by two spaces per level, as Go's `json.MarshalIndent(v, "", "  ")`.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write_pretty(&mut out, 0);
        out
    }

    fn write_pretty(&self, out: &mut String, depth: usize) {
        let indent = |out: &mut String, depth: usize| {
            out.push('\n');
            out.extend(std::iter::repeat_n("  ", depth));
        };
        match self {
            Json::Array(items) if !items.is_empty() => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    item.write_pretty(out, depth + 1);
                }
                indent(out, depth);
                out.push(']');
            }
            Json::Object(properties) if !properties.is_empty() => {
                out.push('{');
                for (i, (key, value)) in properties.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    write_string(key, out);
                    out.push_str(": ");
                    value.write_pretty(out, depth + 1);
                }
                indent(out, depth);
                out.push('}');
            }
            other => other.write(out),
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(n),
            Json::String(s) => write_string(s, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(properties) => {
                out.push('{');
                for (i, (key, value)) in properties.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(key, out);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }

    /// The document without object properties whose value is `null`, keys sorted (what `hcldec`
    /// prints without `--keep-nulls`).
    pub fn without_nulls(self) -> Json {
        match self {
            Json::Array(items) => Json::Array(items.into_iter().map(Json::without_nulls).collect()),
            Json::Object(properties) => {
                let mut kept: Vec<(String, Json)> = properties
                    .into_iter()
                    .filter(|(_, v)| *v != Json::Null)
                    .map(|(k, v)| (k, v.without_nulls()))
                    .collect();
                kept.sort_by(|a, b| a.0.cmp(&b.0));
                Json::Object(kept)
            }
            other => other,
        }
    }
}

/// A JSON string as Go's `encoding/json` writes it.
fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A known value as JSON; an error when some part of it is unknown or an infinity (which JSON
/// cannot hold).
pub fn value_json(value: &Value) -> Result<Json, String> {
    Ok(match value {
        Value::Unknown(_) => return Err("value is not known".to_owned()),
        Value::Null(_) => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n @ Number::Finite(_)) => Json::Number(n.to_string()),
        Value::Number(n) => return Err(format!("{n} cannot be written as JSON")),
        Value::String(s) => Json::String(s.clone()),
        Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items) => {
            Json::Array(items.iter().map(value_json).collect::<Result<_, _>>()?)
        }
        Value::Map(_, items) | Value::Object(items) => {
            Json::Object(items.iter().map(|(k, v)| Ok((k.clone(), value_json(v)?))).collect::<Result<_, String>>()?)
        }
    })
}

/// A type in cty's JSON form.
pub fn type_json(ty: &Type) -> Json {
    let tagged = |tag: &str, inner: Json| Json::Array(vec![Json::String(tag.to_owned()), inner]);
    match ty {
        Type::Dynamic => Json::String("dynamic".to_owned()),
        Type::String => Json::String("string".to_owned()),
        Type::Number => Json::String("number".to_owned()),
        Type::Bool => Json::String("bool".to_owned()),
        Type::List(e) => tagged("list", type_json(e)),
        Type::Set(e) => tagged("set", type_json(e)),
        Type::Map(e) => tagged("map", type_json(e)),
        Type::Object(attributes) => {
            tagged("object", Json::Object(attributes.iter().map(|(k, t)| (k.clone(), type_json(t))).collect()))
        }
        Type::Tuple(elements) => tagged("tuple", Json::Array(elements.iter().map(type_json).collect())),
    }
}

/// A value with its type, as `hcldec --with-type` writes it: `{"value":...,"type":...}`.
pub fn value_with_type_json(value: &Value, ty: &Type) -> Result<Json, String> {
    Ok(Json::Object(vec![("value".to_owned(), value_json(value)?), ("type".to_owned(), type_json(ty))]))
}

/// A value as JSON text (`jsonencode`).
pub fn json_text(value: &Value) -> Result<String, String> {
    value_json(value).map(|j| j.text())
}

/// The value a JSON document describes, with the types JSON implies: objects, tuples, numbers,
/// strings, bools and `null`.
pub fn value_from_json(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Null(Type::Dynamic),
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Number::parse(&n.to_string()).map_or(Value::Null(Type::Number), Value::Number),
        serde_json::Value::String(s) => Value::string(s),
        serde_json::Value::Array(items) => Value::Tuple(items.iter().map(value_from_json).collect()),
        serde_json::Value::Object(properties) => {
            Value::Object(properties.iter().map(|(k, v)| (k.clone(), value_from_json(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_go_escapes_them() {
        let json = Json::String("a<b>&\"\\\n\u{1}\u{2028}é".to_owned());
        assert_eq!(json.text(), r#""a\u003cb\u003e\u0026\"\\\n\u0001\u2028é""#);
    }

    #[test]
    fn nulls_go_and_keys_sort_without_keep_nulls() {
        let json = Json::Object(vec![
            ("value".to_owned(), Json::Object(vec![("b".to_owned(), Json::Null), ("a".to_owned(), Json::Bool(true))])),
            ("type".to_owned(), Json::String("dynamic".to_owned())),
        ]);
        assert_eq!(json.without_nulls().text(), r#"{"type":"dynamic","value":{"a":true}}"#);
    }
}
