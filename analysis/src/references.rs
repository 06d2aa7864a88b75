//! Find references, highlight and rename: every place an element, a field, an annotation type, a
//! value inside an instance or a variable is named - references, `${ }` templates, header and
//! field-type labels (inside `"List<...>"` too), instance attribute keys, annotation value keys,
//! instance value paths, and the declarations themselves.
//!
//! The workspace is searched on demand: files that do not contain the name's text are skipped
//! without parsing (most without reading their text: [`crate::mentions`] keeps which words each
//! file holds), the others are parsed in parallel.

use crate::{
    elem_id::{ElemId, IdType, Name},
    navigation::{Symbol, symbol_at, token_symbol},
    workspace::LoadedWorkspace,
};
use nacl_syntax::nacl::{
    SyntaxKind::*,
    SyntaxNode, SyntaxToken,
    ast::{AstNodeExt, Block, Label},
};
use nacl_syntax::{TextRange, TextSize};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// What references are searched for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// A type, an instance or a variable.
    Element(ElemId),
    /// A field of a type.
    Field {
        /// The type.
        type_id: ElemId,
        /// The field's name.
        name: String,
    },
    /// An annotation type a type declares (in its `annotations` block), set as a key in the
    /// type's body and in the blocks of fields of that type.
    Annotation {
        /// The type declaring it.
        type_id: ElemId,
        /// The annotation's name.
        name: String,
    },
    /// A value inside an instance, below its top-level keys (those are its type's fields).
    Value {
        /// The instance.
        instance: ElemId,
        /// The keys and list indices down to the value.
        path: Vec<Name>,
    },
}

impl Named {
    /// The name this target is renamed through (the part of its ID an edit replaces).
    pub fn name(&self) -> &str {
        match self {
            Named::Element(id) if id.id_type == IdType::Instance => id.name_parts.first().map_or("", Name::as_str),
            Named::Element(id) => &id.type_name,
            Named::Field { name, .. } | Named::Annotation { name, .. } => name,
            Named::Value { path, .. } => path.last().map_or("", Name::as_str),
        }
    }
}

/// One place a target is named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// The file.
    pub path: PathBuf,
    /// The range of the name itself (the one segment of a longer ID that names the target).
    pub range: TextRange,
    /// Whether this is where the target is declared (a header, a field block, a variable key).
    pub declaration: bool,
}

/// A rename, as edits per file.
pub type RenameEdits = Vec<(PathBuf, Vec<(TextRange, String)>)>;

impl LoadedWorkspace {
    /// What the name at `offset` refers to, and the range of that name.
    pub fn named_at(&self, path: &Path, offset: TextSize) -> Option<(Named, TextRange)> {
        target_at(&self.syntax(path)?, offset)
    }

    /// Every place the target at `offset` is named, across the workspace, sorted by file.
    pub fn references(&self, path: &Path, offset: TextSize, include_declaration: bool) -> Vec<Occurrence> {
        let Some((named, _)) = self.named_at(path, offset) else { return Vec::new() };
        let mut found = self.occurrences(&named);
        found.retain(|o| include_declaration || !o.declaration);
        found
    }

    /// The places the target at `offset` is named in the same file.
    pub fn highlights(&self, path: &Path, offset: TextSize) -> Vec<Occurrence> {
        let Some(root) = self.syntax(path) else { return Vec::new() };
        let Some((named, _)) = target_at(&root, offset) else { return Vec::new() };
        tree_occurrences(path, &root, &named)
    }

    /// The range a rename at `offset` would replace, or why the name there cannot be renamed.
    pub fn prepare_rename(&self, path: &Path, offset: TextSize) -> Result<(TextRange, String), String> {
        let (named, range) = self.renameable_at(path, offset)?;
        Ok((range, named.name().to_owned()))
    }

    /// What a rename at `offset` would rename, or why it cannot.
    fn renameable_at(&self, path: &Path, offset: TextSize) -> Result<(Named, TextRange), String> {
        let (named, range) = self.named_at(path, offset).ok_or("nothing to rename here")?;
        match &named {
            Named::Element(id) if id.adapter.is_empty() => Err(format!("`{id}` is built in and cannot be renamed")),
            Named::Value { .. } => {
                Err("a key inside an instance's value is data, named by its type: rename the field of the type instead"
                    .to_owned())
            }
            _ => Ok((named, range)),
        }
    }

    /// The edits renaming the target at `offset` to `new_name` everywhere.
    pub fn rename(&self, path: &Path, offset: TextSize, new_name: &str) -> Result<RenameEdits, String> {
        let (named, _) = self.renameable_at(path, offset)?;
        if !is_valid_name(new_name) {
            return Err(format!(
                "`{new_name}` is not a valid name: use letters, digits, `_` and `@`, not starting with a digit"
            ));
        }
        if new_name == named.name() {
            return Ok(Vec::new());
        }
        if let Some(existing) = self.collision(path, &named, new_name) {
            return Err(format!("`{existing}` already exists"));
        }
        let mut edits: RenameEdits = Vec::new();
        for occurrence in self.occurrences(&named) {
            match edits.last_mut() {
                Some((file, list)) if *file == occurrence.path => list.push((occurrence.range, new_name.to_owned())),
                _ => edits.push((occurrence.path, vec![(occurrence.range, new_name.to_owned())])),
            }
        }
        Ok(edits)
    }

    /// What renaming `named` to `new_name` would collide with, if anything.
    fn collision(&self, path: &Path, named: &Named, new_name: &str) -> Option<String> {
        let env = self.workspace.layout(&self.db).env_of(path);
        let renamed = match named {
            Named::Element(id) if id.id_type == IdType::Instance => {
                ElemId { name_parts: smallvec::smallvec![new_name.into()], ..id.clone() }
            }
            Named::Element(id) => ElemId { type_name: new_name.into(), ..id.clone() },
            Named::Field { type_id, .. } => {
                let merged = crate::db::merged_element(&self.db, self.workspace, env.as_deref(), type_id)?;
                return merged.field(new_name).map(|_| format!("{type_id}.field.{new_name}"));
            }
            Named::Annotation { type_id, .. } => {
                let merged = crate::db::merged_element(&self.db, self.workspace, env.as_deref(), type_id)?;
                let declared = merged.annotation_types.iter().any(|(name, ..)| **name == *new_name);
                return declared.then(|| format!("{type_id}.annotation.{new_name}"));
            }
            Named::Value { .. } => return None,
        };
        crate::db::element_exists(&self.db, self.workspace, env.as_deref(), &renamed).then(|| renamed.to_string())
    }

    /// Every occurrence of `named` in the workspace, by file then position.
    fn occurrences(&self, named: &Named) -> Vec<Occurrence> {
        let needle = named.name();
        // The files that may hold the name are scanned for it, on all cores; a type's
        // occurrences are read from the fragments of the files that name it, other files are
        // parsed.
        let scanned = self.par_map(&self.files_mentioning(needle), |db, &file| {
            if !file.text(db).get().contains(needle) {
                return None;
            }
            let from_fragments = match named {
                Named::Element(type_id) if type_id.id_type == IdType::Type => type_occurrences(db, file, type_id),
                _ => None,
            };
            Some(from_fragments.ok_or_else(|| (file.path(db).clone(), file.text(db).get().clone())))
        });
        let mut found: Vec<Occurrence> = Vec::new();
        let mut to_parse: Vec<(PathBuf, crate::fragments::Text)> = Vec::new();
        for scan in scanned.into_iter().flatten() {
            match scan {
                Ok(occurrences) => found.extend(occurrences),
                Err(file) => to_parse.push(file),
            }
        }
        found.par_extend(to_parse.par_iter().flat_map_iter(|(path, text)| file_occurrences(path, text, named)));
        found.sort_by(|a, b| (&a.path, a.range.start()).cmp(&(&b.path, b.range.start())));
        found
    }
}

/// The places a file names the type `type_id`, read from its fragments without parsing it (a
/// widely used type is named in thousands of files): headers, field and annotation-type labels,
/// references and templates. `None` when the fragments may not say everything (a file with syntax
/// errors, whose broken blocks define nothing, or with a meta type, whose label they do not keep).
fn type_occurrences(db: &dyn crate::db::Db, file: crate::db::SourceFile, type_id: &ElemId) -> Option<Vec<Occurrence>> {
    let read = crate::db::file_fragments(db, file);
    let fragments = &read.fragments;
    let has_meta =
        fragments.iter().any(|f| matches!(f.kind, crate::fragments::FragmentKind::Object { meta: Some(_), .. }));
    if !read.syntax_errors.is_empty() || has_meta {
        return None;
    }
    let (path, text) = (file.path(db), file.text(db).get());
    let full = type_id.to_string();
    let named = Named::Element(type_id.clone());
    let mut found = Vec::new();
    // The type's name inside a label range that names it.
    let mut label = |range: TextRange, declaration: bool| {
        let at = text.get(std::ops::Range::<usize>::from(range))?.find(&full)? + type_id.adapter.len() + 1;
        let name = TextRange::at(range.start() + TextSize::from(at as u32), TextSize::of(type_id.type_name.as_str()));
        // An adapter's config type (`salesforce`) has no name of its own written anywhere.
        if text.get(std::ops::Range::<usize>::from(name)) != Some(type_id.type_name.as_str()) {
            return None;
        }
        found.push(Occurrence { path: path.clone(), range: name, declaration });
        Some(())
    };
    for fragment in fragments.iter() {
        match fragment.kind {
            crate::fragments::FragmentKind::Instance if fragment.id.type_of() == *type_id => {
                label(fragment.type_range?, false);
            }
            crate::fragments::FragmentKind::Object { .. } | crate::fragments::FragmentKind::Primitive(_)
                if *fragment.id == *type_id =>
            {
                label(fragment.header_range, true);
            }
            _ => {}
        }
        for def in fragment.fields.iter().chain(&fragment.annotation_types) {
            if crate::navigation::type_label(&def.type_name).as_ref() == Some(type_id) {
                label(def.type_range, false);
            }
        }
    }
    let mut references: Vec<(crate::values::Str<'_>, TextRange)> = Vec::new();
    crate::diagnostics::walk_values(fragments, &mut |value| match value.kind() {
        crate::values::Kind::Reference(text) => references.push((text, value.range())),
        crate::values::Kind::Template(parts) => references.extend(parts.iter().filter_map(|part| match part {
            crate::values::Part::Reference(text, range) => Some((text, range)),
            crate::values::Part::Text(_) => None,
        })),
        _ => {}
    });
    for (text, at) in references {
        let Ok(id) = ElemId::parse(&text) else { continue };
        let Some(segment) = reference_segment(&id, &named) else { continue };
        if let Some(range) = segment_range(&text, segment) {
            found.push(Occurrence { path: path.clone(), range: range + at.start(), declaration: false });
        }
    }
    Some(found)
}

/// What the name at `offset` refers to, and the range of just the segment naming it (what a
/// rename replaces).
fn target_at(root: &SyntaxNode, offset: TextSize) -> Option<(Named, TextRange)> {
    let token = root.token_at_offset(offset).max_by_key(|t| matches!(t.kind(), IDENT | STRING_TEXT))?;
    let (named, range) = match annotation_or_value_at(&token, offset) {
        Some(named) => (named, token.text_range()),
        None => {
            let (symbol, range) = symbol_at(root, offset)?;
            (named(symbol)?, range)
        }
    };
    let range = occurrence_in(&token, &named).map_or(range, |(range, _)| range);
    Some((named, range))
}

/// An annotation type or a value inside an instance named by `token`: a segment after
/// `attr`/`annotation`, or after an instance's top-level key, in a reference; an annotation
/// value key; an annotation type's declaration; a key nested in an instance's value.
fn annotation_or_value_at(token: &SyntaxToken, offset: TextSize) -> Option<Named> {
    let parent = token.parent()?;
    match (token.kind(), parent.kind()) {
        (IDENT, REFERENCE | TEMPLATE) => {
            let id = ElemId::parse(token.text()).ok()?;
            let before = &token.text()[..usize::from(offset - token.text_range().start()).min(token.text().len())];
            let segment = before.matches('.').count();
            match id.id_type {
                IdType::Attr | IdType::Annotation if segment == 3 => {
                    Some(Named::Annotation { type_id: id.type_of(), name: id.name_parts.first()?.to_string() })
                }
                // An instance's top-level key is a field of its type.
                IdType::Instance if segment == 4 => {
                    Some(Named::Field { type_id: id.type_of(), name: id.name_parts.get(1)?.to_string() })
                }
                IdType::Instance if segment >= 5 => {
                    let (instance, path) = id.top_level();
                    Some(Named::Value { instance, path: path.get(..segment - 3)?.to_vec() })
                }
                _ => None,
            }
        }
        (IDENT, KEY) => match key_owner(&parent)? {
            KeyOwner::Type(type_id) => Some(Named::Annotation { type_id, name: token.text().to_owned() }),
            KeyOwner::Value(instance, path) => Some(Named::Value { instance, path }),
        },
        (IDENT, LABEL) | (STRING_TEXT, STRING) => {
            let (type_id, name) = annotation_declaration(token)?;
            Some(Named::Annotation { type_id, name })
        }
        _ => None,
    }
}

/// What a key names beyond a field: an annotation value of a type (directly in the type's body,
/// or in the block of a field of that type), or a value nested in an instance.
enum KeyOwner {
    /// An annotation of this type.
    Type(ElemId),
    /// A value of this instance, at this path.
    Value(ElemId, Vec<Name>),
}

/// What the key node `key` names beyond a field, if anything.
fn key_owner(key: &SyntaxNode) -> Option<KeyOwner> {
    let text = key.text().to_string();
    if crate::builtins::core_annotation(&text).is_some() {
        return None;
    }
    let attribute = key.parent()?;
    let container = attribute.parent()?;
    let block = container.parent().and_then(Block::cast);
    match (container.kind(), block) {
        (BODY, Some(block)) => {
            let labels = block.label_texts();
            let top_level = block.syntax().parent().is_some_and(|p| p.kind() == SOURCE_FILE);
            match (top_level, labels.as_slice()) {
                (true, [keyword, name, ..]) if keyword == "type" || keyword == "settings" => {
                    Some(KeyOwner::Type(ElemId::parse(name).ok()?))
                }
                // A field block directly in a type's body: its type's annotations.
                (false, [type_name, _]) => {
                    let in_type = block.syntax().ancestors().skip(1).find_map(Block::cast)?;
                    let type_labels = in_type.label_texts();
                    if !matches!(type_labels.first().map(String::as_str), Some("type" | "settings")) {
                        return None;
                    }
                    let field_type = ElemId::parse(type_name).ok().filter(|id| !id.adapter.is_empty())?;
                    Some(KeyOwner::Type(field_type))
                }
                _ => None,
            }
        }
        // Nested in an object: a value of an instance (when the element is one).
        _ => {
            let root = key.ancestors().last()?;
            let id = crate::navigation::element_id_at(&root, key.text_range().start())?;
            let (instance, path) = id.top_level();
            (id.id_type == IdType::Instance && path.len() >= 2).then_some(KeyOwner::Value(instance, path))
        }
    }
}

/// The type and name an annotation type's declaration label declares (`<type> <name>` in a
/// type's `annotations` block; the name label only).
fn annotation_declaration(token: &SyntaxToken) -> Option<(ElemId, String)> {
    let label = token.parent_ancestors().find(|n| n.kind() == LABEL)?;
    let block = Block::cast(label.parent()?)?;
    let labels: Vec<SyntaxNode> = block.syntax().children().filter(|n| n.kind() == LABEL).collect();
    if labels.len() != 2 || labels[1] != label {
        return None;
    }
    let annotations = block.syntax().ancestors().skip(1).find_map(Block::cast)?;
    if annotations.label_texts() != ["annotations"] {
        return None;
    }
    let type_block = annotations.syntax().ancestors().skip(1).find_map(Block::cast)?;
    match type_block.label_texts().as_slice() {
        [keyword, name, ..] if keyword == "type" || keyword == "settings" => {
            let name_text = Label::cast(label)?.text().into_owned();
            Some((ElemId::parse(name).ok()?, name_text))
        }
        _ => None,
    }
}

/// The occurrences of `named` in one file.
fn file_occurrences(path: &Path, text: &str, named: &Named) -> Vec<Occurrence> {
    tree_occurrences(path, &nacl_syntax::nacl::parse(text).syntax(), named)
}

/// The occurrences of `named` in one parsed file.
fn tree_occurrences(path: &Path, root: &SyntaxNode, named: &Named) -> Vec<Occurrence> {
    root.descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| matches!(t.kind(), IDENT | STRING_TEXT) && t.text().contains(named.name()))
        .filter_map(|token| occurrence_in(&token, named))
        .map(|(range, declaration)| Occurrence { path: path.to_path_buf(), range, declaration })
        .collect()
}

/// Where in `token` the target is named, and whether the token declares it.
fn occurrence_in(token: &SyntaxToken, named: &Named) -> Option<(TextRange, bool)> {
    if matches!(named, Named::Annotation { .. } | Named::Value { .. }) {
        return annotation_or_value_occurrence(token, named);
    }
    let symbol = token_symbol(token)?;
    let text = token.text();
    let start = token.text_range().start();
    let whole = Some((token.text_range(), is_declaration(token, &symbol)));
    match (&symbol, named) {
        (Symbol::Element(id), _) if matches!(token.parent()?.kind(), REFERENCE | TEMPLATE) => {
            let segment = reference_segment(id, named)?;
            segment_range(text, segment).map(|r| (r + start, false))
        }
        // A type label (`salto.t`, `"List<salto.t>"`): the type's name inside it.
        (Symbol::Element(id), Named::Element(target)) if id == target && id.id_type == IdType::Type => {
            let at = text.find(&target.to_string())? + target.adapter.len() + 1;
            let range = TextRange::at(TextSize::from(at as u32), TextSize::of(target.type_name.as_str()));
            Some((range + start, is_declaration(token, &symbol)))
        }
        (Symbol::Element(id), Named::Element(target)) if id == target => whole,
        (Symbol::Field(type_id, name), Named::Field { type_id: target, name: target_name })
            if type_id == target && name == target_name =>
        {
            whole
        }
        _ => None,
    }
}

/// Where in `token` an annotation type or a value inside an instance is named, and whether the
/// token declares it (an annotation type's label; the key that sets the value).
fn annotation_or_value_occurrence(token: &SyntaxToken, named: &Named) -> Option<(TextRange, bool)> {
    let parent = token.parent()?;
    let start = token.text_range().start();
    match (token.kind(), parent.kind()) {
        (IDENT, REFERENCE | TEMPLATE) => {
            let id = ElemId::parse(token.text()).ok()?;
            let segment = reference_segment(&id, named)?;
            segment_range(token.text(), segment).map(|r| (r + start, false))
        }
        (IDENT, KEY) if token.text() == named.name() => match (key_owner(&parent)?, named) {
            (KeyOwner::Type(owner), Named::Annotation { type_id, .. }) if owner == *type_id => {
                Some((token.text_range(), false))
            }
            (KeyOwner::Value(owner, path), Named::Value { instance, path: target }) => {
                (owner == *instance && path == *target).then_some((token.text_range(), true))
            }
            _ => None,
        },
        (IDENT, LABEL) | (STRING_TEXT, STRING) => {
            let (owner, name) = annotation_declaration(token)?;
            match named {
                Named::Annotation { type_id, name: target } if owner == *type_id && name == *target => {
                    Some((token.text_range(), true))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Which `.`-separated segment of a reference names the target, if the reference names it.
fn reference_segment(id: &ElemId, named: &Named) -> Option<usize> {
    let same_type = |t: &ElemId| id.adapter == t.adapter && id.type_name == t.type_name;
    match named {
        Named::Element(t) if t.id_type == IdType::Var => {
            (id.id_type == IdType::Var && id.type_name == t.type_name).then_some(1)
        }
        Named::Element(t) if t.id_type == IdType::Type => {
            (same_type(t) && id.id_type != IdType::Var && !t.adapter.is_empty()).then_some(1)
        }
        Named::Element(t) => {
            (same_type(t) && id.id_type == IdType::Instance && id.name_parts.first() == t.name_parts.first())
                .then_some(3)
        }
        Named::Field { type_id, name } if same_type(type_id) => match id.id_type {
            IdType::Field if id.name_parts.first().is_some_and(|n| n == name) => Some(3),
            IdType::Instance if id.name_parts.get(1).is_some_and(|n| n == name) => Some(4),
            _ => None,
        },
        Named::Field { .. } => None,
        Named::Annotation { type_id, name } => {
            let names_it = same_type(type_id)
                && matches!(id.id_type, IdType::Attr | IdType::Annotation)
                && id.name_parts.first().is_some_and(|n| n == name);
            names_it.then_some(3)
        }
        Named::Value { instance, path } => {
            let (top, from) = id.top_level();
            (top == *instance && from.starts_with(path)).then_some(3 + path.len())
        }
    }
}

/// The range of the `index`th `.`-separated segment of `text`.
fn segment_range(text: &str, index: usize) -> Option<TextRange> {
    let mut offset = 0;
    for (i, segment) in text.split('.').enumerate() {
        if i == index {
            return Some(TextRange::at(TextSize::from(offset as u32), TextSize::of(segment)));
        }
        offset += segment.len() + 1;
    }
    None
}

/// Whether a label or key token declares what it names: an element's own name in its header
/// (`type <name>`, `<type> <name>`), a field's name, a variable's key (an instance's keys are
/// uses of its type's fields).
fn is_declaration(token: &SyntaxToken, symbol: &Symbol) -> bool {
    let Some(node) = token.parent_ancestors().find(|n| matches!(n.kind(), LABEL | KEY)) else { return false };
    if node.kind() == KEY {
        return matches!(symbol, Symbol::Element(_));
    }
    let Some(block) = node.parent() else { return false };
    let labels: Vec<SyntaxNode> = block.children().filter(|n| n.kind() == LABEL).collect();
    labels.iter().position(|l| *l == node) == Some(1)
}

/// Whether `name` can be an element, field or variable name.
fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '@')
}

fn named(symbol: Symbol) -> Option<Named> {
    match symbol {
        Symbol::Element(id) => match id.id_type {
            IdType::Type if id.name_parts.is_empty() => Some(Named::Element(id)),
            IdType::Instance | IdType::Var => Some(Named::Element(id.top_level_id())),
            IdType::Field => {
                let name = id.name_parts.first()?.to_string();
                Some(Named::Field { type_id: id.type_of(), name })
            }
            _ => None,
        },
        Symbol::Field(type_id, name) => Some(Named::Field { type_id, name }),
        Symbol::StaticFile(_) | Symbol::CoreAnnotation(_) => None,
    }
}
