//! Diagnostics: of open documents after the edits waiting are applied, and of whole workspaces
//! after indexing, saves and changes on disk.

use super::schedule::{self, Pass, Tables};
use super::{Buffer, Message, OpenDocument, PASS_DELAY, Root, Writer, panic_message};

use crate::line_index::{Encoding, LineIndex};
use crate::lsp::{
    convert::{self, Lines, Locator},
    outgoing::Outgoing,
    paths::Uris,
    settings::Settings,
};
use nacl_analysis::{
    diagnostics::Diagnostic as NaclDiagnostic,
    workspace::{self, FileReport, LoadedWorkspace},
};
use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Arc,
    time::Instant,
};
use tower_lsp_server::ls_types::{Diagnostic, Uri};

impl Writer {
    /// Marks every open document of a root for new diagnostics: an edit in one file can change
    /// what is reported in another.
    pub(super) fn mark_stale(&mut self, root: usize) {
        for (uri, buffer) in &self.buffers {
            if self.root_of(&buffer.current.path) == Some(root) {
                self.stale.insert(uri.clone());
            }
        }
    }

    /// Computes the diagnostics of the stale open documents on the request workers, one job per
    /// document (so that a document whose diagnostics are quick, such as an HCL file described
    /// by an edited spec, never waits behind one that needs the whole workspace's index), the
    /// documents just edited first. A client that pulls them is asked to pull again instead.
    pub(super) fn spawn_diagnostics(&mut self) {
        let edited = std::mem::take(&mut self.edited);
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
        let mut documents: Vec<(usize, Arc<OpenDocument>)> = std::mem::take(&mut self.stale)
            .into_iter()
            .filter_map(|uri| {
                let buffer = self.buffers.get(&uri)?;
                Some((self.root_of(&buffer.current.path)?, buffer.current.clone()))
            })
            .collect();
        documents.sort_by_key(|(_, document)| !edited.contains(&document.uri));
        for (root, document) in documents {
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
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.publish(&document)));
                drop(job);
                match run {
                    Ok(publish) => outgoing.send(publish),
                    Err(payload) if workspace::is_cancellation(&*payload) => {
                        let _ = messages.send(Message::DiagnosticsCancelled(vec![document.uri.clone()]));
                    }
                    Err(payload) => {
                        tracing::error!("internal error computing diagnostics: {}", panic_message(&*payload))
                    }
                }
            });
        }
    }

    /// Marks the search tables of every root written since they started building as due
    /// [`PASS_DELAY`] from now (edits push that back while the user types).
    pub(super) fn outdate_tables(&mut self) {
        let at = Instant::now() + PASS_DELAY;
        for root in &mut self.roots {
            if root.tables == Tables::Built && root.tables_at != Some(root.workspace.revision()) {
                root.tables = Tables::Due(at);
            }
        }
    }

    /// Starts the whole-workspace checks that are due, and the building of search tables after
    /// writes, once due ([`schedule::due`]).
    pub(super) fn start_due_passes(&mut self) {
        let now = Instant::now();
        for index in 0..self.roots.len() {
            let root = &mut self.roots[index];
            if !root.indexed {
                continue;
            }
            let due = schedule::due(root.pass, root.tables, now);
            if due.tables {
                (root.tables, root.tables_at) = (Tables::Built, Some(root.workspace.revision()));
                let (workspace, path) = (root.workspace.clone(), root.path.clone());
                self.tables.spawn(move || build_tables(&workspace, &path));
            }
            if due.pass {
                self.start_pass(index);
            }
        }
    }

    /// Starts the whole-workspace check of the root at `index`, and after it the building of
    /// its search tables if they were never built.
    fn start_pass(&mut self, index: usize) {
        let root = &mut self.roots[index];
        root.pass = Pass::Running;
        let build = root.tables == Tables::Unbuilt;
        if build {
            (root.tables, root.tables_at) = (Tables::Built, Some(root.workspace.revision()));
        }
        self.generation += 1;
        let open = open_under(&self.buffers, &root.path);
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
                    let (notes, reports) = job.notes(&report);
                    (Outgoing::Refresh, notes, refresh, reports)
                } else {
                    let (message, notes, reports) = job.workspace_pass(&path, open, &report);
                    (message, notes, true, reports)
                }
            }));
            let (cancelled, notes) = match run {
                Ok((message, notes, send, reports)) => {
                    if send {
                        outgoing.send(message);
                    }
                    // Before the pass is done: a client may stop the server right after.
                    job.keep_reports(&path, &reports);
                    (false, notes)
                }
                Err(payload) if workspace::is_cancellation(&*payload) => (true, Vec::new()),
                Err(payload) => {
                    tracing::error!("internal error checking {}: {}", path.display(), panic_message(&*payload));
                    (false, Vec::new())
                }
            };
            let _ = messages.send(Message::PassDone { root: path.clone(), cancelled, notes });
            // Cancelled, the tables are built once due, like after any write.
            if build && !cancelled {
                build_tables(&job.workspace, &path);
            }
            drop(job);
        });
    }

    /// The diagnostics files of a loading workspace have on their own (syntax errors, found
    /// as the files were read and parsed), pushed for closed files before the workspace-wide
    /// check that replaces them ends.
    pub(super) fn own_diagnostics(&mut self, path: PathBuf, reports: Vec<FileReport>) {
        let Some(root) = self.roots.iter().find(|r| r.path == path && !r.scratch) else { return };
        if self.workspace_pulled || root.indexed {
            return;
        }
        let open = open_under(&self.buffers, &root.path);
        let files = closed_files(&root.workspace, &self.settings, self.encoding, &self.uris, &reports, &open);
        let (roots, open) = (self.uris.spellings(&root.path), open.into_values().collect());
        self.outgoing.send(Outgoing::Workspace { roots, files, open, generation: self.generation });
    }

    pub(super) fn schedule_passes(&mut self, which: impl Fn(&Root) -> bool) {
        let at = Instant::now() + PASS_DELAY;
        for root in self.roots.iter_mut().filter(|r| !r.scratch && which(r)) {
            root.pass = Pass::Due(at);
        }
    }

    /// Schedules the whole-workspace check of the workspace holding `path`.
    pub(super) fn schedule_pass_of(&mut self, path: &Path) {
        if let Some(root) = self.root_of(path).map(|i| self.roots[i].path.clone()) {
            self.schedule_passes(|r| r.path == root);
        }
    }
}

/// Everything a diagnostics job needs, taken when it is spawned.
pub(super) struct DiagnosticsJob {
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
    /// Checks the whole workspace; also returns the notes about instances left untyped, and the
    /// reports.
    fn workspace_pass(
        &self,
        root: &Path,
        open: HashMap<PathBuf, Uri>,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> (Outgoing, Vec<String>, Vec<FileReport>) {
        let reports = self.workspace.check_with_progress(None, progress);
        let files = closed_files(&self.workspace, &self.settings, self.encoding, &self.uris, &reports, &open);
        let open = open.into_values().collect();
        (
            Outgoing::Workspace { roots: self.uris.spellings(root), files, open, generation: self.generation },
            self.untyped_notes(),
            reports,
        )
    }

    /// Checks the whole workspace without converting anything (for a client that pulls the
    /// results); returns the notes about instances left untyped, and the reports.
    fn notes(&self, progress: &(dyn Fn(usize, usize) + Sync)) -> (Vec<String>, Vec<FileReport>) {
        let reports = self.workspace.check_with_progress(None, progress);
        (self.untyped_notes(), reports)
    }

    /// Keeps the reports of a whole-workspace check in the persistent cache for the next start
    /// (when it does not hold them already); an edit that overtakes it leaves them unsaved.
    fn keep_reports(&self, root: &Path, reports: &[FileReport]) {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.workspace.save_reports(reports))) {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!("cannot write the reports of {} to the cache: {error}", root.display()),
            Err(payload) if workspace::is_cancellation(&*payload) => {}
            Err(payload) => {
                tracing::error!(
                    "internal error keeping the reports of {}: {}",
                    root.display(),
                    panic_message(&*payload)
                )
            }
        }
    }

    /// The notes about instances left untyped.
    fn untyped_notes(&self) -> Vec<String> {
        self.workspace.untyped_instances().iter().map(|u| u.message(u.reason())).collect()
    }

    fn convert<'a>(&self, found: impl Iterator<Item = &'a NaclDiagnostic>, lines: Lines<'_>) -> Vec<Diagnostic> {
        shown_diagnostics(&self.workspace, &self.settings, self.encoding, &self.uris, found, lines)
    }
}

/// The open documents under `root`, by path.
fn open_under(buffers: &HashMap<Uri, Buffer>, root: &Path) -> HashMap<PathBuf, Uri> {
    buffers
        .iter()
        .map(|(uri, b)| (b.current.path.clone(), uri.clone()))
        .filter(|(path, _)| path.starts_with(root))
        .collect()
}

/// The diagnostics of the files of `reports` that are not `open`, in LSP terms, for the files
/// with any the settings show.
fn closed_files(
    workspace: &LoadedWorkspace,
    settings: &Settings,
    encoding: Encoding,
    uris: &Uris,
    reports: &[FileReport],
    open: &HashMap<PathBuf, Uri>,
) -> Vec<(Uri, Vec<Diagnostic>)> {
    reports
        .iter()
        // Most files have no diagnostics: their lines are never indexed.
        .filter(|report| !report.diagnostics.is_empty() && !open.contains_key(&report.path))
        .filter_map(|report| {
            let index = LineIndex::new(&report.text);
            let lines = Lines { text: &report.text, index: &index, encoding };
            let diagnostics = shown_diagnostics(workspace, settings, encoding, uris, report.diagnostics.iter(), lines);
            let uri = uris.uri_of(&report.path)?;
            (!diagnostics.is_empty()).then_some((uri, diagnostics))
        })
        .collect()
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

/// Builds the tables workspace symbols and find references search in `workspace` (a snapshot
/// of the root at `path`): the symbol table first (a search needs it whole, and it is the
/// quicker), then every file's results (a check served from the cache computed none) and the
/// cache's writing, if due, then the word filters. What is built already is only checked to be
/// current. A write cancels it; the writer starts it again once the writes stop
/// ([`Writer::outdate_tables`]).
fn build_tables(workspace: &LoadedWorkspace, path: &Path) {
    let warm = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        workspace.warm_symbol_table();
        workspace.compute_file_results();
        if let Err(error) = workspace.save_cache() {
            tracing::warn!("cannot write the cache of {}: {error}", path.display());
        }
        workspace.warm_word_filters();
    }));
    match warm {
        Ok(()) => {}
        Err(payload) if workspace::is_cancellation(&*payload) => {}
        Err(payload) => tracing::error!("internal error indexing {}: {}", path.display(), panic_message(&*payload)),
    }
}
