//! Instance values checked against their types: instances of types that do not exist, values of
//! the wrong primitive kind, missing `_required` fields, and `_restriction`s.
//!
//! The rules are Salto's (section 5 of the reference), in our own words and without its bugs: a
//! range message names both bounds correctly, numeric `values` restrictions compare numbers, and
//! warnings are never hidden behind errors.

use crate::{
    db::{
        Db, ElementKey, SourceFile, Workspace, element_files, element_index, env_state, file_fragments, fragments_of,
    },
    diagnostics::Diagnostic,
    elem_id::{CONFIG_NAME, ElemId, container_inner},
    fragments::{Fragment, FragmentKind, Primitive, Value, ValueKind},
    types::{FieldInfo, Restriction, builtin_primitive, type_info, type_suggestion},
};
use nacl_syntax::{ErrorCode, TextRange};

/// Keys that are instance annotations, not values (Salto moves them out of the value).
const INSTANCE_ANNOTATIONS: [&str; 10] = [
    "_depends_on",
    "_parent",
    "_generated_dependencies",
    "_hidden",
    "_service_url",
    "_created_by",
    "_created_at",
    "_changed_by",
    "_changed_at",
    "_alias",
];

/// Checks every instance the file defines.
pub(crate) fn instances(
    db: &dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    file: SourceFile,
    out: &mut Vec<Diagnostic>,
) {
    for fragment in &file_fragments(db, file).fragments {
        if fragment.kind != FragmentKind::Instance {
            continue;
        }
        let type_id = fragment.id.type_of();
        // Adapter config types are defined by the adapters, never in NaCl.
        if type_id.type_name == CONFIG_NAME {
            continue;
        }
        let key = ElementKey::new(db, env.map(str::to_owned), type_id.clone());
        let Some(info) = type_info(db, workspace, key) else {
            missing_type(db, workspace, env, fragment, &type_id, key, out);
            continue;
        };
        if !matches!(info.kind, FragmentKind::Object { .. }) {
            continue;
        }
        let checker = Checker { db, workspace, env };
        let mut found = Vec::new();
        for entry in &fragment.values {
            match info.field(&entry.key) {
                Some(field) => checker.value(field, &entry.key, &entry.value, &mut found),
                None if info.closed && !INSTANCE_ANNOTATIONS.contains(&&*entry.key) => found.push(warning(
                    ErrorCode::AdditionalProperty,
                    entry.key_range,
                    format!("`{}` is not a field of `{type_id}`, which does not allow other keys (`_additional_properties = false`)", entry.key),
                )),
                None => {}
            }
        }
        out.extend(found);
        for field in missing_required_fields(db, workspace, env, fragment, info) {
            out.push(warning(
                ErrorCode::MissingRequiredField,
                fragment.header_range,
                format!("`{}` does not set `{}`, which its type marks `_required`", fragment.id, field.name),
            ));
        }
    }
}

/// Reports an instance whose type is neither in NaCl nor merged from Salto's state.
fn missing_type<'db>(
    db: &'db dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    fragment: &Fragment,
    type_id: &ElemId,
    key: ElementKey<'db>,
    out: &mut Vec<Diagnostic>,
) {
    let at = fragment.type_range.unwrap_or(fragment.header_range);
    let state = env_state(db, workspace, env).filter(|s| s.has_account(&type_id.adapter));
    let suggestion =
        || type_suggestion(db, workspace, key).as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
    match state {
        // Salto merges only hidden state types: a visible one is in the service but not in NaCl.
        Some(state) if state.element(type_id).is_some() => out.push(warning(
            ErrorCode::TypeOnlyInState,
            at,
            format!(
                "type `{type_id}` is only in Salto's state, where it is not hidden, so Salto does not merge it and `{}` is not type-checked; fetch it into NaCl to check it",
                fragment.id
            ),
        )),
        Some(_) => out.push(warning(
            ErrorCode::MissingType,
            at,
            format!(
                "type `{type_id}` does not exist in NaCl nor in Salto's state{}, so `{}` is not type-checked",
                suggestion(),
                fragment.id
            ),
        )),
        // Without state, types missing from NaCl are usually hidden in it (all of Jira's and
        // Zendesk's, many of Salesforce's): `check` counts them once per adapter. A name one
        // typo away from an existing type is reported here.
        None => {
            if element_index(db, workspace).adapter_has_types(&type_id.adapter)
                && let Some(suggestion) = type_suggestion(db, workspace, key)
            {
                out.push(warning(
                    ErrorCode::MissingType,
                    at,
                    format!(
                        "type `{type_id}` does not exist (did you mean `{suggestion}`?), so `{}` is not type-checked",
                        fragment.id
                    ),
                ));
            }
        }
    }
}

/// The required fields of `info` (the type of `fragment`, an instance) that none of the
/// instance's fragments sets, leaving out hidden ones (Salto keeps those in its state) and those
/// Salto fills from a `_default` of the field's type.
pub(crate) fn missing_required_fields<'a>(
    db: &dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    fragment: &Fragment,
    info: &'a crate::types::TypeInfo,
) -> Vec<&'a FieldInfo> {
    let checker = Checker { db, workspace, env };
    let keys = instance_keys(db, workspace, env, fragment);
    info.fields
        .iter()
        .filter(|f| f.required && !f.hidden && !checker.hidden_type(&f.type_name))
        .filter(|f| !keys.iter().any(|k| **k == *f.name))
        .filter(|f| !checker.fills_default(&f.type_name, 0))
        .collect()
}

/// The top-level keys an instance sets across all its fragments.
fn instance_keys(
    db: &dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    fragment: &Fragment,
) -> Vec<std::sync::Arc<str>> {
    let mut keys: Vec<std::sync::Arc<str>> = fragment.values.iter().map(|e| e.key.clone()).collect();
    let files = element_files(db, workspace, env, &fragment.id);
    if files.len() > 1 {
        for file in files {
            for other in fragments_of(db, file, &fragment.id) {
                keys.extend(other.values.iter().map(|e| e.key.clone()));
            }
        }
    }
    keys
}

fn warning(code: ErrorCode, range: TextRange, message: String) -> Diagnostic {
    Diagnostic { code, range, message, related: Vec::new() }
}

/// What a field's type expects of a value.
enum Expected {
    Primitive(Primitive),
    Object,
    Anything,
}

struct Checker<'a> {
    db: &'a dyn Db,
    workspace: Workspace,
    env: Option<&'a str>,
}

impl Checker<'_> {
    /// Whether values of type `name` are hidden (`_hidden_value = true` on the type).
    fn hidden_type(&self, name: &str) -> bool {
        let Ok(id) = ElemId::parse(name) else { return false };
        let key = ElementKey::new(self.db, self.env.map(str::to_owned), id);
        type_info(self.db, self.workspace, key).as_ref().is_some_and(|t| t.hidden_value)
    }

    /// Whether Salto fills a value of type `name` from defaults into an instance that leaves it
    /// out: the type has a `_default`, or it is an object type one of whose fields has a
    /// default (directly or, recursively, through its own type).
    fn fills_default(&self, name: &str, depth: usize) -> bool {
        /// Deeper than this, type graphs are assumed to be cycles.
        const MAX_DEPTH: usize = 8;
        let Ok(id) = ElemId::parse(name) else { return false };
        if depth > MAX_DEPTH || !id.is_top_level() || builtin_primitive(name).is_some() {
            return false;
        }
        let key = ElementKey::new(self.db, self.env.map(str::to_owned), id);
        let Some(info) = type_info(self.db, self.workspace, key) else { return false };
        info.default
            || (matches!(info.kind, FragmentKind::Object { .. })
                && info.fields.iter().any(|f| f.default || self.fills_default(&f.type_name, depth + 1)))
    }

    /// What values of type `name` must be.
    fn expected(&self, name: &str) -> Expected {
        if let Some(primitive) = builtin_primitive(name) {
            return Expected::Primitive(primitive);
        }
        let Ok(id) = ElemId::parse(name) else { return Expected::Anything };
        let key = ElementKey::new(self.db, self.env.map(str::to_owned), id);
        match type_info(self.db, self.workspace, key).as_ref().map(|t| &t.kind) {
            Some(FragmentKind::Primitive(p)) => Expected::Primitive(*p),
            Some(FragmentKind::Object { .. }) => Expected::Object,
            // A field whose type does not exist is not checked, as in Salto.
            _ => Expected::Anything,
        }
    }

    fn value(&self, field: &FieldInfo, key: &str, value: &Value, out: &mut Vec<Diagnostic>) {
        let (item_type, is_list) = match container_inner(&field.type_name) {
            Some(inner) if field.type_name.starts_with("List<") => (inner, true),
            // Maps take any keys; their values are not checked yet.
            Some(_) => return,
            None => (&*field.type_name, false),
        };
        let expected = self.expected(item_type);
        let items: Vec<&Value> = match &value.kind {
            // A list for a non-list field is checked item by item, and a single value for a
            // list field as one item, as Salto does.
            ValueKind::List(items) => items.iter().collect(),
            _ => vec![value],
        };
        if let (true, ValueKind::List(items), Some(restriction)) = (is_list, &value.kind, &field.restriction)
            && let Some(max) = restriction.max_list_length.as_deref().and_then(|m| m.parse::<f64>().ok())
            && items.len() as f64 > max
        {
            out.push(warning(
                ErrorCode::RestrictionViolation,
                value.range,
                format!("`{key}` has {} items; its restriction allows at most {max}", items.len()),
            ));
        }
        for item in items {
            if let Some(found) = mismatch(&expected, item) {
                let wanted = match &expected {
                    Expected::Primitive(p) => format!("a {}", p.as_str()),
                    _ => "an object".to_owned(),
                };
                out.push(warning(
                    ErrorCode::InvalidValueType,
                    item.range,
                    format!("`{key}` expects {wanted} (type `{item_type}`), found {found}"),
                ));
            } else if let (Expected::Primitive(_), Some(restriction)) = (&expected, &field.restriction) {
                restricted(restriction, key, item, out);
            }
        }
    }
}

/// What is wrong with a value's kind, if anything.
fn mismatch(expected: &Expected, value: &Value) -> Option<&'static str> {
    let found = match &value.kind {
        // References are checked where they point, file() contents fit any type, and broken
        // values were reported as syntax errors.
        ValueKind::Reference(_) | ValueKind::File { .. } | ValueKind::Invalid => return None,
        ValueKind::String(_) | ValueKind::Template(_) => "a string",
        ValueKind::Number(_) => "a number",
        ValueKind::Bool(_) => "a boolean",
        ValueKind::List(_) => "a list",
        ValueKind::Object(_) => "an object",
    };
    let fits = match expected {
        Expected::Anything | Expected::Primitive(Primitive::Unknown) => true,
        Expected::Primitive(Primitive::String) => found == "a string",
        Expected::Primitive(Primitive::Number) => found == "a number",
        Expected::Primitive(Primitive::Boolean) => found == "a boolean",
        Expected::Object => found == "an object",
    };
    (!fits).then_some(found)
}

/// The value shown in messages, cut short.
fn shown(value: &Value) -> String {
    let text = match &value.kind {
        ValueKind::String(s) => format!("\"{s}\""),
        ValueKind::Number(n) => n.to_string(),
        ValueKind::Bool(b) => b.to_string(),
        _ => "this value".to_owned(),
    };
    if text.chars().count() > 40 { format!("{}…", text.chars().take(39).collect::<String>()) } else { text }
}

fn number(value: &Value) -> Option<f64> {
    match &value.kind {
        ValueKind::Number(n) => n.parse().ok(),
        _ => None,
    }
}

/// Whether two literal values are equal (numbers by value).
fn same(a: &Value, b: &Value) -> bool {
    match (&a.kind, &b.kind) {
        (ValueKind::Number(_), ValueKind::Number(_)) => number(a) == number(b),
        (x, y) => x == y || matches!((x, y), (ValueKind::String(p), ValueKind::String(q)) if p == q),
    }
}

fn restricted(restriction: &Restriction, key: &str, value: &Value, out: &mut Vec<Diagnostic>) {
    // Templates and references are not literal values.
    if !matches!(value.kind, ValueKind::String(_) | ValueKind::Number(_) | ValueKind::Bool(_)) {
        return;
    }
    let mut report = |message: String| out.push(warning(ErrorCode::RestrictionViolation, value.range, message));
    if let Some(allowed) = &restriction.values
        && !allowed.iter().any(|a| same(a, value))
    {
        let list: Vec<String> = allowed.iter().take(8).map(shown).collect();
        let more = if allowed.len() > 8 { format!(" and {} more", allowed.len() - 8) } else { String::new() };
        report(format!("{} is not allowed for `{key}`: expected one of {}{more}", shown(value), list.join(", ")));
    }
    let min = restriction.min.as_deref().and_then(|m| m.parse::<f64>().ok());
    let max = restriction.max.as_deref().and_then(|m| m.parse::<f64>().ok());
    let bounds = match (min, max) {
        (Some(min), Some(max)) => Some(format!("a number from {min} to {max}")),
        (Some(min), None) => Some(format!("a number of at least {min}")),
        (None, Some(max)) => Some(format!("a number of at most {max}")),
        (None, None) => None,
    };
    if let Some(bounds) = bounds {
        let n = number(value);
        if n.is_none_or(|n| min.is_some_and(|min| n < min) || max.is_some_and(|max| n > max)) {
            report(format!("{} is out of range for `{key}`: expected {bounds}", shown(value)));
        }
    }
    if let (Some(pattern), ValueKind::String(text)) = (&restriction.regex, &value.kind)
        && let Ok(regex) = regress::Regex::new(pattern)
        && regex.find(text).is_none()
    {
        report(format!("{} does not match the pattern `{pattern}` that `{key}` requires", shown(value)));
    }
    if let (Some(max), ValueKind::String(text)) =
        (restriction.max_length.as_deref().and_then(|m| m.parse::<f64>().ok()), &value.kind)
    {
        // Salto counts JavaScript string length: UTF-16 code units.
        let length = text.encode_utf16().count();
        if length as f64 > max {
            report(format!("`{key}` is {length} characters long; its restriction allows at most {max}"));
        }
    }
}
