//! Tasks (the MCP tasks extension): a call the server turns into a task is followed
//! to its end (progress from its status, input answered through the asker), returned
//! at once with `no_wait`, inspected and cancelled by id — in the hub and the CLI.
#![allow(clippy::unwrap_used)]

mod mcp_support;

use std::collections::BTreeMap;
use std::sync::Arc;

use assert_cmd::Command;
use serde_json::{Value, json};
use switchboard::config::{McpConfig, ProtocolChoice};
use switchboard::mcp::{CallContext, ElicitMode, HeadlessAsker, HubOptions, McpEvent, McpHub};

use mcp_support::{HttpServer, assert_ready, settled, stdio_config};

fn hub(protocol: ProtocolChoice) -> McpHub {
    let mut config = stdio_config(&["--asking"]);
    config.protocol = Some(protocol);
    McpHub::start_with(
        &BTreeMap::from([("t".to_owned(), config)]),
        HubOptions {
            asker: Some(Arc::new(HeadlessAsker {
                mode: ElicitMode::AcceptDefaults,
                notice: None,
            })),
            mcp: McpConfig::default(),
            ..HubOptions::default()
        },
    )
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
            statuses.iter().any(|m| m == "task working: still working"),
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
    let (out, err) = run(&["call", "h", "long_task", "-a", "millis=100"]);
    assert!(out.contains("task done"), "{out}");
    assert!(err.contains("task working"), "progress on stderr: {err}");
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
