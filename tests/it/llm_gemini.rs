//! Gemini streams served by wiremock: text then a whole functionCall with a
//! thoughtSignature, truncation, and RetryInfo delays.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::json;
use switchboard::llm::{
    ChatRequest, FinishReason, GeminiProvider, LlmErrorKind, Message, Provider, Usage,
};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::llm::{Sleeps, assemble, collect, data_lines, endpoint};

const TEXT: &str = r#"{"candidates":[{"content":{"parts":[{"text":"Checking the folder."}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":4,"totalTokenCount":14},"modelVersion":"gemini-x"}"#;
const CALL: &str = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"fs","args":{"operation":"list","path":"."}},"thoughtSignature":"c2lnLTE="}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":9,"totalTokenCount":19}}"#;

fn sse(chunks: &[&str]) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .set_body_string(data_lines(chunks))
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![Message::user("list")],
        ..ChatRequest::default()
    }
}

async fn server_with(template: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1beta/models/test-model:streamGenerateContent"))
        .and(query_param("alt", "sse"))
        .and(header("x-goog-api-key", "sk-test"))
        .respond_with(template)
        .mount(&server)
        .await;
    server
}

fn provider(server: &MockServer) -> (GeminiProvider, Sleeps) {
    let (e, sleeps) = endpoint(&server.uri());
    (GeminiProvider::new(e), sleeps)
}

#[tokio::test]
async fn text_then_whole_function_call_with_thought_signature() {
    let server = server_with(sse(&[TEXT, CALL])).await;
    let (p, _) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.error, None);
    assert_eq!(out.text, "Checking the folder.");
    assert_eq!(out.calls.len(), 1);
    assert_eq!(out.calls[0].name, "fs");
    assert_eq!(
        out.calls[0].arguments,
        json!({"operation": "list", "path": "."})
    );
    assert_eq!(out.calls[0].signature.as_deref(), Some("c2lnLTE="));
    assert!(!out.calls[0].has_provider_id());
    // finishReason is STOP even after a call: the call decides.
    assert_eq!(out.finish, Some(FinishReason::ToolCalls));
    assert_eq!(out.usage, Some(Usage::new(10, 9)));
}

#[tokio::test]
async fn stream_without_finish_reason_is_truncated() {
    let server = server_with(sse(&[TEXT])).await;
    let (p, _) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.text, "Checking the folder.");
    assert_eq!(out.error.unwrap().kind, LlmErrorKind::Truncated);
}

#[tokio::test]
async fn retry_info_delay_from_the_body_is_obeyed() {
    let server = MockServer::start().await;
    let body = r#"{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}"#;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_string(body))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(sse(&[TEXT, CALL]))
        .mount(&server)
        .await;
    let (p, sleeps) = provider(&server);
    let out = assemble(&collect(p.stream(request())).await);
    assert_eq!(out.error, None);
    assert_eq!(*sleeps.lock().unwrap(), [Duration::from_secs(2)]);
}

#[tokio::test]
async fn bad_request_is_not_retried() {
    let body =
        r#"{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}"#;
    let server = server_with(ResponseTemplate::new(400).set_body_string(body)).await;
    let (p, _) = provider(&server);
    let error = assemble(&collect(p.stream(request())).await).error.unwrap();
    assert_eq!(error.status, Some(400));
    assert!(error.to_string().contains("API key not valid."));
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}
