//! The hub against the test server over stdio, Streamable HTTP and legacy SSE.
#![allow(clippy::unwrap_used)]

use crate::support;

use serde_json::{Map, json};
use switchboard::mcp::{CallContext, McpError, McpEvent, ServerStatus, TransportKind};
use switchboard::tools::ContentBlock;

use crate::support::mcp::args;
use crate::support::mcp::{
    HttpServer, assert_ready, hub_with, settled, stdio_config, url_config, wait_snapshot,
};

async fn check_full_catalog_and_calls(hub: &switchboard::mcp::McpHub, name: &str) {
    let snap = settled(hub).await;
    assert_ready(&snap, name);
    let server = snap.server(name).unwrap();
    let info = server.info.as_ref().unwrap();
    assert_eq!(info.name, "switchboard-test");
    assert_eq!(info.version, "1.2.3");
    assert!(!info.protocol_version.is_empty());
    assert_eq!(
        info.instructions.as_deref(),
        Some("A server for switchboard's tests.")
    );
    let catalog = &server.catalog;
    assert_eq!(catalog.tools.len(), 12, "4 per page, 3 pages");
    assert_eq!(catalog.resources.len(), 12);
    assert_eq!(catalog.templates.len(), 12);
    assert_eq!(catalog.prompts.len(), 12);
    assert!(catalog.errors.is_empty(), "{:?}", catalog.errors);
    let add = catalog.tool("add").unwrap();
    assert!(add.output_schema.is_some());
    assert_eq!(add.annotations.as_ref().unwrap().read_only, Some(true));
    assert!(catalog.tool("plain").unwrap().annotations.is_none());
    let greet = catalog.prompts.iter().find(|p| p.name == "greet").unwrap();
    assert_eq!(greet.arguments.len(), 2);
    assert!(greet.arguments[0].required);

    let r = hub
        .call_tool(
            name,
            "echo",
            args(json!({"text": "hi"})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(r.text_content(), "hi");
    let r = hub
        .call_tool(
            name,
            "add",
            args(json!({"a": 2, "b": 3})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(r.structured, Some(json!({"sum": 5.0})));
    let read = hub.read_resource(name, "test://text/3").await.unwrap();
    assert!(
        matches!(&read.contents[0], ContentBlock::EmbeddedResource { text: Some(t), .. } if t == "contents of test://text/3")
    );
    let read = hub.read_resource(name, "test://blob/11").await.unwrap();
    assert!(
        matches!(&read.contents[0], ContentBlock::EmbeddedResource { blob: Some(b), .. } if b == "AAEC")
    );
    let prompt = hub
        .get_prompt(
            name,
            "greet",
            args(json!({"name": "Ada", "style": "formal"})),
        )
        .await
        .unwrap();
    assert!(
        matches!(&prompt.messages[0].content, ContentBlock::Text { text } if text == "Good day, Ada.")
    );
}

#[tokio::test]
async fn stdio_server_lists_paginated_catalogs_and_answers() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    check_full_catalog_and_calls(&hub, "t").await;
    let snap = hub.snapshot();
    let server = snap.server("t").unwrap();
    assert_eq!(server.transport, TransportKind::Stdio);
    assert!(
        server
            .stderr_tail
            .iter()
            .any(|l| l.contains("test server starting")),
        "{:?}",
        server.stderr_tail
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn streamable_http_server_works_the_same() {
    let server = HttpServer::start("http");
    let hub = hub_with(&[("h", url_config(&server.url))]);
    check_full_catalog_and_calls(&hub, "h").await;
    assert_eq!(
        hub.snapshot().server("h").unwrap().transport,
        TransportKind::Http
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn legacy_sse_server_works_the_same() {
    let server = HttpServer::start("sse");
    let hub = hub_with(&[("s", url_config(&server.url))]);
    check_full_catalog_and_calls(&hub, "s").await;
    assert_eq!(
        hub.snapshot().server("s").unwrap().transport,
        TransportKind::Sse
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn remote_errors_tool_errors_and_content_kinds() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    assert_ready(&settled(&hub).await, "t");
    let ctx = CallContext::default;
    let e = hub
        .call_tool("t", "remote_error", Map::new(), None, ctx())
        .await
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("mcp_remote_error: remote says no"),
        "{e}"
    );
    let r = hub
        .call_tool("t", "fail", Map::new(), None, ctx())
        .await
        .unwrap();
    assert!(r.is_error);
    let r = hub
        .call_tool("t", "mixed", Map::new(), None, ctx())
        .await
        .unwrap();
    assert_eq!(r.content.len(), 5);
    assert!(matches!(r.content[1], ContentBlock::Image { .. }));
    assert!(matches!(r.content[2], ContentBlock::Audio { .. }));
    assert!(matches!(r.content[3], ContentBlock::ResourceLink { .. }));
    assert!(matches!(
        r.content[4],
        ContentBlock::EmbeddedResource { .. }
    ));
    let e = hub
        .call_tool("nope", "x", Map::new(), None, ctx())
        .await
        .unwrap_err();
    assert!(matches!(e, McpError::UnknownServer(_)));
    hub.shutdown().await;
}

/// How many `tools/list` requests the test server has answered (`SWITCHBOARD_TEST_LISTED`).
fn lists_in(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |s| s.lines().count())
}

#[tokio::test]
async fn a_burst_of_list_changed_is_listed_at_most_twice() {
    let dir = tempfile::tempdir().unwrap();
    let listed = dir.path().join("listed");
    let mut config = stdio_config(&[]);
    config.env.insert(
        "SWITCHBOARD_TEST_LISTED".into(),
        listed.display().to_string(),
    );
    let hub = hub_with(&[("t", config)]);
    assert_ready(&settled(&hub).await, "t");
    let first = lists_in(&listed);
    assert_eq!(first, 1, "the first listing");
    hub.call_tool(
        "t",
        "add_tool",
        args(json!({"times": 5})),
        None,
        CallContext::default(),
    )
    .await
    .unwrap();
    // Until the count has stood still for a while (each list takes milliseconds);
    // one notification per list would make six.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut last = (lists_in(&listed), tokio::time::Instant::now());
    while tokio::time::Instant::now() < deadline
        && (last.0 == first || last.1.elapsed() < std::time::Duration::from_millis(500))
    {
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        let now = lists_in(&listed);
        if now != last.0 {
            last = (now, tokio::time::Instant::now());
        }
    }
    let relisted = last.0 - first;
    assert!(
        (1..=2).contains(&relisted),
        "listed {relisted} times after 5 notifications"
    );
    let snap = hub.snapshot();
    assert!(snap.server("t").unwrap().catalog.tool("extra").is_some());
    hub.shutdown().await;
}

#[tokio::test]
async fn changes_announced_before_the_first_listing_are_not_listed_again() {
    let dir = tempfile::tempdir().unwrap();
    let listed = dir.path().join("listed");
    let mut config = stdio_config(&["--misbehave", "announce-early", "--protocol", "2025-11-25"]);
    config.env.insert(
        "SWITCHBOARD_TEST_LISTED".into(),
        listed.display().to_string(),
    );
    let hub = hub_with(&[("t", config)]);
    let snap = settled(&hub).await;
    assert_ready(&snap, "t");
    // The first listing began after the five announcements: it holds the change.
    assert!(snap.server("t").unwrap().catalog.tool("extra").is_some());
    // The server's task handles its commands in order: the refreshes the announcements
    // queued come before this, and once it is disabled nothing more is listed.
    hub.disable("t").unwrap();
    wait_snapshot(&hub, "t disabled", |s| {
        s.server("t")
            .is_some_and(|s| s.status == ServerStatus::Disabled)
    })
    .await;
    assert_eq!(
        lists_in(&listed),
        1,
        "listed again for changes it already had"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn list_changed_refreshes_the_catalog() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    assert_ready(&settled(&hub).await, "t");
    let mut rx = hub.subscribe();
    hub.call_tool("t", "add_tool", Map::new(), None, CallContext::default())
        .await
        .unwrap();
    let snap = tokio::time::timeout(
        support::mcp::SETTLE,
        rx.wait_for(|s| s.server("t").is_some_and(|s| s.catalog.tools.len() == 13)),
    )
    .await
    .unwrap()
    .unwrap()
    .clone();
    assert!(snap.server("t").unwrap().catalog.tool("extra").is_some());
    hub.shutdown().await;
}

#[tokio::test]
async fn logs_and_progress_become_events() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    assert_ready(&settled(&hub).await, "t");
    let mut events = hub.events();
    hub.call_tool("t", "log", Map::new(), None, CallContext::default())
        .await
        .unwrap();
    let ctx = CallContext {
        run_id: Some("run-1".into()),
        ..CallContext::default()
    };
    hub.call_tool("t", "slow", args(json!({"millis": 200})), None, ctx)
        .await
        .unwrap();
    let mut logs = 0;
    let mut progress = 0;
    while let Ok(event) = events.try_recv() {
        match event {
            McpEvent::Log { server, .. } if server == "t" => logs += 1,
            McpEvent::Progress {
                run_id, request, ..
            } => {
                assert_eq!(run_id.as_deref(), Some("run-1"));
                assert_eq!(request, "slow");
                progress += 1;
            }
            _ => {}
        }
    }
    assert!(logs >= 3, "logs {logs}");
    assert!(progress >= 1, "progress {progress}");
    hub.shutdown().await;
}

#[tokio::test]
async fn status_is_disabled_for_disabled_servers() {
    let mut config = stdio_config(&[]);
    config.enabled = Some(false);
    let hub = hub_with(&[("off", config)]);
    assert_eq!(
        hub.snapshot().server("off").unwrap().status,
        ServerStatus::Disabled
    );
}

/// Wait (hang guard only) until `name` has `status`.
async fn wait_status(hub: &switchboard::mcp::McpHub, name: &str, want: fn(&ServerStatus) -> bool) {
    wait_snapshot(hub, &format!("{name} reach the status"), |snap| {
        snap.server(name).is_some_and(|s| want(&s.status))
    })
    .await;
}

#[tokio::test]
async fn a_server_can_be_disabled_and_enabled_again() {
    let mut off = stdio_config(&[]);
    off.enabled = Some(false);
    let hub = hub_with(&[("on", stdio_config(&[])), ("off", off)]);
    let snap = settled(&hub).await;
    assert_ready(&snap, "on");
    assert_eq!(snap.server("off").unwrap().status, ServerStatus::Disabled);

    hub.disable("on").unwrap();
    wait_status(&hub, "on", |s| *s == ServerStatus::Disabled).await;
    assert!(
        hub.server("on").unwrap().live().is_err(),
        "no connection while disabled"
    );

    // Enabling is a reconnect: both come up, the one disabled in the config too.
    hub.reconnect("on").unwrap();
    hub.reconnect("off").unwrap();
    wait_status(&hub, "on", |s| *s == ServerStatus::Ready).await;
    wait_status(&hub, "off", |s| *s == ServerStatus::Ready).await;
    hub.shutdown().await;
}

/// Calls the test server's `log` tool and returns the levels that came back as events.
async fn logged_levels(hub: &switchboard::mcp::McpHub) -> Vec<String> {
    let mut events = hub.events();
    hub.call_tool("t", "log", Map::new(), None, CallContext::default())
        .await
        .unwrap();
    // The tool logs debug, info, warning, error in that order: once the error is
    // in, whatever the level let through is too.
    let seen =
        support::mcp::events_until(&mut events, |seen| support::mcp::logged(seen, "error")).await;
    let mut levels = Vec::new();
    for event in seen {
        if let McpEvent::Log { level, .. } = event {
            levels.push(level);
        }
    }
    levels
}

#[tokio::test]
async fn set_log_level_reaches_the_server_and_sticks_across_reconnects() {
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    assert_ready(&settled(&hub).await, "t");
    // On connect the hub asks for info and above.
    assert_eq!(logged_levels(&hub).await, ["info", "warning", "error"]);

    assert_eq!(hub.set_log_level("error").await.unwrap(), ["t"]);
    assert_eq!(logged_levels(&hub).await, ["error"]);

    let before = hub.snapshot().server("t").unwrap().generation;
    hub.reconnect("t").unwrap();
    wait_snapshot(&hub, "t ready again", |snap| {
        snap.server("t")
            .is_some_and(|s| s.generation > before && s.status == ServerStatus::Ready)
    })
    .await;
    assert_eq!(logged_levels(&hub).await, ["error"], "kept after reconnect");

    assert_eq!(hub.set_log_level("debug").await.unwrap(), ["t"]);
    assert_eq!(
        logged_levels(&hub).await,
        ["debug", "info", "warning", "error"]
    );
    let err = hub.set_log_level("loud").await.unwrap_err().to_string();
    assert!(err.contains("unknown log level"), "{err}");
    hub.shutdown().await;
}

#[tokio::test]
async fn completions_carry_the_other_arguments_as_context() {
    use std::collections::BTreeMap;
    use switchboard::mcp::CompletionRef;
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    assert_ready(&settled(&hub).await, "t");
    let server = hub.server("t").unwrap();
    let plain = server
        .complete(
            CompletionRef::Prompt("greet"),
            "name",
            "a",
            &BTreeMap::new(),
        )
        .await
        .unwrap();
    assert_eq!(plain, ["alpha"]);
    let context: BTreeMap<String, String> = [("style".to_owned(), "formal".to_owned())].into();
    let narrowed = server
        .complete(CompletionRef::Prompt("greet"), "name", "", &context)
        .await
        .unwrap();
    assert_eq!(narrowed, ["alpha", "beta", "gamma", "style=formal"]);
    hub.shutdown().await;
}

#[tokio::test]
async fn roots_are_offered_only_when_given() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("my project");
    std::fs::create_dir(&root).unwrap();
    let servers: std::collections::BTreeMap<String, switchboard::config::ServerConfig> =
        [("t".to_owned(), stdio_config(&[]))].into();
    let hub = switchboard::mcp::McpHub::start_with_roots(&servers, std::slice::from_ref(&root));
    assert_ready(&settled(&hub).await, "t");
    let listed = hub
        .call_tool(
            "t",
            "plain",
            args(json!({"roots": true})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    let expected = format!("file://{}", root.display()).replace(' ', "%20");
    assert_eq!(listed.text_content(), expected);
    hub.shutdown().await;

    // Without roots the capability is not declared.
    let hub = hub_with(&[("t", stdio_config(&[]))]);
    assert_ready(&settled(&hub).await, "t");
    let refused = hub
        .call_tool(
            "t",
            "plain",
            args(json!({"roots": true})),
            None,
            CallContext::default(),
        )
        .await
        .unwrap();
    assert!(refused.is_error);
    assert_eq!(refused.text_content(), "the client does not declare roots");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_start_gate_holds_the_connections_until_it_opens() {
    use std::collections::BTreeMap;
    use switchboard::mcp::{HubOptions, McpHub, StartGate};

    let servers = BTreeMap::from([("t".to_owned(), stdio_config(&[]))]);
    let start = StartGate::default();
    let hub = McpHub::start_with(
        &servers,
        HubOptions {
            start: Some(start.clone()),
            ..HubOptions::default()
        },
    );
    // An absence: nothing to wait for, so a window in which a gate that does not
    // hold would have let the server start (it starts in well under this).
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let snap = hub.snapshot();
    let t = snap.server("t").unwrap();
    assert!(
        matches!(t.status, ServerStatus::Connecting { attempt: 1 }),
        "still held: {:?}",
        t.status
    );
    assert!(hub.server("t").unwrap().live().is_err(), "not spawned yet");
    start.open();
    assert_ready(&settled(&hub).await, "t");
    hub.shutdown().await;

    // A hub shut down while held closes at once.
    let held = McpHub::start_with(
        &servers,
        HubOptions {
            start: Some(StartGate::default()),
            ..HubOptions::default()
        },
    );
    let begun = std::time::Instant::now();
    held.shutdown().await;
    assert!(begun.elapsed() < std::time::Duration::from_secs(5));
    assert!(matches!(
        held.snapshot().server("t").unwrap().status,
        ServerStatus::Disconnected { .. }
    ));
}
