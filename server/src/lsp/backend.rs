//! The LSP handlers. Notifications go to the writer thread as they arrive; requests become jobs
//! the writer runs on a snapshot, on a worker thread.

use super::{
    convert, paths, pull, requests,
    settings::Settings,
    writer::{Message, PullSupport, Snapshot, WorkspacesSnapshot, panic_message},
};
use crate::line_index::Encoding;
use nacl_analysis::workspace::is_cancellation;
use std::{path::PathBuf, sync::OnceLock, time::Duration};
use tower_lsp_server::{
    Client, LanguageServer,
    jsonrpc::{Error, ErrorCode, Result},
    ls_types::*,
};

/// The command that returns the full element ID at a position (Salto's "Copy Salto Reference").
/// Its one argument is a `TextDocumentPositionParams`.
pub const COPY_REFERENCE: &str = "nacl.copyReference";

/// The command that opens the element at a position in its service (Salto's "Go To Service"):
/// the `_service_url` of the field there, else of its element, which Salto keeps in its state.
/// Its one argument is a `TextDocumentPositionParams`; it answers the URL (or null) and asks the
/// client to open it when the client can (`window/showDocument`).
pub const GO_TO_SERVICE: &str = "nacl.goToService";

/// The command giving the JSON an HCL document decodes to with its hcldec spec; its argument is
/// the document (`{ "uri": ... }`), its result the JSON text (`null` after telling the user why
/// there is none).
pub const DECODED_JSON: &str = "nacl.hcldec.decodedJson";

/// The command giving the ARM template an ARMLang document compiles to; its argument is the
/// document (`{ "uri": ... }`), its result the JSON text (`null` after telling the user why there
/// is none).
pub const ARM_TEMPLATE: &str = "nacl.arm.template";

/// The request that answers the server's text and version of an open document
/// (`{ "uri": ... }` → `{ "version", "text" }`, or null when it is not open): for bug reports and
/// for tests proving that no edit was lost or misapplied.
pub const DOCUMENT_TEXT: &str = "nacl/documentText";

/// A request for tests, served only when the environment variable [`TEST_HOOKS_ENV`] is `1`:
/// it runs on a snapshot like every read and does not finish until it is cancelled, by
/// `$/cancelRequest` or by an edit. Once it runs, the server logs [`TEST_WAITING`] to the client,
/// so a test knows the request is in flight before it cancels it.
pub const TEST_WAIT_FOR_CANCEL: &str = "nacl/testWaitForCancel";

/// The environment variable that turns on requests for tests.
pub const TEST_HOOKS_ENV: &str = "NACL_LS_TEST_HOOKS";

/// What the server logs once a [`TEST_WAIT_FOR_CANCEL`] request runs.
pub const TEST_WAITING: &str = "nacl-ls test hook: waiting for cancellation";

/// How long the server waits for the client to answer its own requests (configuration, registration).
const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// The handlers' side of the server.
pub struct Backend {
    client: Client,
    writer: std::sync::mpsc::Sender<Message>,
    support: OnceLock<ClientSupport>,
    /// The last semantic tokens sent for each document, with their result ID, for deltas.
    semantic_tokens: dashmap::DashMap<Uri, (String, Vec<SemanticToken>)>,
    /// The next semantic tokens result ID.
    next_result: std::sync::atomic::AtomicU64,
    /// Whether reference-count code lenses are on (a setting).
    reference_lenses: std::sync::atomic::AtomicBool,
}

/// What the client said it supports, for what the server asks of it after `initialize`.
#[derive(Debug, Clone, Copy, Default)]
struct ClientSupport {
    /// `workspace/configuration` requests.
    configuration: bool,
    /// Registering `workspace/didChangeWatchedFiles` watchers dynamically.
    watched_files: bool,
    /// `window/showDocument` (opening a URL in the browser).
    show_document: bool,
    /// Snippet syntax in completion items.
    snippets: bool,
}

impl Backend {
    /// A backend sending to the writer thread.
    pub fn new(client: Client, writer: std::sync::mpsc::Sender<Message>) -> Backend {
        Backend {
            client,
            writer,
            support: OnceLock::new(),
            semantic_tokens: dashmap::DashMap::new(),
            next_result: std::sync::atomic::AtomicU64::new(1),
            reference_lenses: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Sends a message to the writer; fails only if the writer thread is gone.
    fn send(&self, message: Message) -> Result<()> {
        self.writer.send(message).map_err(|_| Error::internal_error())
    }

    /// Runs `read` on a snapshot of the document's workspace on a worker thread (see [`dispatch`]).
    async fn query<T: Send + 'static>(
        &self,
        uri: Uri,
        workspace: bool,
        read: impl FnOnce(&Snapshot) -> T + Send + 'static,
    ) -> Result<T> {
        let (job, answer) = dispatch(read);
        self.send(Message::Query { uri, workspace, job })?;
        answer.await.map_err(|_| Error::internal_error())?
    }

    /// Runs `read` on a snapshot of every workspace (only of those indexed, if `indexed_only`) on
    /// a worker thread (see [`dispatch`]).
    async fn query_all<T: Send + 'static>(
        &self,
        indexed_only: bool,
        read: impl FnOnce(&WorkspacesSnapshot) -> T + Send + 'static,
    ) -> Result<T> {
        let (job, answer) = dispatch(read);
        self.send(Message::QueryAll { indexed_only, job })?;
        answer.await.map_err(|_| Error::internal_error())?
    }

    /// Asks the client for the `nacl` settings and applies them.
    async fn pull_settings(&self) {
        if !self.support.get().is_some_and(|s| s.configuration) {
            return;
        }
        let item = ConfigurationItem { scope_uri: None, section: Some("nacl".to_owned()) };
        match tokio::time::timeout(CLIENT_TIMEOUT, self.client.configuration(vec![item])).await {
            Ok(Ok(values)) => {
                if let Some(value) = values.first() {
                    self.apply_settings(value);
                }
            }
            Ok(Err(error)) => tracing::warn!("cannot read the client's settings: {error}"),
            Err(_) => tracing::warn!("the client did not send its settings in time"),
        }
    }

    fn apply_settings(&self, value: &serde_json::Value) {
        let (settings, problem) = Settings::from_json(value);
        if let Some(problem) = problem {
            tracing::warn!("{problem}");
        }
        self.reference_lenses.store(settings.code_lens.references, std::sync::atomic::Ordering::Relaxed);
        let _ = self.send(Message::Settings(settings));
    }

    /// Asks the client to report changes to NaCl and static files made outside the editor.
    async fn watch_files(&self) {
        if !self.support.get().is_some_and(|s| s.watched_files) {
            return;
        }
        let watchers = [
            "**/*.nacl",
            "**/*.{hcl,tf,tfvars,nomad,hcldec}",
            "**/*.arm",
            "**/.nacl-ls.toml",
            "**/static-resources/**",
            "**/salto.config/states/**",
        ]
        .into_iter()
        .map(|glob| FileSystemWatcher { glob_pattern: GlobPattern::String(glob.to_owned()), kind: None })
        .collect();
        let options = DidChangeWatchedFilesRegistrationOptions { watchers };
        let registration = Registration {
            id: "nacl-ls/watched-files".to_owned(),
            method: "workspace/didChangeWatchedFiles".to_owned(),
            register_options: serde_json::to_value(options).ok(),
        };
        match tokio::time::timeout(CLIENT_TIMEOUT, self.client.register_capability(vec![registration])).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!("cannot watch files: {error}"),
            Err(_) => tracing::warn!("the client did not register the file watcher in time"),
        }
    }
}

/// A read to run on a snapshot of type `S`.
type JobOn<S> = Box<dyn FnOnce(S) + Send>;

/// Where a read's answer arrives.
type Answer<T> = tokio::sync::oneshot::Receiver<Result<T>>;

/// The one way every request's read runs: as a job on a snapshot `S` (which the writer hands it on
/// a worker thread), answered through the returned channel. A request cancelled while it waited
/// is not run; a read overtaken by an edit is answered with `ContentModified`; a panic is logged
/// and answered with an internal error.
fn dispatch<S: 'static, T: Send + 'static>(read: impl FnOnce(&S) -> T + Send + 'static) -> (JobOn<S>, Answer<T>) {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let job = Box::new(move |snapshot: S| {
        if reply.is_closed() {
            return;
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&snapshot)));
        drop(snapshot);
        let _ = reply.send(result.map_err(|payload| failure(&*payload)));
    });
    (job, answer)
}

/// The error answering a request whose read panicked: `ContentModified` when an edit cancelled
/// it, else an internal error (logged).
fn failure(payload: &(dyn std::any::Any + Send)) -> Error {
    if is_cancellation(payload) {
        Error { code: ErrorCode::ContentModified, message: "the document changed".into(), data: None }
    } else {
        let message = panic_message(payload);
        tracing::error!("internal error answering a request: {message}");
        Error { code: ErrorCode::InternalError, message: format!("nacl-ls: {message}").into(), data: None }
    }
}

/// A request the server refuses with a reason the editor shows (a rename that would break the workspace).
fn refused(reason: String) -> Error {
    Error { code: ErrorCode::ServerError(-32803), message: reason.into(), data: None }
}

/// UTF-8 when the client offers it, else UTF-16 (the protocol's default).
fn negotiate(params: &InitializeParams) -> Encoding {
    let offered = params.capabilities.general.as_ref().and_then(|g| g.position_encodings.as_ref());
    if offered.is_some_and(|kinds| kinds.contains(&PositionEncodingKind::UTF8)) {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    }
}

/// The path of a workspace folder's URI as the client wrote it (the writer resolves it).
fn to_path(uri: &Uri) -> Option<PathBuf> {
    paths::file_path(uri)
}

/// What the server offers; diagnostics are offered for pulling when the client pulls them.
fn server_capabilities(encoding: Encoding, pull_diagnostics: bool) -> ServerCapabilities {
    ServerCapabilities {
        diagnostic_provider: pull_diagnostics.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("nacl".to_owned()),
                inter_file_dependencies: true,
                workspace_diagnostics: true,
                work_done_progress_options: WorkDoneProgressOptions::default(),
            })
        }),
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            save: Some(TextDocumentSyncSaveOptions::Supported(true)),
            ..TextDocumentSyncOptions::default()
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some([".", "\"", "{", "/"].map(str::to_owned).to_vec()),
            ..CompletionOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, super::assists::format_kind()]),
            ..CodeActionOptions::default()
        })),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(true) }),
        document_link_provider: Some(DocumentLinkOptions {
            resolve_provider: Some(false),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        definition_provider: Some(OneOf::Left(true)),
        declaration_provider: Some(DeclarationCapability::Simple(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: SemanticTokensLegend {
                    token_types: convert::TOKEN_TYPES.to_vec(),
                    token_modifiers: convert::TOKEN_MODIFIERS.to_vec(),
                },
                full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                range: Some(true),
                work_done_progress_options: WorkDoneProgressOptions::default(),
            },
        )),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![
                COPY_REFERENCE.to_owned(),
                GO_TO_SERVICE.to_owned(),
                DECODED_JSON.to_owned(),
                ARM_TEMPLATE.to_owned(),
            ],
            ..ExecuteCommandOptions::default()
        }),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}

impl Backend {
    /// Remembers the tokens sent for a document and gives them a result ID.
    fn remember_tokens(&self, uri: Uri, tokens: &[SemanticToken]) -> String {
        let id = self.next_result.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_string();
        self.semantic_tokens.insert(uri, (id.clone(), tokens.to_vec()));
        id
    }

    /// Answers [`TEST_WAIT_FOR_CANCEL`]: waits on a snapshot until cancelled.
    pub async fn wait_for_cancel(&self, params: TextDocumentIdentifier) -> Result<()> {
        /// Tells the read when the request is dropped (cancelled by the client).
        struct Abandoned(std::sync::Arc<std::sync::atomic::AtomicBool>);
        impl Drop for Abandoned {
            fn drop(&mut self) {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let abandoned = Abandoned(std::sync::Arc::default());
        let flag = abandoned.0.clone();
        let (started, running) = tokio::sync::oneshot::channel::<()>();
        let wait = self.query(params.uri, true, move |s| {
            let _ = started.send(());
            while !flag.load(std::sync::atomic::Ordering::SeqCst) {
                if let Some(workspace) = &s.workspace {
                    workspace.unwind_if_cancelled();
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        tokio::pin!(wait);
        tokio::select! {
            answer = &mut wait => return answer,
            _ = running => self.client.log_message(MessageType::INFO, TEST_WAITING).await,
        }
        let answer = wait.await;
        drop(abandoned);
        answer
    }

    /// Answers a malformed request (replaced by the input guard) with `InvalidRequest`.
    pub async fn invalid_request(&self) -> Result<()> {
        Err(Error::invalid_request())
    }

    /// Answers [`DOCUMENT_TEXT`]: the document as the server holds it, after every change sent before.
    pub async fn document_text(&self, params: TextDocumentIdentifier) -> Result<Option<serde_json::Value>> {
        self.query(params.uri, false, |s| {
            s.document.as_ref().map(|d| serde_json::json!({ "version": d.version, "text": &*d.text }))
        })
        .await
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = negotiate(&params);
        #[allow(deprecated)] // `root_uri` is still what many clients send.
        let roots: Vec<PathBuf> = match &params.workspace_folders {
            Some(folders) if !folders.is_empty() => folders.iter().filter_map(|f| to_path(&f.uri)).collect(),
            _ => params.root_uri.iter().filter_map(to_path).collect(),
        };
        let capabilities = &params.capabilities;
        let workspace = capabilities.workspace.as_ref();
        let _ = self.support.set(ClientSupport {
            configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
            watched_files: workspace
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|w| w.dynamic_registration)
                .unwrap_or(false),
            show_document: capabilities
                .window
                .as_ref()
                .and_then(|w| w.show_document.as_ref())
                .is_some_and(|s| s.support),
            snippets: capabilities
                .text_document
                .as_ref()
                .and_then(|t| t.completion.as_ref())
                .and_then(|c| c.completion_item.as_ref())
                .and_then(|i| i.snippet_support)
                .unwrap_or(false),
        });
        let progress = capabilities.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false);
        let pull = PullSupport {
            documents: capabilities.text_document.as_ref().is_some_and(|t| t.diagnostic.is_some()),
            refresh: workspace.and_then(|w| w.diagnostics.as_ref()).and_then(|d| d.refresh_support).unwrap_or(false),
        };
        let (settings, problem) =
            Settings::from_json(params.initialization_options.as_ref().unwrap_or(&serde_json::Value::Null));
        if let Some(problem) = problem {
            tracing::warn!("{problem}");
        }
        self.reference_lenses.store(settings.code_lens.references, std::sync::atomic::Ordering::Relaxed);
        self.send(Message::Initialize { roots, encoding, settings, progress, pull })?;
        Ok(InitializeResult {
            capabilities: server_capabilities(encoding, pull.documents),
            server_info: Some(ServerInfo {
                name: "nacl-ls".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
            ..InitializeResult::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let _ = self.send(Message::Initialized);
        self.watch_files().await;
        self.pull_settings().await;
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let _ = self.send(Message::Open { uri: doc.uri, version: doc.version, text: doc.text });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let doc = params.text_document;
        let _ = self.send(Message::Change { uri: doc.uri, version: doc.version, changes: params.content_changes });
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let _ = self.send(Message::Saved { uri: params.text_document.uri });
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.semantic_tokens.remove(&params.text_document.uri);
        let _ = self.send(Message::Close { uri: params.text_document.uri });
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        // A link named by the watcher (a file checked out again as a link, say) is no file of
        // its folder's workspace any more: its own place is taken out, as if deleted, and what
        // it leads to is read from where it really is (nowhere, when that is outside every
        // workspace), as the walk follows links.
        let changes = params
            .changes
            .into_iter()
            .filter_map(|c| Some((to_path(&c.uri)?, c.typ)))
            .flat_map(|(path, kind)| {
                let (place, real) = (paths::own_place(&path), paths::resolve(&path));
                let link = (place != real).then_some((place, FileChangeType::DELETED));
                link.into_iter().chain([(real, kind)])
            })
            .collect();
        let _ = self.send(Message::FilesChanged(changes));
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        // Clients that support `workspace/configuration` often send `null` here and expect a pull.
        if params.settings.is_null() || self.support.get().is_some_and(|s| s.configuration) {
            self.pull_settings().await;
        } else {
            self.apply_settings(&params.settings);
        }
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        let paths = |folders: Vec<WorkspaceFolder>| folders.iter().filter_map(|f| to_path(&f.uri)).collect();
        let _ = self.send(Message::Folders { added: paths(params.event.added), removed: paths(params.event.removed) });
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let at = params.text_document_position_params;
        let locations = self.query(at.text_document.uri, true, move |s| requests::definition(s, at.position)).await?;
        Ok((!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations)))
    }

    async fn goto_declaration(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        self.goto_definition(params).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let at = params.text_document_position;
        let snippets = self.support.get().is_some_and(|s| s.snippets);
        let list = self
            .query(at.text_document.uri, true, move |s| super::completion::completion(s, at.position, snippets))
            .await?;
        Ok(list.map(CompletionResponse::List))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let (range, only) = (params.range, params.context.only);
        let actions = self
            .query(params.text_document.uri, true, move |s| super::assists::code_actions(s, range, only.as_deref()))
            .await?;
        Ok(Some(actions))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let range = params.range;
        Ok(Some(self.query(params.text_document.uri, true, move |s| super::assists::inlay_hints(s, range)).await?))
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        Ok(Some(self.query(params.text_document.uri, true, super::assists::document_links).await?))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let references = self.reference_lenses.load(std::sync::atomic::Ordering::Relaxed);
        let lenses = self
            .query(params.text_document.uri, true, move |s| {
                let mut lenses: Vec<CodeLens> = super::assists::decoded_json_lens(s).into_iter().collect();
                lenses.extend(super::assists::arm_lenses(s));
                if references {
                    lenses.extend(super::assists::code_lenses(s));
                }
                lenses
            })
            .await?;
        Ok((!lenses.is_empty()).then_some(lenses))
    }

    async fn code_lens_resolve(&self, mut lens: CodeLens) -> Result<CodeLens> {
        let data = lens.data.clone().unwrap_or_default();
        let uri = data["uri"].as_str().and_then(|u| u.parse::<Uri>().ok());
        let position = serde_json::from_value::<Position>(data["position"].clone()).ok();
        let (Some(uri), Some(position)) = (uri, position) else {
            return Err(Error::invalid_params("a code lens without its document and position"));
        };
        lens.command = Some(self.query(uri, true, move |s| super::assists::reference_count(s, position)).await?);
        Ok(lens)
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        self.query(at.text_document.uri, true, move |s| requests::hover(s, at.position)).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        let command = params.command.clone();
        if command == DECODED_JSON || command == ARM_TEMPLATE {
            let uri = params
                .arguments
                .first()
                .and_then(|a| a["uri"].as_str().or(a.as_str()))
                .and_then(|u| u.parse::<Uri>().ok())
                .ok_or_else(|| Error::invalid_params(format!("{command} takes a text document: {{ \"uri\": ... }}")))?;
            let (answer, what) = if command == DECODED_JSON {
                (self.query(uri, true, requests::decoded_json).await?, "decoded JSON")
            } else {
                (self.query(uri, true, requests::arm_template).await?, "ARM template")
            };
            return match answer {
                Some(Ok(json)) => Ok(Some(LSPAny::String(json))),
                Some(Err(why)) => {
                    self.client.show_message(MessageType::INFO, format!("No {what}: {why}")).await;
                    Ok(None)
                }
                None => Ok(None),
            };
        }
        if command != COPY_REFERENCE && command != GO_TO_SERVICE {
            return Err(Error::invalid_params(format!("unknown command `{command}`")));
        }
        let at: TextDocumentPositionParams = params
            .arguments
            .into_iter()
            .next()
            .and_then(|a| serde_json::from_value(a).ok())
            .ok_or_else(|| Error::invalid_params(format!("{command} takes a text document position")))?;
        let uri = at.text_document.uri;
        if command == COPY_REFERENCE {
            let id = self.query(uri, false, move |s| requests::element_id(s, at.position)).await?;
            return Ok(id.map(LSPAny::String));
        }
        let Some(url) = self.query(uri, true, move |s| requests::service_url(s, at.position)).await? else {
            let message = "No service URL is known here: Salto keeps `_service_url` in its state files (`salto.config/states/`), and none has one for this element";
            self.client.show_message(MessageType::INFO, message).await;
            return Ok(None);
        };
        if let Err(why) = openable_url(&url) {
            self.client.show_message(MessageType::WARNING, why).await;
            return Ok(None);
        }
        if self.support.get().is_some_and(|s| s.show_document)
            && let Ok(target) = url.parse::<Uri>()
        {
            let show = ShowDocumentParams { uri: target, external: Some(true), take_focus: None, selection: None };
            match tokio::time::timeout(CLIENT_TIMEOUT, self.client.show_document(show)).await {
                Ok(Ok(true)) => {}
                Ok(Ok(false)) => tracing::warn!("the client could not open {url}"),
                Ok(Err(error)) => tracing::warn!("cannot open {url}: {error}"),
                Err(_) => tracing::warn!("the client did not open {url} in time"),
            }
        }
        Ok(Some(LSPAny::String(url)))
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let symbols = self.query(params.text_document.uri, false, requests::document_symbols).await?;
        Ok(Some(DocumentSymbolResponse::Nested(symbols)))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        Ok(Some(self.query(params.text_document.uri, false, requests::folding_ranges).await?))
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.query(params.text_document.uri, false, |s| requests::format(s, None)).await
    }

    async fn range_formatting(&self, params: DocumentRangeFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        let range = params.range;
        self.query(params.text_document.uri, false, move |s| requests::format(s, Some(range))).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let at = params.text_document_position;
        let declaration = params.context.include_declaration;
        let found =
            self.query(at.text_document.uri, true, move |s| requests::references(s, at.position, declaration)).await?;
        Ok(Some(found))
    }

    async fn document_highlight(&self, params: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
        let at = params.text_document_position_params;
        Ok(Some(self.query(at.text_document.uri, true, move |s| requests::highlights(s, at.position)).await?))
    }

    async fn prepare_rename(&self, params: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        let position = params.position;
        self.query(params.text_document.uri, true, move |s| requests::prepare_rename(s, position))
            .await?
            .map_err(refused)
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let at = params.text_document_position;
        let new_name = params.new_name;
        self.query(at.text_document.uri, true, move |s| requests::rename(s, at.position, &new_name))
            .await?
            .map_err(refused)
    }

    async fn selection_range(&self, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
        let positions = params.positions;
        Ok(Some(self.query(params.text_document.uri, false, move |s| requests::selection_ranges(s, &positions)).await?))
    }

    async fn semantic_tokens_full(&self, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        let uri = params.text_document.uri;
        let Some(tokens) = self.query(uri.clone(), false, |s| requests::semantic_tokens(s, None)).await? else {
            return Ok(None);
        };
        let result_id = self.remember_tokens(uri, &tokens);
        Ok(Some(SemanticTokensResult::Tokens(SemanticTokens { result_id: Some(result_id), data: tokens })))
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        let uri = params.text_document.uri;
        let Some(tokens) = self.query(uri.clone(), false, |s| requests::semantic_tokens(s, None)).await? else {
            return Ok(None);
        };
        let previous = self
            .semantic_tokens
            .get(&uri)
            .filter(|entry| entry.0 == params.previous_result_id)
            .map(|entry| convert::semantic_tokens_edit(&entry.1, &tokens));
        let result_id = self.remember_tokens(uri, &tokens);
        Ok(Some(match previous {
            Some(edit) => SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta {
                result_id: Some(result_id),
                edits: vec![edit],
            }),
            // An unknown previous result: send everything.
            None => SemanticTokensFullDeltaResult::Tokens(SemanticTokens { result_id: Some(result_id), data: tokens }),
        }))
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        let range = params.range;
        let tokens =
            self.query(params.text_document.uri, false, move |s| requests::semantic_tokens(s, Some(range))).await?;
        Ok(tokens.map(|data| SemanticTokensRangeResult::Tokens(SemanticTokens { result_id: None, data })))
    }

    async fn symbol(&self, params: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
        let query = params.query;
        let found = self
            .query_all(false, move |s| requests::workspace_symbols(&s.workspaces, &query, s.encoding, &s.uris))
            .await?;
        Ok(Some(WorkspaceSymbolResponse::Nested(found)))
    }

    async fn diagnostic(&self, params: DocumentDiagnosticParams) -> Result<DocumentDiagnosticReportResult> {
        let previous = params.previous_result_id;
        let report = self.query(params.text_document.uri, true, move |s| pull::document_report(s, previous)).await?;
        Ok(DocumentDiagnosticReportResult::Report(report))
    }

    async fn workspace_diagnostic(&self, params: WorkspaceDiagnosticParams) -> Result<WorkspaceDiagnosticReportResult> {
        self.send(Message::WorkspacePulled)?;
        let previous = params.previous_result_ids;
        let report = self.query_all(true, move |s| pull::workspace_report(s, &previous)).await?;
        Ok(WorkspaceDiagnosticReportResult::Report(report))
    }
}

/// Whether a service URL (which comes from the repository) may be opened in a browser: only
/// `https:` and `http:` URLs without white space or control characters; otherwise why not.
fn openable_url(url: &str) -> std::result::Result<(), String> {
    let shown: String = url.chars().take(80).flat_map(char::escape_debug).collect();
    let scheme = url.split_once(':').map(|(scheme, _)| scheme.to_ascii_lowercase());
    if !matches!(scheme.as_deref(), Some("https" | "http")) {
        return Err(format!(
            "Not opening `{shown}`: only https and http service URLs are opened, and this one could run or read something on this machine"
        ));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("Not opening `{shown}`: it holds white space or control characters"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::openable_url;

    #[test]
    fn only_web_urls_are_opened() {
        assert!(openable_url("https://x.salesforce.com/lightning/setup").is_ok());
        assert!(openable_url("HTTP://example.com").is_ok());
        for url in
            ["file:///etc/passwd", "javascript:alert(1)", "smb://host/share", "vscode://x", "/etc", "https://a b"]
        {
            assert!(openable_url(url).is_err(), "{url}");
        }
        let why = openable_url("file:///x\u{1b}[2J").expect_err("refused");
        assert!(!why.contains('\u{1b}'), "{why}");
    }
}
