//! `switchboard serve --http ADDR`: rmcp clients of both generations list and call
//! through the gate, two clients at once, DNS-rebinding protection (wrong Host or
//! Origin: 403), the bearer token a non-loopback bind requires (401), and a client
//! that leaves mid-call (with or without a session) has the call cancelled upstream,
//! and a body over the cap gets 413 with the JSON-RPC error stdio gives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use crate::support::serve::{
    Env, HttpGateway, call, http_client, http_client_2026, http_client_2026_with_token,
    http_client_with_token, is_error, raw_post, text,
};
use serde_json::json;

#[tokio::test]
async fn both_generations_list_and_call_through_the_gate() {
    let env = Env::new("");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    assert!(
        gateway.url.starts_with("http://127.0.0.1:") && gateway.url.ends_with("/mcp"),
        "{}",
        gateway.url
    );
    let session = http_client(&gateway.url, "old-school").await;
    assert!(
        session
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "t__echo")
    );
    assert!(text(&call(&session, "t__echo", json!({"text": "hi"})).await).contains("hi"));
    let refused = call(&session, "t__write_thing", json!({"id": "1"})).await;
    assert!(
        is_error(&refused) && text(&refused).contains("allow = ["),
        "{refused:?}"
    );

    let modern = http_client_2026(&gateway.url, "modern").await;
    assert_eq!(
        modern.peer_info().unwrap().protocol_version.as_str(),
        "2026-07-28"
    );
    assert!(
        modern
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "t__echo")
    );
    assert!(!is_error(
        &call(&modern, "t__echo", json!({"text": "new"})).await
    ));
    let refused = call(&modern, "t__delete_thing", json!({"id": "1"})).await;
    assert!(is_error(&refused), "{refused:?}");
    session.cancel().await.unwrap();
    modern.cancel().await.unwrap();
}

#[tokio::test]
async fn two_clients_at_once_are_both_served() {
    let env = Env::new("");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let a = http_client(&gateway.url, "a").await;
    let b = http_client(&gateway.url, "b").await;
    let (slow, quick) = tokio::join!(
        call(&a, "t__slow", json!({"millis": 600})),
        call(&b, "t__echo", json!({"text": "meanwhile"}))
    );
    assert!(text(&slow).contains("slept 600 ms"), "{slow:?}");
    assert!(text(&quick).contains("meanwhile"), "{quick:?}");
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
}

#[tokio::test]
async fn a_wrong_host_or_origin_is_forbidden() {
    let env = Env::new("");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let port = gateway.port();
    assert_eq!(raw_post(port, &[]).await, 200);
    assert_eq!(raw_post(port, &[("Host", "evil.example")]).await, 403);
    assert_eq!(
        raw_post(port, &[("Host", &format!("attacker.test:{port}"))]).await,
        403
    );
    assert_eq!(
        raw_post(port, &[("Origin", "http://evil.example")]).await,
        403
    );
    assert_eq!(
        raw_post(port, &[("Origin", "http://localhost:3000")]).await,
        200
    );
}

#[tokio::test]
async fn a_non_loopback_bind_needs_a_token_and_checks_it() {
    let env = Env::new("");
    let out = env
        .command(&["serve", "--http", "0.0.0.0:0"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("token_env") && said.contains("loopback"),
        "{said}"
    );

    let env = Env::new("[serve]\ntoken_env = \"SB_SERVE_TOKEN\"\n");
    let said = token_gate(&env, "SB_SERVE_TOKEN", "s3cret").await;
    assert!(said.contains("SB_SERVE_TOKEN"), "{said}");
}

/// On a non-loopback bind with `var` holding `token`: no token and a wrong one get
/// 401, the right one 200; and with `var` unset the gateway refuses to start (exit 1).
/// Returns what it said then.
async fn token_gate(env: &Env, var: &str, token: &str) -> String {
    let gateway = HttpGateway::start(env, "0.0.0.0:0", &[(var, token)]).await;
    let port = gateway.port();
    assert_eq!(raw_post(port, &[]).await, 401);
    assert_eq!(
        raw_post(port, &[("Authorization", "Bearer wrong")]).await,
        401
    );
    let bearer = format!("Bearer {token}");
    assert_eq!(
        raw_post(port, &[("Authorization", bearer.as_str())]).await,
        200
    );
    // A token variable that is named but not set refuses to start.
    let unset = env
        .command(&["serve", "--http", "127.0.0.1:0"])
        .env_remove(var)
        .output()
        .await
        .unwrap();
    assert_eq!(unset.status.code(), Some(1));
    String::from_utf8_lossy(&unset.stderr).into_owned()
}

const CI: &str = "[policy]\nmode = \"ask\"\n[serve.clients.ci]\nmode = \"full-auto\"\ntoken_env = \"SB_CI_TOKEN\"\n";

#[tokio::test]
async fn only_the_client_token_gives_a_client_its_policy() {
    let env = Env::new(CI);
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[("SB_CI_TOKEN", "ci-s3cret")]).await;
    let write = json!({"id": "1"});
    // Saying `ci` proves nothing: the default policy (ask; headless, refused).
    for token in [None, Some("wrong")] {
        let claims = http_client_with_token(&gateway.url, "ci", token).await;
        let refused = call(&claims, "t__write_thing", write.clone()).await;
        assert!(
            is_error(&refused) && text(&refused).contains("non-interactive"),
            "{token:?}: {refused:?}"
        );
        claims.cancel().await.unwrap();
    }
    // ci's token makes the client ci, whatever it calls itself: full-auto.
    let proven = http_client_with_token(&gateway.url, "anything", Some("ci-s3cret")).await;
    let ran = call(&proven, "t__write_thing", write.clone()).await;
    assert!(!is_error(&ran) && text(&ran) == "written", "{ran:?}");
    proven.cancel().await.unwrap();
    let modern = http_client_2026_with_token(&gateway.url, "x", Some("ci-s3cret")).await;
    let ran = call(&modern, "t__write_thing", write.clone()).await;
    assert!(!is_error(&ran) && text(&ran) == "written", "{ran:?}");
    let claims = http_client_2026(&gateway.url, "ci").await;
    assert!(is_error(&call(&claims, "t__write_thing", write).await));
    modern.cancel().await.unwrap();
    claims.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_token_alone_opens_a_non_loopback_bind_and_must_be_set() {
    let env = Env::new(CI);
    let said = token_gate(&env, "SB_CI_TOKEN", "ci-s3cret").await;
    assert!(
        said.contains("[serve.clients.ci] token_env") && said.contains("SB_CI_TOKEN"),
        "{said}"
    );
}

/// A 2026-07-28 `tools/call` of `t__slow` for a minute, as one raw request.
const SLOW_2026: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t__slow","arguments":{"millis":60000,"progress":false},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;

#[tokio::test]
async fn a_client_gone_mid_call_cancels_the_call_upstream() {
    let env = Env::new("");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "t__slow"),
    ];
    let connection = support::serve::raw_send(gateway.port(), &headers, SLOW_2026).await;
    assert!(support::serve::wait_until_running(&env.cancelled_marker()).await);
    drop(connection);
    assert!(support::serve::wait_for_marker(&env.cancelled_marker()).await);
    // The gateway serves on.
    assert_eq!(raw_post(gateway.port(), &[]).await, 200);
}

/// Reads an HTTP response head from `stream`: the `Mcp-Session-Id` header, if any.
async fn session_id(stream: &mut tokio::net::TcpStream) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).await.unwrap();
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head).lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("mcp-session-id")
            .then(|| v.trim().to_owned())
    })
}

#[tokio::test]
async fn a_session_client_gone_mid_call_cancels_the_call_upstream() {
    let env = Env::new("");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let port = gateway.port();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let mut first = support::serve::raw_send(port, &[], init).await;
    let session = session_id(&mut first).await.expect("a session id");
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    drop(
        support::serve::raw_send(
            port,
            &headers,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )
        .await,
    );
    let slow = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t__slow","arguments":{"millis":60000,"progress":false}}}"#;
    let connection = support::serve::raw_send(port, &headers, slow).await;
    assert!(support::serve::wait_until_running(&env.cancelled_marker()).await);
    drop(connection);
    assert!(support::serve::wait_for_marker(&env.cancelled_marker()).await);
}

/// A raw request and its whole answer (the connection closed after it): the status,
/// the head and the body.
async fn exchange(port: u16, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    use tokio::io::AsyncReadExt;
    let mut headers = headers.to_vec();
    headers.push(("Connection", "close"));
    let mut stream = support::serve::raw_send(port, &headers, body).await;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8(answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

/// A 2026-07-28 `tools/call` of `t__echo` whose body is exactly `len` bytes.
fn echo_of_length(len: usize) -> String {
    let with = |pad: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"t__echo","arguments":{{"text":"{pad}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"raw","version":"1"}},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    let body = with(&"x".repeat(len - with("").len()));
    assert_eq!(body.len(), len);
    body
}

#[tokio::test]
async fn an_oversized_body_gets_413_with_the_json_rpc_error_stdio_gives() {
    let env = Env::new("[serve]\nmax_message_bytes = 2048\n");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let port = gateway.port();
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "t__echo"),
    ];
    // At the cap: served.
    let (status, _, body) = exchange(port, &headers, &echo_of_length(2048)).await;
    assert_eq!(status, 200, "{body}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    // One byte over, and far over: 413 with a JSON-RPC error body.
    for len in [2049, 100_000] {
        let (status, head, body) = exchange(port, &headers, &echo_of_length(len)).await;
        assert_eq!(status, 413, "{len}: {head}\n{body}");
        assert!(
            head.contains("content-type: application/json"),
            "{len}: {head}"
        );
        let error: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            error,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600,
                "message": "message over 2048 bytes ([serve] max_message_bytes)"}}),
            "{len}"
        );
    }
    // The gateway serves on.
    assert_eq!(raw_post(port, &[]).await, 200);
}

/// A 2025-11-25 session's `DELETE` is answered 204 (rmcp says 202, which the python
/// SDK logs as `Session termination failed: 202`), and the session is gone after it.
#[tokio::test]
async fn deleting_a_session_answers_204() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let env = Env::new("");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let port = gateway.port();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let mut first = support::serve::raw_send(port, &[], init).await;
    let session = session_id(&mut first).await.expect("a session id");
    let delete = |session: String| async move {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        let request = format!(
            "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(
            std::time::Duration::from_secs(20),
            stream.read_to_end(&mut answer),
        )
        .await
        .unwrap()
        .unwrap();
        String::from_utf8(answer).unwrap()
    };
    let answer = delete(session.clone()).await;
    assert!(answer.starts_with("HTTP/1.1 204"), "{answer}");
    // Gone: a request in it is refused.
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let (status, _, body) = exchange(
        port,
        &headers,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    )
    .await;
    assert_eq!(status, 404, "{body}");
}

/// A resource nobody serves, or one the upstream server says is not found: -32002
/// with `data.uri`.
#[tokio::test]
async fn a_resource_not_found_carries_its_uri() {
    use rmcp::model::ReadResourceRequestParams;
    let env = Env::new("");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let client = http_client(&gateway.url, "reader").await;
    // Nobody serves the first; the second is routed to `t` (its template
    // `test://tpl1/{id}`), which does not find it.
    for (uri, said) in [
        ("nowhere://x", "no exposed server serves nowhere://x"),
        ("test://tpl1/missing", "no resource test://tpl1/missing"),
    ] {
        let error = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap_err();
        let rmcp::service::ServiceError::McpError(error) = error else {
            panic!("{uri}: {error:?}");
        };
        assert_eq!(error.code.0, -32002, "{uri}: {error:?}");
        assert!(error.message.contains(said), "{uri}: {error:?}");
        assert_eq!(error.data, Some(json!({"uri": uri})), "{uri}");
    }
    client.cancel().await.unwrap();
}

/// `completion/complete` for an exposed prompt (`t__greet`) and a resource template
/// reaches the server that owns it, in both generations; the capability is declared.
#[tokio::test]
async fn completions_are_forwarded_to_the_owning_server() {
    use rmcp::model::{ArgumentInfo, CompleteRequestParams, Reference};
    let env = Env::new("");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let session = http_client(&gateway.url, "old-school").await;
    let modern = http_client_2026(&gateway.url, "modern").await;
    for client in [&session, &modern] {
        let info = client.peer_info().unwrap();
        assert!(info.capabilities.completions.is_some(), "{info:?}");
        let ask = |r: Reference, value: &str| {
            CompleteRequestParams::new(r, ArgumentInfo::new("name", value))
        };
        let prompt = client
            .complete(ask(Reference::for_prompt("t__greet"), "al"))
            .await
            .unwrap();
        assert_eq!(prompt.completion.values, ["alpha"]);
        let template = client
            .complete(ask(Reference::for_resource("test://tpl1/{id}"), "b"))
            .await
            .unwrap();
        assert_eq!(template.completion.values, ["beta"]);
        let unknown = client
            .complete(ask(Reference::for_prompt("nobody__greet"), ""))
            .await;
        assert!(unknown.is_err(), "{unknown:?}");
    }
    session.cancel().await.unwrap();
    modern.cancel().await.unwrap();
}
