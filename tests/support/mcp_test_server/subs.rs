//! Change notifications in both generations: `resources/subscribe` plus notifications
//! on the session (2025-11-25), `subscriptions/listen` streams (2026-07-28). The
//! `touch` tool (`--asking`) announces that a resource changed; `add_tool` that the
//! tool list did.

use std::collections::VecDeque;
use std::sync::{Arc, LazyLock, Mutex};

use rmcp::ErrorData;
use rmcp::model::SubscriptionFilter;
use rmcp::service::SubscriptionContext;
use serde_json::{Value, json};
use tokio::sync::broadcast;

/// Something every open subscription should hear about.
#[derive(Debug, Clone)]
pub enum Change {
    Tools,
    Resource(String),
}

/// Shared by every session of the process (HTTP serves many).
pub static BUS: LazyLock<broadcast::Sender<Change>> = LazyLock::new(|| broadcast::channel(64).0);

/// Resources subscribed with `resources/subscribe` (2025-11-25 sessions).
pub static SUBSCRIBED: LazyLock<Arc<Mutex<Vec<String>>>> = LazyLock::new(Arc::default);

pub fn tool() -> Value {
    json!({"name": "touch", "description": "Announce that resource `uri` changed.",
        "inputSchema": {"type": "object", "properties": {"uri": {"type": "string"}, "always": {"type": "boolean"}}, "required": ["uri"]},
        "annotations": {"readOnlyHint": true}})
}

/// Receivers opened before a stream's acknowledgement is sent: rmcp acknowledges a
/// `subscriptions/listen` before it calls `listen`, and a change made in between (the
/// client touches right after it is acknowledged) must not be missed.
static PENDING: LazyLock<Mutex<VecDeque<broadcast::Receiver<Change>>>> =
    LazyLock::new(Mutex::default);

pub fn accepted(requested: &SubscriptionFilter) -> SubscriptionFilter {
    if let Ok(mut pending) = PENDING.lock() {
        pending.push_back(BUS.subscribe());
    }
    requested.clone()
}

/// Serves one `subscriptions/listen` stream until the client cancels it.
pub async fn listen(context: SubscriptionContext) -> Result<(), ErrorData> {
    // rmcp calls this once the acknowledgement is written and its send result taken.
    if let Ok(path) = std::env::var("SWITCHBOARD_TEST_LISTENING") {
        let _ = std::fs::write(path, "listening");
    }
    let early = PENDING.lock().ok().and_then(|mut p| p.pop_front());
    let mut changes = early.unwrap_or_else(|| BUS.subscribe());
    loop {
        tokio::select! {
            () = context.cancelled() => return Ok(()),
            change = changes.recv() => match change {
                Ok(Change::Tools) => {
                    let _ = context.sink().notify_tool_list_changed().await;
                }
                Ok(Change::Resource(uri)) => {
                    let _ = context.sink().notify_resource_updated(uri).await;
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return Ok(()),
            },
        }
    }
}

pub fn subscribe(uri: &str) {
    if let Ok(mut list) = SUBSCRIBED.lock() {
        list.push(uri.to_owned());
    }
}

pub fn unsubscribe(uri: &str) {
    if let Ok(mut list) = SUBSCRIBED.lock() {
        list.retain(|u| u != uri);
    }
}

pub fn is_subscribed(uri: &str) -> bool {
    SUBSCRIBED
        .lock()
        .is_ok_and(|list| list.iter().any(|u| u == uri))
}
