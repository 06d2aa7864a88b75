//! Everything the server sends the client on its own initiative, in one ordered stream:
//! diagnostics, progress and log messages.
//!
//! Diagnostics carry the generation of the job that computed them; a result older than one
//! already published for the same document is dropped, so a slow, stale job can never
//! overwrite a newer answer, and an unchanged result is not sent twice.

use std::{
    collections::{HashMap, HashSet, VecDeque},
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};
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
    /// A message the client shows the user (`window/showMessage`).
    Show {
        /// Its severity.
        level: MessageType,
        /// The text.
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

/// How many messages other than diagnostics may wait for a client that does not read; past
/// that, log messages and progress reports are dropped (oldest first).
const MAX_WAITING: usize = 4096;

/// The queue of messages for the client, shared by every sender. It stays bounded however long
/// the client does not read: new diagnostics for a document (or a workspace) replace those still
/// waiting for it, and log messages and progress reports beyond [`MAX_WAITING`] are dropped.
#[derive(Clone, Default)]
pub struct Outbox(Arc<OutboxInner>);

#[derive(Default)]
struct OutboxInner {
    queue: Mutex<VecDeque<Outgoing>>,
    ready: tokio::sync::Notify,
}

/// Where a new message may take the place of one still waiting: the last waiting message about
/// the same document (or workspace), when nothing that could undo it stands between them.
fn replaceable(waiting: &VecDeque<Outgoing>, new: &Outgoing) -> Option<usize> {
    for (at, old) in waiting.iter().enumerate().rev() {
        match (old, new) {
            (Outgoing::Publish { uri: a, .. }, Outgoing::Publish { uri: b, .. }) if a == b => return Some(at),
            (Outgoing::Clear(a), Outgoing::Publish { uri: b, .. }) if a == b => return None,
            (Outgoing::Workspace { .. }, Outgoing::Publish { .. }) => return None,
            (Outgoing::Workspace { roots: a, .. }, Outgoing::Workspace { roots: b, .. }) if a.first() == b.first() => {
                return Some(at);
            }
            _ => {}
        }
    }
    None
}

/// Whether a waiting message may be dropped when too many wait.
fn droppable(message: &Outgoing) -> bool {
    matches!(message, Outgoing::Log { .. } | Outgoing::ProgressReport { .. })
}

/// The generation of a diagnostics message (0 for others).
fn generation(message: &Outgoing) -> u64 {
    match message {
        Outgoing::Publish { generation, .. } | Outgoing::Workspace { generation, .. } => *generation,
        _ => 0,
    }
}

impl Outbox {
    /// Queues a message for the client.
    pub fn send(&self, message: Outgoing) {
        let mut waiting = self.0.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match replaceable(&waiting, &message) {
            // Only a newer result replaces a waiting one (a stale job may finish last).
            Some(at) if generation(&waiting[at]) <= generation(&message) => waiting[at] = message,
            Some(_) => return,
            None => {
                waiting.push_back(message);
                if waiting.len() > MAX_WAITING
                    && let Some(at) = waiting.iter().position(droppable)
                {
                    waiting.remove(at);
                }
            }
        }
        drop(waiting);
        self.0.ready.notify_one();
    }

    /// How many messages wait to be sent.
    #[cfg(test)]
    pub fn waiting(&self) -> usize {
        self.0.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// The next message, waiting for one.
    pub async fn recv(&self) -> Outgoing {
        loop {
            if let Some(message) = self.0.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop_front() {
                return message;
            }
            self.0.ready.notified().await;
        }
    }
}

/// What was last published for one document.
struct Published {
    generation: u64,
    version: Option<i32>,
    diagnostics: Vec<Diagnostic>,
}

/// Sends every message to the client, in order, until the channel closes.
pub async fn run(client: Client, messages: Outbox) {
    let mut published: HashMap<Uri, Published> = HashMap::new();
    let mut progress = HashMap::new();
    loop {
        match messages.recv().await {
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
            Outgoing::Show { level, message } => client.show_message(level, message).await,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn publish(uri: &str, generation: u64) -> Outgoing {
        let uri = uri.parse().expect("a URI");
        Outgoing::Publish { uri, version: None, diagnostics: Vec::new(), generation }
    }

    #[test]
    fn a_client_that_does_not_read_costs_bounded_memory() {
        let outbox = Outbox::default();
        for generation in 0..10_000 {
            outbox.send(publish(&format!("file:///w/{}.nacl", generation % 10), generation));
            outbox.send(Outgoing::Log { level: MessageType::INFO, message: "x".repeat(100) });
        }
        assert_eq!(outbox.waiting(), MAX_WAITING, "ten documents' latest diagnostics and the newest logs");
        let queue = outbox.0.queue.lock().expect("lock");
        let publishes: Vec<u64> = queue
            .iter()
            .filter_map(|m| match m {
                Outgoing::Publish { generation, .. } => Some(*generation),
                _ => None,
            })
            .collect();
        assert_eq!(publishes, (9_990..10_000).collect::<Vec<_>>());
    }

    #[test]
    fn a_stale_result_never_replaces_a_newer_one_and_a_clear_is_not_overtaken() {
        let outbox = Outbox::default();
        outbox.send(publish("file:///a.nacl", 5));
        outbox.send(publish("file:///a.nacl", 3));
        assert_eq!(outbox.waiting(), 1);
        outbox.send(Outgoing::Clear("file:///a.nacl".parse().expect("a URI")));
        outbox.send(publish("file:///a.nacl", 6));
        assert_eq!(outbox.waiting(), 3);
    }
}
