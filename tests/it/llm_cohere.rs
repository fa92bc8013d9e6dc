//! Cohere Chat v2 against recorded streams served by wiremock: a tool-call round trip
//! (the result goes back as a `tool` message), a 429 retried after `retry-after`,
//! truncation, and building the provider from a config table.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::{Value, json};
use switchboard::llm::{
    ChatRequest, CohereProvider, FinishReason, LlmErrorKind, Message, Provider, ProviderChoice,
    RetryPolicy, ToolDeclaration, Usage, provider_from_config,
};
use switchboard::settings::parse_str;
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::llm::{assemble, collect, endpoint};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("tests/fixtures/llm/{name}")).unwrap()
}

fn sse(name: &str) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .insert_header("x-request-id", "req_co_1")
        .set_body_string(fixture(name))
}

fn tools() -> Vec<ToolDeclaration> {
    vec![ToolDeclaration {
        name: "fs".into(),
        description: "Files".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    }]
}

async fn mount(server: &MockServer, contains: Option<&str>, template: ResponseTemplate) {
    let mock = Mock::given(method("POST"))
        .and(path("/v2/chat"))
        .and(header("authorization", "Bearer sk-test"));
    match contains {
        Some(text) => mock.and(body_string_contains(text)).respond_with(template),
        None => mock.respond_with(template),
    }
    .mount(server)
    .await;
}

#[tokio::test]
async fn tool_call_round_trip() {
    let server = MockServer::start().await;
    // The follow-up (it carries the tool result) gets the text answer.
    mount(&server, Some("tool_call_id"), sse("cohere_text.sse")).await;
    mount(&server, None, sse("cohere_tool_call.sse")).await;
    let (e, _) = endpoint(&server.uri());
    let provider = CohereProvider::new(e);
    let mut request = ChatRequest {
        messages: vec![Message::system("be brief"), Message::user("what is here?")],
        tools: tools(),
        ..ChatRequest::default()
    };
    let first = assemble(&collect(provider.stream(request.clone())).await);
    assert_eq!(first.error, None);
    assert_eq!(first.finish, Some(FinishReason::ToolCalls));
    assert_eq!(first.usage, Some(Usage::new(902, 58)));
    assert_eq!(first.calls.len(), 1);
    assert_eq!(first.calls[0].id, "fs_q5mtv3m0bgw7");
    assert_eq!(first.calls[0].name, "fs");
    assert_eq!(
        first.calls[0].arguments,
        json!({"operation": "list", "path": "."})
    );

    request
        .messages
        .push(Message::assistant("", first.calls.clone()));
    request.messages.push(Message::tool(
        "fs_q5mtv3m0bgw7",
        "fs",
        "a.txt\nb.txt",
        false,
    ));
    let second = assemble(&collect(provider.stream(request)).await);
    assert_eq!(second.error, None);
    assert_eq!(second.text, "There are two files.");
    assert_eq!(second.finish, Some(FinishReason::Stop));

    let sent: Vec<Value> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(sent.len(), 2);
    let body = &sent[1];
    assert_eq!(body["stream"], true);
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["tools"][0]["function"]["name"], "fs");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(
        messages[0],
        json!({"role": "system", "content": "be brief"})
    );
    let call = &messages[2]["tool_calls"][0];
    assert_eq!(call["id"], "fs_q5mtv3m0bgw7");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"operation": "list", "path": "."}));
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "fs_q5mtv3m0bgw7", "content": "a.txt\nb.txt"})
    );
}

#[tokio::test]
async fn throttling_is_retried_after_the_servers_delay() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v2/chat"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "2")
                .set_body_json(json!({"id": "e1", "message": "You are using a Trial key, which is limited to 10 API calls / minute."})),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    mount(&server, None, sse("cohere_text.sse")).await;
    let (e, sleeps) = endpoint(&server.uri());
    let out = assemble(
        &collect(CohereProvider::new(e).stream(ChatRequest {
            messages: vec![Message::user("hi")],
            ..ChatRequest::default()
        }))
        .await,
    );
    assert_eq!(out.error, None);
    assert_eq!(out.text, "There are two files.");
    assert_eq!(*sleeps.lock().unwrap(), vec![Duration::from_secs(2)]);
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn persistent_throttling_reports_the_providers_message() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("x-request-id", "req_429")
                .set_body_json(json!({"message": "too many requests"})),
        )
        .mount(&server)
        .await;
    let (e, sleeps) = endpoint(&server.uri());
    let out = assemble(&collect(CohereProvider::new(e).stream(ChatRequest::default())).await);
    let error = out.error.unwrap();
    assert_eq!(error.kind, LlmErrorKind::Status);
    assert_eq!(error.status, Some(429));
    assert_eq!(error.provider, "cohere");
    assert_eq!(
        error.to_string(),
        "cohere: HTTP 429 too many requests (request id req_429)"
    );
    assert_eq!(sleeps.lock().unwrap().len(), 2, "two retries by default");
}

#[tokio::test]
async fn a_stream_without_message_end_is_truncated() {
    let server = MockServer::start().await;
    mount(&server, None, sse("cohere_truncated.sse")).await;
    let (e, _) = endpoint(&server.uri());
    let out = assemble(&collect(CohereProvider::new(e).stream(ChatRequest::default())).await);
    assert_eq!(out.text, "There are ");
    assert_eq!(out.error.unwrap().kind, LlmErrorKind::Truncated);
}

#[tokio::test]
async fn built_from_config_with_the_host_root_as_base_url() {
    let server = MockServer::start().await;
    mount(&server, None, sse("cohere_text.sse")).await;
    let text = format!(
        "default_provider = \"co\"\n[providers.co]\nkind = \"cohere\"\nbase_url = \"{}/\"\nmodel = \"command-r7b-12-2024\"\n",
        server.uri()
    );
    let config = parse_str(&text, std::path::Path::new("c.toml")).unwrap();
    let env = |k: &str| (k == "COHERE_API_KEY").then(|| "sk-test".to_owned());
    let retry = RetryPolicy::default().with_max_retries(0);
    let (name, provider) =
        provider_from_config(&config, &ProviderChoice::default(), &env, retry).unwrap();
    assert_eq!((name.as_str(), provider.kind()), ("co", "cohere"));
    assert_eq!(provider.model(), "command-r7b-12-2024");
    let out = assemble(&collect(provider.stream(ChatRequest::default())).await);
    assert_eq!(out.text, "There are two files.");
    let missing = provider_from_config(
        &config,
        &ProviderChoice::default(),
        &|_| None,
        RetryPolicy::default(),
    );
    assert!(
        missing
            .err()
            .unwrap()
            .to_string()
            .contains("COHERE_API_KEY")
    );
}
