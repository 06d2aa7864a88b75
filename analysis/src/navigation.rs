//! Go to definition and hover: from an element ID, field key, core annotation or `file()` path
//! anywhere in a file to what it names.

use crate::{
    db::{element_files, env_state, fragments_of},
    elem_id::{ElemId, IdType, container_inner, decode_nacl_case},
    fragments::{Fragment, FragmentKind},
    state::StateKind,
    values::{Kind, ValueRef},
    workspace::LoadedWorkspace,
};
use nacl_syntax::nacl::{
    SyntaxKind::*,
    SyntaxNode,
    ast::{AstNodeExt, Block, Label, TopLevelKind},
};
use nacl_syntax::{TextRange, TextSize};
use std::path::{Path, PathBuf};

/// A place a definition is: a file and a range in it (empty for a whole static file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The file.
    pub path: PathBuf,
    /// Where in it.
    pub range: TextRange,
}

/// What the cursor is on.
pub(crate) enum Symbol {
    /// An element ID (a reference, a template, a type or instance label).
    Element(ElemId),
    /// A field of a type (an instance's attribute key).
    Field(ElemId, String),
    /// A `file("...")` path.
    StaticFile(String),
    /// A core annotation key such as `_required`.
    CoreAnnotation(&'static crate::builtins::CoreAnnotation),
}

/// What hovering over a symbol shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoverInfo {
    /// The symbol's range.
    pub range: TextRange,
    /// Markdown.
    pub markdown: String,
}

impl LoadedWorkspace {
    /// The definitions of the symbol at `offset` in the file at `path`: every fragment of an
    /// element, the field of an attribute key, or the static file of a `file()` path.
    pub fn definition(&self, path: &Path, offset: TextSize) -> Vec<Target> {
        let Some(root) = self.syntax(path) else { return Vec::new() };
        let Some((symbol, _)) = symbol_at(&root, offset) else { return Vec::new() };
        let layout = self.workspace.layout(&self.db);
        let env = layout.env_of(path);
        match symbol {
            Symbol::Element(id) => self.element_targets(env.as_deref(), &id),
            Symbol::Field(type_id, field) => self.field_targets(env.as_deref(), &type_id, &field),
            Symbol::StaticFile(relative) => self
                .static_file(path, &relative)
                .map(|path| Target { path, range: TextRange::empty(0.into()) })
                .into_iter()
                .collect(),
            Symbol::CoreAnnotation(_) => Vec::new(),
        }
    }

    /// The static file a `file("relative")` in the file at `path` names, when it exists.
    pub fn static_file(&self, path: &Path, relative: &str) -> Option<PathBuf> {
        let layout = self.workspace.layout(&self.db);
        let static_files = self.workspace.static_files(&self.db);
        let mut candidates = layout.static_dirs(&layout.source_of(path)).into_iter().map(|dir| dir.join(relative));
        candidates.find(|candidate| static_files.contains(candidate))
    }

    /// What to show when hovering at `offset` in the file at `path`.
    pub fn hover(&self, path: &Path, offset: TextSize) -> Option<HoverInfo> {
        let root = self.syntax(path)?;
        let token = root.token_at_offset(offset).max_by_key(|t| matches!(t.kind(), IDENT | STRING_TEXT))?;
        // Keys inside values, and the keywords of blocks.
        let in_key = token.parent().is_some_and(|p| p.kind() == KEY)
            || token.parent().and_then(|p| p.parent()).is_some_and(|p| p.kind() == KEY);
        if in_key
            && token.parent_ancestors().any(|n| n.kind() == OBJECT)
            && let Some(id) = element_id_at(&root, offset)
            && let Some((range, markdown)) = self.key_hover(path, &id, &token)
        {
            return Some(HoverInfo { range, markdown });
        }
        if let Some((range, markdown)) = crate::key_hover::keyword_hover(&token) {
            return Some(HoverInfo { range, markdown });
        }
        let (symbol, range) = symbol_at(&root, offset)?;
        let env = self.workspace.layout(&self.db).env_of(path);
        let markdown = match symbol {
            Symbol::CoreAnnotation(a) => {
                format!(
                    "**`{}`**: core annotation\n\nType `{}`, on {}.\n\n{}",
                    a.name, a.value_type, a.applies_to, a.meaning
                )
            }
            Symbol::StaticFile(relative) => {
                let found = !self.definition(path, offset).is_empty();
                format!("static file `{relative}`{}", if found { "" } else { " (missing)" })
            }
            Symbol::Field(type_id, field) => {
                let mut out = self.field_hover(env.as_deref(), &type_id, &field)?;
                // On an instance's key: also the other files and environments that set it.
                if let Some(id) = element_id_at(&root, offset).filter(|id| id.id_type == IdType::Instance) {
                    let (top, value_path) = id.top_level();
                    let elsewhere = self.also_set(path, env.as_deref(), &top, &value_path);
                    if !elsewhere.is_empty() {
                        out.push_str(&format!("\n\nAlso set in {}", elsewhere.join(", ")));
                    }
                }
                out
            }
            Symbol::Element(id) => self.element_hover(env.as_deref(), &id)?,
        };
        Some(HoverInfo { range, markdown })
    }

    fn field_hover(&self, env: Option<&str>, type_id: &ElemId, field: &str) -> Option<String> {
        let Some(merged) = crate::db::merged_element(&self.db, self.workspace, env, type_id) else {
            return self.state_field_hover(env, type_id, field);
        };
        let field = merged.field(field)?;
        let mut out = format!("**field** `{}` of `{type_id}`\n\nType `{}`", field.name, field.type_name);
        for entry in &field.annotations {
            if let Some((_, definition)) = entry.defs.first() {
                out.push_str(&format!("\n- `{}` = {}", entry.key, short_value(ValueRef::of(&definition.value))));
            }
        }
        Some(out)
    }

    fn element_hover(&self, env: Option<&str>, id: &ElemId) -> Option<String> {
        if id.adapter.is_empty() && crate::elem_id::BUILTIN_TYPES.contains(&id.type_name.as_str()) {
            return Some(format!("**built-in type** `{}`", id.type_name));
        }
        if id.id_type == IdType::Field
            && let Some(field) = id.name_parts.first()
            && let Some(hover) = self.field_hover(env, &id.type_of(), field)
        {
            return Some(hover);
        }
        let (top, path) = id.top_level();
        let Some(merged) = crate::db::merged_element(&self.db, self.workspace, env, &top) else {
            if let Some(hover) = self.state_element_hover(env, &top) {
                return Some(hover);
            }
            return Some(format!(
                "`{top}` does not exist{}",
                env.map(|e| format!(" in environment `{e}`")).unwrap_or_default()
            ));
        };
        let kind = match &merged.kind {
            FragmentKind::Object { settings: true, .. } => "settings type".to_owned(),
            FragmentKind::Object { .. } => format!("type, {} fields", merged.fields.len()),
            FragmentKind::Primitive(p) => format!("primitive type ({})", p.as_str()),
            FragmentKind::Instance => "instance".to_owned(),
            FragmentKind::Variable => "variable".to_owned(),
        };
        let mut out = format!("**{kind}** `{top}`");
        if let Some(decoded) = top.name_parts.last().or(Some(&top.type_name)).and_then(|n| decode_nacl_case(n)) {
            out.push_str(&format!("\n\nName: {decoded}"));
        }
        if let Some(alias) = merged.value("_alias").and_then(|e| e.defs.first()) {
            out.push_str(&format!("\n\nAlias: {}", short_value(ValueRef::of(&alias.1.value))));
        }
        if !path.is_empty() {
            out.push_str(&format!("\n\nPath: `{}`", path.join(".")));
        }
        let root = &self.workspace.layout(&self.db).root;
        let places: Vec<String> = merged
            .fragments
            .iter()
            .map(|(file, _, _)| {
                let path = file.path(&self.db);
                format!("`{}`", path.strip_prefix(root).unwrap_or(path).display())
            })
            .collect();
        out.push_str(&format!("\n\nDefined in {}", places.join(", ")));
        if let Some(url) = self.service_url_of(env, &top, None) {
            out.push_str(&format!("\n\n[Open in the service]({url})"));
        }
        out.push_str(&self.hidden_values_hover(env, &top));
        Some(out)
    }

    /// The values of an instance Salto keeps only in its state (`_hidden_value` fields).
    fn hidden_values_hover(&self, env: Option<&str>, id: &ElemId) -> String {
        let Some(element) = env_state(&self.db, self.workspace, env).and_then(|s| s.element(id)) else {
            return String::new();
        };
        if element.hidden_values.is_empty() {
            return String::new();
        }
        let mut out = "\n\nHidden values, in Salto's state:".to_owned();
        for (path, raw) in element.hidden_values.iter().take(10) {
            let value =
                serde_json::from_str(raw.get()).map(|v| short_value(ValueRef::of(&crate::types::json_value(&v))));
            out.push_str(&format!("\n- `{}` = {}", path.join("."), value.unwrap_or_default()));
        }
        if element.hidden_values.len() > 10 {
            out.push_str(&format!("\n- … {} more", element.hidden_values.len() - 10));
        }
        out
    }

    /// Hover for a field of a hidden type that lives only in Salto's state.
    fn state_field_hover(&self, env: Option<&str>, type_id: &ElemId, name: &str) -> Option<String> {
        let state = env_state(&self.db, self.workspace, env)?;
        let field = state.hidden_element(type_id)?.field(name)?;
        let mut out = format!(
            "**field** `{}` of `{type_id}` (a hidden type, from Salto's state)\n\nType `{}`",
            field.name, field.type_name
        );
        out.push_str(&annotation_lines(&field.annotations));
        Some(out)
    }

    /// Hover for a hidden element that lives only in Salto's state.
    fn state_element_hover(&self, env: Option<&str>, id: &ElemId) -> Option<String> {
        let state = env_state(&self.db, self.workspace, env)?;
        let element = state.hidden_element(id)?;
        let kind = match &element.kind {
            StateKind::Object { .. } => format!("hidden type, {} fields", element.fields.len()),
            StateKind::Primitive(p) => format!("hidden primitive type ({})", p.as_str()),
            StateKind::Instance { .. } => "hidden instance".to_owned(),
        };
        let mut out = format!("**{kind}** `{id}`");
        if let Some(alias) = element.annotation("_alias").and_then(|a| a.as_str().map(str::to_owned)) {
            out.push_str(&format!("\n\nAlias: {alias:?}"));
        }
        let root = &self.workspace.layout(&self.db).root;
        if let Some(file) = state.file_of(element) {
            let file = file.strip_prefix(root).unwrap_or(file);
            out.push_str(&format!("\n\nKept in Salto's state (`{}`), not in NaCl", file.display()));
        }
        if let StateKind::Object { .. } = element.kind {
            let fields: Vec<String> =
                element.fields.iter().take(20).map(|f| format!("\n- `{}`: `{}`", f.name, f.type_name)).collect();
            out.push_str(&fields.concat());
            if element.fields.len() > 20 {
                out.push_str(&format!("\n- … {} more", element.fields.len() - 20));
            }
        }
        if let Some(url) = element.annotation("_service_url").and_then(|u| u.as_str().map(str::to_owned)) {
            out.push_str(&format!("\n\n[Open in the service]({url})"));
        }
        Some(out)
    }

    /// The service URL ("Go To Service") of what is at `offset`: the `_service_url` of the field
    /// under the cursor, else of its element. Salto keeps it in its state; one written in NaCl
    /// counts too.
    pub fn service_url(&self, path: &Path, offset: TextSize) -> Option<String> {
        let root = self.syntax(path)?;
        let id = element_id_at(&root, offset)?;
        let env = self.workspace.layout(&self.db).env_of(path);
        let field = (id.id_type == IdType::Field).then(|| id.name_parts.first()).flatten();
        let top = id.top_level_id();
        field
            .and_then(|field| self.service_url_of(env.as_deref(), &top, Some(field)))
            .or_else(|| self.service_url_of(env.as_deref(), &top, None))
    }

    /// The `_service_url` of an element, or of one of its fields.
    fn service_url_of(&self, env: Option<&str>, top: &ElemId, field: Option<&str>) -> Option<String> {
        let written = crate::db::merged_element(&self.db, self.workspace, env, top).and_then(|merged| {
            let entries = match field {
                Some(field) => &merged.field(field)?.annotations,
                None => &merged.values,
            };
            let (_, entry) = entries.iter().find(|e| &*e.key == "_service_url")?.defs.first()?;
            match ValueRef::of(&entry.value).kind() {
                Kind::String(url) => Some(url.to_string()),
                _ => None,
            }
        });
        written.or_else(|| {
            let element = env_state(&self.db, self.workspace, env)?.element(top)?;
            let url = match field {
                Some(field) => element.field(field)?.annotation("_service_url"),
                None => element.annotation("_service_url"),
            }?;
            url.as_str().map(str::to_owned)
        })
    }

    fn element_targets(&self, env: Option<&str>, id: &ElemId) -> Vec<Target> {
        if id.id_type == IdType::Field
            && let Some(field) = id.name_parts.first()
        {
            let targets = self.field_targets(env, &id.type_of(), field);
            if !targets.is_empty() {
                return targets;
            }
        }
        let top = id.top_level_id();
        self.fragment_targets(env, &top, |fragment| vec![fragment.header_range])
    }

    fn field_targets(&self, env: Option<&str>, type_id: &ElemId, field: &str) -> Vec<Target> {
        self.fragment_targets(env, type_id, |fragment| {
            fragment.fields.iter().filter(|d| &*d.name == field).map(|d| d.name_range).collect()
        })
    }

    /// The places `pick` chooses in every fragment of `id`, in every file that holds one.
    fn fragment_targets(
        &self,
        env: Option<&str>,
        id: &ElemId,
        pick: impl Fn(&Fragment) -> Vec<TextRange>,
    ) -> Vec<Target> {
        let mut targets = Vec::new();
        for file in element_files(&self.db, self.workspace, env, id) {
            let path = file.path(&self.db);
            for fragment in fragments_of(&self.db, file, id) {
                targets.extend(pick(fragment).into_iter().map(|range| Target { path: path.clone(), range }));
            }
        }
        targets
    }
}

/// The symbol at `offset` and its range, preferring a word over punctuation next to it.
pub(crate) fn symbol_at(root: &SyntaxNode, offset: TextSize) -> Option<(Symbol, TextRange)> {
    let token = root.token_at_offset(offset).max_by_key(|t| matches!(t.kind(), IDENT | STRING_TEXT))?;
    Some((token_symbol(&token)?, token.text_range()))
}

/// The symbol a word token is part of.
pub(crate) fn token_symbol(token: &nacl_syntax::nacl::SyntaxToken) -> Option<Symbol> {
    let parent = token.parent()?;
    match (token.kind(), parent.kind()) {
        (IDENT, REFERENCE | TEMPLATE) => ElemId::parse(token.text()).ok().map(Symbol::Element),
        (IDENT, LABEL) => label_symbol(&parent),
        (STRING_TEXT, STRING) => {
            let string_parent = parent.parent()?;
            match string_parent.kind() {
                LABEL => label_symbol(&string_parent),
                ARG_LIST => file_argument(&parent),
                _ => None,
            }
        }
        (IDENT, KEY) => match crate::builtins::core_annotation(token.text()) {
            Some(annotation) => Some(Symbol::CoreAnnotation(annotation)),
            None => key_symbol(&parent),
        },
        _ => None,
    }
}

/// The annotations of a state element or field, one line each, for hover.
fn annotation_lines(annotations: &serde_json::value::RawValue) -> String {
    let Ok(entries) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(annotations.get()) else {
        return String::new();
    };
    entries
        .iter()
        .map(|(key, value)| format!("\n- `{key}` = {}", short_value(ValueRef::of(&crate::types::json_value(value)))))
        .collect()
}

/// A value in a few characters, for hover.
pub(crate) fn short_value(value: ValueRef<'_>) -> String {
    let text = match value.kind() {
        Kind::String(s) => format!("{:?}", s.as_str()),
        Kind::Number(n) => n.to_string(),
        Kind::Bool(b) => b.to_string(),
        Kind::Reference(r) => format!("`{r}`"),
        Kind::Template(_) => "a template string".to_owned(),
        Kind::List(items) => format!("a list of {}", items.len()),
        Kind::Object(entries) if entries.len() == 1 => "an object with 1 key".to_owned(),
        Kind::Object(entries) => format!("an object with {} keys", entries.len()),
        Kind::File(call) => format!("file({:?})", call.path),
        Kind::Invalid => "?".to_owned(),
    };
    if text.chars().count() > 60 { format!("{}…", text.chars().take(59).collect::<String>()) } else { text }
}

/// The type a type label names: `"List<salto.x>"` names `salto.x`.
pub(crate) fn type_label(text: &str) -> Option<ElemId> {
    let mut name = text;
    while let Some(inner) = container_inner(name) {
        name = inner;
    }
    ElemId::parse(name).ok().filter(|id| id.id_type == IdType::Type)
}

/// A label of a block header: the type it names, or the element the header defines.
fn label_symbol(label: &SyntaxNode) -> Option<Symbol> {
    let block = Block::cast(label.parent()?)?;
    let labels: Vec<Label> = block.labels().collect();
    let position = labels.iter().position(|l| l.syntax() == label)?;
    let texts: Vec<String> = labels.iter().map(|l| l.text().into_owned()).collect();
    let top_level = block.syntax().parent().is_some_and(|p| p.kind() == SOURCE_FILE);
    let id = match (top_level, texts.first().map(String::as_str), position) {
        // Keywords: `type`, `settings`, `vars`, and a type's `annotations` block.
        (true, Some("type" | "settings" | "vars"), 0) | (false, Some("annotations"), 0) if texts.len() <= 2 => None,
        // `type x`, `settings x`: the type itself; `is <meta>`: the meta type.
        (true, Some("type" | "settings"), 1) | (true, Some("type" | "settings"), 3) => type_label(&texts[position]),
        // `<type> <name>`: the type, or the instance itself.
        (true, _, 0) if texts.len() <= 2 => type_label(&texts[0]),
        (true, _, 1) if texts.len() == 2 => {
            let type_id = type_label(&texts[0])?;
            Some(ElemId {
                name_parts: smallvec::smallvec![texts[1].as_str().into()],
                id_type: IdType::Instance,
                ..type_id
            })
        }
        // A field or annotation type: `<type> <name>`.
        (false, _, 0) => type_label(&texts[0]),
        // A field's name, directly in a type's body.
        (false, _, 1) if texts.len() == 2 => return field_declaration(&block, &texts[1]),
        _ => None,
    }?;
    Some(Symbol::Element(id))
}

/// The field a nested block declares, when the block is directly in a type's body.
fn field_declaration(block: &Block, name: &str) -> Option<Symbol> {
    let parent = Block::cast(block.syntax().parent()?.parent()?)?;
    if parent.syntax().parent().is_none_or(|p| p.kind() != SOURCE_FILE) {
        return None;
    }
    let labels = parent.label_texts();
    match labels.as_slice() {
        [keyword, type_name, ..] if keyword == "type" || keyword == "settings" => {
            Some(Symbol::Field(type_label(type_name)?, name.to_owned()))
        }
        _ => None,
    }
}

/// An attribute key of an instance: the field of the instance's type.
fn key_symbol(key: &SyntaxNode) -> Option<Symbol> {
    let attribute = key.parent()?;
    let body = attribute.parent().filter(|b| b.kind() == BODY)?;
    let block = Block::cast(body.parent()?)?;
    if block.syntax().parent().is_none_or(|p| p.kind() != SOURCE_FILE) {
        return None;
    }
    let labels = block.label_texts();
    if labels.first().is_some_and(|l| l == "vars") {
        return ElemId::parse(&format!("var.{}", key.text())).ok().map(Symbol::Element);
    }
    if matches!(labels.first().map(String::as_str), Some("type" | "settings")) || labels.len() > 2 {
        return None;
    }
    let type_id = type_label(labels.first()?)?;
    Some(Symbol::Field(type_id, key.text().to_string()))
}

/// The path argument of a `file("...")` call.
fn file_argument(string: &SyntaxNode) -> Option<Symbol> {
    if !is_file_path(string) {
        return None;
    }
    let value = nacl_syntax::nacl::ast::StringLit::cast(string.clone())?.value();
    Some(Symbol::StaticFile(value))
}

/// Whether a string is the path of a `file("...")` call: the call's first argument.
pub(crate) fn is_file_path(string: &SyntaxNode) -> bool {
    let Some(arg_list) = string.parent().filter(|a| a.kind() == ARG_LIST) else { return false };
    let Some(call) = arg_list.parent().filter(|c| c.kind() == CALL) else { return false };
    let name = call.children_with_tokens().filter_map(|e| e.into_token()).find(|t| t.kind() == IDENT);
    name.is_some_and(|n| n.text() == "file") && arg_list.children().next().as_ref() == Some(string)
}

/// The full element ID of what is at `offset`, as Salto's "Copy Salto Reference" gives it: the
/// element of a header, `type.field.name` for a field, `type.attr.key` for a type's annotation value,
/// `type.annotation.name` for an annotation type, and `...instance.name.key.0.sub` for a value
/// inside an instance (list items by index).
pub fn element_id_at(root: &SyntaxNode, offset: TextSize) -> Option<ElemId> {
    let token = root.token_at_offset(offset).max_by_key(|t| !t.kind().is_trivia() && t.kind() != NEWLINE)?;
    // The path from the top-level block down to the token, built innermost first.
    let mut path: Vec<String> = Vec::new();
    let mut previous: Option<SyntaxNode> = None;
    for node in token.parent_ancestors() {
        match node.kind() {
            ATTRIBUTE => {
                let key = node.children().find(|n| n.kind() == KEY)?;
                path.push(nacl_syntax::nacl::ast::Key::cast(key)?.text().into_owned());
            }
            LIST => {
                if let Some(item) = &previous {
                    let index = node
                        .children()
                        .filter(|n| nacl_syntax::nacl::ast::Value::cast(n.clone()).is_some())
                        .position(|n| &n == item);
                    path.extend(index.map(|i| i.to_string()));
                }
            }
            BLOCK => {
                let block = Block::cast(node.clone())?;
                let labels = block.label_texts();
                let top_level = node.parent().is_some_and(|p| p.kind() == SOURCE_FILE);
                if !top_level {
                    match labels.as_slice() {
                        [keyword] if keyword == "annotations" => path.push("annotation".to_owned()),
                        [_, name] => {
                            // A field, or an annotation type when its parent block is `annotations`.
                            path.push(name.clone());
                            let parent_labels = node.ancestors().skip(1).find_map(Block::cast).map(|b| b.label_texts());
                            if parent_labels.as_deref() != Some(&["annotations".to_owned()][..]) {
                                path.push("field".to_owned());
                            }
                        }
                        _ => return None,
                    }
                    previous = Some(node);
                    continue;
                }
                path.reverse();
                return top_level_id(&block, &labels, path);
            }
            _ => {}
        }
        previous = Some(node);
    }
    None
}

/// The ID of a top-level block, extended by `path` (outermost first).
fn top_level_id(block: &Block, labels: &[String], mut path: Vec<String>) -> Option<ElemId> {
    let full = match (block.top_level_kind(), labels) {
        (TopLevelKind::Type | TopLevelKind::SettingsType, [_, name, ..]) => {
            // A value directly in a type body is an annotation value: `type.attr.key`.
            if path.first().is_some_and(|p| p != "field" && p != "annotation") {
                path.insert(0, "attr".to_owned());
            }
            std::iter::once(name.clone()).chain(path).collect::<Vec<_>>().join(".")
        }
        (TopLevelKind::Instance, [type_name, name]) => {
            std::iter::once(format!("{type_name}.instance.{name}")).chain(path).collect::<Vec<_>>().join(".")
        }
        (TopLevelKind::SettingsInstance, [type_name]) => {
            let base = format!("{type_name}.instance");
            if path.is_empty() {
                base
            } else {
                std::iter::once(format!("{base}._config")).chain(path).collect::<Vec<_>>().join(".")
            }
        }
        (TopLevelKind::Vars, _) => format!("var.{}", path.first()?),
        _ => return None,
    };
    ElemId::parse(&full).ok()
}
