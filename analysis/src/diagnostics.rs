//! The diagnostics of one file: syntax errors, conflicts between the fragments of its elements,
//! references to elements or values that do not exist or that lead to themselves, and instance
//! values that do not fit their types.

use crate::codes::AnalysisCode;
use crate::language::Language;
use crate::{
    db::{Db, ElementKey, SourceFile, Workspace, element_conflicts, element_index, env_state, file_fragments},
    elem_id::{BUILTIN_TYPES, ElemId, IdType, is_container_name},
    fragments::Fragment,
    resolve::{Resolution, resolve, resolve_reference},
    values::{Kind, Part, ValueRef},
};
use nacl_syntax::{Code, Severity, SyntaxError, TextRange};
use std::{path::PathBuf, sync::Arc};

/// A problem in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Its stable code, which also gives its severity.
    pub code: Code,
    /// Where it is, in bytes.
    pub range: TextRange,
    /// What is wrong.
    pub message: String,
    /// Other places that take part (the other fragments of a conflict).
    pub related: Vec<Related>,
}

/// Another place a diagnostic involves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    /// The file.
    pub path: PathBuf,
    /// Where in it.
    pub range: TextRange,
    /// What is there.
    pub message: String,
}

impl Diagnostic {
    /// How serious it is.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// A diagnostic for a syntax error.
    pub fn from_syntax(error: &SyntaxError) -> Diagnostic {
        Diagnostic { code: error.code, range: error.range, message: error.message.clone(), related: Vec::new() }
    }
}

/// Every diagnostic of a file, ordered by position, whatever its language.
pub fn file_diagnostics(db: &dyn Db, file: SourceFile) -> &[Diagnostic] {
    match file.language(db) {
        Language::Nacl => nacl_file_diagnostics(db, file),
        Language::Hcl => hcl_file_diagnostics(db, file),
        Language::Arm => crate::arm::diagnostics(db, file),
    }
}

/// The diagnostics a file has on its own, whatever the rest of the workspace holds, by position:
/// a NaCl or HCL file's syntax errors, and all of an ARMLang file's (it stands alone).
pub fn own_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    match file.language(db) {
        Language::Nacl => file_fragments(db, file).syntax_errors.iter().map(Diagnostic::from_syntax).collect(),
        Language::Hcl => crate::hcl::diagnostics(db, file).clone(),
        Language::Arm => crate::arm::diagnostics(db, file).clone(),
    }
}

/// Every diagnostic of a file, ordered by position, whatever its language, computed without
/// being kept in the database: for a check that asks for each file's diagnostics once (the
/// command line's), which saves the memory of every file's memo and the time of recording what
/// each one read. The queries it asks are memoized as ever, but for the resolution of each
/// reference past its element ([`Resolving::Once`]).
pub fn file_diagnostics_once(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    match file.language(db) {
        Language::Nacl => nacl_diagnostics(db, file, Resolving::Once),
        Language::Hcl => hcl_diagnostics(db, file),
        Language::Arm => crate::arm::diagnostics(db, file).clone(),
    }
}

/// Every diagnostic of an HCL file, ordered by position ([`hcl_diagnostics`]), memoized.
#[salsa::tracked(returns(ref))]
fn hcl_file_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    hcl_diagnostics(db, file)
}

/// Every diagnostic of an HCL file, ordered by position: its syntax errors, and what its hcldec
/// spec says of it (or, for a spec file, its mistakes), in the database's one workspace.
fn hcl_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let workspace = Workspace::get(db);
    let mut out = crate::hcl::diagnostics(db, file).clone();
    out.extend(crate::hcldec::schema::spec_diagnostics(db, workspace, file).iter().cloned());
    out.sort_by_key(|d| (d.range.start(), d.range.end()));
    out
}

/// Every diagnostic of a NaCl file, ordered by position ([`nacl_diagnostics`]), memoized.
#[salsa::tracked(returns(ref))]
fn nacl_file_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    nacl_diagnostics(db, file, Resolving::Memoized)
}

/// How a NaCl file's diagnostics resolve references that go past their element.
#[derive(Debug, Clone, Copy)]
enum Resolving {
    /// Through [`resolve_reference`], memoized per reference: a file's kept diagnostics then
    /// depend on what its references resolve to, not on everything each lookup read, and the
    /// many files referring to one value share its resolution.
    Memoized,
    /// Directly ([`resolve`]), for diagnostics asked for once: no reference is interned and no
    /// resolution kept (the command line's check, where they would be memory held to the end).
    Once,
}

/// Every diagnostic of a NaCl file, ordered by position (in the database's one workspace).
fn nacl_diagnostics(db: &dyn Db, file: SourceFile, resolving: Resolving) -> Vec<Diagnostic> {
    let workspace = Workspace::get(db);
    let env = workspace.layout(db).env_of(file.path(db));
    let mut out: Vec<Diagnostic> = file_fragments(db, file).syntax_errors.iter().map(Diagnostic::from_syntax).collect();
    conflicts(db, workspace, env.as_deref(), file, &mut out);
    references(db, workspace, env.as_deref(), file, resolving, &mut out);
    crate::validate::instances(db, workspace, env.as_deref(), file, &mut out);
    static_files(db, workspace, file, &mut out);
    out.sort_by_key(|d| (d.range.start(), d.range.end()));
    out
}

/// The most other definitions a conflict's diagnostic points to (its message gives how many
/// fragments there are): an element set in thousands of files would otherwise give each of them
/// a note on every other, memory and time growing with the square of their number.
pub const MAX_RELATED: usize = 16;

/// Conflicts of the file's elements, at their places in this file. An element whose only
/// fragment in the environment is here is checked on the spot; the others through the memoized
/// [`element_conflicts`] of the whole element, which every file holding a part of it shares.
fn conflicts(db: &dyn Db, workspace: Workspace, env: Option<&str>, file: SourceFile, out: &mut Vec<Diagnostic>) {
    let fragments = &file_fragments(db, file).fragments;
    let index = element_index(db, workspace);
    for (fragment, here) in first_of_each_element(fragments) {
        let only_here = here == 1
            && index.files.get(&fragment.id).is_some_and(|files| {
                let mut active = crate::db::active_files(files, env);
                active.next() == Some(file) && active.next().is_none()
            });
        // An element of one fragment cannot conflict with itself.
        if only_here {
            continue;
        }
        let conflicts = element_conflicts(db, ElementKey::new(db, workspace, crate::db::EnvRef(env), &*fragment.id));
        for conflict in conflicts {
            for (at, &(location_file, range)) in conflict.locations.iter().enumerate() {
                if location_file != file {
                    continue;
                }
                let related = conflict
                    .locations
                    .iter()
                    .enumerate()
                    .filter(|(other, _)| *other != at)
                    .take(MAX_RELATED)
                    .map(|(_, &(other_file, other_range))| Related {
                        path: other_file.path(db).clone(),
                        range: other_range,
                        message: "the other definition".to_owned(),
                    })
                    .collect();
                out.push(Diagnostic { code: conflict.code.into(), range, message: conflict.message.clone(), related });
            }
        }
    }
}

/// Each element of `fragments` once, at its first fragment, with how many of `fragments` it has.
fn first_of_each_element(fragments: &[Fragment]) -> Vec<(&Fragment, usize)> {
    let same = |a: &Fragment, b: &Fragment| Arc::ptr_eq(&a.id, &b.id) || a.id == b.id;
    if fragments.len() <= crate::db::FRAGMENTS_SCANNED {
        return fragments
            .iter()
            .enumerate()
            .filter(|&(at, fragment)| !fragments[..at].iter().any(|before| same(before, fragment)))
            .map(|(at, fragment)| (fragment, fragments[at..].iter().filter(|f| same(f, fragment)).count()))
            .collect();
    }
    let mut count: crate::hashing::NameMap<&ElemId, usize> = Default::default();
    for fragment in fragments {
        *count.entry(&*fragment.id).or_default() += 1;
    }
    fragments.iter().filter_map(|fragment| Some((fragment, count.remove(&*fragment.id)?))).collect()
}

/// References in the file to elements that do not exist in its environment.
fn references(
    db: &dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    file: SourceFile,
    resolving: Resolving,
    out: &mut Vec<Diagnostic>,
) {
    let index = element_index(db, workspace);
    let state = env_state(db, workspace, env);
    let mut check = |text: &str, range: TextRange, in_template: bool| {
        let id = match ElemId::parse(text) {
            Ok(id) => id,
            // Salto keeps an illegal ID inside `${ }` as plain text.
            Err(_) if in_template => return,
            Err(reason) => {
                out.push(Diagnostic {
                    code: AnalysisCode::IllegalReference.into(),
                    range,
                    message: format!("`{text}` is not a valid element ID: {reason}"),
                    related: Vec::new(),
                });
                return;
            }
        };
        let nested;
        let top = if id.is_top_level() {
            &id
        } else {
            nested = id.top_level_id();
            &nested
        };
        let builtin = top.adapter.is_empty()
            && (BUILTIN_TYPES.contains(&top.type_name.as_str()) || is_container_name(&top.type_name));
        let in_state = match state.filter(|s| s.has_account(&top.adapter)) {
            // Salto merges hidden state elements whole.
            Some(state) => state.hidden_element(top).is_some(),
            // Without state, types of adapters that keep their types out of NaCl are assumed
            // to live in the state files.
            None => top.id_type == IdType::Type && !index.adapter_has_types(&top.adapter),
        };
        if builtin || in_state {
            return;
        }
        // The index read once above, not through a query per reference.
        let files: smallvec::SmallVec<[SourceFile; 1]> =
            index.files.get(top).map(|files| crate::db::active_files(files, env).collect()).unwrap_or_default();
        if !files.is_empty() {
            if id.is_top_level() && id.id_type != IdType::Var {
                return;
            }
            let resolution = match resolving {
                Resolving::Memoized => {
                    resolve_reference(db, ElementKey::new(db, workspace, crate::db::EnvRef(env), id)).clone()
                }
                Resolving::Once => resolve(db, workspace, env, &id, &files),
            };
            let (code, message) = match resolution {
                Resolution::Resolved => return,
                Resolution::Missing(what) => (
                    AnalysisCode::UnresolvedReference,
                    format!("unresolved reference: `{text}` does not exist: {what}"),
                ),
                Resolution::Circular => (
                    AnalysisCode::CircularReference,
                    format!(
                        "circular reference: following the value of `{text}` through references leads back to where it started"
                    ),
                ),
            };
            out.push(Diagnostic { code: code.into(), range, message, related: Vec::new() });
            return;
        }
        let what = if top.id_type == IdType::Var { "variable" } else { "element" };
        let where_ = env.map(|e| format!(" in environment `{e}`")).unwrap_or_default();
        out.push(Diagnostic {
            code: AnalysisCode::UnresolvedReference.into(),
            range,
            message: format!("unresolved reference: {what} `{top}` does not exist{where_}"),
            related: Vec::new(),
        });
    };
    walk_values(&file_fragments(db, file).fragments, &mut |value| match value.kind() {
        Kind::Reference(text) => check(&text, value.range(), false),
        Kind::Template(parts) => {
            for part in parts.iter() {
                if let Part::Reference(text, range) = part {
                    check(&text, range, true);
                }
            }
        }
        _ => {}
    });
}

/// Calls `f` on every value the fragments hold (annotation values, instance values, field
/// annotations), nested values included.
pub(crate) fn walk_values<'a>(fragments: &'a [crate::fragments::Fragment], f: &mut impl FnMut(ValueRef<'a>)) {
    fn walk<'a>(value: ValueRef<'a>, f: &mut impl FnMut(ValueRef<'a>)) {
        f(value);
        match value.kind() {
            Kind::List(items) => items.iter().for_each(|item| walk(item, f)),
            Kind::Object(entries) => entries.iter().for_each(|entry| walk(entry.value(), f)),
            _ => {}
        }
    }
    for fragment in fragments {
        let declared = fragment.fields.iter().chain(&fragment.annotation_types).flat_map(|d| d.annotations().iter());
        for entry in fragment.values().iter().chain(declared) {
            walk(entry.value(), f);
        }
    }
}

/// `file("...")` targets: they must lie inside a static-resources folder and exist there. A path
/// that leaves the folder is refused and never read.
fn static_files(db: &dyn Db, workspace: Workspace, file: SourceFile, out: &mut Vec<Diagnostic>) {
    let mut calls = Vec::new();
    walk_values(&file_fragments(db, file).fragments, &mut |value| {
        if let Kind::File(call) = value.kind() {
            calls.push((call.path.as_str(), value.range()));
        }
    });
    if calls.is_empty() {
        return;
    }
    let layout = workspace.layout(db);
    let dirs = layout.static_dirs(&layout.source_of(file.path(db)));
    let existing = workspace.static_files(db);
    let mut check = |path: &str, range: TextRange| {
        let Some(relative) = relative_static_path(path) else {
            out.push(Diagnostic {
                code: AnalysisCode::StaticFileOutsideWorkspace.into(),
                range,
                message: format!(
                    "`{path}` leaves the static-resources folder; `file()` paths are relative to it and stay inside"
                ),
                related: Vec::new(),
            });
            return;
        };
        let candidates = || dirs.iter().map(|dir| dir.join(&relative));
        if !candidates().any(|candidate| existing.contains(&candidate)) {
            let expected = dirs.first().map(|d| d.join(&relative)).unwrap_or_default();
            let expected = expected.strip_prefix(&layout.root).unwrap_or(&expected).display().to_string();
            let message = match candidates().find_map(|candidate| existing.refusal(&candidate)) {
                Some(why) => format!("static file `{path}` is not read: {why}"),
                None => format!("static file `{path}` does not exist: expected it at `{expected}`"),
            };
            out.push(Diagnostic { code: AnalysisCode::MissingStaticFile.into(), range, message, related: Vec::new() });
        }
    };
    for (path, range) in calls {
        check(path, range);
    }
}

/// The path as a relative path that stays inside its folder, or `None` when it is absolute or
/// climbs out with `..`.
fn relative_static_path(path: &str) -> Option<PathBuf> {
    let mut parts: Vec<&str> = Vec::new();
    if path.starts_with('/') || path.starts_with('\\') || path.get(1..2) == Some(":") {
        return None;
    }
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.iter().collect())
}

#[cfg(test)]
mod tests {
    use super::{first_of_each_element, relative_static_path};
    use std::path::PathBuf;

    /// The elements of a file of `blocks` instances named as given, each with the number of
    /// blocks it has there, in the order they first appear.
    fn first_of_each(blocks: &[&str]) -> Vec<(String, usize)> {
        let text: String = blocks.iter().map(|name| format!("salto.t {name} {{\n}}\n")).collect();
        let fragments = crate::db::FileFragments::of_text(&text.as_str().into()).fragments;
        assert_eq!(fragments.len(), blocks.len());
        first_of_each_element(&fragments).into_iter().map(|(f, n)| (f.id.to_string(), n)).collect()
    }

    #[test]
    fn each_element_of_a_file_is_counted_once_at_its_first_block() {
        let small = first_of_each(&["a", "b", "a", "c", "a"]);
        let names = |list: &[(&str, usize)]| {
            list.iter().map(|(n, c)| (format!("salto.t.instance.{n}"), *c)).collect::<Vec<_>>()
        };
        assert_eq!(small, names(&[("a", 3), ("b", 1), ("c", 1)]));
        // Past the scan's limit, counted in a map: the same answer.
        let many: Vec<String> = (0..40).map(|i| format!("e{}", i % 7)).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let expected: Vec<(String, usize)> =
            (0..7).map(|i| (format!("salto.t.instance.e{i}"), if i < 5 { 6 } else { 5 })).collect();
        assert_eq!(first_of_each(&many), expected);
        // Within the limit, scanned: twice each.
        let twice: Vec<(String, usize)> = expected.iter().map(|(n, _)| (n.clone(), 2)).collect();
        assert_eq!(first_of_each(&many[..14]), twice);
    }

    #[test]
    fn static_paths_stay_inside() {
        assert_eq!(relative_static_path("a/./b/../c.txt"), Some(PathBuf::from("a/c.txt")));
        assert_eq!(relative_static_path("../../etc/passwd"), None);
        assert_eq!(relative_static_path("a/../../b"), None);
        assert_eq!(relative_static_path("/etc/passwd"), None);
        assert_eq!(relative_static_path("C:/x"), None);
    }
}
