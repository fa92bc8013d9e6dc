//! `switchboard serve --stdio` against an rmcp client: lists and calls pass through,
//! every call is gated (a write refused headless, naming the rule), per-client modes
//! and budgets, bad input answered with JSON-RPC errors, a client leaving mid-call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::Duration;

use crate::support::serve::{Env, args, call, is_error, text};
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test]
async fn lists_and_calls_pass_through_the_gateway() {
    let env = Env::new("");
    let client = env.stdio_client("test-client").await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "switchboard");
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"t__echo") && names.contains(&"t__write_thing"),
        "{names:?}"
    );
    // Built-ins need an explicit opt-in.
    assert!(!names.contains(&"fs"), "{names:?}");
    let echo = tools.iter().find(|t| t.name == "t__echo").unwrap();
    let annotations = serde_json::to_value(&echo.annotations).unwrap();
    assert_eq!(annotations["readOnlyHint"], true);
    assert_eq!(annotations["openWorldHint"], false);

    let result = call(&client, "t__echo", json!({"text": "hello"})).await;
    assert!(!is_error(&result), "{result:?}");
    assert!(text(&result).contains("hello"), "{result:?}");
    let add = call(&client, "t__add", json!({"a": 2, "b": 3})).await;
    let sum = &serde_json::to_value(&add).unwrap()["structuredContent"]["sum"];
    assert_eq!(sum.as_f64(), Some(5.0));

    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), 12);
    let uri = resources[0].uri.clone();
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri.clone()))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&read).unwrap()["contents"][0]["uri"],
        uri
    );
    assert_eq!(
        client.list_all_resource_templates().await.unwrap().len(),
        12
    );
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.len(), 12);
    assert!(prompts.iter().all(|p| p.name.starts_with("t__")));
    let name = prompts
        .iter()
        .find(|p| p.arguments.as_ref().is_none_or(Vec::is_empty))
        .map(|p| p.name.clone())
        .unwrap();
    let prompt = client
        .get_prompt(GetPromptRequestParams::new(name))
        .await
        .unwrap();
    assert!(
        !serde_json::to_value(&prompt).unwrap()["messages"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_write_is_refused_headless_with_the_rule_named_and_audited() {
    let env = Env::new("");
    let client = env.stdio_client("desk").await;
    let result = call(&client, "t__write_thing", json!({"id": "x"})).await;
    assert!(is_error(&result), "{result:?}");
    let said = text(&result);
    assert!(
        said.contains("non-interactive") && said.contains("allow = [\"t__write_thing"),
        "{said}"
    );
    // A read runs; the refused write did not reach the server.
    assert!(!is_error(
        &call(&client, "t__echo", json!({"text": "x"})).await
    ));
    client.cancel().await.unwrap();
    let audit = std::fs::read_to_string(find_audit(env.path())).unwrap();
    let line: Value = audit
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["tool"] == "t__write_thing")
        .unwrap();
    assert_eq!(
        (&line["origin"], &line["client"], &line["decision"]),
        (&json!("serve"), &json!("desk"), &json!("deny"))
    );
}

fn find_audit(home: &std::path::Path) -> std::path::PathBuf {
    let mut stack = vec![home.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("audit"))
            {
                return path;
            }
        }
    }
    panic!("no audit log under {}", home.display());
}

#[tokio::test]
async fn a_client_mode_and_budget_apply_to_that_client_only() {
    let env = Env::new(
        "[serve]\nexpose = [\"t\", \"builtin\"]\n[serve.clients.trusted]\nmode = \"full-auto\"\nmax_calls = 2\n",
    );
    let trusted = env
        .stdio_client_with("whatever it says", &["--client", "trusted"])
        .await;
    assert!(!is_error(
        &call(&trusted, "t__write_thing", json!({"id": "1"})).await
    ));
    assert!(!is_error(
        &call(&trusted, "t__echo", json!({"text": "2"})).await
    ));
    let spent = call(&trusted, "t__echo", json!({"text": "3"})).await;
    assert!(
        is_error(&spent) && text(&spent).contains("[serve.clients.trusted] max_calls"),
        "{spent:?}"
    );
    // Built-ins are exposed here, with hints from switchboard's own classification.
    let tools = trusted.list_all_tools().await.unwrap();
    let fs = tools.iter().find(|t| t.name == "fs").expect("fs exposed");
    let hints = serde_json::to_value(&fs.annotations).unwrap();
    assert_eq!(
        (&hints["readOnlyHint"], &hints["destructiveHint"]),
        (&json!(false), &json!(true))
    );
    trusted.cancel().await.unwrap();
    let other = env.stdio_client("other").await;
    assert!(is_error(
        &call(&other, "t__write_thing", json!({"id": "1"})).await
    ));
    other.cancel().await.unwrap();
}

#[tokio::test]
async fn a_declared_name_is_a_label_and_only_client_gives_a_client_its_policy() {
    let env = Env::new("[serve.clients.ci]\nmode = \"full-auto\"\n");
    // Saying `ci` in clientInfo proves nothing: the default policy (ask, so refused).
    let claims = env.stdio_client("ci").await;
    let refused = call(&claims, "t__write_thing", json!({"id": "1"})).await;
    assert!(
        is_error(&refused) && text(&refused).contains("non-interactive"),
        "{refused:?}"
    );
    claims.cancel().await.unwrap();
    // Started as ci by the person: ci's full-auto, whatever the client calls itself.
    let started = env.stdio_client_with("anything", &["--client", "ci"]).await;
    let ran = call(&started, "t__write_thing", json!({"id": "1"})).await;
    assert!(!is_error(&ran) && text(&ran) == "written", "{ran:?}");
    started.cancel().await.unwrap();
    let audit = std::fs::read_to_string(find_audit(env.path())).unwrap();
    let clients: Vec<(Value, Value)> = audit
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["tool"] == "t__write_thing")
        .map(|l| (l["client"].clone(), l["decision"].clone()))
        .collect();
    assert_eq!(
        clients,
        [(json!("ci"), json!("deny")), (json!("ci"), json!("allow"))]
    );

    // A name not in [serve.clients] is a usage error, before anything starts.
    let out = env
        .command(&["serve", "--stdio", "--client", "nope"])
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("--client nope") && said.contains("[serve.clients.nope]"),
        "{said}"
    );
}

#[tokio::test]
async fn unknown_tools_are_protocol_errors_and_serving_goes_on() {
    let env = Env::new("[serve]\nexpose = [\"t\"]\n");
    let client = env.stdio_client("c").await;
    for name in ["nope__nothing", "fs"] {
        let e = client
            .call_tool(CallToolRequestParams::new(name).with_arguments(args(json!({}))))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("unknown tool"), "{e}");
    }
    assert!(!is_error(
        &call(&client, "t__echo", json!({"text": "still here"})).await
    ));
    client.cancel().await.unwrap();
}

/// A raw line client: writes lines, reads answers.
struct Raw {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Raw {
    fn start(env: &Env) -> Self {
        let mut child = env
            .command(&["serve", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            lines,
        }
    }

    async fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The next answer (notifications, such as list changes, are skipped).
    async fn next(&mut self) -> Value {
        serde_json::from_str(&self.next_line().await).unwrap()
    }

    /// The next answer as it was written.
    async fn next_line(&mut self) -> String {
        loop {
            let line = self.any_line().await;
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("method").is_none() || message.get("id").is_some() {
                return line;
            }
        }
    }

    /// The next line, notifications included.
    async fn any_line(&mut self) -> String {
        tokio::time::timeout(Duration::from_secs(60), self.lines.next_line())
            .await
            .expect("an answer")
            .unwrap()
            .expect("a line")
    }

    async fn initialize(&mut self) {
        self.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#).await;
        assert_eq!(self.next().await["id"], 0);
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }
}

#[tokio::test]
async fn garbage_oversized_and_unknown_methods_get_json_rpc_errors() {
    let env = Env::new("[serve]\nmax_message_bytes = 2048\n");
    let mut raw = Raw::start(&env);
    raw.initialize().await;
    raw.send("this is not json").await;
    assert_eq!(raw.next().await["error"]["code"], -32700);
    raw.send(&format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(4000)
    ))
    .await;
    let big = raw.next().await;
    assert_eq!(big["error"]["code"], -32600, "{big}");
    raw.send(r#"{"jsonrpc":"2.0","id":6,"method":"no/such/method","params":{}}"#)
        .await;
    let unknown = raw.next().await;
    assert_eq!(
        (&unknown["id"], &unknown["error"]["code"]),
        (&json!(6), &json!(-32601)),
        "{unknown}"
    );
    raw.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t__echo","arguments":{"text":"ok"}}}"#).await;
    let ok = raw.next().await;
    assert_eq!(ok["id"], 7);
    assert_eq!(ok["result"]["isError"], false, "{ok}");
    drop(raw.stdin);
    let _ = raw.child.wait().await;
}

/// What a client is sent for a result, byte for byte: every content kind, structured
/// content, a tool's error, text that needs escaping and the gate's refusal. A result
/// goes from rmcp's type to ours and back without a trip through JSON; these are the
/// bytes the JSON path wrote.
#[tokio::test]
async fn results_reach_the_client_byte_for_byte() {
    let env = Env::new("");
    let mut raw = Raw::start(&env);
    raw.initialize().await;
    let calls = [
        (
            "t__mixed",
            json!({}),
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello"},{"type":"image","data":"aGVsbG8=","mimeType":"image/png"},{"type":"audio","data":"aGVsbG8=","mimeType":"audio/wav"},{"type":"resource_link","uri":"test://text/1","name":"text-1","mimeType":"text/plain"},{"type":"resource","resource":{"uri":"test://text/2","mimeType":"text/plain","text":"embedded"}}],"isError":false}}"#,
        ),
        (
            "t__add",
            json!({"a": 2, "b": 3}),
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"sum\":5}"}],"structuredContent":{"sum":5.0},"isError":false}}"#,
        ),
        (
            "t__fail",
            json!({}),
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"the tool failed"}],"isError":true}}"#,
        ),
        (
            "t__echo",
            json!({"text": "hé \"q\""}),
            r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"hé \"q\""}],"isError":false}}"#,
        ),
        (
            "t__write_thing",
            json!({"id": "x"}),
            r#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"Denied: needs approval (mode ask: write calls need approval) but this run is non-interactive; to allow without asking add allow = [\"t__write_thing\"] under [policy]."}],"isError":true}}"#,
        ),
    ];
    for (id, (name, arguments, expected)) in (2..).zip(calls) {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        raw.send(&request.to_string()).await;
        assert_eq!(raw.next_line().await, expected, "{name}");
    }
    drop(raw.stdin);
    let _ = raw.child.wait().await;
}

/// The progress a server sends just before its result reaches the client before
/// that result, call after call: the hub returns a result only once the progress
/// received ahead of it is out, and the gateway passes on what is out before it
/// answers.
#[tokio::test]
async fn progress_sent_just_before_a_result_reaches_the_client_before_it() {
    let env = Env::new("");
    let mut raw = Raw::start(&env);
    raw.initialize().await;
    for id in 10..30 {
        let token = format!("p{id}");
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "t__slow", "arguments": {"millis": 50},
                "_meta": {"progressToken": token}}});
        raw.send(&request.to_string()).await;
        let mut progress = 0;
        loop {
            let message: Value = serde_json::from_str(&raw.any_line().await).unwrap();
            if message["method"] == "notifications/progress"
                && message["params"]["progressToken"] == token.as_str()
            {
                progress += 1;
            }
            if message["id"] == id {
                assert_eq!(message["result"]["isError"], false, "{message}");
                break;
            }
        }
        assert_eq!(progress, 1, "call {id}: its one progress before its result");
    }
    drop(raw.stdin);
    let _ = raw.child.wait().await;
}

/// The same result to a 2026-07-28 client carries `resultType: complete` as well.
#[tokio::test]
async fn a_2026_client_gets_the_result_marked_complete() {
    let env = Env::new("");
    let client = env.stdio_client_2026("modern").await;
    let add = call(&client, "t__add", json!({"a": 2, "b": 3})).await;
    assert_eq!(
        serde_json::to_string(&add).unwrap(),
        r#"{"resultType":"complete","content":[{"type":"text","text":"{\"sum\":5}"}],"structuredContent":{"sum":5.0},"isError":false}"#
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_gone_mid_call_cancels_the_call_upstream() {
    let env = Env::new("");
    let mut raw = Raw::start(&env);
    raw.initialize().await;
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t__slow","arguments":{"millis":60000,"progress":false}}}"#).await;
    // Once the call is running upstream, the client goes away.
    assert!(crate::support::serve::wait_until_running(&env.cancelled_marker()).await);
    drop(raw.stdin);
    let status = tokio::time::timeout(Duration::from_secs(60), raw.child.wait())
        .await
        .expect("serve exits when its client leaves")
        .unwrap();
    assert!(status.success(), "{status}");
    assert!(crate::support::serve::wait_for_marker(&env.cancelled_marker()).await);
}

#[tokio::test]
async fn an_upstream_crash_mid_call_is_a_tool_error_and_the_next_call_works() {
    let env = Env::new("[policy]\nallow = [\"t__plain\"]\n");
    let client = env.stdio_client("c").await;
    let crashed = call(&client, "t__plain", json!({"exit": true})).await;
    assert!(is_error(&crashed), "{crashed:?}");
    assert!(text(&crashed).contains("mcp_call_failed"), "{crashed:?}");
    // The server reconnects as usual; the next call, made at once, waits for that
    // and reaches the new process (no retry by the client).
    let after = call(&client, "t__plain", json!({})).await;
    assert!(!is_error(&after), "{after:?}");
    assert!(text(&after).contains("plain ok"), "{after:?}");
    let echo = call(&client, "t__echo", json!({"text": "back"})).await;
    assert!(text(&echo).contains("back"), "{echo:?}");
    assert!(client.list_all_tools().await.is_ok());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_2026_client_without_a_session_is_served_and_gated() {
    let env = Env::new("");
    let client = env.stdio_client_2026("modern").await;
    assert_eq!(
        client.peer_info().unwrap().protocol_version.as_str(),
        "2026-07-28"
    );
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "t__echo"));
    assert!(!is_error(
        &call(&client, "t__echo", json!({"text": "new"})).await
    ));
    let refused = call(&client, "t__write_thing", json!({"id": "1"})).await;
    assert!(
        is_error(&refused) && text(&refused).contains("allow = ["),
        "{refused:?}"
    );
    client.cancel().await.unwrap();
    let audit = std::fs::read_to_string(find_audit(env.path())).unwrap();
    assert!(audit.contains("\"client\":\"modern\""), "{audit}");
}
