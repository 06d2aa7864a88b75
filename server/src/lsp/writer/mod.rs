//! The writer thread: the only owner of the open documents and of each workspace's database.
//!
//! It applies every message in arrival order. Reads never run on it: a request gets a
//! [`Snapshot`] (a second handle on the database, plus the document as it is now) and runs on a
//! worker thread; the next write cancels it, so a slow read never delays an edit. Diagnostics
//! are computed the same way: for open documents as soon as the edits waiting are applied, and
//! for the whole workspace after indexing, saves and changes on disk.
//!
//! This module holds the main loop and the messages; `snapshot` what reads see, `roots` the
//! workspaces (loading, state, changes on disk) and `diagnostics` the diagnostics jobs.

use super::{
    logging::LogLevel,
    outgoing::{Outbox, Outgoing},
    paths::{self, Uris},
    settings::Settings,
};
use crate::{line_index::Encoding, lsp::document::Document};
use nacl_analysis::fragments::Text;
use nacl_analysis::{
    files,
    language::LanguageRules,
    state::WorkspaceState,
    workspace::{FileReport, LoadedWorkspace},
};
use std::{
    collections::{BTreeSet, HashMap, HashSet},
    path::PathBuf,
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};
use tower_lsp_server::ls_types::{FileChangeType, MessageType, TextDocumentContentChangeEvent, Uri};

mod diagnostics;
mod roots;
mod schedule;
mod snapshot;

pub use diagnostics::shown_diagnostics;
use roots::Root;
use schedule::Pass;
use snapshot::open_document;
pub use snapshot::{OpenDocument, Snapshot, WorkspacesSnapshot};

/// How long after a save or a change on disk (and after the last edit) the whole workspace is
/// checked again.
const PASS_DELAY: Duration = Duration::from_millis(200);

/// Work to run on a snapshot, on a worker thread.
pub type Job = Box<dyn FnOnce(Snapshot) + Send>;

/// What the handlers (and the writer's own workers) send the writer, in arrival order.
pub enum Message {
    /// The client is ready for the server's own requests: index the workspace folders now.
    Initialized,
    /// The client's workspace folders, the negotiated position encoding and the initial settings.
    Initialize {
        /// Workspace folders.
        roots: Vec<PathBuf>,
        /// How positions count columns.
        encoding: Encoding,
        /// Settings from `initializationOptions`.
        settings: Settings,
        /// Whether the client shows work-done progress.
        progress: bool,
        /// How the client wants diagnostics.
        pull: PullSupport,
    },
    /// The client pulls the diagnostics of the whole workspace (`workspace/diagnostic`): closed
    /// files' diagnostics are no longer pushed.
    WorkspacePulled,
    /// A document was opened.
    Open {
        /// The document.
        uri: Uri,
        /// Its version.
        version: i32,
        /// Its text.
        text: String,
    },
    /// A document changed.
    Change {
        /// The document.
        uri: Uri,
        /// Its new version.
        version: i32,
        /// The changes, in order.
        changes: Vec<TextDocumentContentChangeEvent>,
    },
    /// A document was closed.
    Close {
        /// The document.
        uri: Uri,
    },
    /// A document was saved.
    Saved {
        /// The document.
        uri: Uri,
    },
    /// Files changed on disk (from the client's file watcher).
    FilesChanged(Vec<(PathBuf, FileChangeType)>),
    /// New settings.
    Settings(Settings),
    /// Workspace folders were added or removed.
    Folders {
        /// New folders.
        added: Vec<PathBuf>,
        /// Folders no longer open.
        removed: Vec<PathBuf>,
    },
    /// Run a read on a snapshot.
    Query {
        /// The document the read is about.
        uri: Uri,
        /// Whether the read needs the workspace (syntax-level reads do not).
        workspace: bool,
        /// The read.
        job: Job,
    },
    /// Run a read on a snapshot of every workspace (workspace symbols, workspace diagnostics).
    QueryAll {
        /// Whether workspaces still being indexed are left out.
        indexed_only: bool,
        /// The read.
        job: Box<dyn FnOnce(WorkspacesSnapshot) + Send>,
    },
    /// The diagnostics the files of a loading workspace have on their own, computed as they were
    /// read (from its loader thread, before [`Message::Indexed`]).
    OwnDiagnostics {
        /// Its root.
        root: PathBuf,
        /// The files with any.
        reports: Vec<FileReport>,
    },
    /// A workspace finished loading (from its loader thread).
    Indexed {
        /// Its root.
        root: PathBuf,
        /// What was loaded.
        workspace: LoadedWorkspace,
    },
    /// Salto's state files of a workspace were read again (from a loader thread).
    StateLoaded {
        /// The workspace root.
        root: PathBuf,
        /// Which read of the state this is: only the latest one is kept.
        generation: u64,
        /// What was read.
        state: Arc<WorkspaceState>,
    },
    /// A diagnostics job was cancelled by a write before it finished these documents.
    DiagnosticsCancelled(Vec<Uri>),
    /// A whole-workspace check finished or was cancelled.
    PassDone {
        /// The workspace root.
        root: PathBuf,
        /// Whether a write cancelled it.
        cancelled: bool,
        /// What to tell the user once about the workspace (instances left untyped).
        notes: Vec<String>,
    },
}

impl Message {
    /// The message's name, for the log.
    fn name(&self) -> &'static str {
        match self {
            Message::Initialize { .. } => "initialize",
            Message::Initialized => "initialized",
            Message::WorkspacePulled => "workspace pulled",
            Message::Open { .. } => "open",
            Message::Change { .. } => "change",
            Message::Close { .. } => "close",
            Message::Saved { .. } => "saved",
            Message::FilesChanged(_) => "files changed",
            Message::Settings(_) => "settings",
            Message::Folders { .. } => "folders",
            Message::Query { .. } => "query",
            Message::QueryAll { .. } => "query all",
            Message::OwnDiagnostics { .. } => "own diagnostics",
            Message::Indexed { .. } => "indexed",
            Message::StateLoaded { .. } => "state loaded",
            Message::DiagnosticsCancelled(_) => "diagnostics cancelled",
            Message::PassDone { cancelled: true, .. } => "check cancelled",
            Message::PassDone { .. } => "check done",
        }
    }
}

/// How the client wants diagnostics, from its capabilities.
#[derive(Debug, Clone, Copy, Default)]
pub struct PullSupport {
    /// It pulls the diagnostics of open documents (`textDocument/diagnostic`): they are not pushed.
    pub documents: bool,
    /// It pulls again when asked to (`workspace/diagnostic/refresh`).
    pub refresh: bool,
}

/// Starts the writer thread; returns the channel to send it messages.
pub fn spawn(outgoing: Outbox, log_level: Option<LogLevel>) -> std::io::Result<mpsc::Sender<Message>> {
    let (sender, receiver) = mpsc::channel();
    let requests = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("nacl-ls request {i}"))
        .build()
        .map_err(std::io::Error::other)?;
    let tables = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(|_| "nacl-ls tables".to_owned())
        .build()
        .map_err(std::io::Error::other)?;
    let writer = Writer {
        messages: sender.clone(),
        outgoing,
        log_level,
        encoding: Encoding::Utf16,
        settings: Arc::default(),
        languages: Arc::default(),
        progress: false,
        pull: PullSupport::default(),
        workspace_pulled: false,
        roots: Vec::new(),
        folders: Vec::new(),
        buffers: HashMap::new(),
        unflushed: BTreeSet::new(),
        edited: HashSet::new(),
        stale: HashSet::new(),
        generation: 0,
        uris: Uris::default(),
        requests,
        tables,
    };
    std::thread::Builder::new().name("nacl-ls writer".to_owned()).spawn(move || writer.run(receiver))?;
    Ok(sender)
}

/// An open document: the buffer and its latest flushed version.
struct Buffer {
    document: Document,
    current: Arc<OpenDocument>,
}

struct Writer {
    messages: mpsc::Sender<Message>,
    outgoing: Outbox,
    log_level: Option<LogLevel>,
    encoding: Encoding,
    settings: Arc<Settings>,
    /// Which language a document that opens is in (the setting `hcl.files`).
    languages: Arc<LanguageRules>,
    progress: bool,
    pull: PullSupport,
    /// Whether the client has pulled the workspace's diagnostics (so they are not pushed).
    workspace_pulled: bool,
    roots: Vec<Root>,
    /// The workspace folders, from `initialize` until `initialized` starts indexing them.
    folders: Vec<PathBuf>,
    buffers: HashMap<Uri, Buffer>,
    /// Documents edited since their text was last written to the database.
    unflushed: BTreeSet<Uri>,
    /// The documents flushed since diagnostics were last spawned (theirs are computed first).
    edited: HashSet<Uri>,
    /// Open documents whose diagnostics must be computed again.
    stale: HashSet<Uri>,
    /// Counts jobs, so that a stale job's result never overwrites a newer one.
    generation: u64,
    /// The URIs the client knows for paths (shared with every read).
    uris: Uris,
    requests: rayon::ThreadPool,
    /// Where search tables are built after writes: one thread of its own, since work queued on
    /// the shared pool waits behind a whole-workspace check, which keeps it busy for seconds in
    /// a large workspace.
    tables: rayon::ThreadPool,
}

impl Writer {
    fn run(mut self, messages: mpsc::Receiver<Message>) {
        loop {
            let first = match self.next_deadline() {
                None => match messages.recv() {
                    Ok(message) => Some(message),
                    Err(mpsc::RecvError) => return,
                },
                Some(deadline) => match messages.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                    Ok(message) => Some(message),
                    Err(mpsc::RecvTimeoutError::Timeout) => None,
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                },
            };
            let mut edited = false;
            if let Some(first) = first {
                // Apply everything already waiting before computing diagnostics: edits that queued
                // up cost one analysis. There is no wait for more: diagnostics start at once, and
                // the next edit cancels them.
                edited = self.handle_safely(first);
                while let Ok(next) = messages.try_recv() {
                    edited |= self.handle_safely(next);
                }
            }
            self.flush();
            self.spawn_diagnostics();
            self.outdate_tables();
            if edited {
                self.postpone_due_passes();
            }
            self.start_due_passes();
        }
    }

    /// Moves every due whole-workspace check and building of search tables to [`PASS_DELAY`]
    /// after now: while the user types, work started between two keystrokes would only be
    /// cancelled by the next one, and cancelling work on a large workspace delays that
    /// keystroke's diagnostics.
    fn postpone_due_passes(&mut self) {
        let at = Instant::now() + PASS_DELAY;
        for root in &mut self.roots {
            schedule::postpone(&mut root.pass, &mut root.tables, at);
        }
    }

    /// When the next whole-workspace check or building of search tables is due, if one is.
    fn next_deadline(&self) -> Option<Instant> {
        self.roots.iter().filter(|r| r.indexed).filter_map(|r| schedule::deadline(r.pass, r.tables)).min()
    }

    /// Handles a message; returns whether it edited a document. A panic is contained and
    /// logged, so the server keeps serving.
    fn handle_safely(&mut self, message: Message) -> bool {
        let edit = matches!(message, Message::Change { .. });
        if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(message))) {
            tracing::error!("internal error while handling a message: {}", panic_message(&*payload));
        }
        edit
    }

    fn handle(&mut self, message: Message) {
        tracing::debug!("message {}", message.name());
        match message {
            Message::Initialize { roots, encoding, settings, progress, pull } => {
                self.encoding = encoding;
                self.progress = progress;
                self.pull = pull;
                self.apply_settings(settings);
                self.folders = roots;
            }
            Message::Initialized => {
                for folder in std::mem::take(&mut self.folders) {
                    self.add_root(&folder);
                }
            }
            Message::WorkspacePulled => {
                if !std::mem::replace(&mut self.workspace_pulled, true) {
                    // What was pushed for closed files goes: the pulled reports replace it.
                    let open: HashSet<Uri> = self.buffers.keys().cloned().collect();
                    self.generation += 1;
                    for root in self.roots.iter().filter(|r| !r.scratch) {
                        self.outgoing.send(Outgoing::Workspace {
                            roots: self.uris.spellings(&root.path),
                            files: Vec::new(),
                            open: open.clone(),
                            generation: self.generation,
                        });
                    }
                }
            }
            Message::Open { uri, version, text } => {
                if text.len() as u64 > files::MAX_FILE_SIZE {
                    self.refuse_too_large(&uri, text.len());
                    return;
                }
                let path = paths::real_path(&uri);
                self.uris.open(&path, &uri);
                let root = self.root_for(&path);
                let document = Document::new(path.clone(), version, &text);
                let current = open_document(&uri, &document, Text::from(text));
                self.roots[root].workspace.set_file_text(&path, current.text.clone());
                if self.pull.documents {
                    // Pulled from now on: what was pushed while it was closed goes.
                    self.outgoing.send(Outgoing::Clear(uri.clone()));
                }
                self.buffers.insert(uri, Buffer { document, current });
                self.mark_stale(root);
            }
            Message::Change { uri, version, changes } => {
                let Some(buffer) = self.buffers.get_mut(&uri) else {
                    tracing::warn!("ignoring a change to {}, which is not open", uri.as_str());
                    return;
                };
                for change in &changes {
                    buffer.document.apply(change, self.encoding);
                }
                buffer.document.version = version;
                let size = buffer.document.len_bytes();
                if size as u64 > files::MAX_FILE_SIZE {
                    self.close(uri.clone());
                    self.refuse_too_large(&uri, size);
                    return;
                }
                self.unflushed.insert(uri);
            }
            Message::Close { uri } => self.close(uri),
            // Closed files of the saved document's workspace may report differently now.
            Message::Saved { uri } => self.schedule_pass_of(&self.path_of_document(&uri)),
            Message::FilesChanged(changes) => self.files_changed(changes),
            Message::Settings(settings) => self.apply_settings(settings),
            Message::Folders { added, removed } => {
                for path in removed {
                    self.remove_root(&path);
                }
                for path in added {
                    self.add_root(&path);
                }
            }
            Message::Query { uri, workspace, job } => {
                // Syntax-level reads never wait; the others wait until their workspace is indexed.
                if workspace
                    && let Some(root) = self.root_of(&self.path_of_document(&uri))
                    && !self.roots[root].indexed
                {
                    self.roots[root].waiting.push((uri, job));
                    return;
                }
                self.flush();
                self.run_query(&uri, job);
            }
            Message::QueryAll { indexed_only, job } => {
                self.flush();
                let workspaces = self
                    .roots
                    .iter()
                    .filter(|r| !r.scratch && (r.indexed || !indexed_only))
                    .map(|r| r.workspace.clone())
                    .collect();
                let snapshot = WorkspacesSnapshot {
                    workspaces,
                    encoding: self.encoding,
                    settings: self.settings.clone(),
                    uris: self.uris.clone(),
                };
                self.requests.spawn(move || job(snapshot));
            }
            Message::OwnDiagnostics { root, reports } => self.own_diagnostics(root, reports),
            Message::Indexed { root, workspace } => self.indexed(root, workspace),
            Message::StateLoaded { root, generation, state } => self.state_loaded(root, generation, state),
            Message::DiagnosticsCancelled(uris) => {
                self.stale.extend(uris.into_iter().filter(|uri| self.buffers.contains_key(uri)));
            }
            Message::PassDone { root, cancelled, notes } => {
                let Some(root) = self.roots.iter_mut().find(|r| r.path == root) else { return };
                tell_once(&mut root.told, &self.outgoing, notes);
                if cancelled {
                    root.pass = Pass::Due(Instant::now() + PASS_DELAY);
                } else {
                    if root.pass == Pass::Running {
                        root.pass = Pass::Idle;
                    }
                    if let Some(token) = root.progress.take() {
                        let message = format!("{} files", root.workspace.workspace.files(&root.workspace.db).len());
                        self.outgoing.send(Outgoing::ProgressEnd { token, message });
                    }
                }
            }
        }
    }

    /// Writes the text of every edited document, and the static files changed on disk, to the
    /// workspaces.
    fn flush(&mut self) {
        for root in &mut self.roots {
            if !root.static_changes.is_empty() {
                let changes = std::mem::take(&mut root.static_changes);
                root.workspace.static_paths_changed(&changes);
            }
        }
        for uri in std::mem::take(&mut self.unflushed) {
            let Some(buffer) = self.buffers.get_mut(&uri) else { continue };
            buffer.current = open_document(&uri, &buffer.document, buffer.document.text());
            self.edited.insert(uri.clone());
            let (path, text) = (buffer.current.path.clone(), buffer.current.text.clone());
            let root = self.root_for(&path);
            self.roots[root].workspace.set_file_text(&path, text);
            self.mark_stale(root);
        }
    }

    /// Runs a read on a snapshot, on a worker.
    fn run_query(&self, uri: &Uri, job: Job) {
        let document = self.buffers.get(uri).map(|b| b.current.clone());
        let path = self.path_of_document(uri);
        // Syntax-level reads get the workspace too when there is one (for its kept syntax trees);
        // they only do not wait for indexing.
        let workspace = self.root_of(&path).map(|i| self.roots[i].workspace.clone());
        let snapshot = Snapshot {
            document,
            workspace,
            encoding: self.encoding,
            settings: self.settings.clone(),
            uris: self.uris.clone(),
        };
        self.requests.spawn(move || job(snapshot));
    }

    fn path_of_document(&self, uri: &Uri) -> PathBuf {
        self.buffers.get(uri).map_or_else(|| paths::real_path(uri), |b| b.current.path.clone())
    }

    /// Gives a workspace what the settings say of it (see [`configure`]).
    fn configure(&self, workspace: &mut LoadedWorkspace) {
        configure(&self.languages, &self.settings, workspace);
    }

    fn apply_settings(&mut self, settings: Settings) {
        if let (Some(log), Some(level)) = (&self.log_level, &settings.log_level) {
            log.set(level);
        }
        let env_changed = settings.environment != self.settings.environment;
        match LanguageRules::with_hcl_globs(&settings.hcl.files) {
            Ok(rules) => self.languages = Arc::new(rules),
            Err(error) => {
                let message = format!("nacl-ls ignores the setting hcl.files: {error}");
                self.outgoing.send(Outgoing::Show { level: MessageType::WARNING, message });
            }
        }
        self.settings = Arc::new(settings);
        for i in 0..self.roots.len() {
            configure(&self.languages, &self.settings, &mut self.roots[i].workspace);
            if env_changed && !self.roots[i].scratch {
                self.roots[i].workspace.reload_layout(self.settings.environment.as_deref());
            }
            self.mark_stale(i);
        }
        self.schedule_passes(|_| true);
    }

    /// Tells the user that a document is too large to analyse; it is not kept (its changes
    /// are ignored until it is opened again), as files that large on disk are not read.
    fn refuse_too_large(&self, uri: &Uri, size: usize) {
        let message = format!(
            "nacl-ls does not analyse {}: it is {} MiB, and nacl-ls analyses files of up to {} MiB",
            uri.as_str(),
            size.div_ceil(1 << 20),
            files::MAX_FILE_SIZE >> 20
        );
        self.outgoing.send(Outgoing::Show { level: MessageType::WARNING, message });
    }

    fn close(&mut self, uri: Uri) {
        self.unflushed.remove(&uri);
        self.stale.remove(&uri);
        let Some(buffer) = self.buffers.remove(&uri) else { return };
        let path = buffer.current.path.clone();
        self.uris.close(&path);
        if let Some(index) = self.root_of(&path) {
            let root = &mut self.roots[index];
            // The file on disk takes over again; a buffer that never was a file goes away.
            if !root.scratch && path.is_file() {
                root.workspace.reload_file(&path);
            } else {
                root.workspace.remove_file(&path);
            }
            self.mark_stale(index);
        }
        self.generation += 1;
        self.outgoing.send(Outgoing::Publish {
            uri,
            version: None,
            diagnostics: Vec::new(),
            generation: self.generation,
        });
        self.schedule_pass_of(&path);
    }
}

/// Tells the user (in the client's log) each note not told before.
fn tell_once(told: &mut HashSet<String>, outgoing: &Outbox, notes: Vec<String>) {
    for note in notes {
        if told.insert(note.clone()) {
            let message = format!("nacl-ls: {note}");
            outgoing.send(Outgoing::Log { level: MessageType::INFO, message });
        }
    }
}

/// The text of a panic, for the log.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

/// Gives a workspace what the settings say of it: which files are HCL, which specs describe
/// which files.
fn configure(languages: &Arc<LanguageRules>, settings: &Settings, workspace: &mut LoadedWorkspace) {
    workspace.languages = languages.clone();
    workspace.set_spec_rules(settings.hcldec.rules());
}
