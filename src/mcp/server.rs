//! One server: its handle (calls go straight to the live peer) and the task that owns
//! the connection — connect, list the catalog, refresh on `list_changed`, reconnect on
//! demand or with bounded backoff after a crash.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use rmcp::{Peer, RoleClient};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

use super::catalog::{CatalogSnapshot, ListKind};
use super::client::{ClientSide, Command, ProgressRoutes};
use super::connect::{Connected, close, connect};
use super::endpoint::Endpoint;
use super::error::McpError;
use super::limits::Limits;
use super::listing::first_catalog;
use super::on_demand::{idle_for, stay_idle};
use super::relist::{self, ListStarts};
use super::snapshot::{HubSnapshot, McpEvent, ServerInfo, ServerSnapshot, ServerStatus};
use super::stderr::StderrTail;
use crate::config::ServerConfig;

/// Automatic reconnects after a crash before giving up (until asked again).
pub const MAX_AUTO_RECONNECTS: u32 = 5;

/// Wait before automatic reconnect `attempt` (1-based): 0.5 s · 2ⁿ⁻¹, at most 8 s.
pub fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(500u64.saturating_mul(1 << attempt.saturating_sub(1).min(4)))
}

/// The peer of the current connection and its generation.
#[derive(Clone)]
pub struct Live {
    pub peer: Peer<RoleClient>,
    pub generation: u64,
    /// Spoken in the 2026-07-28 generation (no session, metadata on every request).
    pub stateless: bool,
    /// The server offers logging.
    pub logs: bool,
}

/// A configured server, shared by the hub, its task and the tools of its catalog.
pub struct ServerHandle {
    pub name: String,
    pub config: ServerConfig,
    pub limits: Limits,
    pub(super) live: RwLock<Option<Live>>,
    /// What `logging/setLevel` asks for on every connect (see `McpHub::set_log_level`).
    #[allow(deprecated)] // logging: deprecated in 2026-07-28, still used by most servers
    pub(super) log_level: RwLock<rmcp::model::LoggingLevel>,
    pub(super) commands: mpsc::UnboundedSender<Command>,
    pub(super) routes: Arc<ProgressRoutes>,
    /// Our side of the connection: answers roots, elicitation and sampling.
    pub(super) client: ClientSide,
    pub(super) stderr: Arc<StderrTail>,
    pub(super) hub: watch::Sender<Arc<HubSnapshot>>,
    /// Cancelled when the hub shuts down: ends a connection attempt still under way
    /// (which does not read `commands` until it is done).
    pub(super) stop: tokio_util::sync::CancellationToken,
    /// Runs a login when the server asks for one (headless commands that can show a
    /// page); without it the server waits in `NeedsLogin`.
    pub(super) login: Option<Arc<dyn super::oauth::LoginPrompt>>,
    /// `start = "on_demand"`: not started at launch, but by its first use.
    pub(super) on_demand: bool,
    /// Where its catalog is cached (servers that start on demand or stop when idle).
    pub(super) cache: Option<super::catalog_cache::CatalogCache>,
    /// A start was asked for and the task has not begun it yet (see
    /// `ServerHandle::started`): concurrent first calls start it once.
    pub(super) start_asked: std::sync::atomic::AtomicBool,
    /// Connection attempts that ended without a connection (failed, or waiting for a
    /// login), counted before their status is published: a caller that asked for a
    /// start knows the status it sees next is its attempt's outcome.
    pub(super) attempts_ended: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl ServerHandle {
    /// The live connection, or why there is none.
    pub fn live(&self) -> Result<Live, McpError> {
        let live = self
            .live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        live.ok_or_else(|| McpError::NotConnected {
            server: self.name.clone(),
            status: self
                .snapshot()
                .map_or_else(|| "unknown".into(), |s| status_text(&s.status)),
        })
    }

    /// This server's entry in the hub's current snapshot.
    pub fn snapshot(&self) -> Option<Arc<ServerSnapshot>> {
        self.hub.borrow().server(&self.name).cloned()
    }

    /// Drop the connection (if any) and connect again; enables a disabled server.
    pub fn reconnect(&self) {
        let _ = self.commands.send(Command::Reconnect);
    }

    /// Close the connection and stay disabled until [`ServerHandle::reconnect`].
    pub fn disable(&self) {
        let _ = self.commands.send(Command::Disable);
    }

    /// The level asked for with [`super::McpHub::set_log_level`].
    #[allow(deprecated)] // logging: deprecated in 2026-07-28, still widely used
    pub(super) fn current_log_level(&self) -> rmcp::model::LoggingLevel {
        *self
            .log_level
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn set_live(&self, live: Option<Live>) {
        *self.live.write().unwrap_or_else(PoisonError::into_inner) = live;
    }

    pub(super) fn publish(&self, snapshot: &ServerSnapshot) {
        let mut snapshot = snapshot.clone();
        snapshot.stderr_tail = Arc::new(self.stderr.lines());
        let snapshot = Arc::new(snapshot);
        self.hub.send_modify(|hub| {
            let mut next = HubSnapshot::clone(hub);
            if let Some(slot) = next.servers.iter_mut().find(|s| s.name == snapshot.name) {
                *slot = Arc::clone(&snapshot);
            } else {
                next.servers.push(Arc::clone(&snapshot));
                next.servers.sort_by(|a, b| a.name.cmp(&b.name));
            }
            *hub = Arc::new(next);
        });
    }
}

fn status_text(status: &ServerStatus) -> String {
    match status {
        ServerStatus::Failed { error, .. } => format!("failed: {error}"),
        ServerStatus::Disconnected { reason } => format!("disconnected: {reason}"),
        other => other.label().to_owned(),
    }
}

/// How a server's task begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Begin {
    /// Connect (once the hub's start gate opens).
    Connect,
    /// `enabled = false`: wait to be enabled.
    Disabled,
    /// `start = "on_demand"`: wait to be started by a use.
    Idle,
}

/// How a served connection ended.
enum Ended {
    /// Nothing was asked of it for its `idle_timeout`.
    Idle,
    Crashed(String),
    /// Listing the catalog needed a login (or more scopes).
    NeedsLogin(McpError),
    Reconnect,
    Disabled,
    Shutdown,
}

/// Publish `Disabled` and wait to be enabled (`Reconnect`); false on shutdown.
pub(super) async fn stay_disabled(
    handle: &ServerHandle,
    snap: &mut ServerSnapshot,
    commands: &mut mpsc::UnboundedReceiver<Command>,
) -> bool {
    snap.status = ServerStatus::Disabled;
    handle.publish(snap);
    loop {
        match commands.recv().await {
            Some(Command::Reconnect) => return true,
            Some(Command::Shutdown) | None => return false,
            Some(Command::Refresh(..) | Command::Disable | Command::Start | Command::Idle) => {}
        }
    }
}

/// Waits until the server's first connection may begin: a disabled server until it is
/// enabled, an on-demand one until it is used, the others until the hub's start gate
/// opens. False when the hub shuts down first.
async fn wait_to_begin(
    handle: &ServerHandle,
    snap: &mut ServerSnapshot,
    commands: &mut mpsc::UnboundedReceiver<Command>,
    begin: Begin,
    start: Option<super::hub::StartGate>,
) -> bool {
    match begin {
        Begin::Disabled => stay_disabled(handle, snap, commands).await,
        Begin::Idle => {
            snap.catalog = handle
                .snapshot()
                .map(|s| Arc::clone(&s.catalog))
                .unwrap_or_default();
            stay_idle(handle, snap, commands, false).await
        }
        // Servers started by a use do not wait for the gate: someone waits for them.
        Begin::Connect => {
            let Some(start) = start else {
                return true;
            };
            tokio::select! {
                () = start.opened() => true,
                () = handle.stop.cancelled() => {
                    snap.status = ServerStatus::Disconnected { reason: "closed".into() };
                    handle.publish(snap);
                    false
                }
            }
        }
    }
}

/// The task of one server. Returns when told to shut down (or the hub is dropped).
pub(super) async fn run(
    handle: Arc<ServerHandle>,
    endpoint: Endpoint,
    mut commands: mpsc::UnboundedReceiver<Command>,
    client: ClientSide,
    events: broadcast::Sender<McpEvent>,
    begin: Begin,
    start: Option<super::hub::StartGate>,
) {
    let mut snap = ServerSnapshot::new(
        &handle.name,
        endpoint.kind(),
        endpoint.target(),
        ServerStatus::Connecting { attempt: 1 },
    );
    snap.sandboxed = endpoint.is_sandboxed();
    if !wait_to_begin(&handle, &mut snap, &mut commands, begin, start).await {
        return;
    }
    let mut tries = Tries::default();
    loop {
        snap.status = ServerStatus::Connecting {
            attempt: tries.attempt + 1,
        };
        handle.publish(&snap);
        handle
            .start_asked
            .store(false, std::sync::atomic::Ordering::SeqCst);
        let protocol = handle.config.protocol.unwrap_or_default();
        let connecting = connect(
            &endpoint,
            client.clone(),
            &handle.limits,
            &handle.stderr,
            protocol,
        );
        let outcome = tokio::select! {
            result = connecting => result,
            () = handle.stop.cancelled() => {
                // Dropping the attempt kills a stdio child (`kill_on_drop`).
                snap.status = ServerStatus::Disconnected { reason: "closed".into() };
                handle.publish(&snap);
                return;
            }
        };
        let next = match outcome {
            Ok(connected) => {
                tries.attempt = 0;
                tries.retrying = false;
                let ended = serve(
                    &handle,
                    connected,
                    &mut snap,
                    &mut commands,
                    &events,
                    tries.reuse,
                )
                .await;
                settle(&handle, ended, &mut snap, &mut commands, &mut tries).await
            }
            Err(error @ McpError::NeedsLogin { .. }) => {
                if handle.login_for(&error, &mut tries.logins, &mut snap).await {
                    Next::Connect
                } else {
                    Next::Wait
                }
            }
            Err(error) => {
                tracing::warn!(server = handle.name, "{error}");
                snap.last_error = Some(error.clone());
                let retry_in = (tries.retrying && tries.attempt < MAX_AUTO_RECONNECTS)
                    .then(|| backoff(tries.attempt + 1));
                snap.status = ServerStatus::Failed { error, retry_in };
                tries.retrying = retry_in.is_some();
                Next::Wait
            }
        };
        match next {
            Next::Connect => continue,
            Next::Stop => return,
            Next::Wait => {}
        }
        handle
            .attempts_ended
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        handle.publish(&snap);
        handle
            .start_asked
            .store(false, std::sync::atomic::Ordering::SeqCst);
        if wait_to_retry(&handle, &mut snap, &mut commands, &mut tries).await == Next::Stop {
            return;
        }
    }
}

/// Where a server's task goes after a connection attempt or a connection's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Connect again now.
    Connect,
    /// Say how it stands, then wait (for the backoff or a command).
    Wait,
    /// The task ends.
    Stop,
}

/// The reconnect bookkeeping of one server's task.
#[derive(Default)]
struct Tries {
    attempt: u32,
    retrying: bool,
    /// Whether the next connection may keep the catalog's still-fresh lists.
    reuse: bool,
    logins: super::reauth::LoginRounds,
}

/// What a connection's end means: a login, a stop, a reconnect, a disabled server
/// or a crash (retried with backoff).
async fn settle(
    handle: &Arc<ServerHandle>,
    ended: Ended,
    snap: &mut ServerSnapshot,
    commands: &mut mpsc::UnboundedReceiver<Command>,
    tries: &mut Tries,
) -> Next {
    tries.reuse = matches!(ended, Ended::Crashed(_));
    if !matches!(ended, Ended::NeedsLogin(_)) {
        tries.logins = super::reauth::LoginRounds::default();
    }
    match ended {
        Ended::NeedsLogin(error) => {
            if handle.login_for(&error, &mut tries.logins, snap).await {
                Next::Connect
            } else {
                Next::Wait
            }
        }
        Ended::Shutdown => {
            snap.status = ServerStatus::Disconnected {
                reason: "closed".into(),
            };
            handle.publish(snap);
            Next::Stop
        }
        Ended::Reconnect => Next::Connect,
        Ended::Idle => {
            tracing::info!(server = handle.name, "stopped: idle");
            if stay_idle(handle, snap, commands, true).await {
                Next::Connect
            } else {
                Next::Stop
            }
        }
        Ended::Disabled => {
            if stay_disabled(handle, snap, commands).await {
                Next::Connect
            } else {
                Next::Stop
            }
        }
        Ended::Crashed(reason) => {
            tracing::warn!(server = handle.name, "connection lost: {reason}");
            snap.last_error = Some(McpError::CallFailed {
                server: handle.name.clone(),
                reason: format!("connection lost: {reason}"),
            });
            snap.status = ServerStatus::Disconnected { reason };
            tries.retrying = true;
            Next::Wait
        }
    }
}

/// Waits for the backoff (while retrying) or a command: `Connect` to try again,
/// `Stop` when the task ends.
async fn wait_to_retry(
    handle: &Arc<ServerHandle>,
    snap: &mut ServerSnapshot,
    commands: &mut mpsc::UnboundedReceiver<Command>,
    tries: &mut Tries,
) -> Next {
    let delay = tries.retrying.then(|| {
        tries.attempt += 1;
        backoff(tries.attempt)
    });
    match wait_or_command(commands, delay).await {
        Some(Command::Shutdown) | None => Next::Stop,
        Some(Command::Reconnect | Command::Start) => {
            (tries.attempt, tries.reuse) = (0, false);
            Next::Connect
        }
        Some(Command::Refresh(..) | Command::Idle) => {
            if !tries.retrying {
                tries.attempt = 0;
            }
            Next::Connect
        }
        Some(Command::Disable) => {
            if tries.retrying {
                tries.retrying = false;
                tries.attempt = 0;
            }
            if stay_disabled(handle, snap, commands).await {
                Next::Connect
            } else {
                Next::Stop
            }
        }
    }
}

/// Waits for a command (refreshes are ignored while disconnected), or until `delay`
/// passes (then `Refresh` stands for "time to try again").
async fn wait_or_command(
    commands: &mut mpsc::UnboundedReceiver<Command>,
    delay: Option<Duration>,
) -> Option<Command> {
    let sleep = async {
        match delay {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(sleep);
    loop {
        tokio::select! {
            () = &mut sleep => return Some(Command::Refresh(ListKind::Tools, Instant::now())),
            command = commands.recv() => match command {
                Some(Command::Refresh(..) | Command::Idle) => {}
                other => return other,
            },
        }
    }
}

/// Publishes the connection as ready with a fresh catalog, then serves commands until
/// the connection ends.
async fn serve(
    handle: &Arc<ServerHandle>,
    Connected { service, child }: Connected,
    snap: &mut ServerSnapshot,
    commands: &mut mpsc::UnboundedReceiver<Command>,
    events: &broadcast::Sender<McpEvent>,
    reuse: bool,
) -> Ended {
    let peer = service.peer().clone();
    let info = service
        .peer_info()
        .and_then(|i| serde_json::to_value(&*i).ok())
        .map_or_else(
            || ServerInfo::from_wire(&serde_json::Value::Null),
            |v| ServerInfo::from_wire(&v),
        );
    let generation = snap.generation + 1;
    let logs = info.supports("logging");
    // In 2026-07-28 the level travels in each request's `_meta` instead.
    if logs && !info.is_stateless() {
        send_log_level(&peer, &handle.name, handle.current_log_level()).await;
    }
    // After a crash, lists still fresh by their `ttlMs` are kept, not listed again.
    let previous = reuse.then(|| Arc::clone(&snap.catalog));
    let mut starts = ListStarts::default();
    let listed = first_catalog(
        &peer,
        handle,
        &info,
        generation,
        previous.as_deref(),
        &mut starts,
    )
    .await;
    let catalog = match listed {
        Ok(catalog) => catalog,
        Err(login) => {
            let cancel = service.cancellation_token();
            let done = service.waiting();
            tokio::pin!(done);
            close(cancel, done.as_mut(), child.as_ref(), &handle.limits).await;
            return Ended::NeedsLogin(login);
        }
    };
    let live = Live {
        peer: peer.clone(),
        generation,
        stateless: info.is_stateless(),
        logs,
    };
    let mut list_changes =
        super::subscribe::listen_for_list_changes(&live, &info, &handle.client).await;
    // Before it is ready: what was subscribed is subscribed again on this connection.
    handle.resubscribe(&live).await;
    handle.set_live(Some(live));
    snap.generation = generation;
    snap.info = Some(Arc::new(info));
    snap.status = ServerStatus::Ready;
    snap.last_error = None;
    snap.login = handle.stored_login();
    publish_catalog(handle, snap, catalog, events);

    let cancel = service.cancellation_token();
    let done = service.waiting();
    tokio::pin!(done);
    // A command taken from the queue while gathering refreshes, still to handle
    // (`Some(None)`: the queue closed).
    let mut next: Option<Option<Command>> = None;
    let ended = loop {
        let command = if let Some(command) = next.take() {
            command
        } else {
            tokio::select! {
                quit = &mut done => break Ended::Crashed(match quit {
                    Ok(reason) => format!("{reason:?}").to_lowercase(),
                    Err(e) => e.to_string(),
                }),
                command = commands.recv() => command,
                () = idle_for(&handle.client, handle.limits.idle_timeout) => Some(Command::Idle),
            }
        };
        match command {
            Some(Command::Start) => {}
            // Heard before the last list of its kind began: that list holds it.
            Some(Command::Refresh(kind, heard)) if starts.covers(kind, heard) => {}
            Some(Command::Refresh(kind, heard)) => {
                let (due, after) = relist::gather((kind, heard), commands, &starts).await;
                next = after;
                if !due.is_empty() {
                    let catalog =
                        relist::list_again(&peer, handle, &snap.catalog, due, &mut starts);
                    publish_catalog(handle, snap, catalog.await, events);
                }
            }
            stop => {
                handle.end_streams(list_changes.take()).await;
                close(cancel, done.as_mut(), child.as_ref(), &handle.limits).await;
                break match stop {
                    Some(Command::Reconnect) => Ended::Reconnect,
                    Some(Command::Disable) => Ended::Disabled,
                    Some(Command::Idle) => Ended::Idle,
                    _ => Ended::Shutdown,
                };
            }
        }
    };
    handle.set_live(None);
    handle.end_subscriptions(list_changes);
    ended
}

/// Makes `catalog` the server's: kept (for a cached catalog), published, and announced
/// as `CatalogChanged`.
fn publish_catalog(
    handle: &ServerHandle,
    snap: &mut ServerSnapshot,
    catalog: CatalogSnapshot,
    events: &broadcast::Sender<McpEvent>,
) {
    snap.catalog = Arc::new(catalog);
    handle.remember_catalog(&snap.catalog);
    handle.publish(snap);
    if events.receiver_count() > 0 {
        let _ = events.send(McpEvent::CatalogChanged {
            server: handle.name.clone(),
            revision: snap.catalog.revision,
        });
    }
}

#[allow(deprecated)] // logging/setLevel: deprecated in 2026-07-28, used by most servers
pub(super) async fn send_log_level(
    peer: &Peer<RoleClient>,
    server: &str,
    level: rmcp::model::LoggingLevel,
) {
    let params = rmcp::model::SetLevelRequestParams::new(level);
    let sent = tokio::time::timeout(Duration::from_secs(5), peer.set_level(params)).await;
    if matches!(sent, Ok(Ok(()))) {
        tracing::debug!(server, ?level, "logging/setLevel accepted");
    } else {
        tracing::debug!(server, "logging/setLevel was not accepted");
    }
}
