//! The language server: LSP over stdio, with tower-lsp-server.
//!
//! tower-lsp-server runs handlers concurrently, so a handler that awaits can let a later message
//! overtake it. Here every handler forwards its message, synchronously and before any `.await`,
//! into one channel drained by a single writer thread ([`state`]) that owns the documents and the
//! salsa database: changes apply in arrival order, and requests that read a document (formatting)
//! see every change sent before them.

mod backend;
mod state;

use std::process::ExitCode;
use tower_lsp_server::{LspService, Server};

/// Serves LSP over stdin and stdout until the client exits.
pub fn serve() -> std::io::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let (service, socket) = LspService::new(backend::Backend::new);
        Server::new(tokio::io::stdin(), tokio::io::stdout(), socket).serve(service).await;
    });
    Ok(ExitCode::SUCCESS)
}
