use serde_json::json;

use super::*;

fn log() -> WireLog {
    WireLog::new(3)
}

#[test]
fn a_response_is_matched_to_its_request_by_peer_side_and_id() {
    let log = log();
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    log.record("a", Side::Upstream, Direction::Sent, &request, None);
    // The same id from another peer is another request.
    log.record(
        "b",
        Side::Upstream,
        Direction::Received,
        &json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
        None,
    );
    log.record(
        "a",
        Side::Upstream,
        Direction::Received,
        &json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": []}}),
        None,
    );
    let entries = log.entries();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0].kind, Kind::Request);
    assert_eq!(entries[0].id.as_deref(), Some("7"));
    assert_eq!(entries[1].method, None, "b never asked");
    assert_eq!(entries[1].rtt, None);
    assert_eq!(entries[2].kind, Kind::Response);
    assert_eq!(entries[2].method.as_deref(), Some("tools/list"));
    assert!(entries[2].rtt.is_some());
    assert_eq!(entries.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
}

#[test]
fn downstream_requests_are_received_and_answered() {
    let log = log();
    let request =
        json!({"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "t"}});
    log.record(
        "client",
        Side::Downstream,
        Direction::Received,
        &request,
        None,
    );
    let error = json!({"jsonrpc": "2.0", "id": "x", "error": {"code": -32602, "message": "no"}});
    log.record("client", Side::Downstream, Direction::Sent, &error, None);
    let entries = log.entries();
    assert_eq!(entries[0].id.as_deref(), Some("\"x\""));
    assert_eq!(entries[1].kind, Kind::Error);
    assert!(entries[1].is_error());
    assert_eq!(entries[1].method.as_deref(), Some("tools/call"));
    assert!(entries[1].rtt.is_some());
}

#[test]
fn each_peer_keeps_its_last_messages_only() {
    let log = log();
    for n in 0..5 {
        log.record(
            "a",
            Side::Upstream,
            Direction::Sent,
            &json!({"jsonrpc": "2.0", "method": "n", "params": {"n": n}}),
            None,
        );
    }
    log.record(
        "b",
        Side::Upstream,
        Direction::Sent,
        &json!({"jsonrpc": "2.0", "method": "m"}),
        None,
    );
    let entries = log.entries();
    assert_eq!(entries.len(), 4, "three of a, one of b");
    assert_eq!(entries[0].message["params"]["n"], 2);
    assert_eq!(log.recorded(), 6);
    assert_eq!(
        log.peers().iter().map(|p| &**p).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(log.entries_after(5).len(), 1);
}

#[test]
fn secrets_are_masked_when_captured() {
    let log = log();
    let message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "fetch", "arguments": {
            "url": "https://bob:hunter2@example.com/x?access_token=s3cret&page=2",
            "api_key": "sk-123", "code": "print(1)", "progressToken": "p1", "maxTokens": 5
        }}
    });
    let http = HttpFacts {
        status: Some(200),
        headers: vec![
            ("authorization".into(), "Bearer abc.def".into()),
            ("x-api-key".into(), "k".into()),
            ("mcp-method".into(), "tools/call".into()),
        ],
    };
    log.record("a", Side::Upstream, Direction::Sent, &message, Some(http));
    let entry = &log.entries()[0];
    let text = to_jsonl(entry);
    for secret in ["hunter2", "s3cret", "sk-123", "abc.def"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    let args = &entry.message["params"]["arguments"];
    assert_eq!(
        args["url"],
        "https://bob:***@example.com/x?access_token=***&page=2"
    );
    assert_eq!(args["code"], "print(1)", "code to run is not a secret");
    assert_eq!(args["progressToken"], "p1");
    assert_eq!(args["maxTokens"], 5);
    let headers = &entry
        .http
        .as_ref()
        .map(|h| h.headers.clone())
        .unwrap_or_default();
    assert_eq!(headers[0].1, "Bearer ***");
    assert_eq!(headers[1].1, "***");
    assert_eq!(headers[2].1, "tools/call");
    assert_eq!(entry.bytes, serde_json::to_vec(&message).unwrap().len());
}

#[test]
fn an_oauth_code_in_a_url_is_masked() {
    assert_eq!(
        mask::url("http://127.0.0.1:1/cb?code=abc&state=xyz"),
        "http://127.0.0.1:1/cb?code=***&state=xyz"
    );
    assert_eq!(mask::url("not a url"), "not a url");
    assert_eq!(mask::url("https://h/p#frag"), "https://h/p#frag");
}

#[test]
fn the_trace_file_has_one_valid_line_per_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let log = WireLog::new(10).with_trace(&path).unwrap();
    log.record(
        "a",
        Side::Upstream,
        Direction::Sent,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        None,
    );
    log.record(
        "a",
        Side::Upstream,
        Direction::Received,
        &json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        None,
    );
    log.record(
        "a",
        Side::Upstream,
        Direction::Received,
        &json!("garbage"),
        None,
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["direction"], "sent");
    assert_eq!(lines[1]["method"], "ping");
    assert!(lines[1]["rtt_ms"].as_f64().is_some());
    assert_eq!(lines[2]["kind"], "other");
    let exported = dir.path().join("export.jsonl");
    assert_eq!(log.export(&exported).unwrap(), 3);
    assert_eq!(std::fs::read_to_string(&exported).unwrap(), text);
}

#[tokio::test]
async fn subscribers_hear_each_record() {
    let log = log();
    let mut rx = log.subscribe();
    log.record(
        "a",
        Side::Upstream,
        Direction::Sent,
        &json!({"jsonrpc": "2.0", "method": "x"}),
        None,
    );
    rx.changed().await.unwrap();
    assert_eq!(*rx.borrow(), 1);
}

#[test]
fn a_server_that_predates_discover_is_not_an_error_row() {
    let log = log();
    let probe = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"});
    log.record("old", Side::Upstream, Direction::Sent, &probe, None);
    let nope = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}});
    log.record("old", Side::Upstream, Direction::Received, &nope, None);
    let entries = log.entries();
    assert!(entries[1].is_discover_fallback());
    assert!(!entries[1].is_error(), "the normal fallback to initialize");
    // Any other failure of the probe still is one.
    let other = super::tests::log();
    other.record("new", Side::Upstream, Direction::Sent, &probe, None);
    let broke = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "boom"}});
    other.record("new", Side::Upstream, Direction::Received, &broke, None);
    assert!(other.entries()[1].is_error());
}
