//! Code actions: quick fixes for the diagnostics of a range ("did you mean" for unresolved
//! references, inserting a missing required field, removing a duplicate attribute) and the
//! "format file" source action. Every edit is in the file asked about.

use crate::codes::AnalysisCode;
use crate::{
    completion::{names::reference_names, shapes::Shape},
    db::{env_state, file_fragments},
    diagnostics::Diagnostic,
    elem_id::{ElemId, IdType},
    workspace::LoadedWorkspace,
};
use nacl_syntax::nacl::{ErrorCode, SyntaxKind::*};
use nacl_syntax::{TextRange, TextSize};
use std::path::Path;

/// What an assist is, for the editor's menus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssistKind {
    /// Fixes a diagnostic.
    QuickFix,
    /// Formats the whole file.
    Format,
}

/// One code action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assist {
    /// What the editor shows.
    pub title: String,
    /// What it is.
    pub kind: AssistKind,
    /// The edits, in the file asked about.
    pub edits: Vec<(TextRange, String)>,
    /// The diagnostic it fixes.
    pub fixes: Option<Diagnostic>,
    /// Whether it is the obvious fix (editors apply it on "auto fix").
    pub preferred: bool,
}

/// At most this many "did you mean" suggestions per reference.
const SUGGESTIONS: usize = 3;

impl LoadedWorkspace {
    /// The code actions for `range` of the file at `path`: fixes for its diagnostics there, and
    /// formatting when the file is not formatted.
    pub fn assists(&self, path: &Path, range: TextRange) -> Vec<Assist> {
        let (Some(file), Some(text)) = (self.file(path), self.text_of(path)) else { return Vec::new() };
        let mut out = Vec::new();
        let touching =
            |d: &&Diagnostic| d.range.intersect(range).is_some() || d.range.contains_inclusive(range.start());
        for diagnostic in self.file_diagnostics(file).iter().filter(touching) {
            let code = diagnostic.code;
            let fixes = if code == AnalysisCode::UnresolvedReference {
                self.similar_references(path, &text, diagnostic)
            } else if code == AnalysisCode::MissingRequiredField {
                self.insert_required_fields(path, &text, diagnostic)
            } else if code == ErrorCode::DuplicateAttribute {
                remove_duplicate(path, self, &text, diagnostic)
            } else {
                Vec::new()
            };
            out.extend(fixes.into_iter().enumerate().map(|(i, (title, edits))| Assist {
                title,
                kind: AssistKind::QuickFix,
                edits,
                fixes: Some(diagnostic.clone()),
                preferred: i == 0,
            }));
        }
        let formatted = nacl_syntax::nacl::format::format(&text);
        if *formatted != *text && crate::db::parse(&self.db, file).errors().is_empty() {
            let whole = TextRange::up_to(TextSize::of(&*text));
            out.push(Assist {
                title: "Format file".to_owned(),
                kind: AssistKind::Format,
                edits: vec![(whole, formatted)],
                fixes: None,
                preferred: false,
            });
        }
        out
    }

    /// "Did you mean": the existing IDs closest to an unresolved one, differing in one segment.
    fn similar_references(
        &self,
        path: &Path,
        text: &str,
        diagnostic: &Diagnostic,
    ) -> Vec<(String, Vec<(TextRange, String)>)> {
        let written = &text[diagnostic.range];
        let Ok(id) = ElemId::parse(written) else { return Vec::new() };
        let env = self.workspace.layout(&self.db).env_of(path);
        let env = env.as_deref();
        let names = reference_names(&self.db, self.workspace);
        let state = env_state(&self.db, self.workspace, env);
        let hidden = state.map(|s| s.hidden_names());
        let types_of = |adapter: &str| -> Vec<String> {
            let index = crate::db::element_index(&self.db, self.workspace);
            let in_nacl = index.types_by_adapter.get(adapter).into_iter().flatten().map(|id| &**id);
            let in_state = hidden.and_then(|h| h.types.get(adapter)).into_iter().flatten();
            in_nacl.chain(in_state).map(|t| t.type_name.to_string()).collect()
        };
        let adapter_known = names.adapters.iter().any(|a| *a == id.adapter)
            || hidden.is_some_and(|h| h.types.contains_key(id.adapter.as_str()));
        let type_known = types_of(&id.adapter).iter().any(|t| *t == id.type_name);
        let candidates: Vec<ElemId> = if id.id_type == IdType::Var {
            let found = closest(&id.type_name, names.variables.iter().cloned());
            found.into_iter().map(|name| ElemId { type_name: name.into(), ..id.clone() }).collect()
        } else if !adapter_known {
            let adapters =
                names.adapters.iter().cloned().chain(hidden.into_iter().flat_map(|h| h.types.keys().cloned()));
            closest(&id.adapter, adapters)
                .into_iter()
                .map(|adapter| ElemId { adapter: adapter.into(), ..id.clone() })
                .collect()
        } else if !type_known {
            let found = closest(&id.type_name, types_of(&id.adapter).into_iter());
            found.into_iter().map(|type_name| ElemId { type_name: type_name.into(), ..id.clone() }).collect()
        } else if id.id_type == IdType::Field
            && let Some(name) = id.name_parts.first()
        {
            let key = crate::db::ElementKey::new(&self.db, self.workspace, crate::db::EnvRef(env), id.type_of());
            let fields = crate::types::type_info(&self.db, key).iter().flat_map(|t| &t.fields);
            let found = closest(name, fields.map(|f| f.name.to_string()).collect::<Vec<_>>().into_iter());
            found.into_iter().map(|found| with_first_name(&id, found)).collect()
        } else if id.id_type == IdType::Instance
            && let Some(name) = id.name_parts.first()
            // A missing path inside an existing instance is not a misspelt instance name.
            && !names.instances.get(&id.type_of()).is_some_and(|names| names.iter().any(|n| n == name))
        {
            let type_id = id.type_of();
            let in_nacl = names.instances.get(&type_id).into_iter().flatten().cloned();
            let in_state = hidden.and_then(|h| h.instances.get(&type_id)).into_iter().flatten().cloned();
            closest(name, in_nacl.chain(in_state)).into_iter().map(|found| with_first_name(&id, found)).collect()
        } else {
            Vec::new()
        };
        candidates
            .into_iter()
            .map(|candidate| {
                let full = candidate.to_string();
                (format!("Change to `{full}`"), vec![(diagnostic.range, full)])
            })
            .collect()
    }

    /// Inserts the required fields an instance fragment lacks, each with a placeholder value.
    fn insert_required_fields(
        &self,
        path: &Path,
        text: &str,
        diagnostic: &Diagnostic,
    ) -> Vec<(String, Vec<(TextRange, String)>)> {
        let Some(file) = self.file(path) else { return Vec::new() };
        let Some(fragment) =
            file_fragments(&self.db, file).fragments.iter().find(|f| f.header_range == diagnostic.range)
        else {
            return Vec::new();
        };
        let env = self.workspace.layout(&self.db).env_of(path);
        let env = env.as_deref();
        let Some(info) = self.type_summary(env, &fragment.id.type_of()) else { return Vec::new() };
        let missing = crate::validate::missing_required_fields(&self.db, self.workspace, env, fragment, info);
        let Some((at, indent, before, after)) = body_end(text, fragment.range) else { return Vec::new() };
        let line = |field: &crate::types::FieldInfo| {
            let value = self.value_snippet(env, &Shape::of(&field.type_name), field.restriction.as_ref());
            let value = crate::completion::snippet_text(&value).replace('\n', &format!("\n{indent}"));
            format!("{indent}{} = {value}\n", field.name)
        };
        let mut fixes: Vec<(String, Vec<(TextRange, String)>)> = missing
            .iter()
            .map(|field| {
                (
                    format!("Add required field `{}`", field.name),
                    vec![(TextRange::empty(at), format!("{before}{}{after}", line(field)))],
                )
            })
            .collect();
        if missing.len() > 1 {
            let all: String = missing.iter().map(|f| line(f)).collect();
            fixes.insert(
                0,
                (
                    "Add all missing required fields".to_owned(),
                    vec![(TextRange::empty(at), format!("{before}{all}{after}"))],
                ),
            );
        }
        fixes
    }
}

/// Removes the attribute a "set twice" diagnostic points at, with its line.
fn remove_duplicate(
    path: &Path,
    workspace: &LoadedWorkspace,
    text: &str,
    diagnostic: &Diagnostic,
) -> Vec<(String, Vec<(TextRange, String)>)> {
    let Some(root) = workspace.syntax(path) else { return Vec::new() };
    let token = root.token_at_offset(diagnostic.range.start()).right_biased();
    let Some(attribute) = token.and_then(|t| t.parent_ancestors().find(|n| n.kind() == ATTRIBUTE)) else {
        return Vec::new();
    };
    let range = attribute.text_range();
    let (start, end) = (usize::from(range.start()), usize::from(range.end()));
    let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |n| end + n + 1);
    // The whole line when the attribute is alone on it, else just the attribute.
    let alone = text[line_start..start].trim().is_empty() && text[end..line_end].trim().is_empty();
    let removed =
        if alone { TextRange::new(TextSize::from(line_start as u32), TextSize::from(line_end as u32)) } else { range };
    let key = &text[diagnostic.range];
    vec![(format!("Remove the second `{key}`"), vec![(removed, String::new())])]
}

/// Where to insert lines at the end of a block's body: the offset, the indentation of the new
/// lines, and text to put before and after them (line breaks when the body is on one line).
fn body_end(text: &str, block: TextRange) -> Option<(TextSize, String, &'static str, &'static str)> {
    let block_text = &text[block];
    let close = block_text.rfind('}')?;
    let open = block_text.find('{')?;
    let header_line_start = text[..usize::from(block.start())].rfind('\n').map_or(0, |n| n + 1);
    let base: String = text[header_line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let indent = format!("{base}  ");
    let close_at = usize::from(block.start()) + close;
    if !block_text[open..close].contains('\n') {
        return Some((TextSize::from(close_at as u32), indent, "\n", ""));
    }
    let line_start = text[..close_at].rfind('\n').map_or(0, |n| n + 1);
    if text[line_start..close_at].trim().is_empty() {
        Some((TextSize::from(line_start as u32), indent, "", ""))
    } else {
        Some((TextSize::from(close_at as u32), indent, "\n", ""))
    }
}

/// The names closest to `wanted`, when close enough to be a likely typo.
/// `id` with its first name part (the instance or field name) replaced.
fn with_first_name(id: &ElemId, name: String) -> ElemId {
    let mut name_parts = id.name_parts.clone();
    if let Some(first) = name_parts.first_mut() {
        *first = name.into();
    }
    ElemId { name_parts, ..id.clone() }
}

fn closest(wanted: &str, names: impl Iterator<Item = String>) -> Vec<String> {
    let allowed = (wanted.chars().count() / 3).clamp(1, 4);
    let lower = wanted.to_lowercase();
    let mut scored: Vec<(usize, String)> = names
        .filter(|n| n != wanted)
        .map(|n| (strsim::osa_distance(&lower, &n.to_lowercase()), n))
        .filter(|(distance, _)| *distance <= allowed)
        .collect();
    scored.sort();
    scored.dedup();
    scored.into_iter().take(SUGGESTIONS).map(|(_, n)| n).collect()
}
