//! The spec definition functions (`hcldec-spec-format.md`, "Spec Definition Functions"): what
//! expressions in a spec file (`literal` values, `transform` results, `function` bodies,
//! `variables`) may call. Strings are measured and cut in grapheme clusters, as HCL's reference
//! does.

use super::json::{json_text, value_from_json};
use crate::hcl::{
    eval::{Function, Implementation, Param},
    number::Number,
    value::{Type, Value, unify},
};
use std::{collections::BTreeMap, sync::Arc};
use unicode_segmentation::UnicodeSegmentation;

/// The names of the spec definition functions, in order.
pub const NAMES: [&str; 15] = [
    "abs",
    "coalesce",
    "concat",
    "hasindex",
    "int",
    "jsondecode",
    "jsonencode",
    "length",
    "lower",
    "max",
    "min",
    "reverse",
    "strlen",
    "substr",
    "upper",
];

/// A one-line description of each spec definition function, for hover and completion.
pub fn describe(name: &str) -> Option<&'static str> {
    Some(match name {
        "abs" => "abs(number): the absolute (positive) value of the number",
        "coalesce" => "coalesce(vals...): the first argument that is not null",
        "concat" => "concat(lists...): the lists joined into one",
        "hasindex" => "hasindex(val, idx): whether `val[idx]` would succeed",
        "int" => "int(number): the integer part of the number, rounding towards zero",
        "jsondecode" => "jsondecode(str): the value the JSON text describes",
        "jsonencode" => "jsonencode(val): the value as JSON text",
        "length" => "length(collection): the number of elements of a list, set, map, object or tuple",
        "lower" => "lower(string): the string in lowercase",
        "max" => "max(numbers...): the greatest of the numbers",
        "min" => "min(numbers...): the smallest of the numbers",
        "reverse" => "reverse(string): the string's characters in reverse order",
        "strlen" => "strlen(string): the number of characters in the string",
        "substr" => {
            "substr(string, offset, length): part of the string (a negative offset counts from the end, length -1 is to the end)"
        }
        "upper" => "upper(string): the string in uppercase",
        _ => return None,
    })
}

fn param(name: &str, ty: Type) -> Param {
    Param { name: name.to_owned(), ty, allow_null: false }
}

fn function(params: Vec<Param>, variadic: Option<Param>, returns: Type, implementation: Implementation) -> Function {
    Function { params, variadic, returns, implementation }
}

fn number_arg(value: &Value) -> Result<&Number, String> {
    match value {
        Value::Number(n) => Ok(n),
        other => Err(format!("a number is required, not a {}", other.ty())),
    }
}

fn string_arg(value: &Value) -> Result<&str, String> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(format!("a string is required, not a {}", other.ty())),
    }
}

fn extreme(args: &[Value], greatest: bool) -> Result<Value, String> {
    let mut best: Option<&Number> = None;
    for arg in args {
        let n = number_arg(arg)?;
        best = match best {
            Some(b) if (n > b) == greatest && n != b => Some(n),
            Some(b) => Some(b),
            None => Some(n),
        };
    }
    best.map(|n| Value::Number(n.clone())).ok_or_else(|| "at least one number is required".to_owned())
}

fn substr(text: &str, offset: &Number, length: &Number) -> Result<Value, String> {
    let graphemes: Vec<&str> = text.graphemes(true).collect();
    let count = graphemes.len() as i64;
    let offset = offset.as_i64().ok_or("the offset must be a whole number")?;
    let length = length.as_i64().ok_or("the length must be a whole number")?;
    let start = if offset < 0 { (count + offset).max(0) } else { offset.min(count) };
    let end = if length < 0 { count } else { (start + length).min(count) };
    Ok(Value::string(&graphemes[start as usize..end.max(start) as usize].concat()))
}

fn has_index(collection: &Value, key: &Value) -> Value {
    Value::Bool(match collection {
        Value::List(_, items) | Value::Tuple(items) => {
            matches!(key, Value::Number(n) if n.as_index().is_some_and(|i| i < items.len()))
        }
        Value::Map(_, items) | Value::Object(items) => matches!(key, Value::String(s) if items.contains_key(s)),
        _ => false,
    })
}

fn concat(args: &[Value]) -> Result<Value, String> {
    let mut items = Vec::new();
    let mut types = Vec::new();
    let mut all_lists = true;
    for arg in args {
        match arg {
            Value::List(element, elements) => {
                types.push(element.clone());
                items.extend(elements.iter().cloned());
            }
            Value::Tuple(elements) => {
                all_lists = false;
                items.extend(elements.iter().cloned());
            }
            other => return Err(format!("all arguments must be lists or tuples, not a {}", other.ty())),
        }
    }
    match (all_lists, unify(&types)) {
        (true, Some(element)) if !args.is_empty() => Ok(Value::List(element, items)),
        _ => Ok(Value::Tuple(items)),
    }
}

fn length(value: &Value) -> Result<Value, String> {
    let n = match value {
        Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items) => items.len(),
        Value::Map(_, items) | Value::Object(items) => items.len(),
        other => return Err(format!("a collection is required, not a {}", other.ty())),
    };
    Ok(Value::number(n as i64))
}

/// The spec definition functions, by name.
pub fn spec_functions() -> BTreeMap<String, Function> {
    let mut functions = BTreeMap::new();
    let mut add = |name: &str, f: Function| {
        functions.insert(name.to_owned(), f);
    };
    add(
        "abs",
        function(
            vec![param("num", Type::Number)],
            None,
            Type::Number,
            Arc::new(|a| Ok(Value::Number(number_arg(&a[0])?.abs()))),
        ),
    );
    add(
        "coalesce",
        function(
            Vec::new(),
            Some(Param { name: "vals".to_owned(), ty: Type::Dynamic, allow_null: true }),
            Type::Dynamic,
            Arc::new(|args| {
                args.iter().find(|v| !v.is_null()).cloned().ok_or_else(|| "no non-null arguments".to_owned())
            }),
        ),
    );
    add("concat", function(Vec::new(), Some(param("seqs", Type::Dynamic)), Type::Dynamic, Arc::new(concat)));
    add(
        "hasindex",
        function(
            vec![param("collection", Type::Dynamic), param("key", Type::Dynamic)],
            None,
            Type::Bool,
            Arc::new(|a| Ok(has_index(&a[0], &a[1]))),
        ),
    );
    add(
        "int",
        function(
            vec![param("num", Type::Number)],
            None,
            Type::Number,
            Arc::new(|a| match number_arg(&a[0])? {
                n @ (Number::PosInfinity | Number::NegInfinity) => Err(format!("{n} has no integer part")),
                n => Ok(Value::Number(n.trunc())),
            }),
        ),
    );
    add(
        "jsondecode",
        function(
            vec![param("str", Type::String)],
            None,
            Type::Dynamic,
            Arc::new(|a| {
                let json: serde_json::Value =
                    serde_json::from_str(string_arg(&a[0])?).map_err(|e| format!("invalid JSON: {e}"))?;
                Ok(value_from_json(&json))
            }),
        ),
    );
    add(
        "jsonencode",
        function(
            vec![Param { name: "val".to_owned(), ty: Type::Dynamic, allow_null: true }],
            None,
            Type::String,
            Arc::new(|a| json_text(&a[0]).map(|t| Value::string(&t))),
        ),
    );
    add("length", function(vec![param("collection", Type::Dynamic)], None, Type::Number, Arc::new(|a| length(&a[0]))));
    add(
        "lower",
        function(
            vec![param("str", Type::String)],
            None,
            Type::String,
            Arc::new(|a| Ok(Value::string(&string_arg(&a[0])?.to_lowercase()))),
        ),
    );
    add(
        "max",
        function(Vec::new(), Some(param("numbers", Type::Number)), Type::Number, Arc::new(|a| extreme(a, true))),
    );
    add(
        "min",
        function(Vec::new(), Some(param("numbers", Type::Number)), Type::Number, Arc::new(|a| extreme(a, false))),
    );
    add(
        "reverse",
        function(
            vec![param("str", Type::String)],
            None,
            Type::String,
            Arc::new(|a| Ok(Value::string(&string_arg(&a[0])?.graphemes(true).rev().collect::<String>()))),
        ),
    );
    add(
        "strlen",
        function(
            vec![param("str", Type::String)],
            None,
            Type::Number,
            Arc::new(|a| Ok(Value::number(string_arg(&a[0])?.graphemes(true).count() as i64))),
        ),
    );
    add(
        "substr",
        function(
            vec![param("str", Type::String), param("offset", Type::Number), param("length", Type::Number)],
            None,
            Type::String,
            Arc::new(|a| substr(string_arg(&a[0])?, number_arg(&a[1])?, number_arg(&a[2])?)),
        ),
    );
    add(
        "upper",
        function(
            vec![param("str", Type::String)],
            None,
            Type::String,
            Arc::new(|a| Ok(Value::string(&string_arg(&a[0])?.to_uppercase()))),
        ),
    );
    functions
}
