//! `ttlMs` / `cacheScope` on list results (MCP 2026-07-28): a reconnect after a crash
//! keeps a list still fresh instead of listing it again, and says so; `list_changed`
//! and the person's reconnect list again at once.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use switchboard::mcp::catalog::ListKind;
use switchboard::mcp::{CallContext, HubSnapshot, McpHub, ServerStatus};

use crate::support::mcp::args;
use crate::support::mcp::{hub_with, settled, stdio_config, wait_snapshot};

async fn call(hub: &McpHub, tool: &str, a: Value) {
    let _ = hub
        .call_tool("t", tool, args(a), None, CallContext::default())
        .await;
}

fn ready_after(snap: &HubSnapshot, generation: u64) -> bool {
    snap.server("t")
        .is_some_and(|s| s.generation > generation && s.status == ServerStatus::Ready)
}

#[tokio::test]
async fn a_fresh_list_survives_a_crash_and_list_changed_or_reconnect_list_again() {
    let hub = hub_with(&[("t", stdio_config(&["--misbehave", "ttl"]))]);
    let snap = settled(&hub).await;
    let server = snap.server("t").unwrap();
    let tools = server.catalog.freshness(ListKind::Tools).unwrap().clone();
    assert_eq!(tools.ttl_ms, Some(600_000));
    assert_eq!(tools.scope.as_deref(), Some("private"));
    assert!(!tools.from_cache);
    assert_eq!(
        server.catalog.cached_summary(std::time::SystemTime::now()),
        None
    );
    let first = server.generation;

    // The server crashes and is reconnected: tools come from the cache (same listing
    // time), resources (no ttlMs) are listed again.
    call(&hub, "plain", json!({"exit": true})).await;
    let snap = wait_snapshot(&hub, "the reconnect", |s| ready_after(s, first)).await;
    let catalog = &snap.server("t").unwrap().catalog;
    let cached = catalog.freshness(ListKind::Tools).unwrap();
    assert!(cached.from_cache);
    assert_eq!(cached.listed_at, tools.listed_at);
    assert_eq!(catalog.tools.len(), 12);
    assert!(!catalog.freshness(ListKind::Resources).unwrap().from_cache);
    let summary = catalog
        .cached_summary(std::time::SystemTime::now())
        .unwrap();
    assert!(
        summary.starts_with("tools ") && summary.ends_with("s ago (ttl 600s, private)"),
        "{summary}"
    );
    let second = snap.server("t").unwrap().generation;

    // The person's reconnect lists again.
    hub.reconnect("t").unwrap();
    let snap = wait_snapshot(&hub, "the person's reconnect", |s| ready_after(s, second)).await;
    let tools = snap
        .server("t")
        .unwrap()
        .catalog
        .freshness(ListKind::Tools)
        .unwrap();
    assert!(!tools.from_cache);
    assert!(tools.listed_at > cached.listed_at);

    // list_changed lists again, ttl or not (after another crash kept the list).
    let third = snap.server("t").unwrap().generation;
    call(&hub, "plain", json!({"exit": true})).await;
    let snap = wait_snapshot(&hub, "the second crash", |s| ready_after(s, third)).await;
    let catalog = &snap.server("t").unwrap().catalog;
    assert!(catalog.freshness(ListKind::Tools).unwrap().from_cache);
    call(&hub, "add_tool", json!({})).await;
    let snap = wait_snapshot(&hub, "the new tool", |s| {
        s.server("t")
            .is_some_and(|s| s.catalog.tool("extra").is_some())
    })
    .await;
    let catalog = &snap.server("t").unwrap().catalog;
    assert!(!catalog.freshness(ListKind::Tools).unwrap().from_cache);
    hub.shutdown().await;
}
