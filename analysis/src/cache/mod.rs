//! The persistent cache: every NaCl file's own results (syntax errors and fragments) from the
//! last run, so that loading an unchanged workspace parses nothing.
//!
//! One file per workspace under the user's cache folder (`$NACL_LS_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/nacl-ls`, else `~/.cache/nacl-ls`; never inside the workspace), named by a
//! hash of the workspace's real path. A file's results are used only for a file of the same
//! path, length and content hash. A file whose metadata are those the cache saw when it read
//! it ([`files::Stamp`]: length, modification and change times, inode) is not even read when
//! the workspace loads: the cache vouches for its hash, and its text is read when first needed
//! ([`crate::file_text`]), and checked against that hash then.
//! Long text written as-is in a file is stored as its place in the file's text
//! ([`crate::fragments::stored_text`]), so the cache holds little of the workspace's text twice,
//! and the results read back share the file's text as freshly parsed ones do; a file's other
//! texts are stored in a table beside its results. A file's results are decoded only when
//! the file is found unchanged and its results are first needed ([`crate::db::file_fragments`]),
//! and the database frees the cache once every file's results are computed. The reports of the
//! last check of the whole workspace are kept beside it ([`reports`]).
//!
//! A cache file holds every file's results, then an index of the files (each one's path, text
//! length and hash, stamp, and where its results are, with their checksum), then the index's
//! length and checksum. A load reads the index alone; the results are read, all at once, when
//! the first of them is decoded (a check of an unchanged workspace decodes none: its reports
//! are kept beside the cache).
//!
//! Nothing in a cache file is trusted: it is read only if it is a regular file under a size cap,
//! starts with this format's magic and the running build's identity, and its index matches its
//! checksum; a file's results are used only if they match theirs (checked as they are decoded,
//! so a cache changed after it was loaded is caught too) and every text and range they hold
//! lies in the file's text, on character boundaries;
//! anything else (a half-written, corrupt, foreign or planted file) is ignored as if absent. A
//! cache is written to a new temporary file and renamed over the old one, so readers never see
//! half a cache and a link planted at its name is replaced, not followed.

pub mod reports;

use crate::{
    db::FileFragments,
    files,
    fragments::{Fragment, TemplatePart, Text, Value, ValueKind, stored_text},
};
use nacl_syntax::{SyntaxError, TextRange, nacl::ErrorCode};
use rayon::prelude::*;
use std::{
    io::{self, Read, Seek, Write},
    path::{Path, PathBuf},
};

/// The first bytes of a cache file.
const MAGIC: &[u8; 8] = b"naclls\x00\x02";
/// What wrote a cache: results of another version may differ, so its caches are not read.
const VERSION: &str = concat!(env!("CARGO_PKG_NAME"), " ", env!("CARGO_PKG_VERSION"), " cache 6");

/// The version and the build of the program running: a cache written by another build (whose
/// results may be computed differently) is not read.
fn writer() -> &'static str {
    static WRITER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    WRITER.get_or_init(|| {
        let build = std::env::current_exe().and_then(std::fs::metadata).map(|m| {
            let modified = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            format!("{} bytes, built {}", m.len(), modified.map_or(0, |d| d.as_nanos()))
        });
        format!("{VERSION} ({})", build.unwrap_or_default())
    })
}
/// How many files one chunk holds (chunks are encoded and decoded in parallel).
const CHUNK: usize = 256;
/// The most bytes a file's header in the index takes beside its path's bytes: eleven integers
/// (the path's length, the text's length and hash, the results' place, size and checksum, and
/// the stamp's six) as postcard's variable-length integers of at most ten bytes each, and the
/// tag of the optional stamp. Reserved, not written: the unused rest is never touched.
const HEADER_FIELDS: usize = 11 * 10 + 1;
/// The largest cache file read (a workspace is at most 2 GiB of text).
const MAX_CACHE_BYTES: u64 = 8 << 30;
/// How many workspaces' caches the cache folder keeps; the least recently written go first.
const MAX_CACHES: usize = 32;

/// A syntax error as stored: its code by name.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredError<'a> {
    code: &'a str,
    range: TextRange,
    #[serde(borrow)]
    message: std::borrow::Cow<'a, str>,
}

/// What the index of a cache holds of a file.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredHeader<'a> {
    /// The path relative to the workspace's root.
    path: &'a str,
    /// The text's length and hash.
    len: u64,
    hash: u64,
    /// The file's metadata before it was read, when they can vouch for this text.
    stamp: Option<files::Stamp>,
    /// Where its results (its table of texts, then its stored results) are among the cache's
    /// results, and their length and checksum.
    at: u64,
    size: u64,
    check: u64,
}

/// One file's results as stored (written from borrowed results, read into owned ones, with
/// [`stored_text::writing`] and [`stored_text::reading`] set to the file's text). They follow
/// the table of texts they refer to.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredResults<'a> {
    #[serde(borrow)]
    errors: Vec<StoredError<'a>>,
    fragments: std::borrow::Cow<'a, [Fragment]>,
}

/// The cached results of one workspace: the cache file's index, and its results once the
/// first of them is decoded.
#[derive(Default)]
pub struct Cache {
    root: PathBuf,
    /// The index's bytes (the entries' paths are in them).
    index: Vec<u8>,
    /// Each file's entry, in the order of their paths (relative to the workspace's root) as a
    /// walk sorts them ([`files::path_order`]): the order they are written in.
    files: Vec<Entry>,
    /// The cache file, open, and where its results are in it: read when first needed.
    results: Option<StoredResultsPart>,
    /// Set when a file's results, found for its text, cannot be used as they are decoded
    /// (damaged since they were written): the cache is to be written again. Shared with the
    /// workspace ([`Cache::stale_flag`]), which may hold it after the cache is freed.
    stale: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// The results of a cache file: where they are in the open file, and their bytes once read
/// (`None` when they could not be).
struct StoredResultsPart {
    file: std::fs::File,
    start: u64,
    len: usize,
    bytes: std::sync::OnceLock<Option<Vec<u8>>>,
}

impl StoredResultsPart {
    /// The results' bytes, read on the first call.
    fn bytes(&self) -> Option<&[u8]> {
        self.bytes.get_or_init(|| read_range(&self.file, self.start, self.len as u64)).as_deref()
    }
}

/// A file's entry in a cache: its path relative to the workspace's root (where it is in the
/// index's bytes), its text's length and hash, the file's stamp when there is one, and where
/// its results are among the cache's results, with their checksum.
struct Entry {
    path: std::ops::Range<usize>,
    len: u64,
    hash: u64,
    stamp: Option<files::Stamp>,
    results: std::ops::Range<usize>,
    check: u64,
}

/// The cache folder: `$NACL_LS_CACHE_DIR` (empty: no cache), else `$XDG_CACHE_HOME/nacl-ls`,
/// else `$HOME/.cache/nacl-ls`; `None` when none is set to an absolute path.
pub fn folder() -> Option<PathBuf> {
    let absolute = |p: PathBuf| p.is_absolute().then_some(p);
    if let Some(dir) = std::env::var_os("NACL_LS_CACHE_DIR") {
        return absolute(PathBuf::from(dir));
    }
    std::env::var_os("XDG_CACHE_HOME")
        .and_then(|d| absolute(PathBuf::from(d)))
        .or_else(|| std::env::var_os("HOME").and_then(|h| absolute(PathBuf::from(h).join(".cache"))))
        .map(|d| d.join("nacl-ls"))
}

/// Where the cache of one workspace is kept in a cache folder: worked out once per load (it
/// resolves the workspace's root).
pub struct CacheFile(PathBuf);

impl CacheFile {
    /// The cache file of the workspace at `root` in `folder`, unless the folder lies inside the
    /// workspace (a cache there would be read as part of it, and could be planted by it).
    pub fn of(folder: &Path, root: &Path) -> Option<CacheFile> {
        let root = std::fs::canonicalize(root).ok()?;
        let real_folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        if real_folder.starts_with(&root) {
            return None;
        }
        let key = xxhash_rust::xxh3::xxh3_64(root.as_os_str().as_encoded_bytes());
        Some(CacheFile(folder.join(format!("{key:016x}.cache"))))
    }

    /// Whether it is there (trusted or not): only then are the workspace's files worth a `stat`
    /// as they are found.
    pub fn exists(&self) -> bool {
        self.0.symlink_metadata().is_ok_and(|meta| meta.is_file())
    }

    /// The file beside it that holds the workspace's last reports.
    fn reports(&self) -> PathBuf {
        self.0.with_extension("reports")
    }
}

/// The hash a file's text is known by.
pub(crate) fn text_hash(text: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

impl Cache {
    /// The cached results of the workspace at `root` kept in `file` (none when there are none,
    /// or the file cannot be trusted).
    pub fn load(file: &CacheFile, root: &Path) -> Cache {
        read(&file.0, root).unwrap_or_default()
    }

    /// How many files it holds results of.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether it holds no results.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// What the cache holds of each of `paths`, which are sorted as a walk sorts them
    /// ([`files::path_order`]), as the cache's entries are: found on all cores, each run of paths
    /// in one pass over the entries from where its first path would be, where a lookup of each
    /// path would reach all over the entries. (Paths out of that order are not wrongly matched,
    /// only missed.)
    pub fn files_of<P: AsRef<Path> + Sync>(&self, paths: &[P]) -> Vec<Option<CachedFile<'_>>> {
        /// Paths per run: enough that finding where a run starts costs nothing next to it.
        const RUN: usize = 1024;
        if self.files.is_empty() {
            return paths.iter().map(|_| None).collect();
        }
        paths.par_chunks(RUN).flat_map_iter(|run| self.files_of_run(run)).collect()
    }

    /// [`Cache::files_of`] for one run of paths, on one thread.
    fn files_of_run<'p, P: AsRef<Path>>(&self, paths: &'p [P]) -> Vec<Option<CachedFile<'_>>> {
        let path_of = |entry: &Entry| &self.index[entry.path.clone()];
        let relative = |path: &'p P| Some(files::strip_base(path.as_ref(), &self.root)?.to_str()?.as_bytes());
        let start = paths.iter().find_map(relative).map_or(self.files.len(), |first| {
            self.files.partition_point(|entry| files::path_order(path_of(entry), first).is_lt())
        });
        let mut entries = self.files[start..].iter().peekable();
        paths
            .iter()
            .map(|path| {
                let relative = relative(path)?;
                // Most paths are the next entry's: compared for equality first, in one `memcmp`.
                loop {
                    let stored = path_of(entries.peek()?);
                    if stored == relative {
                        return entries.next().map(|entry| CachedFile { entry });
                    }
                    if files::path_order(stored, relative).is_gt() {
                        return None;
                    }
                    entries.next();
                }
            })
            .collect()
    }

    /// What the cache holds of the file at `path`, if anything.
    #[cfg(test)]
    fn file(&self, path: &Path) -> Option<CachedFile<'_>> {
        self.files_of(&[path]).pop().flatten()
    }

    /// The flag set when a file's results cannot be decoded ([`Cache::decode`]): the cache is
    /// to be written again.
    pub fn stale_flag(&self) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
        self.stale.clone()
    }

    /// The results at `entry` (of this cache), for the text they were found for; `None` when
    /// they cannot be decoded (the cache is then stale: [`Cache::stale_flag`]).
    pub fn decode(&self, entry: &CacheEntry, text: &Text) -> Option<FileFragments> {
        let decoded = self.decode_results(entry, text);
        if decoded.is_none() {
            self.stale.store(true, std::sync::atomic::Ordering::Release);
        }
        decoded
    }

    /// [`Cache::decode`], without marking the cache stale.
    fn decode_results(&self, entry: &CacheEntry, text: &Text) -> Option<FileFragments> {
        let bytes = self.results.as_ref()?.bytes()?.get(entry.results.clone())?;
        if xxhash_rust::xxh3::xxh3_64(bytes) != entry.check {
            return None;
        }
        decode_stored(bytes, text)
    }

    /// The results cached for the file at `path` if its text is `text` (`None` as well when
    /// they cannot be decoded).
    #[cfg(test)]
    fn get(&self, path: &Path, text: &Text) -> Option<FileFragments> {
        self.decode(&self.file(path)?.results_for(text.len(), text_hash(text))?, text)
    }
}

/// One file's stored results (its table of texts, then the results), for the text they were
/// found for; `None` when they cannot be decoded or point outside the text.
fn decode_stored(bytes: &[u8], text: &Text) -> Option<FileFragments> {
    // The table is checked to be UTF-8 once here, and its texts are slices of it.
    let (table, bytes) = postcard::take_from_bytes::<&str>(bytes).ok()?;
    // A `Text` holds at most 4 GiB (its offsets are 32-bit); no file's table is near that.
    u32::try_from(table.len()).ok()?;
    let stored: StoredResults<'_> = stored_text::reading(text, table, || postcard::from_bytes(bytes).ok())?;
    let errors: Option<Vec<SyntaxError>> = stored
        .errors
        .into_iter()
        .map(|e| {
            let code = ErrorCode::ALL.iter().find(|c| c.as_str() == e.code)?;
            Some(SyntaxError::new(*code, e.range, e.message))
        })
        .collect();
    let results = FileFragments { syntax_errors: errors?.into(), fragments: stored.fragments.into_owned().into() };
    ranges_fit(&results, text).then_some(results)
}

/// What the fuzz target `analysis:cache` runs (and a unit test with it): the readers of a cache's
/// results and index, past the checksums that would turn away almost every damaged byte.
#[cfg(any(test, fuzzing))]
pub mod fuzzing {
    use super::*;

    /// Stores the results of `text` as a save does and reads them back: they must be the same.
    /// Then flips bits of the stored results and of the index as `flips` says (three bytes each:
    /// where, in two, and which bits) and reads both again: never a panic, and every entry read
    /// from the index points inside the results and the index.
    pub fn check(text: &str, flips: &[u8]) {
        let text = Text::from(text);
        let results = FileFragments::of_text(&text);
        let root = Path::new("/fuzz");
        let path = root.join("a.nacl");
        let saved = SavedFile { path: &path, text: &text, hash: text_hash(&text), stamp: None, results: &results };
        let Ok((mut stored, headers)) = encode_chunk(root, std::slice::from_ref(&saved)) else { return };
        assert!(decode_stored(&stored, &text).as_ref() == Some(&results), "the stored results read back differ");
        let mut index = Vec::new();
        let Ok(()) = push_index_chunk(&mut index, headers) else { return };
        assert_eq!(parse_index(&index, stored.len()).map(|entries| entries.len()), Some(1));
        for flip in flips.chunks_exact(3) {
            let at = usize::from(u16::from_le_bytes([flip[0], flip[1]]));
            let (stored_len, index_len) = (stored.len(), index.len());
            stored[at % stored_len] ^= flip[2];
            index[at % index_len] ^= flip[2];
        }
        let _ = decode_stored(&stored, &text);
        for entry in parse_index(&index, stored.len()).unwrap_or_default() {
            assert!(entry.results.end <= stored.len() && entry.path.end <= index.len(), "an entry points outside");
        }
    }
}

/// Whether every range in `results` lies in `text`, on character boundaries. Stored texts are
/// checked as they are read ([`stored_text::reading`]); this checks the places the results
/// point at, which diagnostics, hovers and edits slice the text by.
fn ranges_fit(results: &FileFragments, text: &str) -> bool {
    let within = Within { text, ascii: text.is_ascii() };
    let fits = |range: TextRange| within.fits(range);
    results.fragments.iter().all(|fragment| {
        let declared = || fragment.fields.iter().chain(&fragment.annotation_types);
        [fragment.range, fragment.header_range].into_iter().chain(fragment.type_range).all(fits)
            && declared().all(|field| {
                [field.range, field.name_range, field.type_range].into_iter().all(fits)
                    && within.entries_fit(&field.annotations, 0)
            })
            && within.entries_fit(&fragment.values, 0)
    }) && results.syntax_errors.iter().all(|error| fits(error.range))
}

/// The text ranges are checked against.
struct Within<'t> {
    text: &'t str,
    /// The text is ASCII: every offset in it is a character boundary.
    ascii: bool,
}

impl Within<'_> {
    /// Whether `range` lies in the text, on character boundaries.
    fn fits(&self, range: TextRange) -> bool {
        usize::from(range.end()) <= self.text.len()
            && (self.ascii
                || (self.text.is_char_boundary(range.start().into()) && self.text.is_char_boundary(range.end().into())))
    }

    /// Whether the keys and values of `entries`, at nesting `depth`, fit the text.
    fn entries_fit(&self, entries: &[crate::fragments::Entry], depth: u32) -> bool {
        entries.iter().all(|entry| self.fits(entry.key_range) && self.value_fits(&entry.value, depth))
    }

    /// Whether `value`, at nesting `depth`, and the values in it fit the text. Values nest no
    /// deeper than the parser reads; a deeper one was not written by it.
    fn value_fits(&self, value: &Value, depth: u32) -> bool {
        depth <= nacl_syntax::nacl::MAX_NESTING
            && self.fits(value.range)
            && match &value.kind {
                ValueKind::List(items) => items.iter().all(|item| self.value_fits(item, depth + 1)),
                ValueKind::Object(entries) => self.entries_fit(entries, depth + 1),
                ValueKind::Template(parts) => parts.iter().all(|part| match part {
                    TemplatePart::Reference(reference) => self.fits(reference.range),
                    TemplatePart::Text(_) => true,
                }),
                _ => true,
            }
    }
}

/// Where a file's results are in a [`Cache`], found for the file's text as it was loaded, and
/// their checksum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntry {
    results: std::ops::Range<usize>,
    check: u64,
}

/// What a cache holds of one file ([`Cache::file`]).
#[derive(Clone, Copy)]
pub struct CachedFile<'c> {
    entry: &'c Entry,
}

impl CachedFile<'_> {
    /// Where its results are, if the cache holds them for exactly the text of length `len` and
    /// hash `hash` ([`text_hash`]) (decoded later, with [`Cache::decode`], by the query that
    /// needs them).
    pub fn results_for(self, len: usize, hash: u64) -> Option<CacheEntry> {
        (self.entry.len == len as u64 && self.entry.hash == hash).then(|| self.results())
    }

    /// The hash of its text and where its results are, if the cache saw it with metadata
    /// `stamp` (then it has that text still, and need not be read).
    pub fn unchanged(self, stamp: &files::Stamp) -> Option<(u64, CacheEntry)> {
        (self.entry.stamp.as_ref() == Some(stamp) && self.entry.len == stamp.len)
            .then(|| (self.entry.hash, self.results()))
    }

    /// The metadata the cache saw it with, if any.
    pub fn stamp(self) -> Option<files::Stamp> {
        self.entry.stamp
    }

    /// Where its results are.
    fn results(self) -> CacheEntry {
        CacheEntry { results: self.entry.results.clone(), check: self.entry.check }
    }
}

/// The `len` bytes of `file` from `at`; `None` when they cannot all be read.
fn read_range(mut file: &std::fs::File, at: u64, len: u64) -> Option<Vec<u8>> {
    let mut bytes = vec![0; usize::try_from(len).ok()?];
    file.seek(io::SeekFrom::Start(at)).ok()?;
    file.read_exact(&mut bytes).ok()?;
    Some(bytes)
}

/// Reads and checks a cache file's index, keeping the file open for its results; `None` when
/// it is missing or not to be trusted.
fn read(file: &Path, root: &Path) -> Option<Cache> {
    let (file, size) = files::open_regular(file, MAX_CACHE_BYTES).ok()?;
    // The magic and the running build's identity, then the results, the index, and the
    // index's length and checksum.
    let head = [MAGIC.as_slice(), &postcard::to_allocvec(writer()).ok()?].concat();
    let tail = size.checked_sub(16)?;
    let head_len = head.len() as u64;
    if tail < head_len || read_range(&file, 0, head_len)? != head {
        return None;
    }
    let ends = read_range(&file, tail, 16)?;
    let (index_len, check) = ends.split_first_chunk::<8>()?;
    let (index_len, check) = (u64::from_le_bytes(*index_len), u64::from_le_bytes(check.try_into().ok()?));
    let index_start = tail.checked_sub(index_len).filter(|&start| start >= head_len)?;
    let index = read_range(&file, index_start, index_len)?;
    if xxhash_rust::xxh3::xxh3_64(&index) != check {
        return None;
    }
    let results_len = usize::try_from(index_start - head_len).ok()?;
    let files = parse_index(&index, results_len)?;
    let results = StoredResultsPart { file, start: head_len, len: results_len, bytes: std::sync::OnceLock::new() };
    Some(Cache { root: root.to_path_buf(), index, files, results: Some(results), stale: Default::default() })
}

/// The entries of a cache's `index`, whose results lie in the `results_len` bytes before it, in
/// the walk's path order; `None` when a header cannot be read or points outside the results.
fn parse_index(index: &[u8], results_len: usize) -> Option<Vec<Entry>> {
    let start = index.as_ptr().addr();
    let chunks: Option<Vec<Vec<Entry>>> = chunks(index)?
        .into_par_iter()
        .map(|mut chunk| {
            let mut entries = Vec::with_capacity(CHUNK);
            while !chunk.is_empty() {
                let (header, rest) = postcard::take_from_bytes::<StoredHeader<'_>>(chunk).ok()?;
                let at = usize::try_from(header.at).ok()?;
                let end = at.checked_add(usize::try_from(header.size).ok()?).filter(|&end| end <= results_len)?;
                let path = header.path.as_ptr().addr() - start;
                let path = path..path + header.path.len();
                let (len, hash, stamp, check) = (header.len, header.hash, header.stamp, header.check);
                entries.push(Entry { path, len, hash, stamp, results: at..end, check });
                chunk = rest;
            }
            Some(entries)
        })
        .collect();
    let mut files: Vec<Entry> = chunks?.into_iter().flatten().collect();
    // Written in that order; a cache that is not is put in it (its paths were checked to be
    // UTF-8 as they were read).
    let order = |a: &Entry, b: &Entry| files::path_order(&index[a.path.clone()], &index[b.path.clone()]);
    if !files.is_sorted_by(|a, b| order(a, b).is_le()) {
        files.par_sort_by(order);
    }
    Some(files)
}

/// The payload of a file written with [`write_framed`] and `magic`, if it starts with `magic` and
/// the running build's identity and its checksum matches.
fn checked_payload<'a>(bytes: &'a [u8], magic: &[u8; 8]) -> Option<&'a [u8]> {
    let rest = bytes.strip_prefix(magic.as_slice())?;
    let (version, rest) = postcard::take_from_bytes::<&str>(rest).ok()?;
    if version != writer() {
        return None;
    }
    let (payload, checksum) = rest.split_last_chunk::<8>()?;
    (u64::from_le_bytes(*checksum) == xxhash_rust::xxh3::xxh3_64(payload)).then_some(payload)
}

/// A sink for the parts of a payload, in order.
type Emit<'a> = dyn FnMut(&[u8]) -> io::Result<()> + 'a;

/// Writes `target` (with [`write_replacing`]): `magic`, the running build's identity, the
/// payload that `payload` hands to its sink part by part, and the payload's checksum.
fn write_framed(
    target: &Path,
    magic: &[u8; 8],
    payload: impl FnOnce(&mut Emit<'_>) -> io::Result<()>,
) -> io::Result<()> {
    write_replacing(target, |out| {
        out.write_all(magic)?;
        out.write_all(&postcard::to_allocvec(writer()).map_err(io::Error::other)?)?;
        let mut checksum = xxhash_rust::xxh3::Xxh3Default::new();
        payload(&mut |part: &[u8]| {
            checksum.update(part);
            out.write_all(part)
        })?;
        out.write_all(&checksum.digest().to_le_bytes())
    })
}

/// Splits a payload into its chunks: each a little-endian `u64` length, then that many bytes.
fn chunks(mut payload: &[u8]) -> Option<Vec<&[u8]>> {
    let mut chunks = Vec::new();
    while !payload.is_empty() {
        let (len, rest) = payload.split_first_chunk::<8>()?;
        let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
        if len > rest.len() {
            return None;
        }
        let (chunk, rest) = rest.split_at(len);
        chunks.push(chunk);
        payload = rest;
    }
    Some(chunks)
}

/// A file whose results are written to the cache.
pub struct SavedFile<'a> {
    /// Its path.
    pub path: &'a Path,
    /// Its text.
    pub text: &'a Text,
    /// The text's [`text_hash`].
    pub hash: u64,
    /// The file's metadata before its text was read, when they can vouch for it.
    pub stamp: Option<files::Stamp>,
    /// Its results.
    pub results: &'a FileFragments,
}

/// Writes the results of the workspace at `root` as its cache in `folder`, then keeps the
/// folder to its most recent caches. Chunks are encoded in parallel a window at a time and
/// written as they are done: of the cache, only its index is ever whole in memory.
pub fn save(folder: &Path, root: &Path, files: &[SavedFile<'_>]) -> io::Result<()> {
    let Some(CacheFile(target)) = CacheFile::of(folder, root) else { return Ok(()) };
    create_folder(folder)?;
    let window = CHUNK * 2 * rayon::current_num_threads().max(1);
    write_replacing(&target, |out| {
        out.write_all(MAGIC)?;
        out.write_all(&postcard::to_allocvec(writer()).map_err(io::Error::other)?)?;
        // The index, in chunks of `CHUNK` files each after its length; reserved once for its
        // likely size (each header is its path and at most `HEADER_FIELDS` bytes more) instead
        // of grown by doubling at the moment every file's results are in memory.
        let likely = files.iter().map(|file| file.path.as_os_str().len() + HEADER_FIELDS).sum::<usize>();
        let mut index = Vec::with_capacity(likely + files.len().div_ceil(CHUNK) * 8);
        let mut written = 0u64;
        for files in files.chunks(window) {
            let chunks: Vec<(Vec<u8>, Vec<StoredHeader<'_>>)> =
                files.par_chunks(CHUNK).map(|chunk| encode_chunk(root, chunk)).collect::<io::Result<_>>()?;
            for (results, headers) in chunks {
                out.write_all(&results)?;
                let placed = headers.into_iter().map(|header| StoredHeader { at: header.at + written, ..header });
                push_index_chunk(&mut index, placed).map_err(io::Error::other)?;
                written += results.len() as u64;
            }
        }
        out.write_all(&index)?;
        out.write_all(&(index.len() as u64).to_le_bytes())?;
        out.write_all(&xxhash_rust::xxh3::xxh3_64(&index).to_le_bytes())
    })?;
    prune(folder, &target);
    Ok(())
}

/// Appends a chunk to a cache's `index`: the chunk's length, then `headers` one after the other.
fn push_index_chunk<'a>(
    index: &mut Vec<u8>,
    headers: impl IntoIterator<Item = StoredHeader<'a>>,
) -> Result<(), postcard::Error> {
    let mut encoded = Vec::new();
    for header in headers {
        encoded = postcard::to_extend(&header, encoded)?;
    }
    index.extend((encoded.len() as u64).to_le_bytes());
    index.extend(encoded);
    Ok(())
}

/// One chunk of the cache: each file's table of texts and stored results, one after the
/// other, and each file's header (where its results are from the chunk's start).
fn encode_chunk<'a>(root: &Path, files: &[SavedFile<'a>]) -> io::Result<(Vec<u8>, Vec<StoredHeader<'a>>)> {
    // Room for the chunk at once (results take about a third of their texts' size): grown by
    // doubling, a chunk of large files left a trail of freed buffers of megabytes that the
    // allocator keeps committed for a while, at the moment every file's results are in memory.
    let mut out = Vec::with_capacity(files.iter().map(|f| f.text.len()).sum::<usize>() / 2);
    let mut headers = Vec::with_capacity(files.len());
    // Each file's results are encoded into this one buffer, cleared after each, instead of a new
    // one grown by doubling for every file.
    let mut encoded = Vec::new();
    for &SavedFile { path, text, hash, stamp, results } in files {
        let Some(path) = files::strip_base(path, root).and_then(Path::to_str) else { continue };
        let stored = StoredResults {
            errors: results
                .syntax_errors
                .iter()
                .map(|e| StoredError {
                    code: e.code.as_str(),
                    range: e.range,
                    message: std::borrow::Cow::Borrowed(&e.message),
                })
                .collect(),
            fragments: std::borrow::Cow::Borrowed(&results.fragments),
        };
        encoded.clear();
        let (stored, table) = stored_text::writing(text, || postcard::to_extend(&stored, std::mem::take(&mut encoded)));
        encoded = stored.map_err(io::Error::other)?;
        let at = out.len();
        out = postcard::to_extend(&table, out).map_err(io::Error::other)?;
        out.extend_from_slice(&encoded);
        let check = xxhash_rust::xxh3::xxh3_64(&out[at..]);
        let (at, size) = (at as u64, (out.len() - at) as u64);
        headers.push(StoredHeader { path, len: text.len() as u64, hash, stamp, at, size, check });
    }
    Ok((out, headers))
}

/// Creates the cache folder, readable by its owner only.
fn create_folder(folder: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(folder)
}

/// Writes a new file beside `target` (never an existing one, never through a link) with
/// `write`, and renames it to `target`.
fn write_replacing(target: &Path, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let temporary = target.with_extension(format!("tmp{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    // Not synced: a cache cut short by a crash fails its checksum and is ignored.
    let written = options.open(&temporary).and_then(|file| {
        let mut out = io::BufWriter::with_capacity(1 << 20, file);
        write(&mut out)?;
        out.flush()
    });
    match written.and_then(|()| std::fs::rename(&temporary, target)) {
        Ok(()) => Ok(()),
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            Err(error)
        }
    }
}

/// How long a temporary file of [`write_replacing`] may stay before [`prune`] takes it for one
/// left by a process that ended while writing it.
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes the least recently written caches beyond [`MAX_CACHES`] (never `keep`), with the
/// reports beside them ([`reports`]), reports with no cache beside them, and temporary files
/// that processes ended before renaming (written more than [`ABANDONED_AFTER`] ago; the entry
/// itself is removed, never what a link there points to).
fn prune(folder: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    let entries: Vec<std::fs::DirEntry> = entries.flatten().collect();
    for entry in &entries {
        let path = entry.path();
        let orphan_reports = path.extension().is_some_and(|x| x == "reports") && !path.with_extension("cache").exists();
        let abandoned = is_temporary(&path) && entry.metadata().is_ok_and(|meta| is_abandoned(&meta));
        if orphan_reports || abandoned {
            let _ = std::fs::remove_file(&path);
        }
    }
    let mut caches: Vec<(std::time::SystemTime, PathBuf)> = entries
        .into_iter()
        .filter(|e| e.path().extension().is_some_and(|x| x == "cache") && e.path() != keep)
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            meta.is_file().then(|| (meta.modified().unwrap_or(std::time::UNIX_EPOCH), e.path()))
        })
        .collect();
    if caches.len() < MAX_CACHES {
        return;
    }
    caches.sort();
    for (_, path) in &caches[..caches.len() + 1 - MAX_CACHES] {
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_file(path.with_extension("reports"));
    }
}

/// Whether `path` is named as [`write_replacing`] names its temporary files (`<name>.tmp<pid>`).
fn is_temporary(path: &Path) -> bool {
    path.extension()
        .and_then(|x| x.to_str())
        .and_then(|x| x.strip_prefix("tmp"))
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether an entry with these metadata (not followed through a link) was last written more
/// than [`ABANDONED_AFTER`] ago.
fn is_abandoned(meta: &std::fs::Metadata) -> bool {
    meta.modified().ok().and_then(|at| at.elapsed().ok()).is_some_and(|age| age > ABANDONED_AFTER)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fragments::ValueKind;

    fn results(text: &str) -> FileFragments {
        FileFragments::of_text(&text.into())
    }

    /// The cached results of `path`, if its text is `text`.
    fn get(cache: &Cache, path: &Path, text: &str) -> Option<FileFragments> {
        cache.get(path, &Text::from(text))
    }

    /// The cache of the workspace at `root` kept in `folder`.
    fn load(folder: &Path, root: &Path) -> Cache {
        Cache::load(&CacheFile::of(folder, root).expect("a cache file"), root)
    }

    /// The path of that cache's file.
    pub(crate) fn cache_file(folder: &Path, root: &Path) -> PathBuf {
        CacheFile::of(folder, root).expect("a cache file").0
    }

    /// A file to save, with its text's hash.
    fn saved<'a>(path: &'a Path, text: &'a Text, results: &'a FileFragments) -> SavedFile<'a> {
        SavedFile { path, text, hash: text_hash(text), stamp: None, results }
    }

    /// A new workspace folder and cache folder (not created) for the test `name`.
    pub(crate) fn workspace(name: &str) -> (PathBuf, PathBuf, Scratch) {
        let base = std::env::temp_dir().join(format!("nacl-ls-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (root, folder) = (base.join("ws"), base.join("cache"));
        std::fs::create_dir_all(&root).expect("create");
        (root, folder, Scratch(base))
    }

    /// A test's folder, removed when the test ends.
    pub(crate) struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A long string and a long key written as-is, a long string with an escape, a long template.
    const LONG: &str = "salto.t l {\n  a_key_longer_than_twenty_three_bytes = \"a value longer than twenty-three bytes\"\n  escaped = \"a value with an escape \\\" in it, and long\"\n  template = \"a long template piece: ${ salto.t.instance.i.name } and more text after it, longer\"\n}\n";

    const TEXTS: [(&str, &str); 3] = [
        ("a.nacl", "type salto.t {\n  string name {\n    _required = true\n  }\n}\n"),
        (
            "b.nacl",
            "salto.t i {\n  name = \"x${ salto.t.instance.j }\"\n  list = [1, { a = file(\"p\") }]\n  bad = @\n}\n",
        ),
        ("c.nacl", LONG),
    ];

    /// Saves the results of [`TEXTS`] (parsed from the texts the database would hold).
    fn save_texts(root: &Path, folder: &Path) -> Vec<FileFragments> {
        let paths: Vec<PathBuf> = TEXTS.iter().map(|(p, _)| root.join(p)).collect();
        let texts: Vec<Text> = TEXTS.iter().map(|(_, t)| Text::from(*t)).collect();
        let all: Vec<FileFragments> = texts.iter().map(FileFragments::of_text).collect();
        let files: Vec<SavedFile<'_>> = paths.iter().zip(&texts).zip(&all).map(|((p, t), r)| saved(p, t, r)).collect();
        save(folder, root, &files).expect("save");
        all
    }

    #[test]
    fn results_read_back_are_the_results_written() {
        let (root, folder, _scratch) = workspace("roundtrip");
        let written = save_texts(&root, &folder);
        let cache = load(&folder, &root);
        for ((path, text), expected) in TEXTS.iter().zip(&written) {
            assert_eq!(get(&cache, &root.join(path), text).as_ref(), Some(expected));
        }
        // Another text at the same path is not served.
        assert_eq!(get(&cache, &root.join("a.nacl"), "type salto.u {\n}\n"), None);
    }

    #[test]
    fn results_are_read_when_first_decoded_and_checked_then() {
        let (root, folder, _scratch) = workspace("lazy");
        let written = save_texts(&root, &folder);
        let cache = load(&folder, &root);
        let part = cache.results.as_ref().expect("results");
        assert!(part.bytes.get().is_none(), "a load reads the index alone");
        // Changed in place after the load: a byte of the last file's results.
        let file = cache_file(&folder, &root);
        let mut bytes = std::fs::read(&file).expect("read");
        let last = cache.files.last().expect("entries");
        bytes[usize::try_from(part.start).expect("small") + last.results.start + 3] ^= 0x5a;
        std::fs::write(&file, &bytes).expect("write");
        let (first, last) = (TEXTS[0], TEXTS[TEXTS.len() - 1]);
        assert_eq!(get(&cache, &root.join(first.0), first.1).as_ref(), Some(&written[0]));
        assert!(part.bytes.get().is_some());
        let stale = || cache.stale_flag().load(std::sync::atomic::Ordering::Acquire);
        assert!(!stale());
        assert_eq!(get(&cache, &root.join(last.0), last.1), None, "results that fail their checksum are not served");
        assert!(stale(), "and the cache is to be written again");
    }

    #[test]
    fn a_cache_written_over_many_windows_reads_back_every_file() {
        let (root, folder, _scratch) = workspace("windows");
        let count = 3 * CHUNK * 2 * rayon::current_num_threads().max(1) + 7;
        let paths: Vec<PathBuf> = (0..count).map(|i| root.join(format!("f{i}.nacl"))).collect();
        let texts: Vec<Text> = (0..count).map(|i| Text::from(format!("salto.t i{i} {{\n  n = {i}\n}}\n"))).collect();
        let all: Vec<FileFragments> = texts.iter().map(FileFragments::of_text).collect();
        let files: Vec<SavedFile<'_>> = paths.iter().zip(&texts).zip(&all).map(|((p, t), r)| saved(p, t, r)).collect();
        save(&folder, &root, &files).expect("save");
        let cache = load(&folder, &root);
        assert_eq!(cache.files.len(), count);
        for ((path, text), expected) in paths.iter().zip(&texts).zip(&all) {
            assert_eq!(cache.get(path, text).as_ref(), Some(expected));
        }
    }

    #[test]
    fn paths_in_many_runs_are_each_matched_from_where_their_run_starts() {
        let (root, folder, _scratch) = workspace("files-of-runs");
        // Folders of 40 files, named so that a walk's order is not the names' (`d1/` before `d10`).
        let name = |i: usize| format!("d{}/f{}.nacl", i / 40, i % 40);
        let text = Text::from("salto.t x {\n}\n");
        let results = FileFragments::of_text(&text);
        let cached: Vec<PathBuf> = (0..3000).filter(|i| i % 7 != 3).map(|i| root.join(name(i))).collect();
        let files: Vec<SavedFile<'_>> = cached.iter().map(|path| saved(path, &text, &results)).collect();
        save(&folder, &root, &files).expect("save");
        let cache = load(&folder, &root);
        let mut asked: Vec<PathBuf> = (0..3000).map(|i| root.join(name(i))).collect();
        let bytes = |path: &PathBuf| path.as_os_str().as_encoded_bytes().to_vec();
        asked.sort_by(|a, b| files::path_order(&bytes(a), &bytes(b)));
        let found = cache.files_of(&asked);
        let matched: Vec<bool> = found.iter().map(Option::is_some).collect();
        let expected: Vec<bool> = asked.iter().map(|path| cached.contains(path)).collect();
        assert_eq!(matched, expected);
    }

    #[test]
    fn paths_in_a_walks_order_are_matched_in_one_pass_and_missing_ones_are_not() {
        let (root, folder, _scratch) = workspace("files-of");
        // Saved out of a walk's order (`b/` comes before `b-` there): the load puts them in it.
        let names = ["a.nacl", "b-d.nacl", "b/c.nacl", "b/e/f.nacl"];
        let paths: Vec<PathBuf> = names.iter().map(|name| root.join(name)).collect();
        let texts: Vec<Text> =
            names.iter().map(|name| Text::from(format!("salto.t {} {{\n}}\n", name.len()))).collect();
        let all: Vec<FileFragments> = texts.iter().map(FileFragments::of_text).collect();
        let files: Vec<SavedFile<'_>> = paths.iter().zip(&texts).zip(&all).map(|((p, t), r)| saved(p, t, r)).collect();
        save(&folder, &root, &files).expect("save");
        let cache = load(&folder, &root);
        let asked = ["a.nacl", "b/c.nacl", "b/d.nacl", "b/e/f.nacl", "b-d.nacl", "z.nacl"].map(|name| root.join(name));
        let found = cache.files_of(&asked);
        let text_of = |path: &Path| paths.iter().position(|p| p == path).map(|i| &texts[i]);
        let matched: Vec<bool> = asked
            .iter()
            .zip(&found)
            .map(|(path, file)| {
                let results =
                    file.zip(text_of(path)).and_then(|(file, text)| file.results_for(text.len(), text_hash(text)));
                results.is_some()
            })
            .collect();
        assert_eq!(matched, [true, true, false, true, true, false]);
        assert!(found[2].is_none() && found[5].is_none());
    }

    #[test]
    fn text_written_as_is_is_stored_as_its_place_and_read_back_as_a_slice_of_the_file() {
        let (root, folder, _scratch) = workspace("places");
        save_texts(&root, &folder);
        let stored = std::fs::read(cache_file(&folder, &root)).expect("read");
        let contains = |needle: &str| stored.windows(needle.len()).any(|w| w == needle.as_bytes());
        assert!(!contains("a value longer than twenty-three bytes"));
        assert!(!contains("a_key_longer_than_twenty_three_bytes"));
        assert!(!contains(" and more text after it, longer"));
        // Decoded text is not in the file as written: it is stored itself.
        assert!(contains("a value with an escape \" in it, and long"));

        let text = Text::from(LONG);
        let read = load(&folder, &root).get(&root.join("c.nacl"), &text).expect("served");
        let values = &read.fragments[0].values;
        let in_text = |t: &Text| text.as_bytes().as_ptr_range().contains(&t.as_ptr());
        assert!(in_text(&values[0].key));
        assert!(matches!(&values[0].value.kind, ValueKind::String(s) if in_text(s)));
        // A short key is a slice too.
        assert!(in_text(&values[1].key) && &*values[1].key == "escaped");
        assert!(matches!(&values[1].value.kind, ValueKind::String(s) if !in_text(s)));
        assert_eq!(read, results(LONG));
    }

    #[test]
    fn texts_that_are_not_slices_of_the_files_text_are_stored_in_its_table_in_their_order() {
        let (root, folder, _scratch) = workspace("table");
        let text = "salto.t i {\n  shortkey = \"word\"\n  o = {\n    shortkey = \"word\"\n  }\n}\n";
        let path = root.join("t.nacl");
        // Results of another copy of the text: none of their texts is a slice of the one saved.
        let written = results(text);
        save(&folder, &root, &[saved(&path, &Text::from(text), &written)]).expect("save");
        let stored = std::fs::read(cache_file(&folder, &root)).expect("read");
        let contains = |needle: &str| stored.windows(needle.len()).any(|w| w == needle.as_bytes());
        assert!(contains("shortkeywordoshortkeyword"));
        assert_eq!(get(&load(&folder, &root), &path, text), Some(written));
    }

    #[test]
    fn results_whose_ranges_do_not_fit_their_text_are_not_served() {
        let (root, folder, _scratch) = workspace("ranges");
        // A nested value, a field's annotation, a template's reference and an error.
        let text = Text::from(
            "type salto.t {\n  string name {\n    _required = true\n  }\n}\nsalto.t i {\n  o = { l = [\"é ${ salto.t.instance.j }\"] }\n  bad = @\n}\n",
        );
        let good = FileFragments::of_text(&text);
        let beyond = TextRange::at(nacl_syntax::TextSize::of(&*text), 1.into());
        // Inside `é`, which is two bytes.
        let split = TextRange::at((text.find('é').expect("é") as u32 + 1).into(), 0.into());
        let nested = |fragments: &mut [Fragment], range| {
            let ValueKind::Object(entries) = &mut fragments[1].values[0].value.kind else { panic!("an object") };
            let mut entries = entries.to_vec();
            let ValueKind::List(items) = &mut entries[0].value.kind else { panic!("a list") };
            let mut items = items.to_vec();
            let ValueKind::Template(parts) = &mut items[0].kind else { panic!("a template") };
            let mut parts = parts.to_vec();
            let TemplatePart::Reference(reference) = &mut parts[1] else { panic!("a reference") };
            reference.range = range;
            items[0].kind = ValueKind::Template(parts.into());
            entries[0].value.kind = ValueKind::List(items.into());
            fragments[1].values[0].value.kind = ValueKind::Object(entries.into());
        };
        let too_deep = |fragments: &mut [Fragment]| {
            let value = &mut fragments[1].values[1].value;
            for _ in 0..=nacl_syntax::nacl::MAX_NESTING + 1 {
                value.kind = ValueKind::List(vec![value.clone()].into());
            }
        };
        /// A change to results, on their fragments and errors.
        type Change<'a> = &'a dyn Fn(&mut Vec<Fragment>, &mut Vec<SyntaxError>);
        let changes: [(&str, Change<'_>); 6] = [
            ("a fragment's range", &|f, _| f[0].range = beyond),
            ("a value nested deeper than the parser reads", &|f, _| too_deep(f)),
            ("a field's name", &|f, _| f[0].fields[0].name_range = split),
            ("an annotation's key", &|f, _| f[0].fields[0].annotations[0].key_range = beyond),
            ("a reference in a nested template", &|f, _| nested(f, split)),
            ("an error", &|_, e| e[0].range = beyond),
        ];
        // The deepest values the parser reads fit.
        let n = 2 * nacl_syntax::nacl::MAX_NESTING as usize;
        let deep = Text::from(format!(
            "salto.t d {{\n  a = {}1{}\n  b = {}1{}\n}}\n",
            "[".repeat(n),
            "]".repeat(n),
            "{ x = ".repeat(n),
            " }".repeat(n)
        ));
        assert!(ranges_fit(&FileFragments::of_text(&deep), &deep));
        for (what, change) in changes {
            let (mut fragments, mut errors) = (good.fragments.to_vec(), good.syntax_errors.to_vec());
            change(&mut fragments, &mut errors);
            let bad = FileFragments { syntax_errors: errors.into(), fragments: fragments.into() };
            let path = root.join("a.nacl");
            save(&folder, &root, &[saved(&path, &text, &bad)]).expect("save");
            assert_eq!(load(&folder, &root).get(&path, &text), None, "{what}");
            save(&folder, &root, &[saved(&path, &text, &good)]).expect("save");
            assert_eq!(load(&folder, &root).get(&path, &text), Some(good.clone()), "{what}");
        }
    }

    #[test]
    fn a_cache_with_any_byte_changed_or_cut_short_is_ignored() {
        let (root, folder, _scratch) = workspace("corrupt");
        save_texts(&root, &folder);
        let file = cache_file(&folder, &root);
        let good = std::fs::read(&file).expect("read");
        for at in (0..good.len()).step_by(7) {
            let mut bad = good.clone();
            bad[at] ^= 0x5a;
            std::fs::write(&file, &bad).expect("write");
            let cache = load(&folder, &root);
            for (path, text) in TEXTS {
                let served = get(&cache, &root.join(path), text);
                assert!(served.is_none_or(|r| r == results(text)), "byte {at} flipped served other results");
            }
        }
        std::fs::write(&file, &good[..good.len() / 2]).expect("write");
        assert!(load(&folder, &root).files.is_empty());
    }

    #[test]
    fn damaged_results_and_index_past_their_checksums_are_read_without_a_panic() {
        for (_, text) in TEXTS {
            // A flip of every byte in turn, by several patterns (the fuzz target's check).
            for at in 0..2048u16 {
                let [low, high] = at.to_le_bytes();
                fuzzing::check(text, &[low, high, 0x01, low, high, 0x80, low.wrapping_add(3), high, 0xff]);
            }
        }
    }

    #[test]
    fn a_cache_folder_inside_the_workspace_is_not_used() {
        let (root, _, _scratch) = workspace("inside");
        let folder = root.join(".cache");
        save_texts(&root, &folder);
        assert!(!folder.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_at_the_cache_name_is_not_waited_on_and_is_replaced() {
        let (root, folder, _scratch) = workspace("fifo");
        std::fs::create_dir_all(&folder).expect("create");
        let file = cache_file(&folder, &root);
        let made = std::process::Command::new("mkfifo").arg(&file).status().expect("mkfifo runs");
        assert!(made.success());
        assert!(load(&folder, &root).is_empty());
        save_texts(&root, &folder);
        assert!(std::fs::symlink_metadata(&file).expect("cache").is_file());
    }

    #[test]
    fn temporary_files_left_by_ended_writers_are_removed_once_old() {
        let (root, folder, _scratch) = workspace("abandoned");
        std::fs::create_dir_all(&folder).expect("create");
        let old = folder.join("0123456789abcdef.tmp4242");
        let fresh = folder.join("fedcba9876543210.tmp4343");
        let other = folder.join("notes.tmpx");
        for path in [&old, &fresh, &other] {
            std::fs::write(path, "half a cache").expect("write");
        }
        let hours_ago = std::time::SystemTime::now() - 2 * ABANDONED_AFTER;
        for path in [&old, &other] {
            std::fs::File::options().write(true).open(path).and_then(|f| f.set_modified(hours_ago)).expect("age");
        }
        save_texts(&root, &folder);
        assert!(!old.exists(), "an old temporary file is removed");
        assert!(fresh.exists(), "a fresh one may be another writer's");
        assert!(other.exists(), "a file not named as a temporary one stays");
    }

    #[cfg(unix)]
    #[test]
    fn an_old_link_named_as_a_temporary_file_is_removed_not_followed() {
        let (root, folder, _scratch) = workspace("abandoned-link");
        std::fs::create_dir_all(&folder).expect("create");
        let victim = root.join("victim.nacl");
        std::fs::write(&victim, "keep").expect("write");
        let link = folder.join("0123456789abcdef.tmp4242");
        std::os::unix::fs::symlink(&victim, &link).expect("link");
        // The link's own time, not its target's (`touch -h`).
        let aged = std::process::Command::new("touch").args(["-h", "-d", "3 hours ago"]).arg(&link).status();
        assert!(aged.expect("touch runs").success());
        save_texts(&root, &folder);
        assert!(std::fs::symlink_metadata(&link).is_err(), "the link is removed");
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_at_the_cache_name_is_replaced_not_followed() {
        let (root, folder, _scratch) = workspace("link");
        std::fs::create_dir_all(&folder).expect("create");
        let victim = folder.join("victim.txt");
        std::fs::write(&victim, "keep").expect("write");
        let file = cache_file(&folder, &root);
        std::os::unix::fs::symlink(&victim, &file).expect("link");
        save_texts(&root, &folder);
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
        assert!(std::fs::symlink_metadata(&file).expect("cache").is_file());
    }
}
