//! Logging via `tracing`: to a file, never to the terminal, and optionally to a
//! channel that feeds the TUI's Logs pane.

mod rotate;

use std::fmt::Write as _;
use std::fs::create_dir_all;
use std::io;
use std::path::Path;
use std::sync::Mutex;

use tokio::sync::mpsc::UnboundedSender;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// One log event, as the Logs pane shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    pub level: Level,
    pub target: String,
    pub message: String,
}

/// The target of MCP servers' own output (log notifications, stderr lines): written to
/// the file, but not sent to the UI, which shows them from the hub's events as
/// `mcp:NAME` / `stderr:NAME` already.
pub const SERVER_LOG_TARGET: &str = "switchboard::server_log";

/// The filter when `SWITCHBOARD_LOG` is not set: info, but rmcp's per-message
/// notices (one line per notification received) only when they are warnings.
pub const DEFAULT_FILTER: &str = "info,rmcp=warn";

pub use rotate::RotatingFile;

/// Log to `file` (appending; directories created; rotated by size, see
/// [`RotatingFile`]) and, when given, to `ui`.
/// The filter comes from `SWITCHBOARD_LOG` (e.g. `debug`, `switchboard=trace`),
/// default [`DEFAULT_FILTER`].
pub fn init(file: &Path, ui: Option<UnboundedSender<LogRecord>>) -> io::Result<()> {
    if let Some(dir) = file.parent() {
        create_dir_all(dir)?;
    }
    let out = RotatingFile::open(file)?;
    let filter = EnvFilter::try_from_env("SWITCHBOARD_LOG")
        .unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let file_layer = tracing_subscriber::fmt::layer()
        .with_writer(Mutex::new(out))
        .with_ansi(false);
    tracing_subscriber::registry()
        .with(filter)
        .with(file_layer)
        .with(ui.map(ChannelLayer))
        .try_init()
        .map_err(io::Error::other)
}

struct ChannelLayer(UnboundedSender<LogRecord>);

impl<S: Subscriber> Layer<S> for ChannelLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut visitor = MessageVisitor::default();
        event.record(&mut visitor);
        let meta = event.metadata();
        if meta.target() == SERVER_LOG_TARGET {
            return;
        }
        // The receiver is gone once the UI has stopped; nothing to do then.
        let _ = self.0.send(LogRecord {
            level: *meta.level(),
            target: meta.target().to_string(),
            message: visitor.text,
        });
    }
}

#[derive(Default)]
struct MessageVisitor {
    text: String,
}

impl Visit for MessageVisitor {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.text.insert_str(0, value);
        } else {
            let _ = write!(self.text, " {}={value}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.text.insert_str(0, &format!("{value:?}"));
        } else {
            let _ = write!(self.text, " {}={value:?}", field.name());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_logs_reach_the_file_but_not_the_pane_twice() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let subscriber = tracing_subscriber::registry().with(ChannelLayer(tx));
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(target: SERVER_LOG_TARGET, server = "s", "from the server");
            tracing::info!("ours");
        });
        let first = rx.try_recv().unwrap();
        assert_eq!(first.message, "ours");
        assert!(rx.try_recv().is_err());
    }
}
