//! Loading a workspace from disk into the database, and checking all of it.

use crate::codes::AnalysisCode;
use crate::file_text::FileText;
use crate::fragments::Text;
use crate::language::{Language, LanguageRules};
use crate::{
    db::{ReadHashes, RootDatabase, SourceFile, StaticFiles, Workspace},
    diagnostics::{Diagnostic, file_diagnostics},
    files,
    layout::Layout,
    state::{StateStatus, WorkspaceState},
};
use rayon::prelude::*;
use std::{
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
    },
};

/// A point in a workspace's history: every write moves it on ([`LoadedWorkspace::revision`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Revision(salsa::Revision);

/// A workspace loaded into a database.
///
/// Cloning it takes a snapshot: a second handle on the same database, for reading on another
/// thread. Reads on a snapshot are cancelled (they unwind with a payload [`is_cancellation`]
/// recognises) as soon as the owner writes, and a write waits until every snapshot is dropped.
#[derive(Clone)]
pub struct LoadedWorkspace {
    /// The database holding it.
    pub db: RootDatabase,
    /// The workspace input.
    pub workspace: Workspace,
    /// Problems reading files or folders (file-level diagnostics, by path).
    pub load_errors: Arc<Vec<(PathBuf, Diagnostic)>>,
    /// Which language a file that enters the workspace is in (extra HCL globs a user set).
    pub languages: Arc<LanguageRules>,
    /// How many NaCl files the persistent cache had results for when loaded (decoded when first
    /// needed).
    pub from_cache: usize,
    /// Whether the persistent cache held anything but exactly this workspace's files as loaded,
    /// or held results that turned out damaged as they were decoded (so
    /// [`LoadedWorkspace::save_cache`] has something to write). Shared by the snapshots, so that
    /// a snapshot's save is not done again by the next, and with the cache itself.
    cache_stale: Arc<AtomicBool>,
    /// The reports of the last full check the persistent cache holds ([`crate::cache::reports`]).
    reports: Arc<std::sync::Mutex<KeptReports>>,
    /// The highlights of the documents highlighted last, by top-level block, shared by the
    /// snapshots.
    pub highlights: Arc<crate::highlight::RecentHighlights>,
}

/// What the persistent cache holds of a workspace's reports, shared by a database's snapshots.
#[derive(Default)]
struct KeptReports {
    /// The reports read when the workspace was loaded, until they are found to be of other
    /// inputs than the workspace's (then dropped for good).
    read: Option<Arc<ReadReports>>,
    /// The fingerprint of the reports the cache holds (read or written).
    fingerprint: Option<u64>,
}

/// Reports read from the persistent cache, and whether every place they name lies in its file.
/// That is checked once, the first time their fingerprint is the workspace's: they are served
/// only while it is, and the fingerprint holds the hash of every text the places are in.
struct ReadReports {
    reports: crate::cache::reports::Reports,
    places_fit: std::sync::OnceLock<bool>,
}

impl ReadReports {
    fn new(reports: crate::cache::reports::Reports) -> ReadReports {
        ReadReports { reports, places_fit: std::sync::OnceLock::new() }
    }
}

/// The durability of what is read from disk (files, the list of files, the layout): it changes
/// far less often than the buffers being edited, which are [`salsa::Durability::LOW`].
const ON_DISK: salsa::Durability = salsa::Durability::MEDIUM;

/// Whether a panic payload is a salsa cancellation (a read overtaken by a write), not a bug.
pub fn is_cancellation(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.is::<salsa::Cancelled>()
}

/// The diagnostics of one file.
pub struct FileReport {
    /// The file.
    pub path: PathBuf,
    /// Its text (empty for a file without diagnostics whose report came from the persistent
    /// cache: its text need not be read).
    pub text: Text,
    /// The length of its text in bytes.
    pub len: usize,
    /// Its diagnostics, by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// The most NaCl text one workspace reads: the analysis holds several times its input in memory,
/// so a larger folder would exhaust the machine (the largest real workspaces are about 130 MB).
pub const MAX_WORKSPACE_BYTES: u64 = 2 << 30;

/// Counts items finished on several threads and reports about every hundredth, and the last, in
/// order: a report never shows fewer items done than one before it (two threads counting apart
/// could send their reports the wrong way round). Counting takes no lock; only a report does.
struct ProgressCounter<'a> {
    done: AtomicUsize,
    /// The most items done that a report has shown.
    reported: std::sync::Mutex<usize>,
    total: usize,
    step: usize,
    report: &'a (dyn Fn(usize, usize) + Sync),
}

impl<'a> ProgressCounter<'a> {
    fn new(total: usize, report: &'a (dyn Fn(usize, usize) + Sync)) -> ProgressCounter<'a> {
        let step = (total / 100).max(1);
        ProgressCounter { done: AtomicUsize::new(0), reported: std::sync::Mutex::new(0), total, step, report }
    }

    /// Counts one more item done, reporting when it is a step or the last.
    fn finished_one(&self) {
        self.finished(1);
    }

    /// Counts `count` more items done, reporting when they reach a step or the last.
    fn finished(&self, count: usize) {
        let before = self.done.fetch_add(count, Ordering::Relaxed);
        let done = before + count;
        if before / self.step != done / self.step || done == self.total {
            let mut reported = self.reported.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if done > *reported {
                *reported = done;
                (self.report)(done, self.total);
            }
        }
    }

    /// A count for one thread's run of small items, which tells this counter every
    /// [`Batch::SIZE`] items and when dropped: counting each item here would have every core
    /// write the one count in turn.
    fn batch(&self) -> Batch<'_, 'a> {
        Batch { counter: self, done: 0 }
    }
}

/// Items done on one thread and not yet counted ([`ProgressCounter::batch`]).
struct Batch<'c, 'a> {
    counter: &'c ProgressCounter<'a>,
    done: usize,
}

impl Batch<'_, '_> {
    /// How many items a batch holds before it tells its counter.
    const SIZE: usize = 64;

    /// Counts one more item done.
    fn finished_one(&mut self) {
        self.done += 1;
        if self.done == Batch::SIZE {
            self.counter.finished(std::mem::take(&mut self.done));
        }
    }
}

impl Drop for Batch<'_, '_> {
    fn drop(&mut self) {
        if self.done > 0 {
            self.counter.finished(self.done);
        }
    }
}

/// Reads every NaCl and HCL file of the workspace at `root` (files are read in parallel).
pub fn load(root: &Path, env: Option<&str>) -> LoadedWorkspace {
    load_with_progress(root, env, &|_, _| {})
}

/// Like [`load`], and also reads Salto's state files (in parallel with the NaCl files) when
/// `with_state` is set.
pub fn load_with_state(root: &Path, env: Option<&str>, with_state: bool) -> LoadedWorkspace {
    load_with_state_and_progress(root, env, with_state, &|_, _| {})
}

/// Like [`load_with_state`], calling `progress(files read, files found)` now and then.
pub fn load_with_state_and_progress(
    root: &Path,
    env: Option<&str>,
    with_state: bool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> LoadedWorkspace {
    if !with_state {
        return load_with_progress(root, env, progress);
    }
    let (mut loaded, state) =
        rayon::join(|| load_with_progress(root, env, progress), || WorkspaceState::load(&Layout::load(root, env)));
    loaded.set_state(Arc::new(state));
    loaded
}

/// Like [`load`], calling `progress(files read, files found)` now and then while reading.
pub fn load_with_progress(root: &Path, env: Option<&str>, progress: &(dyn Fn(usize, usize) + Sync)) -> LoadedWorkspace {
    let cache_folder = crate::cache::folder();
    let cache_file = cache_folder.as_deref().and_then(|folder| crate::cache::CacheFile::of(folder, root));
    // With a cache, the files are stamped as they are found: the cache vouches for those it saw
    // with the same stamps.
    let stamped = cache_file.as_ref().is_some_and(crate::cache::CacheFile::exists);
    // The persistent cache is read while the files are found.
    let ((layout, (found, discovery_errors)), (cache, reports)) = rayon::join(
        || (Layout::load(root, env), files::discover_files(&[root.to_path_buf()], stamped)),
        || {
            let Some(file) = &cache_file else { return Default::default() };
            rayon::join(|| crate::cache::Cache::load(file, root), || crate::cache::reports::Reports::load(file, root))
        },
    );
    let total = found.len();
    let bytes = AtomicU64::new(0);
    let over = AtomicBool::new(false);
    progress(0, total);
    let read = ProgressCounter::new(total, progress);
    // Each file is read straight into the `Text` the database keeps, on the thread that read it.
    // With a cache, it is hashed there too, once: for the cache's results of unchanged files, for
    // the fingerprint and for the cache's next writing ([`SourceFile::read_hash`]). A file the
    // cache saw with the metadata it has now is not read at all.
    let now = files::now_seconds();
    // What the cache holds of each file, found by path for all at once (both are in path order).
    let known = cache.files_of(&found);
    let with_cache = cache_folder.is_some();
    let loaded: Vec<ReadFile> = found
        .into_par_iter()
        .zip(known)
        .map_init(
            || read.batch(),
            |batch, (files::FoundFile { path, stamp }, known)| {
                let language = Language::of_path(&path).unwrap_or(Language::Nacl);
                let file = if bytes.load(Ordering::Relaxed) > MAX_WORKSPACE_BYTES {
                    over.store(true, Ordering::Relaxed);
                    ReadFile::skipped(path, language)
                } else {
                    let known = known.filter(|_| language == Language::Nacl);
                    ReadFile::load(path, stamp, language, known, with_cache, now)
                };
                bytes.fetch_add(file.text.len() as u64, Ordering::Relaxed);
                batch.finished_one();
                file
            },
        )
        .collect();
    let db = RootDatabase::default();
    let mut load_errors: Vec<(PathBuf, Diagnostic)> = discovery_errors
        .into_iter()
        .map(|e| {
            let code = if e.error.kind() == std::io::ErrorKind::QuotaExceeded {
                AnalysisCode::WorkspaceTooLarge
            } else {
                AnalysisCode::UnreadableFile
            };
            let error = nacl_syntax::SyntaxError::at(code, 0.into(), e.error.to_string());
            (e.path, Diagnostic::from_syntax(&error))
        })
        .collect();
    if over.into_inner() {
        let message = format!(
            "nacl-ls read {} MiB of NaCl here and stopped: it reads up to {} MiB in one workspace",
            bytes.into_inner() >> 20,
            MAX_WORKSPACE_BYTES >> 20
        );
        let error = nacl_syntax::SyntaxError::at(AnalysisCode::WorkspaceTooLarge, 0.into(), message);
        load_errors.push((root.to_path_buf(), Diagnostic::from_syntax(&error)));
    }
    let cached_files = cache.len();
    // Results that turn out damaged as they are decoded make the cache stale too.
    let stale = cache.stale_flag();
    db.set_file_cache(cache);
    let mut source_files = Vec::with_capacity(loaded.len());
    let (mut from_cache, mut nacl_files, mut restamped) = (0, 0, false);
    for ReadFile { path, language, text, error, hash, cached, stamp, restamp } in loaded {
        if let Some(error) = &error {
            load_errors.push((path.clone(), Diagnostic::from_syntax(error)));
        }
        nacl_files += usize::from(is_checked_nacl(language, &error));
        from_cache += usize::from(cached.is_some());
        restamped |= restamp;
        let file = SourceFile::builder(path, language, text)
            .cached(cached)
            .read_hash(hash)
            .stamp(stamp)
            .durability(ON_DISK)
            .new(&db);
        source_files.push(file);
    }
    // Written again as well when files it had the results of have other stamps now, so that
    // the next load need not read them.
    let cache_stale = cache_folder.is_some() && (from_cache < nacl_files || cached_files > from_cache || restamped);
    stale.fetch_or(cache_stale, Ordering::AcqRel);
    let static_files = static_files(&layout);
    // A broken project file leaves files without specs; the editor and `check` say why.
    let spec_rules = crate::hcldec::schema::SpecRules::read_project_file(&layout.root).unwrap_or_else(|e| {
        let error = nacl_syntax::SyntaxError::at(AnalysisCode::SpecUnavailable, 0.into(), e);
        load_errors.push((layout.root.join(crate::hcldec::schema::PROJECT_FILE), Diagnostic::from_syntax(&error)));
        Default::default()
    });
    let workspace = Workspace::builder(layout, source_files, static_files, WorkspaceState::none(), spec_rules)
        .durability(ON_DISK)
        .state_durability(salsa::Durability::HIGH)
        .unsaved_durability(salsa::Durability::LOW)
        .new(&db);
    LoadedWorkspace {
        db,
        workspace,
        load_errors: Arc::new(load_errors),
        languages: Arc::default(),
        from_cache,
        cache_stale: stale,
        reports: Arc::new(std::sync::Mutex::new(KeptReports {
            fingerprint: reports.as_ref().map(|r| r.fingerprint()),
            read: reports.map(|reports| Arc::new(ReadReports::new(reports))),
        })),
        highlights: Arc::default(),
    }
}

/// A file as the workspace's load read it (or found it unchanged, and did not read it).
struct ReadFile {
    path: PathBuf,
    language: Language,
    text: FileText,
    /// Why it could not be read, if it could not.
    error: Option<nacl_syntax::SyntaxError>,
    /// Its hashes ([`SourceFile::read_hash`]), when there is a cache.
    hash: Option<ReadHashes>,
    /// Where the cache has its results, when it has them for this text.
    cached: Option<crate::cache::CacheEntry>,
    /// Its metadata, taken before it was read, when they can vouch for its text next time.
    stamp: Option<files::Stamp>,
    /// The cache had its results, under another stamp.
    restamp: bool,
}

impl ReadFile {
    /// Reads the file at `path`, unless the cache saw it (`known`: what the cache holds of it)
    /// with the metadata it has now (`found`, the stamp the walk took, else its own); with a
    /// cache (`with_cache`), hashes what it reads and looks its results up. `now` is when the
    /// load started ([`files::Stamp::settled`]).
    fn load(
        path: PathBuf,
        found: Option<files::Stamp>,
        language: Language,
        known: Option<crate::cache::CachedFile<'_>>,
        with_cache: bool,
        now: i64,
    ) -> ReadFile {
        // Only a file the cache has results for is worth a `stat` before it is read.
        if let Some(known) = known
            && let Some(stamp) = found.or_else(|| files::Stamp::of(&path))
            && let Some((hash, cached)) = known.unchanged(&stamp)
        {
            let text = FileText::unread(path.clone(), usize::try_from(stamp.len).unwrap_or(usize::MAX), hash);
            let hash = ReadHashes { text: hash, file: file_hash(&path, language, hash) };
            let (hash, cached, stamp) = (Some(hash), Some(cached), Some(stamp));
            return ReadFile { path, language, text, error: None, hash, cached, stamp, restamp: false };
        }
        // The stamp is the opened file's, taken before it is read: a change while it is read
        // gives the file another.
        let (text, error, stamp) = files::load_stamped_text(&path);
        let hash = with_cache.then(|| crate::cache::text_hash(&text));
        let cached = known
            .zip(hash)
            .filter(|_| is_checked_nacl(language, &error))
            .and_then(|(known, hash)| known.results_for(text.len(), hash));
        let hash = hash.map(|text| ReadHashes { text, file: file_hash(&path, language, text) });
        let stamp = stamp.filter(|_| with_cache).and_then(|s| s.settled(now));
        let restamp = cached.is_some() && stamp.is_some() && known.and_then(|known| known.stamp()) != stamp;
        ReadFile { path, language, text: FileText::read(text), error, hash, cached, stamp, restamp }
    }

    /// A file not read: the workspace holds more text than nacl-ls reads.
    fn skipped(path: PathBuf, language: Language) -> ReadFile {
        let text = FileText::read(Text::new());
        ReadFile { path, language, text, error: None, hash: None, cached: None, stamp: None, restamp: false }
    }
}

/// Whether a file is NaCl that was read, so that it is checked (and has results to cache).
fn is_checked_nacl(language: Language, error: &Option<nacl_syntax::SyntaxError>) -> bool {
    language == Language::Nacl && error.is_none()
}

/// The hash of the `part`th part of the workspace's files ([`crate::db::part_files`]): the
/// wrapping sum of each file's hash of its path, language and text ([`file_hashes`]), a sum so
/// that the workspace's total does not depend on which part a file is dealt into. One query per
/// part, not per file (a workspace's first fingerprint reads every file; hundreds of thousands of
/// queries cost more than the hashing).
#[salsa::tracked(returns(copy))]
fn part_hash(db: &dyn crate::db::Db, workspace: Workspace, part: usize) -> u64 {
    crate::db::part_files(db, workspace, part).iter().fold(0, |sum, &file| sum.wrapping_add(file_hashes(db, file).1))
}

/// The hash of a file's text, and of its path, language and text together ([`file_hash`]); for
/// a file as it was read, the hashes taken then ([`SourceFile::read_hash`]: on all cores, with
/// the path at hand).
fn file_hashes(db: &dyn crate::db::Db, file: SourceFile) -> (u64, u64) {
    if let Some(ReadHashes { text, file }) = file.read_hash(db) {
        return (text, file);
    }
    let text_hash = crate::cache::text_hash(file.text(db).get());
    (text_hash, file_hash(file.path(db), file.language(db), text_hash))
}

/// The hash of a file's path, language and text hash together: the path hashed in one pass,
/// seeded with the other two (a streaming hasher per file, with its state to set up and its
/// input to copy, took most of the fingerprint's time on a restart at 1 GB).
pub(crate) fn file_hash(path: &Path, language: Language, text_hash: u64) -> u64 {
    let seed = text_hash ^ (language as u64).rotate_right(8);
    xxhash_rust::xxh3::xxh3_64_with_seed(path.as_os_str().as_encoded_bytes(), seed)
}

/// Puts `file` into `files`, which are sorted by path, at its place.
fn insert_sorted(db: &RootDatabase, files: &mut Vec<SourceFile>, file: SourceFile) {
    let path = file.path(db);
    let at = files.partition_point(|f| f.path(db) < path);
    files.insert(at, file);
}

/// Feeds `bytes` to `hasher` after their length, so that two fields cannot run into each other.
fn put_bytes(hasher: &mut xxhash_rust::xxh3::Xxh3Default, bytes: &[u8]) {
    hasher.update(&(bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

/// A hash of everything a workspace's diagnostics and notes are computed from: its layout,
/// every file's path, language and text, the static files, Salto's state and the spec rules
/// (the database's inputs; the build is told by the cache itself). Each input's fields are
/// named in full, so that a field added to one is not left out by mistake.
#[salsa::tracked(returns(copy))]
fn fingerprint(db: &dyn crate::db::Db, workspace: Workspace) -> u64 {
    fn path(p: &Path) -> &[u8] {
        p.as_os_str().as_encoded_bytes()
    }
    fn count(hasher: &mut xxhash_rust::xxh3::Xxh3Default, n: usize) {
        hasher.update(&(n as u64).to_le_bytes());
    }
    let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
    let Layout { root, envs, current_env } = workspace.layout(db);
    put_bytes(&mut hasher, path(root));
    count(&mut hasher, envs.len());
    for env in envs {
        put_bytes(&mut hasher, env.as_bytes());
    }
    count(&mut hasher, usize::from(current_env.is_some()));
    put_bytes(&mut hasher, current_env.as_deref().unwrap_or_default().as_bytes());
    count(&mut hasher, workspace.files(db).len());
    let parts = crate::db::part_count(db, workspace);
    let files = (0..parts).fold(0u64, |sum, part| sum.wrapping_add(part_hash(db, workspace, part)));
    hasher.update(&files.to_le_bytes());
    count(&mut hasher, workspace.unsaved(db).len());
    for &file in workspace.unsaved(db) {
        hasher.update(&file_hashes(db, file).1.to_le_bytes());
    }
    let StaticFiles { files: static_files, refused } = workspace.static_files(db);
    count(&mut hasher, static_files.len());
    for file in static_files {
        put_bytes(&mut hasher, path(file));
    }
    count(&mut hasher, refused.len());
    for (file, why) in refused {
        put_bytes(&mut hasher, path(file));
        put_bytes(&mut hasher, why.as_bytes());
    }
    hasher.update(&workspace.state(db).fingerprint().to_le_bytes());
    let crate::hcldec::schema::SpecRules { entries } = workspace.spec_rules(db);
    count(&mut hasher, entries.len());
    for (glob, spec) in entries {
        put_bytes(&mut hasher, glob.as_bytes());
        put_bytes(&mut hasher, spec.as_bytes());
    }
    hasher.digest()
}

/// Every file in the workspace's static-resources folders; links are followed only while they
/// stay inside the workspace.
fn static_files(layout: &Layout) -> StaticFiles {
    let Ok(boundary) = std::fs::canonicalize(&layout.root) else { return StaticFiles::default() };
    let (files, errors) = files::walk_static(&layout.all_static_dirs(), &boundary);
    let mut refused: Vec<(PathBuf, String)> = errors.into_iter().map(|e| (e.path, e.error.to_string())).collect();
    refused.sort();
    StaticFiles { files, refused }
}

impl LoadedWorkspace {
    /// The diagnostics of every file under `filter` (all files when it is `None`), in path
    /// order, computed in parallel.
    pub fn check(&self, filter: Option<&Path>) -> Vec<FileReport> {
        self.check_with_progress(filter, &|_, _| {})
    }

    /// Like [`LoadedWorkspace::check`], calling `progress(files checked, files to check)` now and
    /// then (from several threads). The diagnostics stay memoized in the database, so a later
    /// edit recomputes only what it touches (the language server's check).
    pub fn check_with_progress(
        &self,
        filter: Option<&Path>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Vec<FileReport> {
        self.check_files(filter, progress, |db, file| file_diagnostics(db, file).to_vec())
    }

    /// Like [`LoadedWorkspace::check_with_progress`], for a check that is not followed by
    /// another of the same database (the command line's): each file's diagnostics are
    /// computed without being kept ([`crate::diagnostics::file_diagnostics_once`]).
    pub fn check_once_with_progress(
        &self,
        filter: Option<&Path>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Vec<FileReport> {
        self.check_files(filter, progress, |db, file| crate::diagnostics::file_diagnostics_once(db, file))
    }

    /// The reports of the files under `filter`, from the persistent cache when it holds them
    /// for the workspace as it is, else with `diagnostics` of each file, computed in parallel.
    fn check_files(
        &self,
        filter: Option<&Path>,
        progress: &(dyn Fn(usize, usize) + Sync),
        diagnostics: impl Fn(&RootDatabase, SourceFile) -> Vec<Diagnostic> + Sync,
    ) -> Vec<FileReport> {
        let files: Vec<SourceFile> = crate::db::every_file(&self.db, self.workspace)
            .filter(|f| filter.is_none_or(|prefix| f.path(&self.db).starts_with(prefix)))
            .collect();
        if let Some(cached) = self.cached_reports() {
            let mut reports: Vec<FileReport> = self.par_map(&files, |db, &file| {
                let path = file.path(db);
                let diagnostics = cached.reports.diagnostics_of(path).to_vec();
                let text = file.text(db);
                let len = text.len();
                let text = if diagnostics.is_empty() { Text::new() } else { text.get().clone() };
                FileReport { path: path.clone(), text, len, diagnostics }
            });
            progress(files.len(), files.len());
            self.add_load_errors(&mut reports, filter);
            return reports;
        }
        // Every file's own results first, in parallel: otherwise the first file's diagnostics
        // reach the element index, which would parse every file on one thread while the others
        // wait for it (any file's diagnostics need the index, so this holds for a filter too).
        self.compute_file_results();
        let done = ProgressCounter::new(files.len(), progress);
        let mut reports: Vec<FileReport> = self.par_map(&files, |db, &file| {
            let text = file.text(db).get().clone();
            let report =
                FileReport { path: file.path(db).clone(), len: text.len(), text, diagnostics: diagnostics(db, file) };
            done.finished_one();
            report
        });
        self.add_load_errors(&mut reports, filter);
        reports
    }

    /// How many files' texts have not been read: the persistent cache vouched for them as the
    /// workspace loaded, and nothing has needed them since.
    pub fn unread_files(&self) -> usize {
        self.workspace.files(&self.db).iter().filter(|f| f.text(&self.db).is_unread()).count()
    }

    /// Whether the persistent cache holds the reports of the workspace as it is now (so that a
    /// check reads them instead of computing anything).
    pub fn reports_cached(&self) -> bool {
        self.cached_reports().is_some()
    }

    /// The reports the persistent cache holds, if they were computed from exactly what the
    /// workspace holds now (its [`LoadedWorkspace::fingerprint`]). Once they are not, they are
    /// dropped.
    fn cached_reports(&self) -> Option<Arc<ReadReports>> {
        let stored = || self.reports.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let read = stored().read.clone()?;
        // Not under the lock: the fingerprint is computed on all cores, and a worker waiting
        // for one of its pieces may take up other work that asks for the reports.
        if read.reports.fingerprint() == self.fingerprint() && *read.places_fit.get_or_init(|| self.fits(&read.reports))
        {
            return Some(read);
        }
        let mut stored = stored();
        if stored.read.as_ref().is_some_and(|r| Arc::ptr_eq(r, &read)) {
            stored.read = None;
        }
        None
    }

    /// Whether every place the reports name lies in a file of the workspace, on character
    /// boundaries of its text (reports forged with a valid checksum and fingerprint would
    /// otherwise reach code that slices the text at them).
    fn fits(&self, reports: &crate::cache::reports::Reports) -> bool {
        let fits = |path: &Path, range: nacl_syntax::TextRange| {
            let Some(file) = self.file(path) else { return false };
            let text = file.text(&self.db).get();
            let (start, end) = (usize::from(range.start()), usize::from(range.end()));
            end <= text.len() && text.is_char_boundary(start) && text.is_char_boundary(end)
        };
        reports.files().all(|(path, diagnostics)| {
            diagnostics.iter().all(|d| fits(&path, d.range) && d.related.iter().all(|r| fits(&r.path, r.range)))
        })
    }

    /// A hash of everything the workspace's diagnostics and notes are computed from
    /// ([`fingerprint`]); the files' texts are hashed on all cores.
    pub fn fingerprint(&self) -> u64 {
        self.hash_parts();
        fingerprint(&self.db, self.workspace)
    }

    /// Computes every part's [`part_hash`] on all cores.
    fn hash_parts(&self) {
        let workspace = self.workspace;
        self.par_map(&self.parts(), |db, &part| {
            part_hash(db, workspace, part);
        });
    }

    /// Keeps the reports of a full check (of [`LoadedWorkspace::check`] with no filter, on this
    /// database) in the persistent cache for the next start, unless it holds these already.
    pub fn save_reports(&self, reports: &[FileReport]) -> std::io::Result<()> {
        let Some(folder) = crate::cache::folder() else { return Ok(()) };
        let fingerprint = self.fingerprint();
        let stored = self.reports.lock().unwrap_or_else(std::sync::PoisonError::into_inner).fingerprint;
        if stored == Some(fingerprint) {
            return Ok(());
        }
        let untyped = self.untyped_instances();
        // A report starts with its file's load errors, which are not the check's.
        let mut load_errors: std::collections::HashMap<&Path, usize> = std::collections::HashMap::new();
        for (path, _) in self.load_errors.iter() {
            *load_errors.entry(path).or_default() += 1;
        }
        let checked = reports.iter().map(|r| {
            let skip = load_errors.get(r.path.as_path()).copied().unwrap_or(0).min(r.diagnostics.len());
            (r.path.as_path(), &r.diagnostics[skip..])
        });
        let root = &self.workspace.layout(&self.db).root;
        crate::cache::reports::save(&folder, root, fingerprint, checked, &untyped)?;
        self.reports.lock().unwrap_or_else(std::sync::PoisonError::into_inner).fingerprint = Some(fingerprint);
        Ok(())
    }

    /// The diagnostics every file has on its own, known before the workspace-wide check ends
    /// ([`crate::diagnostics::own_diagnostics`], and files that could not be read), for the
    /// files with any, by path. Computes what [`LoadedWorkspace::compute_file_results`] has not.
    pub fn own_reports(&self) -> Vec<FileReport> {
        let mut reports: Vec<FileReport> = crate::db::every_file(&self.db, self.workspace)
            .filter_map(|file| {
                let diagnostics = crate::diagnostics::own_diagnostics(&self.db, file);
                (!diagnostics.is_empty()).then(|| {
                    let text = file.text(&self.db).get().clone();
                    FileReport { path: file.path(&self.db).clone(), len: text.len(), text, diagnostics }
                })
            })
            .collect();
        self.add_load_errors(&mut reports, None);
        reports
    }

    /// Puts each load error under `filter` first in its file's report (a new one for a file
    /// that was not read), and sorts the reports by path.
    fn add_load_errors(&self, reports: &mut Vec<FileReport>, filter: Option<&Path>) {
        // The reports come in the workspace's files' order, which is their paths' (files are
        // found by a binary search there), then its unsaved buffers'. They are sorted only when
        // a buffer's report or a new one is among them: comparing every path component by
        // component took about 25 ms of a restart at 1 GB.
        let mut unsorted = !self.workspace.unsaved(&self.db).is_empty();
        // Each file's report found by its path (thousands of unreadable files would otherwise
        // each look through every report); no map at all without load errors.
        let mut places: std::collections::HashMap<PathBuf, usize> = if self.load_errors.is_empty() {
            Default::default()
        } else {
            reports.iter().enumerate().map(|(at, report)| (report.path.clone(), at)).collect()
        };
        for (path, diagnostic) in self.load_errors.iter() {
            match places.get(path) {
                Some(&at) => reports[at].diagnostics.insert(0, diagnostic.clone()),
                None if filter.is_none_or(|prefix| path.starts_with(prefix)) => {
                    unsorted = true;
                    places.insert(path.clone(), reports.len());
                    reports.push(FileReport {
                        path: path.clone(),
                        text: Text::new(),
                        len: 0,
                        diagnostics: vec![diagnostic.clone()],
                    });
                }
                None => {}
            }
        }
        if unsorted {
            reports.sort_by(|a, b| a.path.cmp(&b.path));
        }
    }
}

impl LoadedWorkspace {
    /// Computes every file's own results (parse, fragments and element IDs; HCL's and ARMLang's
    /// diagnostics), then the element index's parts, in parallel, as a workspace-wide pass needs
    /// them all: the index itself only has the parts to join.
    pub fn compute_file_results(&self) {
        let files: Vec<SourceFile> = crate::db::every_file(&self.db, self.workspace).collect();
        self.par_map(&files, |db, &file| match file.language(db) {
            Language::Nacl => {
                crate::db::file_element_ids(db, file);
            }
            Language::Hcl => {
                crate::hcl::diagnostics(db, file);
            }
            Language::Arm => {
                crate::arm::diagnostics(db, file);
            }
        });
        // Every result the persistent cache held is decoded now.
        self.db.release_file_cache();
        let workspace = self.workspace;
        self.par_map(&self.parts(), |db, &part| {
            crate::db::index_part(db, workspace, part);
        });
    }

    /// The indexes of the parts the workspace's files are dealt into (what the symbol table and
    /// the word filters are kept per).
    pub(crate) fn parts(&self) -> Vec<usize> {
        (0..crate::db::part_count(&self.db, self.workspace)).collect()
    }

    /// `f` of every item, computed on all cores, in order. A database handle is not shared
    /// between threads: each worker clones its own.
    ///
    /// A panic in `f` (a cancellation by a write, above all) stops the work: the items not
    /// started are skipped and the first panic is resumed once, here. Letting it unwind through
    /// rayon instead unwinds every piece of work rayon split off, one panic each; at 100 MB that
    /// kept a write waiting for a cancelled workspace check about 80 ms, at 1 GB about a second.
    pub(crate) fn par_map<I: Sync, T: Send>(
        &self,
        items: &[I],
        f: impl Fn(&RootDatabase, &I) -> T + Sync + Send,
    ) -> Vec<T> {
        let template = std::sync::Mutex::new(self.db.clone());
        let panicked = std::sync::Mutex::new(None);
        let results: Option<Vec<T>> = items
            .par_iter()
            .map_init(
                || template.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone(),
                |db, item| match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(db, item))) {
                    Ok(result) => Some(result),
                    Err(payload) => {
                        panicked.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(payload);
                        None
                    }
                },
            )
            .collect();
        match (results, panicked.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner)) {
            (Some(results), None) => results,
            (_, Some(payload)) => std::panic::resume_unwind(payload),
            (None, None) => unreachable!("an item without a result panicked"),
        }
    }

    /// The database's revision, so that what was built from the workspace can be known to be
    /// current or not. (It is read through salsa's plumbing, whose minor version is pinned.)
    pub fn revision(&self) -> Revision {
        Revision(salsa::plumbing::current_revision(&self.db))
    }

    /// Writes every NaCl file's own results to the persistent cache ([`crate::cache`]), when
    /// it did not hold exactly these already (the results not computed yet are computed first,
    /// on all cores). Once written, the cache is up to date.
    pub fn save_cache(&self) -> std::io::Result<()> {
        let Some(folder) = crate::cache::folder().filter(|_| self.cache_stale.load(Ordering::Acquire)) else {
            return Ok(());
        };
        self.compute_file_results();
        let unreadable: std::collections::HashSet<&Path> = self.load_errors.iter().map(|(p, _)| p.as_path()).collect();
        let db = &self.db;
        // In the workspace's order, which is its paths' and the cache's: a text's hash is the
        // one taken as it was read, and only a text set since is hashed again.
        let files = self.workspace.files(db);
        // Room for every file reserved at once: grown by doubling, it would hold up to twice as
        // much, at the moment every file's results are in memory.
        let mut entries = Vec::with_capacity(files.len());
        entries.extend(
            files
                .iter()
                .filter(|&&f| f.language(db) == Language::Nacl && !unreadable.contains(f.path(db).as_path()))
                .map(|&f| crate::cache::SavedFile {
                    path: f.path(db).as_path(),
                    text: f.text(db).get(),
                    hash: file_hashes(db, f).0,
                    stamp: f.stamp(db),
                    results: crate::db::file_fragments(db, f),
                }),
        );
        crate::cache::save(&folder, &self.workspace.layout(&self.db).root, &entries)?;
        self.cache_stale.store(false, Ordering::Release);
        Ok(())
    }
}

impl LoadedWorkspace {
    /// Every element of the current environment, merged, sorted by full name.
    pub fn elements(&self) -> Vec<crate::merge::MergedElement<SourceFile>> {
        // Every file's results on all cores first (the index would read them one by one).
        self.compute_file_results();
        let env = self.workspace.layout(&self.db).current_env.clone();
        let index = crate::db::element_index(&self.db, self.workspace);
        let mut ids: Vec<&crate::elem_id::ElemId> = index.files.keys().map(|id| &**id).collect();
        ids.sort_by_cached_key(|id| id.to_string());
        ids.into_iter()
            .filter_map(|id| crate::db::merged_element(&self.db, self.workspace, env.as_deref(), id))
            .collect()
    }
}

/// Instances of one adapter whose types are not defined in NaCl, in a workspace without
/// usable state for that adapter (such types are usually hidden in Salto's state).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntypedInstances {
    /// The adapter.
    pub adapter: String,
    /// How many instances.
    pub instances: usize,
    /// How many distinct types they have.
    pub types: usize,
    /// Why the state does not help: missing, remote, or (when loaded) unreadable for this adapter.
    pub state: StateStatus,
}

impl UntypedInstances {
    /// Why the state does not help, in words.
    pub fn reason(&self) -> &'static str {
        match self.state {
            StateStatus::Missing => "no state file is present for the environment",
            StateStatus::Remote => "the state is kept in Salto's cloud storage",
            StateStatus::Loaded => "the state has no readable file for this adapter",
            StateStatus::Unreadable => "its state file could not be read",
        }
    }

    /// The note telling the user, given why the state does not help.
    pub fn message(&self, reason: &str) -> String {
        let types = if self.types == 1 { "1 type".to_owned() } else { format!("{} types", self.types) };
        format!(
            "{} {} instances of {types} not defined in NaCl are not type-checked: Salto keeps such types in its state files, and {reason}",
            self.instances, self.adapter
        )
    }
}

impl LoadedWorkspace {
    /// Per adapter without usable state, the instances of the current environment whose type
    /// has no NaCl fragment. They are not type-checked; `check` says so once per adapter
    /// instead of once per instance. (With state, each such instance gets its own diagnostic.)
    pub fn untyped_instances(&self) -> Vec<UntypedInstances> {
        if let Some(cached) = self.cached_reports() {
            return cached.reports.untyped().to_vec();
        }
        let env = self.workspace.layout(&self.db).current_env.clone();
        let state = crate::db::env_state(&self.db, self.workspace, env.as_deref());
        let index = crate::db::element_index(&self.db, self.workspace);
        let mut by_adapter: std::collections::BTreeMap<&str, (usize, std::collections::BTreeSet<&str>)> =
            Default::default();
        // Whether each type is defined, asked once per type: instances far outnumber types, and
        // the index's table of every element is far larger than this one.
        let mut types_defined: crate::hashing::NameMap<(&str, &str), bool> = Default::default();
        for (id, files) in &index.files {
            if id.id_type != crate::elem_id::IdType::Instance
                || id.type_name == crate::elem_id::CONFIG_NAME
                || state.is_some_and(|s| s.has_account(&id.adapter))
            {
                continue;
            }
            let typed = *types_defined
                .entry((&id.adapter, &id.type_name))
                .or_insert_with(|| index.defines(&id.type_of(), env.as_deref()));
            // Whether the instance is in this environment, read last: most instances' types
            // are defined, and their files are not read at all.
            if !typed && crate::db::defined_in(files, env.as_deref()) {
                let entry = by_adapter.entry(&id.adapter).or_default();
                entry.0 += 1;
                entry.1.insert(&id.type_name);
            }
        }
        let status = state.map_or(StateStatus::Missing, |s| s.status.clone());
        by_adapter
            .into_iter()
            .map(|(adapter, (instances, types))| UntypedInstances {
                adapter: adapter.to_owned(),
                instances,
                types: types.len(),
                state: status.clone(),
            })
            .collect()
    }

    /// Problems with Salto's state worth telling once: files that could not be read, and
    /// state kept in Salto's cloud storage instead of the workspace.
    pub fn state_notes(&self) -> Vec<String> {
        let root = &self.workspace.layout(&self.db).root;
        let mut notes = Vec::new();
        for env in self.workspace.state(&self.db).envs() {
            for (path, why) in &env.problems {
                let path = path.strip_prefix(root).unwrap_or(path);
                notes.push(format!(
                    "the state file `{}` could not be read: {why}; environment `{}` works without it",
                    path.display(),
                    env.env
                ));
            }
            if env.status == StateStatus::Remote {
                notes.push(format!(
                    "the state of environment `{}` is kept in Salto's cloud storage (S3), not in the workspace; working without it",
                    env.env
                ));
            }
        }
        notes
    }
}

impl LoadedWorkspace {
    /// A workspace at `root` with no files yet (for an editor opened on a single file).
    pub fn empty(root: &Path) -> LoadedWorkspace {
        let db = RootDatabase::default();
        let layout = Layout { root: root.to_path_buf(), envs: Vec::new(), current_env: None };
        let workspace = Workspace::builder(
            layout,
            Vec::new(),
            StaticFiles::default(),
            WorkspaceState::none(),
            crate::hcldec::schema::SpecRules::default(),
        )
        .durability(ON_DISK)
        .state_durability(salsa::Durability::HIGH)
        .unsaved_durability(salsa::Durability::LOW)
        .new(&db);
        LoadedWorkspace {
            db,
            workspace,
            load_errors: Arc::default(),
            languages: Arc::default(),
            from_cache: 0,
            cache_stale: Arc::default(),
            reports: Arc::default(),
            highlights: Arc::default(),
        }
    }

    /// Sets which hcldec spec describes which HCL files (the settings' rules, before those of
    /// `.nacl-ls.toml`, which is read again).
    pub fn set_spec_rules(&mut self, settings: crate::hcldec::schema::SpecRules) {
        let root = self.workspace.layout(&self.db).root.clone();
        let project = crate::hcldec::schema::SpecRules::read_project_file(&root).unwrap_or_default();
        let rules = settings.then(project);
        if *self.workspace.spec_rules(&self.db) != rules {
            use salsa::Setter;
            self.workspace.set_spec_rules(&mut self.db).to(rules);
        }
    }

    /// The file at `path`, if the workspace has it.
    pub fn file(&self, path: &Path) -> Option<SourceFile> {
        crate::db::find_file(&self.db, self.workspace, path)
    }

    /// The current text of the file at `path`.
    pub fn text_of(&self, path: &Path) -> Option<Text> {
        self.file(path).map(|f| f.text(&self.db).get().clone())
    }

    /// Unwinds (with a payload [`is_cancellation`] recognises) if a write has overtaken this
    /// snapshot: for long reads that do not otherwise ask the database.
    pub fn unwind_if_cancelled(&self) {
        salsa::Database::unwind_if_revision_cancelled(&self.db);
    }

    /// The syntax tree of the file at `path` (kept for the files editors ask about most).
    pub fn syntax(&self, path: &Path) -> Option<nacl_syntax::nacl::SyntaxNode> {
        self.file(path).map(|f| crate::db::parse(&self.db, f).syntax())
    }

    /// Sets the text of the file at `path` (an editor's buffer), adding the file if it is new (its
    /// language from its name, NaCl for a name nacl-ls does not know).
    ///
    /// The text is set even when it is the same, to lower the file's durability: an edit then
    /// invalidates only what depends on buffers. The IDs of the elements a NaCl buffer defines
    /// are set apart ([`SourceFile::buffer_ids`]; the first ones at the durability of files on
    /// disk), so that opening a file does not rebuild the element index and all that depends on it.
    pub fn set_file_text(&mut self, path: &Path, text: Text) -> SourceFile {
        self.set_text_with(path, text, salsa::Durability::LOW)
    }

    /// Sets the text of the file at `path` as read from disk, adding the file if it is new.
    pub fn set_disk_text(&mut self, path: &Path, text: Text) -> SourceFile {
        self.set_text_with(path, text, ON_DISK)
    }

    /// Sets a file's text with a durability: edited buffers change often, files on disk seldom,
    /// and queries over files that did not change are known valid without looking at them.
    fn set_text_with(&mut self, path: &Path, text: Text, durability: salsa::Durability) -> SourceFile {
        use salsa::Setter;
        if let Some(file) = self.file(path) {
            // Set in any case: a buffer's text (tested first: a large buffer's text is not
            // compared on every keystroke), a text not read yet (the file on disk may not have it
            // any more), and a buffer's going back to disk, to raise its durability again.
            let current = file.text(&self.db);
            let was_buffer = file.buffer_ids(&self.db).is_some();
            if durability == salsa::Durability::LOW || was_buffer || current.is_unread() || **current.get() != *text {
                if file.cached(&self.db).is_some() {
                    file.set_cached(&mut self.db).with_durability(durability).to(None);
                }
                if file.read_hash(&self.db).is_some() {
                    file.set_read_hash(&mut self.db).with_durability(durability).to(None);
                }
                if file.stamp(&self.db).is_some() {
                    file.set_stamp(&mut self.db).with_durability(durability).to(None);
                }
                file.set_text(&mut self.db).with_durability(durability).to(FileText::read(text));
            }
            self.set_buffer_ids(file, durability);
            // A buffer saved to disk for the first time joins the files.
            if durability == ON_DISK && self.take_unsaved(file) {
                self.add_to_files(file);
            }
            return file;
        }
        let language = self.languages.language_of(path).unwrap_or(Language::Nacl);
        let file = SourceFile::builder(path.to_path_buf(), language, FileText::read(text))
            .durability(durability)
            .new(&self.db);
        self.set_buffer_ids(file, durability);
        if durability == salsa::Durability::LOW && language != Language::Nacl {
            let mut unsaved = self.workspace.unsaved(&self.db).clone();
            insert_sorted(&self.db, &mut unsaved, file);
            self.workspace.set_unsaved(&mut self.db).with_durability(salsa::Durability::LOW).to(unsaved);
        } else {
            self.add_to_files(file);
        }
        file
    }

    /// Puts `file` among the workspace's files, at its place (a write at disk durability).
    fn add_to_files(&mut self, file: SourceFile) {
        use salsa::Setter;
        let mut files = self.workspace.files(&self.db).clone();
        insert_sorted(&self.db, &mut files, file);
        self.workspace.set_files(&mut self.db).with_durability(ON_DISK).to(files);
    }

    /// Keeps the [`SourceFile::buffer_ids`] of a NaCl file whose text was just set with
    /// `durability`: for an editor's buffer, the IDs its text defines (parsed now, on the thread
    /// writing; the result is the one its diagnostics read), set only when they changed; for a
    /// file from disk, none.
    ///
    /// A buffer's first IDs are set at the durability of files on disk, so that opening a file
    /// leaves the element index as it was. Later changes (typing in an element's name) are set
    /// with low durability: at disk durability, each keystroke would make salsa check every part
    /// of the index again, not only the edited one.
    fn set_buffer_ids(&mut self, file: SourceFile, durability: salsa::Durability) {
        use salsa::Setter;
        if file.language(&self.db) != Language::Nacl {
            return;
        }
        let current = file.buffer_ids(&self.db).as_deref();
        let (ids, durability) = if durability == salsa::Durability::LOW {
            // An editor's buffer is read as a syntax tree, which the editor's requests share and
            // whose edited part alone the next edit parses again; its fragments are read from
            // that tree.
            crate::db::parse(&self.db, file);
            let fragments = &crate::db::file_fragments(&self.db, file).fragments;
            if current.is_some_and(|ids| crate::db::are_ids_of(ids, fragments)) {
                return;
            }
            let durability = if current.is_some() { salsa::Durability::LOW } else { ON_DISK };
            (Some(crate::db::ids_of(fragments).into()), durability)
        } else if current.is_some() {
            (None, ON_DISK)
        } else {
            return;
        };
        file.set_buffer_ids(&mut self.db).with_durability(durability).to(ids);
    }

    /// Sets a file back to its text on disk when an editor closes it.
    ///
    /// Nothing is written when the buffer held the text on disk (a file saved, or only read):
    /// a write at the durability of files on disk makes salsa check the results of every file
    /// again (hundreds of milliseconds at 1 GB, paid by the next request). Changes left unsaved
    /// are undone as an edit is made, at low durability. Either way the file keeps a buffer's
    /// durability until it next changes on disk ([`Self::set_disk_text`] raises it then).
    ///
    /// A path that now leads out of the workspace through a link ([`LoadedWorkspace::may_read`])
    /// is taken out of it instead.
    pub fn reload_file(&mut self, path: &Path) {
        self.highlights.forget(path);
        let Some(file) = self.file(path) else { return };
        if !self.may_read(path) {
            self.remove_file(path);
            return;
        }
        let text = files::load(path).text;
        if **file.text(&self.db).get() != *text {
            self.set_text_with(path, Text::from(text), salsa::Durability::LOW);
        }
    }

    /// Reads the file at `path` from disk into the workspace, as a file watcher reports it created
    /// or changed; one that does not lie inside the workspace, links followed
    /// ([`LoadedWorkspace::may_read`]), is taken out of it instead.
    pub fn read_from_disk(&mut self, path: &Path) {
        if self.may_read(path) {
            self.set_disk_text(path, Text::from(files::load(path).text));
        } else {
            self.remove_file(path);
        }
    }

    /// Whether the file at `path` may be read into the workspace: links followed, it lies inside
    /// the workspace's folder ([`files::resolves_inside`]), as the walk that loaded the workspace
    /// follows links only there. A file watcher or an editor names paths the walk never saw: a
    /// file checked out as a link can point anywhere (a key under `~/.ssh`), and what is read ends
    /// up in diagnostics.
    pub fn may_read(&self, path: &Path) -> bool {
        let root = &self.workspace.layout(&self.db).root;
        std::fs::canonicalize(root).is_ok_and(|boundary| files::resolves_inside(path, &boundary))
    }

    /// Takes a file out of the workspace (deleted on disk, or a closed buffer that never was a file).
    pub fn remove_file(&mut self, path: &Path) {
        use salsa::Setter;
        self.highlights.forget(path);
        let Some(file) = self.file(path) else { return };
        if self.take_unsaved(file) {
            return;
        }
        let mut files = self.workspace.files(&self.db).clone();
        files.retain(|&f| f != file);
        self.workspace.set_files(&mut self.db).with_durability(ON_DISK).to(files);
    }

    /// Takes `file` out of the unsaved buffers, if it is one of them.
    fn take_unsaved(&mut self, file: SourceFile) -> bool {
        use salsa::Setter;
        let mut unsaved = self.workspace.unsaved(&self.db).clone();
        let Some(at) = unsaved.iter().position(|&f| f == file) else { return false };
        unsaved.remove(at);
        self.workspace.set_unsaved(&mut self.db).with_durability(salsa::Durability::LOW).to(unsaved);
        true
    }

    /// Applies paths created, changed or deleted on disk to the list of static files, in time
    /// proportional to the changes: each path (and what was under it) is taken out and read again
    /// if it still exists (a created folder is walked). Paths outside the static-resources
    /// folders are ignored; a path holding one of those folders reads that folder again.
    pub fn static_paths_changed(&mut self, paths: &[PathBuf]) {
        use salsa::Setter;
        let layout = self.workspace.layout(&self.db);
        let dirs = layout.all_static_dirs();
        let Ok(boundary) = std::fs::canonicalize(&layout.root) else { return };
        let mut reread: Vec<PathBuf> = Vec::new();
        for path in paths {
            if dirs.iter().any(|dir| path.starts_with(dir)) {
                reread.push(path.clone());
            } else {
                reread.extend(dirs.iter().filter(|dir| dir.starts_with(path)).cloned());
            }
        }
        if reread.is_empty() {
            return;
        }
        reread.sort();
        reread.dedup();
        let mut next = self.workspace.static_files(&self.db).clone();
        let mut changed = false;
        for path in &reread {
            // What lies at or under a path is one run of the sorted list.
            let start = next.files.partition_point(|f| f < path);
            let end = start + next.files[start..].iter().take_while(|f| f.starts_with(path)).count();
            changed |= end > start;
            next.files.drain(start..end);
            let before = next.refused.len();
            next.refused.retain(|(p, _)| !p.starts_with(path));
            changed |= next.refused.len() != before;
        }
        let (files, errors) = files::walk_static(&reread, &boundary);
        for file in files {
            if let Err(at) = next.files.binary_search(&file) {
                next.files.insert(at, file);
                changed = true;
            }
        }
        changed |= !errors.is_empty();
        next.refused.extend(errors.into_iter().map(|e| (e.path, e.error.to_string())));
        next.refused.sort();
        if changed {
            self.workspace.set_static_files(&mut self.db).with_durability(ON_DISK).to(next);
        }
    }

    /// Reads the layout again (environments may have changed) with `env` as the current environment.
    pub fn reload_layout(&mut self, env: Option<&str>) {
        use salsa::Setter;
        let layout = Layout::load(&self.workspace.layout(&self.db).root, env);
        if *self.workspace.layout(&self.db) != layout {
            self.workspace.set_layout(&mut self.db).with_durability(ON_DISK).to(layout);
        }
    }

    /// Sets Salto's state (read with [`WorkspaceState::load`], or none to turn it off).
    pub fn set_state(&mut self, state: Arc<WorkspaceState>) {
        use salsa::Setter;
        self.workspace.set_state(&mut self.db).with_durability(salsa::Durability::HIGH).to(state);
    }

    /// Reads Salto's state files of every environment and sets them.
    pub fn load_state(&mut self) {
        let state = WorkspaceState::load(self.workspace.layout(&self.db));
        self.set_state(Arc::new(state));
    }

    /// The diagnostics of one file.
    pub fn file_diagnostics(&self, file: SourceFile) -> Vec<Diagnostic> {
        file_diagnostics(&self.db, file).to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn the_revision_moves_on_with_writes_and_not_with_reads() {
        let mut loaded = LoadedWorkspace::empty(Path::new("/nowhere"));
        let path = Path::new("/nowhere/a.nacl");
        loaded.set_file_text(path, Text::from("type salesforce.Account {\n}\n"));
        let before = loaded.revision();
        assert_eq!(loaded.workspace_symbols("acc", 10).len(), 1);
        assert_eq!(loaded.clone().revision(), before, "a read, and a snapshot, leave it");
        loaded.set_file_text(path, Text::from("type salesforce.Contact {\n}\n"));
        assert_ne!(loaded.revision(), before, "a write moves it on");
    }

    #[test]
    fn a_buffer_is_read_as_a_syntax_tree_and_a_file_on_disk_is_not() {
        let mut loaded = LoadedWorkspace::empty(Path::new("/nowhere"));
        let (a, b) = (Path::new("/nowhere/a.nacl"), Path::new("/nowhere/b.nacl"));
        let a = loaded.set_file_text(a, Text::from("salto.t a {\n  x = 1\n}\n"));
        let b = loaded.set_disk_text(b, Text::from("salto.t b {\n  x = 1\n}\n"));
        let kept = |l: &LoadedWorkspace, file| crate::db::Db::recent_trees(&l.db).holds(file);
        assert!(kept(&loaded, a), "the buffer's tree is kept for its next edit");
        assert!(!kept(&loaded, b), "a file on disk is read without a tree");
        // The edit's part is parsed again from the kept tree, and the result kept in turn.
        loaded.set_file_text(Path::new("/nowhere/a.nacl"), Text::from("salto.t a {\n  x = 12\n}\n"));
        assert!(kept(&loaded, a));
        assert_eq!(crate::db::file_fragments(&loaded.db, a).fragments[0].values[0].key.as_str(), "x");
    }

    #[test]
    fn the_highlights_kept_for_a_buffer_go_when_it_closes() {
        let mut loaded = LoadedWorkspace::empty(Path::new("/nowhere"));
        let path = Path::new("/nowhere/a.nacl");
        let text = "salto.t a {\n  x = 1\n}\n";
        loaded.set_file_text(path, Text::from(text));
        let view = crate::ide::DocumentView { path, text, workspace: Some(&loaded) };
        assert_eq!(view.highlights(None).len(), 4);
        assert!(loaded.highlights.holds(path));
        loaded.reload_file(path);
        assert!(!loaded.highlights.holds(path), "closed");
    }

    #[test]
    fn opening_a_file_keeps_the_element_index_and_only_a_change_of_its_ids_rebuilds_it() {
        let mut loaded = LoadedWorkspace::empty(Path::new("/nowhere"));
        let (a, b) = (Path::new("/nowhere/a.nacl"), Path::new("/nowhere/b.nacl"));
        let text = Text::from("salto.t a {\n  x = salto.t.instance.b\n}\n");
        loaded.set_disk_text(a, text.clone());
        loaded.set_disk_text(b, Text::from("salto.t b {\n}\n"));
        // The index's place: the same while salsa keeps it, another once it is computed again.
        let index = |l: &LoadedWorkspace| std::ptr::from_ref(crate::db::element_index(&l.db, l.workspace));
        let on_disk = index(&loaded);
        loaded.set_file_text(a, text);
        assert_eq!(index(&loaded), on_disk, "opened");
        loaded.set_file_text(a, Text::from("salto.t a {\n  x = 1\n}\n"));
        assert_eq!(index(&loaded), on_disk, "a value edited");
        let renamed = Text::from("salto.t a2 {\n  x = 1\n}\n");
        loaded.set_file_text(a, renamed.clone());
        let after = index(&loaded);
        assert_ne!(after, on_disk, "an element renamed");
        let ids: Vec<String> =
            crate::db::element_index(&loaded.db, loaded.workspace).files.keys().map(|id| id.full_name()).collect();
        assert!(
            ids.contains(&"salto.t.instance.a2".to_owned()) && !ids.contains(&"salto.t.instance.a".to_owned()),
            "{ids:?}"
        );
        loaded.set_disk_text(a, renamed);
        assert_eq!(index(&loaded), after, "closed, as saved");
    }

    #[test]
    fn closing_a_buffer_writes_only_the_changes_it_leaves_unsaved() {
        let (root, _, _scratch) = crate::cache::tests::workspace("close");
        std::fs::create_dir_all(root.join("salto.config")).expect("create");
        let path = root.join("a.nacl");
        let on_disk = "salto.t a {\n  x = 1\n}\n";
        std::fs::write(&path, on_disk).expect("write");
        let mut loaded = load(&root, None);
        let ids = |l: &LoadedWorkspace| l.workspace_symbols("salto", 10).len();
        loaded.set_file_text(&path, Text::from(on_disk));
        assert_eq!(ids(&loaded), 1);
        let opened = loaded.revision();
        loaded.reload_file(&path);
        assert_eq!(loaded.revision(), opened, "closed as it is on disk: nothing is written");
        loaded.set_file_text(&path, Text::from("salto.t a {\n  x = 1\n}\nsalto.t b {\n}\n"));
        assert_eq!(ids(&loaded), 2);
        let edited = disk_revision(&loaded);
        loaded.reload_file(&path);
        assert_eq!(disk_revision(&loaded), edited, "changes undone as an edit is made");
        assert_eq!(loaded.text_of(&path).as_deref(), Some(on_disk), "unsaved changes are undone");
        assert_eq!(ids(&loaded), 1);
        // Changed on disk later: read again, as any file on disk.
        std::fs::write(&path, "salto.t c {\n}\n").expect("write");
        loaded.set_disk_text(&path, Text::from("salto.t c {\n}\n"));
        assert_eq!(loaded.workspace_symbols("salto.t.instance.c", 10).len(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_that_became_a_link_out_of_the_workspace_is_taken_out_and_not_read() {
        let (root, _, _scratch) = crate::cache::tests::workspace("link-out");
        std::fs::create_dir_all(root.join("salto.config")).expect("create");
        let (a, b, c) = (root.join("a.nacl"), root.join("b.nacl"), root.join("c.nacl"));
        for (path, name) in [(&a, "a"), (&b, "b"), (&c, "c")] {
            std::fs::write(path, format!("salto.t {name} {{\n}}\n")).expect("write");
        }
        // A secret beside the workspace, and a file of the workspace to link to.
        let secret = root.with_file_name("secret");
        std::fs::write(&secret, "-----BEGIN PRIVATE KEY-----\n").expect("write");
        let mut loaded = load(&root, None);
        assert!(loaded.may_read(&a) && loaded.may_read(&b));
        // Checked out again as links: one out of the workspace, one into it.
        std::fs::remove_file(&a).expect("remove");
        std::os::unix::fs::symlink(&secret, &a).expect("link");
        std::fs::remove_file(&b).expect("remove");
        std::os::unix::fs::symlink(&c, &b).expect("link");
        assert!(!loaded.may_read(&a), "a link out of the workspace");
        assert!(loaded.may_read(&b), "a link inside it");
        loaded.reload_file(&a);
        loaded.reload_file(&b);
        assert!(loaded.file(&a).is_none(), "taken out of the workspace");
        // Named again by a file watcher: still not read.
        loaded.read_from_disk(&a);
        assert!(loaded.file(&a).is_none(), "not read from disk");
        assert_eq!(loaded.text_of(&b).as_deref(), Some("salto.t c {\n}\n"), "read through the link");
        let shown: Vec<String> =
            loaded.check(None).iter().flat_map(|r| &r.diagnostics).map(|d| d.message.clone()).collect();
        assert!(!shown.iter().any(|m| m.contains("PRIVATE")), "{shown:#?}");
    }

    #[test]
    fn a_check_once_reports_what_a_memoized_check_does() {
        let mut loaded = LoadedWorkspace::empty(Path::new("/nowhere"));
        let files = [
            ("/nowhere/a.nacl", "type salto.t {\n  number n {\n    _required = true\n  }\n}\n"),
            (
                "/nowhere/b.nacl",
                "salto.t b {\n  n = \"x\"\n  m = salto.t.instance.c.gone\n}\nsalto.t c {\n  n = 2\n}\n",
            ),
            ("/nowhere/c.nacl", "salto.t c {\n  n = 1,\n}\n"),
            ("/nowhere/d.tf", "a = \n"),
            // References past their element: a cycle, one that resolves, one that does not.
            (
                "/nowhere/e.nacl",
                "salto.t e {\n  n = 3\n  x = salto.t.instance.e.y\n  y = salto.t.instance.e.x\n  z = salto.t.instance.b.n\n  w = salto.t.instance.b.v\n}\n",
            ),
        ];
        for (path, text) in files {
            loaded.set_disk_text(Path::new(path), Text::from(text));
        }
        let shown = |reports: Vec<FileReport>| -> Vec<String> {
            let each = |r: &FileReport| {
                r.diagnostics
                    .iter()
                    .map(|d| format!("{} {:?} {}", r.path.display(), d.range, d.message))
                    .collect::<Vec<_>>()
            };
            reports.iter().flat_map(each).collect()
        };
        let once = shown(loaded.check_once_with_progress(None, &|_, _| {}));
        assert!(once.len() >= 9, "{once:#?}");
        assert!(once.iter().filter(|m| m.contains("circular reference")).count() == 2, "{once:#?}");
        assert!(once.iter().any(|m| m.contains("`salto.t.instance.b.v` does not exist")), "{once:#?}");
        assert_eq!(shown(loaded.check(None)), once);
    }

    #[test]
    fn a_check_reports_in_path_order_with_an_unsaved_buffer_after_the_files() {
        let (root, _, _scratch) = crate::cache::tests::workspace("report-order");
        std::fs::create_dir_all(root.join("salto.config")).expect("create");
        for name in ["b", "d"] {
            std::fs::write(root.join(format!("{name}.nacl")), format!("salto.{name} {{\n}}\n")).expect("write");
        }
        let mut loaded = load(&root, None);
        // An HCL buffer with no file on disk: the workspace's unsaved buffers come after its files.
        loaded.set_file_text(&root.join("a.hcl"), Text::from("x = 1\n"));
        let paths: Vec<PathBuf> = loaded.check(None).into_iter().map(|report| report.path).collect();
        assert_eq!(paths, ["a.hcl", "b.nacl", "d.nacl"].map(|name| root.join(name)));
    }

    #[test]
    fn an_element_set_in_many_files_points_each_to_a_bounded_number_of_others() {
        let mut loaded = LoadedWorkspace::empty(Path::new("/nowhere"));
        let paths: Vec<PathBuf> = (0..40).map(|i| PathBuf::from(format!("/nowhere/f{i:02}.nacl"))).collect();
        for path in &paths {
            loaded.set_file_text(path, Text::from("salto.t x {\n  a = 1\n}\n"));
        }
        let file = loaded.file(&paths[0]).expect("a file");
        let diagnostics = loaded.file_diagnostics(file);
        let conflict = diagnostics.iter().find(|d| d.message.contains("40 fragments")).expect("the conflict");
        assert_eq!(conflict.related.len(), crate::diagnostics::MAX_RELATED);
    }

    #[test]
    fn progress_counted_on_all_cores_is_reported_in_order_up_to_the_total() {
        let reports = std::sync::Mutex::new(Vec::new());
        let report = |done, total| reports.lock().expect("reports").push((done, total));
        let counter = ProgressCounter::new(10_000, &report);
        // Half counted in batches, half one by one, as the load and the check count.
        (0..5_000).into_par_iter().map_init(|| counter.batch(), |batch, _| batch.finished_one()).for_each(drop);
        (0..5_000).into_par_iter().for_each(|_| counter.finished_one());
        let reports = reports.into_inner().expect("reports");
        assert!(reports.windows(2).all(|pair| pair[0].0 < pair[1].0), "{reports:?}");
        assert_eq!(reports.last(), Some(&(10_000, 10_000)));
        assert!((50..=101).contains(&reports.len()), "{} reports", reports.len());
    }

    /// The last revision in which an input at the durability of files on disk changed: each one
    /// makes salsa check the results of every file again.
    fn disk_revision(loaded: &LoadedWorkspace) -> salsa::Revision {
        use salsa::plumbing::ZalsaDatabase;
        loaded.db.zalsa().last_changed_revision(ON_DISK)
    }

    #[test]
    fn an_hcl_buffer_with_no_file_comes_and_goes_without_a_write_at_disk_durability() {
        let mut loaded = LoadedWorkspace::empty(Path::new("/nowhere"));
        let (nacl, hcl) = (Path::new("/nowhere/a.nacl"), Path::new("/nowhere/b.hcl"));
        loaded.set_disk_text(nacl, Text::from("salto.t a {\n}\n"));
        let on_disk = disk_revision(&loaded);
        let reported = |l: &LoadedWorkspace| l.check(None).iter().any(|r| r.path == hcl && !r.diagnostics.is_empty());
        loaded.set_file_text(hcl, Text::from("x = \n"));
        assert_eq!(loaded.file(hcl).map(|f| f.language(&loaded.db)), Some(Language::Hcl));
        assert!(reported(&loaded), "an unsaved buffer is checked");
        loaded.set_file_text(hcl, Text::from("x = 1\n"));
        assert!(!reported(&loaded));
        loaded.remove_file(hcl);
        assert!(loaded.file(hcl).is_none());
        assert_eq!(disk_revision(&loaded), on_disk, "opened, edited and closed");
        assert_eq!(loaded.workspace.files(&loaded.db).len(), 1);
        // Saved, it joins the files; a NaCl buffer with no file joins them at once.
        loaded.set_file_text(hcl, Text::from("x = 1\n"));
        loaded.set_disk_text(hcl, Text::from("x = 1\n"));
        assert!(loaded.workspace.unsaved(&loaded.db).is_empty() && loaded.file(hcl).is_some());
        loaded.set_file_text(Path::new("/nowhere/c.nacl"), Text::from("salto.t c {\n}\n"));
        assert_eq!(loaded.workspace.files(&loaded.db).len(), 3);
    }

    #[test]
    fn reports_are_served_only_for_their_fingerprint_and_with_places_inside_their_files() {
        let (root, folder, _scratch) = crate::cache::tests::workspace("served");
        let mut loaded = LoadedWorkspace::empty(&root);
        let path = root.join("a.nacl");
        loaded.set_file_text(&path, Text::from("salto.t é {\n}\n"));
        let diagnostic = |start: u32, end: u32| Diagnostic {
            code: AnalysisCode::DuplicateValue.code(),
            range: nacl_syntax::TextRange::new(start.into(), end.into()),
            message: "stored".to_owned(),
            related: Vec::new(),
        };
        let serve = |loaded: &LoadedWorkspace, fingerprint: u64, stored: Diagnostic| {
            let files = [(path.as_path(), std::slice::from_ref(&stored))];
            crate::cache::reports::save(&folder, &root, fingerprint, files.into_iter(), &[]).expect("save");
            let read = crate::cache::CacheFile::of(&folder, &root)
                .and_then(|file| crate::cache::reports::Reports::load(&file, &root))
                .map(|r| Arc::new(ReadReports::new(r)));
            loaded.reports.lock().expect("lock").read = read;
            loaded.check(None).iter().flat_map(|r| &r.diagnostics).any(|d| d.message == "stored")
        };
        let fingerprint = loaded.fingerprint();
        assert!(serve(&loaded, fingerprint, diagnostic(0, 7)));
        // Another fingerprint, a place past the end, a place inside `é`: computed, not served.
        assert!(!serve(&loaded, fingerprint ^ 1, diagnostic(0, 7)));
        assert!(!serve(&loaded, fingerprint, diagnostic(0, 99)));
        assert!(!serve(&loaded, fingerprint, diagnostic(9, 10)));
        // An edit changes the fingerprint: what was served before is not served after it.
        assert!(serve(&loaded, fingerprint, diagnostic(0, 7)));
        loaded.set_file_text(&path, Text::from("salto.t e {\n}\n"));
        assert!(!serve(&loaded, fingerprint, diagnostic(0, 7)));
        let _ = std::fs::remove_dir_all(folder.parent().expect("base"));
    }

    #[test]
    fn a_text_set_after_loading_is_hashed_again_for_the_fingerprint() {
        let (root, _, _scratch) = crate::cache::tests::workspace("hashes");
        std::fs::create_dir_all(root.join("salto.config")).expect("create");
        let (path, before, after) = (root.join("a.nacl"), "salto.t a {\n}\n", "salto.t b {\n}\n");
        std::fs::write(&path, before).expect("write");
        let unchanged = load(&root, None).fingerprint();
        // The same text in another buffer: hashed again, to the same hash.
        let mut same = load(&root, None);
        same.set_disk_text(&path, Text::from(before));
        assert_eq!(same.fingerprint(), unchanged);
        // Another text set before the first fingerprint: not the hash read with the file.
        let mut edited = load(&root, None);
        edited.set_disk_text(&path, Text::from(after));
        std::fs::write(&path, after).expect("write");
        let fingerprint = edited.fingerprint();
        assert_ne!(fingerprint, unchanged);
        assert_eq!(fingerprint, load(&root, None).fingerprint());
    }

    #[test]
    fn the_fingerprint_does_not_depend_on_the_order_files_entered_the_database() {
        // Enough files for several parts: which part a file is dealt into follows the order
        // files entered the database, and a file added after loading comes last.
        let (root, _, _scratch) = crate::cache::tests::workspace("parts");
        std::fs::create_dir_all(root.join("salto.config")).expect("create");
        let count = 4 * crate::db::INDEX_PART;
        let path = |i: usize| root.join(format!("f{i:05}.nacl"));
        for i in 0..count {
            std::fs::write(path(i), format!("salto.t{i} {{\n}}\n")).expect("write");
        }
        let whole = load(&root, None);
        assert!(whole.parts().len() > 1, "one part only");
        let added = count / 2;
        std::fs::remove_file(path(added)).expect("remove");
        let mut later = load(&root, None);
        let before = later.fingerprint();
        later.set_disk_text(&path(added), Text::from(format!("salto.t{added} {{\n}}\n")));
        assert_ne!(later.fingerprint(), before);
        assert_eq!(later.fingerprint(), whole.fingerprint());
        let _ = std::fs::remove_dir_all(root.parent().expect("base"));
    }

    #[test]
    fn par_map_keeps_the_order_of_its_items() {
        let loaded = LoadedWorkspace::empty(Path::new("/nowhere"));
        let items: Vec<usize> = (0..10_000).collect();
        assert_eq!(loaded.par_map(&items, |_, &i| i * 2), items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn a_panic_in_par_map_stops_the_work_and_is_resumed_once() {
        let loaded = LoadedWorkspace::empty(Path::new("/nowhere"));
        let items: Vec<usize> = (0..100_000).collect();
        let ran = AtomicUsize::new(0);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            loaded.par_map(&items, |_, &i| {
                ran.fetch_add(1, Ordering::Relaxed);
                if i == 10 {
                    std::panic::resume_unwind(Box::new("stop here"));
                }
                std::thread::sleep(std::time::Duration::from_micros(20));
            })
        }));
        let payload = caught.expect_err("the panic reaches the caller");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"stop here"));
        // Items not started when the panic happened are skipped (at 20 µs an item, running them
        // all would take a second on two cores).
        assert!(ran.load(Ordering::Relaxed) < items.len() / 2, "{} items ran", ran.load(Ordering::Relaxed));
    }
}
