//! Completion: block keywords and type names in headers; fields, annotations and core
//! annotations in bodies (skipping those already set); values by type (`true`/`false`,
//! `_restriction` values, `""`/`[]`/`{}` snippets); element IDs segment by segment, in
//! references and `${ }` templates; `file("...")` paths from the static-resources folders.
//!
//! Everything comes from memoized queries (type summaries, the element index, the type names of
//! each environment, the state's hidden names) and the file's syntax tree: nothing proportional to
//! the workspace is computed per request.

mod context;
pub(crate) mod names;
pub(crate) mod shapes;

use crate::{
    builtins::{CORE_ANNOTATIONS, CoreAnnotation},
    db::{ElementIndex, SourceFile, defined_in, element_exists, env_state, only_file},
    elem_id::{BUILTIN_TYPES, ElemId, IdType, VARIABLES_NAMESPACE},
    hashing::NameMap,
    workspace::LoadedWorkspace,
};
use context::{Context, CursorContext, Place};
use nacl_syntax::{TextRange, TextSize};
use shapes::{Shape, Site};
use std::path::Path;

/// What a completion item is, for the editor's icon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    /// A block keyword (`type`, `settings`, `vars`, `annotations`, `is`) or `true`/`false`.
    Keyword,
    /// A type.
    Type,
    /// A field of a type.
    Field,
    /// An annotation (declared by a type, or a core one).
    Annotation,
    /// An allowed value, or a value snippet.
    Value,
    /// An instance.
    Instance,
    /// A variable.
    Variable,
    /// An adapter (the first segment of an element ID).
    Adapter,
    /// A key or list index inside a value.
    Key,
    /// A static file.
    File,
    /// A function (ARMLang's built-ins and member functions).
    Function,
}

/// One completion item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionItem {
    /// What the list shows, and what the typed text is matched against.
    pub label: String,
    /// What it is.
    pub kind: CompletionKind,
    /// A short description (a field's type, an instance's type).
    pub detail: Option<String>,
    /// A longer description, in markdown.
    pub documentation: Option<String>,
    /// The text to insert. With `snippet`, it holds LSP snippet placeholders (`$1`, `${1|a,b|}`, `$0`).
    pub insert: String,
    /// Whether `insert` is a snippet.
    pub snippet: bool,
    /// The range the item replaces.
    pub range: TextRange,
    /// Lower ranks are listed first.
    pub rank: u8,
}

/// The answer to a completion request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completions {
    /// The items.
    pub items: Vec<CompletionItem>,
    /// Whether the list was cut (typing more asks again).
    pub incomplete: bool,
}

/// At most this many items are returned; beyond it, they are filtered by what was typed.
const LIMIT: usize = 500;

impl LoadedWorkspace {
    /// The completions at `offset` in the file at `path`.
    pub fn completions(&self, path: &Path, offset: TextSize) -> Completions {
        let (Some(root), Some(text)) = (self.syntax(path), self.text_of(path)) else { return Completions::default() };
        let Some(CursorContext { context, range, typed }) = context::context_at(&root, &text, offset) else {
            return Completions::default();
        };
        let env = self.workspace.layout(&self.db).env_of(path);
        let here = self.file(path).map(|file| (file, offset));
        let mut out = Collector { items: Vec::new(), range, here, typed: typed.clone() };
        let env = env.as_deref();
        match context {
            Context::Header { before } => self.header_items(env, &before, &mut out),
            Context::Key { place, existing } => self.key_items(env, &place, &existing, &mut out),
            Context::Value { place } => {
                self.value_items(env, &place, &mut out);
                self.reference_items(env, &[], &mut out);
            }
            Context::StringValue { place } => self.string_value_items(env, &place, &mut out),
            Context::Reference { segments } => self.reference_items(env, &segments, &mut out),
            Context::File => self.file_items(path, &mut out),
        }
        finish(out.items, &typed)
    }

    fn header_items(&self, env: Option<&str>, before: &[String], out: &mut Collector) {
        match before.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            [] => {
                out.snippet("type", CompletionKind::Keyword, "type ${1:adapter.Name} {\n  $0\n}", 0);
                out.snippet("settings", CompletionKind::Keyword, "settings ${1:adapter.Name} {\n  $0\n}", 0);
                out.snippet("vars", CompletionKind::Keyword, "vars {\n  $0\n}", 0);
                self.type_names(env, false, out);
            }
            ["type" | "settings"] => self.type_names(env, false, out),
            ["type", _] => out.plain("is", CompletionKind::Keyword, "is", 0),
            ["type", _, "is"] => {
                for name in ["string", "number", "boolean", "unknown"] {
                    out.plain(name, CompletionKind::Type, name, 0);
                }
            }
            _ => {}
        }
    }

    /// Every type name: the workspace's and the state's hidden ones, and the built-in ones when
    /// `builtins` (field and annotation types).
    fn type_names(&self, env: Option<&str>, builtins: bool, out: &mut Collector) {
        if builtins {
            for name in BUILTIN_TYPES {
                out.plain(name, CompletionKind::Type, name, 2);
            }
            out.snippet("List<>", CompletionKind::Type, "List<$1>", 2);
            out.snippet("Map<>", CompletionKind::Type, "Map<$1>", 2);
        }
        // Once an adapter is typed, only its types.
        let adapter = out.typed.split_once('.').map(|(adapter, _)| adapter.to_owned());
        let of_adapter = |a: &String| adapter.as_ref().is_none_or(|wanted| wanted == a);
        let choices = names::type_choices(&self.db, self.workspace, env.map(str::to_owned));
        let here = out.here;
        let nacl: Vec<&Vec<_>> = choices.nacl.iter().filter(|(a, _)| of_adapter(a)).map(|(_, types)| types).collect();
        let hidden: Vec<&Vec<_>> =
            choices.hidden.iter().filter(|(a, _)| of_adapter(a)).map(|(_, names)| names).collect();
        out.items.reserve(nacl.iter().map(|l| l.len()).sum::<usize>() + hidden.iter().map(|l| l.len()).sum::<usize>());
        for choice in nacl.into_iter().flatten() {
            if !self.only_here_if_in(choice.only_file, env, &choice.id, here) {
                out.item(choice.name.clone(), CompletionKind::Type, None, 3);
            }
        }
        for name in hidden.into_iter().flatten() {
            out.item(name.clone(), CompletionKind::Type, Some("hidden type (in state)".to_owned()), 4);
        }
    }

    fn key_items(&self, env: Option<&str>, place: &Place, existing: &[String], out: &mut Collector) {
        let unset = |name: &str| !existing.iter().any(|e| e == name);
        match self.site_of(env, place) {
            Site::Value { shape: Shape::Type(id), .. } => {
                if let Some(info) = self.type_summary(env, &id) {
                    for field in info.fields.iter().filter(|f| unset(&f.name) && !f.hidden) {
                        let shape = Shape::of(&field.type_name);
                        let value = self.value_snippet(env, &shape, field.restriction.as_ref());
                        let detail = format!("{}{}", field.type_name, if field.required { " (required)" } else { "" });
                        out.items.push(CompletionItem {
                            label: field.name.to_string(),
                            kind: CompletionKind::Field,
                            detail: Some(detail),
                            documentation: None,
                            insert: format!("{} = {value}", field.name),
                            snippet: true,
                            range: out.range,
                            rank: if field.required { 0 } else { 1 },
                        });
                    }
                }
                if place.steps.is_empty() && shapes::is_instance_header(&place.header) {
                    core_annotations("instances", &unset, out);
                }
            }
            Site::Value { shape: Shape::Restriction, .. } => {
                for (key, kind) in crate::builtins::builtin_fields("restriction") {
                    if unset(key) {
                        let value = self.value_snippet(env, &Shape::of(kind), None);
                        out.snippet(key, CompletionKind::Key, &format!("{key} = {value}"), 0);
                    }
                }
            }
            Site::TypeBody(id) => {
                out.snippet("annotations", CompletionKind::Keyword, "annotations {\n  $0\n}", 1);
                self.declared_annotations(env, &id, &unset, out);
                core_annotations("types", &unset, out);
                self.type_names(env, true, out);
            }
            Site::FieldBody(shape) => {
                if let Shape::Type(id) = &shape {
                    self.declared_annotations(env, id, &unset, out);
                }
                core_annotations("fields", &unset, out);
            }
            Site::AnnotationsBlock => self.type_names(env, true, out),
            Site::Value { .. } | Site::Nothing => {}
        }
    }

    /// The annotations a type declares (in its `annotations` block, or in state), not yet set.
    fn declared_annotations(&self, env: Option<&str>, id: &ElemId, unset: &dyn Fn(&str) -> bool, out: &mut Collector) {
        for (name, type_name) in self.annotation_types(env, id) {
            if unset(&name) {
                let value = self.value_snippet(env, &Shape::of(&type_name), None);
                out.items.push(CompletionItem {
                    label: name.clone(),
                    kind: CompletionKind::Annotation,
                    detail: Some(type_name),
                    documentation: None,
                    insert: format!("{name} = {value}"),
                    snippet: true,
                    range: out.range,
                    rank: 0,
                });
            }
        }
    }

    fn value_items(&self, env: Option<&str>, place: &Place, out: &mut Collector) {
        let Site::Value { shape, restriction } = self.site_of(env, place) else { return };
        for value in restriction.iter().flat_map(|r| r.values.iter().flatten()) {
            if let Some(text) = shapes::value_text(crate::values::ValueRef::of(value)) {
                out.plain(&text, CompletionKind::Value, &text, 0);
            }
        }
        match self.primitive_of(env, &shape) {
            Some(crate::fragments::Primitive::Boolean) => {
                out.plain("true", CompletionKind::Keyword, "true", 0);
                out.plain("false", CompletionKind::Keyword, "false", 0);
            }
            Some(crate::fragments::Primitive::String) => out.snippet("\"\"", CompletionKind::Value, "\"$0\"", 1),
            _ => {}
        }
        match shape {
            Shape::List(_) => out.snippet("[]", CompletionKind::Value, "[\n  $0\n]", 1),
            Shape::Map(_) | Shape::Restriction => out.snippet("{}", CompletionKind::Value, "{\n  $0\n}", 1),
            Shape::Type(_) if self.primitive_of(env, &shape).is_none() => {
                out.snippet("{}", CompletionKind::Value, "{\n  $0\n}", 1);
            }
            _ => {}
        }
    }

    fn string_value_items(&self, env: Option<&str>, place: &Place, out: &mut Collector) {
        let Site::Value { restriction: Some(restriction), .. } = self.site_of(env, place) else { return };
        for value in restriction.values.iter().flatten() {
            if let crate::values::Kind::String(s) = crate::values::ValueRef::of(value).kind() {
                out.plain(&s, CompletionKind::Value, &shapes::escape(&s), 0);
            }
        }
    }

    /// The element IDs that continue `segments` (the dot-separated parts typed before the cursor's).
    fn reference_items(&self, env: Option<&str>, segments: &[String], out: &mut Collector) {
        let names = names::reference_names(&self.db, self.workspace);
        match segments.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            [] => {
                for adapter in &names.adapters {
                    out.item(adapter.clone(), CompletionKind::Adapter, Some("adapter".to_owned()), 5);
                }
                if let Some(state) = env_state(&self.db, self.workspace, env) {
                    for adapter in state.hidden_names().types.keys().filter(|a| !names.adapters.contains(a)) {
                        out.item(adapter.clone(), CompletionKind::Adapter, Some("adapter".to_owned()), 5);
                    }
                }
                if !names.variables.is_empty() {
                    out.item(VARIABLES_NAMESPACE.to_owned(), CompletionKind::Keyword, Some("variables".to_owned()), 5);
                }
            }
            [VARIABLES_NAMESPACE] => {
                for name in &names.variables {
                    let id = ElemId::parse(&format!("{VARIABLES_NAMESPACE}.{name}"));
                    if id.is_ok_and(|id| element_exists(&self.db, self.workspace, env, &id)) {
                        out.item(name.clone(), CompletionKind::Variable, None, 0);
                    }
                }
            }
            [adapter] => {
                let choices = names::type_choices(&self.db, self.workspace, env.map(str::to_owned));
                for choice in choices.nacl.get(*adapter).into_iter().flatten() {
                    out.item(choice.id.type_name.to_string(), CompletionKind::Type, None, 0);
                }
                if let Some(state) = env_state(&self.db, self.workspace, env) {
                    for id in state.hidden_names().types.get(*adapter).into_iter().flatten() {
                        out.item(
                            id.type_name.to_string(),
                            CompletionKind::Type,
                            Some("hidden type (in state)".to_owned()),
                            1,
                        );
                    }
                }
            }
            [_, _] => {
                for (word, what) in [
                    ("instance", "an instance of the type"),
                    ("field", "a field of the type"),
                    ("attr", "an annotation value of the type"),
                    ("annotation", "an annotation type of the type"),
                ] {
                    out.item(word.to_owned(), CompletionKind::Keyword, Some(what.to_owned()), 0);
                }
            }
            [adapter, type_name, kind, rest @ ..] => {
                let type_id = ElemId::type_id(adapter, type_name);
                match (IdType::parse(kind), rest) {
                    (Some(IdType::Instance), []) => self.instance_names(env, &type_id, names, out),
                    (Some(IdType::Field), []) => {
                        for field in self.type_summary(env, &type_id).iter().flat_map(|t| t.fields.iter()) {
                            out.item(
                                field.name.to_string(),
                                CompletionKind::Field,
                                Some(field.type_name.to_string()),
                                0,
                            );
                        }
                    }
                    (Some(IdType::Annotation), []) => {
                        for (name, type_name) in self.annotation_types(env, &type_id) {
                            out.item(name, CompletionKind::Annotation, Some(type_name), 0);
                        }
                    }
                    (Some(IdType::Attr), []) => {
                        for key in self.value_keys(env, &type_id, None, &[]) {
                            out.item(key, CompletionKind::Annotation, None, 0);
                        }
                    }
                    (Some(IdType::Instance), [name, path @ ..]) => {
                        let id = ElemId {
                            id_type: IdType::Instance,
                            name_parts: smallvec::smallvec![(*name).into()],
                            ..type_id
                        };
                        self.path_keys(env, &id, None, path, out);
                    }
                    (Some(IdType::Field), [field, path @ ..]) => self.path_keys(env, &type_id, Some(field), path, out),
                    (Some(IdType::Attr), [key, path @ ..]) => {
                        let mut full = vec![*key];
                        full.extend(path);
                        self.path_keys(env, &type_id, None, &full, out);
                    }
                    _ => {}
                }
            }
        }
    }

    fn instance_names(&self, env: Option<&str>, type_id: &ElemId, names: &names::ReferenceNames, out: &mut Collector) {
        let index = crate::db::element_index(&self.db, self.workspace);
        for name in names.instances.get(type_id).into_iter().flatten() {
            let id = ElemId {
                id_type: IdType::Instance,
                name_parts: smallvec::smallvec![name.as_str().into()],
                ..type_id.clone()
            };
            if self.offered(index, env, &id, out.here) {
                let detail = crate::elem_id::decode_nacl_case(name);
                out.item(name.clone(), CompletionKind::Instance, detail, 0);
            }
        }
        if let Some(state) = env_state(&self.db, self.workspace, env) {
            for name in state.hidden_names().instances.get(type_id).into_iter().flatten() {
                out.item(name.clone(), CompletionKind::Instance, Some("hidden instance (in state)".to_owned()), 1);
            }
        }
    }

    /// Whether completion offers an element: it exists in `env` and is not defined only by the
    /// block being edited. One lookup in the index.
    fn offered(
        &self,
        index: &ElementIndex,
        env: Option<&str>,
        id: &ElemId,
        here: Option<(SourceFile, TextSize)>,
    ) -> bool {
        let Some(files) = index.files.get(id) else { return false };
        defined_in(files, env) && !self.only_here_if_in(only_file(files), env, id, here)
    }

    /// Whether the only definition of an element is the block being edited (a name being typed,
    /// or the element itself), which completing it would only echo. `only_file` is the element's
    /// only defining file, if it has one ([`only_file`]): elsewhere nothing more is read.
    fn only_here_if_in(
        &self,
        only_file: Option<SourceFile>,
        env: Option<&str>,
        id: &ElemId,
        here: Option<(SourceFile, TextSize)>,
    ) -> bool {
        let Some((file, offset)) = here.filter(|(file, _)| only_file == Some(*file)) else { return false };
        crate::db::element_files(&self.db, self.workspace, env, id) == [file]
            && crate::db::fragments_of(&self.db, file, id).iter().all(|f| f.range.contains_inclusive(offset))
    }

    /// The keys (or list indices) below `path` in an element's values, or a field's annotations.
    fn path_keys(&self, env: Option<&str>, id: &ElemId, field: Option<&str>, path: &[&str], out: &mut Collector) {
        for key in self.value_keys(env, id, field, path) {
            out.item(key, CompletionKind::Key, None, 0);
        }
    }

    /// The static files a `file("...")` in the file at `path` can name, relative to its folders.
    fn file_items(&self, path: &Path, out: &mut Collector) {
        let layout = self.workspace.layout(&self.db);
        let static_files = &self.workspace.static_files(&self.db).files;
        for dir in layout.static_dirs(&layout.source_of(path)) {
            let start = static_files.partition_point(|f| f < &dir);
            for file in static_files[start..].iter().take_while(|f| f.starts_with(&dir)) {
                if let Some(relative) = file.strip_prefix(&dir).ok().and_then(|r| r.to_str()) {
                    let relative = relative.replace('\\', "/");
                    out.item(relative, CompletionKind::File, None, 0);
                }
            }
        }
    }
}

/// The core annotations that apply to `what` (`types`, `fields`, `instances`) and are not set yet.
fn core_annotations(what: &str, unset: &dyn Fn(&str) -> bool, out: &mut Collector) {
    // Hidden ones (`_service_url`, `_created_by`, ...) are the service's to set.
    let settable = |a: &&CoreAnnotation| !a.value_type.starts_with("hidden_");
    for annotation in CORE_ANNOTATIONS.iter().filter(settable).filter(|a| a.applies_to.contains(what) && unset(a.name))
    {
        out.items.push(CompletionItem {
            label: annotation.name.to_owned(),
            kind: CompletionKind::Annotation,
            detail: Some(annotation.value_type.to_owned()),
            documentation: Some(annotation.meaning.to_owned()),
            insert: format!("{} = ", annotation.name),
            snippet: false,
            range: out.range,
            rank: 3,
        });
    }
}

/// Items being gathered for one range.
struct Collector {
    items: Vec<CompletionItem>,
    range: TextRange,
    /// The file and offset completed in.
    here: Option<(SourceFile, TextSize)>,
    /// What was typed of the item.
    typed: String,
}

impl Collector {
    fn push(&mut self, label: &str, kind: CompletionKind, insert: &str, snippet: bool, rank: u8) {
        self.items.push(CompletionItem {
            label: label.to_owned(),
            kind,
            detail: None,
            documentation: None,
            insert: insert.to_owned(),
            snippet,
            range: self.range,
            rank,
        });
    }

    fn plain(&mut self, label: &str, kind: CompletionKind, insert: &str, rank: u8) {
        self.push(label, kind, insert, false, rank);
    }

    fn snippet(&mut self, label: &str, kind: CompletionKind, insert: &str, rank: u8) {
        self.push(label, kind, insert, true, rank);
    }

    /// An item inserting its own label.
    fn item(&mut self, label: String, kind: CompletionKind, detail: Option<String>, rank: u8) {
        let insert = label.clone();
        self.items.push(CompletionItem {
            label,
            kind,
            detail,
            documentation: None,
            insert,
            snippet: false,
            range: self.range,
            rank,
        });
    }
}

/// Sorts and deduplicates the items; past [`LIMIT`], keeps those matching what was typed.
///
/// Work is linear in the items but for the [`LIMIT`] kept: duplicates are found with a hash map
/// and the best are picked before they are sorted (completing after `adapter.` can list every
/// type of a large workspace).
fn finish(items: Vec<CompletionItem>, typed: &str) -> Completions {
    // One item per label, the best ranked (the first pushed among equals).
    let mut kept: Vec<usize> = Vec::with_capacity(items.len());
    let mut by_label: NameMap<&str, usize> = NameMap::with_capacity_and_hasher(items.len(), Default::default());
    for (at, item) in items.iter().enumerate() {
        match by_label.entry(item.label.as_str()) {
            std::collections::hash_map::Entry::Occupied(seen) => {
                let best = &mut kept[*seen.get()];
                if item.rank < items[*best].rank {
                    *best = at;
                }
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(kept.len());
                kept.push(at);
            }
        }
    }
    drop(by_label);
    let incomplete = if kept.len() > LIMIT {
        let typed = typed.to_lowercase();
        kept.retain(|&at| is_subsequence_ignoring_case(&typed, &items[at].label));
        kept.len() > LIMIT
    } else {
        false
    };
    let order = |&a: &usize, &b: &usize| (items[a].rank, &items[a].label).cmp(&(items[b].rank, &items[b].label));
    if kept.len() > LIMIT {
        kept.select_nth_unstable_by(LIMIT - 1, order);
        kept.truncate(LIMIT);
    }
    kept.sort_unstable_by(order);
    let mut items: Vec<Option<CompletionItem>> = items.into_iter().map(Some).collect();
    Completions { items: kept.iter().filter_map(|&at| items[at].take()).collect(), incomplete }
}

/// Whether the characters of `needle` (in lower case) appear in order in `haystack`, compared
/// in lower case.
fn is_subsequence_ignoring_case(needle: &str, haystack: &str) -> bool {
    if needle.is_ascii() && haystack.is_ascii() {
        let mut rest = haystack.bytes().map(|b| b.to_ascii_lowercase());
        return needle.bytes().all(|c| rest.any(|h| h == c));
    }
    let mut rest = haystack.chars().flat_map(char::to_lowercase);
    needle.chars().all(|c| rest.any(|h| h == c))
}

/// A snippet as the text it expands to with every placeholder at its default: `$1` and `$0`
/// vanish, `${1:x}` becomes `x`, `${1|a,b|}` becomes `a`.
pub fn snippet_text(snippet: &str) -> String {
    let mut out = String::new();
    let mut chars = snippet.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(_)) => out.extend(chars.next()),
            ('$', Some(d)) if d.is_ascii_digit() => while chars.next_if(char::is_ascii_digit).is_some() {},
            ('$', Some('{')) => {
                chars.next();
                while chars.next_if(char::is_ascii_digit).is_some() {}
                let choice = chars.next() == Some('|');
                let mut escaped = false;
                let mut taking = true;
                for c in chars.by_ref() {
                    match c {
                        _ if escaped => {
                            escaped = false;
                            if taking {
                                out.push(c);
                            }
                        }
                        '\\' => escaped = true,
                        ',' | '|' if choice => taking = false,
                        '}' => break,
                        _ if taking => out.push(c),
                        _ => {}
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{CompletionItem, CompletionKind, LIMIT, finish, is_subsequence_ignoring_case, snippet_text};
    use proptest::prelude::*;

    /// What `finish` answers, written the plain way: sort by label and rank, keep each label's
    /// first, sort by rank and label; past the limit, keep those matching what was typed.
    fn finish_by_sorting(mut items: Vec<CompletionItem>, typed: &str) -> (Vec<(String, u8)>, bool) {
        items.sort_by(|a, b| (&a.label, a.rank).cmp(&(&b.label, b.rank)));
        items.dedup_by(|later, first| later.label == first.label);
        items.sort_by(|a, b| (a.rank, &a.label).cmp(&(b.rank, &b.label)));
        let mut incomplete = false;
        if items.len() > LIMIT {
            let typed = typed.to_lowercase();
            items.retain(|item| {
                let mut rest = item.label.to_lowercase().chars().collect::<Vec<_>>().into_iter();
                typed.chars().all(|c| rest.any(|h| h == c))
            });
            incomplete = items.len() > LIMIT;
            items.truncate(LIMIT);
        }
        (items.into_iter().map(|i| (i.label, i.rank)).collect(), incomplete)
    }

    proptest! {
        #[test]
        fn the_subsequence_test_lowercases_characters(needle in "[ab.é]{0,4}", haystack in "[aAbB.éÉ]{0,10}") {
            let mut rest = haystack.chars().flat_map(char::to_lowercase);
            let by_characters = needle.chars().all(|c| rest.any(|h| h == c));
            prop_assert_eq!(is_subsequence_ignoring_case(&needle, &haystack), by_characters);
        }

        #[test]
        fn finish_keeps_the_best_of_each_label_in_order(
            labels in proptest::collection::vec(("[abAB]{1,6}", 0u8..4), 0..1500),
            typed in "[abAB]{0,3}",
        ) {
            let items: Vec<CompletionItem> = labels
                .into_iter()
                .map(|(label, rank)| CompletionItem {
                    insert: label.clone(),
                    label,
                    kind: CompletionKind::Value,
                    detail: None,
                    documentation: None,
                    snippet: false,
                    range: Default::default(),
                    rank,
                })
                .collect();
            let expected = finish_by_sorting(items.clone(), &typed);
            let found = finish(items, &typed);
            let found = (found.items.into_iter().map(|i| (i.label, i.rank)).collect::<Vec<_>>(), found.incomplete);
            prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn snippets_become_their_defaults() {
        assert_eq!(snippet_text("Name = \"$1\""), "Name = \"\"");
        assert_eq!(snippet_text("n = ${1:0}"), "n = 0");
        assert_eq!(snippet_text("b = ${1|true,false|}"), "b = true");
        assert_eq!(snippet_text("s = ${1|\"a\\,b\",\"c\"|}"), "s = \"a,b\"");
        assert_eq!(snippet_text("x = {\n  $0\n}"), "x = {\n  \n}");
    }
}
