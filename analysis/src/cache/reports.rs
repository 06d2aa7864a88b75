//! The persistent cache of a workspace's last full check: every file's diagnostics and the notes
//! about untyped instances, kept with the fingerprint of everything they were computed from
//! ([`crate::workspace::LoadedWorkspace::fingerprint`]). A restart on an unchanged workspace
//! reports them without checking it again.
//!
//! It sits beside the workspace's cache of file results (same name, extension `reports`) and is
//! trusted no more: read only as a regular file under a size cap, with this format's magic, the
//! running build's identity and a checksum; a code it names must be one this build knows. The
//! fingerprint decides, not the file's age: reports of other inputs are never served.

use super::{CacheFile, checked_payload, create_folder, write_framed};
use crate::{
    diagnostics::{Diagnostic, Related},
    files,
    state::StateStatus,
    workspace::UntypedInstances,
};
use nacl_syntax::TextRange;
use std::{
    borrow::Cow,
    io,
    path::{Path, PathBuf},
};

/// The first bytes of a reports file.
const MAGIC: &[u8; 8] = b"naclrp\x00\x01";
/// The largest reports file read.
const MAX_REPORTS_BYTES: u64 = 1 << 30;

/// The reports of a workspace's last full check, and the fingerprint of what they were computed
/// from.
pub struct Reports {
    fingerprint: u64,
    root: PathBuf,
    /// The diagnostics of each file with any, by path relative to the root.
    files: crate::hashing::NameMap<Box<str>, Vec<Diagnostic>>,
    untyped: Vec<UntypedInstances>,
}

/// A diagnostic as stored: its code by name, its related places by full path.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredDiagnostic<'a> {
    code: &'a str,
    range: TextRange,
    #[serde(borrow)]
    message: Cow<'a, str>,
    #[serde(borrow)]
    related: Vec<StoredRelated<'a>>,
}

/// A related place as stored.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredRelated<'a> {
    path: &'a str,
    range: TextRange,
    #[serde(borrow)]
    message: Cow<'a, str>,
}

/// The notes about one adapter's untyped instances, as stored.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredUntyped<'a> {
    adapter: &'a str,
    instances: u64,
    types: u64,
    state: u8,
}

/// Everything stored after the build's identity.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredReports<'a> {
    fingerprint: u64,
    #[serde(borrow)]
    files: Vec<(&'a str, Vec<StoredDiagnostic<'a>>)>,
    #[serde(borrow)]
    untyped: Vec<StoredUntyped<'a>>,
}

/// The state statuses, by their stored number ([`status_number`]).
const STATUSES: [StateStatus; 4] =
    [StateStatus::Missing, StateStatus::Loaded, StateStatus::Unreadable, StateStatus::Remote];

/// The number a state status is stored as: its place in [`STATUSES`].
fn status_number(status: &StateStatus) -> u8 {
    match status {
        StateStatus::Missing => 0,
        StateStatus::Loaded => 1,
        StateStatus::Unreadable => 2,
        StateStatus::Remote => 3,
    }
}

impl Reports {
    /// The reports of the workspace at `root` kept beside its cache `file` (none when there are
    /// none, or the file cannot be trusted).
    pub fn load(file: &CacheFile, root: &Path) -> Option<Reports> {
        let file = file.reports();
        let bytes = files::read_regular(&file, MAX_REPORTS_BYTES).ok()?;
        let payload = checked_payload(&bytes, MAGIC)?;
        let stored: StoredReports<'_> = postcard::from_bytes(payload).ok()?;
        let mut files = crate::hashing::NameMap::with_capacity_and_hasher(stored.files.len(), Default::default());
        for (path, diagnostics) in stored.files {
            let diagnostics: Option<Vec<Diagnostic>> = diagnostics.into_iter().map(diagnostic).collect();
            files.insert(path.into(), diagnostics?);
        }
        let untyped: Option<Vec<UntypedInstances>> = stored
            .untyped
            .into_iter()
            .map(|u| {
                Some(UntypedInstances {
                    adapter: u.adapter.to_owned(),
                    instances: usize::try_from(u.instances).ok()?,
                    types: usize::try_from(u.types).ok()?,
                    state: STATUSES.get(usize::from(u.state))?.clone(),
                })
            })
            .collect();
        Some(Reports { fingerprint: stored.fingerprint, root: root.to_path_buf(), files, untyped: untyped? })
    }

    /// The fingerprint of what they were computed from.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The diagnostics of the file at `path` (none for a file without any).
    pub fn diagnostics_of(&self, path: &Path) -> &[Diagnostic] {
        let relative = files::strip_base(path, &self.root).and_then(Path::to_str);
        relative.and_then(|p| self.files.get(p)).map_or(&[], Vec::as_slice)
    }

    /// The notes about untyped instances.
    pub fn untyped(&self) -> &[UntypedInstances] {
        &self.untyped
    }

    /// Every file with diagnostics: its path and its diagnostics.
    pub fn files(&self) -> impl Iterator<Item = (PathBuf, &[Diagnostic])> {
        self.files.iter().map(|(path, diagnostics)| (self.root.join(&**path), diagnostics.as_slice()))
    }
}

/// A stored diagnostic read back; `None` when its code is unknown.
fn diagnostic(stored: StoredDiagnostic<'_>) -> Option<Diagnostic> {
    let related = stored
        .related
        .into_iter()
        .map(|r| Related { path: PathBuf::from(r.path), range: r.range, message: r.message.into_owned() })
        .collect();
    let code = crate::codes::code_named(stored.code)?;
    Some(Diagnostic { code, range: stored.range, message: stored.message.into_owned(), related })
}

/// A diagnostic to store; `None` when a path in it is not UTF-8 (the reports are then not
/// stored at all).
fn stored(diagnostic: &Diagnostic) -> Option<StoredDiagnostic<'_>> {
    let related: Option<Vec<StoredRelated<'_>>> = diagnostic
        .related
        .iter()
        .map(|r| Some(StoredRelated { path: r.path.to_str()?, range: r.range, message: Cow::Borrowed(&r.message) }))
        .collect();
    Some(StoredDiagnostic {
        code: diagnostic.code.as_str(),
        range: diagnostic.range,
        message: Cow::Borrowed(&diagnostic.message),
        related: related?,
    })
}

/// Writes the reports of the workspace at `root`: each file's diagnostics (files without any
/// may be left out) and the notes about untyped instances, computed from inputs whose
/// fingerprint is `fingerprint`. Nothing is written when a path is not UTF-8.
pub fn save<'a>(
    folder: &Path,
    root: &Path,
    fingerprint: u64,
    reports: impl Iterator<Item = (&'a Path, &'a [Diagnostic])>,
    untyped: &[UntypedInstances],
) -> io::Result<()> {
    let Some(cache_file) = CacheFile::of(folder, root) else { return Ok(()) };
    let mut files = Vec::new();
    for (path, diagnostics) in reports.filter(|(_, d)| !d.is_empty()) {
        let Some(path) = files::strip_base(path, root).and_then(Path::to_str) else { return Ok(()) };
        let Some(diagnostics) = diagnostics.iter().map(stored).collect::<Option<Vec<_>>>() else { return Ok(()) };
        files.push((path, diagnostics));
    }
    let untyped = untyped
        .iter()
        .map(|u| StoredUntyped {
            adapter: &u.adapter,
            instances: u.instances as u64,
            types: u.types as u64,
            state: status_number(&u.state),
        })
        .collect();
    let payload = postcard::to_allocvec(&StoredReports { fingerprint, files, untyped }).map_err(io::Error::other)?;
    create_folder(folder)?;
    write_framed(&cache_file.reports(), MAGIC, |emit| emit(&payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::tests::workspace;

    /// The reports of the workspace at `root` kept in `folder`.
    fn load(folder: &Path, root: &Path) -> Option<Reports> {
        Reports::load(&CacheFile::of(folder, root).expect("a cache file"), root)
    }

    fn diagnostic(code: nacl_syntax::Code, related: Vec<Related>) -> Diagnostic {
        Diagnostic { code, range: TextRange::new(3.into(), 9.into()), message: "what is wrong".to_owned(), related }
    }

    #[test]
    fn reports_read_back_are_the_reports_written() {
        let (root, folder, _scratch) = workspace("reports");
        let related =
            Related { path: root.join("b.nacl"), range: TextRange::new(1.into(), 2.into()), message: "there".into() };
        let a = vec![
            diagnostic(crate::codes::AnalysisCode::DuplicateValue.code(), vec![related]),
            diagnostic(nacl_syntax::nacl::ErrorCode::ALL[0].code(), Vec::new()),
        ];
        let c = vec![diagnostic(nacl_syntax::hcl::ErrorCode::ALL[0].code(), Vec::new())];
        let (a_path, b_path, c_path) = (root.join("a.nacl"), root.join("b.nacl"), root.join("sub/c.hcl"));
        let untyped: Vec<UntypedInstances> = STATUSES
            .iter()
            .enumerate()
            .map(|(i, state)| UntypedInstances {
                adapter: format!("adapter{i}"),
                instances: i + 1,
                types: i,
                state: state.clone(),
            })
            .collect();
        let files = [(a_path.as_path(), a.as_slice()), (b_path.as_path(), &[][..]), (c_path.as_path(), c.as_slice())];
        save(&folder, &root, 42, files.into_iter(), &untyped).expect("save");
        let read = load(&folder, &root).expect("reports");
        assert_eq!(read.fingerprint(), 42);
        assert_eq!(read.diagnostics_of(&a_path), a.as_slice());
        assert_eq!(read.diagnostics_of(&b_path), &[]);
        assert_eq!(read.diagnostics_of(&c_path), c.as_slice());
        assert_eq!(read.diagnostics_of(Path::new("/elsewhere/a.nacl")), &[]);
        assert_eq!(read.untyped(), untyped.as_slice());

        // A code this build does not know: the reports are not served.
        let unknown = Diagnostic {
            code: nacl_syntax::Code::new("Z9999", nacl_syntax::Severity::Error, nacl_syntax::Stage::Analysis, "?"),
            ..a[1].clone()
        };
        save(&folder, &root, 42, [(a_path.as_path(), std::slice::from_ref(&unknown))].into_iter(), &[]).expect("save");
        assert!(load(&folder, &root).is_none());
        let _ = std::fs::remove_dir_all(folder.parent().expect("base"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_link_at_the_reports_name_is_not_read_nor_followed_and_is_replaced() {
        let (root, folder, _scratch) = workspace("reports-planted");
        std::fs::create_dir_all(&folder).expect("create");
        let file = CacheFile::of(&folder, &root).expect("a cache file").reports();
        let made = std::process::Command::new("mkfifo").arg(&file).status().expect("mkfifo runs");
        assert!(made.success());
        assert!(load(&folder, &root).is_none(), "a FIFO is not waited on");
        save(&folder, &root, 1, std::iter::empty(), &[]).expect("save");
        assert!(std::fs::symlink_metadata(&file).expect("reports").is_file());

        let victim = folder.join("victim.txt");
        std::fs::write(&victim, "keep").expect("write");
        std::fs::remove_file(&file).expect("remove");
        std::os::unix::fs::symlink(&victim, &file).expect("link");
        assert!(load(&folder, &root).is_none(), "a link is not read");
        save(&folder, &root, 1, std::iter::empty(), &[]).expect("save");
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
        assert!(std::fs::symlink_metadata(&file).expect("reports").is_file());
        assert_eq!(load(&folder, &root).map(|r| r.fingerprint()), Some(1));
        let _ = std::fs::remove_dir_all(folder.parent().expect("base"));
    }
}
