//! Misbehaving servers, timeouts, limits, staleness, cancellation and reconnects.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::json;
use switchboard::mcp::listing::list_all;
use switchboard::mcp::{CallContext, LimitKind, Limits, ListKind, McpError, ServerStatus};
use tokio_util::sync::CancellationToken;

use crate::support::mcp::args;
use crate::support::mcp::{SETTLE, assert_ready, hub_with, settled, stdio_config};

fn failed_with(snapshot: &switchboard::mcp::HubSnapshot, name: &str) -> String {
    match &snapshot.server(name).unwrap().status {
        ServerStatus::Failed { error, .. } => error.to_string(),
        other => panic!("{name} is {other:?}"),
    }
}

#[tokio::test]
async fn a_server_that_exits_during_initialize_fails_the_handshake() {
    let hub = hub_with(&[("x", stdio_config(&["--misbehave", "exit-on-init"]))]);
    let error = failed_with(&settled(&hub).await, "x");
    assert!(error.starts_with("mcp_handshake_failed"), "{error}");
}

#[tokio::test]
async fn a_server_that_prints_garbage_fails_the_handshake() {
    let mut config = stdio_config(&["--misbehave", "garbage"]);
    config.startup_timeout = Some(2.0);
    let hub = hub_with(&[("g", config)]);
    let error = failed_with(&settled(&hub).await, "g");
    assert!(error.starts_with("mcp_handshake_failed"), "{error}");
}

#[tokio::test]
async fn a_server_that_hangs_times_out() {
    let mut config = stdio_config(&["--misbehave", "hang"]);
    config.startup_timeout = Some(0.5);
    let hub = hub_with(&[("h", config)]);
    let error = failed_with(&settled(&hub).await, "h");
    assert!(
        error.starts_with("mcp_handshake_failed: timeout"),
        "{error}"
    );
}

#[tokio::test]
async fn a_missing_program_fails_and_other_servers_still_connect() {
    let bad = switchboard::config::ServerConfig {
        command: Some("/nonexistent/switchboard-no-such-server".into()),
        ..Default::default()
    };
    let hub = hub_with(&[("bad", bad), ("good", stdio_config(&[]))]);
    let snap = settled(&hub).await;
    assert!(failed_with(&snap, "bad").contains("cannot start"));
    assert_ready(&snap, "good");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_tool_without_progress_past_its_timeout_fails() {
    let mut config = stdio_config(&[]);
    config.tool_timeout = Some(1.0);
    let hub = hub_with(&[("t", config)]);
    assert_ready(&settled(&hub).await, "t");
    let quiet = args(json!({"millis": 30_000, "progress": false}));
    let e = hub
        .call_tool("t", "slow", quiet, None, CallContext::default())
        .await
        .unwrap_err();
    assert!(e.to_string().starts_with("mcp_call_failed: timeout"), "{e}");
    // Progress every 50 ms keeps a 2 s call alive under a 1 s timeout.
    let chatty = args(json!({"millis": 2_000, "progress": true}));
    let r = hub
        .call_tool("t", "slow", chatty, None, CallContext::default())
        .await
        .unwrap();
    assert_eq!(r.text_content(), "slept 2000 ms");
    hub.shutdown().await;
}

#[tokio::test]
async fn cancelling_a_call_ends_it() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    assert_ready(&settled(&hub).await, "t");
    let cancel = CancellationToken::new();
    let ctx = CallContext {
        cancel: Some(cancel.clone()),
        ..CallContext::default()
    };
    let call = hub.call_tool("t", "slow", args(json!({"millis": 60_000})), None, ctx);
    let canceller = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(call, canceller);
    let e = result.unwrap_err();
    assert!(e.to_string().contains("cancelled"), "{e}");
    // The connection is still usable.
    let r = hub
        .call_tool(
            "t",
            "echo",
            args(json!({"text": "x"})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(r.text_content(), "x");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_five_megabyte_result_hits_the_character_limit() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    assert_ready(&settled(&hub).await, "t");
    // The model is refused it, naming the limit; the whole result is kept for the person.
    let r = hub
        .call_tool(
            "t",
            "big",
            args(json!({"chars": 5_000_000})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    assert!(r.is_error);
    let text = r.text_content();
    assert!(
        text.contains("max_result_chars (200000)") && text.contains('t'),
        "{text}"
    );
    assert_eq!(r.metadata["error"], "mcp_call_failed");
    let kept: usize = r
        .oversized
        .as_ref()
        .unwrap()
        .iter()
        .map(|b| match b {
            switchboard::tools::ContentBlock::Text { text } => text.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(kept, 5_000_000);
    let e = hub
        .call_tool(
            "t",
            "big",
            args(json!({"chars": 300, "blocks": 300})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            McpError::Limit {
                limit: LimitKind::ContentBlocks,
                ..
            }
        ),
        "{e}"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn page_and_item_limits_are_typed_errors() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    assert_ready(&settled(&hub).await, "t");
    let live = hub.server("t").unwrap().live().unwrap();
    let pages = Limits {
        max_pages: 2,
        ..Limits::default()
    };
    let e = list_all(&live.peer, "t", ListKind::Tools, &pages)
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            McpError::Limit {
                limit: LimitKind::Pages,
                max: 2,
                ..
            }
        ),
        "{e}"
    );
    let items = Limits {
        max_items: 5,
        ..Limits::default()
    };
    let e = list_all(&live.peer, "t", ListKind::Prompts, &items)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("max_items (5)"), "{e}");
    assert!(e.to_string().contains("server t"), "{e}");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_call_through_an_old_generation_is_stale() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    let first = settled(&hub).await.server("t").unwrap().generation;
    let mut rx = hub.subscribe();
    hub.reconnect("t").unwrap();
    tokio::time::timeout(
        SETTLE,
        rx.wait_for(|s| {
            s.server("t")
                .is_some_and(|s| s.generation > first && s.status == ServerStatus::Ready)
        }),
    )
    .await
    .unwrap()
    .unwrap();
    let e = hub
        .call_tool(
            "t",
            "echo",
            args(json!({"text": "x"})),
            Some(first),
            CallContext::default(),
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("catalog is stale, refreshed"), "{e}");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_crashed_server_is_reconnected_automatically() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    let first = settled(&hub).await.server("t").unwrap().generation;
    let mut rx = hub.subscribe();
    let _ = hub
        .call_tool(
            "t",
            "plain",
            args(json!({"exit": true})),
            None,
            CallContext::default(),
        )
        .await;
    tokio::time::timeout(
        SETTLE,
        rx.wait_for(|s| {
            s.server("t")
                .is_some_and(|s| s.generation > first && s.status == ServerStatus::Ready)
        }),
    )
    .await
    .unwrap()
    .unwrap();
    hub.shutdown().await;
}
