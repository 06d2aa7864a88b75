//! Where documents are: the one place that turns the client's URIs into the paths the analysis
//! uses, and paths back into URIs the client knows.
//!
//! A `file:` URI becomes its real path (symbolic links and `..` resolved), so that a workspace
//! folder written `/home/me/work/../ws`, reached through a link, or added twice by two spellings
//! is one place, and the documents in it are found in it. Going back, an open document keeps the
//! URI the client sent, and a closed file under a workspace folder gets a URI under the folder as
//! the client wrote it. Any other URI (`untitled:`, `http:`, a `file:` URI with a host) is a
//! document of its own: it gets a stand-in path no other document or folder shares.

use std::{
    collections::HashMap,
    path::{Component, Path, PathBuf},
    sync::{Arc, RwLock},
};
use tower_lsp_server::ls_types::Uri;

/// The folder the stand-in paths of non-file documents live in.
const NON_FILE_ROOT: &str = "/\u{0}nacl-ls non-file documents";

/// The real path of a `file:` URI, or a stand-in path for any other document.
pub fn real_path(uri: &Uri) -> PathBuf {
    match file_path(uri) {
        Some(path) => resolve(&path),
        None => non_file_path(uri),
    }
}

/// The path of a `file:` URI on this machine (none for other schemes or a host other than
/// `localhost`), not yet resolved.
pub fn file_path(uri: &Uri) -> Option<PathBuf> {
    if !uri.scheme().as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    let host = uri.authority().map(|a| a.host().to_ascii_lowercase()).unwrap_or_default();
    if !(host.is_empty() || host == "localhost") {
        return None;
    }
    let path = uri.to_file_path()?.into_owned();
    path.is_absolute().then_some(path)
}

/// The stand-in path of a document that is not a file on this machine: one component under a
/// folder no real path can be in (its name holds a NUL), so it is its own island.
fn non_file_path(uri: &Uri) -> PathBuf {
    let name = uri.as_str().replace('%', "%25").replace('/', "%2F");
    Path::new(NON_FILE_ROOT).join(name)
}

/// Whether a path is a non-file document's stand-in.
pub fn is_non_file(path: &Path) -> bool {
    path.starts_with(NON_FILE_ROOT)
}

/// A path with links and `..` resolved: the real path when it exists; else its nearest existing
/// folder's real path with the rest appended (a new, unsaved file); `.` and `..` are taken out.
pub fn resolve(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let lexical = normalized(path);
    let mut rest = Vec::new();
    let mut existing = lexical.as_path();
    while let Some(parent) = existing.parent() {
        rest.push(existing.file_name().map(ToOwned::to_owned).unwrap_or_default());
        if let Ok(real) = std::fs::canonicalize(parent) {
            return rest.iter().rev().fold(real, |path, part| path.join(part));
        }
        existing = parent;
    }
    lexical
}

/// Where the entry `path` names lies, its folder resolved ([`resolve`]) but not the entry itself:
/// for a link, the place of the link, not of what it leads to.
pub fn own_place(path: &Path) -> PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => resolve(parent).join(name),
        _ => resolve(path),
    }
}

/// `.` and `..` taken out of a path without looking at the disk.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The map from real paths back to the client's URIs, shared by the writer (which changes it as
/// folders and documents come and go) and the reads (which turn paths into locations).
#[derive(Debug, Default, Clone)]
pub struct Uris(Arc<RwLock<Known>>);

#[derive(Debug, Default)]
struct Known {
    /// Workspace folders: the real path and the path as the client wrote it.
    folders: Vec<(PathBuf, PathBuf)>,
    /// Open documents (and non-file ones): the real path and the URI the client sent.
    documents: HashMap<PathBuf, Uri>,
}

impl Uris {
    /// Remembers a workspace folder as the client wrote it.
    pub fn add_folder(&self, client: &Path) {
        let real = resolve(client);
        let mut known = self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !known.folders.iter().any(|(r, _)| *r == real) {
            known.folders.push((real, client.to_path_buf()));
        }
    }

    /// Forgets a workspace folder.
    pub fn remove_folder(&self, real: &Path) {
        let mut known = self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        known.folders.retain(|(r, _)| r != real);
    }

    /// Remembers the URI of an open document.
    pub fn open(&self, real: &Path, uri: &Uri) {
        let mut known = self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        known.documents.insert(real.to_path_buf(), uri.clone());
    }

    /// Forgets a closed document.
    pub fn close(&self, real: &Path) {
        let mut known = self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        known.documents.remove(real);
    }

    /// The paths a workspace root may be spelled with in URIs the client was sent: its real path
    /// and the client's spelling of each folder inside it.
    pub fn spellings(&self, root: &Path) -> Vec<PathBuf> {
        let known = self.0.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut out = vec![root.to_path_buf()];
        out.extend(known.folders.iter().filter(|(real, _)| real.starts_with(root)).map(|(_, client)| client.clone()));
        out
    }

    /// The URI the client knows for a real path: an open document's own, else one under the
    /// workspace folder holding it as the client wrote that folder, else the path's.
    pub fn uri_of(&self, real: &Path) -> Option<Uri> {
        let known = self.0.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(uri) = known.documents.get(real) {
            return Some(uri.clone());
        }
        if is_non_file(real) {
            return None;
        }
        let spelled = known
            .folders
            .iter()
            .filter_map(|(folder, client)| Some((folder, client.join(real.strip_prefix(folder).ok()?))))
            .max_by_key(|(folder, _)| folder.components().count())
            .map(|(_, path)| path);
        Uri::from_file_path(spelled.as_deref().unwrap_or(real))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(text: &str) -> Uri {
        text.parse().expect("a URI")
    }

    #[test]
    fn non_file_documents_are_islands() {
        let untitled = real_path(&uri("untitled:Untitled-1"));
        let web = real_path(&uri("http://example.com/a/b.nacl"));
        let unc = real_path(&uri("file://server/share/a.nacl"));
        for path in [&untitled, &web, &unc] {
            assert!(is_non_file(path), "{}", path.display());
            assert_eq!(path.components().count(), 3, "one component under the stand-in folder: {}", path.display());
        }
        assert_ne!(untitled, web);
        assert!(!untitled.starts_with(&web) && !web.starts_with(&untitled));
        assert!(!Path::new("/home/me/a.nacl").starts_with(untitled.parent().expect("folder")));
    }

    #[test]
    fn file_uris_resolve_dot_dot_and_links() {
        let dir = std::env::temp_dir().join(format!("nacl-ls-paths-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("ws/sub")).expect("dir");
        let real = std::fs::canonicalize(dir.join("ws")).expect("real");
        assert_eq!(resolve(&dir.join("ws/sub/../sub/../")), real);
        assert_eq!(resolve(&dir.join("ws/./new.nacl")), real.join("new.nacl"));
        assert_eq!(resolve(&dir.join("ws/sub/../missing/new.nacl")), real.join("missing/new.nacl"));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("ws"), dir.join("link")).expect("symlink");
            assert_eq!(resolve(&dir.join("link/sub")), real.join("sub"));
            // The link's own place, and a place under it.
            assert_eq!(own_place(&dir.join("link")), std::fs::canonicalize(&dir).expect("real").join("link"));
            assert_eq!(own_place(&dir.join("link/sub/new.nacl")), real.join("sub/new.nacl"));
            let uris = Uris::default();
            uris.add_folder(&dir.join("link"));
            let shown = uris.uri_of(&real.join("sub/a.nacl")).expect("a URI");
            assert!(shown.as_str().ends_with("/link/sub/a.nacl"), "{}", shown.as_str());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
