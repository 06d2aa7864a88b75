//! Workspace symbols: every element and field of the workspace, fuzzy-matched against a query.

use crate::{
    db::{Db, SourceFile, file_fragments},
    elem_id::decode_nacl_case,
    fragments::{FragmentKind, ValueKind},
    structure::SymbolKind,
    workspace::LoadedWorkspace,
};
use nucleo_matcher::{
    Config, Matcher, Utf32Str,
    pattern::{CaseMatching, Normalization, Pattern},
};
use rayon::prelude::*;
use std::{path::PathBuf, sync::Arc};

/// One match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceSymbol {
    /// The full element ID (`salesforce.Account.field.Name`).
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// The file of its first fragment.
    pub path: PathBuf,
    /// Its header (or field name) there.
    pub range: nacl_syntax::TextRange,
    /// The decoded NaCl-case name and the `_alias`, when they say more than the ID.
    pub detail: Option<String>,
}

/// An element or field one file declares, as workspace symbols search it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolEntry {
    /// The full element ID.
    pub name: Arc<str>,
    /// What it is.
    pub kind: SymbolKind,
    /// Its header (or field name).
    pub range: nacl_syntax::TextRange,
}

/// The elements and fields a file declares (memoized: a search only scores names).
#[salsa::tracked(returns(ref))]
pub fn file_symbols(db: &dyn Db, file: SourceFile) -> Arc<[SymbolEntry]> {
    let mut entries = Vec::new();
    for fragment in file_fragments(db, file).fragments.iter() {
        let kind = match fragment.kind {
            FragmentKind::Object { .. } | FragmentKind::Primitive(_) => SymbolKind::Type,
            FragmentKind::Instance => SymbolKind::Instance,
            FragmentKind::Variable => SymbolKind::Variable,
        };
        entries.push(SymbolEntry { name: Arc::from(fragment.id.to_string()), kind, range: fragment.header_range });
        for field in &fragment.fields {
            let name = Arc::from(format!("{}.field.{}", fragment.id, field.name));
            entries.push(SymbolEntry { name, kind: SymbolKind::Field, range: field.name_range });
        }
    }
    entries.into()
}

impl LoadedWorkspace {
    /// The elements and fields best matching `query` (fuzzy, case-insensitive unless it has
    /// capitals), best first, at most `limit`. Split elements are listed once.
    pub fn workspace_symbols(&self, query: &str, limit: usize) -> Vec<WorkspaceSymbol> {
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let files: Vec<(&PathBuf, &Arc<[SymbolEntry]>)> = self
            .workspace
            .files(&self.db)
            .iter()
            .filter(|file| file.language(&self.db) == crate::language::Language::Nacl)
            .map(|&file| (file.path(&self.db), file_symbols(&self.db, file)))
            .collect();
        let mut scored: Vec<(u32, &PathBuf, &SymbolEntry)> = files
            .par_iter()
            .map_init(
                || (Matcher::new(Config::DEFAULT), Vec::new()),
                |(matcher, buffer), (path, entries)| {
                    entries
                        .iter()
                        .filter_map(|entry| {
                            let score = if query.is_empty() {
                                Some(0)
                            } else {
                                pattern.score(Utf32Str::new(&entry.name, buffer), matcher)
                            };
                            score.map(|score| (score, *path, entry))
                        })
                        .collect::<Vec<_>>()
                },
            )
            .flatten()
            .collect();
        // Best score first; shorter names first among equals, then by name and file. Only the
        // best few are sorted (a short query matches nearly everything): enough to fill `limit`
        // after split elements, listed once per fragment, are merged.
        let order = |(a, p, x): &(u32, &PathBuf, &SymbolEntry), (b, q, y): &(u32, &PathBuf, &SymbolEntry)| {
            b.cmp(a).then(x.name.len().cmp(&y.name.len())).then(x.name.cmp(&y.name)).then(p.cmp(q))
        };
        let kept = limit.saturating_mul(8).max(1);
        if scored.len() > kept {
            scored.select_nth_unstable_by(kept - 1, order);
            scored.truncate(kept);
        }
        scored.sort_by(order);
        scored.dedup_by(|(_, _, x), (_, _, y)| x.name == y.name);
        scored
            .into_iter()
            .take(limit)
            .map(|(_, path, entry)| {
                let symbol = WorkspaceSymbol {
                    name: entry.name.to_string(),
                    kind: entry.kind,
                    path: path.clone(),
                    range: entry.range,
                    detail: None,
                };
                self.with_detail(symbol)
            })
            .collect()
    }

    /// Adds the decoded name and the alias of a matched element.
    fn with_detail(&self, mut symbol: WorkspaceSymbol) -> WorkspaceSymbol {
        let Ok(id) = crate::elem_id::ElemId::parse(&symbol.name) else { return symbol };
        let last = id.name_parts.last().unwrap_or(&id.type_name);
        let mut details: Vec<String> = decode_nacl_case(last).into_iter().collect();
        if id.is_top_level() {
            // The first fragment that sets `_alias` (found without merging the element).
            let env = self.workspace.layout(&self.db).env_of(&symbol.path);
            let files = crate::db::element_files(&self.db, self.workspace, env.as_deref(), &id);
            let alias = files.into_iter().find_map(|file| {
                crate::db::fragments_of(&self.db, file, &id).into_iter().find_map(|fragment| {
                    fragment.values.iter().find(|e| &*e.key == "_alias").and_then(|e| match &e.value.kind {
                        ValueKind::String(alias) => Some(alias.clone()),
                        _ => None,
                    })
                })
            });
            if let Some(alias) = alias {
                details.push(format!("alias: {alias}"));
            }
        }
        symbol.detail = (!details.is_empty()).then(|| details.join(", "));
        symbol
    }
}
