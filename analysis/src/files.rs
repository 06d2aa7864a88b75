//! Finding `.nacl` files on disk and reading them safely. Every read of the disk goes through
//! [`open_regular`]: only regular files (after following links), never blocking on a FIFO or a
//! device, and never more than a size cap.

use crate::{codes::AnalysisCode, fragments::Text};
use nacl_syntax::{SyntaxError, TextRange, TextSize};
use rayon::prelude::*;
use std::{
    fs::File,
    io::{self, Read},
    path::{Path, PathBuf},
    sync::atomic::{AtomicBool, AtomicUsize, Ordering},
};

/// The largest file nacl-ls reads. Larger files get one clear error instead of being analysed.
pub const MAX_FILE_SIZE: u64 = 128 << 20;

/// The largest configuration file nacl-ls reads (`salto.config/envs.nacl`, `.nacl-ls.toml`).
pub const MAX_CONFIG_SIZE: u64 = 16 << 20;

/// The most files and folders one walk visits: a workspace folder of `/` or of a home folder
/// stops there instead of walking the whole disk.
pub const MAX_WALKED: usize = 2_000_000;

/// The most NaCl files one workspace holds (the largest real ones hold under 40,000).
pub const MAX_FILES: usize = 1_000_000;

/// The variable that, with `NACL_LS_TEST_HOOKS=1`, lowers [`MAX_FILES`] so that tests can reach the
/// limit end to end without a million files.
pub const TEST_MAX_FILES_ENV: &str = "NACL_LS_TEST_MAX_FILES";

/// [`MAX_FILES`], or the lower limit a test sets (see [`TEST_MAX_FILES_ENV`]).
fn max_files() -> usize {
    let testing = std::env::var("NACL_LS_TEST_HOOKS").is_ok_and(|v| v == "1");
    let lowered = std::env::var(TEST_MAX_FILES_ENV).ok().and_then(|v| v.parse().ok());
    if testing { lowered.unwrap_or(MAX_FILES).min(MAX_FILES) } else { MAX_FILES }
}

/// Opens `path` for reading if it is a regular file (links are followed) of at most `max`
/// bytes, and returns it with its size. FIFOs, sockets and devices are refused without
/// blocking: the file is opened non-blocking and checked on the open handle, so a name swapped
/// for a FIFO after a check cannot hang the reader either.
pub fn open_regular(path: &Path, max: u64) -> io::Result<(File, u64)> {
    open_regular_with_metadata(path, max).map(|(file, meta)| (file, meta.len()))
}

/// [`open_regular`], with the metadata of the file opened.
fn open_regular_with_metadata(path: &Path, max: u64) -> io::Result<(File, std::fs::Metadata)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "it is not a regular file"));
    }
    if meta.len() > max {
        return Err(too_large(meta.len(), max));
    }
    Ok((file, meta))
}

/// The error for a file over a size cap.
fn too_large(size: u64, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("it is {} MiB; nacl-ls reads files of up to {} MiB", size.div_ceil(1 << 20), max >> 20),
    )
}

/// Reads a whole regular file of at most `max` bytes (see [`open_regular`]); a file that grows
/// past the cap while it is read is refused too.
pub fn read_regular(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let (file, size) = open_regular(path, max)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64, max));
    }
    Ok(bytes)
}

/// Opens a regular file for reading and writing in place, not following a link at its last
/// component (resolve links first with [`std::fs::canonicalize`] to update a link's target),
/// and never blocking on a FIFO or a device.
pub fn open_for_update(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "it is not a regular file"));
    }
    Ok(file)
}

/// Whether `path` names a file nacl-ls analyses (NaCl, HCL or ARMLang), which an HCL file in a
/// Salto workspace's static-resources folder is not: it is an opaque resource there.
pub fn is_analysed_file(path: &Path) -> bool {
    use crate::language::Language;
    match Language::of_path(path) {
        Some(Language::Hcl) => !crate::layout::is_static_resource(path),
        Some(Language::Nacl | Language::Arm) => true,
        None => false,
    }
}

/// A path given on the command line that could not be searched.
#[derive(Debug)]
pub struct DiscoveryError {
    /// The path.
    pub path: PathBuf,
    /// Why it could not be searched.
    pub error: io::Error,
}

/// Every NaCl and HCL file under `roots` (files given directly are kept whatever their name),
/// sorted and without duplicates. Hidden folders (`.git`, ...) and `node_modules` are skipped.
/// Symbolic links are followed only while they stay inside the root they were found under (a
/// file given directly: its workspace); a link that leaves it, dangles or loops is reported and
/// not followed, and a file reached both directly and through a link is listed once.
pub fn discover(roots: &[PathBuf]) -> (Vec<PathBuf>, Vec<DiscoveryError>) {
    let (files, errors) = discover_files(roots, false);
    (files.into_iter().map(|file| file.path).collect(), errors)
}

/// A file a walk found, with its [`Stamp`] when the walk was asked for stamps and found it
/// in a folder's listing (a file reached through a link, or given by name, has none:
/// [`discover_files`]).
#[derive(Debug)]
pub struct FoundFile {
    /// Its path, as found.
    pub path: PathBuf,
    /// Its stamp as the walk saw it.
    pub stamp: Option<Stamp>,
}

impl AsRef<Path> for FoundFile {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

/// [`discover`], as the files found; with `stamped`, each file listed in a folder gets its
/// [`Stamp`] as the folder is listed: a `stat` by the folder's handle looks up one name, where a
/// `stat` of the file's path looks up every folder on the way (the stamps of a large
/// workspace's unchanged files are much of the time a load from the persistent cache takes).
pub fn discover_files(roots: &[PathBuf], stamped: bool) -> (Vec<FoundFile>, Vec<DiscoveryError>) {
    let mut found = Found::new(is_analysed_file);
    found.stamped = stamped;
    for root in roots {
        match std::fs::metadata(root) {
            Ok(meta) if meta.is_file() => {
                let folder = root.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                let boundary = std::fs::canonicalize(crate::layout::find_root(folder));
                match (std::fs::canonicalize(root), boundary) {
                    (Ok(target), Ok(boundary)) if target.starts_with(&boundary) => found.add(root.clone(), target),
                    (Ok(target), Ok(_)) => found.errors.push(outside(root, &target)),
                    (Err(error), _) | (_, Err(error)) => {
                        found.errors.push(DiscoveryError { path: root.clone(), error })
                    }
                }
            }
            Ok(meta) if !meta.is_dir() => found.errors.push(DiscoveryError {
                path: root.clone(),
                error: io::Error::new(io::ErrorKind::InvalidInput, "it is neither a regular file nor a folder"),
            }),
            Ok(_) => match std::fs::canonicalize(root) {
                Ok(boundary) => found.walk(root, &boundary.clone(), &boundary),
                Err(error) => found.errors.push(DiscoveryError { path: root.clone(), error }),
            },
            Err(error) => found.errors.push(DiscoveryError { path: root.clone(), error }),
        }
    }
    found.finish()
}

/// Every file at or under `paths` (files, or folders walked; paths that do not exist are
/// skipped), sorted, for the static files of a workspace whose real root is `boundary`: links
/// are followed while they stay inside it. Also returns the paths refused, with why (a link out
/// of the workspace, a FIFO).
pub fn walk_static(paths: &[PathBuf], boundary: &Path) -> (Vec<PathBuf>, Vec<DiscoveryError>) {
    let mut found = Found::new(|_| true);
    for path in paths {
        let Ok(meta) = std::fs::symlink_metadata(path) else { continue };
        if meta.is_file() {
            found.add(path.clone(), path.clone());
            continue;
        }
        if !meta.is_dir() && !meta.file_type().is_symlink() {
            found.errors.push(not_regular(path));
            continue;
        }
        match std::fs::canonicalize(path) {
            Ok(real) if !real.starts_with(boundary) => found.errors.push(outside(path, &real)),
            Ok(real) if real.is_dir() => found.walk(path, &real, boundary),
            Ok(real) if real.is_file() => found.add(path.clone(), real),
            Ok(_) => found.errors.push(not_regular(path)),
            Err(error) => found.errors.push(DiscoveryError { path: path.clone(), error }),
        }
    }
    let (files, errors) = found.finish();
    (files.into_iter().map(|file| file.path).collect(), errors)
}

/// The error for a FIFO, socket or device where a file was expected.
fn not_regular(path: &Path) -> DiscoveryError {
    DiscoveryError {
        path: path.to_path_buf(),
        error: io::Error::new(io::ErrorKind::InvalidInput, "it is not a regular file"),
    }
}

/// Whether `path`, every link on its way followed, is a place inside `boundary` (a workspace
/// folder's real path): the rule by which the walk follows links, for a path it did not list (one
/// a file watcher or an editor names after the workspace loaded).
pub fn resolves_inside(path: &Path, boundary: &Path) -> bool {
    std::fs::canonicalize(path).is_ok_and(|real| real.starts_with(boundary))
}

/// The error for a link that leads out of the workspace.
fn outside(link: &Path, target: &Path) -> DiscoveryError {
    DiscoveryError {
        path: link.to_path_buf(),
        error: io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is a link to {}, outside the workspace: not followed", target.display()),
        ),
    }
}

/// What a walk has found so far: the wanted files with their real paths, problems, and the
/// real folders already walked (so links cannot loop).
struct Found {
    wanted: fn(&Path) -> bool,
    /// Whether files found in folders' listings get their [`Stamp`].
    stamped: bool,
    /// Files and folders visited so far; past [`MAX_WALKED`] (or [`MAX_FILES`] files found) the
    /// walk stops, with one error saying so.
    visited: usize,
    stopped: bool,
    max_walked: usize,
    max_files: usize,
    /// Each file found, as it was found (a file reached twice through links is in here twice
    /// until [`Found::finish`]).
    files: Vec<FoundFile>,
    /// Where the files really are: each run of them, from its first file's place in `files` to
    /// the next run's.
    runs: Vec<(usize, Real)>,
    errors: Vec<DiscoveryError>,
    walked: std::collections::HashSet<PathBuf>,
}

impl Found {
    fn new(wanted: fn(&Path) -> bool) -> Found {
        Found {
            wanted,
            stamped: false,
            visited: 0,
            stopped: false,
            max_walked: MAX_WALKED,
            max_files: max_files(),
            files: Default::default(),
            errors: Vec::new(),
            walked: Default::default(),
            runs: Vec::new(),
        }
    }

    /// The files found, each once (as first found), sorted, and the problems met.
    fn finish(self) -> (Vec<FoundFile>, Vec<DiscoveryError>) {
        let Found { files, runs, errors, .. } = self;
        // One folder's walk, no link followed: no file can have been reached twice, and its
        // listing is in path order.
        if runs.len() <= 1 {
            return (files, errors);
        }
        let mut seen: std::collections::HashSet<std::ffi::OsString, crate::hashing::NameHasher> =
            std::collections::HashSet::with_capacity_and_hasher(files.len(), Default::default());
        let ends: Vec<usize> = runs.iter().skip(1).map(|(start, _)| *start).chain([files.len()]).collect();
        let mut found = files.into_iter();
        let mut files = Vec::with_capacity(found.len());
        for ((start, real), end) in runs.into_iter().zip(ends) {
            for file in found.by_ref().take(end - start) {
                let real = match &real {
                    Real::Own(real) => real.clone(),
                    Real::Under { dir, real } => {
                        strip_base(&file.path, dir).map_or_else(|| file.path.clone(), |r| real.join(r))
                    }
                };
                if seen.insert(real.into_os_string()) {
                    files.push(file);
                }
            }
        }
        files.par_sort_by_cached_key(|file| path_key(&file.path));
        (files, errors)
    }

    /// Adds a file not found in a folder's listing (given by name, or reached through a link).
    fn add(&mut self, path: PathBuf, real: PathBuf) {
        self.runs.push((self.files.len(), Real::Own(real)));
        self.files.push(FoundFile { path, stamp: None });
    }

    /// Walks `dir`, whose real path is `real`, following links that stay inside `boundary`.
    /// Folders are listed on all cores; links are followed afterwards, in path order.
    fn walk(&mut self, dir: &Path, real: &Path, boundary: &Path) {
        if self.stopped || !self.walked.insert(real.to_path_buf()) {
            return;
        }
        let limits = Limits {
            visited: AtomicUsize::new(self.visited),
            files: AtomicUsize::new(self.files.len()),
            max_walked: self.max_walked,
            max_files: self.max_files,
            stopped: AtomicBool::new(false),
        };
        let Listing { files, mut links, errors } = list(dir, self.wanted, self.stamped, &limits);
        self.visited = limits.visited.into_inner();
        if !files.is_empty() {
            self.runs.push((self.files.len(), Real::Under { dir: dir.to_path_buf(), real: real.to_path_buf() }));
            self.files.reserve(files.iter().map(Vec::len).sum());
            self.files.extend(files.into_iter().flatten());
        }
        self.errors.extend(errors);
        if limits.stopped.into_inner() {
            let what = if self.files.len() >= self.max_files {
                format!("{} NaCl files", self.max_files)
            } else {
                format!("{} files and folders", self.max_walked)
            };
            self.errors.push(DiscoveryError {
                path: dir.to_path_buf(),
                error: io::Error::new(
                    io::ErrorKind::QuotaExceeded,
                    format!("nacl-ls stopped looking for files after {what} here: open the workspace's own folder, not one above it"),
                ),
            });
            self.stopped = true;
            return;
        }
        // Links in path order, so that of two ways to one file or folder the first in that
        // order is the one kept, whatever the folders' own order.
        links.sort_by_cached_key(|path| path_key(path));
        for link in links {
            if self.stopped {
                return;
            }
            let target = match std::fs::canonicalize(&link) {
                Ok(target) => target,
                // A dangling link to something not wanted is nobody's concern.
                Err(_) if !(self.wanted)(&link) => continue,
                Err(error) => {
                    self.errors.push(DiscoveryError { path: link, error });
                    continue;
                }
            };
            let is_dir = target.is_dir();
            if !is_dir && !(self.wanted)(&link) {
                continue;
            }
            if !target.starts_with(boundary) {
                self.errors.push(outside(&link, &target));
            } else if is_dir {
                self.walk(&link, &target, boundary);
            } else if !target.is_file() {
                self.errors.push(not_regular(&link));
            } else {
                self.add(link, target);
            }
        }
    }
}

/// Where a run of the files a walk found really are (for telling a file reached twice from two
/// files).
enum Real {
    /// The files were listed under the folder `dir`, whose real path is `real`: each one's path
    /// relative to `dir`, under `real`.
    Under { dir: PathBuf, real: PathBuf },
    /// One file, reached through a link or given by name: this path.
    Own(PathBuf),
}

/// How far walks may go, shared by the threads listing folders.
struct Limits {
    /// Files and folders visited so far.
    visited: AtomicUsize,
    /// Wanted files found so far.
    files: AtomicUsize,
    max_walked: usize,
    max_files: usize,
    /// Set once a limit is reached: the walk stops.
    stopped: AtomicBool,
}

impl Limits {
    /// Counts one more file or folder visited; whether the walk may go on.
    fn visit(&self) -> bool {
        if self.stopped.load(Ordering::Relaxed) {
            return false;
        }
        let visited = self.visited.fetch_add(1, Ordering::Relaxed) + 1;
        if visited > self.max_walked || self.files.load(Ordering::Relaxed) >= self.max_files {
            self.stopped.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }
}

/// What a folder and the folders under it hold, links not followed.
#[derive(Default)]
struct Listing {
    /// Wanted regular files, in path order ([`path_key`]), in runs: each folder's own files
    /// between the runs of the folders in it, in the order of their names. Listings are put
    /// together by moving runs, not files, and the files need no sort.
    files: Vec<Vec<FoundFile>>,
    /// Links (to be followed, or not, afterwards).
    links: Vec<PathBuf>,
    errors: Vec<DiscoveryError>,
}

/// A wanted file or a folder to walk, as a folder's listing names it.
enum Listed {
    File(FoundFile),
    Folder(PathBuf),
}

impl Listed {
    /// Its path's bytes: within one folder, their order is the order of its files' paths and
    /// of the paths under its folders ([`path_key`]: a name is followed by a separator or
    /// nothing, both before any byte of a longer name).
    fn key(&self) -> &[u8] {
        match self {
            Listed::File(file) => file.path.as_os_str().as_encoded_bytes(),
            Listed::Folder(path) => path.as_os_str().as_encoded_bytes(),
        }
    }
}

/// Lists `dir` and, on all cores, the folders under it, except hidden ones and `node_modules`
/// ([`is_skipped_dir`]); wanted files that are not regular are errors. With `stamped`, each
/// wanted file gets its [`Stamp`], taken by the folder's handle (not following links: a file
/// replaced by a link since the listing gets none).
fn list(dir: &Path, wanted: fn(&Path) -> bool, stamped: bool, limits: &Limits) -> Listing {
    let mut listing = Listing::default();
    if !limits.visit() {
        return listing;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            listing.errors.push(DiscoveryError { path: dir.to_path_buf(), error });
            return listing;
        }
    };
    let mut listed = Vec::new();
    for entry in entries {
        let (entry, kind) = match entry.and_then(|entry| entry.file_type().map(|kind| (entry, kind))) {
            Ok(entry) => entry,
            Err(error) => {
                listing.errors.push(DiscoveryError { path: dir.to_path_buf(), error });
                continue;
            }
        };
        let path = joined(dir, &entry.file_name());
        if kind.is_dir() {
            if !path.file_name().is_some_and(is_skipped_dir) {
                listed.push(Listed::Folder(path));
            }
            continue;
        }
        // Past a limit, the walk keeps what it found and stops (the folders below list nothing).
        if !limits.visit() {
            break;
        }
        if kind.is_symlink() {
            listing.links.push(path);
        } else if wanted(&path) {
            if kind.is_file() {
                limits.files.fetch_add(1, Ordering::Relaxed);
                let stamp = stamped.then(|| entry.metadata().ok().and_then(|m| Stamp::of_metadata(&m))).flatten();
                listed.push(Listed::File(FoundFile { path, stamp }));
            } else {
                listing.errors.push(not_regular(&path));
            }
        }
    }
    listed.sort_unstable_by(|a, b| a.key().cmp(b.key()));
    let folders: Vec<&Path> = listed
        .iter()
        .filter_map(|item| match item {
            Listed::Folder(path) => Some(path.as_path()),
            Listed::File(_) => None,
        })
        .collect();
    let mut below =
        folders.par_iter().map(|folder| list(folder, wanted, stamped, limits)).collect::<Vec<_>>().into_iter();
    let mut run = Vec::new();
    for item in listed {
        match item {
            Listed::File(file) => run.push(file),
            Listed::Folder(_) => {
                let Some(more) = below.next() else { break };
                if !run.is_empty() {
                    listing.files.push(std::mem::take(&mut run));
                }
                listing.files.extend(more.files);
                listing.links.extend(more.links);
                listing.errors.extend(more.errors);
            }
        }
    }
    if !run.is_empty() {
        listing.files.push(run);
    }
    listing
}

/// `dir` joined with `name`, in an allocation of its length: a workspace keeps every file's
/// path for as long as it is loaded, and [`Path::join`] leaves room for up to twice a path's
/// length (an allocator may not return what a shrink frees).
fn joined(dir: &Path, name: &std::ffi::OsStr) -> PathBuf {
    let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    path.push(dir);
    path.push(name);
    path
}

/// `path` relative to `base`, like [`Path::strip_prefix`], found by comparing text first: the
/// paths a walk finds start with their folder's own spelling, and [`Path::strip_prefix`] splits
/// both paths into components (for every file of a workspace, a few times each). Where `path`
/// is not `base`'s text then `/` and a name, [`Path::strip_prefix`] answers.
pub(crate) fn strip_base<'a>(path: &'a Path, base: &Path) -> Option<&'a Path> {
    if let (Some(text), Some(prefix)) = (path.to_str(), base.to_str())
        && !prefix.is_empty()
        && let Some(rest) = text.strip_prefix(prefix)
    {
        if rest.is_empty() {
            return Some(Path::new(""));
        }
        // What follows one separator, unless a path would skip it (another separator, or a
        // leading `.` component).
        if let Some(after) = rest.strip_prefix('/')
            && !prefix.ends_with('/')
            && !after.starts_with('/')
            && after != "."
            && !after.starts_with("./")
        {
            return Some(Path::new(after));
        }
    }
    path.strip_prefix(base).ok()
}

/// A key whose byte order is the order of [`Path`]s (component by component) for paths without
/// `.` components or doubled separators, such as a walk finds: the path's bytes with each
/// separator made a NUL byte, which no name holds. Where two paths differ, the end of one comes
/// first, then a separator, then any other byte, as [`Path`]'s comparison has it; but comparing
/// keys is one `memcmp`, where [`Path`]'s comparison splits both paths into components (sorting
/// a walk's paths that way took about a twentieth of a check).
fn path_key(path: &Path) -> Vec<u8> {
    let bytes = path.as_os_str().as_encoded_bytes();
    bytes.iter().map(|&byte| if std::path::is_separator(char::from(byte)) { 0 } else { byte }).collect()
}

/// The order of two paths' bytes that [`path_key`] gives them, without making the keys:
/// their first difference decides, a separator coming before any other byte, and the end
/// of a path before both.
pub(crate) fn path_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let key =
        |path: &[u8]| path.get(common).map(|&byte| if std::path::is_separator(char::from(byte)) { 0 } else { byte });
    key(a).cmp(&key(b))
}

fn is_skipped_dir(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|name| name.starts_with('.') || name == "node_modules")
}

/// A file's text as nacl-ls reads it, or why it cannot be analysed.
#[derive(Debug)]
pub struct LoadedFile {
    /// The text; invalid UTF-8 is replaced by U+FFFD so the rest can still be shown.
    pub text: String,
    /// A file-level error (unreadable, not UTF-8, too large), if any.
    pub error: Option<SyntaxError>,
}

/// Reads a file for analysis, never failing: problems become a file-level error.
pub fn load(path: &Path) -> LoadedFile {
    let start = TextSize::from(0);
    let fail =
        |code, message: String| LoadedFile { text: String::new(), error: Some(SyntaxError::at(code, start, message)) };
    match read_regular(path, MAX_FILE_SIZE) {
        Err(err) if err.kind() == io::ErrorKind::FileTooLarge => {
            fail(AnalysisCode::FileTooLarge, format!("cannot analyse the file: {err}"))
        }
        Err(err) => fail(AnalysisCode::UnreadableFile, format!("cannot read the file: {err}")),
        Ok(bytes) => decode(bytes),
    }
}

/// Reads a file for analysis straight into the [`Text`] the database keeps, without a copy;
/// never failing: as with [`load`], problems become a file-level error.
pub fn load_text(path: &Path) -> (Text, Option<SyntaxError>) {
    let (text, error, _) = load_stamped_text(path);
    (text, error)
}

/// [`load_text`], with the file's [`Stamp`] as it was opened (before it was read), when it read
/// whole.
pub fn load_stamped_text(path: &Path) -> (Text, Option<SyntaxError>, Option<Stamp>) {
    if let Some((text, meta)) = read_text(path) {
        return (text, None, Stamp::of_metadata(&meta));
    }
    // Unreadable, too large, changed while read or not UTF-8: read the common way, which says why.
    let file = load(path);
    (Text::from(file.text), file.error, None)
}

/// A regular file of at most [`MAX_FILE_SIZE`] bytes as a [`Text`], with its metadata as it was
/// opened, when it reads whole, at the size it had when opened, and is UTF-8.
fn read_text(path: &Path) -> Option<(Text, std::fs::Metadata)> {
    let (mut file, meta) = open_regular_with_metadata(path, MAX_FILE_SIZE).ok()?;
    // (An empty file is read the common way: a `Text` is never allocated empty.)
    let size = usize::try_from(meta.len()).ok().filter(|&size| size > 0)?;
    let mut read = Ok(());
    let text = arcstr::ArcStr::init_with(size, |buf| read = file.read_exact(buf)).ok()?;
    read.ok()?;
    // Nothing more: the file did not grow while it was read.
    (file.read(&mut [0; 1]).ok()? == 0).then(|| (Text::from(text), meta))
}

/// What a file's metadata say of its contents: its length, when its contents and its metadata
/// last changed, and its inode. A write changes the modification time, setting that time back
/// changes the metadata's, and a file renamed into place has another inode; so a stamp taken
/// before a file was read, and equal later, means the same contents (as git's index and
/// rsync's quick check assume), provided the file had not changed just before (see
/// [`Stamp::settled`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    /// The length in bytes.
    pub len: u64,
    /// When the contents last changed: seconds and nanoseconds since the epoch.
    modified: (i64, i64),
    /// When the metadata last changed.
    changed: (i64, i64),
    /// The inode number.
    inode: u64,
}

/// How long ago, in seconds, a file must have last changed for its stamp to be trusted: a
/// change in the same tick of the file system's clock as the one before it leaves the times as
/// they were (some file systems keep times to two seconds).
pub const SETTLED_AFTER: i64 = 3;

/// The variable that, with `NACL_LS_TEST_HOOKS=1`, sets [`SETTLED_AFTER`] (lower only), so that
/// tests need not wait for the files they write to settle.
pub const TEST_SETTLED_AFTER_ENV: &str = "NACL_LS_TEST_SETTLED_AFTER";

/// [`SETTLED_AFTER`], or the shorter time a test sets (see [`TEST_SETTLED_AFTER_ENV`]).
fn settled_after() -> i64 {
    let testing = std::env::var("NACL_LS_TEST_HOOKS").is_ok_and(|v| v == "1");
    let lowered = std::env::var(TEST_SETTLED_AFTER_ENV).ok().and_then(|v| v.parse().ok());
    if testing { lowered.unwrap_or(SETTLED_AFTER).clamp(0, SETTLED_AFTER) } else { SETTLED_AFTER }
}

impl Stamp {
    /// The stamp of the regular file at `path` (links followed; nothing is opened), or `None`
    /// for anything else, and on systems without inode numbers.
    pub fn of(path: &Path) -> Option<Stamp> {
        Stamp::of_metadata(&std::fs::metadata(path).ok()?)
    }

    /// The stamp these metadata give, for a regular file (on systems with inode numbers).
    fn of_metadata(meta: &std::fs::Metadata) -> Option<Stamp> {
        if !meta.is_file() {
            return None;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(Stamp {
                len: meta.len(),
                modified: (meta.mtime(), meta.mtime_nsec()),
                changed: (meta.ctime(), meta.ctime_nsec()),
                inode: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }

    /// The stamp itself if the file last changed (contents or metadata) at least
    /// [`SETTLED_AFTER`] seconds before `now` (seconds since the epoch), when the stamp was
    /// taken: any later change gives it another stamp. `None` otherwise: such a file is read
    /// on every load until it settles.
    pub fn settled(self, now: i64) -> Option<Stamp> {
        (self.modified.0.max(self.changed.0) <= now.saturating_sub(settled_after())).then_some(self)
    }
}

/// Now, in seconds since the epoch (for [`Stamp::settled`]).
pub fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A file's bytes as nacl-ls reads them: UTF-8, a leading byte order mark read as part of the
/// text (the lexer takes it for white space); invalid UTF-8 is an error at the first bad byte.
pub fn decode(bytes: Vec<u8>) -> LoadedFile {
    match String::from_utf8(bytes) {
        Ok(text) => LoadedFile { text, error: None },
        Err(err) => {
            let valid_up_to = err.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            let at = TextSize::from(u32::try_from(valid_up_to).unwrap_or(u32::MAX));
            let message =
                format!("the file is not valid UTF-8 (first bad byte at offset {valid_up_to}); save it as UTF-8");
            LoadedFile { text, error: Some(SyntaxError::new(AnalysisCode::InvalidUtf8, TextRange::empty(at), message)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_reported_at_the_bad_byte() {
        let dir = std::env::temp_dir().join(format!("nacl-analysis-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("bad.nacl");
        std::fs::write(&path, b"salto.t a {\n  x = \"\xff\"\n}\n").expect("write");
        let loaded = load(&path);
        let error = loaded.error.expect("an encoding error");
        assert_eq!(error.code, AnalysisCode::InvalidUtf8);
        assert_eq!(u32::from(error.range.start()), 19);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_text_read_straight_into_the_database_is_what_load_reads() {
        let dir = std::env::temp_dir().join(format!("nacl-analysis-load-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let files: [(&str, &[u8]); 4] = [
            ("good.nacl", "salto.t a {\n  x = \"é\"\n}\n".as_bytes()),
            ("empty.nacl", b""),
            ("bad.nacl", b"salto.t a {\n  x = \"\xff\"\n}\n"),
            ("cut.nacl", b"salto.t a {\n  x = \"\xc3"),
        ];
        for (name, bytes) in files {
            std::fs::write(dir.join(name), bytes).expect("write");
        }
        for name in ["good.nacl", "empty.nacl", "bad.nacl", "cut.nacl", "missing.nacl", "."] {
            let path = dir.join(name);
            let (text, error) = load_text(&path);
            let loaded = load(&path);
            assert_eq!(&*text, loaded.text, "{name}");
            assert_eq!(error.map(|e| (e.code, e.range)), loaded.error.map(|e| (e.code, e.range)), "{name}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_walk_stops_at_its_limits_with_one_error() {
        let dir = std::env::temp_dir().join(format!("nacl-analysis-limits-{}", std::process::id()));
        for sub in 0..5 {
            std::fs::create_dir_all(dir.join(format!("d{sub}"))).expect("dir");
            for file in 0..5 {
                std::fs::write(dir.join(format!("d{sub}/{file}.nacl")), "").expect("write");
            }
        }
        let real = std::fs::canonicalize(&dir).expect("real");
        for (max_walked, max_files, what) in [(10, 100, "10 files and folders"), (100, 7, "7 NaCl files")] {
            let mut found = Found::new(is_analysed_file);
            (found.max_walked, found.max_files) = (max_walked, max_files);
            found.walk(&dir, &real, &real);
            let (files, errors) = found.finish();
            assert!(files.len() <= 10, "{}", files.len());
            assert_eq!(errors.len(), 1);
            assert_eq!(errors[0].error.kind(), io::ErrorKind::QuotaExceeded);
            assert!(errors[0].error.to_string().contains(what), "{}", errors[0].error);
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// A folder's names in byte order put its files, and the files of the folders in it, in
        /// path order (`a/`, `a-`, `a.nacl` and `a.nacl/` around each other, say).
        #[test]
        fn a_walk_lists_files_in_path_order(
            paths in proptest::collection::vec(
                (proptest::collection::vec("[ab][ab.-]{0,2}", 0..3), "[ab][ab.-]{0,1}"),
                1..10,
            ),
        ) {
            static CASE: AtomicUsize = AtomicUsize::new(0);
            let case = CASE.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("nacl-analysis-order-{}-{case}", std::process::id()));
            let mut written = Vec::new();
            for (folders, name) in paths {
                let folder = folders.iter().fold(dir.clone(), |path, folder| path.join(folder));
                let file = folder.join(format!("{name}.nacl"));
                // A name taken by a file and a folder at once is skipped.
                if std::fs::create_dir_all(&folder).is_ok() && !file.is_dir() && std::fs::write(&file, "").is_ok() {
                    written.push(file);
                }
            }
            written.sort();
            written.dedup();
            let (found, errors) = discover(std::slice::from_ref(&dir));
            std::fs::remove_dir_all(&dir).ok();
            proptest::prop_assert!(errors.is_empty());
            proptest::prop_assert_eq!(found, written);
        }
    }

    proptest::proptest! {
        #[test]
        fn strip_base_is_strip_prefix(
            base in proptest::collection::vec("[a.]{1,2}|/", 0..5),
            rest in proptest::collection::vec("[a.]{1,2}|/", 0..5),
        ) {
            let base = base.concat();
            let path = format!("{base}{}", rest.concat());
            let (path, base) = (Path::new(&path), Path::new(&base));
            proptest::prop_assert_eq!(strip_base(path, base), path.strip_prefix(base).ok());
        }

        #[test]
        fn path_keys_are_in_the_order_of_paths(
            a in proptest::collection::vec("[a-c-][a-c.-]{0,2}", 1..5),
            b in proptest::collection::vec("[a-c-][a-c.-]{0,2}", 1..5),
        ) {
            let (a, b) = (format!("/w/{}", a.join("/")), format!("/w/{}", b.join("/")));
            let (a, b) = (Path::new(&a), Path::new(&b));
            proptest::prop_assert_eq!(path_key(a).cmp(&path_key(b)), a.cmp(b));
        }

        #[test]
        fn path_order_is_the_order_of_path_keys(a in "[a/.-]{0,6}", b in "[a/.-]{0,6}") {
            let (key_a, key_b) = (path_key(Path::new(&a)), path_key(Path::new(&b)));
            proptest::prop_assert_eq!(path_order(a.as_bytes(), b.as_bytes()), key_a.cmp(&key_b));
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_stamped_walk_stamps_the_files_it_lists_and_keeps_a_linked_file_once() {
        let dir = std::env::temp_dir().join(format!("nacl-analysis-stamped-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a")).expect("dir");
        std::fs::write(dir.join("a/x.nacl"), "x").expect("write");
        std::fs::write(dir.join("b.nacl"), "bb").expect("write");
        std::os::unix::fs::symlink("a", dir.join("c")).expect("link");
        std::os::unix::fs::symlink("b.nacl", dir.join("d.nacl")).expect("link");
        let (files, errors) = discover_files(std::slice::from_ref(&dir), true);
        assert!(errors.is_empty(), "{errors:?}");
        let names: Vec<_> = files.iter().map(|f| f.path.strip_prefix(&dir).expect("under dir").to_path_buf()).collect();
        assert_eq!(names, [PathBuf::from("a/x.nacl"), PathBuf::from("b.nacl")]);
        for file in &files {
            assert_eq!(file.stamp, Stamp::of(&file.path), "{}", file.path.display());
            assert!(file.stamp.is_some());
        }
        let (paths, _) = discover(std::slice::from_ref(&dir));
        assert_eq!(paths, files.iter().map(|f| f.path.clone()).collect::<Vec<_>>());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn discovery_skips_hidden_folders_and_sorts() {
        let dir = std::env::temp_dir().join(format!("nacl-analysis-discover-{}", std::process::id()));
        for sub in ["b", "a", ".git"] {
            std::fs::create_dir_all(dir.join(sub)).expect("dir");
            std::fs::write(dir.join(sub).join("x.nacl"), "").expect("write");
        }
        std::fs::write(dir.join("a/readme.md"), "").expect("write");
        let (files, errors) = discover(std::slice::from_ref(&dir));
        assert!(errors.is_empty());
        let names: Vec<_> = files.iter().map(|f| f.strip_prefix(&dir).expect("under dir").to_path_buf()).collect();
        assert_eq!(names, vec![PathBuf::from("a/x.nacl"), PathBuf::from("b/x.nacl")]);
        std::fs::remove_dir_all(&dir).ok();
    }
}
