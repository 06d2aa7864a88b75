//! What a place expects: the shape of the value there (from the types of the fields on the way
//! down), or the kind of body it is in.

use super::context::{Place, Step};
use crate::{
    builtins::{builtin_field, core_annotation},
    db::{ElementKey, env_state, merged_element},
    elem_id::{ElemId, IdType, container_inner},
    fragments::{FragmentKind, Primitive},
    types::{Restriction, TypeInfo, builtin_primitive, type_info},
    values::{Kind, ValueRef},
    workspace::LoadedWorkspace,
};

/// The shape of a value, from a type name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A type of an adapter (an object or a primitive type).
    Type(ElemId),
    /// A built-in primitive type.
    Primitive(Primitive),
    /// `List<...>`.
    List(Box<Shape>),
    /// `Map<...>`.
    Map(Box<Shape>),
    /// The object of a `_restriction` annotation.
    Restriction,
    /// Anything.
    Unknown,
}

impl Shape {
    /// The shape of values of the type named `name` (`string`, `List<salto.x>`, `salto.x`).
    pub(crate) fn of(name: &str) -> Shape {
        let name = name.trim();
        if let Some(inner) = container_inner(name) {
            let inner = Box::new(Shape::of(inner));
            return if name.starts_with("List<") { Shape::List(inner) } else { Shape::Map(inner) };
        }
        if name == "restriction" {
            return Shape::Restriction;
        }
        if let Some(primitive) = builtin_primitive(name) {
            return Shape::Primitive(primitive);
        }
        match ElemId::parse(name) {
            Ok(id) if id.id_type == IdType::Type && !id.adapter.is_empty() => Shape::Type(id),
            _ => Shape::Unknown,
        }
    }
}

/// What completing a key or a value at a place offers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Site {
    /// A value of this shape (an instance body, an object, a list item), with the restriction of
    /// the field it belongs to.
    Value { shape: Shape, restriction: Option<Restriction> },
    /// A type's body: annotation values and field declarations.
    TypeBody(ElemId),
    /// A field's (or an annotation type's) body, by the field's type: its annotations.
    FieldBody(Shape),
    /// A type's `annotations` block: annotation type declarations.
    AnnotationsBlock,
    /// Nothing to offer (a `vars` block, an unknown place).
    Nothing,
}

/// Whether top-level labels are an instance's (`<type> <name>`) or a settings instance's (`<type>`).
pub(crate) fn is_instance_header(header: &[String]) -> bool {
    matches!(header.first().map(String::as_str), Some(first) if !matches!(first, "type" | "settings" | "vars"))
        && header.len() <= 2
}

/// A value as NaCl writes it (strings quoted and escaped).
pub(crate) fn value_text(value: ValueRef<'_>) -> Option<String> {
    match value.kind() {
        Kind::String(s) => Some(format!("\"{}\"", escape(&s))),
        Kind::Number(n) => Some(n.to_string()),
        Kind::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The contents of a NaCl string literal holding `s` (JSON escapes, and `\${` for a literal `${`).
pub(crate) fn escape(s: &str) -> String {
    let json = serde_json::to_string(s).unwrap_or_default();
    json.get(1..json.len().saturating_sub(1)).unwrap_or_default().replace("${", "\\${")
}

/// A value written into a snippet choice (`${1|a,b|}`), where `,`, `|` and `\` are escaped.
fn choice_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace(',', "\\,").replace('|', "\\|")
}

/// The shape of a core annotation's value.
fn core_shape(key: &str) -> Option<Shape> {
    core_annotation(key).map(|a| Shape::of(a.value_type))
}

impl LoadedWorkspace {
    /// The summary of a type in an environment (memoized).
    pub(crate) fn type_summary(&self, env: Option<&str>, id: &ElemId) -> Option<&TypeInfo> {
        let key = ElementKey::new(&self.db, self.workspace, crate::db::EnvRef(env), id.clone());
        type_info(&self.db, key).as_ref()
    }

    /// The annotation types a type declares: name and type name.
    pub(crate) fn annotation_types(&self, env: Option<&str>, id: &ElemId) -> Vec<(String, String)> {
        if let Some(merged) = merged_element(&self.db, self.workspace, env, id) {
            return merged
                .annotation_types
                .iter()
                .map(|(name, type_name, ..)| (name.to_string(), type_name.to_string()))
                .collect();
        }
        let state = env_state(&self.db, self.workspace, env);
        state.and_then(|s| s.hidden_element(id)).map(|e| e.annotation_types.clone()).unwrap_or_default()
    }

    /// What a place expects.
    pub(super) fn site_of(&self, env: Option<&str>, place: &Place) -> Site {
        let header = &place.header;
        let mut steps = place.steps.iter();
        let type_id = |label: Option<&String>| match label.map(|l| Shape::of(l)) {
            Some(Shape::Type(id)) => Some(id),
            _ => None,
        };
        match header.first().map(String::as_str) {
            Some("type" | "settings") => {
                let Some(id) = type_id(header.get(1)) else { return Site::Nothing };
                match steps.next() {
                    None => Site::TypeBody(id),
                    Some(Step::Block(labels)) if labels.len() == 1 && labels[0] == "annotations" => {
                        match steps.next() {
                            None => Site::AnnotationsBlock,
                            Some(Step::Block(labels)) if labels.len() == 2 => {
                                self.field_site(env, Shape::of(&labels[0]), steps.as_slice())
                            }
                            _ => Site::Nothing,
                        }
                    }
                    Some(Step::Block(labels)) if labels.len() == 2 => {
                        self.field_site(env, Shape::of(&labels[0]), steps.as_slice())
                    }
                    Some(Step::Key(key)) => {
                        let shape = self.annotation_shape(env, &Shape::Type(id), key);
                        self.walk(env, Site::Value { shape, restriction: None }, steps.as_slice())
                    }
                    _ => Site::Nothing,
                }
            }
            _ if is_instance_header(header) => match type_id(header.first()) {
                Some(id) => self.walk(env, Site::Value { shape: Shape::Type(id), restriction: None }, &place.steps),
                None => Site::Nothing,
            },
            _ => Site::Nothing,
        }
    }

    /// Inside a field (or annotation type) of type `shape`, then down `steps`.
    fn field_site(&self, env: Option<&str>, shape: Shape, steps: &[Step]) -> Site {
        match steps {
            [] => Site::FieldBody(shape),
            [Step::Key(key), rest @ ..] => {
                let shape = self.annotation_shape(env, &shape, key);
                self.walk(env, Site::Value { shape, restriction: None }, rest)
            }
            _ => Site::Nothing,
        }
    }

    /// The shape of annotation `key` set on an element (or field) of type `owner`.
    fn annotation_shape(&self, env: Option<&str>, owner: &Shape, key: &str) -> Shape {
        if let Some(shape) = core_shape(key) {
            return shape;
        }
        let Shape::Type(id) = owner else { return Shape::Unknown };
        let declared = self.annotation_types(env, id);
        declared.iter().find(|(name, _)| name == key).map_or(Shape::Unknown, |(_, type_name)| Shape::of(type_name))
    }

    /// From a value site down `steps`.
    fn walk(&self, env: Option<&str>, mut site: Site, steps: &[Step]) -> Site {
        for step in steps {
            let Site::Value { shape, restriction } = site else { return Site::Nothing };
            site = match (step, shape) {
                (Step::Key(key), Shape::Type(id)) => match self.type_summary(env, &id).and_then(|t| t.field(key)) {
                    Some(field) => {
                        Site::Value { shape: Shape::of(&field.type_name), restriction: field.restriction.clone() }
                    }
                    None => Site::Value { shape: core_shape(key).unwrap_or(Shape::Unknown), restriction: None },
                },
                (Step::Key(_), Shape::Map(inner)) => Site::Value { shape: *inner, restriction },
                (Step::Key(key), Shape::Restriction) => {
                    let found = builtin_field("restriction", key);
                    Site::Value { shape: found.map_or(Shape::Unknown, Shape::of), restriction: None }
                }
                (Step::Item, Shape::List(inner)) => Site::Value { shape: *inner, restriction },
                (Step::Block(_), _) => Site::Nothing,
                _ => Site::Value { shape: Shape::Unknown, restriction: None },
            };
        }
        site
    }

    /// The primitive category of values of a shape, when it is primitive.
    pub(super) fn primitive_of(&self, env: Option<&str>, shape: &Shape) -> Option<Primitive> {
        match shape {
            Shape::Primitive(p) => Some(*p),
            Shape::Type(id) => match self.type_summary(env, id)?.kind {
                FragmentKind::Primitive(p) => Some(p),
                _ => None,
            },
            _ => None,
        }
    }

    /// A snippet for a value of a shape: a choice of the allowed values, `true`/`false`, `""`,
    /// `[]` or `{}`.
    pub(crate) fn value_snippet(&self, env: Option<&str>, shape: &Shape, restriction: Option<&Restriction>) -> String {
        let allowed: Vec<String> = restriction
            .iter()
            .flat_map(|r| r.values.iter().flatten())
            .filter_map(|v| value_text(ValueRef::of(v)))
            .collect();
        if !allowed.is_empty() {
            let choices: Vec<String> = allowed.iter().map(|v| choice_text(v)).collect();
            return format!("${{1|{}|}}", choices.join(","));
        }
        match (self.primitive_of(env, shape), shape) {
            (Some(Primitive::Boolean), _) => "${1|true,false|}".to_owned(),
            (Some(Primitive::String), _) => "\"$1\"".to_owned(),
            (Some(Primitive::Number), _) => "${1:0}".to_owned(),
            (Some(Primitive::Unknown), _) | (None, Shape::Unknown) => "$0".to_owned(),
            (None, Shape::List(_)) => "[\n  $0\n]".to_owned(),
            (None, _) => "{\n  $0\n}".to_owned(),
        }
    }

    /// The keys (or list indices) below `path` in the values of element `id`, or in the
    /// annotations of its field `field`.
    pub(super) fn value_keys(&self, env: Option<&str>, id: &ElemId, field: Option<&str>, path: &[&str]) -> Vec<String> {
        let Some(merged) = merged_element(&self.db, self.workspace, env, id) else { return Vec::new() };
        let entries = match field {
            Some(field) => match merged.field(field) {
                Some(field) => &field.annotations,
                None => return Vec::new(),
            },
            None => &merged.values,
        };
        let Some((first, rest)) = path.split_first() else {
            return entries.iter().map(|e| e.key.to_string()).collect();
        };
        let mut values: Vec<ValueRef<'_>> = entries
            .iter()
            .filter(|e| &*e.key == *first)
            .flat_map(|e| e.defs.iter().map(|(_, d)| ValueRef::of(&d.value)))
            .collect();
        for step in rest {
            values = values
                .into_iter()
                .flat_map(|value| match value.kind() {
                    Kind::Object(entries) => entries.iter().filter(|e| e.key() == *step).map(|e| e.value()).collect(),
                    Kind::List(items) => step.parse::<usize>().ok().and_then(|i| items.get(i)).into_iter().collect(),
                    _ => Vec::new(),
                })
                .collect();
        }
        let mut keys: Vec<String> = values
            .into_iter()
            .flat_map(|value| match value.kind() {
                Kind::Object(entries) => entries.iter().map(|e| e.key().to_string()).collect(),
                Kind::List(items) => (0..items.len()).map(|i| i.to_string()).collect(),
                _ => Vec::new(),
            })
            .collect();
        keys.dedup();
        keys
    }
}
