//! What the gateway tells clients unasked: `list_changed` when an exposed server's
//! catalog changes (to a session's peer, or on a 2026-07-28 `subscriptions/listen`
//! stream), `resources/updated` for the resources a client subscribed to, and the
//! servers' log messages at or above the level a client set.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::SubscriptionContext;
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use super::Gateway;
use crate::mcp::McpEvent;

/// MCP's log levels, least severe first.
pub(super) const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

pub(super) fn rank(level: &str) -> usize {
    LEVELS.iter().position(|l| *l == level).unwrap_or(0)
}

/// The level a session's client asked for with `logging/setLevel` (none: no logs).
pub(super) type LogLevel = Arc<Mutex<Option<String>>>;

/// The catalog change an exposed server announced, if this event is one.
fn changed(gateway: &Gateway, event: &McpEvent) -> bool {
    matches!(event, McpEvent::CatalogChanged { server, .. } if gateway.expose.server(server))
}

/// Forwards list changes and logs to a session's client until `stop` or the
/// client is gone.
pub(super) fn spawn_session(
    gateway: Arc<Gateway>,
    connection: u64,
    peer: Peer<RoleServer>,
    level: LogLevel,
    stop: CancellationToken,
) {
    let mut events = gateway.hub.events();
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                () = stop.cancelled() => break,
                event = events.recv() => match event {
                    Ok(event) => event,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => break,
                },
            };
            if peer.is_transport_closed() {
                break;
            }
            let sent = if changed(&gateway, &event) {
                gateway.readiness.settled().await;
                list_changed(&peer).await
            } else if let Some(uri) = updated(&gateway, connection, &event) {
                peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                    .await
            } else {
                forward_log(&gateway, &peer, &level, event).await
            };
            if sent.is_err() {
                break;
            }
        }
    });
}

/// The URI of a resource update `connection` subscribed to, if this event is one.
fn updated(gateway: &Gateway, connection: u64, event: &McpEvent) -> Option<String> {
    match event {
        McpEvent::ResourceUpdated { server, uri }
            if gateway.resource_subs.wants(connection, server, uri) =>
        {
            Some(uri.clone())
        }
        _ => None,
    }
}

async fn list_changed(peer: &Peer<RoleServer>) -> Result<(), rmcp::service::ServiceError> {
    peer.notify_tool_list_changed().await?;
    peer.notify_resource_list_changed().await?;
    peer.notify_prompt_list_changed().await
}

#[allow(deprecated)] // logging: deprecated in 2026-07-28, still what sessions use
async fn forward_log(
    gateway: &Gateway,
    peer: &Peer<RoleServer>,
    level: &LogLevel,
    event: McpEvent,
) -> Result<(), rmcp::service::ServiceError> {
    let McpEvent::Log {
        server,
        level: at,
        logger,
        message,
    } = event
    else {
        return Ok(());
    };
    let wanted = level.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let Some(wanted) = wanted else {
        return Ok(());
    };
    if !gateway.expose.server(&server) || rank(&at) < rank(&wanted) {
        return Ok(());
    }
    let logger = logger.map_or_else(|| server.clone(), |l| format!("{server}/{l}"));
    let param = json!({"level": at, "logger": logger, "data": Value::String(message)});
    match serde_json::from_value(param) {
        Ok(param) => peer.notify_logging_message(param).await,
        Err(_) => Ok(()),
    }
}

/// A 2026-07-28 `subscriptions/listen` stream: list changes and the updates of the
/// resources its filter names, until the client ends it.
pub(super) async fn listen(gateway: &Arc<Gateway>, context: &SubscriptionContext) {
    let mut events = gateway.hub.events();
    let accepted = context.accepted().clone();
    // The stream is a subscriber of its own.
    let stream = gateway.next_connection();
    for uri in accepted.resource_subscriptions.iter().flatten() {
        if let Err(e) = gateway.subscribe_resource(stream, uri).await {
            tracing::debug!("subscriptions/listen: {uri}: {}", e.message);
        }
    }
    listen_until_ended(gateway, context, &accepted, stream, &mut events).await;
    gateway.forget_resources(stream);
}

async fn listen_until_ended(
    gateway: &Gateway,
    context: &SubscriptionContext,
    accepted: &rmcp::model::SubscriptionFilter,
    stream: u64,
    events: &mut tokio::sync::broadcast::Receiver<McpEvent>,
) {
    loop {
        let event = tokio::select! {
            () = context.cancelled() => return,
            event = events.recv() => match event {
                Ok(event) => event,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            },
        };
        if let Some(uri) = updated(gateway, stream, &event) {
            if context.sink().notify_resource_updated(uri).await.is_err() {
                return;
            }
            continue;
        }
        if !changed(gateway, &event) {
            continue;
        }
        gateway.readiness.settled().await;
        let sink = context.sink();
        let mut sent = Ok(());
        if accepted.tools_list_changed == Some(true) {
            sent = sent.and(sink.notify_tool_list_changed().await);
        }
        if accepted.resources_list_changed == Some(true) {
            sent = sent.and(sink.notify_resource_list_changed().await);
        }
        if accepted.prompts_list_changed == Some(true) {
            sent = sent.and(sink.notify_prompt_list_changed().await);
        }
        if sent.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_rank_by_severity() {
        assert!(rank("warning") > rank("info"));
        assert_eq!(rank("nonsense"), 0);
        assert_eq!(rank("emergency"), 7);
    }
}
