//! Bedrock ConverseStream against recorded event sequences (encoded as AWS event-stream
//! frames) served by wiremock: a SigV4-signed tool-use round trip whose signature the
//! test recomputes, Bedrock API keys, throttling retried (HTTP 429 and an in-stream
//! `throttlingException`), a mid-stream exception, and the SigV4 `get-vanilla` vector.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_smithy_eventstream::frame::write_message_to;
use aws_smithy_types::event_stream::{Header, HeaderValue, Message as Frame};
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use switchboard::llm::{
    AwsCredentials, BedrockAuth, BedrockProvider, ChatRequest, FinishReason, LlmErrorKind, Message,
    Provider, ProviderChoice, RetryPolicy, SigV4Signer, ToolDeclaration, Usage,
    provider_from_config, sign_request,
};
use switchboard::settings::parse_str;
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::support;
use crate::support::llm::{assemble, collect, endpoint};

const MODEL_PATH: &str = "/model/anthropic.claude-x-v1%3A0/converse-stream";

fn credentials() -> AwsCredentials {
    AwsCredentials {
        access_key_id: "AKIDEXAMPLE".into(),
        secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
        session_token: None,
    }
}

/// A fixture (one `{"event"|"exception": NAME, "payload": {…}}` per line) as frames.
fn frames(name: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(format!("tests/fixtures/llm/{name}")).unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let string = |s: &str| HeaderValue::String(s.to_owned().into());
        let mut frame = Frame::new(v["payload"].to_string().into_bytes())
            .add_header(Header::new(":content-type", string("application/json")));
        frame = match (v["event"].as_str(), v["exception"].as_str()) {
            (Some(event), _) => frame
                .add_header(Header::new(":message-type", string("event")))
                .add_header(Header::new(":event-type", string(event))),
            (None, Some(exception)) => frame
                .add_header(Header::new(":message-type", string("exception")))
                .add_header(Header::new(":exception-type", string(exception))),
            _ => panic!("bad fixture line {line}"),
        };
        write_message_to(&frame, &mut out).unwrap();
    }
    out
}

fn stream_of(name: &str) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "application/vnd.amazon.eventstream")
        .insert_header("x-amzn-requestid", "b0a1-req")
        .set_body_raw(frames(name), "application/vnd.amazon.eventstream")
}

fn signed_provider(server: &MockServer) -> (BedrockProvider, support::llm::Sleeps) {
    let (mut e, sleeps) = endpoint(&server.uri());
    e.model = "anthropic.claude-x-v1:0".into();
    let signer = SigV4Signer {
        credentials: credentials(),
        region: "us-east-1".into(),
        service: "bedrock",
    };
    let auth = BedrockAuth::SigV4(Arc::new(signer));
    (BedrockProvider::new(e, auth), sleeps)
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![Message::system("be brief"), Message::user("what is here?")],
        tools: vec![ToolDeclaration {
            name: "fs".into(),
            description: "Files".into(),
            parameters: json!({"type": "object"}),
        }],
        ..ChatRequest::default()
    }
}

/// Re-signs what the server received at the request's own `x-amz-date` and checks the
/// `Authorization` header matches: the signed bytes are the bytes sent.
fn assert_signature_valid(request: &Request) {
    let header = |n: &str| request.headers.get(n).unwrap().to_str().unwrap().to_owned();
    let date = header("x-amz-date");
    let time = parse_amz_date(&date);
    let mut signed_headers = HeaderMap::new();
    for name in ["content-type", "accept"] {
        signed_headers.insert(name, request.headers.get(name).unwrap().clone());
    }
    // wiremock's URL has `localhost` for the host; the signer saw the real one.
    let url = format!("http://{}{}", header("host"), request.url.path());
    let again = sign_request(
        "POST",
        &url,
        &signed_headers,
        &request.body,
        &credentials(),
        "us-east-1",
        "bedrock",
        time,
    )
    .unwrap();
    let expected = again.iter().find(|h| h.0 == "authorization").unwrap();
    assert_eq!(header("authorization"), expected.1);
    assert!(expected.1.starts_with(&format!(
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/{}/us-east-1/bedrock/aws4_request",
        &date[..8]
    )));
}

/// `20150830T123600Z` → a time.
fn parse_amz_date(date: &str) -> SystemTime {
    let n = |r: std::ops::Range<usize>| date[r].parse::<u64>().unwrap();
    let (y, m, d) = (n(0..4), n(4..6), n(6..8));
    // Days from the civil date (Howard Hinnant's algorithm), for 1970..2100.
    let (y, m) = if m <= 2 { (y - 1, m + 12) } else { (y, m) };
    let days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * (m - 3) + 2) / 5 + d - 719_469;
    let secs = days * 86_400 + n(9..11) * 3600 + n(11..13) * 60 + n(13..15);
    UNIX_EPOCH + Duration::from_secs(secs)
}

#[test]
fn sigv4_matches_the_published_get_vanilla_vector() {
    let time = parse_amz_date("20150830T123600Z");
    let headers = sign_request(
        "GET",
        "https://example.amazonaws.com/",
        &HeaderMap::new(),
        b"",
        &credentials(),
        "us-east-1",
        "service",
        time,
    )
    .unwrap();
    let auth = headers.iter().find(|h| h.0 == "authorization").unwrap();
    assert_eq!(
        auth.1,
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
         SignedHeaders=host;x-amz-date, \
         Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
    );
    let date = headers.iter().find(|h| h.0 == "x-amz-date").unwrap();
    assert_eq!(date.1, "20150830T123600Z");
}

#[tokio::test]
async fn signed_tool_use_round_trip() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(MODEL_PATH))
        .and(body_string_contains("toolResult"))
        .respond_with(stream_of("bedrock_text.jsonl"))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(MODEL_PATH))
        .respond_with(stream_of("bedrock_tool_use.jsonl"))
        .mount(&server)
        .await;
    let (provider, _) = signed_provider(&server);
    let first = assemble(&collect(provider.stream(request())).await);
    assert_eq!(first.error, None);
    assert_eq!(first.text, "Let me look at the files.");
    assert_eq!(first.finish, Some(FinishReason::ToolCalls));
    assert_eq!(first.usage, Some(Usage::new(412, 58)));
    assert_eq!(first.calls.len(), 1);
    assert_eq!(first.calls[0].id, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q");
    assert_eq!(
        first.calls[0].arguments,
        json!({"operation": "list", "path": "."})
    );

    let mut next = request();
    next.messages
        .push(Message::assistant(first.text.clone(), first.calls.clone()));
    next.messages.push(Message::tool(
        "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
        "fs",
        "a.txt\nb.txt",
        false,
    ));
    let second = assemble(&collect(provider.stream(next)).await);
    assert_eq!(second.error, None);
    assert_eq!(second.text, "There are two files.");
    assert_eq!(second.finish, Some(FinishReason::Stop));

    let received = server.received_requests().await.unwrap();
    assert_eq!(received.len(), 2);
    for r in &received {
        assert_signature_valid(r);
    }
    let body: Value = serde_json::from_slice(&received[1].body).unwrap();
    assert_eq!(body["system"], json!([{"text": "be brief"}]));
    assert_eq!(body["toolConfig"]["tools"][0]["toolSpec"]["name"], "fs");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[1]["content"][1]["toolUse"],
        json!({"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "fs",
            "input": {"operation": "list", "path": "."}})
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [{"toolResult": {
            "toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
            "content": [{"text": "a.txt\nb.txt"}], "status": "success"}}]})
    );
}

#[tokio::test]
async fn throttling_status_and_exception_frame_are_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header(
                    "x-amzn-errortype",
                    "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                )
                .set_body_json(
                    json!({"message": "Too many requests, please wait before trying again."}),
                ),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(stream_of("bedrock_throttled.jsonl"))
        .up_to_n_times(1)
        .with_priority(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(stream_of("bedrock_text.jsonl"))
        .with_priority(3)
        .mount(&server)
        .await;
    let (provider, sleeps) = signed_provider(&server);
    let out = assemble(&collect(provider.stream(request())).await);
    assert_eq!(out.error, None);
    assert_eq!(out.text, "There are two files.");
    assert_eq!(
        *sleeps.lock().unwrap(),
        vec![Duration::from_millis(500), Duration::from_secs(1)]
    );
    let received = server.received_requests().await.unwrap();
    assert_eq!(received.len(), 3);
    received.iter().for_each(assert_signature_valid);
}

#[tokio::test]
async fn persistent_throttling_names_the_exception() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header(
                    "x-amzn-errortype",
                    "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                )
                .insert_header("x-amzn-requestid", "9f1c-req")
                .set_body_json(json!({"message": "Too many requests"})),
        )
        .mount(&server)
        .await;
    let (provider, _) = signed_provider(&server);
    let out = assemble(&collect(provider.stream(request())).await);
    assert_eq!(
        out.error.unwrap().to_string(),
        "bedrock: HTTP 429 ThrottlingException: Too many requests (request id 9f1c-req)"
    );
}

#[tokio::test]
async fn an_exception_after_text_ends_the_stream_with_its_message() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(stream_of("bedrock_cut_off.jsonl"))
        .mount(&server)
        .await;
    let (provider, sleeps) = signed_provider(&server);
    let out = assemble(&collect(provider.stream(request())).await);
    assert_eq!(out.text, "Partial");
    let error = out.error.unwrap();
    assert_eq!(error.kind, LlmErrorKind::Stream);
    assert_eq!(error.code.as_deref(), Some("modelStreamErrorException"));
    assert_eq!(error.message, "Model stream error");
    assert!(
        sleeps.lock().unwrap().is_empty(),
        "text was shown: no retry"
    );
}

#[tokio::test]
async fn api_key_from_config_is_sent_as_bearer_without_signing() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/model/amazon.nova-lite-v1%3A0/converse-stream"))
        .respond_with(stream_of("bedrock_text.jsonl"))
        .mount(&server)
        .await;
    let text = format!(
        "[providers.aws]\nkind = \"bedrock\"\nregion = \"eu-west-3\"\nbase_url = \"{}\"\n",
        server.uri()
    );
    let config = parse_str(&text, std::path::Path::new("c.toml")).unwrap();
    let choice = ProviderChoice {
        name: Some("aws".into()),
        model: None,
    };
    let env = |k: &str| (k == "AWS_BEARER_TOKEN_BEDROCK").then(|| "bedrock-api-key-abc".to_owned());
    let (_, provider) =
        provider_from_config(&config, &choice, &env, RetryPolicy::default()).unwrap();
    assert_eq!(
        (provider.kind(), provider.model()),
        ("bedrock", "amazon.nova-lite-v1:0")
    );
    let out = assemble(&collect(provider.stream(request())).await);
    assert_eq!(out.text, "There are two files.");
    let received = server.received_requests().await.unwrap();
    let headers = &received[0].headers;
    assert_eq!(
        headers.get("authorization").unwrap(),
        "Bearer bedrock-api-key-abc"
    );
    assert!(headers.get("x-amz-date").is_none());
}

#[test]
fn config_without_credentials_or_region_says_what_to_set() {
    let text = "[providers.aws]\nkind = \"bedrock\"\n";
    let config = parse_str(text, std::path::Path::new("c.toml")).unwrap();
    let choice = ProviderChoice {
        name: Some("aws".into()),
        model: None,
    };
    let build = |env: &dyn Fn(&str) -> Option<String>| {
        provider_from_config(&config, &choice, env, RetryPolicy::default())
            .err()
            .unwrap()
            .to_string()
    };
    assert!(build(&|_| None).contains("no region"));
    let home = tempfile::tempdir().unwrap();
    let home_path = home.path().to_str().unwrap().to_owned();
    let region_only = move |k: &str| match k {
        "AWS_REGION" => Some("us-west-2".to_owned()),
        "HOME" => Some(home_path.clone()),
        _ => None,
    };
    assert!(build(&region_only).contains("no AWS credentials"));
}

#[test]
fn region_and_profile_are_checked_where_they_are_written() {
    let path = std::path::Path::new("c.toml");
    let misplaced = "[providers.gpt]\nkind = \"openai\"\nregion = \"us-east-1\"\n";
    assert_eq!(
        parse_str(misplaced, path).unwrap_err().to_string(),
        "c.toml:3:10: `providers.gpt.region`: `region` only applies to `kind = \"bedrock\"`"
    );
    let hostile =
        "[providers.aws]\nkind = \"bedrock\"\nprofile = \"work\"\nregion = \"x.evil.example/\"\n";
    let error = parse_str(hostile, path).unwrap_err().to_string();
    assert!(
        error.starts_with(
            "c.toml:4:10: `providers.aws.region`: `x.evil.example/` is not an AWS region name"
        ),
        "{error}"
    );
    let fine =
        "[providers.aws]\nkind = \"bedrock\"\nprofile = \"work\"\nregion = \"eu-central-1\"\n";
    assert!(parse_str(fine, path).is_ok());
}

#[test]
fn a_session_token_is_sent_and_signed() {
    let mut temporary = credentials();
    temporary.session_token = Some("FQoGZXIvYXdzEXAMPLETOKEN".into());
    let headers = sign_request(
        "POST",
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream",
        &HeaderMap::new(),
        b"{}",
        &temporary,
        "us-east-1",
        "bedrock",
        parse_amz_date("20261201T050000Z"),
    )
    .unwrap();
    let get = |name: &str| headers.iter().find(|h| h.0 == name).map(|h| h.1.as_str());
    assert_eq!(
        get("x-amz-security-token"),
        Some("FQoGZXIvYXdzEXAMPLETOKEN")
    );
    let auth = get("authorization").unwrap();
    assert!(
        auth.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,"),
        "{auth}"
    );
}
