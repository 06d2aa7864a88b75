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
    // The global pool runs the server's background work: loading workspaces and checking them
    // whole. Its threads yield to the request threads, which would otherwise wait a scheduler
    // tick (about 4 ms) for a core each time a request wakes them during a long check.
    let background = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("nacl-ls background {i}"))
        .start_handler(|_| in_background());
    if let Err(error) = background.build_global() {
        tracing::debug!("the background pool is the default one: {error}");
    }
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

/// Lowers the calling thread's priority to a background one (a niceness of about 10 on Linux,
/// where a lower priority needs no privilege); a thread whose priority cannot be changed keeps
/// its own.
pub(crate) fn in_background() {
    use thread_priority::{ThreadPriority, ThreadPriorityValue, set_current_thread_priority};
    // A quarter of the way up from the lowest priority.
    let lowered = ThreadPriorityValue::try_from(25u8).and_then(|value| {
        set_current_thread_priority(ThreadPriority::Crossplatform(value)).map_err(|error| error.to_string())
    });
    if let Err(error) = lowered {
        tracing::debug!("a background thread keeps its priority: {error}");
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The niceness of the calling thread: the 19th field of `/proc/thread-self/stat`.
    fn niceness() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("a Linux thread's stat");
        let fields = &stat[stat.rfind(')').expect("the command's end") + 2..];
        fields.split(' ').nth(16).and_then(|nice| nice.parse().ok()).expect("a niceness")
    }

    #[test]
    fn a_background_thread_yields_to_the_others() {
        let (before, after) = std::thread::spawn(|| {
            let before = niceness();
            super::in_background();
            (before, niceness())
        })
        .join()
        .expect("the thread ends");
        assert!(after > 0 && after >= before, "niceness {before} -> {after}");
        assert_eq!(niceness(), before, "only the calling thread");
    }
}
