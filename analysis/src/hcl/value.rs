//! HCL's value model (`hcl-information-model.md`): types, values (null and unknown ones too),
//! equality, conversion and type unification.
//!
//! Numbers are binary floating point with a 512-bit mantissa, as in HashiCorp's implementation
//! ([`super::number`]); strings compare after NFC normalization.

pub use super::number::Number;
use std::{collections::BTreeMap, fmt};
use unicode_normalization::UnicodeNormalization;

/// A type, or the dynamic pseudo-type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// The dynamic pseudo-type: a type not known yet.
    Dynamic,
    /// Unicode text.
    String,
    /// An arbitrary-precision number.
    Number,
    /// `true` or `false`.
    Bool,
    /// An ordered sequence of one element type.
    List(Box<Type>),
    /// A set of distinct values of one element type.
    Set(Box<Type>),
    /// String keys to values of one element type.
    Map(Box<Type>),
    /// Named attributes, each with its own type.
    Object(BTreeMap<String, Type>),
    /// A sequence of elements, each with its own type.
    Tuple(Vec<Type>),
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dynamic => f.write_str("dynamic"),
            Type::String => f.write_str("string"),
            Type::Number => f.write_str("number"),
            Type::Bool => f.write_str("bool"),
            Type::List(e) => write!(f, "list of {e}"),
            Type::Set(e) => write!(f, "set of {e}"),
            Type::Map(e) => write!(f, "map of {e}"),
            Type::Object(attrs) if attrs.is_empty() => f.write_str("object"),
            Type::Object(attrs) => {
                let names: Vec<&str> = attrs.keys().map(String::as_str).collect();
                write!(f, "object with attributes {}", names.join(", "))
            }
            Type::Tuple(elements) => write!(f, "tuple of {} elements", elements.len()),
        }
    }
}

/// A value: known, null or unknown, with its type.
#[derive(Debug, Clone)]
pub enum Value {
    /// The null value of a type.
    Null(Type),
    /// The unknown value of a type (`Unknown(Dynamic)` is the dynamic value).
    Unknown(Type),
    /// A string.
    String(String),
    /// A number.
    Number(Number),
    /// A bool.
    Bool(bool),
    /// A list of values of the element type.
    List(Type, Vec<Value>),
    /// A set of distinct values of the element type, in a consistent order.
    Set(Type, Vec<Value>),
    /// A map of values of the element type.
    Map(Type, BTreeMap<String, Value>),
    /// An object.
    Object(BTreeMap<String, Value>),
    /// A tuple.
    Tuple(Vec<Value>),
}

impl Value {
    /// A string value, NFC-normalized as HCL keeps all strings.
    pub fn string(text: &str) -> Value {
        // ASCII text is already in NFC.
        if text.is_ascii() { Value::String(text.to_owned()) } else { Value::String(text.nfc().collect()) }
    }

    /// A whole number.
    pub fn number(n: i64) -> Value {
        Value::Number(Number::from_i64(n))
    }

    /// The dynamic value: unknown, of a type not known yet.
    pub fn dynamic() -> Value {
        Value::Unknown(Type::Dynamic)
    }

    /// The value's type.
    pub fn ty(&self) -> Type {
        match self {
            Value::Null(t) | Value::Unknown(t) => t.clone(),
            Value::String(_) => Type::String,
            Value::Number(_) => Type::Number,
            Value::Bool(_) => Type::Bool,
            Value::List(e, _) => Type::List(Box::new(e.clone())),
            Value::Set(e, _) => Type::Set(Box::new(e.clone())),
            Value::Map(e, _) => Type::Map(Box::new(e.clone())),
            Value::Object(attrs) => Type::Object(attrs.iter().map(|(k, v)| (k.clone(), v.ty())).collect()),
            Value::Tuple(elements) => Type::Tuple(elements.iter().map(Value::ty).collect()),
        }
    }

    /// Whether it is a null value.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null(_))
    }

    /// Whether it is unknown, or holds an unknown value anywhere inside.
    pub fn is_unknown(&self) -> bool {
        match self {
            Value::Unknown(_) => true,
            Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items) => items.iter().any(Value::is_unknown),
            Value::Map(_, items) | Value::Object(items) => items.values().any(Value::is_unknown),
            _ => false,
        }
    }

    /// Equality as HCL defines it: identical types and equal values; `None` when an unknown value
    /// makes it unknowable.
    pub fn equals(&self, other: &Value) -> Option<bool> {
        if self.is_unknown() || other.is_unknown() {
            return None;
        }
        // `x == null` holds for the null of any type (the idiom configurations rely on).
        if self.is_null() || other.is_null() {
            return Some(self.is_null() && other.is_null());
        }
        Some(self.ty() == other.ty() && self.same(other))
    }

    /// Structural equality of two known values of one type.
    fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null(_), Value::Null(_)) => true,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::List(_, a), Value::List(_, b))
            | (Value::Set(_, a), Value::Set(_, b))
            | (Value::Tuple(a), Value::Tuple(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y)),
            (Value::Map(_, a), Value::Map(_, b)) | (Value::Object(a), Value::Object(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|((ka, va), (kb, vb))| ka == kb && va.same(vb))
            }
            _ => false,
        }
    }

    /// The elements of a list, set or tuple, or `None`.
    pub fn elements(&self) -> Option<&[Value]> {
        match self {
            Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items) => Some(items),
            _ => None,
        }
    }

    /// The value as JSON, as HashiCorp's `hcldec` prints values (numbers exactly, infinities and
    /// unknown values as `null`).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null(_) | Value::Unknown(_) => J::Null,
            Value::String(s) => J::String(s.clone()),
            Value::Number(n @ Number::Finite(_)) => serde_json::from_str(&n.to_string()).unwrap_or(J::Null),
            Value::Number(_) => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items) => {
                J::Array(items.iter().map(Value::to_json).collect())
            }
            Value::Map(_, items) | Value::Object(items) => {
                J::Object(items.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
        }
    }
}

impl fmt::Display for Value {
    /// HCL-like notation, for messages and tests.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null(_) => f.write_str("null"),
            Value::Unknown(t) => write!(f, "(unknown {t})"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items) => {
                let kind = match self {
                    Value::List(..) => "list",
                    Value::Set(..) => "set",
                    _ => "tuple",
                };
                let items: Vec<String> = items.iter().map(ToString::to_string).collect();
                write!(f, "{kind}[{}]", items.join(", "))
            }
            Value::Map(_, items) | Value::Object(items) => {
                let kind = if matches!(self, Value::Map(..)) { "map" } else { "object" };
                let items: Vec<String> = items.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                write!(f, "{kind}{{{}}}", items.join(", "))
            }
        }
    }
}

/// Converts `value` to type `to`, as HCL converts: primitives between strings and numbers or
/// bools, collections and structures element by element, nulls to nulls, the dynamic type to
/// anything and anything to the dynamic type. The error says why it cannot.
pub fn convert(value: &Value, to: &Type) -> Result<Value, String> {
    let from = value.ty();
    if &from == to || *to == Type::Dynamic {
        return Ok(value.clone());
    }
    match value {
        Value::Null(_) => return Ok(Value::Null(to.clone())),
        Value::Unknown(_) => return Ok(Value::Unknown(to.clone())),
        _ => {}
    }
    let cannot = || format!("a {} cannot be converted to a {to}", from);
    match (value, to) {
        (Value::Number(n), Type::String) => Ok(Value::String(n.to_string())),
        (Value::Bool(b), Type::String) => Ok(Value::String(b.to_string())),
        (Value::String(s), Type::Number) => match Number::parse(s).filter(|_| !s.contains(['e', 'E'])) {
            Some(n) => Ok(Value::Number(n)),
            None => Err(format!("{s:?} is not a number")),
        },
        (Value::String(s), Type::Bool) => match s.as_str() {
            "true" | "1" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(format!("{s:?} is not a bool: use true or false")),
        },
        (Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items), Type::List(element)) => {
            let element = element_type(items, element)?;
            let items = items.iter().map(|v| convert(v, &element)).collect::<Result<Vec<_>, _>>()?;
            Ok(Value::List(element, items))
        }
        (Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items), Type::Set(element)) => {
            let element = element_type(items, element)?;
            let mut out: Vec<Value> = Vec::new();
            for item in items {
                let item = convert(item, &element)?;
                if !out.iter().any(|o| o.equals(&item) == Some(true)) {
                    out.push(item);
                }
            }
            out.sort_by_key(|v| v.to_string());
            Ok(Value::Set(element, out))
        }
        (Value::List(_, items) | Value::Set(_, items) | Value::Tuple(items), Type::Tuple(types)) => {
            if items.len() != types.len() {
                return Err(format!("{} elements cannot become a tuple of {}", items.len(), types.len()));
            }
            Ok(Value::Tuple(items.iter().zip(types).map(|(v, t)| convert(v, t)).collect::<Result<_, _>>()?))
        }
        (Value::Map(_, items) | Value::Object(items), Type::Map(element)) => {
            let values: Vec<Value> = items.values().cloned().collect();
            let element = element_type(&values, element)?;
            let items = items
                .iter()
                .map(|(k, v)| Ok((k.clone(), convert(v, &element)?)))
                .collect::<Result<BTreeMap<_, _>, String>>()?;
            Ok(Value::Map(element, items))
        }
        (Value::Map(_, items), Type::Object(attrs)) => {
            if items.keys().ne(attrs.keys()) {
                return Err("the map's keys are not the object's attributes".to_owned());
            }
            object_from(items, attrs)
        }
        (Value::Object(items), Type::Object(attrs)) => {
            if let Some(extra) = items.keys().find(|k| !attrs.contains_key(*k)) {
                return Err(format!("the object has an attribute `{extra}` the type does not"));
            }
            object_from(items, attrs)
        }
        _ => Err(cannot()),
    }
}

/// The element type of a collection made of `items`: `wanted`, or when it is dynamic the items'
/// unified type.
fn element_type(items: &[Value], wanted: &Type) -> Result<Type, String> {
    if *wanted != Type::Dynamic {
        return Ok(wanted.clone());
    }
    let types: Vec<Type> = items.iter().map(Value::ty).collect();
    unify(&types).ok_or_else(|| "the elements have no common type".to_owned())
}

fn object_from(items: &BTreeMap<String, Value>, attrs: &BTreeMap<String, Type>) -> Result<Value, String> {
    let mut out = BTreeMap::new();
    for (name, ty) in attrs {
        let value = match items.get(name) {
            Some(v) => convert(v, ty).map_err(|e| format!("attribute `{name}`: {e}"))?,
            None => Value::Null(ty.clone()),
        };
        out.insert(name.clone(), value);
    }
    Ok(Value::Object(out))
}

/// The most general type all of `types` convert to, preferring safe conversions; `None` when
/// there is none.
pub fn unify(types: &[Type]) -> Option<Type> {
    let mut known = types.iter().filter(|t| **t != Type::Dynamic);
    let Some(first) = known.next() else { return Some(Type::Dynamic) };
    known.try_fold(first.clone(), |a, b| unify_two(&a, b))
}

fn unify_two(a: &Type, b: &Type) -> Option<Type> {
    use Type::*;
    if a == b {
        return Some(a.clone());
    }
    Some(match (a, b) {
        (Dynamic, t) | (t, Dynamic) => t.clone(),
        (String, Number | Bool) | (Number | Bool, String) => String,
        (List(x), List(y)) => List(Box::new(unify_two(x, y)?)),
        (Set(x), Set(y)) => Set(Box::new(unify_two(x, y)?)),
        (Map(x), Map(y)) => Map(Box::new(unify_two(x, y)?)),
        (List(x), Set(y)) | (Set(y), List(x)) => List(Box::new(unify_two(x, y)?)),
        (Object(x), Object(y)) => {
            let mut out = x.clone();
            for (name, ty) in y {
                let merged = match out.get(name) {
                    Some(existing) => unify_two(existing, ty)?,
                    None => ty.clone(),
                };
                out.insert(name.clone(), merged);
            }
            Object(out)
        }
        (Object(attrs), Map(element)) | (Map(element), Object(attrs)) => {
            Object(attrs.iter().map(|(k, t)| Some((k.clone(), unify_two(t, element)?))).collect::<Option<_>>()?)
        }
        (Tuple(x), Tuple(y)) if x.len() == y.len() => {
            Tuple(x.iter().zip(y).map(|(p, q)| unify_two(p, q)).collect::<Option<_>>()?)
        }
        (Tuple(items), List(element) | Set(element)) | (List(element) | Set(element), Tuple(items)) => {
            Tuple(items.iter().map(|t| unify_two(t, element)).collect::<Option<_>>()?)
        }
        _ => return None,
    })
}
