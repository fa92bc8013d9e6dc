//! Our side of each connection: receives the server's notifications and turns them into
//! [`McpEvent`]s and catalog refreshes.

#![allow(deprecated)] // logging is deprecated in 2026-07-28 but what servers in the wild use

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, Implementation, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProtocolVersion,
};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::ask::Asker;
use super::catalog::ListKind;
use super::snapshot::McpEvent;
use crate::config::SamplingPolicy;

/// Asks the server's task to do something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Re-list one list: the server announced `list_changed` at that instant (a list
    /// that began later already holds the change).
    Refresh(ListKind, tokio::time::Instant),
    /// Drop the connection and connect again (also: enable a disabled server).
    Reconnect,
    /// Close the connection and stay disconnected until `Reconnect`.
    Disable,
    /// Close the connection and stop.
    Shutdown,
    /// Start a server that is not running (on demand, or stopped when idle); ignored
    /// by a running one.
    Start,
    /// The server had nothing to do for its `idle_timeout`: close the connection and
    /// wait to be started again (sent by its own task).
    Idle,
}

pub use super::progress_routes::{ProgressRoute, ProgressRoutes};

/// A count of things open with one server, each held by a guard: the questions
/// (elicitations, sampling requests) it has open with the person — while one is, its
/// calls' timeouts are paused, the person's time is not the server's — or the
/// requests in flight to it.
#[derive(Debug, Clone)]
pub struct OpenCount(Arc<watch::Sender<usize>>);

impl OpenCount {
    pub fn new() -> Self {
        Self(Arc::new(watch::channel(0).0))
    }

    /// Counts one open until the guard is dropped.
    pub fn open(&self) -> OpenGuard {
        self.0.send_modify(|n| *n += 1);
        OpenGuard(Arc::clone(&self.0))
    }

    /// Tells those who watch the count that something happened, without changing
    /// it (a use of the server that is not a request yet: the idle time starts again).
    pub fn touch(&self) {
        self.0.send_modify(|_| {});
    }

    /// Sees the count change.
    pub fn watch(&self) -> watch::Receiver<usize> {
        self.0.subscribe()
    }

    /// Resolves when the count, above zero now, comes back to zero; never when it is
    /// zero already.
    pub async fn ended(&self) {
        let mut count = self.watch();
        if *count.borrow_and_update() == 0 || count.wait_for(|n| *n == 0).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// One open question or request; dropping it closes it.
pub struct OpenGuard(Arc<watch::Sender<usize>>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// The `ClientHandler` of one server.
#[derive(Clone)]
pub struct ClientSide {
    pub server: Arc<str>,
    pub events: broadcast::Sender<McpEvent>,
    pub commands: mpsc::UnboundedSender<Command>,
    pub routes: Arc<ProgressRoutes>,
    /// Directories offered as `roots` (`file://` URIs); none: the capability is not
    /// declared.
    pub roots: Arc<[String]>,
    /// Who answers elicitation and sampling requests.
    pub asker: Arc<dyn Asker>,
    /// The questions open with the person now (they pause this server's timeouts).
    pub asking: OpenCount,
    /// The requests in flight to this server now: a question it asked during calls
    /// that have all ended no longer waits for an answer.
    pub in_flight: OpenCount,
    /// Whether this server's sampling requests reach the asker at all.
    pub sampling: SamplingPolicy,
    /// Subscribed resources → what stops their stream (2026-07-28). Updates for a
    /// URI not in it are dropped here, whatever the server or a stream in flight sends.
    pub subscriptions: Arc<std::sync::Mutex<BTreeMap<String, CancellationToken>>>,
    /// `[policy] max_calls`, from which each sampling request spends `sampling`.
    pub budget: Option<Arc<crate::policy::CallBudget>>,
    /// Tools the HTTP transport refused for invalid `x-mcp-header` annotations.
    pub refusals: super::param_headers::Refusals,
    /// What the server said about 2025-11-25 tasks (read off the raw wire).
    pub task_support: super::task_support::TaskSupport,
    /// Where every message of this server is captured; none: not captured.
    pub wire: Option<Arc<super::wire::WireLog>>,
    /// The tasks reading this connection's subscription streams (2026-07-28).
    pub streams: tokio_util::task::TaskTracker,
    /// Whether MCP Apps can be opened: the `io.modelcontextprotocol/ui` extension is
    /// declared only then.
    pub apps: bool,
}

impl ClientSide {
    /// The handler of a connection that only shakes hands (`mcp login`'s probe for
    /// the server's challenge): no roots, sampling refused, questions declined, and
    /// nobody listening to its events or commands.
    pub fn probe(server: &str) -> Self {
        Self {
            server: Arc::from(server),
            events: broadcast::channel(1).0,
            commands: mpsc::unbounded_channel().0,
            routes: Arc::default(),
            roots: Arc::from([]),
            asker: Arc::new(super::ask::HeadlessAsker::default()),
            asking: OpenCount::new(),
            in_flight: OpenCount::new(),
            sampling: SamplingPolicy::Deny,
            subscriptions: Arc::default(),
            budget: None,
            refusals: super::param_headers::Refusals::default(),
            task_support: super::task_support::TaskSupport::default(),
            wire: None,
            streams: tokio_util::task::TaskTracker::new(),
            apps: false,
        }
    }

    fn emit(&self, event: McpEvent) {
        if self.events.receiver_count() > 0 {
            let _ = self.events.send(event);
        }
    }

    pub(super) fn refresh(&self, kind: ListKind) {
        let now = tokio::time::Instant::now();
        let _ = self.commands.send(Command::Refresh(kind, now));
    }
}

fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl ClientHandler for ClientSide {
    /// What we offer. The version is the newest that has an `initialize` handshake:
    /// 2026-07-28 is offered only through `server/discover` (see `connect`).
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = serde_json::json!({
            "elicitation": {"form": {}, "url": {}},
        });
        if !self.roots.is_empty() {
            capabilities["roots"] = serde_json::json!({});
        }
        if self.sampling == SamplingPolicy::Ask {
            capabilities["sampling"] = serde_json::json!({});
        }
        // The tasks extension (SEP-2663): calls may become tasks we follow.
        capabilities["extensions"] = serde_json::json!({"io.modelcontextprotocol/tasks": {}});
        if self.apps {
            // MCP Apps (https://github.com/modelcontextprotocol/ext-apps,
            // `specification/2026-01-26/apps.mdx`): the UI mime type this host renders.
            capabilities["extensions"][crate::mcp::apps::EXTENSION] =
                serde_json::json!({"mimeTypes": [crate::mcp::apps::MIME_TYPE]});
        }
        let capabilities: ClientCapabilities =
            serde_json::from_value(capabilities).unwrap_or_default();
        ClientConfig::new(
            capabilities,
            Implementation::new("switchboard", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        Ok(self.roots_result())
    }

    /// The person is asked until they answer, the server cancels the request or goes,
    /// or every call it was asked during ends: then the question leaves the screen
    /// unanswered (the asker's future is dropped) and nothing is recorded as answered.
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        tokio::select! {
            answer = self.elicit(request) => Ok(answer),
            () = context.ct.cancelled() => Err(gone("the server cancelled the question")),
            () = self.in_flight.ended() => Err(gone("the call that asked it has ended")),
        }
    }

    /// As [`Self::create_elicitation`]: a sampling request whose call ended is not
    /// sent to a model.
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<CreateMessageResult, rmcp::ErrorData> {
        tokio::select! {
            reply = self.sample(params) => reply,
            () = context.ct.cancelled() => Err(gone("the server cancelled the request")),
            () = self.in_flight.ended() => Err(gone("the call that asked it has ended")),
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .as_ref()
            .map_or_else(|| "info".to_owned(), as_text);
        let message = as_text(&params.data);
        tracing::info!(target: crate::logging::SERVER_LOG_TARGET, server = %self.server, level, "{message}");
        self.emit(McpEvent::Log {
            server: self.server.to_string(),
            level,
            logger: params.logger,
            message,
        });
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let token = params.progress_token;
        let Some(route) = self.routes.route(&token) else {
            tracing::debug!(server = %self.server, "progress for an unknown token");
            return;
        };
        self.emit(McpEvent::Progress {
            server: self.server.to_string(),
            run_id: route.run_id,
            step_id: route.step_id,
            request: route.request,
            progress: params.progress,
            total: params.total,
            message: params.message,
        });
        // Counted once the event is out: an answer waiting on it follows its progress.
        self.routes.handled(&token);
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.resource_updated(params.uri);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.refresh(ListKind::Tools);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.refresh(ListKind::Resources);
        self.refresh(ListKind::Templates);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.refresh(ListKind::Prompts);
    }
}

/// The answer to a question nobody waits for any more.
fn gone(why: &str) -> rmcp::ErrorData {
    rmcp::ErrorData::internal_error(format!("not answered: {why}"), None)
}
