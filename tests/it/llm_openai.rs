//! OpenAI Chat Completions streams served by wiremock: parallel fragmented calls,
//! a compatible-server variant, truncation and retries.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::json;
use switchboard::llm::{
    ChatRequest, FinishReason, LlmErrorKind, Message, OpenAiProvider, Provider, Usage,
};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support;
use crate::support::llm::{assemble, collect, data_lines, endpoint};

const PARALLEL: &[&str] = &[
    r#"{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"fs","arguments":""}}]},"finish_reason":null}]}"#,
    r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"operation\":"}}]},"finish_reason":null}]}"#,
    r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"weather__get","arguments":""}}]},"finish_reason":null}]}"#,
    r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"list\",\"path\":\".\"}"}}]},"finish_reason":null}]}"#,
    r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]}"#,
    r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"Oslo\"}"}}]},"finish_reason":null}]}"#,
    r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    r#"{"id":"c1","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}"#,
    "[DONE]",
];

fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .set_body_string(body)
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![Message::user("list files and weather")],
        ..ChatRequest::default()
    }
}

async fn server_with(template: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .respond_with(template)
        .mount(&server)
        .await;
    server
}

fn provider(server: &MockServer) -> (OpenAiProvider, support::llm::Sleeps) {
    let (e, sleeps) = endpoint(&format!("{}/v1", server.uri()));
    (OpenAiProvider::new(e), sleeps)
}

#[tokio::test]
async fn two_parallel_calls_with_fragmented_arguments_and_usage() {
    let server = server_with(sse(data_lines(PARALLEL))).await;
    let (p, _) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.error, None);
    assert_eq!(out.calls.len(), 2);
    assert_eq!(out.calls[0].id, "call_a");
    assert_eq!(out.calls[0].name, "fs");
    assert_eq!(
        out.calls[0].arguments,
        json!({"operation": "list", "path": "."})
    );
    assert_eq!(out.calls[1].id, "call_b");
    assert_eq!(out.calls[1].arguments, json!({"city": "Oslo"}));
    assert_eq!(out.usage, Some(Usage::new(50, 20)));
    assert_eq!(out.finish, Some(FinishReason::ToolCalls));
}

#[tokio::test]
async fn compatible_server_repeats_id_and_name_reuses_index_and_sends_no_usage() {
    let chunks = [
        r#"{"choices":[{"index":0,"delta":{"content":"Sure. "}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"fs","arguments":"{\"operation\":"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"fs","arguments":"\"read\",\"path\":\"x\"}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"fs","arguments":"{\"operation\":\"list\",\"path\":\".\"}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        "[DONE]",
    ];
    let server = server_with(sse(data_lines(&chunks))).await;
    let (p, _) = provider(&server);
    let events = collect(p.stream(request())).await;
    let out = assemble(&events);
    assert_eq!(out.text, "Sure. ");
    let ids: Vec<&str> = out.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(
        out.calls[0].arguments,
        json!({"operation": "read", "path": "x"})
    );
    assert_eq!(
        out.calls[1].arguments,
        json!({"operation": "list", "path": "."})
    );
    assert_eq!(out.usage, None);
    assert_eq!(out.finish, Some(FinishReason::ToolCalls));
}

#[tokio::test]
async fn usage_chunk_with_an_empty_delta_and_whole_call_in_one_chunk() {
    let chunks = [
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"w","type":"function","function":{"name":"fs","arguments":"{\"operation\":\"stat\",\"path\":\"a\"}"}}]},"finish_reason":"tool_calls"}]}"#,
        r#"{"choices":[{"index":0,"delta":{}}],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
        "[DONE]",
    ];
    let server = server_with(sse(data_lines(&chunks))).await;
    let (p, _) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(
        out.calls[0].arguments,
        json!({"operation": "stat", "path": "a"})
    );
    assert_eq!(out.usage, Some(Usage::new(3, 4)));
}

#[tokio::test]
async fn truncated_stream_is_an_error_not_a_short_answer() {
    let server = server_with(sse(data_lines(&PARALLEL[..4]))).await;
    let (p, sleeps) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    let error = out.error.unwrap();
    assert_eq!(error.kind, LlmErrorKind::Truncated);
    assert_eq!(out.finish, None);
    // Something was shown already: not retried.
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
    assert!(sleeps.lock().unwrap().is_empty());
}

#[tokio::test]
async fn empty_truncated_stream_is_retried_then_fails() {
    let server = server_with(sse(String::new())).await;
    let (p, sleeps) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.error.unwrap().kind, LlmErrorKind::Truncated);
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
    assert_eq!(
        *sleeps.lock().unwrap(),
        [Duration::from_millis(500), Duration::from_secs(1)]
    );
}

#[tokio::test]
async fn rate_limit_waits_retry_after_then_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "3")
                .set_body_string(
                    r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
                ),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    let ok = [
        r#"{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ];
    Mock::given(method("POST"))
        .respond_with(sse(data_lines(&ok)))
        .mount(&server)
        .await;
    let (p, sleeps) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.error, None);
    assert_eq!(out.text, "hi");
    assert_eq!(*sleeps.lock().unwrap(), [Duration::from_secs(3)]);
}

#[tokio::test]
async fn insufficient_quota_is_not_retried_and_carries_message_and_request_id() {
    let body = r#"{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","code":"insufficient_quota"}}"#;
    let server = server_with(
        ResponseTemplate::new(429)
            .insert_header("x-request-id", "req_123")
            .set_body_string(body),
    )
    .await;
    let (p, sleeps) = provider(&server);
    let error = assemble(&collect(p.stream(request())).await).error.unwrap();
    assert_eq!(error.status, Some(429));
    assert_eq!(error.code.as_deref(), Some("insufficient_quota"));
    assert_eq!(error.request_id.as_deref(), Some("req_123"));
    let text = error.to_string();
    assert!(text.contains("You exceeded your current quota."), "{text}");
    assert!(text.contains("req_123"), "{text}");
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
    assert!(sleeps.lock().unwrap().is_empty());
}

#[tokio::test]
async fn x_should_retry_false_wins_over_a_5xx() {
    let server = server_with(
        ResponseTemplate::new(500)
            .insert_header("x-should-retry", "false")
            .set_body_string("oops"),
    )
    .await;
    let (p, _) = provider(&server);
    let error = assemble(&collect(p.stream(request())).await).error.unwrap();
    assert_eq!(error.status, Some(500));
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn mid_stream_error_chunk_is_an_error() {
    let chunks = [
        r#"{"choices":[{"index":0,"delta":{"content":"par"}}]}"#,
        r#"{"error":{"message":"server exploded","type":"server_error"}}"#,
    ];
    let server = server_with(sse(data_lines(&chunks))).await;
    let (p, _) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.text, "par");
    let error = out.error.unwrap();
    assert_eq!(error.kind, LlmErrorKind::Stream);
    assert!(error.to_string().contains("server exploded"));
}
