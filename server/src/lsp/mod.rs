//! The language server: LSP over stdio, with tower-lsp-server.
//!
//! tower-lsp-server runs handlers concurrently, so a handler that awaits can let a later message
//! overtake it. Here every handler forwards its message, synchronously and before any `.await`,
//! into one channel drained by a single writer thread ([`writer`]) that owns the documents and the
//! salsa databases: changes apply in arrival order, and a request sees every change sent before
//! it. Requests and diagnostics run on snapshots on worker threads ([`requests`]); what the server
//! sends on its own goes through one ordered stream ([`outgoing`]). Input passes through a guard
//! ([`framing`]) that keeps malformed messages from ending the session.

mod assists;
mod backend;
mod completion;
mod convert;
mod document;
mod framing;
mod logging;
mod outgoing;
mod paths;
mod pull;
mod requests;
mod settings;
mod writer;

use std::process::ExitCode;
use tower_lsp_server::{LspService, Server};

/// Serves LSP over stdin and stdout until the client exits.
pub fn serve() -> std::io::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let outgoing = outgoing::Outbox::default();
        let outgoing_rx = outgoing.clone();
        let log_level = logging::init(outgoing.clone());
        let writer = writer::spawn(outgoing, log_level)?;
        let mut service = LspService::build(move |client| {
            tokio::spawn(outgoing::run(client.clone(), outgoing_rx));
            backend::Backend::new(client, writer)
        })
        .custom_method(backend::DOCUMENT_TEXT, backend::Backend::document_text)
        .custom_method(framing::INVALID_REQUEST, backend::Backend::invalid_request);
        if std::env::var(backend::TEST_HOOKS_ENV).is_ok_and(|v| v == "1") {
            service = service.custom_method(backend::TEST_WAIT_FOR_CANCEL, backend::Backend::wait_for_cancel);
        }
        let (service, socket) = service.finish();
        // Malformed input would stop tower-lsp-server from reading any further: guard it.
        let (guarded, input) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Err(error) = framing::guard(tokio::io::stdin(), guarded).await {
                tracing::error!("cannot read the client's messages: {error}");
            }
        });
        Server::new(input, tokio::io::stdout(), socket).serve(service).await;
        Ok::<(), std::io::Error>(())
    })?;
    // The input guard may be blocked reading stdin, a read that cannot be cancelled: do not wait for it.
    runtime.shutdown_background();
    Ok(ExitCode::SUCCESS)
}
