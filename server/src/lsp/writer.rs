//! The writer thread: the only owner of the open documents and of each workspace's database.
//!
//! It applies every message in arrival order. Reads never run on it: a request gets a
//! [`Snapshot`] (a second handle on the database, plus the document as it is now) and runs on a
//! worker thread; the next write cancels it, so a slow read never delays an edit. Diagnostics
//! are computed the same way, for open documents after every burst of edits and for the whole
//! workspace after indexing, saves and changes on disk.

use super::{
    convert::{self, Lines, Locator},
    logging::LogLevel,
    outgoing::{Outbox, Outgoing},
    paths::{self, Uris},
    settings::Settings,
};
use crate::{
    line_index::{Encoding, LineIndex},
    lsp::document::Document,
};
use nacl_analysis::{
    diagnostics::Diagnostic as NaclDiagnostic,
    files,
    layout::{self, Layout},
    state::{STATES_DIR, WorkspaceState},
    workspace::{self, LoadedWorkspace},
};
use std::{
    collections::{BTreeSet, HashMap, HashSet},
    path::{Path, PathBuf},
    sync::{Arc, OnceLock, mpsc},
    time::{Duration, Instant},
};
use tower_lsp_server::ls_types::{Diagnostic, FileChangeType, MessageType, TextDocumentContentChangeEvent, Uri};

/// How long the writer waits for more edits before computing diagnostics.
const DEBOUNCE: Duration = Duration::from_millis(3);
/// How long after a save or a change on disk the whole workspace is checked again.
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
    pub text: Arc<str>,
    index: OnceLock<LineIndex>,
}

impl OpenDocument {
    /// The text with its line index (built on first use).
    pub fn lines(&self, encoding: Encoding) -> Lines<'_> {
        Lines { text: &self.text, index: self.index.get_or_init(|| LineIndex::new(&self.text)), encoding }
    }
}

/// Starts the writer thread; returns the channel to send it messages.
pub fn spawn(outgoing: Outbox, log_level: Option<LogLevel>) -> std::io::Result<mpsc::Sender<Message>> {
    let (sender, receiver) = mpsc::channel();
    let requests = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("nacl-ls request {i}"))
        .build()
        .map_err(std::io::Error::other)?;
    let writer = Writer {
        messages: sender.clone(),
        outgoing,
        log_level,
        encoding: Encoding::Utf16,
        settings: Arc::default(),
        progress: false,
        pull: PullSupport::default(),
        workspace_pulled: false,
        roots: Vec::new(),
        folders: Vec::new(),
        buffers: HashMap::new(),
        unflushed: BTreeSet::new(),
        stale: HashSet::new(),
        generation: 0,
        uris: Uris::default(),
        requests,
    };
    std::thread::Builder::new().name("nacl-ls writer".to_owned()).spawn(move || writer.run(receiver))?;
    Ok(sender)
}

/// An open document: the buffer and its latest flushed version.
struct Buffer {
    document: Document,
    current: Arc<OpenDocument>,
}

/// One workspace: a folder the client opened (or the folder of a file opened outside any).
struct Root {
    path: PathBuf,
    workspace: LoadedWorkspace,
    /// Whether every file on disk is loaded; until then only open documents are.
    indexed: bool,
    /// A stand-in for documents outside every workspace folder: never loaded from disk.
    scratch: bool,
    /// The progress report of its indexing, until its first full check ends.
    progress: Option<String>,
    pass: Pass,
    /// Reads that need the whole workspace, waiting for indexing to end.
    waiting: Vec<(Uri, Job)>,
    /// How many reads of Salto's state were started: a read is kept only if it is the latest.
    state_reads: u64,
    /// Paths changed on disk that may be static files, applied together at the end of a batch
    /// of messages (a branch switch sends thousands).
    static_changes: Vec<PathBuf>,
    /// The notes already told the user (each is told once).
    told: HashSet<String>,
}

/// The state of a root's whole-workspace check.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Idle,
    Due(Instant),
    Running,
}

struct Writer {
    messages: mpsc::Sender<Message>,
    outgoing: Outbox,
    log_level: Option<LogLevel>,
    encoding: Encoding,
    settings: Arc<Settings>,
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
    /// Open documents whose diagnostics must be computed again.
    stale: HashSet<Uri>,
    /// Counts jobs, so that a stale job's result never overwrites a newer one.
    generation: u64,
    /// The URIs the client knows for paths (shared with every read).
    uris: Uris,
    requests: rayon::ThreadPool,
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
            if let Some(first) = first {
                // Apply everything already waiting (and, after edits, what follows within a few
                // milliseconds) before computing diagnostics: a burst of edits costs one analysis.
                let mut edited = self.handle_safely(first);
                loop {
                    let next = match messages.try_recv() {
                        Ok(next) => next,
                        Err(_) if edited => match messages.recv_timeout(DEBOUNCE) {
                            Ok(next) => next,
                            Err(_) => break,
                        },
                        Err(_) => break,
                    };
                    edited |= self.handle_safely(next);
                }
            }
            self.flush();
            self.spawn_diagnostics();
            self.start_due_passes();
        }
    }

    /// When the next whole-workspace check is due, if one is.
    fn next_deadline(&self) -> Option<Instant> {
        self.roots
            .iter()
            .filter(|r| r.indexed)
            .filter_map(|r| if let Pass::Due(at) = r.pass { Some(at) } else { None })
            .min()
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
                let current = open_document(&uri, &document, Arc::from(text));
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

    /// Marks every open document of a root for new diagnostics: an edit in one file can change
    /// what is reported in another.
    fn mark_stale(&mut self, root: usize) {
        for (uri, buffer) in &self.buffers {
            if self.root_of(&buffer.current.path) == Some(root) {
                self.stale.insert(uri.clone());
            }
        }
    }

    /// Computes the diagnostics of the stale open documents on a worker, one job per workspace.
    /// A client that pulls them is asked to pull again instead.
    fn spawn_diagnostics(&mut self) {
        if self.stale.is_empty() {
            return;
        }
        if self.pull.documents {
            // The client pulls an edited document itself; others may have changed with it.
            let others = self.stale.len() > 1;
            self.stale.clear();
            if self.pull.refresh && others {
                self.outgoing.send(Outgoing::Refresh);
            }
            return;
        }
        let mut by_root: HashMap<usize, Vec<Arc<OpenDocument>>> = HashMap::new();
        for uri in std::mem::take(&mut self.stale) {
            let Some(buffer) = self.buffers.get(&uri) else { continue };
            if let Some(root) = self.root_of(&buffer.current.path) {
                by_root.entry(root).or_default().push(buffer.current.clone());
            }
        }
        for (root, documents) in by_root {
            self.generation += 1;
            let job = DiagnosticsJob {
                workspace: self.roots[root].workspace.clone(),
                indexed: self.roots[root].indexed,
                settings: self.settings.clone(),
                encoding: self.encoding,
                uris: self.uris.clone(),
                generation: self.generation,
            };
            let (outgoing, messages) = (self.outgoing.clone(), self.messages.clone());
            self.requests.spawn(move || {
                let uris: Vec<Uri> = documents.iter().map(|d| d.uri.clone()).collect();
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    for document in &documents {
                        outgoing.send(job.publish(document));
                    }
                }));
                drop(job);
                match run {
                    Ok(()) => {}
                    Err(payload) if workspace::is_cancellation(&*payload) => {
                        let _ = messages.send(Message::DiagnosticsCancelled(uris));
                    }
                    Err(payload) => {
                        tracing::error!("internal error computing diagnostics: {}", panic_message(&*payload))
                    }
                }
            });
        }
    }

    /// Starts the whole-workspace checks that are due.
    fn start_due_passes(&mut self) {
        let now = Instant::now();
        for root in &mut self.roots {
            if !matches!(root.pass, Pass::Due(at) if at <= now) || !root.indexed {
                continue;
            }
            root.pass = Pass::Running;
            self.generation += 1;
            let open: HashMap<PathBuf, Uri> = self
                .buffers
                .iter()
                .map(|(uri, b)| (b.current.path.clone(), uri.clone()))
                .filter(|(path, _)| path.starts_with(&root.path))
                .collect();
            let job = DiagnosticsJob {
                workspace: root.workspace.clone(),
                indexed: true,
                settings: self.settings.clone(),
                encoding: self.encoding,
                uris: self.uris.clone(),
                generation: self.generation,
            };
            let (outgoing, messages, path) = (self.outgoing.clone(), self.messages.clone(), root.path.clone());
            let (pulled, refresh) = (self.workspace_pulled, self.pull.refresh);
            // The first check after indexing moves the folder's progress report from 90 to 100%.
            let token = root.progress.clone();
            rayon::spawn(move || {
                let report = |done: usize, total: usize| {
                    if let Some(token) = &token {
                        let percentage = 90 + (done * 10 / total.max(1)) as u32;
                        let message = format!("checked {done}/{total} files");
                        outgoing.send(Outgoing::ProgressReport { token: token.clone(), message, percentage });
                    }
                };
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    if pulled {
                        // The check still runs: it warms what the client's next pull reads.
                        (Outgoing::Refresh, job.notes(&report), refresh)
                    } else {
                        let (message, notes) = job.workspace_pass(&path, open, &report);
                        (message, notes, true)
                    }
                }));
                drop(job);
                let (cancelled, notes) = match run {
                    Ok((message, notes, send)) => {
                        if send {
                            outgoing.send(message);
                        }
                        (false, notes)
                    }
                    Err(payload) if workspace::is_cancellation(&*payload) => (true, Vec::new()),
                    Err(payload) => {
                        tracing::error!("internal error checking {}: {}", path.display(), panic_message(&*payload));
                        (false, Vec::new())
                    }
                };
                let _ = messages.send(Message::PassDone { root: path, cancelled, notes });
            });
        }
    }

    fn schedule_passes(&mut self, which: impl Fn(&Root) -> bool) {
        let at = Instant::now() + PASS_DELAY;
        for root in self.roots.iter_mut().filter(|r| !r.scratch && which(r)) {
            root.pass = Pass::Due(at);
        }
    }

    /// Schedules the whole-workspace check of the workspace holding `path`.
    fn schedule_pass_of(&mut self, path: &Path) {
        if let Some(root) = self.root_of(path).map(|i| self.roots[i].path.clone()) {
            self.schedule_passes(|r| r.path == root);
        }
    }

    fn apply_settings(&mut self, settings: Settings) {
        if let (Some(log), Some(level)) = (&self.log_level, &settings.log_level) {
            log.set(level);
        }
        let env_changed = settings.environment != self.settings.environment;
        self.settings = Arc::new(settings);
        for i in 0..self.roots.len() {
            if env_changed && !self.roots[i].scratch {
                self.roots[i].workspace.reload_layout(self.settings.environment.as_deref());
            }
            self.mark_stale(i);
        }
        self.schedule_passes(|_| true);
    }

    /// Opens a workspace folder: its open documents at once, every file on disk in the background.
    fn add_root(&mut self, folder: &Path) {
        self.uris.add_folder(folder);
        let path = layout::find_root(&paths::resolve(folder));
        if self.roots.iter().any(|r| r.path == path && !r.scratch) {
            return;
        }
        let token = self.progress.then(|| format!("nacl-ls/index/{}", self.roots.len()));
        if let Some(token) = &token {
            let title = format!("Indexing {}", path.display());
            self.outgoing.send(Outgoing::ProgressBegin { token: token.clone(), title });
        }
        let mut workspace = LoadedWorkspace::empty(&path);
        for buffer in self.buffers.values().filter(|b| b.current.path.starts_with(&path)) {
            workspace.set_file_text(&buffer.current.path, buffer.current.text.clone());
        }
        self.roots.push(Root {
            path: path.clone(),
            workspace,
            indexed: false,
            scratch: false,
            progress: token.clone(),
            pass: Pass::Idle,
            waiting: Vec::new(),
            state_reads: 0,
            static_changes: Vec::new(),
            told: HashSet::new(),
        });
        let index = self.roots.len() - 1;
        self.mark_stale(index);
        let (messages, outgoing, env) =
            (self.messages.clone(), self.outgoing.clone(), self.settings.environment.clone());
        let spawned = std::thread::Builder::new().name("nacl-ls loader".to_owned()).spawn(move || {
            let started = Instant::now();
            let report = |done: usize, total: usize| {
                if let Some(token) = &token {
                    let percentage = (done * 90 / total.max(1)) as u32;
                    let message = format!("{done}/{total} files");
                    outgoing.send(Outgoing::ProgressReport { token: token.clone(), message, percentage });
                }
            };
            // Salto's state is read beside the NaCl files, and set before anything reads the
            // workspace, so no read is cancelled by it.
            let (mut workspace, state) = rayon::join(
                || workspace::load_with_progress(&path, env.as_deref(), &report),
                || read_state(&Layout::load(&path, env.as_deref())),
            );
            workspace.set_state(state);
            tracing::info!("loaded {} in {:?}", path.display(), started.elapsed());
            let _ = messages.send(Message::Indexed { root: path, workspace });
        });
        if let Err(error) = spawned {
            tracing::error!("cannot start loading the workspace: {error}");
        }
    }

    /// A workspace finished loading: open documents override what was read from disk.
    fn indexed(&mut self, path: PathBuf, mut workspace: LoadedWorkspace) {
        let Some(index) = self.roots.iter().position(|r| r.path == path && !r.scratch) else { return };
        self.flush();
        for buffer in self.buffers.values().filter(|b| b.current.path.starts_with(&path)) {
            workspace.set_file_text(&buffer.current.path, buffer.current.text.clone());
        }
        // A folder too large to read whole (`/`, a home folder) is read up to the limits; say so.
        for (at, diagnostic) in workspace.load_errors.iter() {
            if diagnostic.code == nacl_syntax::ErrorCode::WorkspaceTooLarge {
                let message = format!("{}: {}", at.display(), diagnostic.message);
                self.outgoing.send(Outgoing::Show { level: MessageType::WARNING, message });
            }
        }
        let root = &mut self.roots[index];
        root.workspace = workspace;
        root.indexed = true;
        root.pass = Pass::Due(Instant::now());
        tell_once(&mut root.told, &self.outgoing, root.workspace.state_notes());
        if let Some(token) = &root.progress {
            let message = "checking".to_owned();
            self.outgoing.send(Outgoing::ProgressReport { token: token.clone(), message, percentage: 90 });
        }
        self.mark_stale(index);
        for (uri, job) in std::mem::take(&mut self.roots[index].waiting) {
            self.run_query(&uri, job);
        }
    }

    /// Salto's state was read: it joins the analysis, and the whole workspace is checked again.
    fn state_loaded(&mut self, path: PathBuf, generation: u64, state: Arc<WorkspaceState>) {
        let Some(index) = self.roots.iter().position(|r| r.path == path && !r.scratch) else { return };
        if self.roots[index].state_reads != generation {
            return;
        }
        self.flush();
        let root = &mut self.roots[index];
        root.workspace.set_state(state);
        tell_once(&mut root.told, &self.outgoing, root.workspace.state_notes());
        root.pass = Pass::Due(Instant::now());
        self.mark_stale(index);
    }

    /// Reads Salto's state of a workspace again in the background (a state file changed).
    fn reload_state(&mut self, index: usize) {
        let root = &mut self.roots[index];
        root.state_reads += 1;
        let (path, generation) = (root.path.clone(), root.state_reads);
        let layout = root.workspace.workspace.layout(&root.workspace.db).clone();
        let messages = self.messages.clone();
        let spawned = std::thread::Builder::new().name("nacl-ls state".to_owned()).spawn(move || {
            let state = read_state(&layout);
            let _ = messages.send(Message::StateLoaded { root: path, generation, state });
        });
        if let Err(error) = spawned {
            tracing::error!("cannot start reading Salto's state: {error}");
        }
    }

    fn remove_root(&mut self, folder: &Path) {
        let folder = paths::resolve(folder);
        self.uris.remove_folder(&folder);
        let path = layout::find_root(&folder);
        let Some(index) = self.roots.iter().position(|r| r.path == path && !r.scratch) else { return };
        let mut root = self.roots.remove(index);
        // Reads still waiting for it are answered from whatever holds their documents now.
        let waiting = std::mem::take(&mut root.waiting);
        if let Some(token) = root.progress {
            self.outgoing.send(Outgoing::ProgressEnd { token, message: "closed".to_owned() });
        }
        self.generation += 1;
        let open = self.buffers.keys().cloned().collect();
        self.outgoing.send(Outgoing::Workspace {
            roots: vec![path],
            files: Vec::new(),
            open,
            generation: self.generation,
        });
        // Open documents of the removed folder move to whatever holds them now.
        let moved: Vec<Uri> = self
            .buffers
            .iter()
            .filter(|(_, b)| b.current.path.starts_with(&root.path))
            .map(|(u, _)| u.clone())
            .collect();
        for uri in moved {
            let Some(buffer) = self.buffers.get(&uri) else { continue };
            let (file, text) = (buffer.current.path.clone(), buffer.current.text.clone());
            let target = self.root_for(&file);
            self.roots[target].workspace.set_file_text(&file, text);
            self.mark_stale(target);
        }
        for (uri, job) in waiting {
            self.run_query(&uri, job);
        }
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

    fn files_changed(&mut self, changes: Vec<(PathBuf, FileChangeType)>) {
        let open: HashSet<PathBuf> = self.buffers.values().map(|b| b.current.path.clone()).collect();
        let mut touched = BTreeSet::new();
        let mut reread_state = BTreeSet::new();
        for (path, kind) in changes {
            let Some(index) = self.root_of(&path) else { continue };
            let root = &mut self.roots[index];
            if root.scratch || !root.indexed {
                continue;
            }
            touched.insert(index);
            let config = root.path.join(layout::CONFIG_DIR);
            if path.starts_with(config.join(STATES_DIR)) {
                reread_state.insert(index);
                continue;
            }
            if path == config.join("envs.nacl") {
                root.workspace.reload_layout(self.settings.environment.as_deref());
                reread_state.insert(index);
            }
            if !files::is_nacl_file(&path) || path.is_dir() {
                root.static_changes.push(path);
            } else if open.contains(&path) {
                // The editor's buffer wins over the file on disk.
            } else if kind == FileChangeType::DELETED || !path.is_file() {
                root.workspace.remove_file(&path);
            } else {
                root.workspace.set_disk_text(&path, Arc::from(files::load(&path).text));
            }
        }
        for index in touched {
            self.mark_stale(index);
            self.roots[index].pass = Pass::Due(Instant::now() + PASS_DELAY);
        }
        for index in reread_state {
            self.reload_state(index);
        }
    }

    /// The workspace holding `path`: the innermost folder containing it.
    fn root_of(&self, path: &Path) -> Option<usize> {
        (0..self.roots.len())
            .filter(|&i| path.starts_with(&self.roots[i].path))
            .max_by_key(|&i| (self.roots[i].path.components().count(), !self.roots[i].scratch))
    }

    /// The workspace holding `path`, creating a scratch one (its folder, not loaded) if none does.
    fn root_for(&mut self, path: &Path) -> usize {
        if let Some(index) = self.root_of(path) {
            return index;
        }
        // A document that is not a file is its own island; a lone file shares its folder's.
        let folder = if paths::is_non_file(path) { path } else { path.parent().unwrap_or(path) }.to_path_buf();
        let workspace = LoadedWorkspace::empty(&folder);
        self.roots.push(Root {
            path: folder,
            workspace,
            indexed: true,
            scratch: true,
            progress: None,
            pass: Pass::Idle,
            waiting: Vec::new(),
            state_reads: 0,
            static_changes: Vec::new(),
            told: HashSet::new(),
        });
        self.roots.len() - 1
    }
}

/// Everything a diagnostics job needs, taken when it is spawned.
struct DiagnosticsJob {
    workspace: LoadedWorkspace,
    indexed: bool,
    settings: Arc<Settings>,
    encoding: Encoding,
    uris: Uris,
    generation: u64,
}

impl DiagnosticsJob {
    /// The diagnostics of an open document (only syntax errors until its workspace is indexed:
    /// references cannot be resolved before then).
    fn publish(&self, document: &OpenDocument) -> Outgoing {
        let diagnostics = match self.workspace.file(&document.path) {
            Some(file) => {
                let found = self.workspace.file_diagnostics(file);
                self.convert(found.iter().filter(|d| self.indexed || d.code.is_syntax()), document.lines(self.encoding))
            }
            None => Vec::new(),
        };
        Outgoing::Publish {
            uri: document.uri.clone(),
            version: Some(document.version),
            diagnostics,
            generation: self.generation,
        }
    }

    /// The diagnostics of every closed file of the workspace.
    /// Checks the whole workspace; also returns the notes about instances left untyped.
    fn workspace_pass(
        &self,
        root: &Path,
        open: HashMap<PathBuf, Uri>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> (Outgoing, Vec<String>) {
        let files = self
            .workspace
            .check_with_progress(None, progress)
            .into_iter()
            .filter(|report| !open.contains_key(&report.path))
            .filter_map(|report| {
                let index = LineIndex::new(&report.text);
                let lines = Lines { text: &report.text, index: &index, encoding: self.encoding };
                let diagnostics = self.convert(report.diagnostics.iter(), lines);
                let uri = self.uris.uri_of(&report.path)?;
                (!diagnostics.is_empty()).then_some((uri, diagnostics))
            })
            .collect();
        let open = open.into_values().collect();
        (
            Outgoing::Workspace { roots: self.uris.spellings(root), files, open, generation: self.generation },
            self.untyped_notes(),
        )
    }

    /// Checks the whole workspace without converting anything (for a client that pulls the
    /// results); returns the notes about instances left untyped.
    fn notes(&self, progress: &(dyn Fn(usize, usize) + Sync)) -> Vec<String> {
        drop(self.workspace.check_with_progress(None, progress));
        self.untyped_notes()
    }

    /// The notes about instances left untyped.
    fn untyped_notes(&self) -> Vec<String> {
        self.workspace.untyped_instances().iter().map(|u| u.message(u.reason())).collect()
    }

    fn convert<'a>(&self, found: impl Iterator<Item = &'a NaclDiagnostic>, lines: Lines<'_>) -> Vec<Diagnostic> {
        shown_diagnostics(&self.workspace, &self.settings, self.encoding, &self.uris, found, lines)
    }
}

/// The diagnostics the settings show, in LSP terms.
pub fn shown_diagnostics<'a>(
    workspace: &LoadedWorkspace,
    settings: &Settings,
    encoding: Encoding,
    uris: &Uris,
    found: impl Iterator<Item = &'a NaclDiagnostic>,
    lines: Lines<'_>,
) -> Vec<Diagnostic> {
    let shown = &settings.diagnostics;
    let mut locator = Locator::new(workspace, encoding, uris);
    found
        .filter(|d| shown.shows(d.code.as_str(), d.severity() == nacl_syntax::Severity::Error))
        .map(|d| convert::diagnostic(d, lines, &mut locator))
        .collect()
}

fn open_document(uri: &Uri, document: &Document, text: Arc<str>) -> Arc<OpenDocument> {
    Arc::new(OpenDocument {
        uri: uri.clone(),
        path: document.path.clone(),
        version: document.version,
        text,
        index: OnceLock::new(),
    })
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

/// Reads Salto's state of a workspace; a failure is logged and leaves the workspace without state.
fn read_state(layout: &Layout) -> Arc<WorkspaceState> {
    let started = Instant::now();
    match std::panic::catch_unwind(|| WorkspaceState::load(layout)) {
        Ok(state) => {
            tracing::info!("read Salto's state of {} in {:?}", layout.root.display(), started.elapsed());
            Arc::new(state)
        }
        Err(payload) => {
            tracing::error!("internal error reading Salto's state: {}", panic_message(&*payload));
            WorkspaceState::none()
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
