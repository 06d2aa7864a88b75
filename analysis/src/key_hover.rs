//! Hover on keys inside values and on block keywords: a key's path from its element, the type
//! its position has (from the instance's type, the type's annotation types, or a core
//! annotation), its restriction, default and `_required`, and the other places (fragments in
//! other files, other environments) that set the same value.

use crate::{
    builtins::{builtin_field, core_annotation},
    db::{ElementKey, element_files, fragments_of, merged_element},
    elem_id::{ElemId, IdType, Name, container_inner},
    layout::{Layout, Source},
    navigation::short_value,
    types::{FieldInfo, type_info},
    workspace::LoadedWorkspace,
};
use nacl_syntax::TextRange;
use nacl_syntax::nacl::{SyntaxKind::*, SyntaxNode, SyntaxToken};
use std::path::Path;

/// What a position in a value is, as far as the types say.
struct Position {
    /// The type of the value there, when known.
    type_name: Option<String>,
    /// The field that declares it (its annotations give restriction, default, `_required`).
    field: Option<FieldInfo>,
    /// `type.key` for a key of a built-in object type (`dependency.reference`).
    builtin: Option<String>,
}

impl LoadedWorkspace {
    /// Hover for the key `token` (a key inside a value, at `id`: the element and the path to it).
    pub(crate) fn key_hover(&self, path: &Path, id: &ElemId, token: &SyntaxToken) -> Option<(TextRange, String)> {
        let env = self.workspace.layout(&self.db).env_of(path);
        let (top, mut value_path) = id.top_level();
        // Where the value is: an instance's value, a type's annotation value (`attr`), or a
        // field's annotation value (`field`, the field's name, then the annotation's path).
        let (mut out, position) = match (id.id_type, value_path.first().map(Name::as_str)) {
            (IdType::Instance, _) => {
                let position = self.value_position(env.as_deref(), &top.type_of(), &value_path);
                (format!("**key** `{}` of `{top}`", value_path.join(".")), position)
            }
            (IdType::Attr, Some("attr")) => {
                value_path.remove(0);
                let position = self.attr_position(env.as_deref(), &top, &value_path);
                (format!("**key** `{}` of `{top}`", value_path.join(".")), position)
            }
            (IdType::Field, Some("field")) if value_path.len() >= 3 => {
                let field = value_path.remove(1);
                value_path.remove(0);
                // A field's annotations are typed by its type's annotation types (or are core).
                let key = ElementKey::new(&self.db, self.workspace, crate::db::EnvRef(env.as_deref()), top.clone());
                let field_type = type_info(&self.db, key)
                    .as_ref()
                    .and_then(|t| t.field(&field))
                    .and_then(|f| ElemId::parse(&f.type_name).ok());
                let position = match field_type {
                    Some(field_type) => self.attr_position(env.as_deref(), &field_type, &value_path),
                    None => unknown(),
                };
                (format!("**key** `{}` of field `{field}` of `{top}`", value_path.join(".")), position)
            }
            _ => return None,
        };
        if let Some(builtin) = &position.builtin {
            out.push_str(&format!("\n\nField `{builtin}`"));
        }
        if let Some(type_name) = &position.type_name {
            out.push_str(&format!("\n\nType `{type_name}`"));
        }
        if let Some(field) = &position.field {
            if field.required {
                out.push_str("\n\nRequired (`_required = true`)");
            }
            if let Some(restriction) = &field.restriction {
                out.push_str(&format!("\n\nRestriction: {}", restriction.describe()));
            }
            if let Some(default) = self.field_default(env.as_deref(), &value_path, id, field) {
                out.push_str(&format!("\n\nDefault: {default}"));
            }
        }
        // Other fragments set the same instance value or type annotation value (a field's
        // annotations live in the field's own declarations).
        let elsewhere = if id.id_type == IdType::Field {
            Vec::new()
        } else {
            self.also_set(path, env.as_deref(), &top, &value_path)
        };
        if !elsewhere.is_empty() {
            out.push_str(&format!("\n\nAlso set in {}", elsewhere.join(", ")));
        }
        Some((token.text_range(), out))
    }

    /// The position at `path` in a value of the object type `type_id`.
    fn value_position(&self, env: Option<&str>, type_id: &ElemId, path: &[Name]) -> Position {
        self.walk_type(env, type_id.to_string(), None, path)
    }

    /// The position at `path` in a type's annotation value: the first key's annotation type
    /// (declared by the type, or a core annotation's), then as in a value.
    fn attr_position(&self, env: Option<&str>, type_id: &ElemId, path: &[Name]) -> Position {
        let Some((first, rest)) = path.split_first() else { return unknown() };
        let declared = self
            .annotation_types(env, type_id)
            .into_iter()
            .find(|(name, _)| name == first)
            .map(|(_, type_name)| type_name);
        let type_name = declared.or_else(|| core_annotation(first).map(|a| a.value_type.to_owned()));
        match type_name {
            Some(type_name) => self.walk_type(env, type_name, None, rest),
            None => unknown(),
        }
    }

    /// Follows `path` down from a value of type `type_name`, declared by `field`.
    fn walk_type(
        &self,
        env: Option<&str>,
        mut type_name: String,
        mut field: Option<FieldInfo>,
        path: &[Name],
    ) -> Position {
        let mut builtin = None;
        for step in path {
            let is_index = step.parse::<usize>().is_ok();
            if let Some(inner) = container_inner(&type_name).map(str::to_owned) {
                let is_map = type_name.starts_with("Map<");
                type_name = inner;
                builtin = None;
                // A list's items and a map's values have the inner type (a map's keys are free);
                // a key right under a list field is a key of its one item.
                if is_index || is_map {
                    continue;
                }
            } else if is_index {
                // A list where one value was expected: Salto checks each item as that value.
                continue;
            }
            if let Some(value_type) = builtin_field(&type_name, step) {
                builtin = Some(format!("{type_name}.{step}"));
                type_name = value_type.to_owned();
                field = None;
                continue;
            }
            let Ok(id) = ElemId::parse(&type_name) else { return unknown() };
            let key = ElementKey::new(&self.db, self.workspace, crate::db::EnvRef(env), id);
            let Some(found) = type_info(&self.db, key).as_ref().and_then(|t| t.field(step)).cloned() else {
                return unknown();
            };
            type_name = found.type_name.to_string();
            field = Some(found);
            builtin = None;
        }
        Position { type_name: Some(type_name), field, builtin }
    }

    /// The `_default` of the field at a position, shown.
    fn field_default(&self, env: Option<&str>, path: &[Name], id: &ElemId, field: &FieldInfo) -> Option<String> {
        if !field.default {
            return None;
        }
        // The field belongs to the type of the object holding the key.
        let top = id.top_level_id();
        let parent = self.walk_type(env, top.type_of().to_string(), None, &path[..path.len().saturating_sub(1)]);
        let parent_type = ElemId::parse(parent.type_name.as_deref()?).ok()?;
        let merged = merged_element(&self.db, self.workspace, env, &parent_type)?;
        let declared = merged.field(&field.name)?;
        let entry = declared.annotations.iter().find(|a| &*a.key == "_default")?;
        entry.defs.first().map(|(_, d)| short_value(crate::values::ValueRef::of(&d.value)))
    }

    /// The other places that set the value at `path` of `top`: other files of its environment,
    /// and the files of other environments.
    pub(crate) fn also_set(&self, here: &Path, env: Option<&str>, top: &ElemId, path: &[Name]) -> Vec<String> {
        let layout = self.workspace.layout(&self.db);
        let mut places = Vec::new();
        let mut envs: Vec<Option<&str>> = vec![env];
        envs.extend(layout.envs.iter().map(|e| Some(e.as_str())).filter(|e| *e != env));
        for (i, candidate) in envs.into_iter().enumerate() {
            for file in element_files(&self.db, self.workspace, candidate, top) {
                let file_path = file.path(&self.db);
                let source = layout.source_of(file_path);
                // Another environment's files count once, there; common files were counted here.
                let own = match (&source, candidate) {
                    (Source::Env(name), Some(env)) => name == env,
                    _ => i == 0,
                };
                if file_path == here || !own || !Layout::is_active(&source, candidate) {
                    continue;
                }
                // An instance's values, or a type's annotation values.
                let sets = fragments_of(&self.db, file, top).iter().any(|f| f.values().at(path).is_some());
                if sets {
                    let shown = file_path.strip_prefix(&layout.root).unwrap_or(file_path).display();
                    places.push(match (i, candidate) {
                        (0, _) | (_, None) => format!("`{shown}`"),
                        (_, Some(env)) => format!("`{shown}` (environment `{env}`)"),
                    });
                }
            }
        }
        places
    }
}

fn unknown() -> Position {
    Position { type_name: None, field: None, builtin: None }
}

/// Hover for a block's keyword (`type`, `settings`, `vars`, `is`, `annotations`).
pub(crate) fn keyword_hover(token: &SyntaxToken) -> Option<(TextRange, String)> {
    let label = token.parent().filter(|p| p.kind() == LABEL)?;
    let block: SyntaxNode = label.parent().filter(|b| b.kind() == BLOCK)?;
    let labels: Vec<SyntaxNode> = block.children().filter(|n| n.kind() == LABEL).collect();
    let position = labels.iter().position(|l| *l == label)?;
    let top_level = block.parent().is_some_and(|p| p.kind() == SOURCE_FILE);
    let text = match (top_level, token.text(), position, labels.len()) {
        (true, "type", 0, 2 | 4) => {
            "**`type`** declares an object type (`type adapter.name { ... }`): its fields (`<type> <name> { annotations }`), its annotation values (`key = value`) and the annotation types its instances' fields may carry (`annotations { ... }`); `type x is string` declares a primitive type instead."
        }
        (true, "settings", 0, 2) => {
            "**`settings`** declares a settings type: like `type`, but it has at most one instance, written `adapter.name { ... }` without a name."
        }
        (true, "vars", 0, 1) => {
            "**`vars`** declares variables (`name = value`), referenced as `var.name` anywhere in the workspace."
        }
        (true, "is", 2, 4) => {
            "**`is`** makes the type a primitive type (`string`, `number`, `boolean`, `unknown`), or gives an object type its meta type."
        }
        (false, "annotations", 0, 1) => {
            "**`annotations`** declares the annotation types of this type: each `<type> <name> {}` inside lets the type's annotation values, and the annotations of fields of this type, set `name` to a value of that type."
        }
        _ => return None,
    };
    Some((token.text_range(), text.to_owned()))
}
