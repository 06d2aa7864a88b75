//! What validation needs to know about a type: its kind, and its fields with their types,
//! `_required` flags and `_restriction`s. One small memoized summary per type, so checking an
//! instance never re-merges its type.

use crate::{
    db::{Db, ElementKey, element_index, env_state, merged_element},
    elem_id::ElemId,
    fragments::{Entry, FragmentKind, Primitive, Value, ValueKind},
    hashing::NameMap,
    merge::MergedEntry,
    state::{StateElement, StateField, StateKind},
    values::{Kind, ValueRef},
};
use nacl_syntax::TextRange;

/// A type as validation sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeInfo {
    /// Object or primitive (and which).
    pub kind: FragmentKind,
    /// `_hidden_value = true` on the type: its values live in Salto's state, not in NaCl.
    pub hidden_value: bool,
    /// `_additional_properties = false`: instances may only set declared fields.
    pub closed: bool,
    /// `_default` is set on the type: Salto fills it into instances that leave a field of this
    /// type out.
    pub default: bool,
    /// The fields, in definition order.
    pub fields: Vec<FieldInfo>,
    /// Where each field is in `fields`, by name, for [`TypeInfo::field`] (instances of types
    /// with hundreds of fields look up every key they set). Empty for types with few fields.
    by_name: NameMap<crate::fragments::Text, u32>,
}

/// A field as validation sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldInfo {
    /// The field name.
    pub name: crate::fragments::Text,
    /// Its type name as written.
    pub type_name: crate::fragments::Text,
    /// `_required = true` and no `_default`: instances must set it.
    pub required: bool,
    /// `_default` is set on the field: Salto fills it into instances that leave it out.
    pub default: bool,
    /// `_hidden_value` or `_hidden` on the field, or a hidden built-in type: its value lives in
    /// Salto's state, not in NaCl.
    pub hidden: bool,
    /// Its `_restriction`, when enforced.
    pub restriction: Option<Restriction>,
}

/// A field's `_restriction`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Restriction {
    /// The allowed values.
    pub values: Option<Vec<Value>>,
    /// The smallest allowed number, as written.
    pub min: Option<crate::fragments::Text>,
    /// The largest allowed number, as written.
    pub max: Option<crate::fragments::Text>,
    /// A JavaScript regular expression values must match (anywhere, as Salto tests it).
    pub regex: Option<Pattern>,
    /// The longest allowed string, in UTF-16 units.
    pub max_length: Option<crate::fragments::Text>,
    /// The longest allowed list.
    pub max_list_length: Option<crate::fragments::Text>,
}

/// A restriction's regular expression: the text as written, compiled once (on first use) for
/// all the values it checks.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The expression as written.
    pub text: crate::fragments::Text,
    /// The compiled expression, shared by clones; `None` inside when it does not compile.
    compiled: std::sync::Arc<std::sync::OnceLock<Option<regress::Regex>>>,
}

impl Pattern {
    /// The pattern written as `text`, not compiled yet.
    pub fn new(text: crate::fragments::Text) -> Pattern {
        Pattern { text, compiled: Default::default() }
    }

    /// Whether the expression matches somewhere in `value`; `None` when it does not compile
    /// (such a restriction checks nothing).
    pub fn finds(&self, value: &str) -> Option<bool> {
        let regex = self.compiled.get_or_init(|| regress::Regex::new(&self.text).ok()).as_ref()?;
        Some(regex.find(value).is_some())
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.text == other.text
    }
}

impl Eq for Pattern {}

impl Restriction {
    /// The restriction in words, for hover: `values "a", "b"; min 1; max 10`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(values) = &self.values {
            let shown: Vec<String> =
                values.iter().take(8).map(|v| crate::navigation::short_value(ValueRef::of(v))).collect();
            let more = if values.len() > 8 { format!(" and {} more", values.len() - 8) } else { String::new() };
            parts.push(format!("one of {}{more}", shown.join(", ")));
        }
        let named = [
            ("at least", &self.min),
            ("at most", &self.max),
            ("matching", &self.regex.as_ref().map(|p| p.text.clone())),
            ("at most this many characters:", &self.max_length),
            ("at most this many items:", &self.max_list_length),
        ];
        for (name, value) in named {
            if let Some(value) = value {
                parts.push(format!("{name} `{value}`"));
            }
        }
        parts.join("; ")
    }
}

/// The summary of a type, or `None` when the type has no fragment in that environment.
#[salsa::tracked(returns(ref))]
pub fn type_info<'db>(db: &'db dyn Db, key: ElementKey<'db>) -> Option<TypeInfo> {
    let workspace = *key.workspace(db);
    let state = env_state(db, workspace, key.env(db).as_deref());
    let Some(merged) = merged_element(db, workspace, key.env(db).as_deref(), key.id(db)) else {
        // A hidden type lives only in Salto's state, which Salto merges whole.
        return state.and_then(|s| s.hidden_element(key.id(db))).and_then(state_type_info);
    };
    let mut fields: Vec<FieldInfo> = merged
        .fields
        .iter()
        .map(|field| FieldInfo {
            name: field.name.clone(),
            // A field declared with conflicting types (reported by the merge) is not checked.
            type_name: if field.defs.iter().all(|(_, d)| d.type_name == field.type_name) {
                field.type_name.clone()
            } else {
                arcstr::literal_substr!("unknown")
            },
            // Salto fills `_default` into instances before it checks `_required`.
            required: is_true(&field.annotations, "_required") && first_value(&field.annotations, "_default").is_none(),
            default: first_value(&field.annotations, "_default").is_some(),
            hidden: is_true(&field.annotations, "_hidden_value")
                || is_true(&field.annotations, "_hidden")
                || matches!(&*field.type_name, "hidden_string" | "hidden_boolean"),
            restriction: first_value(&field.annotations, "_restriction").and_then(restriction),
        })
        .collect();
    // Hidden fields the state has and NaCl lacks are merged too (instances never set them).
    if let Some(in_state) = state.and_then(|s| s.element(key.id(db))) {
        for field in in_state.fields.iter().filter(|f| f.hidden || f.hidden_value) {
            if !fields.iter().any(|f| *f.name == *field.name) {
                fields.push(FieldInfo { hidden: true, ..state_field_info(field) });
            }
        }
    }
    let closed = matches!(first_value(&merged.values, "_additional_properties"), Some(Kind::Bool(false)));
    Some(TypeInfo::new(
        merged.kind.clone(),
        is_true(&merged.values, "_hidden_value"),
        closed,
        first_value(&merged.values, "_default").is_some(),
        fields,
    ))
}

/// The summary of a type read from Salto's state.
fn state_type_info(element: &StateElement) -> Option<TypeInfo> {
    let kind = match &element.kind {
        StateKind::Object { settings } => FragmentKind::Object { settings: *settings, meta: None },
        StateKind::Primitive(p) => FragmentKind::Primitive(*p),
        StateKind::Instance { .. } => return None,
    };
    Some(TypeInfo::new(
        kind,
        element.hidden_value,
        element.annotation("_additional_properties") == Some(serde_json::Value::Bool(false)),
        element.annotation("_default").is_some(),
        element.fields.iter().map(state_field_info).collect(),
    ))
}

/// What validation needs of a field read from Salto's state.
fn state_field_info(field: &StateField) -> FieldInfo {
    let flag = |name: &str| field.annotation(name) == Some(serde_json::Value::Bool(true));
    let restriction =
        field.annotation("_restriction").and_then(|json| restriction(ValueRef::of(&json_value(&json)).kind()));
    FieldInfo {
        name: field.name.as_str().into(),
        type_name: field.type_name.as_str().into(),
        required: flag("_required") && field.annotation("_default").is_none(),
        default: field.annotation("_default").is_some(),
        hidden: field.hidden
            || field.hidden_value
            || matches!(field.type_name.as_str(), "hidden_string" | "hidden_boolean"),
        restriction,
    }
}

/// A JSON value from Salto's state as a NaCl value (with no place in any file).
pub fn json_value(json: &serde_json::Value) -> Value {
    use serde_json::Value as Json;
    let kind = match json {
        Json::Null => ValueKind::Invalid,
        Json::Bool(b) => ValueKind::Bool(*b),
        Json::Number(n) => ValueKind::Number(n.to_string().into()),
        Json::String(s) => ValueKind::String(s.as_str().into()),
        Json::Array(items) => ValueKind::List(items.iter().map(json_value).collect()),
        Json::Object(entries) => ValueKind::Object(
            entries
                .iter()
                .map(|(key, value)| Entry {
                    key: key.as_str().into(),
                    key_range: TextRange::default(),
                    value: json_value(value),
                })
                .collect(),
        ),
    };
    Value { kind, range: TextRange::default() }
}

/// Up to this many fields, a field is found by a scan rather than by [`TypeInfo`]'s map.
const FIELDS_SCANNED: usize = 8;

impl TypeInfo {
    /// A type's summary; `fields` in definition order.
    fn new(kind: FragmentKind, hidden_value: bool, closed: bool, default: bool, fields: Vec<FieldInfo>) -> TypeInfo {
        let mut by_name = NameMap::default();
        if fields.len() > FIELDS_SCANNED {
            // In reverse, so of two fields with one name the first declared is kept, as by a scan.
            by_name.extend(fields.iter().enumerate().rev().map(|(i, f)| (f.name.clone(), i as u32)));
        }
        TypeInfo { kind, hidden_value, closed, default, fields, by_name }
    }

    /// The field of that name (the first declared, if several have it).
    pub fn field(&self, name: &str) -> Option<&FieldInfo> {
        if self.by_name.is_empty() {
            self.fields.iter().find(|f| &*f.name == name)
        } else {
            self.by_name.get(name).map(|&i| &self.fields[i as usize])
        }
    }
}

fn is_true<F>(entries: &[MergedEntry<F>], key: &str) -> bool {
    matches!(first_value(entries, key), Some(Kind::Bool(true)))
}

fn first_value<'a, F>(entries: &'a [MergedEntry<F>], key: &str) -> Option<Kind<'a>> {
    let (_, entry) = entries.iter().find(|e| &*e.key == key)?.defs.first()?;
    Some(ValueRef::of(&entry.value).kind())
}

/// Reads a `_restriction = { ... }` object; `enforce_value = false` turns it off.
fn restriction(value: Kind<'_>) -> Option<Restriction> {
    let Kind::Object(entries) = value else { return None };
    let get = |key: &str| entries.get(key).map(|e| e.value().kind());
    if matches!(get("enforce_value"), Some(Kind::Bool(false))) {
        return None;
    }
    let number = |key: &str| match get(key) {
        Some(Kind::Number(n)) => Some(n.to_text()),
        _ => None,
    };
    let restriction = Restriction {
        values: match get("values") {
            Some(Kind::List(items)) => Some(items.to_vec()),
            _ => None,
        },
        min: number("min"),
        max: number("max"),
        regex: match get("regex") {
            Some(Kind::String(s)) => Some(Pattern::new(s.to_text())),
            _ => None,
        },
        max_length: number("max_length"),
        max_list_length: number("max_list_length"),
    };
    (restriction != Restriction::default()).then_some(restriction)
}

/// The existing type (in NaCl, or hidden in Salto's state) of the same adapter whose name is
/// closest to a type that does not exist,
/// when it is close enough to be a likely typo.
#[salsa::tracked(returns(ref))]
pub fn type_suggestion<'db>(db: &'db dyn Db, key: ElementKey<'db>) -> Option<ElemId> {
    let workspace = *key.workspace(db);
    let missing = key.id(db);
    let in_nacl = element_index(db, workspace)
        .types_by_adapter
        .get(missing.adapter.as_str())
        .into_iter()
        .flatten()
        .map(|id| &**id);
    let in_state = env_state(db, workspace, key.env(db).as_deref()).into_iter().flat_map(|s| s.hidden_types());
    let allowed = (missing.type_name.chars().count() / 5).clamp(1, 3);
    in_nacl
        .chain(in_state.filter(|t| t.adapter == missing.adapter))
        .map(|t| (strsim::osa_distance(&t.type_name, &missing.type_name), t))
        .filter(|(distance, _)| *distance <= allowed)
        .min_by_key(|(distance, t)| (*distance, t.type_name.clone()))
        .map(|(_, t)| t.clone())
}

/// The primitive category a built-in type name stands for.
pub fn builtin_primitive(name: &str) -> Option<Primitive> {
    Some(match name {
        "string" | "serviceid" | "json" | "hidden_string" => Primitive::String,
        "number" | "serviceid_number" => Primitive::Number,
        "boolean" | "hidden_boolean" => Primitive::Boolean,
        "unknown" => Primitive::Unknown,
        _ => return None,
    })
}
