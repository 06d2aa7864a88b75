//! The salsa database: the inputs (files and the workspace) and the incremental queries over them.
//!
//! The query graph: `file_fragments(file)` (parse, then read the blocks into fragments) →
//! `file_element_ids(file)` (the firewall: it only changes when a file's element IDs change, so
//! typing inside a value does not invalidate the index) → `element_index(workspace)` →
//! `element_conflicts(key)` per element and environment → `file_diagnostics(file)`.

use crate::{
    elem_id::ElemId,
    file_text::FileText,
    fragments::{self, Fragment, Text},
    hashing::NameMap,
    layout::{Layout, Source},
    merge::{self, MergedElement},
    state::{EnvState, WorkspaceState},
};
use nacl_syntax::SyntaxError;
use std::{collections::hash_map::Entry, path::PathBuf, sync::Arc};

/// One file: its path, its language and its current text.
#[salsa::input(debug)]
pub struct SourceFile {
    /// The file's path.
    #[returns(ref)]
    pub path: PathBuf,
    /// Its language, decided when it entered the database.
    #[returns(copy)]
    pub language: crate::language::Language,
    /// The file's text (the editor's, when it is open; read when first needed, for a file the
    /// persistent cache found unchanged on disk).
    #[returns(ref)]
    pub text: FileText,
    /// Where the persistent cache keeps this file's own results for exactly this text
    /// ([`crate::cache`]); `None` when the cache did not have them or the text changed since.
    #[default]
    #[returns(ref)]
    pub cached: Option<crate::cache::CacheEntry>,
    /// The hashes of the text as it was read (computed where there is a cache), so that it is
    /// not hashed twice; `None` once the text is set again.
    #[default]
    #[returns(copy)]
    pub read_hash: Option<ReadHashes>,
    /// The file's metadata before it was read, when they can vouch for its text on the next
    /// load ([`crate::files::Stamp`]); `None` once the text is set again.
    #[default]
    #[returns(copy)]
    pub stamp: Option<crate::files::Stamp>,
    /// For an editor's buffer, the IDs of the elements it defines, set by the workspace each
    /// time they change (the first ones at the durability of files on disk; see
    /// [`crate::workspace::LoadedWorkspace::set_file_text`]). [`file_element_ids`] reads them
    /// instead of the buffer's text. `None` for a file as read from disk.
    #[default]
    #[returns(ref)]
    pub buffer_ids: Option<Arc<[Arc<ElemId>]>>,
}

/// A file's hashes, taken as it is read ([`SourceFile::read_hash`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadHashes {
    /// The text's ([`crate::cache::text_hash`]).
    pub text: u64,
    /// The path's, language's and text's together, as the workspace's fingerprint hashes them.
    pub file: u64,
}

/// A workspace: its layout and its files.
/// A database holds one workspace (a singleton: [`Workspace::get`] finds it, so a per-file query
/// can take the file alone, which salsa keys directly, where a query of a workspace and a file has
/// salsa intern the pair first).
#[salsa::input(debug, singleton)]
pub struct Workspace {
    /// Root, environments and the current environment.
    #[returns(ref)]
    pub layout: Layout,
    /// Every file (NaCl and HCL), sorted by path.
    #[returns(ref)]
    pub files: Vec<SourceFile>,
    /// Every file in a static-resources folder (the targets of `file("...")`).
    #[returns(ref)]
    pub static_files: StaticFiles,
    /// Salto's state files, read (empty until loaded, or when state is turned off). Set with
    /// high durability: it changes only when a state file changes on disk.
    #[returns(ref)]
    pub state: Arc<WorkspaceState>,
    /// Which hcldec spec describes which HCL files (the settings' globs, then `.nacl-ls.toml`'s).
    #[returns(ref)]
    pub spec_rules: crate::hcldec::schema::SpecRules,
    /// The editor's HCL and ARM buffers with no file on disk, sorted by path. They define no
    /// elements, so they are kept apart from `files`, with low durability: opening or closing
    /// one does not make salsa check the results of every file again, as a change of `files`
    /// does (a NaCl buffer with no file on disk joins `files`: it defines elements).
    #[default]
    #[returns(ref)]
    pub unsaved: Vec<SourceFile>,
}

/// The file at `path`, among the workspace's files and then its unsaved buffers (read only when
/// it is not a file: what finds a file on disk does not depend on them).
pub fn find_file(db: &dyn Db, workspace: Workspace, path: &std::path::Path) -> Option<SourceFile> {
    [workspace.files(db), workspace.unsaved(db)]
        .into_iter()
        .find_map(|files| files.binary_search_by(|f| f.path(db).as_path().cmp(path)).ok().map(|i| files[i]))
}

/// Every file of the workspace: its files, then its unsaved buffers.
pub fn every_file(db: &dyn Db, workspace: Workspace) -> impl Iterator<Item = SourceFile> + '_ {
    workspace.files(db).iter().chain(workspace.unsaved(db)).copied()
}

/// The files `file("...")` may name: the regular files of the static-resources folders, and the
/// paths there that exist but are refused, with why (a link out of the workspace, a FIFO).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StaticFiles {
    /// The files, sorted.
    pub files: Vec<PathBuf>,
    /// Refused paths (files, or whole folders) with the reason, sorted by path.
    pub refused: Vec<(PathBuf, String)>,
}

impl StaticFiles {
    /// Whether `path` is a static file.
    pub fn contains(&self, path: &std::path::Path) -> bool {
        self.files.binary_search_by(|f| f.as_path().cmp(path)).is_ok()
    }

    /// Why `path` is refused, when it or a folder holding it is.
    pub fn refusal(&self, path: &std::path::Path) -> Option<&str> {
        self.refused.iter().find(|(refused, _)| path.starts_with(refused)).map(|(_, why)| why.as_str())
    }
}

/// The database trait the queries take.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The persistent cache the files' [`SourceFile::cached`] entries point into, until it is
    /// released (then their results are computed instead: they are the same).
    fn file_cache(&self) -> Option<Arc<crate::cache::Cache>>;

    /// The last syntax trees [`parse`] made, which it reparses from after an edit.
    fn recent_trees(&self) -> &RecentTrees;
}

/// The syntax trees [`parse`] made last, each with the text it is of, for the few files edited
/// most recently: after an edit inside a string value, an ID or a comment, the new tree is the
/// old one with one token replaced, and after an edit inside an object or a list value or a
/// top-level block's body, the old one with that part parsed again
/// ([`nacl_syntax::nacl::reparse_part`]), instead of a parse of the whole file.
///
/// Salsa keeps no result it replaced, so these are kept beside it. What `parse` returns is the
/// same either way (the reparse equals a full parse), so reading them does not make its result
/// depend on anything but the file's text.
#[derive(Default)]
pub struct RecentTrees(crate::recent::Recent<SourceFile, (Text, nacl_syntax::nacl::Parse), 4>);

impl RecentTrees {
    /// The tree of `text` for `file` when it costs no parse of the whole file: the tree kept for
    /// `file` is of `text`, or of a text one edit inside one token, object, list or top-level
    /// block away (then that part is parsed again, and the new tree kept instead, as the most
    /// recent). `None` otherwise.
    ///
    /// The part is parsed without holding the lock, so that queries on the other kept files do
    /// not wait for it.
    fn without_full_parse(&self, file: SourceFile, text: &Text) -> Option<nacl_syntax::nacl::Parse> {
        let (kept_text, kept) = self.0.read(&file, Clone::clone)?;
        let parse = if *kept_text == **text { kept } else { nacl_syntax::nacl::reparse_part(&kept, &kept_text, text)? };
        self.keep(file, text.clone(), parse.clone());
        Some(parse)
    }

    /// Whether a tree of `file` is kept.
    #[cfg(test)]
    pub(crate) fn holds(&self, file: SourceFile) -> bool {
        self.0.holds(&file)
    }

    /// Keeps `parse`, the tree of `text`, as `file`'s, the most recent.
    fn keep(&self, file: SourceFile, text: Text, parse: nacl_syntax::nacl::Parse) {
        self.0.keep(file, (text, parse));
    }
}

/// The database: owns every input and memoized query result.
#[salsa::db]
#[derive(Clone, Default)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    /// The persistent cache of the files' results, shared by the database's snapshots.
    file_cache: Arc<std::sync::Mutex<Option<Arc<crate::cache::Cache>>>>,
    /// The last trees parsed, shared by the database's snapshots.
    recent_trees: Arc<RecentTrees>,
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

#[salsa::db]
impl Db for RootDatabase {
    fn file_cache(&self) -> Option<Arc<crate::cache::Cache>> {
        self.file_cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    fn recent_trees(&self) -> &RecentTrees {
        &self.recent_trees
    }
}

impl RootDatabase {
    /// A database that records every query execution, for tests of incrementality.
    pub fn with_execution_log() -> (RootDatabase, Arc<std::sync::Mutex<Vec<String>>>) {
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = log.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind
                && let Ok(mut log) = sink.lock()
            {
                log.push(format!("{database_key:?}"));
            }
        })));
        (RootDatabase { storage, file_cache: Arc::default(), recent_trees: Arc::default() }, log)
    }

    /// Sets the persistent cache the files' entries point into.
    pub(crate) fn set_file_cache(&self, cache: crate::cache::Cache) {
        *self.file_cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(cache));
    }

    /// Frees the persistent cache, once every file's results it held are computed.
    pub(crate) fn release_file_cache(&self) {
        self.file_cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    }
}

/// What a file defines, and its syntax errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileFragments {
    /// Lexical, grammar and block-structure errors.
    pub syntax_errors: Arc<[SyntaxError]>,
    /// The fragments, in order.
    pub fragments: Arc<[Fragment]>,
}

impl FileFragments {
    /// Parses `text` into the parser's flat tree and reads its fragments (no rowan tree is built;
    /// long strings written as-is are kept as slices of `text`).
    pub fn of_text(text: &Text) -> FileFragments {
        let (tree, errors) = nacl_syntax::nacl::parse_flat(text);
        FileFragments { syntax_errors: errors.into(), fragments: fragments::fragments(tree.root(), text).into() }
    }

    /// What [`FileFragments::of_text`] finds in `text`, read from `parse`, its syntax tree,
    /// instead of parsing it again.
    pub fn of_tree(parse: &nacl_syntax::nacl::Parse, text: &Text) -> FileFragments {
        let root = nacl_syntax::nacl::green::GNode::root(parse.green());
        FileFragments { syntax_errors: parse.errors().into(), fragments: fragments::fragments(root, text).into() }
    }
}

/// The file parsed and read into fragments (or, for a file the persistent cache knew with this
/// very text, what the cache kept, while the database holds the cache: the same results). The
/// syntax tree itself is not kept: fragments are a fraction of its size, and a workspace-wide
/// check would otherwise hold every tree at once.
#[salsa::tracked(returns(ref))]
pub fn file_fragments(db: &dyn Db, file: SourceFile) -> FileFragments {
    let text = file.text(db);
    if let Some(entry) = file.cached(db)
        && text.is_as_loaded()
        && let Some(cache) = db.file_cache()
        && let Some(results) = cache.decode(entry, text.get())
    {
        return results;
    }
    // A file an editor reads, edited inside one string, ID, comment, object, list or top-level
    // block: its fragments are read from its last tree with that part parsed again, instead of
    // parsing the whole file again.
    if let Some(parse) = db.recent_trees().without_full_parse(file, text.get()) {
        return FileFragments::of_tree(&parse, text.get());
    }
    FileFragments::of_text(text.get())
}

/// The syntax tree of a file, for editor requests on it (hover, completion, semantic tokens).
/// Only the most recently used trees are kept: [`file_fragments`] parses on its own so that a
/// workspace-wide check never holds every tree. After an edit, the file's last tree is reused
/// where the edit allows ([`RecentTrees`]).
#[salsa::tracked(returns(ref), no_eq, lru = 32)]
pub fn parse(db: &dyn Db, file: SourceFile) -> nacl_syntax::nacl::Parse {
    let text = file.text(db).get();
    let recent = db.recent_trees();
    recent.without_full_parse(file, text).unwrap_or_else(|| {
        let parse = nacl_syntax::nacl::parse(text);
        recent.keep(file, text.clone(), parse.clone());
        parse
    })
}

/// The IDs of the elements a file defines, in order: the firewall between edits inside values
/// and everything that only needs to know which file defines what.
///
/// For an editor's buffer they are the IDs the workspace set ([`SourceFile::buffer_ids`]), not
/// read from its text: a buffer's text is set with low durability, and salsa never reuses a
/// result that was computed from inputs of higher durability than it is computed from now. Read
/// from the text, opening a file would rebuild the element index and everything that depends
/// on it (at 1 GB, a whole check).
#[salsa::tracked(returns(ref))]
pub fn file_element_ids(db: &dyn Db, file: SourceFile) -> Vec<Arc<ElemId>> {
    if let Some(ids) = file.buffer_ids(db) {
        return ids.to_vec();
    }
    ids_of(&file_fragments(db, file).fragments)
}

/// The IDs of `fragments`, in order.
pub(crate) fn ids_of(fragments: &[Fragment]) -> Vec<Arc<ElemId>> {
    fragments.iter().map(|f| f.id.clone()).collect()
}

/// Whether `ids` are the IDs of `fragments`, in order.
pub(crate) fn are_ids_of(ids: &[Arc<ElemId>], fragments: &[Fragment]) -> bool {
    ids.len() == fragments.len() && ids.iter().zip(fragments).all(|(id, fragment)| **id == *fragment.id)
}

/// Where each element's fragments are in a file with many of them (fragment indexes by ID), so
/// finding one element's fragments does not scan the whole file. Built only for such files.
#[salsa::tracked(returns(ref))]
fn fragment_positions(db: &dyn Db, file: SourceFile) -> NameMap<Arc<ElemId>, Vec<usize>> {
    let mut positions: NameMap<Arc<ElemId>, Vec<usize>> = NameMap::default();
    for (at, fragment) in file_fragments(db, file).fragments.iter().enumerate() {
        positions.entry(fragment.id.clone()).or_default().push(at);
    }
    positions
}

/// Up to this many fragments in a file (most files have one), finding an element's fragments by
/// a scan is cheaper than hashing their IDs.
pub(crate) const FRAGMENTS_SCANNED: usize = 16;

/// The fragments of element `id` in `file`, in order: almost always one, held inline.
pub fn fragments_of<'db>(db: &'db dyn Db, file: SourceFile, id: &ElemId) -> smallvec::SmallVec<[&'db Fragment; 1]> {
    let fragments = &file_fragments(db, file).fragments;
    if fragments.len() <= FRAGMENTS_SCANNED {
        return fragments.iter().filter(|f| *f.id == *id).collect();
    }
    fragment_positions(db, file).get(id).map(|at| at.iter().map(|&i| &fragments[i]).collect()).unwrap_or_default()
}

/// The files that define one element, with their sources: held inline for one file (almost every
/// element), so that the index makes no list per element and finding an element's file reads
/// no other memory.
pub type ElementFiles = smallvec::SmallVec<[(SourceFile, Source); 1]>;

/// Which files define each element, with the source each file belongs to.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ElementIndex {
    /// Element ID → files in path order, with their source. The IDs are shared with
    /// [`file_element_ids`] and the index's parts, not copied.
    pub files: NameMap<Arc<ElemId>, ElementFiles>,
    /// The types each adapter defines in NaCl, by adapter.
    pub types_by_adapter: NameMap<String, Vec<Arc<ElemId>>>,
}

impl ElementIndex {
    /// Whether element `id` is defined in an environment (one of its files is active there).
    pub fn defines(&self, id: &ElemId, env: Option<&str>) -> bool {
        self.files.get(id).is_some_and(|files| defined_in(files, env))
    }

    /// Whether an adapter defines at least one type in NaCl.
    pub fn adapter_has_types(&self, adapter: &str) -> bool {
        self.types_by_adapter.contains_key(adapter)
    }
}

/// From this many elements, a replaced index is freed on another thread.
const FREED_ELSEWHERE_FROM: usize = 4096;

impl Drop for ElementIndex {
    /// Salsa frees the index a query replaced when the next write starts a new revision, on
    /// the thread writing: the server's writer, which applies every edit. Freeing a large
    /// workspace's index takes that long (about 100 ms for a million elements), so a large
    /// index is freed on the thread pool instead.
    fn drop(&mut self) {
        if self.files.len() >= FREED_ELSEWHERE_FROM {
            let index = (std::mem::take(&mut self.files), std::mem::take(&mut self.types_by_adapter));
            rayon::spawn(move || drop(index));
        }
    }
}

/// How many files one part of the element index (and of the symbol table) covers on average.
/// The index is built from parts so that checking it is still valid after an edit visits the
/// edited file's part and the list of parts (the parts of files not edited are known unchanged
/// from their durability), not every file.
pub(crate) const INDEX_PART: usize = 512;

/// The workspace's files dealt into parts by a hash of each file's identity, every part in path
/// order. A file added or removed (a new buffer opened, a file deleted) changes only its own
/// part; runs of the sorted list would all shift and every part be rebuilt. The number of parts,
/// a power of two, changes only when the number of files crosses one.
#[salsa::tracked(returns(ref))]
fn file_parts(db: &dyn Db, workspace: Workspace) -> Vec<Vec<SourceFile>> {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    let files = workspace.files(db);
    let count = (files.len() / INDEX_PART).max(1).next_power_of_two();
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    let mut parts = vec![Vec::new(); count];
    for &file in files {
        // The file's database identity, not its path: reading every path would make the parts
        // depend on the paths of edited buffers, and be checked again on every keystroke.
        parts[hasher.hash_one(file) as usize % count].push(file);
    }
    parts
}

/// The files of the `part`th part of the workspace, in path order (a firewall: it is recomputed
/// whenever the list of files changes, but what reads it only when this part changed).
#[salsa::tracked(returns(ref))]
pub(crate) fn part_files(db: &dyn Db, workspace: Workspace, part: usize) -> Vec<SourceFile> {
    file_parts(db, workspace).get(part).cloned().unwrap_or_default()
}

/// How many parts the workspace's files are dealt into (a firewall too: what reads every part,
/// the element index above all, is not recomputed when a file is added or removed, only when a
/// part's results change).
#[salsa::tracked(returns(copy))]
pub(crate) fn part_count(db: &dyn Db, workspace: Workspace) -> usize {
    file_parts(db, workspace).len()
}

/// The element IDs the `part`th run of [`INDEX_PART`] files defines, with the file and its
/// source (workspace config files left out).
#[salsa::tracked(returns(ref))]
pub(crate) fn index_part(db: &dyn Db, workspace: Workspace, part: usize) -> Vec<(Arc<ElemId>, SourceFile, Source)> {
    let layout = workspace.layout(db);
    let mut out = Vec::new();
    for &file in part_files(db, workspace, part) {
        if file.language(db) != crate::language::Language::Nacl {
            continue;
        }
        let source = layout.source_of(file.path(db));
        if source == Source::WorkspaceConfig {
            continue;
        }
        out.extend(file_element_ids(db, file).iter().map(|id| (id.clone(), file, source.clone())));
    }
    out
}

/// The index of all elements of the workspace.
#[salsa::tracked(returns(ref))]
pub fn element_index(db: &dyn Db, workspace: Workspace) -> ElementIndex {
    let parts: Vec<_> = (0..part_count(db, workspace)).map(|part| index_part(db, workspace, part)).collect();
    let mut index = ElementIndex::default();
    // Room for every ID at once: growing a map of a million entries moves each several times.
    index.files.reserve(parts.iter().map(|part| part.len()).sum());
    for part in parts {
        for (id, file, source) in part {
            let file = *file;
            match index.files.entry(id.clone()) {
                Entry::Vacant(entry) => {
                    entry.insert(smallvec::smallvec![(file, source.clone())]);
                }
                Entry::Occupied(mut entry) => {
                    let files = entry.get_mut();
                    if files.last().is_none_or(|(f, _)| *f != file) {
                        files.push((file, source.clone()));
                    }
                }
            }
            if id.id_type == crate::elem_id::IdType::Type {
                match index.types_by_adapter.get_mut(id.adapter.as_str()) {
                    Some(types) => types.push(id.clone()),
                    None => {
                        index.types_by_adapter.insert(id.adapter.to_string(), vec![id.clone()]);
                    }
                }
            }
        }
    }
    // Parts are not runs of the sorted files: an element's files are put back in path order,
    // which is the order its fragments merge in.
    for files in index.files.values_mut().filter(|files| files.len() > 1) {
        files.sort_by(|(a, _), (b, _)| a.path(db).cmp(b.path(db)));
    }
    for types in index.types_by_adapter.values_mut() {
        types.sort_unstable();
        types.dedup();
    }
    index
}

/// An element in one environment of a workspace: the key of per-element queries. The workspace
/// is part of the key so that those queries take the key alone: salsa interns the arguments of
/// a query that takes two, a second lookup on every call.
#[salsa::interned(debug)]
pub struct ElementKey<'db> {
    /// The workspace.
    pub workspace: Workspace,
    /// The environment (`None` for a workspace without environments).
    #[returns(ref)]
    pub env: Option<String>,
    /// The element.
    #[returns(ref)]
    pub id: ElemId,
}

/// An environment's name, borrowed, for [`ElementKey::new`]: it hashes and compares as the
/// key's `Option<String>`, so finding a key that exists allocates nothing.
#[derive(Debug, Clone, Copy, Hash)]
pub struct EnvRef<'a>(pub Option<&'a str>);

impl salsa::Lookup<Option<String>> for EnvRef<'_> {
    fn into_owned(self) -> Option<String> {
        self.0.map(str::to_owned)
    }
}

impl salsa::HashEqLike<EnvRef<'_>> for Option<String> {
    fn eq(&self, other: &EnvRef<'_>) -> bool {
        self.as_deref() == other.0
    }
}

/// The files that make up an element in an environment.
pub fn element_files(db: &dyn Db, workspace: Workspace, env: Option<&str>, id: &ElemId) -> Vec<SourceFile> {
    element_index(db, workspace).files.get(id).map(|files| active_files(files, env).collect()).unwrap_or_default()
}

/// The files among `files` (an entry of [`ElementIndex::files`]) that are active in an
/// environment.
pub fn active_files<'a>(
    files: &'a [(SourceFile, Source)],
    env: Option<&'a str>,
) -> impl Iterator<Item = SourceFile> + 'a {
    files.iter().filter(move |(_, source)| Layout::is_active(source, env)).map(|&(file, _)| file)
}

/// One element merged from its fragments in one environment, or `None` if it has none there.
pub fn merged_element(
    db: &dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    id: &ElemId,
) -> Option<MergedElement<SourceFile>> {
    let parts = element_parts(db, workspace, env, id);
    if parts.is_empty() {
        return None;
    }
    Some(merge::merge(id.clone(), &parts))
}

/// The fragments of an element in one environment, with their files, in the files' order.
fn element_parts<'db>(
    db: &'db dyn Db,
    workspace: Workspace,
    env: Option<&str>,
    id: &ElemId,
) -> Vec<(SourceFile, &'db Fragment)> {
    let files = element_files(db, workspace, env, id);
    files.iter().flat_map(|&file| fragments_of(db, file, id).into_iter().map(move |f| (file, f))).collect()
}

/// The conflicts between an element's fragments in one environment. Merged elements themselves
/// are not kept (they copy their fragments' values); their conflicts are small.
#[salsa::tracked(returns(ref))]
pub fn element_conflicts<'db>(db: &'db dyn Db, key: ElementKey<'db>) -> Vec<merge::Conflict<SourceFile>> {
    let workspace = *key.workspace(db);
    let parts = element_parts(db, workspace, key.env(db).as_deref(), key.id(db));
    if parts.is_empty() {
        return Vec::new();
    }
    merge::conflicts(key.id(db), &parts)
}

/// Whether an element exists in an environment.
pub fn element_exists(db: &dyn Db, workspace: Workspace, env: Option<&str>, id: &ElemId) -> bool {
    element_index(db, workspace).defines(id, env)
}

/// Whether an element whose files (an entry of [`ElementIndex::files`]) are `files` is defined in
/// an environment: one of them is active there.
pub fn defined_in(files: &[(SourceFile, Source)], env: Option<&str>) -> bool {
    active_files(files, env).next().is_some()
}

/// The file defining an element, when only one file does (`files` as in [`defined_in`]).
pub fn only_file(files: &[(SourceFile, Source)]) -> Option<SourceFile> {
    let (first, _) = files.first()?;
    files.iter().all(|(file, _)| file == first).then_some(*first)
}

/// The state of an environment, when it has one.
pub fn env_state<'db>(db: &'db dyn Db, workspace: Workspace, env: Option<&str>) -> Option<&'db EnvState> {
    workspace.state(db).env(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_element_key_is_found_by_a_borrowed_environment() {
        use std::hash::BuildHasher;
        let hasher = crate::hashing::NameHasher::default();
        for env in [None, Some("prod"), Some("")] {
            let owned = env.map(str::to_owned);
            assert_eq!(hasher.hash_one(EnvRef(env)), hasher.hash_one(&owned), "{env:?}");
            assert!(salsa::HashEqLike::eq(&owned, &EnvRef(env)));
            assert_eq!(salsa::Lookup::<Option<String>>::into_owned(EnvRef(env)), owned);
        }
        assert!(!salsa::HashEqLike::eq(&Some("prod".to_owned()), &EnvRef(Some("dev"))));
        assert!(!salsa::HashEqLike::eq(&None, &EnvRef(Some(""))));
        // Interned either way, the key is one.
        let loaded = crate::workspace::LoadedWorkspace::empty(std::path::Path::new("/ws"));
        let (db, workspace) = (&loaded.db, loaded.workspace);
        let id = ElemId::type_id("salto", "t");
        let owned = ElementKey::new(db, workspace, Some("prod".to_owned()), id.clone());
        assert_eq!(ElementKey::new(db, workspace, EnvRef(Some("prod")), &id), owned);
        assert_ne!(ElementKey::new(db, workspace, EnvRef(None), &id), owned);
    }

    /// An index with `elements` elements, all sharing `id`'s allocation.
    fn index_of(id: &Arc<ElemId>, elements: usize) -> ElementIndex {
        let mut index = ElementIndex::default();
        for i in 0..elements {
            let mut own = (**id).clone();
            own.name_parts.push(i.to_string().into());
            index.files.insert(Arc::new(own), ElementFiles::new());
            index.types_by_adapter.entry(i.to_string()).or_default().push(id.clone());
        }
        index
    }

    #[test]
    fn a_large_replaced_index_is_freed_on_another_thread_and_a_small_one_at_once() {
        let id = Arc::new(ElemId::type_id("salesforce", "Account"));
        drop(index_of(&id, FREED_ELSEWHERE_FROM - 1));
        assert_eq!(Arc::strong_count(&id), 1, "a small index is freed where it is dropped");

        // With every worker of the pool held, a large index is not freed where it is dropped.
        let workers = rayon::current_num_threads();
        let (started, release) =
            (Arc::new(std::sync::Barrier::new(workers + 1)), Arc::new(std::sync::Barrier::new(workers + 1)));
        for _ in 0..workers {
            let (started, release) = (started.clone(), release.clone());
            rayon::spawn(move || {
                started.wait();
                release.wait();
            });
        }
        started.wait();
        drop(index_of(&id, FREED_ELSEWHERE_FROM));
        assert!(Arc::strong_count(&id) > 1, "a large index waits for the pool");
        release.wait();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while Arc::strong_count(&id) > 1 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(Arc::strong_count(&id), 1, "a large index is freed, on the thread pool");
    }
}
