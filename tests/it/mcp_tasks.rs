//! Tasks (the MCP tasks extension): a call the server turns into a task is followed
//! to its end (progress from its status, input answered through the asker), returned
//! at once with `no_wait`, inspected and cancelled by id — in the hub and the CLI.
#![allow(clippy::unwrap_used)]

use crate::support;

use std::collections::BTreeMap;

use assert_cmd::Command;
use serde_json::{Value, json};
use switchboard::config::ProtocolChoice;
use switchboard::mcp::{CallContext, HubOptions, McpEvent, McpHub};

use crate::support::mcp::{HttpServer, assert_ready, settled, stdio_config};
use crate::support::trust_folder;

fn hub(protocol: ProtocolChoice) -> McpHub {
    let mut config = stdio_config(&["--asking"]);
    config.protocol = Some(protocol);
    crate::support::mcp::accept_defaults_hub(config)
}

fn args(v: &Value) -> serde_json::Map<String, Value> {
    v.as_object().unwrap().clone()
}

async fn call(
    hub: &McpHub,
    v: Value,
    no_wait: bool,
) -> Result<switchboard::tools::ToolResult, String> {
    let ctx = CallContext {
        no_wait,
        ..CallContext::default()
    };
    hub.call_tool("t", "long_task", args(&v), None, ctx)
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn calls_that_become_tasks_are_followed_in_both_eras() {
    for protocol in [ProtocolChoice::V2025, ProtocolChoice::V2026] {
        let era = protocol.as_str();
        let hub = hub(protocol);
        assert_ready(&settled(&hub).await, "t");
        let mut events = hub.events();
        let done = call(&hub, json!({"millis": 150}), false).await.unwrap();
        assert_eq!(done.text_content(), "task done (by nobody)", "{era}");
        let mut statuses = Vec::new();
        while let Ok(event) = events.try_recv() {
            if let McpEvent::Progress {
                message: Some(m),
                request,
                ..
            } = event
            {
                assert_eq!(request, "long_task");
                statuses.push(m);
            }
        }
        assert!(
            statuses.iter().any(|m| m == "task working — still working"),
            "{era}: {statuses:?}"
        );
        // Input the task needs goes through the asker (tasks/update).
        let asked = call(&hub, json!({"millis": 10, "ask": true}), false)
            .await
            .unwrap();
        assert_eq!(asked.text_content(), "task done (by Grace)", "{era}");
        let failed = call(&hub, json!({"millis": 10, "fail": true}), false)
            .await
            .unwrap_err();
        assert!(
            failed.starts_with("mcp_remote_error") && failed.contains("the task broke"),
            "{era}: {failed}"
        );
        hub.shutdown().await;
    }
}

#[tokio::test]
async fn no_wait_returns_the_task_to_get_and_cancel() {
    let hub = hub(ProtocolChoice::V2026);
    assert_ready(&settled(&hub).await, "t");
    let started = call(&hub, json!({"millis": 60000}), true).await.unwrap();
    let id = started.structured.clone().unwrap()["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(started.content.len() == 1 && started.text_content().contains(&id));
    let view = hub.get_task("t", &id).await.unwrap();
    assert_eq!(view.status, "working");
    assert_eq!(view.poll_interval_ms, Some(30));
    assert_eq!(view.ttl_ms, Some(60000));
    hub.cancel_task("t", &id).await.unwrap();
    assert_eq!(hub.get_task("t", &id).await.unwrap().status, "cancelled");
    hub.shutdown().await;
}

#[test]
fn cli_waits_or_not_and_tasks_can_be_read_and_cancelled() {
    let server = HttpServer::start_with(&["--asking"]);
    let dir = tempfile::tempdir().unwrap();
    let config = format!("[servers.h]\nurl = {:?}\n", server.url);
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    trust_folder(dir.path(), &dir.path().join(".local/state"));
    let run = |args: &[&str]| {
        let out = Command::cargo_bin("switchboard")
            .unwrap()
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .args(args)
            .timeout(std::time::Duration::from_secs(120))
            .assert()
            .code(0)
            .get_output()
            .clone();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (out, err) = run(&["call", "h", "long_task", "-a", "millis=300"]);
    assert!(out.contains("task done"), "{out}");
    // One readable line per change of the task's status, not one per poll.
    let progress: Vec<&str> = err.lines().filter(|l| l.starts_with("progress")).collect();
    assert!(
        progress.contains(&"progress: task working — still working"),
        "{err}"
    );
    let mut unique = progress.clone();
    unique.dedup();
    assert_eq!(unique, progress, "a line per change: {err}");
    let (out, _) = run(&[
        "call",
        "h",
        "long_task",
        "-a",
        "millis=60000",
        "--no-wait",
        "--json",
    ]);
    let result: Value = serde_json::from_str(&out).unwrap();
    let id = result["structured"]["taskId"].as_str().unwrap().to_owned();
    let (out, _) = run(&["task", "get", "h", &id, "--json"]);
    let view: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(view["status"], "working", "{view}");
    run(&["task", "cancel", "h", &id]);
    let (out, _) = run(&["task", "get", "h", &id]);
    assert!(out.contains("cancelled"), "{out}");
}

/// A hub on the test server over Streamable HTTP: the server process (and its tasks)
/// outlives every connection the hub makes to it.
fn http_hub(server: &HttpServer, protocol: ProtocolChoice) -> McpHub {
    let mut config = support::mcp::url_config(&server.url);
    config.protocol = Some(protocol);
    McpHub::start_with(
        &BTreeMap::from([("t".to_owned(), config)]),
        HubOptions::default(),
    )
}

#[tokio::test]
async fn a_task_is_followed_across_a_reconnect_to_its_result() {
    let server = HttpServer::start_with(&["--asking"]);
    for protocol in [ProtocolChoice::V2025, ProtocolChoice::V2026] {
        let era = protocol.as_str();
        let hub = http_hub(&server, protocol);
        assert_ready(&settled(&hub).await, "t");
        let before = hub.snapshot().server("t").unwrap().generation;
        let mut events = hub.events();
        let calling = hub.clone();
        let running =
            tokio::spawn(async move { call(&calling, json!({"millis": 1500}), false).await });
        // Once the task is being polled, the connection is dropped under it.
        let task_id = loop {
            if let McpEvent::Task { view, .. } =
                crate::support::within(events.recv()).await.unwrap()
                && view.status == "working"
            {
                break view.task_id;
            }
        };
        hub.reconnect("t").unwrap();
        let done = running.await.unwrap();
        assert_eq!(
            done.as_ref()
                .map(switchboard::tools::ToolResult::text_content),
            Ok("task done (by nobody)".to_owned()),
            "{era}"
        );
        let after = hub.snapshot().server("t").unwrap().generation;
        assert!(
            after > before,
            "{era}: the call outlived connection {before}"
        );
        // The Tasks view heard the task on the new connection too, to its end.
        let mut last = None;
        while let Ok(event) = events.try_recv() {
            if let McpEvent::Task { view, .. } = event
                && view.task_id == task_id
            {
                last = Some(view.status);
            }
        }
        assert_eq!(last.as_deref(), Some("completed"), "{era}");
        hub.shutdown().await;
    }
}

#[tokio::test]
async fn a_task_whose_server_does_not_come_back_fails_saying_so() {
    let server = HttpServer::start_with(&["--asking"]);
    let hub = http_hub(&server, ProtocolChoice::V2026);
    assert_ready(&settled(&hub).await, "t");
    let mut events = hub.events();
    let calling = hub.clone();
    let running =
        tokio::spawn(async move { call(&calling, json!({"millis": 60000}), false).await });
    while !matches!(
        crate::support::within(events.recv()).await.unwrap(),
        McpEvent::Task { .. }
    ) {}
    // Disabled: it will not connect again by itself, so the call stops waiting.
    hub.disable("t").unwrap();
    let err = tokio::time::timeout(std::time::Duration::from_secs(30), running)
        .await
        .expect("the call gave up")
        .unwrap()
        .unwrap_err();
    assert!(
        err.starts_with("mcp_call_failed") && err.contains("not ready again"),
        "{err}"
    );
    hub.shutdown().await;
}
