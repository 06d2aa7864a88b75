//! Workspace symbols: every element and field of the workspace, fuzzy-matched against a query.

use crate::{
    db::{Db, SourceFile, Workspace, file_fragments, part_files},
    elem_id::decode_nacl_case,
    fragments::FragmentKind,
    hashing::NameHasher,
    structure::SymbolKind,
    values::Kind,
    workspace::LoadedWorkspace,
};
use bound::{Bound, Placing, Placings, Rank, Sweep, Verdict, char_mask};
use nucleo_matcher::{
    Config, Matcher, Utf32Str,
    pattern::{CaseMatching, Normalization, Pattern},
};
use rayon::prelude::*;
use std::path::PathBuf;

mod bound;

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

/// An element or field a part of the workspace declares, as workspace symbols search it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolEntry {
    /// Where the characters of its name stand, for a bound on its score.
    placing: Placing,
    /// Where its full element ID is in the part's names ([`SymbolPart::name`]).
    name: (u32, u32),
    /// Its file's index in the part's `files`.
    pub file: u32,
    /// What it is.
    pub kind: SymbolKind,
    /// Its header (or field name).
    pub range: nacl_syntax::TextRange,
}

impl SymbolEntry {
    /// The length of its name, in bytes.
    fn len(&self) -> u32 {
        self.name.1 - self.name.0
    }
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
    fn rank(&self) -> Rank {
        (std::cmp::Reverse(self.score), self.len)
    }

    /// Its entry, among `parts` (the parts searched).
    fn entry<'p>(&self, parts: &[&'p SymbolPart]) -> &'p SymbolEntry {
        &parts[self.part as usize].entries[self.entry as usize]
    }

    /// Its full element ID, among `parts` (the parts searched).
    fn name<'p>(&self, parts: &[&'p SymbolPart]) -> &'p str {
        parts[self.part as usize].name(self.entry(parts))
    }
}

/// The symbols of one part of the workspace's files ([`crate::db::INDEX_PART`] of them), kept
/// between searches so that a search reads a few hundred parts instead of every file. Their
/// names are one string, read in order by a search: names kept apart, each in its own
/// allocation, made a search at 1 GB wait on memory more than it scored.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SymbolPart {
    /// The NaCl files of the part that declare something, in path order (their paths are
    /// looked up only for the matches a search returns: a copy of every path held 12-20 MB of
    /// the server's memory at 1 GB).
    pub files: Vec<SourceFile>,
    /// Every symbol of those files, shortest name first (a search scores short names first:
    /// among names that score the same, the shorter ranks first).
    pub entries: Vec<SymbolEntry>,
    /// The characters of each entry's name (one bit for each ASCII letter, digit, `_`, `.` and
    /// `@`), to skip it quickly for a query that has a character it lacks. Kept apart from the
    /// entries, so that counting a query's candidates, which every search does first, reads 8
    /// bytes for each entry instead of a whole entry with the mask in it, 56 (at 1 GB, 4 MB
    /// instead of 30).
    chars: Vec<u64>,
    /// Each length of the entries' names and the index after the last entry that long.
    length_ends: Vec<(u32, u32)>,
    /// The full element IDs of the entries, one after the other.
    names: String,
    /// Where the characters of all its names stand, to skip the rest of the part at once when
    /// none of them can rank.
    placings: Placings,
}

impl SymbolPart {
    /// The full element ID of `entry`, one of this part's entries.
    pub fn name(&self, entry: &SymbolEntry) -> &str {
        self.names.get(entry.name.0 as usize..entry.name.1 as usize).unwrap_or_default()
    }

    /// Sorts the entries shortest name first (stable: the fragments of an element split within
    /// one file stay in their order), then rewrites the names in that order, so that a search,
    /// which reads the names of the entries it looks at in their order, reads memory in order
    /// (read in the order the files declared them, a search at 1 GB waited on memory for each
    /// name it looked at), and notes each name's characters and where each length ends.
    fn finish(&mut self) {
        self.entries.sort_by_key(SymbolEntry::len);
        let mut names = String::with_capacity(self.names.len());
        self.chars = Vec::with_capacity(self.entries.len());
        for (at, entry) in self.entries.iter_mut().enumerate() {
            let len = entry.len();
            let start = names.len() as u32;
            let name = self.names.get(entry.name.0 as usize..entry.name.1 as usize).unwrap_or_default();
            names.push_str(name);
            self.chars.push(char_mask(name));
            entry.name = (start, names.len() as u32);
            match self.length_ends.last_mut() {
                Some((last, end)) if *last == len => *end = at as u32 + 1,
                _ => self.length_ends.push((len, at as u32 + 1)),
            }
        }
        self.names = names;
    }

    /// Adds a symbol of the last file added, named by what `write` writes; none when the part's
    /// names would pass 4 GiB (only files written to exhaust memory get there).
    fn push(&mut self, kind: SymbolKind, range: nacl_syntax::TextRange, write: impl FnOnce(&mut String)) {
        let start = self.names.len();
        write(&mut self.names);
        if u32::try_from(self.names.len()).is_err() {
            self.names.truncate(start);
            return;
        }
        let placing = Placing::of(&self.names[start..]);
        let file = self.files.len().saturating_sub(1) as u32;
        let name = (start as u32, self.names.len() as u32);
        self.placings.add(placing);
        self.entries.push(SymbolEntry { placing, name, file, kind, range });
    }
}

/// The symbols of the `part`th part of the workspace's files (recomputed when one of them
/// changes; the others' fragments are memoized, so that is a few hundred names written).
#[salsa::tracked(returns(ref))]
pub fn symbol_part(db: &dyn Db, workspace: Workspace, part: usize) -> SymbolPart {
    use std::fmt::Write;
    let mut symbols = SymbolPart::default();
    for &file in part_files(db, workspace, part) {
        if file.language(db) != crate::language::Language::Nacl {
            continue;
        }
        let fragments = &file_fragments(db, file).fragments;
        if fragments.is_empty() {
            continue;
        }
        symbols.files.push(file);
        for fragment in fragments.iter() {
            let kind = match fragment.kind {
                FragmentKind::Object { .. } | FragmentKind::Primitive(_) => SymbolKind::Type,
                FragmentKind::Instance => SymbolKind::Instance,
                FragmentKind::Variable => SymbolKind::Variable,
            };
            // Writing to a `String` cannot fail.
            symbols.push(kind, fragment.header_range, |names| {
                let _ = write!(names, "{}", fragment.id);
            });
            for field in &fragment.fields {
                symbols.push(SymbolKind::Field, field.name_range, |names| {
                    let _ = write!(names, "{}.field.{}", fragment.id, field.name);
                });
            }
        }
    }
    symbols.finish();
    symbols
}

/// Names this long or longer are counted together when a search plans its windows.
const LONG_NAME: usize = 1024;

/// Every match of `query` among the parts' symbols whose name can rank among the `kept` best
/// names (by [`Scored::rank`], ties at the `kept`th kept; the fragments of a split element share
/// a name and count once), and perhaps some that cannot.
///
/// Names are scored shortest first, in windows of lengths, the first holding about `2 * kept`
/// names that have the query's characters, each next one twice as many. Once `kept` names
/// are found, the `kept`th best is a cut: a later name, no shorter than any found, that cannot
/// score above it ([`Bound`]) cannot rank above it either, and is skipped unscored (a part of
/// the workspace none of whose names can is skipped at once); found matches below it are
/// dropped. A short query that matches nearly every name (`obj` against
/// `netsuite.Object...`) scores a few thousand of them instead of all.
///
/// When the short names match only with gaps, the cut stays low and every window scores
/// nearly every name: `object116` against thousands of `crm.Object...` types and fields, with
/// the names that hold it as a word (`crm.Object1165__c.instance...`) longer. So once a window
/// after the first has scored more names than are kept, the rest are swept twice
/// ([`Sweep`]): first for the names that hold the query as a run, which raise the cut (a run
/// that earns its bound is not scored); then for those that hold it only with gaps and can
/// still rank.
fn best_matches(query: &str, parts: &[&SymbolPart], kept: usize) -> Vec<Scored> {
    let scorer = Scorer::new(query);
    let lengths = candidate_lengths(parts, scorer.needed);
    let mut cursors = vec![0usize; parts.len()];
    let mut found: Vec<Scored> = Vec::new();
    let mut cut: Option<Rank> = None;
    let mut sweep = None;
    // Where the sweep for runs started, for the sweep for gaps to start there too.
    let mut runs_from = None;
    let (mut from, mut target) = (0, kept.saturating_mul(2));
    while from < lengths.len() {
        // The window: lengths from `from` up to `to`, holding about `target` candidates.
        let mut to = from;
        let mut count = 0;
        while to < lengths.len() && (count < target || to == from) {
            count += lengths[to];
            to += 1;
        }
        let window = Window { shorter_than: if to == lengths.len() { u32::MAX } else { to as u32 }, cut, sweep };
        let (matches, scored) = cursors
            .par_iter_mut()
            .enumerate()
            .fold(
                || (Vec::new(), 0),
                |(mut found, mut scored), (part, cursor)| {
                    scored += scorer.scan(parts[part], part as u32, cursor, window, &mut found);
                    (found, scored)
                },
            )
            .reduce(
                || (Vec::new(), 0),
                |(mut a, x), (mut b, y)| {
                    a.append(&mut b);
                    (a, x + y)
                },
            );
        found.extend(matches);
        keep_best(&mut found, kept, &mut cut, |s| s.name(parts));
        let crowded = from > 0 && scored > kept;
        (from, target) = (to, target.saturating_mul(2));
        match sweep {
            None if crowded && cut.is_some() && scorer.bound.is_some_and(|bound| bound.has_runs()) => {
                sweep = Some(Sweep::Runs);
                runs_from = Some((from, target, cursors.clone()));
            }
            Some(Sweep::Runs) if from == lengths.len() => {
                sweep = Some(Sweep::Gaps);
                if let Some(start) = runs_from.take() {
                    (from, target, cursors) = start;
                }
            }
            _ => {}
        }
    }
    found
}

/// Once `found` holds `kept` names (by `name`: the fragments of a split element, which share a
/// name and so a rank, count once), makes the rank of the `kept`th best the `cut` (unless it
/// already is better) and drops the matches below it.
fn keep_best<'p>(found: &mut Vec<Scored>, kept: usize, cut: &mut Option<Rank>, name: impl Fn(&Scored) -> &'p str) {
    if found.len() < kept {
        return;
    }
    // The `kept` best matches are `kept` names unless a split element is among them: only then
    // are the others sorted too.
    found.select_nth_unstable_by_key(kept - 1, Scored::rank);
    let Some(at_cut) = kth_name(&mut found[..kept], kept, &name).or_else(|| kth_name(found, kept, &name)) else {
        return;
    };
    let at_cut = cut.map_or(at_cut, |cut| cut.min(at_cut));
    *cut = Some(at_cut);
    found.retain(|s| s.rank() <= at_cut);
}

/// The rank of the `kept`th best name among `found` (by `name`), if it holds that many; sorts
/// `found` by rank.
fn kth_name<'p>(found: &mut [Scored], kept: usize, name: &impl Fn(&Scored) -> &'p str) -> Option<Rank> {
    found.sort_unstable_by_key(Scored::rank);
    let mut names = std::collections::HashSet::with_capacity_and_hasher(kept, NameHasher::default());
    found.iter().find(|s| names.insert(name(s)) && names.len() == kept).map(Scored::rank)
}

thread_local! {
    /// Each search thread's matcher (nucleo's scratch space: about 135 KB, zeroed when made).
    static MATCHER: std::cell::RefCell<(Matcher, Vec<char>)> =
        std::cell::RefCell::new((Matcher::new(Config::DEFAULT), Vec::new()));
}

/// The names a pass of [`Scorer::scan`] scores.
#[derive(Clone, Copy)]
struct Window {
    /// Only names shorter than this.
    shorter_than: u32,
    /// Only names that can rank at or above this.
    cut: Option<Rank>,
    /// Only those of this sweep, if the search sweeps twice.
    sweep: Option<Sweep>,
}

/// A query, ready to score names.
struct Scorer<'q> {
    /// The query.
    query: &'q str,
    /// The query as nucleo's pattern.
    pattern: Pattern,
    /// The bound on what a name can score, for a plain query.
    bound: Option<Bound<'q>>,
    /// The characters every match holds, as a [`char_mask`].
    needed: u64,
}

impl<'q> Scorer<'q> {
    /// The scorer of `query` (fuzzy, case-insensitive unless it has capitals).
    fn new(query: &'q str) -> Scorer<'q> {
        let bound = Bound::of(query);
        Scorer {
            query,
            pattern: Pattern::parse(query, CaseMatching::Smart, Normalization::Smart),
            bound,
            needed: bound.map_or(0, |bound| bound.chars()),
        }
    }

    /// Whether no entry of `symbols` from `cursor` on can rank at or above `cut`: the part's
    /// best bound, at the length of its shortest entry left, is below it.
    fn none_can_rank(&self, symbols: &SymbolPart, cursor: usize, cut: Option<Rank>) -> bool {
        let (Some(cut), Some(bound), Some(entry)) = (cut, self.bound, symbols.entries.get(cursor)) else {
            return false;
        };
        (std::cmp::Reverse(bound.best_of(&symbols.placings)), entry.len()) > cut
    }

    /// Scores the entries of `symbols` (the `part`th part) from `cursor` on that are in the
    /// `window`, skipping those that cannot rank at or above its cut; adds the matches to
    /// `found`, moves `cursor` past them and says how many names it had to score.
    fn scan(
        &self,
        symbols: &SymbolPart,
        part: u32,
        cursor: &mut usize,
        window: Window,
        found: &mut Vec<Scored>,
    ) -> usize {
        let Window { shorter_than, cut, sweep } = window;
        if self.none_can_rank(symbols, *cursor, cut) {
            *cursor = symbols.entries.len();
            return 0;
        }
        let mut scored = 0;
        MATCHER.with_borrow_mut(|(matcher, buffer)| {
            while let Some(entry) = symbols.entries.get(*cursor).filter(|entry| entry.len() < shorter_than) {
                let at = *cursor as u32;
                *cursor += 1;
                if symbols.chars.get(at as usize).is_none_or(|chars| chars & self.needed != self.needed) {
                    continue;
                }
                let verdict = match self.bound {
                    Some(bound) => bound.judge(entry.placing, entry.len(), || symbols.name(entry), cut, sweep),
                    None => Verdict::Score,
                };
                let score = match verdict {
                    Verdict::Skip => continue,
                    _ if self.query.is_empty() => Some(0),
                    Verdict::Known(known) => Some(known),
                    Verdict::Score => {
                        scored += 1;
                        self.pattern.score(Utf32Str::new(symbols.name(entry), buffer), matcher)
                    }
                };
                if let Some(score) = score {
                    found.push(Scored { score, len: entry.len(), part, entry: at });
                }
            }
        });
        scored
    }
}

/// A match, ready to be ordered.
struct Ranked<'p> {
    /// Its rank ([`Scored::rank`]).
    rank: Rank,
    /// Its full element ID.
    name: &'p str,
    /// Its file.
    file: SourceFile,
    /// Its index among its part's entries.
    at: u32,
    /// Its entry.
    entry: &'p SymbolEntry,
}

/// The first `limit` names of `ranked` in `order`, each once (the first of a split element's
/// fragments). Only the best few are sorted: a short query matches thousands of names (every tie
/// at the cut of [`best_matches`]), and sorting them all, each comparison reading two names from
/// tables of tens of megabytes, was a third of a search at 1 GB.
fn best_first<'p>(
    mut ranked: Vec<Ranked<'p>>,
    limit: usize,
    order: impl Fn(&Ranked<'p>, &Ranked<'p>) -> std::cmp::Ordering,
) -> Vec<Ranked<'p>> {
    // Sorted, the best `sorted` hold `limit` names unless a split element is among them.
    let mut sorted = limit;
    loop {
        if sorted == 0 || sorted >= ranked.len() {
            ranked.sort_unstable_by(&order);
            break;
        }
        ranked.select_nth_unstable_by(sorted - 1, &order);
        ranked[..sorted].sort_unstable_by(&order);
        let names = 1 + ranked[..sorted].windows(2).filter(|pair| pair[0].name != pair[1].name).count();
        if names >= limit {
            ranked.truncate(sorted);
            break;
        }
        sorted = sorted.saturating_mul(2);
    }
    ranked.dedup_by(|a, b| a.name == b.name);
    ranked.truncate(limit);
    ranked
}

/// How many names of each length (up to [`LONG_NAME`], which counts every longer one) have
/// the characters `needed`.
fn candidate_lengths(parts: &[&SymbolPart], needed: u64) -> Vec<usize> {
    let longest = parts.iter().filter_map(|part| part.length_ends.last()).map(|&(len, _)| len as usize).max();
    let size = longest.map_or(0, |longest| longest.min(LONG_NAME) + 1);
    parts
        .par_iter()
        .fold(
            || vec![0usize; size],
            |mut counts, part| {
                let mut start = 0;
                for &(len, end) in &part.length_ends {
                    let chars = part.chars.get(start..end as usize).unwrap_or_default();
                    counts[(len as usize).min(LONG_NAME)] += chars.iter().filter(|&&c| c & needed == needed).count();
                    start = end as usize;
                }
                counts
            },
        )
        .reduce(
            || vec![0usize; size],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                a
            },
        )
}

impl LoadedWorkspace {
    /// Builds every part of the symbol table, in parallel, so that the first search does not
    /// (after a write at the durability of files on disk, such as a file opened, that is salsa
    /// checking every part again: about 0.1 s at 1 GB).
    pub fn warm_symbol_table(&self) {
        let (workspace, parts) = (self.workspace, self.parts());
        self.par_map(&parts, |db, &part| {
            symbol_part(db, workspace, part);
        });
    }

    /// The elements and fields best matching `query` (fuzzy, case-insensitive unless it has
    /// capitals), best first, at most `limit`. Split elements are listed once.
    pub fn workspace_symbols(&self, query: &str, limit: usize) -> Vec<WorkspaceSymbol> {
        // Parts not built yet (the first search, or parts edited since) are built on all cores.
        self.warm_symbol_table();
        let (workspace, parts) = (self.workspace, self.parts());
        let parts: Vec<&SymbolPart> = parts.into_iter().map(|part| symbol_part(&self.db, workspace, part)).collect();
        let scored = best_matches(query, &parts, limit.max(1));
        let ranked: Vec<Ranked> = scored
            .iter()
            .map(|s| {
                let entry = s.entry(&parts);
                let file = parts[s.part as usize].files[entry.file as usize];
                Ranked { rank: s.rank(), name: s.name(&parts), file, at: s.entry, entry }
            })
            .collect();
        // Best score first; shorter names first among equals, then by name and path (only the
        // fragments of a split element share a rank and a name, so only they read their paths).
        let order = |a: &Ranked, b: &Ranked| {
            (a.rank, a.name)
                .cmp(&(b.rank, b.name))
                .then_with(|| a.file.path(&self.db).cmp(b.file.path(&self.db)))
                .then(a.at.cmp(&b.at))
        };
        best_first(ranked, limit, order)
            .into_iter()
            .map(|Ranked { name, file, entry, .. }| {
                let symbol = WorkspaceSymbol {
                    name: name.to_owned(),
                    kind: entry.kind,
                    path: file.path(&self.db).clone(),
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
                    fragment.values().get("_alias").and_then(|e| match e.value().kind() {
                        Kind::String(alias) => Some(alias.to_text()),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A part holding `names`, in one file.
    fn part(names: &[&str]) -> SymbolPart {
        let mut part = SymbolPart::default();
        for name in names {
            part.push(SymbolKind::Type, nacl_syntax::TextRange::default(), |names| names.push_str(name));
        }
        part.finish();
        part
    }

    #[test]
    fn entries_are_shortest_first_with_their_names_characters_and_length_runs() {
        let part = part(&["salesforce.Lead", "a.b", "jira.Board", "c.d", "okta.User.field.x"]);
        let names: Vec<&str> = part.entries.iter().map(|entry| part.name(entry)).collect();
        assert_eq!(names, ["a.b", "c.d", "jira.Board", "salesforce.Lead", "okta.User.field.x"]);
        let chars: Vec<u64> = names.iter().map(|name| char_mask(name)).collect();
        assert_eq!(part.chars, chars);
        assert_eq!(part.length_ends, [(3, 2), (10, 3), (15, 4), (17, 5)]);
    }

    #[test]
    fn candidates_are_counted_by_length_among_the_names_with_the_query_s_characters() {
        let parts = [part(&["a.b", "c.d", "jira.Board"]), part(&["salesforce.Lead", "a.c", "b".repeat(2000).as_str()])];
        let parts: Vec<&SymbolPart> = parts.iter().collect();
        for query in ["", "a", "d", "oa", "zz", "b"] {
            let needed = char_mask(query);
            let mut expected = vec![0usize; LONG_NAME + 1];
            for part in &parts {
                for entry in &part.entries {
                    if char_mask(part.name(entry)) & needed == needed {
                        expected[(entry.len() as usize).min(LONG_NAME)] += 1;
                    }
                }
            }
            assert_eq!(candidate_lengths(&parts, needed), expected, "{query:?}");
        }
    }
}
