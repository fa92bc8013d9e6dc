//! `switchboard serve`: switchboard as one MCP server in front of everything it is
//! connected to. Clients see the exposed servers' tools (and the built-ins when
//! `[serve] expose` names `builtin`), resources, templates and prompts; every
//! `tools/call` enters [`Registry::invoke`] with origin `serve` and the client's
//! [`RemoteClient`](crate::policy::RemoteClient): a client that proved its name
//! (`identity.rs`: its token over HTTP, `--client NAME` on stdio) gets its
//! `[serve.clients.NAME]` mode and budget; a name only declared in `clientInfo` is a
//! label with the default policy.
//!
//! - [`Gateway`]: the shared part (registry, hub, what is exposed, the clients).
//! - [`GatewayHandler`] (`handler.rs`): rmcp's `ServerHandler`, one per connection.
//! - `stdio.rs` and `http.rs`: the transports (rmcp's stdio and Streamable HTTP).

mod call;
mod clients;
mod expose;
mod handler;
mod http;
mod http_cancel;
mod identity;
mod levels;
mod notify;
mod read_call;
mod resource_subs;
mod result;
mod sessions;
mod stdio;
mod tasks;
mod wire_tap;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use clients::{Clients, ConnectedClient, Connection};
pub use expose::{BUILTIN, Expose};
pub use handler::GatewayHandler;
pub use http::{HttpError, HttpServer};
pub use stdio::{StdioServeError, serve_stdio};

use crate::agent::Readiness;
use crate::config::ServeConfig;
use crate::gate::GateObserver;
use crate::mcp::McpHub;
use crate::tools::Registry;
use crate::workbench::Workbench;

/// The state every connection of one gateway shares.
pub struct Gateway {
    registry: Arc<Registry>,
    hub: McpHub,
    /// The hub's servers (fixed when it starts), for the per-call lookups.
    servers: Vec<String>,
    readiness: Arc<dyn Readiness>,
    expose: Expose,
    clients: Arc<Clients>,
    config: ServeConfig,
    /// Hears the gate's events of every call (the TUI's approval pane); none headless.
    observer: Option<Arc<dyn GateObserver>>,
    next_call: AtomicU64,
    next_connection: AtomicU64,
    /// The log levels clients asked for, and what went upstream.
    log_levels: levels::LogLevels,
    /// Calls running now.
    running: tokio::sync::watch::Sender<usize>,
    /// Which connections asked to hear about which resources.
    resource_subs: resource_subs::ResourceSubs,
    /// Captures every message with the clients; none: not captured.
    wire: Option<Arc<crate::mcp::WireLog>>,
    /// Calls that became tasks for their clients (see `tasks`).
    tasks: rmcp::task_manager::TaskManager,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("expose", &self.expose)
            .field("clients", &self.clients.connected())
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// A gateway over a started workbench, configured by its `[serve]`.
    pub fn new(workbench: &Workbench) -> Self {
        let gateway = Self::from_parts(
            Arc::clone(&workbench.registry),
            workbench.hub.clone(),
            workbench.readiness(),
            workbench.config.serve.clone(),
        );
        match workbench.wire_capture() {
            Some(wire) => gateway.with_wire(Arc::clone(wire)),
            None => gateway,
        }
    }

    /// A gateway over a registry and hub assembled elsewhere (tests, embedders).
    pub fn from_parts(
        registry: Arc<Registry>,
        hub: McpHub,
        readiness: Arc<dyn Readiness>,
        config: ServeConfig,
    ) -> Self {
        Self {
            registry,
            servers: hub.names(),
            hub,
            readiness,
            expose: Expose::new(config.expose.as_deref()),
            clients: Arc::new(Clients::new(&config)),
            config,
            observer: None,
            next_call: AtomicU64::new(0),
            next_connection: AtomicU64::new(0),
            log_levels: levels::LogLevels::default(),
            running: tokio::sync::watch::channel(0).0,
            resource_subs: resource_subs::ResourceSubs::default(),
            wire: None,
            tasks: rmcp::task_manager::TaskManager::new(),
        }
    }

    /// Every message with the clients is captured in `wire` (`Side::Downstream`).
    #[must_use]
    pub fn with_wire(mut self, wire: Arc<crate::mcp::WireLog>) -> Self {
        self.wire = Some(wire);
        self
    }

    /// Every call's gate events also go to `observer` (the TUI).
    #[must_use]
    pub fn with_observer(mut self, observer: Arc<dyn GateObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    pub fn clients(&self) -> &Arc<Clients> {
        &self.clients
    }

    pub fn config(&self) -> &ServeConfig {
        &self.config
    }

    /// `[serve] expose` names that match no configured server.
    pub fn unknown_exposed(&self) -> Vec<String> {
        self.expose
            .unknown(&self.servers)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// A handler for one new connection over `transport` (`stdio`, `http`); each
    /// request's proof (an HTTP client token) decides who its client is.
    pub fn handler(self: &Arc<Self>, transport: &'static str) -> GatewayHandler {
        GatewayHandler::new(Arc::clone(self), transport, None)
    }

    /// A handler for a connection that is the client `name` of `[serve.clients]`, as
    /// the person who started it said (`serve --stdio --client NAME`).
    pub fn handler_as(self: &Arc<Self>, transport: &'static str, name: &str) -> GatewayHandler {
        GatewayHandler::new(Arc::clone(self), transport, Some(Arc::from(name)))
    }

    /// Whether clients may call the registry tool `name`.
    fn exposes_tool(&self, name: &str) -> bool {
        expose::tool_exposed(&self.expose, name, &self.servers)
    }

    /// The exposed tools as `tools/list` items, sorted by name.
    fn tools_wire(&self) -> Vec<Value> {
        let servers = &self.servers;
        let snapshot = self.hub.snapshot();
        self.registry
            .specs()
            .iter()
            .filter(|spec| expose::tool_exposed(&self.expose, &spec.name, servers))
            .map(|spec| match expose::server_of(&spec.name, servers) {
                Some((server, tool)) => {
                    let catalog = snapshot.server(server).map(|s| Arc::clone(&s.catalog));
                    let hints = catalog
                        .as_ref()
                        .and_then(|c| c.tool(&tool))
                        .and_then(|t| t.annotations.as_ref());
                    expose::tool_wire(spec, expose::Hints::Server(hints))
                }
                None => expose::tool_wire(spec, expose::Hints::Builtin),
            })
            .collect()
    }

    /// Waits (at most `timeout`) until no call is running: a client that left has
    /// its calls cancelled, and their servers must hear so before they are closed.
    pub async fn idle(&self, timeout: std::time::Duration) {
        let mut rx = self.running.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|n| *n == 0)).await;
    }

    /// Whether a call of `name` must wait for its server: the tool is not registered
    /// (yet), or its server is not ready.
    fn must_wait(&self, name: &str) -> bool {
        if !self.registry.contains(name) {
            return true;
        }
        let Some((server, _)) = expose::server_of(name, &self.servers) else {
            return false;
        };
        self.hub
            .snapshot()
            .server(server)
            .is_some_and(|s| s.status.is_reconnecting())
    }

    /// Waits while the server of the tool `name` is reconnecting (after a crash, or
    /// with a retry due), at most its startup time past the longest backoff, or until
    /// the client gives up; then registers what the servers offer now.
    async fn reconnected(&self, name: &str, cancel: &CancellationToken) {
        if let Some((server, _)) = expose::server_of(name, &self.servers)
            && let Ok(handle) = self.hub.server(server)
        {
            let limit = handle.limits.startup_timeout + crate::mcp::backoff(u32::MAX);
            let mut rx = self.hub.subscribe();
            let back =
                rx.wait_for(|s| s.server(server).is_none_or(|s| !s.status.is_reconnecting()));
            tokio::select! {
                _ = tokio::time::timeout(limit, back) => {}
                () = cancel.cancelled() => {}
            }
        }
        self.readiness.settled().await;
    }

    /// Counts a running call until the guard drops.
    fn running(&self) -> Running<'_> {
        self.running.send_modify(|n| *n += 1);
        Running(&self.running)
    }

    fn next_call(&self) -> u64 {
        self.next_call.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn next_connection(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// `connection` wants to hear about `uri`: the server that serves it is found
    /// (after the servers still connecting) and subscribed to, once for all clients.
    async fn subscribe_resource(&self, connection: u64, uri: &str) -> Result<(), rmcp::ErrorData> {
        self.readiness.settled().await;
        let snapshot = self.hub.snapshot();
        let Some(server) = expose::resource_server(&snapshot, &self.expose, uri) else {
            return Err(expose::resource_not_found(
                format!("no exposed server serves {uri}"),
                uri,
            ));
        };
        let key = (server, uri.to_owned());
        if self.resource_subs.add(&key, connection)
            && let Err(e) = self.hub.subscribe_resource(&key.0, uri).await
        {
            self.resource_subs.remove(&key, connection);
            return Err(rmcp::ErrorData::internal_error(e.to_string(), None));
        }
        Ok(())
    }

    /// `connection` no longer wants `uri`; the last one out unsubscribes upstream.
    async fn unsubscribe_resource(&self, connection: u64, uri: &str) {
        let snapshot = self.hub.snapshot();
        if let Some(server) = expose::resource_server(&snapshot, &self.expose, uri) {
            let key = (server, uri.to_owned());
            if self.resource_subs.remove(&key, connection) {
                let _ = self.hub.unsubscribe_resource(&key.0, uri).await;
            }
        }
    }

    /// `connection` is gone: what only it wanted is unsubscribed upstream.
    fn forget_resources(self: &Arc<Self>, connection: u64) {
        let unwanted = self.resource_subs.leave(connection);
        if unwanted.is_empty() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let gateway = Arc::clone(self);
            runtime.spawn(async move {
                for (server, uri) in unwanted {
                    let _ = gateway.hub.unsubscribe_resource(&server, &uri).await;
                }
            });
        }
    }
}

/// The answer to a message over `[serve] max_message_bytes`, the same on stdio (a
/// line) and HTTP (a body, with 413): invalid request (-32600) naming the cap.
fn oversized(max: usize) -> rmcp::model::ErrorData {
    rmcp::model::ErrorData::invalid_request(
        format!("message over {max} bytes ([serve] max_message_bytes)"),
        None,
    )
}

/// A running call, counted until dropped.
struct Running<'a>(&'a tokio::sync::watch::Sender<usize>);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}
