//! The wire capture from the outside: `--trace FILE` on the real binary against the
//! test server, over stdio and Streamable HTTP (with a bearer token that must never
//! reach the file), and through `serve --stdio` and `serve --http`.
#![allow(clippy::unwrap_used)]

use crate::support;

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

use crate::support::mcp::{HttpServer, SERVER_BIN};
use crate::support::trust_folder;

fn env(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    trust_folder(dir.path(), &dir.path().join(".local/state"));
    dir
}

fn switchboard(dir: &tempfile::TempDir) -> Command {
    let mut command = Command::cargo_bin("switchboard").unwrap();
    command
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .timeout(std::time::Duration::from_secs(120));
    command
}

/// Every line of the trace, each parsed as JSON (a line that is not fails the test).
fn trace_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "the trace ends mid-line: {text}");
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

fn str_of<'a>(line: &'a Value, key: &str) -> &'a str {
    line[key].as_str().unwrap_or("")
}

/// The handshake, then each list request answered before the next is sent: every
/// response right after its request, with the request's method, id and a round trip.
fn assert_catalog_conversation(lines: &[Value], peer: &str) {
    let ours: Vec<&Value> = lines.iter().filter(|l| str_of(l, "peer") == peer).collect();
    assert!(ours.iter().all(|l| l["side"] == "server"), "{ours:?}");
    let first = ours.first().unwrap();
    assert_eq!(
        (str_of(first, "direction"), str_of(first, "kind")),
        ("sent", "request")
    );
    assert!(
        matches!(str_of(first, "method"), "initialize" | "server/discover"),
        "{first}"
    );
    let seqs: Vec<u64> = ours.iter().map(|l| l["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let mut methods = Vec::new();
    for (i, line) in ours.iter().enumerate() {
        if str_of(line, "kind") != "response" {
            continue;
        }
        let request = ours[..i]
            .iter()
            .rev()
            .find(|l| str_of(l, "kind") == "request" && l["id"] == line["id"])
            .unwrap_or_else(|| panic!("no request before {line}"));
        assert_eq!(str_of(line, "direction"), "received", "{line}");
        assert_eq!(line["method"], request["method"], "{line}");
        assert_eq!(line["message"]["id"], request["message"]["id"]);
        let rtt = line["rtt_ms"].as_f64().unwrap_or(-1.0);
        assert!(rtt >= 0.0, "no round-trip time: {line}");
        methods.push(str_of(line, "method").to_owned());
    }
    let position = |m: &str| methods.iter().position(|x| x == m);
    let handshake = position("initialize")
        .or_else(|| position("server/discover"))
        .unwrap();
    let lists: Vec<usize> = [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ]
    .iter()
    .map(|m| position(m).unwrap_or_else(|| panic!("no {m} answer in {methods:?}")))
    .collect();
    assert!(lists.iter().all(|&p| p > handshake), "{methods:?}");
}

#[test]
fn catalog_trace_holds_the_handshake_and_every_list_in_order() {
    let dir = env(&format!("[servers.t]\ncommand = {SERVER_BIN:?}\n"));
    let trace = dir.path().join("trace.jsonl");
    switchboard(&dir)
        .args(["catalog", "--trace"])
        .arg(&trace)
        .assert()
        .code(0);
    let lines = trace_lines(&trace);
    assert_catalog_conversation(&lines, "t");
    // stdio has no HTTP facts; every line says how big its message was.
    assert!(lines.iter().all(|l| l.get("http").is_none()));
    assert!(lines.iter().all(|l| l["bytes"].as_u64().unwrap() > 0));
}

#[test]
fn http_trace_has_headers_and_status_but_never_the_token() {
    let server = HttpServer::start("http");
    let token = "wire-test-token-8c1f3b";
    let dir = env(&format!(
        "[servers.h]\nurl = {:?}\nbearer_token_env_var = \"WIRE_TEST_TOKEN\"\n",
        server.url
    ));
    let trace = dir.path().join("trace.jsonl");
    switchboard(&dir)
        .env("WIRE_TEST_TOKEN", token)
        .args(["catalog", "--trace"])
        .arg(&trace)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(!text.contains(token), "the token reached the trace");
    let lines = trace_lines(&trace);
    assert_catalog_conversation(&lines, "h");
    for line in &lines {
        let http = &line["http"];
        assert!(http.is_object(), "no HTTP facts: {line}");
        if line["direction"] == "sent" {
            assert_eq!(http["headers"]["authorization"], "Bearer ***", "{line}");
            assert!(
                http["headers"]["mcp-protocol-version"].is_string(),
                "{line}"
            );
        } else {
            assert_eq!(http["status"], 200, "{line}");
        }
    }
}

#[test]
fn legacy_sse_trace_holds_the_initialize_handshake_and_the_lists() {
    let server = HttpServer::start("sse");
    let dir = env(&format!(
        "[servers.old]\nurl = {:?}\ntype = \"sse\"\n",
        server.url
    ));
    let trace = dir.path().join("trace.jsonl");
    switchboard(&dir)
        .args(["catalog", "--trace"])
        .arg(&trace)
        .assert()
        .code(0);
    let lines = trace_lines(&trace);
    assert_catalog_conversation(&lines, "old");
    assert_eq!(lines[0]["method"], "initialize", "{}", lines[0]);
    // The client's `notifications/initialized` follows the handshake.
    assert!(
        lines
            .iter()
            .any(|l| l["kind"] == "notification" && l["method"] == "notifications/initialized"),
        "{lines:?}"
    );
}

#[test]
fn call_trace_holds_the_tool_call_and_its_result() {
    let dir = env(&format!("[servers.t]\ncommand = {SERVER_BIN:?}\n"));
    let trace = dir.path().join("call.jsonl");
    switchboard(&dir)
        .args(["call", "t", "echo", "-a", "text=traced", "--trace"])
        .arg(&trace)
        .assert()
        .code(0);
    let lines = trace_lines(&trace);
    let call = lines
        .iter()
        .find(|l| l["kind"] == "request" && l["method"] == "tools/call")
        .unwrap_or_else(|| panic!("no tools/call in {lines:?}"));
    assert_eq!(call["message"]["params"]["arguments"]["text"], "traced");
    let result = lines
        .iter()
        .find(|l| l["kind"] == "response" && l["id"] == call["id"])
        .unwrap();
    assert_eq!(result["method"], "tools/call");
    assert!(result["seq"].as_u64() > call["seq"].as_u64());
    assert!(result["message"]["result"].to_string().contains("traced"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_post_is_traced_with_its_status_and_still_no_token() {
    use wiremock::matchers::method;
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let mock = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).insert_header("WWW-Authenticate", "Bearer"))
        .mount(&mock)
        .await;
    let token = "refused-wire-token-77aa";
    let dir = env(&format!(
        "[servers.h]\nurl = \"{}/mcp\"\nbearer_token_env_var = \"WIRE_TEST_TOKEN\"\n",
        mock.uri()
    ));
    let trace = dir.path().join("refused.jsonl");
    let mut command = switchboard(&dir);
    command
        .env("WIRE_TEST_TOKEN", token)
        .args(["catalog", "--trace"])
        .arg(&trace);
    tokio::task::spawn_blocking(move || command.assert())
        .await
        .unwrap();
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(!text.contains(token), "the token reached the trace");
    let lines = trace_lines(&trace);
    let refused = lines
        .iter()
        .find(|l| l["http"]["status"] == 401)
        .unwrap_or_else(|| panic!("no 401 in {lines:?}"));
    assert_eq!(refused["direction"], "received", "{refused}");
    assert_eq!(refused["kind"], "other", "{refused}");
    assert!(
        str_of(refused, "message").starts_with("HTTP 401"),
        "{refused}"
    );
    let sent = lines.iter().find(|l| l["direction"] == "sent").unwrap();
    assert!(sent["seq"].as_u64() < refused["seq"].as_u64());
}

#[test]
fn a_trace_file_that_cannot_be_created_is_an_error_naming_it() {
    let dir = env(&format!("[servers.t]\ncommand = {SERVER_BIN:?}\n"));
    let trace = dir.path().join("no-such-dir").join("trace.jsonl");
    let out = switchboard(&dir)
        .args(["catalog", "--trace"])
        .arg(&trace)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("cannot write the trace file") && stderr.contains("no-such-dir"),
        "{stderr}"
    );
}

#[test]
fn wire_capacity_must_keep_at_least_one_message() {
    let dir = env(&format!(
        "[mcp]\nwire_capacity = 0\n\n[servers.t]\ncommand = {SERVER_BIN:?}\n"
    ));
    let out = switchboard(&dir)
        .args(["catalog"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("mcp.wire_capacity"), "{stderr}");
}

/// The lines of one peer on one side (`server` or `serve_client`).
fn of<'a>(lines: &'a [Value], side: &str, peer: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| l["side"] == side && l["peer"] == peer)
        .collect()
}

/// The `seq` of the first line of `lines` that is `kind` of `method`.
fn seq_of(lines: &[&Value], direction: &str, kind: &str, method: &str) -> u64 {
    lines
        .iter()
        .find(|l| l["direction"] == direction && l["kind"] == kind && l["method"] == method)
        .unwrap_or_else(|| panic!("no {direction} {kind} {method} in {lines:?}"))["seq"]
        .as_u64()
        .unwrap()
}

/// A client's `tools/call` of `t__echo` passes the gate and becomes the server's
/// `tools/call` of `echo`: the four messages, in that order, on both sides.
fn assert_call_through(lines: &[Value], client: &str) {
    let down = of(lines, "serve_client", client);
    let up = of(lines, "server", "t");
    assert!(!down.is_empty() && !up.is_empty(), "{lines:?}");
    let first = down.first().unwrap();
    assert_eq!(first["direction"], "received", "{first}");
    assert!(
        matches!(str_of(first, "method"), "initialize" | "server/discover"),
        "{first}"
    );
    let asked = seq_of(&down, "received", "request", "tools/call");
    // The server's side: the first call forwarded after the client asked, and its answer.
    let later: Vec<&Value> = up
        .iter()
        .copied()
        .filter(|l| l["seq"].as_u64().unwrap() > asked)
        .collect();
    let forwarded = seq_of(&later, "sent", "request", "tools/call");
    let id = &later.iter().find(|l| l["seq"] == forwarded).unwrap()["id"];
    let answered = later
        .iter()
        .find(|l| l["kind"] == "response" && &l["id"] == id)
        .unwrap()["seq"]
        .as_u64()
        .unwrap();
    let replied = seq_of(&down, "sent", "response", "tools/call");
    assert!(
        asked < forwarded && forwarded < answered && answered < replied,
        "{asked} {forwarded} {answered} {replied}"
    );
    let reply = down.iter().find(|l| l["seq"] == replied).unwrap();
    assert!(reply["rtt_ms"].as_f64().is_some(), "{reply}");
    assert!(reply["message"].to_string().contains("through the wire"));
    let sent = up.iter().find(|l| l["seq"] == forwarded).unwrap();
    assert_eq!(sent["message"]["params"]["name"], "echo", "{sent}");
}

#[tokio::test]
async fn serve_stdio_trace_has_the_client_and_the_server_side_of_a_call() {
    use rmcp::ServiceExt;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    let env = support::serve::Env::new("");
    let trace = env.path().join("serve.jsonl");
    let path = trace.display().to_string();
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(support::serve::SWITCHBOARD)
            .configure(|c| env.configure(c, &["serve", "--stdio", "--trace", &path])),
    )
    .unwrap();
    let client = support::serve::client_config("wire-client")
        .serve(transport)
        .await
        .unwrap();
    let result = support::serve::call(
        &client,
        "t__echo",
        serde_json::json!({"text": "through the wire"}),
    )
    .await;
    assert!(!support::serve::is_error(&result), "{result:?}");
    let _ = client.cancel().await;
    assert_call_through(&trace_lines(&trace), "wire-client");
}

#[tokio::test]
async fn serve_http_trace_names_each_client_with_status_and_masked_headers() {
    use tokio::io::AsyncBufReadExt;
    let env = support::serve::Env::new("[serve]\ntoken_env = \"WIRE_SERVE_TOKEN\"\n");
    let token = "serve-wire-token-51d0e7";
    let trace = env.path().join("serve-http.jsonl");
    let path = trace.display().to_string();
    let mut cmd = env.command(&["serve", "--http", "127.0.0.1:0", "--trace", &path]);
    cmd.env("WIRE_SERVE_TOKEN", token)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().unwrap();
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(std::time::Duration::from_secs(60), stderr.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    // A 2025-11-25 session (named once, at initialize) and a 2026-07-28 client (named
    // in every request's `_meta`).
    let session = authed_client(&url, token, "session-client", false).await;
    let stateless = authed_client(&url, token, "stateless-client", true).await;
    for client in [&session, &stateless] {
        let echo = serde_json::json!({"text": "through the wire"});
        let result = support::serve::call(client, "t__echo", echo).await;
        assert!(!support::serve::is_error(&result), "{result:?}");
    }
    let _ = session.cancel().await;
    let _ = stateless.cancel().await;
    let _ = child.kill().await;
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(!text.contains(token), "the serve token reached the trace");
    let lines = trace_lines(&trace);
    for name in ["session-client", "stateless-client"] {
        assert_call_through(&lines, name);
        for line in of(&lines, "serve_client", name) {
            let http = &line["http"];
            if line["direction"] == "received" {
                assert_eq!(http["headers"]["authorization"], "Bearer ***", "{line}");
            } else {
                assert_eq!(http["status"], 200, "{line}");
            }
        }
    }
}

/// An rmcp client of `serve --http` sending `token`: a 2025-11-25 session, or
/// 2026-07-28 requests without one (`modern`).
async fn authed_client(url: &str, token: &str, name: &str, modern: bool) -> support::serve::Client {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
    switchboard::tls::install_crypto_provider();
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = support::serve::client_config(name);
    if modern {
        let mode = ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        };
        client.serve_with_lifecycle(transport, mode).await.unwrap()
    } else {
        client.serve(transport).await.unwrap()
    }
}
