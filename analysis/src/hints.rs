//! Inlay hints (the decoded name or `_alias` after NaCl-case instance names, the value after
//! `var.x`), document links (`file("...")` to the static file) and the anchors of reference-count
//! code lenses (each element's header).

use crate::{
    db::{file_fragments, merged_element},
    elem_id::{ElemId, IdType, decode_nacl_case},
    navigation::{Symbol, is_file_path, short_value, token_symbol},
    values::{Kind, ValueRef},
    workspace::LoadedWorkspace,
};
use nacl_syntax::TextRange;
use nacl_syntax::nacl::{
    SyntaxKind::*,
    SyntaxNode,
    ast::{AstNodeExt, StringLit},
};
use std::path::{Path, PathBuf};

/// What an inlay hint shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HintKind {
    /// The readable name of an element (its `_alias`, or its decoded NaCl-case name).
    Name,
    /// The value of a variable.
    Value,
}

/// An inlay hint: a label shown after `offset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlayHint {
    /// Where it is shown (the end of the name it describes).
    pub offset: nacl_syntax::TextSize,
    /// What it shows.
    pub label: String,
    /// What it is.
    pub kind: HintKind,
}

/// A link from a `file("...")` path to the static file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentLink {
    /// The path inside the quotes.
    pub range: TextRange,
    /// The static file.
    pub target: PathBuf,
}

impl LoadedWorkspace {
    /// The inlay hints of the part `range` of the file at `path`.
    pub fn inlay_hints(&self, path: &Path, range: TextRange) -> Vec<InlayHint> {
        let Some(root) = self.syntax(path) else { return Vec::new() };
        let env = self.workspace.layout(&self.db).env_of(path);
        let env = env.as_deref();
        let mut hints = Vec::new();
        // Ranges past the end (a stale request) are clamped: `covering_element` needs one inside.
        let range = range.intersect(root.text_range()).unwrap_or(root.text_range());
        let element = root.covering_element(range);
        let covering = element
            .as_node()
            .cloned()
            .or_else(|| element.as_token().and_then(|t| t.parent()))
            .unwrap_or_else(|| root.clone());
        for token in covering.descendants_with_tokens().filter_map(|e| e.into_token()) {
            if token.kind() != IDENT || token.text_range().intersect(range).is_none() {
                continue;
            }
            let Some(parent) = token.parent() else { continue };
            if !matches!(parent.kind(), REFERENCE | TEMPLATE | LABEL) {
                continue;
            }
            let Some(Symbol::Element(id)) = token_symbol(&token) else { continue };
            let hint =
                if id.id_type == IdType::Var { self.variable_value(env, &id) } else { self.readable_name(env, &id) };
            if let Some((label, kind)) = hint {
                hints.push(InlayHint { offset: token.text_range().end(), label, kind });
            }
        }
        hints
    }

    /// The `_alias` or the decoded name of a NaCl-case encoded instance.
    fn readable_name(&self, env: Option<&str>, id: &ElemId) -> Option<(String, HintKind)> {
        if id.id_type != IdType::Instance || id.name_parts.len() != 1 {
            return None;
        }
        let decoded = decode_nacl_case(id.name_parts.first()?)?;
        let alias = merged_element(&self.db, self.workspace, env, id).and_then(|merged| {
            match ValueRef::of(&merged.value("_alias")?.defs.first()?.1.value).kind() {
                Kind::String(alias) => Some(alias.to_string()),
                _ => None,
            }
        });
        Some((alias.unwrap_or(decoded), HintKind::Name))
    }

    /// The value of a variable, shortened.
    fn variable_value(&self, env: Option<&str>, id: &ElemId) -> Option<(String, HintKind)> {
        let merged = merged_element(&self.db, self.workspace, env, id)?;
        let value = &merged.values.first()?.defs.first()?.1.value;
        Some((format!("= {}", short_value(ValueRef::of(value))), HintKind::Value))
    }

    /// The links of every `file("...")` whose static file exists.
    pub fn document_links(&self, path: &Path) -> Vec<DocumentLink> {
        let Some(root) = self.syntax(path) else { return Vec::new() };
        root.descendants()
            .filter(is_file_path)
            .filter_map(StringLit::cast)
            .filter_map(|string| {
                let target = self.static_file(path, &string.value())?;
                Some(DocumentLink { range: string_contents(string.syntax()), target })
            })
            .collect()
    }

    /// The headers of the elements the file at `path` defines, with their IDs: where reference
    /// counts are shown.
    pub fn element_headers(&self, path: &Path) -> Vec<(TextRange, ElemId)> {
        let Some(file) = self.file(path) else { return Vec::new() };
        file_fragments(&self.db, file).fragments.iter().map(|f| (f.header_range, (*f.id).clone())).collect()
    }
}

/// The range inside a string's quotes.
fn string_contents(string: &SyntaxNode) -> TextRange {
    let range = string.text_range();
    let start = string.first_token().map_or(range.start(), |t| t.text_range().end());
    let end = match string.last_token() {
        Some(t) if t.kind() == QUOTE && t.text_range().start() >= start => t.text_range().start(),
        _ => range.end(),
    };
    TextRange::new(start, end.max(start))
}
