//! One opened app: the tool it belongs to, the call it shows, and what it reaches
//! through switchboard (the gate, its server, the person).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::resource::AppResource;
use crate::gate::GateObserver;
use crate::mcp::wire::{Direction, Side};
use crate::mcp::{Asker, CatalogTool, McpHub, WireLog};
use crate::tools::Registry;

/// Where the call the app shows stands.
#[derive(Debug, Clone, PartialEq)]
pub enum CallState {
    /// Not finished yet (`switchboard app` opens the page before the call ends).
    Running,
    /// Its `CallToolResult`, as MCP sends it.
    Done(Value),
    /// It did not run to a result: why (denied, failed, cancelled).
    Cancelled(String),
}

/// What an app did that the person should see: shown as transcript entries in the
/// TUI and as lines on stderr headless. Nothing here ever reaches a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppNote {
    /// `ui/message`: text the app wanted to send to the conversation.
    Message { app: String, text: String },
    /// `ui/update-model-context`: context the app wanted the model to have.
    Context { app: String, text: String },
    /// `notifications/message`: the app's log.
    Log {
        app: String,
        level: String,
        text: String,
    },
    /// `ui/open-link`: the link, and whether the person let it open.
    Link {
        app: String,
        url: String,
        opened: bool,
    },
}

/// What an app reaches through switchboard.
#[derive(Clone)]
pub struct AppDeps {
    /// Its `tools/call`s pass the one gate (origin `app`).
    pub registry: Arc<Registry>,
    /// Its `resources/read`s go to its server.
    pub hub: McpHub,
    /// Asks the person before a link opens (headless: declined).
    pub asker: Arc<dyn Asker>,
    /// Where [`AppNote`]s go.
    pub notes: mpsc::UnboundedSender<AppNote>,
    /// Where its messages are captured (the Wire pane, `--trace`).
    pub wire: Option<Arc<WireLog>>,
    /// Hears the gate's events about its calls (the TUI's cards).
    pub observer: Option<Arc<dyn GateObserver>>,
}

/// One opened app.
pub struct AppSession {
    pub server: String,
    pub tool: CatalogTool,
    pub resource: AppResource,
    pub arguments: Map<String, Value>,
    pub(super) deps: AppDeps,
    state: watch::Sender<CallState>,
    calls: AtomicU64,
    /// Cancels the app's calls still running when the app is closed.
    pub(super) closed: CancellationToken,
}

impl AppSession {
    pub fn new(
        server: &str,
        tool: CatalogTool,
        resource: AppResource,
        arguments: Map<String, Value>,
        deps: AppDeps,
    ) -> Self {
        Self {
            server: server.to_owned(),
            tool,
            resource,
            arguments,
            deps,
            state: watch::channel(CallState::Running).0,
            calls: AtomicU64::new(0),
            closed: CancellationToken::new(),
        }
    }

    /// How the app is named to people: its resource and server.
    pub fn name(&self) -> String {
        format!("{} ({})", self.resource.uri, self.server)
    }

    /// The call the app shows has ended.
    pub fn finish(&self, state: CallState) {
        self.state.send_replace(state);
    }

    pub fn state(&self) -> CallState {
        self.state.borrow().clone()
    }

    /// The notification that tells the app how its call ended, once it has ended
    /// (waiting at most `wait`; `None`: still running).
    pub async fn outcome(&self, wait: Duration) -> Option<Value> {
        let mut rx = self.state.subscribe();
        let ended =
            tokio::time::timeout(wait, rx.wait_for(|s| !matches!(s, CallState::Running))).await;
        match ended.ok()?.ok()?.clone() {
            CallState::Done(result) => Some(notification("ui/notifications/tool-result", result)),
            CallState::Cancelled(reason) => Some(notification(
                "ui/notifications/tool-cancelled",
                json!({"reason": reason}),
            )),
            CallState::Running => None,
        }
    }

    /// The tool's input, sent once the app has initialised.
    pub fn input_notification(&self) -> Value {
        notification(
            "ui/notifications/tool-input",
            json!({"arguments": self.arguments}),
        )
    }

    pub(super) fn next_call(&self) -> u64 {
        self.calls.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The app's calls still running are cancelled.
    pub fn close(&self) {
        self.closed.cancel();
    }

    /// Captures a message exchanged with the app (peer `app:SERVER`).
    pub(super) fn capture(&self, direction: Direction, message: &Value) {
        if let Some(wire) = &self.deps.wire {
            let peer = format!("app:{}", self.server);
            wire.record(&peer, Side::Downstream, direction, message, None);
        }
    }

    pub(super) fn note(&self, note: AppNote) {
        let _ = self.deps.notes.send(note);
    }
}

/// A JSON-RPC notification.
pub fn notification(method: &str, params: Value) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    message["params"] = params;
    message
}
