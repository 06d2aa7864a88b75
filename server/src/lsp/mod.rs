//! The language server: LSP over stdio, with tower-lsp-server.
//!
//! tower-lsp-server runs handlers concurrently, so a handler that awaits can let a later message
//! overtake it. Here every handler forwards its message, synchronously and before any `.await`,
//! into one channel drained by a single writer thread ([`writer`]) that owns the documents and the
//! salsa databases: changes apply in arrival order, and a request sees every change sent before
//! it. Requests and diagnostics run on snapshots on worker threads ([`requests`]); what the server
//! sends on its own goes through one ordered stream ([`outgoing`]).

mod backend;
mod convert;
mod document;
mod logging;
mod outgoing;
mod requests;
mod settings;
mod writer;

use std::process::ExitCode;
use tower_lsp_server::{LspService, Server};

/// Serves LSP over stdin and stdout until the client exits.
pub fn serve() -> std::io::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let (outgoing, outgoing_rx) = tokio::sync::mpsc::unbounded_channel();
        let log_level = logging::init(outgoing.clone());
        let writer = writer::spawn(outgoing, log_level)?;
        let (service, socket) = LspService::new(move |client| {
            tokio::spawn(outgoing::run(client.clone(), outgoing_rx));
            backend::Backend::new(client, writer)
        });
        Server::new(tokio::io::stdin(), tokio::io::stdout(), socket).serve(service).await;
        Ok::<(), std::io::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}
