//! Everything the server sends the client on its own initiative, in one ordered stream:
//! diagnostics, progress and log messages.
//!
//! Diagnostics carry the generation of the job that computed them; a result older than one
//! already published for the same document is dropped, so a slow, stale job can never
//! overwrite a newer answer, and an unchanged result is not sent twice.

use std::{
    collections::{HashMap, HashSet},
    path::PathBuf,
    time::Duration,
};
use tokio::sync::mpsc::UnboundedReceiver;
use tower_lsp_server::{
    Client,
    ls_types::{Diagnostic, MessageType, NumberOrString, ProgressToken, Uri},
};

/// A message for the client.
pub enum Outgoing {
    /// The diagnostics of one document.
    Publish {
        /// The document.
        uri: Uri,
        /// The version they were computed for (`None` for files not open).
        version: Option<i32>,
        /// The diagnostics.
        diagnostics: Vec<Diagnostic>,
        /// When the job that computed them started.
        generation: u64,
    },
    /// The diagnostics of every closed file of a workspace with something to report; files under
    /// `root` published before and not listed now (nor in `open`) are cleared.
    Workspace {
        /// The workspace root, as its real path and as the client spells the folders in it.
        roots: Vec<PathBuf>,
        /// The files with diagnostics.
        files: Vec<(Uri, Vec<Diagnostic>)>,
        /// Open documents, published on their own.
        open: HashSet<Uri>,
        /// When the job started.
        generation: u64,
    },
    /// Clears what was pushed for a document, if anything (its diagnostics are pulled from now on).
    Clear(Uri),
    /// Asks the client to pull diagnostics again (`workspace/diagnostic/refresh`).
    Refresh,
    /// Starts a progress report (only sent when the client supports work-done progress).
    ProgressBegin {
        /// The report's token.
        token: String,
        /// Its title.
        title: String,
    },
    /// Updates a progress report.
    ProgressReport {
        /// The report's token.
        token: String,
        /// What is being done.
        message: String,
        /// How far along, 0 to 100.
        percentage: u32,
    },
    /// Ends a progress report.
    ProgressEnd {
        /// The report's token.
        token: String,
        /// The outcome.
        message: String,
    },
    /// A message for the client's log.
    Log {
        /// Its severity.
        level: MessageType,
        /// The text.
        message: String,
    },
}

/// What was last published for one document.
struct Published {
    generation: u64,
    version: Option<i32>,
    diagnostics: Vec<Diagnostic>,
}

/// Sends every message to the client, in order, until the channel closes.
pub async fn run(client: Client, mut messages: UnboundedReceiver<Outgoing>) {
    let mut published: HashMap<Uri, Published> = HashMap::new();
    let mut progress = HashMap::new();
    while let Some(message) = messages.recv().await {
        match message {
            Outgoing::Publish { uri, version, diagnostics, generation } => {
                publish(&client, &mut published, uri, version, diagnostics, generation).await;
            }
            Outgoing::Workspace { roots, files, open, generation } => {
                let listed: HashSet<Uri> = files.iter().map(|(uri, _)| uri.clone()).collect();
                let cleared: Vec<Uri> = published
                    .iter()
                    .filter(|(uri, p)| !p.diagnostics.is_empty() && !listed.contains(*uri) && !open.contains(*uri))
                    .filter(|(uri, _)| uri.to_file_path().is_some_and(|path| roots.iter().any(|r| path.starts_with(r))))
                    .map(|(uri, _)| uri.clone())
                    .collect();
                for (uri, diagnostics) in files {
                    publish(&client, &mut published, uri, None, diagnostics, generation).await;
                }
                for uri in cleared {
                    publish(&client, &mut published, uri, None, Vec::new(), generation).await;
                }
            }
            Outgoing::Clear(uri) => {
                if published.get(&uri).is_some_and(|p| !p.diagnostics.is_empty()) {
                    let generation = published.get(&uri).map_or(0, |p| p.generation);
                    publish(&client, &mut published, uri, None, Vec::new(), generation).await;
                }
            }
            Outgoing::Refresh => {
                // Not awaited here: the client's answer must not hold up what is queued behind.
                let client = client.clone();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(Duration::from_secs(5), client.workspace_diagnostic_refresh()).await;
                });
            }
            Outgoing::ProgressBegin { token, title } => {
                let token = NumberOrString::String(token);
                // A client that never answers must not hold up everything queued behind.
                let created =
                    tokio::time::timeout(Duration::from_secs(5), client.create_work_done_progress(token.clone()));
                if matches!(created.await, Ok(Ok(()))) {
                    let ongoing = client.progress(token.clone(), title).with_percentage(0).begin().await;
                    progress.insert(token, ongoing);
                }
            }
            Outgoing::ProgressReport { token, message, percentage } => {
                if let Some(ongoing) = progress.get(&NumberOrString::String(token)) {
                    ongoing.report_with_message(message, percentage).await;
                }
            }
            Outgoing::ProgressEnd { token, message } => {
                let token: ProgressToken = NumberOrString::String(token);
                if let Some(ongoing) = progress.remove(&token) {
                    ongoing.finish_with_message(message).await;
                }
            }
            Outgoing::Log { level, message } => client.log_message(level, message).await,
        }
    }
}

async fn publish(
    client: &Client,
    published: &mut HashMap<Uri, Published>,
    uri: Uri,
    version: Option<i32>,
    diagnostics: Vec<Diagnostic>,
    generation: u64,
) {
    if let Some(last) = published.get_mut(&uri) {
        if last.generation > generation {
            return;
        }
        if last.version == version && last.diagnostics == diagnostics {
            last.generation = generation;
            return;
        }
    }
    client.publish_diagnostics(uri.clone(), diagnostics.clone(), version).await;
    published.insert(uri, Published { generation, version, diagnostics });
}
