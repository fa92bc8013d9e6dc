//! The `http` tool against local servers: every refusal names its rule and sends
//! nothing; redirects are re-checked hop by hop; responses are capped.
#![allow(clippy::unwrap_used)]

use serde_json::json;
use switchboard::config::HttpToolConfig;
use switchboard::gate::Preview;
use switchboard::tools::Tool;
use switchboard::tools::builtin::HttpTool;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::builtin::{args, assert_refused, bench};

const LOCAL: &str = "[tools.http]\nallow_hosts = [\"127.0.0.1\"]\nallow_http = true\n";

async fn server() -> MockServer {
    MockServer::start().await
}

async fn hits(server: &MockServer) -> usize {
    server.received_requests().await.unwrap_or_default().len()
}

#[tokio::test]
async fn nothing_is_allowed_by_default() {
    let b = bench("").await;
    let r = b.call("http", json!({"url": "https://example.com/"})).await;
    assert_refused(
        &r,
        "no hosts are allowed yet; add `allow_hosts = [\"example.com\"]`",
    );
}

#[tokio::test]
async fn a_host_off_the_allowlist_is_refused_before_sending() {
    let s = server().await;
    let b = bench(LOCAL).await;
    let url = format!("http://localhost:{}/x", s.address().port());
    let r = b.call("http", json!({"url": url})).await;
    assert_refused(&r, "host `localhost` is not on [tools.http] allow_hosts");
    assert_eq!(hits(&s).await, 0);
}

#[tokio::test]
async fn plain_http_is_refused_when_https_is_required() {
    let s = server().await;
    let b = bench("[tools.http]\nallow_hosts = [\"127.0.0.1\"]\n").await;
    let r = b
        .call("http", json!({"url": format!("{}/x", s.uri())}))
        .await;
    assert_refused(
        &r,
        "http:// URLs are not allowed ([tools.http] allow_http = false)",
    );
    let r = b.call("http", json!({"url": "file:///etc/passwd"})).await;
    assert_refused(&r, "scheme `file` is not allowed");
    let r = b
        .call(
            "http",
            json!({"url": format!("https://user:pw@127.0.0.1:{}/", s.address().port())}),
        )
        .await;
    assert_refused(&r, "user names or passwords");
    assert_eq!(hits(&s).await, 0);
}

#[tokio::test]
async fn get_works_and_only_allow_listed_headers_are_sent() {
    let s = server().await;
    Mock::given(method("GET"))
        .and(path("/hello"))
        .and(header("accept", "text/plain"))
        .respond_with(ResponseTemplate::new(200).set_body_string("hi there"))
        .mount(&s)
        .await;
    let b = bench(LOCAL).await;
    let url = format!("{}/hello", s.uri());
    let r = b
        .call(
            "http",
            json!({"url": url, "headers": {"Accept": "text/plain"}}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text_content());
    assert!(r.text_content().starts_with("HTTP 200 OK\n"));
    assert!(r.text_content().ends_with("\n\nhi there"));
    let r = b
        .call(
            "http",
            json!({"url": url, "headers": {"Authorization": "Bearer x"}}),
        )
        .await;
    assert_refused(
        &r,
        "header `Authorization` is not on [tools.http] allow_headers",
    );
    assert_eq!(hits(&s).await, 1);
}

#[tokio::test]
async fn methods_and_request_bodies_are_checked_before_sending() {
    let s = server().await;
    let b = bench(LOCAL).await;
    let url = format!("{}/x", s.uri());
    let r = b
        .call("http", json!({"url": url, "method": "POST", "body": "x"}))
        .await;
    assert_refused(
        &r,
        "method POST is not on [tools.http] allow_methods (allowed: GET)",
    );
    let b = bench(&format!(
        "{LOCAL}allow_methods = [\"POST\"]\nmax_request_bytes = 10\n"
    ))
    .await;
    let r = b
        .call(
            "http",
            json!({"url": url, "method": "post", "body": "x".repeat(11)}),
        )
        .await;
    assert_refused(&r, "more than [tools.http] max_request_bytes (10)");
    assert_eq!(hits(&s).await, 0);
}

#[tokio::test]
async fn a_redirect_to_a_disallowed_host_is_refused_at_that_hop() {
    let allowed = server().await;
    let elsewhere = server().await;
    let target = format!("http://localhost:{}/steal", elsewhere.address().port());
    Mock::given(path("/go"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", target.as_str()))
        .mount(&allowed)
        .await;
    let b = bench(&format!("{LOCAL}follow_redirects = true\n")).await;
    let r = b
        .call("http", json!({"url": format!("{}/go", allowed.uri())}))
        .await;
    assert_refused(
        &r,
        &format!(
            "refused: redirected to {target}: refused: host `localhost` is not on [tools.http] allow_hosts"
        ),
    );
    assert_eq!(hits(&allowed).await, 1);
    assert_eq!(hits(&elsewhere).await, 0, "nothing reached the other host");
}

#[tokio::test]
async fn allowed_hops_are_followed_and_redirects_are_off_by_default() {
    let s = server().await;
    Mock::given(path("/go"))
        .respond_with(
            ResponseTemplate::new(302)
                .insert_header("location", format!("{}/final", s.uri()).as_str()),
        )
        .mount(&s)
        .await;
    Mock::given(path("/final"))
        .respond_with(ResponseTemplate::new(200).set_body_string("arrived"))
        .mount(&s)
        .await;
    let b = bench(&format!("{LOCAL}follow_redirects = true\n")).await;
    let r = b
        .call("http", json!({"url": format!("{}/go", s.uri())}))
        .await;
    assert!(
        r.text_content().ends_with("arrived"),
        "{}",
        r.text_content()
    );
    let b = bench(LOCAL).await;
    let r = b
        .call("http", json!({"url": format!("{}/go", s.uri())}))
        .await;
    assert!(r.text_content().starts_with("HTTP 302 Found\n"));
    assert!(
        r.text_content()
            .contains("[redirect not followed: [tools.http] follow_redirects = false]")
    );
    assert_eq!(hits(&s).await, 3);
}

#[tokio::test]
async fn oversized_responses_stop_at_the_cap() {
    let s = server().await;
    Mock::given(path("/big"))
        .respond_with(ResponseTemplate::new(200).set_body_string("y".repeat(100_000)))
        .mount(&s)
        .await;
    let b = bench(&format!("{LOCAL}max_response_bytes = 1000\n")).await;
    let r = b
        .call("http", json!({"url": format!("{}/big", s.uri())}))
        .await;
    let text = r.text_content();
    assert!(text.contains(&format!("\n\n{}\n[response truncated", "y".repeat(1000))));
    assert!(text.ends_with("stopped reading at 1000 bytes ([tools.http] max_response_bytes)]"));
    assert_eq!(r.structured.unwrap()["bytes"], 1000);
}

#[test]
fn the_preview_is_method_and_url() {
    let tool = HttpTool::new(HttpToolConfig::default()).unwrap();
    let a = args(json!({"url": "https://api.example.com/x", "method": "post"}));
    assert_eq!(
        tool.preview(&a),
        Some(Preview::Url {
            method: "POST".into(),
            url: "https://api.example.com/x".into()
        })
    );
}
