//! [`McpHub`]: owns every configured server (one task each, all connecting in parallel)
//! and publishes [`HubSnapshot`]s and [`McpEvent`]s.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::{broadcast, mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::ask::{Asker, HeadlessAsker};
use super::calls::CallContext;
use super::client::{ClientSide, Command, ProgressRoutes};
use super::endpoint::{Endpoint, TransportKind};
use super::error::McpError;
use super::limits::Limits;
use super::result::{PromptView, ResourceRead};
use super::server::{Begin, ServerHandle, run};
use super::snapshot::{HubSnapshot, McpEvent, ServerSnapshot, ServerStatus};
use super::stderr::StderrTail;
use crate::config::{McpConfig, ServerConfig};
use crate::tools::ToolResult;

const EVENT_CAPACITY: usize = 1024;

struct HubInner {
    servers: BTreeMap<String, Arc<ServerHandle>>,
    snapshot: watch::Sender<Arc<HubSnapshot>>,
    events: broadcast::Sender<McpEvent>,
}

/// How to start a hub.
#[derive(Clone, Default)]
pub struct HubOptions {
    /// Directories offered as roots; none: the capability is not declared.
    pub roots: Vec<std::path::PathBuf>,
    /// Who answers elicitation and sampling; none: [`HeadlessAsker`] (decline, deny).
    pub asker: Option<Arc<dyn Asker>>,
    /// `[mcp]`: the sampling default and the input round limit.
    pub mcp: McpConfig,
    /// Runs the OAuth logins servers ask for (headless commands that can show a
    /// page); none: such a server waits in `NeedsLogin`.
    pub login: Option<Arc<dyn super::oauth::LoginPrompt>>,
    /// `[policy] max_calls`: sampling requests spend `sampling` from it; none: no limit.
    pub budget: Option<Arc<crate::policy::CallBudget>>,
    /// Captures every server's messages (the Wire pane, `--trace`); none: no capture.
    pub wire: Option<Arc<super::wire::WireLog>>,
    /// Holds every server's first connection until opened; none: they start at once.
    pub start: Option<StartGate>,
    /// Where the catalogs of servers that start on demand (or stop when idle) are
    /// cached; none: such a server shows no catalog until it has started.
    pub cache: Option<super::catalog_cache::CatalogCache>,
    /// MCP Apps can be opened here (the TUI, `switchboard app`): the client declares
    /// the `io.modelcontextprotocol/ui` extension. False: it is not declared, so
    /// servers that offer text-only variants to hosts without UI keep doing so.
    pub apps: bool,
}

/// Holds the servers' first connections until [`StartGate::open`]: the TUI opens it
/// once its first frame is drawn, so that twenty servers being spawned (and starting
/// up) do not compete with that frame for the CPU. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct StartGate(CancellationToken);

impl StartGate {
    /// Lets the servers connect (idempotent).
    pub fn open(&self) {
        self.0.cancel();
    }

    pub(super) async fn opened(&self) {
        self.0.cancelled().await;
    }
}

impl std::fmt::Debug for HubOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubOptions")
            .field("roots", &self.roots)
            .field("asker", &self.asker.is_some())
            .field("mcp", &self.mcp)
            .field("login", &self.login.is_some())
            .field("budget", &self.budget.is_some())
            .field("wire", &self.wire.is_some())
            .field("start", &self.start)
            .field("cache", &self.cache)
            .field("apps", &self.apps)
            .finish()
    }
}

/// The MCP servers of a session. Cheap to clone.
#[derive(Clone)]
pub struct McpHub {
    inner: Arc<HubInner>,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub")
            .field("servers", &self.inner.servers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl McpHub {
    /// Starts one task per enabled server (on the current tokio runtime); they connect
    /// in parallel. Disabled servers and servers whose config cannot be used are in the
    /// snapshot (as `Disabled` / `Failed`) without a task.
    pub fn start(servers: &BTreeMap<String, ServerConfig>) -> Self {
        Self::start_with_roots(servers, &[])
    }

    /// As [`McpHub::start`], offering `roots` (directories) to servers that ask
    /// (`roots/list`); with none, the client does not declare the capability.
    pub fn start_with_roots(
        servers: &BTreeMap<String, ServerConfig>,
        roots: &[std::path::PathBuf],
    ) -> Self {
        Self::start_with(
            servers,
            HubOptions {
                roots: roots.to_vec(),
                ..HubOptions::default()
            },
        )
    }

    /// As [`McpHub::start`], with roots, the asker and the `[mcp]` settings.
    #[allow(deprecated)] // the logging level: deprecated in 2026-07-28, still widely used
    pub fn start_with(servers: &BTreeMap<String, ServerConfig>, options: HubOptions) -> Self {
        let roots: Arc<[String]> = options.roots.iter().filter_map(|r| file_uri(r)).collect();
        let asker: Arc<dyn Asker> = options
            .asker
            .unwrap_or_else(|| Arc::new(HeadlessAsker::default()));
        let (snapshot, _) = watch::channel(Arc::new(HubSnapshot::default()));
        let events = broadcast::channel(EVENT_CAPACITY).0;
        let mut handles = BTreeMap::new();
        let mut initial = Vec::new();
        let mut tasks = Vec::new();
        for (name, config) in servers {
            let (commands, rx) = mpsc::unbounded_channel();
            let routes = Arc::new(ProgressRoutes::default());
            let client = ClientSide {
                server: Arc::from(name.as_str()),
                events: events.clone(),
                commands: commands.clone(),
                routes: Arc::clone(&routes),
                roots: Arc::clone(&roots),
                asker: Arc::clone(&asker),
                asking: super::client::OpenCount::new(),
                in_flight: super::client::OpenCount::new(),
                sampling: config.sampling.unwrap_or(options.mcp.sampling),
                subscriptions: Arc::default(),
                streams: tokio_util::task::TaskTracker::new(),
                budget: options.budget.clone(),
                refusals: super::param_headers::Refusals::default(),
                task_support: super::task_support::TaskSupport::default(),
                wire: options.wire.clone(),
                apps: options.apps,
            };
            let mut limits = Limits::for_server(config);
            limits.max_input_rounds = options.mcp.max_input_rounds;
            let on_demand = config.on_demand(&options.mcp);
            let cache = options
                .cache
                .clone()
                .filter(|_| on_demand || limits.idle_timeout.is_some());
            let handle = Arc::new(ServerHandle {
                name: name.clone(),
                config: config.clone(),
                limits,
                live: RwLock::new(None),
                log_level: RwLock::new(rmcp::model::LoggingLevel::Info),
                commands,
                routes,
                client: client.clone(),
                stderr: Arc::new(StderrTail::default()),
                hub: snapshot.clone(),
                stop: CancellationToken::new(),
                login: options.login.clone(),
                on_demand,
                cache,
                start_asked: std::sync::atomic::AtomicBool::new(false),
                attempts_ended: std::sync::atomic::AtomicU64::new(0),
            });
            let endpoint =
                Endpoint::from_config(config).map(|e| e.sandboxed(config, options.mcp.sandbox));
            let (kind, target) = endpoint.as_ref().map_or_else(
                |_| {
                    (
                        guess_kind(config),
                        config
                            .url
                            .clone()
                            .or_else(|| config.command.clone())
                            .unwrap_or_default(),
                    )
                },
                |e| (e.kind(), e.target()),
            );
            let (entry, begin) = first_entry(&handle, kind, target, &endpoint);
            initial.push(Arc::new(entry));
            if let (Ok(endpoint), Some(begin)) = (endpoint, begin) {
                tasks.push((Arc::clone(&handle), endpoint, rx, client, begin));
            }
            handles.insert(name.clone(), handle);
        }
        snapshot.send_replace(Arc::new(HubSnapshot { servers: initial }));
        for (handle, endpoint, rx, client, begin) in tasks {
            tokio::spawn(run(
                handle,
                endpoint,
                rx,
                client,
                events.clone(),
                begin,
                options.start.clone(),
            ));
        }
        Self {
            inner: Arc::new(HubInner {
                servers: handles,
                snapshot,
                events,
            }),
        }
    }

    /// How much longer than a connection a server may take to settle: the time for
    /// its logins when this hub runs them itself, else nothing.
    pub fn login_allowance(&self) -> Duration {
        let logs_in = self.inner.servers.values().any(|s| s.login.is_some());
        if logs_in {
            super::oauth::login::LOGIN_TIMEOUT * super::reauth::MAX_LOGIN_ROUNDS
        } else {
            Duration::ZERO
        }
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> Arc<HubSnapshot> {
        Arc::clone(&self.inner.snapshot.borrow())
    }

    /// Snapshots as they change.
    pub fn subscribe(&self) -> watch::Receiver<Arc<HubSnapshot>> {
        self.inner.snapshot.subscribe()
    }

    /// Logs, progress, stderr lines and catalog changes.
    pub fn events(&self) -> broadcast::Receiver<McpEvent> {
        self.inner.events.subscribe()
    }

    pub fn server(&self, name: &str) -> Result<&Arc<ServerHandle>, McpError> {
        self.inner
            .servers
            .get(name)
            .ok_or_else(|| McpError::UnknownServer(name.to_owned()))
    }

    pub fn names(&self) -> Vec<String> {
        self.inner.servers.keys().cloned().collect()
    }

    /// Waits until no server is connecting (or `timeout` passes), then returns the
    /// snapshot.
    pub async fn settled(&self, timeout: Duration) -> Arc<HubSnapshot> {
        let mut rx = self.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|s| s.is_settled())).await;
        self.snapshot()
    }

    /// Waits until `name` is not connecting (or `timeout` passes).
    pub async fn settled_server(
        &self,
        name: &str,
        timeout: Duration,
    ) -> Option<Arc<ServerSnapshot>> {
        let mut rx = self.subscribe();
        let ready = |s: &Arc<HubSnapshot>| s.server(name).is_none_or(|s| s.status.is_settled());
        let _ = tokio::time::timeout(timeout, rx.wait_for(ready)).await;
        self.snapshot().server(name).cloned()
    }

    /// Reconnect one server now.
    /// Close a server's connection and keep it disabled until `reconnect`.
    pub fn disable(&self, name: &str) -> Result<(), McpError> {
        self.server(name)?.disable();
        Ok(())
    }

    /// The least severe `notifications/message` level servers should send (`debug`,
    /// `info`, `notice`, `warning`, `error`, …): sent now with `logging/setLevel` to
    /// every ready server that offers logging, and on every later (re)connect; in
    /// 2026-07-28 it travels in the `_meta` of each request instead.
    /// Returns the names of the servers asked now.
    #[allow(deprecated)] // logging/setLevel: deprecated in 2026-07-28, still widely used
    pub async fn set_log_level(&self, level: &str) -> Result<Vec<String>, McpError> {
        let level: rmcp::model::LoggingLevel =
            serde_json::from_value(Value::String(level.to_owned())).map_err(|_| {
                McpError::Config {
                    server: "*".into(),
                    message: format!(
                        "unknown log level {level:?}; one of debug, info, notice, warning, error, critical, alert, emergency"
                    ),
                }
            })?;
        let mut sends = Vec::new();
        for handle in self.inner.servers.values() {
            *handle
                .log_level
                .write()
                .unwrap_or_else(PoisonError::into_inner) = level;
            let logs = handle
                .snapshot()
                .and_then(|s| s.info.clone())
                .is_some_and(|info| info.supports("logging"));
            if let (true, Ok(live)) = (logs, handle.live()) {
                let name = handle.name.clone();
                sends.push(async move {
                    // 2026-07-28: the level goes with each request from now on.
                    if !live.stateless {
                        super::server::send_log_level(&live.peer, &name, level).await;
                    }
                    name
                });
            }
        }
        Ok(futures::future::join_all(sends).await)
    }

    /// The level last asked for with [`McpHub::set_log_level`] (`info` at start).
    pub fn log_level(&self) -> String {
        self.inner
            .servers
            .values()
            .next()
            .and_then(|handle| serde_json::to_value(handle.current_log_level()).ok())
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "info".to_owned())
    }

    /// Starts `name` if it waits to be used (on demand, or stopped when idle) and
    /// waits until it is ready or has failed; a running server is left as it is.
    pub async fn start_server(&self, name: &str) -> Result<(), McpError> {
        self.server(name)?.started().await.map(|_| ())
    }

    pub fn reconnect(&self, name: &str) -> Result<(), McpError> {
        self.server(name)?.reconnect();
        Ok(())
    }

    /// Calls a tool directly (not through the gate: use the registry for anything a
    /// user or model asked for).
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        args: Map<String, Value>,
        generation: Option<u64>,
        ctx: CallContext,
    ) -> Result<ToolResult, McpError> {
        self.server(server)?
            .call_tool(tool, args, generation, ctx)
            .await
    }

    /// `tasks/get` on `server`.
    pub async fn get_task(
        &self,
        server: &str,
        task_id: &str,
    ) -> Result<super::tasks::TaskView, McpError> {
        self.server(server)?.get_task(task_id).await
    }

    /// `tasks/cancel` on `server`.
    pub async fn cancel_task(&self, server: &str, task_id: &str) -> Result<(), McpError> {
        self.server(server)?.cancel_task(task_id).await
    }

    /// Hear about changes to `uri` on `server` (`McpEvent::ResourceUpdated`):
    /// `resources/subscribe` in a session, `subscriptions/listen` without one.
    pub async fn subscribe_resource(&self, server: &str, uri: &str) -> Result<(), McpError> {
        self.server(server)?.subscribe_resource(uri).await
    }

    pub async fn unsubscribe_resource(&self, server: &str, uri: &str) -> Result<(), McpError> {
        self.server(server)?.unsubscribe_resource(uri).await
    }

    /// An MCP App's page (see [`ServerHandle::read_app_resource`]).
    pub async fn read_app_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<ResourceRead, McpError> {
        self.server(server)?.read_app_resource(uri).await
    }

    pub async fn read_resource(&self, server: &str, uri: &str) -> Result<ResourceRead, McpError> {
        self.server(server)?.read_resource(uri).await
    }

    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        args: Map<String, Value>,
    ) -> Result<PromptView, McpError> {
        self.server(server)?.get_prompt(name, args).await
    }

    /// Closes every connection (each within its close timeout).
    pub async fn shutdown(&self) {
        let mut rx = self.subscribe();
        for handle in self.inner.servers.values() {
            handle.stop.cancel();
            let _ = handle.commands.send(Command::Shutdown);
        }
        let closed = |s: &Arc<HubSnapshot>| {
            s.servers.iter().all(|s| {
                !matches!(
                    s.status,
                    ServerStatus::Ready | ServerStatus::Connecting { .. }
                )
            })
        };
        let _ = tokio::time::timeout(Limits::default().close_timeout, rx.wait_for(closed)).await;
    }
}

/// `file:///abs/path` for an absolute directory, with the characters a URI cannot
/// hold percent-encoded.
fn file_uri(path: &std::path::Path) -> Option<String> {
    let text = path.to_str().filter(|_| path.is_absolute())?;
    let mut uri = String::from("file://");
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(char::from(byte));
            }
            other => {
                let _ = write!(uri, "%{other:02X}");
            }
        }
    }
    Some(uri)
}

/// A server's first snapshot entry, and how its task begins (none: it has no task).
/// Disabled servers get their task too, waiting to be enabled (`d` in the TUI);
/// on-demand ones wait to be used, showing their cached catalog.
fn first_entry(
    handle: &ServerHandle,
    kind: TransportKind,
    target: String,
    endpoint: &Result<Endpoint, super::endpoint::EndpointError>,
) -> (ServerSnapshot, Option<Begin>) {
    let (name, config) = (&handle.name, &handle.config);
    let status = match (endpoint, config.enabled) {
        (_, Some(false)) => ServerStatus::Disabled,
        (Err(e), _) => ServerStatus::Failed {
            error: McpError::refused(name.as_str(), e),
            retry_in: None,
        },
        (Ok(_), _) if handle.on_demand => ServerStatus::Idle { stopped: false },
        (Ok(_), _) => ServerStatus::Connecting { attempt: 1 },
    };
    let mut entry = ServerSnapshot::new(name, kind, target, status.clone());
    entry.sandboxed = endpoint.as_ref().is_ok_and(Endpoint::is_sandboxed);
    if status.is_idle()
        && let Some(cached) = handle.cache.as_ref().and_then(|c| c.load(name, config))
    {
        entry.catalog = Arc::new(cached);
    }
    if let ServerStatus::Failed { error, .. } = &status {
        entry.last_error = Some(error.clone());
    }
    let begin = match status {
        ServerStatus::Disabled => Some(Begin::Disabled),
        ServerStatus::Idle { .. } => Some(Begin::Idle),
        ServerStatus::Connecting { .. } => Some(Begin::Connect),
        _ => None,
    };
    (entry, begin)
}

fn guess_kind(config: &ServerConfig) -> TransportKind {
    match (config.command.is_some(), config.transport.as_deref()) {
        (true, _) => TransportKind::Stdio,
        (false, Some("sse")) => TransportKind::Sse,
        _ => TransportKind::Http,
    }
}
