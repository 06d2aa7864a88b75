//! The server's log: `tracing` events go to stderr, filtered by `NACL_LS_LOG` (or the `logLevel`
//! setting, which can change while the server runs), and warnings and errors also go to the
//! client's log through `window/logMessage`.

use super::outgoing::{Outbox, Outgoing};
use tower_lsp_server::ls_types::MessageType;
use tracing::{Level, field::Field};
use tracing_subscriber::{EnvFilter, Registry, layer::SubscriberExt, reload, util::SubscriberInitExt};

/// The environment variable holding the log filter.
pub const LOG_ENV: &str = "NACL_LS_LOG";

/// Changes the log filter of a running server.
pub struct LogLevel(reload::Handle<EnvFilter, Registry>);

impl LogLevel {
    /// Sets the filter (`info`, `nacl_ls=debug`, ...); an invalid one is reported and ignored.
    pub fn set(&self, directives: &str) {
        match EnvFilter::try_new(directives) {
            Ok(filter) => {
                if let Err(error) = self.0.reload(filter) {
                    tracing::warn!("cannot change the log level: {error}");
                }
            }
            Err(error) => tracing::warn!("ignoring the log level `{directives}`: {error}"),
        }
    }
}

/// Installs the logger; returns the handle that changes its level. `None` when a logger was
/// already installed (in tests that start the server twice in one process).
pub fn init(client: Outbox) -> Option<LogLevel> {
    let filter = EnvFilter::try_from_env(LOG_ENV).unwrap_or_else(|_| EnvFilter::new("warn"));
    let (filter, handle) = reload::Layer::new(filter);
    tracing_subscriber::registry()
        .with(filter)
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false))
        .with(ClientLayer { client })
        .try_init()
        .ok()
        .map(|()| LogLevel(handle))
}

/// Where tower-lsp-server reports that it cannot send the client a message.
const CLIENT_SENDING: &str = "tower_lsp_server::service::client";

/// Forwards warnings and errors to the client, except reports that a message could not be sent
/// to it: once the client has gone, forwarding those would fail again and report again, round
/// and round.
struct ClientLayer {
    client: Outbox,
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ClientLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let level = match *event.metadata().level() {
            Level::ERROR => MessageType::ERROR,
            Level::WARN => MessageType::WARNING,
            _ => return,
        };
        if event.metadata().target().starts_with(CLIENT_SENDING) {
            return;
        }
        let mut message = String::new();
        event.record(&mut MessageText(&mut message));
        self.client.send(Outgoing::Log { level, message });
    }
}

/// Collects an event's fields as `message key=value ...`.
struct MessageText<'a>(&'a mut String);

impl tracing::field::Visit for MessageText<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write;
        let separator = if self.0.is_empty() { "" } else { " " };
        let _ = if field.name() == "message" {
            write!(self.0, "{separator}{value:?}")
        } else {
            write!(self.0, "{separator}{}={value:?}", field.name())
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_that_the_client_cannot_be_reached_is_not_sent_to_it() {
        let outbox = Outbox::default();
        let subscriber = tracing_subscriber::registry().with(ClientLayer { client: outbox.clone() });
        tracing::subscriber::with_default(subscriber, || {
            tracing::error!(target: "tower_lsp_server::service::client", "failed to send notification");
            tracing::error!("cannot read the client's messages");
            tracing::info!("not a warning");
        });
        assert_eq!(outbox.waiting(), 1, "only the server's own error is forwarded");
    }
}
