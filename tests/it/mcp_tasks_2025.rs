//! Tasks of protocol 2025-11-25 (`execution.taskSupport`, `params.task`,
//! `tasks/get|result|cancel`), against the test server's raw `tasks-2025` mode: a
//! required tool runs as a task, an optional one only when the caller will not wait,
//! questions come through the asker, cancelling sends `tasks/cancel`, and a server
//! whose handshake hides its task facts is still served after its -32601.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Value, json};
use switchboard::mcp::{CallContext, McpEvent, McpHub, TaskMode};
use tokio_util::sync::CancellationToken;

use crate::support::mcp::{SERVER_BIN, assert_ready, settled, stdio_config};
use crate::support::{trust_folder, within};

fn hub(mode: &str, marker: &Path) -> McpHub {
    let mut config = stdio_config(&["--misbehave", mode]);
    config.env.insert(
        "SWITCHBOARD_TEST_MARKER".into(),
        marker.display().to_string(),
    );
    crate::support::mcp::accept_defaults_hub(config)
}

async fn call(hub: &McpHub, tool: &str, args: Value, ctx: CallContext) -> Result<String, String> {
    hub.call_tool("t", tool, args.as_object().unwrap().clone(), None, ctx)
        .await
        .map(|r| r.text_content())
        .map_err(|e| e.to_string())
}

/// The `tools/call` requests the server received, as sent.
fn calls_sent(marker: &Path) -> Vec<Value> {
    std::fs::read_to_string(marker)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn a_required_tool_runs_as_a_task_with_its_stages_as_progress() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("calls");
    let hub = hub("tasks-2025", &marker);
    let snapshot = settled(&hub).await;
    assert_ready(&snapshot, "t");
    let catalog = &snapshot.server("t").unwrap().catalog;
    assert_eq!(
        catalog.tool("research").unwrap().task,
        Some(TaskMode::Required)
    );
    assert_eq!(
        catalog.tool("lookup").unwrap().task,
        Some(TaskMode::Optional)
    );
    assert_eq!(catalog.tool("echo").unwrap().task, None);

    let mut events = hub.events();
    let done = call(
        &hub,
        "research",
        json!({"topic": "tides"}),
        CallContext::default(),
    )
    .await;
    assert_eq!(done.as_deref(), Ok("report on tides"));
    let sent = calls_sent(&marker);
    assert_eq!(sent.len(), 1, "no plain call first: {sent:?}");
    assert_eq!(sent[0]["params"]["task"]["ttl"], 600_000);

    let (mut progress, mut views) = (Vec::new(), Vec::new());
    while let Ok(event) = events.try_recv() {
        match event {
            McpEvent::Progress {
                message: Some(m), ..
            } => progress.push(m),
            McpEvent::Task { view, tool } => {
                assert_eq!(tool, "research");
                views.push((view.status.clone(), view.poll_interval_ms, view.ttl_ms));
            }
            _ => {}
        }
    }
    assert!(
        progress
            .iter()
            .any(|m| m.starts_with("task working — stage ")),
        "{progress:?}"
    );
    // The created task and each poll, with the server's interval and retention.
    assert_eq!(
        views.first(),
        Some(&("working".to_owned(), Some(50), Some(300_000)))
    );
    assert!(views.iter().any(|v| v.0 == "completed"), "{views:?}");

    // A forbidden tool is called plainly.
    let echoed = call(&hub, "echo", json!({"text": "hi"}), CallContext::default()).await;
    assert_eq!(echoed.as_deref(), Ok("hi"));
    assert!(calls_sent(&marker)[1]["params"].get("task").is_none());
    hub.shutdown().await;
}

#[tokio::test]
async fn an_optional_tool_is_a_task_only_when_the_caller_will_not_wait() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("calls");
    let hub = hub("tasks-2025", &marker);
    assert_ready(&settled(&hub).await, "t");
    let plain = call(&hub, "lookup", json!({"key": "k"}), CallContext::default()).await;
    assert_eq!(plain.as_deref(), Ok("looked up k"));
    assert!(calls_sent(&marker)[0]["params"].get("task").is_none());

    let ctx = CallContext {
        no_wait: true,
        ..CallContext::default()
    };
    let started = hub
        .call_tool(
            "t",
            "lookup",
            json!({"key": "k"}).as_object().unwrap().clone(),
            None,
            ctx,
        )
        .await
        .unwrap();
    let id = started.structured.clone().unwrap()["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(id, "task-1");
    assert!(calls_sent(&marker)[1]["params"]["task"].is_object());
    // `tasks/get` until it is done, then cancelling it is the server's refusal.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let view = hub.get_task("t", &id).await.unwrap();
        if view.status == "completed" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still {view:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let refused = hub.cancel_task("t", &id).await.unwrap_err().to_string();
    assert!(refused.contains("terminal status: completed"), "{refused}");
    let unknown = hub.get_task("t", "task-99").await.unwrap_err().to_string();
    assert!(unknown.contains("Task not found"), "{unknown}");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_task_that_needs_input_asks_through_the_asker() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub("tasks-2025", &dir.path().join("calls"));
    assert_ready(&settled(&hub).await, "t");
    let args = json!({"topic": "bark", "stages": 1, "ask": true});
    let done = call(&hub, "research", args, CallContext::default()).await;
    assert_eq!(done.as_deref(), Ok("report on bark (the narrow one)"));
    hub.shutdown().await;
}

#[tokio::test]
async fn giving_up_on_a_task_cancels_it_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub("tasks-2025", &dir.path().join("calls"));
    assert_ready(&settled(&hub).await, "t");
    let mut events = hub.events();
    let cancel = CancellationToken::new();
    let ctx = CallContext {
        cancel: Some(cancel.clone()),
        ..CallContext::default()
    };
    let calling = hub.clone();
    let running = tokio::spawn(async move {
        call(
            &calling,
            "research",
            json!({"topic": "x", "stages": 600}),
            ctx,
        )
        .await
    });
    while !matches!(within(events.recv()).await.unwrap(), McpEvent::Task { .. }) {}
    cancel.cancel();
    let err = within(running).await.unwrap().unwrap_err();
    assert!(
        err.contains("cancelled (tasks/cancel sent for task task-1)"),
        "{err}"
    );
    assert_eq!(
        hub.get_task("t", "task-1").await.unwrap().status,
        "cancelled"
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn a_server_hiding_its_task_facts_gets_a_task_after_its_32601() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("calls");
    let hub = hub("tasks-2025-hidden", &marker);
    let snapshot = settled(&hub).await;
    assert_ready(&snapshot, "t");
    assert_eq!(
        snapshot
            .server("t")
            .unwrap()
            .catalog
            .tool("research")
            .unwrap()
            .task,
        None
    );
    let done = call(
        &hub,
        "research",
        json!({"topic": "fog", "stages": 1}),
        CallContext::default(),
    )
    .await;
    assert_eq!(done.as_deref(), Ok("report on fog"));
    let sent = calls_sent(&marker);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(sent[0]["params"].get("task").is_none());
    assert!(sent[1]["params"]["task"].is_object());
    // A tool that is simply unknown is not retried.
    let unknown = call(&hub, "nope", json!({}), CallContext::default()).await;
    assert!(unknown.unwrap_err().contains("Unknown tool"));
    assert_eq!(calls_sent(&marker).len(), 3);
    hub.shutdown().await;
}

#[test]
fn the_cli_waits_for_a_task_or_hands_it_back_to_get_and_cancel() {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[servers.t]\ncommand = {SERVER_BIN:?}\nargs = [\"--misbehave\", \"tasks-2025\"]\n"
    );
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    trust_folder(dir.path(), &dir.path().join(".local/state"));
    let run = |args: &[&str]| {
        let out = crate::support::cli::switchboard_in(dir.path())
            .args(args)
            .assert()
            .code(0)
            .get_output()
            .clone();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (out, _) = run(&["catalog", "--json"]);
    let catalog: Value = serde_json::from_str(&out).unwrap();
    let modes: Vec<(&str, &Value)> = catalog["servers"][0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), &t["task"]))
        .collect();
    assert_eq!(
        modes,
        [
            ("research", &json!("required")),
            ("lookup", &json!("optional")),
            ("echo", &Value::Null)
        ]
    );
    let (out, _) = run(&["catalog"]);
    assert!(out.contains("(task) Researches"), "{out}");
    assert!(out.contains("(task if --no-wait) Looks"), "{out}");
    let (out, err) = run(&["call", "t", "research", "-a", "topic=moss"]);
    assert!(out.contains("report on moss"), "{out}");
    assert!(
        err.contains("progress: task working — stage 1 of 3"),
        "{err}"
    );
    // Each CLI run is its own server process: a task lives as long as it does, so
    // `--no-wait` hands back the id and the server's word on it.
    let (out, _) = run(&["call", "t", "lookup", "-a", "key=k", "--no-wait", "--json"]);
    let result: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(result["structured"]["taskId"], "task-1", "{result}");
    assert_eq!(result["structured"]["status"], "working", "{result}");
}
