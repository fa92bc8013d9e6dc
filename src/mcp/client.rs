//! Our side of each connection: receives the server's notifications and turns them into
//! [`McpEvent`]s and catalog refreshes.

#![allow(deprecated)] // logging is deprecated in 2026-07-28 but what servers in the wild use

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, Implementation, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ProtocolVersion,
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

/// Who to tell about progress on a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgressRoute {
    pub run_id: Option<String>,
    pub step_id: Option<String>,
    pub request: String,
}

/// How long a finished request's progress token still routes: rmcp hands each
/// notification to its own task, so the last progress of a request can be handled
/// after its response (tokens are never reused, so nothing else can match).
const LATE_PROGRESS: std::time::Duration = std::time::Duration::from_secs(2);

/// How long a request's answer waits, at most, for the progress that came before it
/// to be handled (see [`ProgressRoutes::settled`]).
const SETTLE: std::time::Duration = std::time::Duration::from_millis(200);

/// One routed progress token: its caller, the beat each progress bumps once its event
/// is out (the call's timeout starts again on it: the beat counts the progress
/// handled), the progress the transport has received on it, and whether its request
/// has finished.
#[derive(Debug)]
struct Routed {
    route: ProgressRoute,
    beat: watch::Sender<u64>,
    received: u64,
    finished: bool,
}

/// The routed tokens, and those finished in the order they finished (each stamped
/// under the lock, so the oldest is first).
#[derive(Debug, Default)]
struct Routes {
    live: HashMap<ProgressToken, Routed>,
    finished: VecDeque<(Instant, ProgressToken)>,
}

impl Routes {
    /// Forgets the tokens finished [`LATE_PROGRESS`] or longer before `now`: only
    /// those are looked at, so a call costs the same however many came before it.
    fn forget_finished(&mut self, now: Instant) {
        while let Some((at, _)) = self.finished.front() {
            if now.saturating_duration_since(*at) < LATE_PROGRESS {
                return;
            }
            if let Some((_, token)) = self.finished.pop_front() {
                self.live.remove(&token);
            }
        }
    }
}

/// Progress tokens of calls in flight (or finished within [`LATE_PROGRESS`]) → their
/// callers.
#[derive(Debug, Default)]
pub struct ProgressRoutes(Mutex<Routes>);

impl ProgressRoutes {
    /// Routes `token` to `route`; the receiver sees each progress on it. Tokens
    /// finished longer than [`LATE_PROGRESS`] ago are forgotten here, so no timer runs
    /// per request.
    pub fn insert(&self, token: &ProgressToken, route: ProgressRoute) -> watch::Receiver<u64> {
        let (beat, beats) = watch::channel(0);
        let mut routes = self.lock();
        routes.forget_finished(Instant::now());
        routes.live.insert(
            token.clone(),
            Routed {
                route,
                beat,
                received: 0,
                finished: false,
            },
        );
        beats
    }

    /// `token`'s request has finished: its late progress still routes for a while.
    pub fn finish(&self, token: &ProgressToken) {
        let mut guard = self.lock();
        let routes = &mut *guard;
        if let Some(routed) = routes.live.get_mut(token)
            && !routed.finished
        {
            routed.finished = true;
            routes.finished.push_back((Instant::now(), token.clone()));
        }
    }

    /// The transport has received a progress notification on `token` (before rmcp
    /// hands it to a task of its own, and so before the answer that follows it).
    pub fn received(&self, token: &ProgressToken) {
        if let Some(routed) = self.lock().live.get_mut(token) {
            routed.received += 1;
        }
    }

    /// Where progress on `token` goes.
    fn route(&self, token: &ProgressToken) -> Option<ProgressRoute> {
        self.lock().live.get(token).map(|r| r.route.clone())
    }

    /// One progress on `token` has been handled (its event is out): a beat.
    fn handled(&self, token: &ProgressToken) {
        if let Some(routed) = self.lock().live.get(token) {
            routed.beat.send_modify(|n| *n += 1);
        }
    }

    /// Waits until every progress the transport received on `token` has been handled,
    /// for at most [`SETTLE`]: rmcp handles each notification in a task of its own,
    /// so a request's answer can arrive before the progress sent ahead of it is out.
    /// Nothing to wait for (the usual case) costs one look.
    pub async fn settled(&self, token: &ProgressToken) {
        let (mut beats, received) = {
            let routes = self.lock();
            let Some(routed) = routes.live.get(token) else {
                return;
            };
            if *routed.beat.borrow() >= routed.received {
                return;
            }
            (routed.beat.subscribe(), routed.received)
        };
        let handled = beats.wait_for(|n| *n >= received);
        if tokio::time::timeout(SETTLE, handled).await.is_err() {
            tracing::debug!("progress on {token:?} not handled within {SETTLE:?}");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn route(request: &str) -> ProgressRoute {
        ProgressRoute {
            run_id: None,
            step_id: None,
            request: request.to_owned(),
        }
    }

    fn token(n: i64) -> ProgressToken {
        ProgressToken(rmcp::model::NumberOrString::Number(n))
    }

    /// A finished token still routes until [`LATE_PROGRESS`] has passed; a token in
    /// flight routes however long it runs; each is forgotten once, oldest first.
    #[test]
    fn finished_tokens_route_for_a_while_then_are_forgotten_in_order() {
        let routes = ProgressRoutes::default();
        let _beats: Vec<_> = (0..3)
            .map(|n| routes.insert(&token(n), route(&n.to_string())))
            .collect();
        routes.finish(&token(0));
        routes.finish(&token(1));
        routes.finish(&token(1));
        assert_eq!(routes.route(&token(0)), Some(route("0")));
        let mut inner = routes.lock();
        assert_eq!(
            inner.finished.len(),
            2,
            "a second finish is not queued again"
        );
        let (first, second) = (inner.finished[0].0, inner.finished[1].0);
        let almost = LATE_PROGRESS
            .checked_sub(std::time::Duration::from_nanos(1))
            .unwrap();
        inner.forget_finished(first + almost);
        assert_eq!(inner.live.len(), 3);
        inner.forget_finished(first + LATE_PROGRESS);
        assert!(!inner.live.contains_key(&token(0)));
        inner.forget_finished(second + LATE_PROGRESS);
        assert_eq!(inner.live.keys().collect::<Vec<_>>(), vec![&token(2)]);
        assert!(inner.finished.is_empty());
        drop(inner);
        assert_eq!(routes.route(&token(2)), Some(route("2")));
        assert_eq!(routes.route(&token(1)), None);
    }

    /// An answer waits for the progress received ahead of it to be handled, and
    /// only then; with none outstanding it does not wait at all.
    #[tokio::test]
    async fn settled_waits_for_the_progress_received_before_the_answer() {
        use futures::FutureExt as _;
        let routes = Arc::new(ProgressRoutes::default());
        let mut beats = routes.insert(&token(1), route("1"));
        assert!(
            routes.settled(&token(1)).now_or_never().is_some(),
            "none received"
        );
        routes.received(&token(1));
        routes.received(&token(1));
        routes.received(&token(9)); // not routed: not counted
        routes.handled(&token(1));
        let waiting = {
            let routes = Arc::clone(&routes);
            tokio::spawn(async move { routes.settled(&token(1)).await })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "one of two handled");
        routes.handled(&token(1));
        waiting.await.unwrap();
        assert_eq!(
            *beats.borrow_and_update(),
            2,
            "each handled progress is a beat"
        );
        assert!(routes.settled(&token(1)).now_or_never().is_some());
    }
}
