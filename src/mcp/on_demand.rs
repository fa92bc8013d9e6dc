//! Servers started on demand (`start = "on_demand"`) and stopped when idle
//! (`idle_timeout`): a server that is not running waits in `Idle` with its cached
//! catalog; the first request that needs its connection starts it (once, however many
//! ask at the same time) and waits for it; with nothing asked of it for its
//! `idle_timeout`, its task closes the connection as for a shutdown and goes back to
//! `Idle`.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;

use super::catalog::CatalogSnapshot;
use super::client::{ClientSide, Command};
use super::error::McpError;
use super::server::{Live, ServerHandle};
use super::snapshot::{ServerSnapshot, ServerStatus};

impl ServerHandle {
    /// The live connection; a server that is not running because it starts on demand
    /// (or stopped when idle) is started first and waited for, within its startup
    /// time. Every request that needs a connection comes through here, which also
    /// counts as use for the idle timer.
    pub(super) async fn started(&self) -> Result<Live, McpError> {
        self.client.in_flight.touch();
        if let Ok(live) = self.live() {
            if !live.peer.is_transport_closed() {
                return Ok(live);
            }
            // The process has just died (a call before this one saw it), and the
            // task has not yet taken the connection down: wait for the reconnect
            // rather than send into a closed transport.
            return self.after_crash().await;
        }
        // A server refused before start has no task to start it.
        if self.commands.is_closed() {
            return self.live();
        }
        let mut hub = self.hub.subscribe();
        let status = hub
            .borrow_and_update()
            .server(&self.name)
            .map(|s| s.status.clone());
        let from_idle = matches!(status, Some(ServerStatus::Idle { .. }));
        // An attempt that ends (a spawn that fails at once) may publish its outcome
        // before its `Connecting` is ever seen: the count says it ended.
        let ended_before = self.attempts_ended.load(Ordering::SeqCst);
        let mut began = match status {
            Some(ServerStatus::Idle { .. }) => {
                self.ask_to_start();
                false
            }
            Some(ServerStatus::Failed { retry_in: None, .. }) if self.on_demand => {
                self.ask_to_start();
                false
            }
            // Another use is starting it (or it starts again after an idle stop).
            Some(ServerStatus::Connecting { .. })
                if self.on_demand || self.limits.idle_timeout.is_some() =>
            {
                true
            }
            _ => return self.live(),
        };
        let deadline = tokio::time::Instant::now() + self.start_allowance();
        loop {
            let status = hub
                .borrow_and_update()
                .server(&self.name)
                .map(|s| s.status.clone());
            match status {
                Some(ServerStatus::Ready) | None => break,
                Some(ServerStatus::Connecting { .. }) => began = true,
                // From `Idle` any other status is the start's outcome, even when its
                // `Connecting` was never seen (a spawn that fails at once).
                Some(ServerStatus::Idle { .. }) => {}
                Some(_) if began || from_idle => break,
                Some(_) if self.attempts_ended.load(Ordering::SeqCst) > ended_before => break,
                Some(_) => {}
            }
            if !matches!(
                tokio::time::timeout_at(deadline, hub.changed()).await,
                Ok(Ok(()))
            ) {
                break;
            }
        }
        self.live()
    }

    /// The next connection once the task has seen the old one close, or why there
    /// is none (the server failed, or did not come back in time).
    async fn after_crash(&self) -> Result<Live, McpError> {
        let mut hub = self.hub.subscribe();
        let deadline = tokio::time::Instant::now() + self.start_allowance();
        loop {
            let reconnecting = matches!(
                hub.borrow_and_update()
                    .server(&self.name)
                    .map(|s| &s.status),
                Some(ServerStatus::Ready | ServerStatus::Connecting { .. })
            );
            match self.live() {
                Ok(live) if !live.peer.is_transport_closed() => return Ok(live),
                Err(error) if !reconnecting => return Err(error),
                _ => {}
            }
            if !matches!(
                tokio::time::timeout_at(deadline, hub.changed()).await,
                Ok(Ok(()))
            ) {
                return self.live();
            }
        }
    }

    /// Asks the task to start the server, once for every caller until it begins.
    fn ask_to_start(&self) {
        if !self.start_asked.swap(true, Ordering::SeqCst) {
            tracing::info!(server = self.name, "starting on demand");
            let _ = self.commands.send(Command::Start);
        }
    }

    /// How long a caller waits for the server it started: the handshake, four lists,
    /// and the logins this hub may run itself.
    fn start_allowance(&self) -> Duration {
        let logins = if self.login.is_some() {
            super::oauth::login::LOGIN_TIMEOUT * super::reauth::MAX_LOGIN_ROUNDS
        } else {
            Duration::ZERO
        };
        self.limits.startup_timeout + self.limits.request_timeout * 4 + logins
    }

    /// Writes the catalog of a successful listing to the cache (when this server
    /// has one: it starts on demand or stops when idle). A list that failed keeps
    /// the file as it was.
    pub(super) fn remember_catalog(&self, catalog: &CatalogSnapshot) {
        let Some(cache) = &self.cache else {
            return;
        };
        if !catalog.errors.is_empty() {
            return;
        }
        if let Err(e) = cache.store(&self.name, &self.config, catalog, SystemTime::now()) {
            tracing::warn!(server = self.name, "{e}");
        }
    }
}

/// Publishes `Idle` (`stopped` after an idle timeout: the catalog it had becomes the
/// cached one) and waits to be started (`Start`, `Reconnect`); false on shutdown.
pub(super) async fn stay_idle(
    handle: &ServerHandle,
    snap: &mut ServerSnapshot,
    commands: &mut mpsc::UnboundedReceiver<Command>,
    stopped: bool,
) -> bool {
    if stopped {
        let mut catalog = CatalogSnapshot::clone(&snap.catalog);
        catalog.cached_at = Some(SystemTime::now());
        handle.remember_catalog(&catalog);
        snap.catalog = Arc::new(catalog);
    }
    snap.status = ServerStatus::Idle { stopped };
    handle.start_asked.store(false, Ordering::SeqCst);
    // At launch the hub's first snapshot says this already: a hundred servers that
    // wait do not each publish a snapshot (and wake every watcher) for nothing.
    if stopped {
        handle.publish(snap);
    }
    loop {
        match commands.recv().await {
            Some(Command::Start | Command::Reconnect) => return true,
            Some(Command::Shutdown) | None => return false,
            Some(Command::Disable) => {
                return super::server::stay_disabled(handle, snap, commands).await;
            }
            Some(Command::Refresh(..) | Command::Idle) => {}
        }
    }
}

/// Resolves once the server has had no request in flight, no question open and no
/// subscription for `after`; never without an `idle_timeout`. Each request that
/// opens or closes (and each [`ServerHandle::started`]) starts the time again.
pub(super) async fn idle_for(client: &ClientSide, after: Option<Duration>) {
    let Some(after) = after else {
        return std::future::pending().await;
    };
    let mut in_flight = client.in_flight.watch();
    let mut asking = client.asking.watch();
    loop {
        in_flight.mark_unchanged();
        asking.mark_unchanged();
        tokio::select! {
            () = tokio::time::sleep(after) => {
                let subscribed = !client
                    .subscriptions
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .is_empty();
                let busy = *in_flight.borrow() > 0 || *asking.borrow() > 0 || subscribed;
                if !busy {
                    return;
                }
            }
            changed = in_flight.changed() => {
                if changed.is_err() {
                    return std::future::pending().await;
                }
            }
            changed = asking.changed() => {
                if changed.is_err() {
                    return std::future::pending().await;
                }
            }
        }
    }
}
