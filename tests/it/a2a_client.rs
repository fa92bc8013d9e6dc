//! The A2A client against the loopback test agent (tests/it/support/a2a_server) in both
//! protocol versions: card, send, streamed status, polling, a failed task as a
//! result, cancel, auth headers.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use reqwest::header::HeaderMap;
use switchboard::a2a::{A2aAuth, A2aClient, A2aError, ProtocolVersion, TaskState, Update};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::support::a2a_server::{Options, Server, Version};

async fn client(server: &Server) -> A2aClient {
    A2aClient::connect(&server.url, HeaderMap::new())
        .await
        .unwrap()
        .with_poll_interval(Duration::from_millis(10))
}

async fn run(client: &A2aClient, text: &str) -> (switchboard::a2a::Outcome, Vec<Update>) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let outcome = tokio::time::timeout(
        Duration::from_secs(20),
        client.run(text, Some(&tx), &CancellationToken::new()),
    )
    .await
    .unwrap()
    .unwrap();
    drop(tx);
    let mut updates = Vec::new();
    while let Some(u) = crate::support::within(rx.recv()).await {
        updates.push(u);
    }
    (outcome, updates)
}

fn states(updates: &[Update]) -> Vec<String> {
    updates
        .iter()
        .map(|u| match u {
            Update::Task(t) => format!("task {}", t.state.as_str()),
            Update::Status { state, .. } => format!("status {}", state.as_str()),
            Update::Artifact { text, .. } => format!("artifact {text}"),
            Update::Message(text) => format!("message {text}"),
        })
        .collect()
}

#[tokio::test]
async fn card_of_a_1_0_agent() {
    let server = Server::start(Options::default()).await;
    let c = client(&server).await;
    let card = c.card();
    assert_eq!(card.name, "Echo agent");
    assert_eq!(c.version(), ProtocolVersion::V1_0);
    assert_eq!(card.interface.url, format!("{}/", server.url));
    assert!(!card.streaming);
    assert_eq!(card.skills[0].id, "echo");
    assert_eq!(card.skills[0].tags, vec!["test"]);
}

#[tokio::test]
async fn send_completes_with_the_artifact_and_the_version_header() {
    let server = Server::start(Options::default()).await;
    let (outcome, _) = run(&client(&server).await, "hello").await;
    assert_eq!(outcome.state, TaskState::Completed);
    assert_eq!(outcome.text, "echo: hello");
    assert_eq!(outcome.task_id.as_deref(), Some("task-1"));
    let log = server.log();
    assert_eq!(server.methods(), vec!["SendMessage"]);
    assert_eq!(log[0].a2a_version.as_deref(), Some("1.0"));
}

#[tokio::test]
async fn streamed_status_in_order() {
    let server = Server::start(Options {
        streaming: true,
        ..Options::default()
    })
    .await;
    let (outcome, updates) = run(&client(&server).await, "hello").await;
    assert_eq!(
        states(&updates),
        vec![
            "task submitted",
            "status working",
            "artifact echo: hello",
            "status completed"
        ]
    );
    assert_eq!(outcome.state, TaskState::Completed);
    assert_eq!(outcome.text, "echo: hello");
    assert_eq!(server.methods(), vec!["SendStreamingMessage"]);
}

#[tokio::test]
async fn a_failed_task_is_a_result_with_its_reason() {
    for streaming in [false, true] {
        let server = Server::start(Options {
            streaming,
            ..Options::default()
        })
        .await;
        let (outcome, _) = run(&client(&server).await, "fail please").await;
        assert_eq!(outcome.state, TaskState::Failed, "streaming {streaming}");
        assert_eq!(outcome.status_text, "could not do it");
        assert_eq!(outcome.text, "could not do it");
    }
}

#[tokio::test]
async fn a_working_task_is_followed_with_get_task() {
    let server = Server::start(Options::default()).await;
    let (outcome, updates) = run(&client(&server).await, "slow job").await;
    assert_eq!(outcome.state, TaskState::Completed);
    assert_eq!(outcome.text, "echo: slow job");
    assert_eq!(server.methods(), vec!["SendMessage", "GetTask", "GetTask"]);
    assert_eq!(
        states(&updates),
        vec!["task working", "task working", "task completed"]
    );
}

#[tokio::test]
async fn input_required_and_direct_replies_end_the_run() {
    let server = Server::start(Options::default()).await;
    let c = client(&server).await;
    let (outcome, _) = run(&c, "input weather").await;
    assert_eq!(outcome.state, TaskState::InputRequired);
    assert_eq!(outcome.status_text, "which city?");
    let (reply, _) = run(&c, "reply now").await;
    assert_eq!(reply.state, TaskState::Completed);
    assert_eq!(reply.task_id, None);
    assert_eq!(reply.text, "direct: reply now");
}

#[tokio::test]
async fn cancel_stops_a_streaming_task_on_the_server() {
    let server = Server::start(Options {
        streaming: true,
        ..Options::default()
    })
    .await;
    let c = client(&server).await;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let watcher = tokio::spawn(async move {
        while let Some(update) = rx.recv().await {
            if matches!(
                update,
                Update::Status {
                    state: TaskState::Working,
                    ..
                }
            ) {
                trigger.cancel();
            }
        }
    });
    let outcome = tokio::time::timeout(
        Duration::from_secs(20),
        c.run("hang on", Some(&tx), &cancel),
    )
    .await
    .unwrap()
    .unwrap();
    drop(tx);
    watcher.await.unwrap();
    assert_eq!(outcome.state, TaskState::Canceled);
    assert_eq!(outcome.status_text, "");
    assert_eq!(server.methods(), vec!["SendStreamingMessage", "CancelTask"]);
    // The server's record says so too.
    assert_eq!(
        c.get_task("task-1").await.unwrap().state,
        TaskState::Canceled
    );
}

#[tokio::test]
async fn a_0_3_agent_gets_0_3_methods_without_the_version_header() {
    for streaming in [false, true] {
        let server = Server::start(Options {
            version: Version::V03,
            streaming,
            ..Options::default()
        })
        .await;
        let c = client(&server).await;
        assert_eq!(c.version(), ProtocolVersion::V0_3);
        let (outcome, _) = run(&c, "hello").await;
        assert_eq!(outcome.state, TaskState::Completed);
        assert_eq!(outcome.text, "echo: hello");
        let (failed, _) = run(&c, "fail").await;
        assert_eq!(failed.state, TaskState::Failed);
        let expected = if streaming {
            "message/stream"
        } else {
            "message/send"
        };
        assert_eq!(server.methods()[0], expected);
        assert!(server.log().iter().all(|l| l.a2a_version.is_none()));
    }
    let server = Server::start(Options {
        version: Version::V03,
        ..Options::default()
    })
    .await;
    let (_, _) = run(&client(&server).await, "slow").await;
    assert_eq!(
        server.methods(),
        vec!["message/send", "tasks/get", "tasks/get"]
    );
}

#[tokio::test]
async fn bearer_token_from_the_environment() {
    let server = Server::start(Options {
        token: Some("s3cret".into()),
        ..Options::default()
    })
    .await;
    let auth = A2aAuth {
        bearer_token_env_var: Some("AGENT_TOKEN".into()),
        ..A2aAuth::default()
    };
    let env = |k: &str| (k == "AGENT_TOKEN").then(|| "s3cret".to_owned());
    let headers = auth.header_map(&env).unwrap();
    assert!(headers["authorization"].is_sensitive());
    let c = A2aClient::connect(&server.url, headers).await.unwrap();
    let (outcome, _) = run(&c, "hello").await;
    assert_eq!(outcome.state, TaskState::Completed);
    assert_eq!(
        server.log()[0].authorization.as_deref(),
        Some("Bearer s3cret")
    );
    assert!(
        matches!(auth.header_map(&|_| None), Err(A2aError::Auth(m)) if m.contains("AGENT_TOKEN"))
    );
    let refused = A2aClient::connect(&server.url, HeaderMap::new())
        .await
        .unwrap_err();
    assert!(
        matches!(refused, A2aError::Status { status: 401, .. }),
        "{refused}"
    );
}
