//! Subscriptions in both generations: a subscribed resource's changes arrive as
//! events (`resources/subscribe` in a session, `subscriptions/listen` without one),
//! and list changes refresh the catalog over Streamable HTTP in 2026-07-28 too.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::{Map, json};
use switchboard::config::ProtocolChoice;
use switchboard::mcp::{CallContext, McpEvent, McpHub};

use crate::support::mcp::speaking;
use crate::support::mcp::{
    HttpServer, assert_ready, hub_with, settled, stdio_config, url_config, wait_snapshot,
};

async fn touch(hub: &McpHub, uri: &str) {
    touch_with(hub, json!({"uri": uri})).await;
}

/// `always`: the server notifies whether or not the resource is subscribed.
async fn touch_with(hub: &McpHub, args: serde_json::Value) {
    let Some(args) = args.as_object().cloned() else {
        unreachable!()
    };
    let r = hub
        .call_tool("t", "touch", args, None, CallContext::default())
        .await
        .unwrap();
    assert_eq!(r.text_content(), "touched");
}

/// The resources reported as updated within a short while (a hang guard, not a
/// timing check: the notification precedes or closely follows the call's answer).
async fn updates(events: &mut tokio::sync::broadcast::Receiver<McpEvent>) -> Vec<String> {
    let mut uris = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_millis(500);
    while let Ok(Ok(event)) = tokio::time::timeout_at(deadline, events.recv()).await {
        if let McpEvent::ResourceUpdated { uri, .. } = event {
            uris.push(uri);
        }
    }
    uris
}

#[tokio::test]
async fn subscribed_resources_report_changes_in_both_eras() {
    for protocol in [ProtocolChoice::V2025, ProtocolChoice::V2026] {
        let era = protocol.as_str();
        let hub = hub_with(&[("t", speaking(stdio_config(&["--asking"]), protocol))]);
        assert_ready(&settled(&hub).await, "t");
        hub.subscribe_resource("t", "test://text/1").await.unwrap();
        assert_eq!(
            hub.server("t").unwrap().subscribed(),
            ["test://text/1"],
            "{era}"
        );
        let mut events = hub.events();
        touch(&hub, "test://text/1").await;
        touch(&hub, "test://text/2").await;
        assert_eq!(updates(&mut events).await, ["test://text/1"], "{era}");

        hub.unsubscribe_resource("t", "test://text/1")
            .await
            .unwrap();
        touch(&hub, "test://text/1").await;
        // A careless server (or a stream still closing) that notifies anyway is not
        // believed: updates are passed on only for what is subscribed at our end.
        touch_with(&hub, json!({"uri": "test://text/1", "always": true})).await;
        touch_with(&hub, json!({"uri": "test://text/3", "always": true})).await;
        assert!(updates(&mut events).await.is_empty(), "{era}: unsubscribed");
        hub.shutdown().await;
    }
}

#[tokio::test]
async fn list_changes_refresh_over_http_without_a_session() {
    let server = HttpServer::start_with(&["--protocol", "2026-07-28"]);
    let hub = hub_with(&[("t", url_config(&server.url))]);
    let snap = settled(&hub).await;
    assert_ready(&snap, "t");
    assert_eq!(
        snap.server("t").unwrap().info.as_ref().unwrap().era,
        "2026-07-28"
    );
    assert!(snap.server("t").unwrap().catalog.tool("extra").is_none());
    hub.call_tool("t", "add_tool", Map::new(), None, CallContext::default())
        .await
        .unwrap();
    wait_snapshot(&hub, "the tool `extra` listed", |s| {
        s.server("t")
            .is_some_and(|t| t.catalog.tool("extra").is_some())
    })
    .await;
    hub.shutdown().await;
}

#[tokio::test]
async fn subscriptions_are_made_again_after_a_reconnect_in_both_eras() {
    for protocol in [ProtocolChoice::V2025, ProtocolChoice::V2026] {
        let era = protocol.as_str();
        // Over stdio a reconnect is a new server process that knows no subscriptions.
        let hub = hub_with(&[("t", speaking(stdio_config(&["--asking"]), protocol))]);
        assert_ready(&settled(&hub).await, "t");
        hub.subscribe_resource("t", "test://text/1").await.unwrap();
        let before = hub.snapshot().server("t").unwrap().generation;
        hub.reconnect("t").unwrap();
        wait_snapshot(&hub, "the server ready on a new connection", |s| {
            s.server("t").is_some_and(|t| {
                t.generation > before && t.status == switchboard::mcp::ServerStatus::Ready
            })
        })
        .await;
        assert_eq!(
            hub.server("t").unwrap().subscribed(),
            ["test://text/1"],
            "{era}"
        );
        let mut events = hub.events();
        touch(&hub, "test://text/1").await;
        touch(&hub, "test://text/2").await;
        assert_eq!(
            updates(&mut events).await,
            ["test://text/1"],
            "{era}: heard on the new connection"
        );
        hub.shutdown().await;
    }
}
