//! Anthropic Messages streams served by wiremock: text + tool_use, ping, a mid-stream
//! `event: error`, truncation, 529 retries and the native memory tool header.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::json;
use switchboard::llm::{
    AnthropicProvider, ChatRequest, FinishReason, LlmErrorKind, Message, Provider, ToolDeclaration,
    Usage,
};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::llm::{Sleeps, assemble, collect, endpoint, named_events};

const START: (&str, &str) = (
    "message_start",
    r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-x","stop_reason":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#,
);
const TEXT_START: (&str, &str) = (
    "content_block_start",
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
);
const PING: (&str, &str) = ("ping", r#"{"type":"ping"}"#);
const TEXT: (&str, &str) = (
    "content_block_delta",
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me look."}}"#,
);
const TEXT_STOP: (&str, &str) = (
    "content_block_stop",
    r#"{"type":"content_block_stop","index":0}"#,
);
const TOOL_START: (&str, &str) = (
    "content_block_start",
    r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"fs","input":{}}}"#,
);
const TOOL_1: (&str, &str) = (
    "content_block_delta",
    r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"operation\": \"li"}}"#,
);
const TOOL_2: (&str, &str) = (
    "content_block_delta",
    r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"st\", \"path\": \".\"}"}}"#,
);
const TOOL_STOP: (&str, &str) = (
    "content_block_stop",
    r#"{"type":"content_block_stop","index":1}"#,
);
const DELTA: (&str, &str) = (
    "message_delta",
    r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}"#,
);
const STOP: (&str, &str) = ("message_stop", r#"{"type":"message_stop"}"#);
const ERROR: (&str, &str) = (
    "error",
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
);

fn sse(events: &[(&str, &str)]) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .insert_header("request-id", "req_ant_1")
        .set_body_string(named_events(events))
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![Message::system("be brief"), Message::user("list")],
        ..ChatRequest::default()
    }
}

async fn server_with(template: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", "sk-test"))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(template)
        .mount(&server)
        .await;
    server
}

fn provider(server: &MockServer) -> (AnthropicProvider, Sleeps) {
    let (e, sleeps) = endpoint(&server.uri());
    (AnthropicProvider::new(e), sleeps)
}

#[tokio::test]
async fn text_and_tool_use_with_input_json_delta_and_ping() {
    let events = [
        START, TEXT_START, PING, TEXT, TEXT_STOP, TOOL_START, TOOL_1, PING, TOOL_2, TOOL_STOP,
        DELTA, STOP,
    ];
    let server = server_with(sse(&events)).await;
    let (p, _) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.error, None);
    assert_eq!(out.text, "Let me look.");
    assert_eq!(out.calls.len(), 1);
    assert_eq!(out.calls[0].id, "toolu_1");
    assert_eq!(
        out.calls[0].arguments,
        json!({"operation": "list", "path": "."})
    );
    assert_eq!(out.usage, Some(Usage::new(25, 40)));
    assert_eq!(out.finish, Some(FinishReason::ToolCalls));
}

#[tokio::test]
async fn error_event_after_200_ends_the_stream_with_the_providers_message() {
    let events = [START, TEXT_START, TEXT, ERROR];
    let server = server_with(sse(&events)).await;
    let (p, sleeps) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.text, "Let me look.");
    let error = out.error.unwrap();
    assert_eq!(error.kind, LlmErrorKind::Stream);
    assert_eq!(error.code.as_deref(), Some("overloaded_error"));
    assert_eq!(error.message, "Overloaded");
    assert_eq!(error.request_id.as_deref(), Some("req_ant_1"));
    // Text was shown: never retried.
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
    assert!(sleeps.lock().unwrap().is_empty());
}

#[tokio::test]
async fn error_event_before_anything_was_shown_is_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(&[START, PING, ERROR]))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(sse(&[START, TEXT_START, TEXT, TEXT_STOP, STOP]))
        .mount(&server)
        .await;
    let (p, sleeps) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.error, None);
    assert_eq!(out.text, "Let me look.");
    assert_eq!(*sleeps.lock().unwrap(), [Duration::from_millis(500)]);
}

#[tokio::test]
async fn stream_without_message_stop_is_truncated() {
    let events = [START, TEXT_START, TEXT, TEXT_STOP, DELTA];
    let server = server_with(sse(&events)).await;
    let (p, _) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.error.unwrap().kind, LlmErrorKind::Truncated);
    assert_eq!(out.finish, None);
}

#[tokio::test]
async fn overloaded_529_is_retried_with_backoff() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(529).set_body_string(ERROR.1))
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(sse(&[START, TEXT_START, TEXT, TEXT_STOP, STOP]))
        .mount(&server)
        .await;
    let (p, sleeps) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.error, None);
    assert_eq!(
        *sleeps.lock().unwrap(),
        [Duration::from_millis(500), Duration::from_secs(1)]
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn overloaded_529_three_times_gives_up_with_the_message() {
    let server = server_with(ResponseTemplate::new(529).set_body_string(ERROR.1)).await;
    let (p, _) = provider(&server);
    let error = assemble(&collect(p.stream(request())).await).error.unwrap();
    assert_eq!(error.status, Some(529));
    assert_eq!(error.code.as_deref(), Some("overloaded_error"));
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn memory_tool_is_declared_natively_with_the_beta_header() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(header("anthropic-beta", "context-management-2025-06-27"))
        .respond_with(sse(&[START, STOP]))
        .mount(&server)
        .await;
    let (p, _) = provider(&server);
    let mut req = request();
    req.tools = vec![ToolDeclaration {
        name: "memory".into(),
        description: "memory".into(),
        parameters: json!({"type": "object"}),
    }];
    let out = assemble(&collect(p.stream(req)).await);
    assert_eq!(out.error, None, "the beta header was not sent");
    let sent = &server.received_requests().await.unwrap()[0];
    let body: serde_json::Value = serde_json::from_slice(&sent.body).unwrap();
    assert_eq!(
        body["tools"],
        json!([{"type": "memory_20250818", "name": "memory"}])
    );
}
