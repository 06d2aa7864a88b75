//! What a read sees: snapshots of a document and its workspace, or of every workspace.

use crate::lsp::{convert::Lines, paths::Uris, settings::Settings};
use crate::{
    line_index::{Encoding, LineIndex},
    lsp::document::Document,
};
use nacl_analysis::fragments::Text;
use nacl_analysis::workspace::LoadedWorkspace;
use std::{
    path::PathBuf,
    sync::{Arc, OnceLock},
};
use tower_lsp_server::ls_types::Uri;

/// What a read sees: the document and the workspace as they were when the request arrived.
pub struct Snapshot {
    /// The document, if it is open.
    pub document: Option<Arc<OpenDocument>>,
    /// The workspace holding it, if any (not indexed yet for syntax-level reads).
    pub workspace: Option<LoadedWorkspace>,
    /// How positions count columns.
    pub encoding: Encoding,
    /// The settings (which diagnostics are shown).
    pub settings: Arc<Settings>,
    /// The URIs the client knows for paths.
    pub uris: Uris,
}

/// What a read of every workspace sees.
pub struct WorkspacesSnapshot {
    /// The workspaces.
    pub workspaces: Vec<LoadedWorkspace>,
    /// How positions count columns.
    pub encoding: Encoding,
    /// The settings.
    pub settings: Arc<Settings>,
    /// The URIs the client knows for paths.
    pub uris: Uris,
}

/// An open document's text at one version.
pub struct OpenDocument {
    /// The document.
    pub uri: Uri,
    /// Its file.
    pub path: PathBuf,
    /// Its version.
    pub version: i32,
    /// Its text.
    pub text: Text,
    index: OnceLock<LineIndex>,
}

impl OpenDocument {
    /// The text with its line index (built on first use).
    pub fn lines(&self, encoding: Encoding) -> Lines<'_> {
        Lines { text: &self.text, index: self.index.get_or_init(|| LineIndex::new(&self.text)), encoding }
    }
}

pub(super) fn open_document(uri: &Uri, document: &Document, text: Text) -> Arc<OpenDocument> {
    Arc::new(OpenDocument {
        uri: uri.clone(),
        path: document.path.clone(),
        version: document.version,
        text,
        index: OnceLock::new(),
    })
}
