//! Subscriptions in both generations. 2025-11-25: `resources/subscribe` and the
//! session's notifications. 2026-07-28 has no session to carry notifications: a
//! `subscriptions/listen` stream per resource, and one for the list changes the server
//! announces (so `list_changed` refreshes work without a session too). What the
//! person subscribed to outlives a connection: when the server is ready again, each
//! resource is subscribed again on the new connection (in either generation).

#![allow(deprecated)] // resources/subscribe: legacy-only, still what 2025-11-25 servers speak

use rmcp::model::{
    ServerNotification, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::Subscription;
use tokio_util::sync::CancellationToken;

use super::catalog::ListKind;
use super::client::ClientSide;
use super::error::McpError;
use super::listing::timed;
use super::server::{Live, ServerHandle};
use super::snapshot::{McpEvent, ServerInfo};

impl ClientSide {
    pub(super) fn subscriptions(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::BTreeMap<String, CancellationToken>> {
        self.subscriptions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A routed or session notification, as events and refreshes.
    pub(super) fn notified(&self, notification: ServerNotification) {
        match notification {
            ServerNotification::ResourceUpdatedNotification(n) => {
                self.resource_updated(n.params.uri);
            }
            ServerNotification::ToolListChangedNotification(_) => {
                self.refresh(ListKind::Tools);
            }
            ServerNotification::PromptListChangedNotification(_) => {
                self.refresh(ListKind::Prompts);
            }
            ServerNotification::ResourceListChangedNotification(_) => {
                self.refresh(ListKind::Resources);
                self.refresh(ListKind::Templates);
            }
            _ => {}
        }
    }

    /// A change of `uri`, passed on only while it is subscribed: after unsubscribing,
    /// an update already in flight (a stream not yet closed, a server that sent it
    /// before our unsubscribe arrived) is stale and dropped here, at the receiving end.
    pub(super) fn resource_updated(&self, uri: String) {
        if !self.subscriptions().contains_key(&uri) {
            tracing::debug!(server = %self.server, "update for a resource not subscribed dropped");
            return;
        }
        if self.events.receiver_count() > 0 {
            let _ = self.events.send(McpEvent::ResourceUpdated {
                server: self.server.to_string(),
                uri,
            });
        }
    }
}

/// How long a closing connection waits, at most, for its streams to send their
/// cancellations. The wait ends as soon as they have (a few milliseconds when the
/// machine is idle); a loaded machine can take longer to run those tasks, and closing
/// the input before them leaves the server a `subscriptions/listen` it waits on.
const STREAM_END_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Reads a subscription until it ends or `stop` is cancelled (then cancels it).
fn pump(mut subscription: Subscription, client: ClientSide, stop: CancellationToken) {
    let streams = client.streams.clone();
    streams.spawn(async move {
        loop {
            tokio::select! {
                biased;
                () = stop.cancelled() => {
                    let _ = subscription.cancel().await;
                    return;
                }
                next = subscription.next() => match next {
                    Ok(Some(notification)) => client.notified(notification),
                    Ok(None) | Err(_) => return,
                },
            }
        }
    });
}

/// 2026-07-28: listens for the list changes the server announces; the token stops it.
pub(super) async fn listen_for_list_changes(
    live: &Live,
    info: &ServerInfo,
    client: &ClientSide,
) -> Option<CancellationToken> {
    let announces = |key: &str| info.capabilities[key]["listChanged"].as_bool() == Some(true);
    let mut filter = SubscriptionFilter::builder();
    let mut any = false;
    if announces("tools") {
        filter = filter.tools_list_changed();
        any = true;
    }
    if announces("prompts") {
        filter = filter.prompts_list_changed();
        any = true;
    }
    if announces("resources") {
        filter = filter.resources_list_changed();
        any = true;
    }
    if !live.stateless || !any {
        return None;
    }
    let listening = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        live.peer.listen(filter.build()),
    )
    .await;
    if let Ok(Ok(subscription)) = listening {
        let stop = CancellationToken::new();
        pump(subscription, client.clone(), stop.clone());
        Some(stop)
    } else {
        tracing::debug!(server = %client.server, "subscriptions/listen for list changes refused");
        None
    }
}

impl ServerHandle {
    /// Asks to hear when `uri` changes: `McpEvent::ResourceUpdated` follows each change
    /// until [`ServerHandle::unsubscribe_resource`], across reconnects.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        let live = self.started().await?;
        self.subscribe_on(&live, uri).await
    }

    /// Subscribes to `uri` on `live`, the current connection or the one about to be.
    async fn subscribe_on(&self, live: &Live, uri: &str) -> Result<(), McpError> {
        if live.stateless {
            let filter = SubscriptionFilter::builder()
                .resource_subscriptions([uri.to_owned()])
                .build();
            let subscription = timed(
                &self.name,
                self.limits.request_timeout,
                live.peer.listen(filter),
            )
            .await?;
            let stop = CancellationToken::new();
            // In the set before the first update can be read.
            if let Some(old) = self.subscriptions().insert(uri.to_owned(), stop.clone()) {
                old.cancel();
            }
            pump(subscription, self.client.clone(), stop);
        } else {
            // In the set before asking: an update may come before the answer.
            let fresh = self
                .subscriptions()
                .insert(uri.to_owned(), CancellationToken::new())
                .is_none();
            let asked = timed(
                &self.name,
                self.limits.request_timeout,
                live.peer.subscribe(SubscribeRequestParams::new(uri)),
            )
            .await;
            if asked.is_err() && fresh {
                self.subscriptions().remove(uri);
            }
            asked?;
        }
        Ok(())
    }

    /// Stops hearing about `uri`. Without a connection it is only forgotten here: the
    /// next connection does not subscribe to it again, so there is nothing to tell.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        let stop = self.subscriptions().remove(uri);
        if let Some(stop) = stop {
            stop.cancel();
        }
        let Ok(live) = self.live() else {
            return Ok(());
        };
        if !live.stateless {
            timed(
                &self.name,
                self.limits.request_timeout,
                live.peer.unsubscribe(UnsubscribeRequestParams::new(uri)),
            )
            .await?;
        }
        Ok(())
    }

    pub(super) fn subscriptions(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::BTreeMap<String, CancellationToken>> {
        self.client.subscriptions()
    }

    /// Before a connection is closed: stops its streams and waits (at most
    /// [`STREAM_END_WAIT`]) until each has told the server it is cancelled. A server
    /// with a `subscriptions/listen` still open may not notice the end of its input.
    pub(super) async fn end_streams(&self, list_changes: Option<CancellationToken>) {
        self.end_subscriptions(list_changes);
        let streams = &self.client.streams;
        streams.close();
        let _ = tokio::time::timeout(STREAM_END_WAIT, streams.wait()).await;
        streams.reopen();
    }

    /// The connection ended: its streams stop. What was subscribed stays wanted, for
    /// [`ServerHandle::resubscribe`] on the next connection.
    pub(super) fn end_subscriptions(&self, list_changes: Option<CancellationToken>) {
        if let Some(stop) = list_changes {
            stop.cancel();
        }
        for stop in self.subscriptions().values_mut() {
            std::mem::take(stop).cancel();
        }
    }

    /// Subscribes again, on a new connection `live`, to every resource that was
    /// subscribed on the last one. One the server refuses now is dropped from the set
    /// and reported (`McpEvent::SubscriptionLost`), so nobody shows it as subscribed.
    pub(super) async fn resubscribe(&self, live: &Live) {
        let wanted = self.subscribed();
        if wanted.is_empty() {
            return;
        }
        let asks = wanted.iter().map(|uri| self.subscribe_on(live, uri));
        let answers = futures::future::join_all(asks).await;
        for (uri, answer) in wanted.into_iter().zip(answers) {
            let Err(error) = answer else { continue };
            tracing::warn!(
                server = self.name,
                "subscribing again after a reconnect: {error}"
            );
            if let Some(stop) = self.subscriptions().remove(&uri) {
                stop.cancel();
            }
            let events = &self.client.events;
            if events.receiver_count() > 0 {
                let _ = events.send(McpEvent::SubscriptionLost {
                    server: self.name.clone(),
                    uri,
                    reason: error.to_string(),
                });
            }
        }
    }

    /// The resources subscribed to (and subscribed again after each reconnect).
    pub fn subscribed(&self) -> Vec<String> {
        self.subscriptions().keys().cloned().collect()
    }
}
