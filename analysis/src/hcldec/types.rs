//! Type expressions (`hcldec-spec-format.md`, "Type Expressions"): `any`, `string`, `number`,
//! `bool`, `list(T)`, `set(T)`, `map(T)`, `object({name = T, ...})` and `tuple([T, ...])`.

use crate::hcl::{
    eval::{Context, evaluate},
    statics::{keyword, static_call, static_list, static_map},
    value::{Type, Value},
};
use nacl_syntax::{TextRange, hcl::SyntaxNode};
use std::collections::BTreeMap;

/// The names a type expression may use, for completion and messages.
pub const TYPE_KEYWORDS: [&str; 4] = ["any", "string", "number", "bool"];

/// The type constructors, for completion and messages.
pub const TYPE_CONSTRUCTORS: [&str; 5] = ["list", "set", "map", "object", "tuple"];

/// The type `node` spells, or the range and message of what is wrong with it.
pub fn type_of(node: &SyntaxNode) -> Result<Type, (TextRange, String)> {
    let range = node.text_range();
    if let Some(name) = keyword(node) {
        return match name.as_str() {
            "any" => Ok(Type::Dynamic),
            "string" => Ok(Type::String),
            "number" => Ok(Type::Number),
            "bool" => Ok(Type::Bool),
            other => Err((
                range,
                format!(
                    "`{other}` is not a type: use any, string, number, bool, or list(...), set(...), map(...), object({{...}}), tuple([...])"
                ),
            )),
        };
    }
    if let Some((name, args)) = static_call(node) {
        let [arg] = args.as_slice() else {
            return Err((range, format!("`{name}(...)` takes exactly one argument")));
        };
        return match name.as_str() {
            "list" => Ok(Type::List(Box::new(type_of(arg)?))),
            "set" => Ok(Type::Set(Box::new(type_of(arg)?))),
            "map" => Ok(Type::Map(Box::new(type_of(arg)?))),
            "object" => {
                let Some(pairs) = static_map(arg) else {
                    return Err((
                        arg.text_range(),
                        "object(...) takes an object of attribute types: object({ name = string })".to_owned(),
                    ));
                };
                let mut attributes = BTreeMap::new();
                for (key, value) in pairs {
                    let name = match keyword(&key) {
                        Some(name) => name,
                        None => match evaluate(&key, &Context::default()) {
                            (Value::String(s), errors) if errors.is_empty() => s,
                            _ => {
                                return Err((
                                    key.text_range(),
                                    "an attribute name must be a name or a string".to_owned(),
                                ));
                            }
                        },
                    };
                    attributes.insert(name, type_of(&value)?);
                }
                Ok(Type::Object(attributes))
            }
            "tuple" => {
                let Some(items) = static_list(arg) else {
                    return Err((
                        arg.text_range(),
                        "tuple(...) takes a list of element types: tuple([string, number])".to_owned(),
                    ));
                };
                Ok(Type::Tuple(items.iter().map(type_of).collect::<Result<_, _>>()?))
            }
            other => Err((range, format!("`{other}` is not a type constructor: use {}", TYPE_CONSTRUCTORS.join(", ")))),
        };
    }
    Err((range, "a type is required here: any, string, number, bool, or list(...), set(...), map(...), object({...}), tuple([...])".to_owned()))
}

/// A type as a type expression writes it (`map(string)`), for hover and messages.
pub fn type_expression(ty: &Type) -> String {
    match ty {
        Type::Dynamic => "any".to_owned(),
        Type::String => "string".to_owned(),
        Type::Number => "number".to_owned(),
        Type::Bool => "bool".to_owned(),
        Type::List(e) => format!("list({})", type_expression(e)),
        Type::Set(e) => format!("set({})", type_expression(e)),
        Type::Map(e) => format!("map({})", type_expression(e)),
        Type::Object(attributes) => {
            let inner: Vec<String> = attributes.iter().map(|(k, t)| format!("{k} = {}", type_expression(t))).collect();
            format!("object({{{}}})", inner.join(", "))
        }
        Type::Tuple(elements) => {
            let inner: Vec<String> = elements.iter().map(type_expression).collect();
            format!("tuple([{}])", inner.join(", "))
        }
    }
}
