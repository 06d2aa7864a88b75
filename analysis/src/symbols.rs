//! Workspace symbols: every element and field of the workspace, fuzzy-matched against a query.

use crate::{
    db::{Db, SourceFile, Workspace, file_fragments, part_files},
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
    /// The characters of its name (one bit for each ASCII letter, digit, `_`, `.` and `@`), to
    /// skip it quickly for a query that has a character it lacks.
    pub chars: u64,
}

/// One bit for each ASCII letter (either case), digit, `_`, `.` and `@` that `text` holds; every
/// bit when it has other characters than ASCII (they may match a query's letters once
/// normalized). A name can match a query only if its mask covers the query's.
fn char_mask(text: &str) -> u64 {
    let mut mask = 0u64;
    for byte in text.bytes() {
        mask |= match byte {
            b'a'..=b'z' => 1 << (byte - b'a'),
            b'A'..=b'Z' => 1 << (byte - b'A'),
            b'0'..=b'9' => 1 << (26 + byte - b'0'),
            b'_' => 1 << 36,
            b'.' => 1 << 37,
            b'@' => 1 << 38,
            0x80.. => return u64::MAX,
            _ => 1 << 39,
        };
    }
    mask
}

/// The characters every match of `query` holds, as a [`char_mask`]: none for a query with
/// characters of the pattern syntax (spaces, `!`, `^`, `'`, ...) or beyond ASCII.
fn query_mask(query: &str) -> u64 {
    let plain = query.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'@'));
    if plain { char_mask(query) } else { 0 }
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
        let name: Arc<str> = Arc::from(fragment.id.to_string());
        entries.push(SymbolEntry { chars: char_mask(&name), name, kind, range: fragment.header_range });
        for field in &fragment.fields {
            let name: Arc<str> = Arc::from(format!("{}.field.{}", fragment.id, field.name));
            entries.push(SymbolEntry {
                chars: char_mask(&name),
                name,
                kind: SymbolKind::Field,
                range: field.name_range,
            });
        }
    }
    entries.into()
}

/// A matching symbol: where it is among the searched files' entries, and how well it matched.
#[derive(Clone, Copy)]
struct Scored {
    score: u32,
    /// The length of its name.
    len: u32,
    /// Its part of the workspace's files.
    part: u32,
    /// Its index among that part's entries.
    entry: u32,
}

impl Scored {
    /// Better first: a higher score, then a shorter name.
    fn rank(&self) -> (std::cmp::Reverse<u32>, u32) {
        (std::cmp::Reverse(self.score), self.len)
    }
}

/// The symbols of one part of the workspace's files ([`crate::db::INDEX_PART`] of them), kept
/// between searches so that a search reads a few hundred parts instead of every file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SymbolPart {
    /// The NaCl files of the part that declare something, in path order.
    pub paths: Vec<PathBuf>,
    /// Every symbol of those files, with its file's index in `paths`.
    pub entries: Vec<(u32, SymbolEntry)>,
}

/// The symbols of the `part`th part of the workspace's files (recomputed only when one of them
/// declares something new, not when a value is edited).
#[salsa::tracked(returns(ref))]
pub fn symbol_part(db: &dyn Db, workspace: Workspace, part: usize) -> SymbolPart {
    let mut symbols = SymbolPart::default();
    for &file in part_files(db, workspace, part) {
        if file.language(db) != crate::language::Language::Nacl {
            continue;
        }
        let entries = file_symbols(db, file);
        if entries.is_empty() {
            continue;
        }
        let at = symbols.paths.len() as u32;
        symbols.paths.push(file.path(db).clone());
        symbols.entries.extend(entries.iter().map(|entry| (at, entry.clone())));
    }
    symbols
}

impl LoadedWorkspace {
    /// Builds every part of the symbol table and, in a workspace that has them, of the word
    /// filters find references reads ([`crate::mentions`]), in parallel, so that the first
    /// search does not.
    pub fn warm_tables(&self) {
        let (workspace, parts) = (self.workspace, self.parts());
        let filtered = self.has_word_filters();
        self.par_map(&parts, |db, &part| {
            symbol_part(db, workspace, part);
            if filtered {
                crate::mentions::part_words(db, workspace, part);
            }
        });
    }

    /// The elements and fields best matching `query` (fuzzy, case-insensitive unless it has
    /// capitals), best first, at most `limit`. Split elements are listed once.
    pub fn workspace_symbols(&self, query: &str, limit: usize) -> Vec<WorkspaceSymbol> {
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let needed = query_mask(query);
        let parts: Vec<&SymbolPart> =
            self.parts().into_iter().map(|part| symbol_part(&self.db, self.workspace, part)).collect();
        let mut scored: Vec<Scored> = parts
            .par_iter()
            .enumerate()
            .fold(
                || (Matcher::new(Config::DEFAULT), Vec::new(), Vec::new()),
                |(mut matcher, mut buffer, mut found), (part, symbols)| {
                    for (at, (_, entry)) in symbols.entries.iter().enumerate() {
                        if entry.chars & needed != needed {
                            continue;
                        }
                        let score = if query.is_empty() {
                            Some(0)
                        } else {
                            pattern.score(Utf32Str::new(&entry.name, &mut buffer), &mut matcher)
                        };
                        if let Some(score) = score {
                            let len = entry.name.len() as u32;
                            found.push(Scored { score, len, part: part as u32, entry: at as u32 });
                        }
                    }
                    (matcher, buffer, found)
                },
            )
            .map(|(_, _, found)| found)
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        let entry = |s: &Scored| &parts[s.part as usize].entries[s.entry as usize].1;
        let path =
            |s: &Scored| &parts[s.part as usize].paths[parts[s.part as usize].entries[s.entry as usize].0 as usize];
        // Best score first; shorter names first among equals, then by name and path. Only the
        // best few are sorted (a short query matches nearly everything): enough to fill `limit`
        // after split elements, listed once per fragment, are merged. They are picked by score
        // and length alone, then every tie at the cut is kept, so the cut does not change the
        // order.
        let kept = limit.saturating_mul(8).max(1);
        if scored.len() > kept {
            let (_, &mut cut, _) = scored.select_nth_unstable_by_key(kept - 1, Scored::rank);
            scored.retain(|s| s.rank() <= cut.rank());
        }
        scored.sort_unstable_by(|a, b| {
            a.rank()
                .cmp(&b.rank())
                .then_with(|| entry(a).name.cmp(&entry(b).name))
                .then_with(|| path(a).cmp(path(b)))
                .then(a.entry.cmp(&b.entry))
        });
        scored.truncate(kept);
        let mut scored: Vec<(&PathBuf, &SymbolEntry)> = scored.iter().map(|s| (path(s), entry(s))).collect();
        scored.dedup_by(|(_, x), (_, y)| x.name == y.name);
        scored
            .into_iter()
            .take(limit)
            .map(|(path, entry)| {
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
