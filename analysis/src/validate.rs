//! Instance values checked against their types: instances of types that do not exist, values of
//! the wrong primitive kind, missing `_required` fields, and `_restriction`s.
//!
//! The rules are Salto's (section 5 of the reference), in our own words and without its bugs: a
//! range message names both bounds correctly, numeric `values` restrictions compare numbers, and
//! warnings are never hidden behind errors.

use crate::codes::AnalysisCode;
use crate::{
    db::{
        Db, ElementKey, SourceFile, Workspace, element_files, element_index, env_state, file_fragments, fragments_of,
    },
    diagnostics::Diagnostic,
    elem_id::{CONFIG_NAME, ElemId, container_inner},
    fragments::{Fragment, FragmentKind, Primitive},
    types::{FieldInfo, Restriction, TypeInfo, builtin_primitive, type_info, type_suggestion},
    values::{Entries, Kind, ValueRef},
};
use nacl_syntax::TextRange;

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
    let mut checker = Checker::new(db, workspace, env);
    for fragment in file_fragments(db, file).fragments.iter() {
        if fragment.kind != FragmentKind::Instance {
            continue;
        }
        let type_id = fragment.id.type_of();
        // Adapter config types are defined by the adapters, never in NaCl.
        if type_id.type_name == CONFIG_NAME {
            continue;
        }
        let Some(info) = checker.type_info(&type_id) else {
            let key = ElementKey::new(db, workspace, crate::db::EnvRef(env), &type_id);
            missing_type(db, workspace, env, fragment, &type_id, key, out);
            continue;
        };
        if !matches!(info.kind, FragmentKind::Object { .. }) {
            continue;
        }
        checker.elsewhere = other_fragments(db, workspace, env, fragment);
        let mut found = Vec::new();
        checker.object_entries(&type_id, info, fragment.values(), &mut Vec::new(), &mut found);
        out.extend(found);
        for field in checker.missing_required_fields(fragment, info) {
            out.push(warning(
                AnalysisCode::MissingRequiredField,
                fragment.header_range,
                format!("`{}` does not set `{}`, which its type marks `_required`", fragment.id, field.name),
            ));
        }
        hidden_value_conflicts(db, workspace, env, fragment, out);
    }
}

/// The values of an instance's other fragments (in other files), for the keys they add to
/// objects this fragment also sets: Salto merges objects key by key.
fn other_fragments<'db>(
    db: &'db dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    fragment: &Fragment,
) -> Vec<Entries<'db>> {
    let files = element_files(db, workspace, env, &fragment.id);
    if files.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for file in files {
        for other in fragments_of(db, file, &fragment.id) {
            if other.range != fragment.range || other.header_range != fragment.header_range {
                out.push(other.values());
            }
        }
    }
    out
}

/// Values the NaCl sets where Salto's state keeps a hidden value (a field marked
/// `_hidden_value`): Salto merges the state's value into the element, and two values for one
/// key are a merge conflict (as when NaCl still holds a field that became hidden).
fn hidden_value_conflicts(
    db: &dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    fragment: &Fragment,
    out: &mut Vec<Diagnostic>,
) {
    let Some(state) = env_state(db, workspace, env) else { return };
    let Some(element) = state.element(&fragment.id) else { return };
    for (path, _) in &element.hidden_values {
        let Some((_, at)) = fragment.values().at(path) else { continue };
        let file = state.file_of(element).map(std::path::Path::to_path_buf).unwrap_or_default();
        let shown = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        out.push(Diagnostic {
            code: AnalysisCode::DuplicateValue.into(),
            range: at,
            message: format!(
                "`{}` of `{}` is also in Salto's state (`{shown}`), which keeps it because its field is hidden (`_hidden_value`); Salto reports a merge conflict: remove it from NaCl",
                path.join("."),
                fragment.id
            ),
            related: vec![crate::diagnostics::Related {
                path: file,
                range: TextRange::empty(0.into()),
                message: "the hidden value Salto keeps".to_owned(),
            }],
        });
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
        || type_suggestion(db, key).as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
    match state {
        // Salto merges only hidden state types: a visible one is in the service but not in NaCl.
        Some(state) if state.element(type_id).is_some() => out.push(warning(
            AnalysisCode::TypeOnlyInState,
            at,
            format!(
                "type `{type_id}` is only in Salto's state, where it is not hidden, so Salto does not merge it and `{}` is not type-checked; fetch it into NaCl to check it",
                fragment.id
            ),
        )),
        Some(_) => out.push(warning(
            AnalysisCode::MissingType,
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
                && let Some(suggestion) = type_suggestion(db, key)
            {
                out.push(warning(
                    AnalysisCode::MissingType,
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
    db: &'a dyn Db,
    workspace: Workspace,
    env: Option<&'a str>,
    fragment: &Fragment,
    info: &'a crate::types::TypeInfo,
) -> Vec<&'a FieldInfo> {
    Checker::new(db, workspace, env).missing_required_fields(fragment, info)
}

/// The top-level keys an instance sets across all its fragments.
fn instance_keys<'k>(db: &'k dyn Db, workspace: Workspace, env: Option<&str>, fragment: &'k Fragment) -> Vec<&'k str> {
    let mut keys: Vec<&str> = fragment.values().iter().map(|e| e.key().as_str()).collect();
    let files = element_files(db, workspace, env, &fragment.id);
    if files.len() > 1 {
        for file in files {
            for other in fragments_of(db, file, &fragment.id) {
                keys.extend(other.values().iter().map(|e| e.key().as_str()));
            }
        }
    }
    keys
}

fn warning(code: AnalysisCode, range: TextRange, message: String) -> Diagnostic {
    Diagnostic { code: code.into(), range, message, related: Vec::new() }
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
    /// The values of the instance's other fragments (empty for a single fragment).
    elsewhere: Vec<Entries<'a>>,
    /// The summaries of the types looked up so far, by name as written (`None`: no such type,
    /// or not a type name): a file's values name the same few types over and over.
    /// Keyed by the names themselves, which the types' summaries hold.
    types: std::cell::RefCell<crate::hashing::NameMap<&'a str, Option<&'a TypeInfo>>>,
}

impl<'a> Checker<'a> {
    fn new(db: &'a dyn Db, workspace: Workspace, env: Option<&'a str>) -> Checker<'a> {
        Checker { db, workspace, env, elsewhere: Vec::new(), types: Default::default() }
    }

    /// The summary of the type named `name`, looked up once per checker.
    fn type_named(&self, name: &'a str) -> Option<&'a TypeInfo> {
        if let Some(&info) = self.types.borrow().get(name) {
            return info;
        }
        let info = ElemId::parse(name).ok().and_then(|id| self.type_info(&id));
        self.types.borrow_mut().insert(name, info);
        info
    }

    /// The summary of the type `id` in the checker's environment.
    fn type_info(&self, id: &ElemId) -> Option<&'a TypeInfo> {
        let key = ElementKey::new(self.db, self.workspace, crate::db::EnvRef(self.env), id);
        type_info(self.db, key).as_ref()
    }

    /// The required fields of `info` (the type of `fragment`, an instance) that none of the
    /// instance's fragments sets ([`missing_required_fields`]).
    fn missing_required_fields(&self, fragment: &Fragment, info: &'a TypeInfo) -> Vec<&'a FieldInfo> {
        let mut required =
            info.fields.iter().filter(|f| f.required && !f.hidden && !self.hidden_type(&f.type_name)).peekable();
        // Most types require nothing: the instance's keys are gathered only for those that do.
        if required.peek().is_none() {
            return Vec::new();
        }
        let keys = instance_keys(self.db, self.workspace, self.env, fragment);
        required.filter(|f| !keys.contains(&&*f.name)).filter(|f| !self.fills_default(&f.type_name, 0)).collect()
    }

    /// Whether values of type `name` are hidden (`_hidden_value = true` on the type).
    fn hidden_type(&self, name: &'a str) -> bool {
        self.type_named(name).is_some_and(|t| t.hidden_value)
    }

    /// Whether Salto fills a value of type `name` from defaults into an instance that leaves it
    /// out: the type has a `_default`, or it is an object type one of whose fields has a
    /// default (directly or, recursively, through its own type).
    fn fills_default(&self, name: &'a str, depth: usize) -> bool {
        /// Deeper than this, type graphs are assumed to be cycles.
        const MAX_DEPTH: usize = 8;
        let Ok(id) = ElemId::parse(name) else { return false };
        if depth > MAX_DEPTH || !id.is_top_level() || builtin_primitive(name).is_some() {
            return false;
        }
        let Some(info) = self.type_named(name) else { return false };
        info.default
            || (matches!(info.kind, FragmentKind::Object { .. })
                && info.fields.iter().any(|f| f.default || self.fills_default(&f.type_name, depth + 1)))
    }

    /// What values of type `name` must be.
    fn expected(&self, name: &'a str) -> Expected {
        if let Some(primitive) = builtin_primitive(name) {
            return Expected::Primitive(primitive);
        }
        match self.type_named(name).map(|t| &t.kind) {
            Some(FragmentKind::Primitive(p)) => Expected::Primitive(*p),
            Some(FragmentKind::Object { .. }) => Expected::Object,
            // A field whose type does not exist is not checked, as in Salto.
            _ => Expected::Anything,
        }
    }

    /// Checks the entries of an object (an instance's values, or an object value at `path`)
    /// against the fields of its type `type_id`: each value, keys a closed type does not declare,
    /// and (for nested objects; an instance's own are checked with all its fragments) the
    /// required fields it leaves out.
    fn object_entries<'e>(
        &self,
        type_id: &dyn std::fmt::Display,
        info: &'a crate::types::TypeInfo,
        entries: Entries<'e>,
        path: &mut Vec<PathStep<'e>>,
        out: &mut Vec<Diagnostic>,
    ) {
        for entry in entries.iter() {
            let key = entry.key().as_str();
            path.push(PathStep::Key(key));
            match info.field(key) {
                Some(field) => {
                    self.value(&field.type_name, field.restriction.as_ref(), path, entry.value(), out);
                }
                // An instance's annotations (`_parent`, ...) are not values of its type.
                None if info.closed && !(path.len() == 1 && INSTANCE_ANNOTATIONS.contains(&key)) => {
                    let at = if path.len() == 1 { String::new() } else { format!(" (at `{}`)", ShownPath(path)) };
                    out.push(warning(
                        AnalysisCode::AdditionalProperty,
                        entry.key_range(),
                        format!("`{key}` is not a field of `{type_id}`, which does not allow other keys (`_additional_properties = false`){at}"),
                    ))
                }
                None => {}
            }
            path.pop();
        }
    }

    /// Checks a value at `path` against the type named `type_name` (a container, a primitive or
    /// an object type), recursively: lists item by item, maps value by value, objects field by
    /// field.
    fn value<'e>(
        &self,
        type_name: &'a str,
        restriction: Option<&Restriction>,
        path: &mut Vec<PathStep<'e>>,
        value: ValueRef<'e>,
        out: &mut Vec<Diagnostic>,
    ) {
        /// Deeper than this, values are not checked (type graphs can be cycles).
        const MAX_DEPTH: usize = 64;
        if path.len() > MAX_DEPTH {
            return;
        }
        let key = ShownPath(path);
        if let Some(inner) = container_inner(type_name) {
            if type_name.starts_with("Map<") {
                // A map's keys are free; each value is of its inner type.
                if let Kind::Object(entries) = value.kind() {
                    for entry in entries.iter() {
                        path.push(PathStep::Key(entry.key().as_str()));
                        self.value(inner, None, path, entry.value(), out);
                        path.pop();
                    }
                } else if let Some(found) = mismatch(&Expected::Object, value) {
                    out.push(warning(
                        AnalysisCode::InvalidValueType,
                        value.range(),
                        format!("`{key}` expects a map (type `{type_name}`), found {found}"),
                    ));
                }
                return;
            }
            // A list is checked item by item, and a single value given for a list as one item.
            let Kind::List(items) = value.kind() else {
                return self.value(inner, restriction, path, value, out);
            };
            if let Some(max) =
                restriction.and_then(|r| r.max_list_length.as_deref()).and_then(|m| m.parse::<f64>().ok())
                && items.len() as f64 > max
            {
                out.push(warning(
                    AnalysisCode::RestrictionViolation,
                    value.range(),
                    format!("`{key}` has {} items; its restriction allows at most {max}", items.len()),
                ));
            }
            // Restrictions apply to the items of a list of primitives only (one level, as in Salto).
            let item_restriction = if container_inner(inner).is_some() { None } else { restriction };
            for (index, item) in items.iter().enumerate() {
                path.push(PathStep::Index(index));
                self.value(inner, item_restriction, path, item, out);
                path.pop();
            }
            return;
        }
        // A list given for a non-list type is checked item by item, as Salto does.
        if let Kind::List(items) = value.kind() {
            for (index, item) in items.iter().enumerate() {
                path.push(PathStep::Index(index));
                self.value(type_name, restriction, path, item, out);
                path.pop();
            }
            return;
        }
        let expected = self.expected(type_name);
        if let Some(found) = mismatch(&expected, value) {
            let wanted = match &expected {
                Expected::Primitive(p) => format!("a {}", p.as_str()),
                _ => "an object".to_owned(),
            };
            out.push(warning(
                AnalysisCode::InvalidValueType,
                value.range(),
                format!("`{key}` expects {wanted} (type `{type_name}`), found {found}"),
            ));
            return;
        }
        match (&expected, value.kind()) {
            (Expected::Primitive(_), _) => {
                if let Some(restriction) = restriction {
                    restricted(restriction, key, value, out);
                }
            }
            (Expected::Object, Kind::Object(entries)) => self.object(type_name, path, value, entries, out),
            _ => {}
        }
    }

    /// Checks an object value at `path` against its object type `type_name`.
    fn object<'e>(
        &self,
        type_name: &'a str,
        path: &mut Vec<PathStep<'e>>,
        value: ValueRef<'_>,
        entries: Entries<'e>,
        out: &mut Vec<Diagnostic>,
    ) {
        let Some(info) = self.type_named(type_name) else { return };
        self.object_entries(&type_name, info, entries, path, out);
        // Most fields are not required: the keys set are looked at only for those that are.
        let mut elsewhere = None;
        for field in info.fields.iter().filter(|f| f.required && !f.hidden) {
            let elsewhere = elsewhere.get_or_insert_with(|| self.keys_elsewhere(path));
            let set = entries.get(&field.name).is_some() || elsewhere.iter().any(|k| **k == *field.name);
            if set || self.hidden_type(&field.type_name) || self.fills_default(&field.type_name, 0) {
                continue;
            }
            // Reported where the object starts: its `{`.
            let at = TextRange::at(value.range().start(), 1.into());
            out.push(warning(
                AnalysisCode::MissingRequiredField,
                at,
                format!(
                    "`{}` does not set `{}`, which its type `{type_name}` marks `_required`",
                    ShownPath(path),
                    field.name
                ),
            ));
        }
    }

    /// The keys the instance's other fragments set in the object at `path` (objects are merged
    /// key by key; a path through a list is never merged).
    fn keys_elsewhere(&self, path: &[PathStep<'_>]) -> Vec<&'a str> {
        let mut keys = Vec::new();
        'fragments: for &entries in &self.elsewhere {
            let mut current = entries;
            for step in path {
                let PathStep::Key(key) = step else { continue 'fragments };
                match current.get(key).map(|e| e.value().kind()) {
                    Some(Kind::Object(inner)) => current = inner,
                    _ => continue 'fragments,
                }
            }
            keys.extend(current.iter().map(|e| e.key().as_str()));
        }
        keys
    }
}

/// One step of the path from an instance to a nested value.
enum PathStep<'e> {
    Key(&'e str),
    Index(usize),
}

/// A value's path as shown in messages, `topics.0.name`: written out only when a message is.
#[derive(Clone, Copy)]
struct ShownPath<'a>(&'a [PathStep<'a>]);

impl std::fmt::Display for ShownPath<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (at, step) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str(".")?;
            }
            match step {
                PathStep::Key(key) => f.write_str(key)?,
                PathStep::Index(index) => write!(f, "{index}")?,
            }
        }
        Ok(())
    }
}

/// What is wrong with a value's kind, if anything.
fn mismatch(expected: &Expected, value: ValueRef<'_>) -> Option<&'static str> {
    let found = match value.kind() {
        // References are checked where they point, file() contents fit any type, and broken
        // values were reported as syntax errors.
        Kind::Reference(_) | Kind::File(_) | Kind::Invalid => return None,
        Kind::String(_) | Kind::Template(_) => "a string",
        Kind::Number(_) => "a number",
        Kind::Bool(_) => "a boolean",
        Kind::List(_) => "a list",
        Kind::Object(_) => "an object",
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
fn shown(value: ValueRef<'_>) -> String {
    let text = match value.kind() {
        Kind::String(s) => format!("\"{s}\""),
        Kind::Number(n) => n.to_string(),
        Kind::Bool(b) => b.to_string(),
        _ => "this value".to_owned(),
    };
    if text.chars().count() > 40 { format!("{}…", text.chars().take(39).collect::<String>()) } else { text }
}

fn number(value: ValueRef<'_>) -> Option<f64> {
    match value.kind() {
        Kind::Number(n) => n.parse().ok(),
        _ => None,
    }
}

/// Whether two literal values are equal (numbers by value).
fn same(a: ValueRef<'_>, b: ValueRef<'_>) -> bool {
    match (a.kind(), b.kind()) {
        (Kind::Number(_), Kind::Number(_)) => number(a) == number(b),
        (x, y) => x == y,
    }
}

fn restricted(restriction: &Restriction, key: ShownPath<'_>, value: ValueRef<'_>, out: &mut Vec<Diagnostic>) {
    // Templates and references are not literal values.
    if !matches!(value.kind(), Kind::String(_) | Kind::Number(_) | Kind::Bool(_)) {
        return;
    }
    let mut report = |message: String| out.push(warning(AnalysisCode::RestrictionViolation, value.range(), message));
    if let Some(allowed) = &restriction.values
        && !allowed.iter().any(|a| same(ValueRef::of(a), value))
    {
        let list: Vec<String> = allowed.iter().take(8).map(|a| shown(ValueRef::of(a))).collect();
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
    if let (Some(pattern), Kind::String(text)) = (&restriction.regex, value.kind())
        && pattern.finds(&text) == Some(false)
    {
        report(format!("{} does not match the pattern `{}` that `{key}` requires", shown(value), pattern.text));
    }
    if let (Some(max), Kind::String(text)) =
        (restriction.max_length.as_deref().and_then(|m| m.parse::<f64>().ok()), value.kind())
    {
        // Salto counts JavaScript string length: UTF-16 code units.
        let length = text.encode_utf16().count();
        if length as f64 > max {
            report(format!("`{key}` is {length} characters long; its restriction allows at most {max}"));
        }
    }
}
