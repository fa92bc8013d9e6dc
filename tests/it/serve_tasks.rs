//! The tasks extension for `serve`'s clients (SEP-2663): a declaring client's call
//! still running after a second becomes a task it follows with `tasks/get` (result
//! inlined) or cancels with `tasks/cancel` (the upstream call is cancelled); quick
//! calls stay plain; a client without the extension waits and is refused `tasks/*`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, ProtocolVersion, TaskPayload, TaskStatus,
};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::support::serve::{Client, Env, SWITCHBOARD, args, call, text, wait_for_marker};

/// A client of `serve --stdio` that declares the tasks extension.
async fn tasks_client(env: &Env) -> Client {
    let config = ClientConfig::new(
        ClientCapabilities::builder().enable_tasks().build(),
        Implementation::new("tasker", "1.0"),
    )
    .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE);
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(SWITCHBOARD)
            .configure(|c| env.configure(c, &["serve", "--stdio"])),
    )
    .unwrap();
    config.serve(transport).await.unwrap()
}

async fn start(client: &Client, tool: &str, arguments: Value) -> CallToolResponse {
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args(arguments));
    client.peer().call_tool_once(params).await.unwrap()
}

/// `tasks/get` until the task is no longer working.
async fn settle(client: &rmcp::Peer<RoleClient>, id: &str) -> TaskPayload {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let got = client.get_task(GetTaskParams::new(id)).await.unwrap();
        if got.task.task.status != TaskStatus::Working {
            return got.task.payload;
        }
        assert!(tokio::time::Instant::now() < deadline, "still working");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_slow_call_becomes_a_task_whose_result_is_inlined() {
    let env = Env::new("");
    let client = tasks_client(&env).await;
    let caps = client.peer_info().unwrap().capabilities.clone();
    assert!(caps.supports_tasks(), "{caps:?}");
    // Quick: answered as always.
    let CallToolResponse::Complete(quick) = start(&client, "t__echo", json!({"text": "hi"})).await
    else {
        panic!("a quick call became a task");
    };
    assert_eq!(text(&quick), "hi");

    let slow = json!({"millis": 2500, "progress": false});
    let CallToolResponse::Task(created) = start(&client, "t__slow", slow).await else {
        panic!("a slow call was not made a task");
    };
    assert_eq!(created.task.ttl_ms, Some(600_000));
    assert_eq!(created.task.poll_interval_ms, Some(500));
    let id = created.task.task_id.clone();
    let working = client.get_task(GetTaskParams::new(&id)).await.unwrap();
    assert_eq!(
        working.task.task.status_message.as_deref(),
        Some("running: it may be waiting for approval")
    );
    match settle(client.peer(), &id).await {
        TaskPayload::Completed { result } => {
            let result = Value::Object(result);
            assert_eq!(result["isError"], false, "{result}");
            assert!(result["content"][0]["text"].is_string(), "{result}");
        }
        other => panic!("{other:?}"),
    }
    let done = client.get_task(GetTaskParams::new(&id)).await.unwrap();
    assert_eq!(done.task.task.status_message.as_deref(), Some("done"));
    let unknown = client
        .get_task(GetTaskParams::new("nope"))
        .await
        .unwrap_err();
    assert!(
        unknown.to_string().contains("-32602") || unknown.to_string().contains("nope"),
        "{unknown}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn cancelling_the_task_cancels_the_call_upstream() {
    let env = Env::new("");
    let client = tasks_client(&env).await;
    let CallToolResponse::Task(created) = start(
        &client,
        "t__slow",
        json!({"millis": 60000, "progress": false}),
    )
    .await
    else {
        panic!("no task");
    };
    let id = created.task.task_id.clone();
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    assert!(matches!(
        settle(client.peer(), &id).await,
        TaskPayload::Cancelled
    ));
    assert!(
        wait_for_marker(&env.cancelled_marker()).await,
        "the server's call was cancelled"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_without_the_extension_waits_and_is_refused_tasks() {
    let env = Env::new("");
    let client = env.stdio_client("plain").await;
    let done = call(
        &client,
        "t__slow",
        json!({"millis": 1500, "progress": false}),
    )
    .await;
    assert_eq!(done.is_error, Some(false), "{done:?}");
    let refused = client.get_task(GetTaskParams::new("x")).await.unwrap_err();
    assert!(refused.to_string().contains("-32021"), "{refused}");
    client.cancel().await.unwrap();
}
