//! The LSP handlers: each forwards its message to the writer thread.

use super::state::{self, Message};
use crate::line_index::Encoding;
use std::sync::mpsc;
use tower_lsp_server::{
    Client, LanguageServer,
    jsonrpc::{Error, Result},
    ls_types::*,
};

/// The command that returns the full element ID at a position (Salto's "Copy Salto Reference").
/// Its one argument is a `TextDocumentPositionParams`.
pub const COPY_REFERENCE: &str = "nacl.copyReference";

/// The handlers' side of the server.
pub struct Backend {
    writer: mpsc::Sender<Message>,
}

impl Backend {
    /// Starts the writer thread and the task that publishes its diagnostics in order.
    pub fn new(client: Client) -> Backend {
        let (publish_tx, mut publish_rx) = tokio::sync::mpsc::unbounded_channel::<state::Publish>();
        tokio::spawn(async move {
            while let Some(p) = publish_rx.recv().await {
                client.publish_diagnostics(p.uri, p.diagnostics, p.version).await;
            }
        });
        Backend { writer: state::spawn(publish_tx) }
    }

    /// Sends a message to the writer; fails only if the writer thread is gone.
    fn send(&self, message: Message) -> Result<()> {
        self.writer.send(message).map_err(|_| Error::internal_error())
    }

    /// Asks the writer to format, waiting for its answer.
    async fn format(&self, uri: Uri, range: Option<Range>) -> Result<Option<Vec<TextEdit>>> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.send(Message::Format { uri, range, reply })?;
        answer.await.map_err(|_| Error::internal_error())
    }
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

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = negotiate(&params);
        #[allow(deprecated)] // `root_uri` is still what many clients send.
        let roots: Vec<std::path::PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .map(|f| &f.uri)
            .chain(params.root_uri.iter())
            .filter_map(|uri| uri.to_file_path().map(|p| p.into_owned()))
            .collect();
        self.send(Message::Initialize { roots, encoding })?;
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(match encoding {
                    Encoding::Utf8 => PositionEncodingKind::UTF8,
                    Encoding::Utf16 => PositionEncodingKind::UTF16,
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    ..TextDocumentSyncOptions::default()
                })),
                definition_provider: Some(OneOf::Left(true)),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![COPY_REFERENCE.to_owned()],
                    ..ExecuteCommandOptions::default()
                }),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                declaration_provider: Some(DeclarationCapability::Simple(true)),
                document_formatting_provider: Some(OneOf::Left(true)),
                document_range_formatting_provider: Some(OneOf::Left(true)),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "nacl-ls".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
            ..InitializeResult::default()
        })
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

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let _ = self.send(Message::Close { uri: params.text_document.uri });
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let at = params.text_document_position_params;
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.send(Message::Definition { uri: at.text_document.uri, position: at.position, reply })?;
        let locations = answer.await.map_err(|_| Error::internal_error())?;
        Ok((!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations)))
    }

    async fn goto_declaration(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        self.goto_definition(params).await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.send(Message::Hover { uri: at.text_document.uri, position: at.position, reply })?;
        answer.await.map_err(|_| Error::internal_error())
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command != COPY_REFERENCE {
            return Err(Error::invalid_params(format!("unknown command `{}`", params.command)));
        }
        let at: TextDocumentPositionParams = params
            .arguments
            .into_iter()
            .next()
            .and_then(|a| serde_json::from_value(a).ok())
            .ok_or_else(|| Error::invalid_params("nacl.copyReference takes a text document position"))?;
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.send(Message::ElementId { uri: at.text_document.uri, position: at.position, reply })?;
        Ok(answer.await.map_err(|_| Error::internal_error())?.map(LSPAny::String))
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.send(Message::Symbols { uri: params.text_document.uri, reply })?;
        Ok(Some(DocumentSymbolResponse::Nested(answer.await.map_err(|_| Error::internal_error())?)))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.send(Message::Folds { uri: params.text_document.uri, reply })?;
        Ok(Some(answer.await.map_err(|_| Error::internal_error())?))
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.format(params.text_document.uri, None).await
    }

    async fn range_formatting(&self, params: DocumentRangeFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.format(params.text_document.uri, Some(params.range)).await
    }
}
