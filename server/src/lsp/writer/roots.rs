//! The workspaces: folders coming and going, loading and indexing them, Salto's state, and
//! changes on disk.

use super::schedule::{Pass, Tables};
use super::{Job, Message, PASS_DELAY, Writer, panic_message, tell_once};

use crate::lsp::{outgoing::Outgoing, paths};
use nacl_analysis::{
    files,
    layout::{self, Layout},
    state::{STATES_DIR, WorkspaceState},
    workspace::{self, LoadedWorkspace, Revision},
};
use std::{
    collections::{BTreeSet, HashSet},
    path::{Path, PathBuf},
    sync::Arc,
    time::Instant,
};
use tower_lsp_server::ls_types::{FileChangeType, MessageType, Uri};

/// One workspace: a folder the client opened (or the folder of a file opened outside any).
pub(super) struct Root {
    pub(super) path: PathBuf,
    pub(super) workspace: LoadedWorkspace,
    /// Whether every file on disk is loaded; until then only open documents are.
    pub(super) indexed: bool,
    /// A stand-in for documents outside every workspace folder: never loaded from disk.
    pub(super) scratch: bool,
    /// The progress report of its indexing, until its first full check ends.
    pub(super) progress: Option<String>,
    /// Where the tables workspace symbols and find references search stand.
    pub(super) tables: Tables,
    /// The workspace's revision when the tables last started building.
    pub(super) tables_at: Option<Revision>,
    pub(super) pass: Pass,
    /// Reads that need the whole workspace, waiting for indexing to end.
    pub(super) waiting: Vec<(Uri, Job)>,
    /// How many reads of Salto's state were started: a read is kept only if it is the latest.
    pub(super) state_reads: u64,
    /// Paths changed on disk that may be static files, applied together at the end of a batch
    /// of messages (a branch switch sends thousands).
    pub(super) static_changes: Vec<PathBuf>,
    /// The notes already told the user (each is told once).
    pub(super) told: HashSet<String>,
}

impl Writer {
    /// Opens a workspace folder: its open documents at once, every file on disk in the background.
    pub(super) fn add_root(&mut self, folder: &Path) {
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
        self.configure(&mut workspace);
        for buffer in self.buffers.values().filter(|b| b.current.path.starts_with(&path)) {
            workspace.set_file_text(&buffer.current.path, buffer.current.text.clone());
        }
        self.roots.push(Root {
            path: path.clone(),
            workspace,
            indexed: false,
            scratch: false,
            progress: token.clone(),
            tables: Tables::Unbuilt,
            tables_at: None,
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
            // Every file's own results now, in parallel, and kept for the next start; when the
            // cache's reports are this workspace's, after they are published (the first check's
            // warming up).
            if !workspace.reports_cached() {
                workspace.compute_file_results();
                let reports = workspace.own_reports();
                let _ = messages.send(Message::OwnDiagnostics { root: path.clone(), reports });
                if let Err(error) = workspace.save_cache() {
                    tracing::warn!("cannot write the cache of {}: {error}", path.display());
                }
            }
            tracing::info!(
                "loaded {} in {:?} ({} files from the cache, {} not read)",
                path.display(),
                started.elapsed(),
                workspace.from_cache,
                workspace.unread_files()
            );
            let _ = messages.send(Message::Indexed { root: path, workspace });
        });
        if let Err(error) = spawned {
            tracing::error!("cannot start loading the workspace: {error}");
        }
    }

    /// A workspace finished loading: open documents override what was read from disk.
    pub(super) fn indexed(&mut self, path: PathBuf, mut workspace: LoadedWorkspace) {
        let Some(index) = self.roots.iter().position(|r| r.path == path && !r.scratch) else { return };
        self.flush();
        self.configure(&mut workspace);
        for buffer in self.buffers.values().filter(|b| b.current.path.starts_with(&path)) {
            workspace.set_file_text(&buffer.current.path, buffer.current.text.clone());
        }
        // A folder too large to read whole (`/`, a home folder) is read up to the limits; say so.
        for (at, diagnostic) in workspace.load_errors.iter() {
            if diagnostic.code == nacl_analysis::codes::AnalysisCode::WorkspaceTooLarge {
                let message = format!("{}: {}", at.display(), diagnostic.message);
                self.outgoing.send(Outgoing::Show { level: MessageType::WARNING, message });
            }
        }
        let root = &mut self.roots[index];
        root.workspace = workspace;
        root.indexed = true;
        root.tables = Tables::Unbuilt;
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
    pub(super) fn state_loaded(&mut self, path: PathBuf, generation: u64, state: Arc<WorkspaceState>) {
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
    pub(super) fn reload_state(&mut self, index: usize) {
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

    pub(super) fn remove_root(&mut self, folder: &Path) {
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

    pub(super) fn files_changed(&mut self, changes: Vec<(PathBuf, FileChangeType)>) {
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
            if path.file_name().is_some_and(|n| n == nacl_analysis::hcldec::schema::PROJECT_FILE) {
                root.workspace.set_spec_rules(self.settings.hcldec.rules());
                continue;
            }
            if path == config.join("envs.nacl") {
                root.workspace.reload_layout(self.settings.environment.as_deref());
                reread_state.insert(index);
            }
            if !files::is_analysed_file(&path) || path.is_dir() {
                root.static_changes.push(path);
            } else if open.contains(&path) {
                // The editor's buffer wins over the file on disk.
            } else if kind == FileChangeType::DELETED || !path.is_file() {
                root.workspace.remove_file(&path);
            } else {
                root.workspace.read_from_disk(&path);
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
    pub(super) fn root_of(&self, path: &Path) -> Option<usize> {
        (0..self.roots.len())
            .filter(|&i| path.starts_with(&self.roots[i].path))
            .max_by_key(|&i| (self.roots[i].path.components().count(), !self.roots[i].scratch))
    }

    /// The workspace holding `path`, creating a scratch one (its folder, not loaded) if none does.
    pub(super) fn root_for(&mut self, path: &Path) -> usize {
        if let Some(index) = self.root_of(path) {
            return index;
        }
        // A document that is not a file is its own island; a lone file shares its folder's.
        let folder = if paths::is_non_file(path) { path } else { path.parent().unwrap_or(path) }.to_path_buf();
        let mut workspace = LoadedWorkspace::empty(&folder);
        self.configure(&mut workspace);
        self.roots.push(Root {
            path: folder,
            workspace,
            indexed: true,
            scratch: true,
            progress: None,
            tables: Tables::Unbuilt,
            tables_at: None,
            pass: Pass::Idle,
            waiting: Vec::new(),
            state_reads: 0,
            static_changes: Vec::new(),
            told: HashSet::new(),
        });
        self.roots.len() - 1
    }
}

/// Reads Salto's state of a workspace; a failure is logged and leaves the workspace without state.
pub(super) fn read_state(layout: &Layout) -> Arc<WorkspaceState> {
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
