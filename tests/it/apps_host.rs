//! `switchboard app`: a tool's MCP App served by a local host (host page + sandbox
//! proxy on two loopback origins), its JSON-RPC answered over the relay, every call
//! it makes through the gate with origin `app`. Driven here over HTTP as the host
//! page's script would; `apps_interop` drives the same pages in a real Chromium.
#![allow(clippy::unwrap_used)]

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::support::apps::AppProcess;
use crate::support::serve::{Env, SERVER_BIN, SWITCHBOARD};

/// A workspace with the test server's apps tools as `w`.
fn env() -> Env {
    Env::new(&format!(
        "[servers.w]\ncommand = {SERVER_BIN:?}\nargs = [\"--apps\"]\n"
    ))
}

fn client() -> reqwest::Client {
    switchboard::tls::install_crypto_provider();
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// Posts `message` to the relay as the host page does.
async fn relay(app: &AppProcess, message: Value) -> Value {
    let response = client()
        .post(format!("{}rpc", app.url))
        .header("origin", app.origin())
        .json(&message)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

async fn call(app: &AppProcess, id: u64, name: &str) -> Value {
    let out = relay(
        app,
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": {}}}),
    )
    .await;
    out["reply"]["result"].clone()
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

#[tokio::test]
async fn the_host_page_and_sandbox_proxy_are_served_with_their_policies() {
    let env = env();
    let app = AppProcess::start(&env, &["w", "clock"]).await;
    let http = client();
    let page = http.get(&app.url).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let headers = page.headers().clone();
    assert_eq!(headers["referrer-policy"], "same-origin");
    let host_csp = headers["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(host_csp.contains("frame-ancestors 'none'"), "{host_csp}");
    let html = page.text().await.unwrap();
    assert!(
        html.contains("<title>w · clock · switchboard</title>"),
        "{html}"
    );
    // The sandbox proxy: another origin, under the app's CSP (the spec's default
    // plus the resource's `connectDomains`), embeddable only by the host page.
    let sandbox = html
        .split("src=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_ne!(
        sandbox.split("/p/").next().unwrap(),
        app.origin(),
        "the proxy is on its own origin"
    );
    let proxy = http.get(sandbox).send().await.unwrap();
    assert_eq!(proxy.status(), StatusCode::OK);
    let csp = proxy.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        csp,
        format!(
            "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' \
             'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src \
             https://api.example.com; frame-src 'none'; object-src 'none'; base-uri 'self'; \
             frame-ancestors {}",
            app.origin()
        )
    );
    let proxy_page = proxy.text().await.unwrap();
    assert!(proxy_page.contains(&format!("const HOST = \"{}\"", app.origin())));
    // The app's HTML, for the proxy to write into its inner frame.
    let resource: Value = http
        .get(format!("{}resource", app.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(resource["html"].as_str().unwrap().contains("id=\"clock\""));
    assert_eq!(
        resource["sandbox"],
        "allow-scripts allow-same-origin allow-forms"
    );
}

#[tokio::test]
async fn without_the_token_or_from_another_origin_nothing_is_answered() {
    let env = env();
    let app = AppProcess::start(&env, &["w", "clock"]).await;
    let http = client();
    let wrong = format!("{}/s/{}/", app.origin(), "0".repeat(64));
    assert_eq!(
        http.get(&wrong).send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        http.get(format!("{}/", app.origin()))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::NOT_FOUND
    );
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "clock_tick", "arguments": {}}});
    let post = |origin: Option<&str>| {
        let mut request = http.post(format!("{}rpc", app.url)).json(&message);
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    assert_eq!(post(None).await.unwrap().status(), StatusCode::FORBIDDEN);
    assert_eq!(
        post(Some("http://evil.example")).await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    // DNS rebinding: the right token under another Host is refused.
    let rebound = http
        .get(&app.url)
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), StatusCode::MISDIRECTED_REQUEST);
}

#[tokio::test]
async fn the_app_initialises_then_gets_the_tool_input_and_result() {
    let env = env();
    let trace = env.dir.path().join("trace.jsonl");
    let trace_arg = trace.to_str().unwrap();
    let app = AppProcess::start(
        &env,
        &["w", "clock", "-a", "zone=UTC", "--trace", trace_arg],
    )
    .await;
    let init = relay(
        &app,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {
            "appInfo": {"name": "t", "version": "1"}, "appCapabilities": {},
            "protocolVersion": "2026-01-26"}}),
    )
    .await;
    let result = &init["reply"]["result"];
    assert_eq!(result["protocolVersion"], "2026-01-26");
    assert_eq!(result["hostInfo"]["name"], "switchboard");
    assert_eq!(result["hostContext"]["toolInfo"]["tool"]["name"], "clock");
    assert!(result["hostCapabilities"]["openLinks"].is_object());
    let ready = relay(
        &app,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    )
    .await;
    assert_eq!(ready["poll"], true);
    assert_eq!(
        ready["deliver"][0],
        json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-input",
            "params": {"arguments": {"zone": "UTC"}}})
    );
    let outcome: Value = client()
        .get(format!("{}outcome", app.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let note = &outcome["deliver"][0];
    assert_eq!(note["method"], "ui/notifications/tool-result");
    assert_eq!(text(&note["params"]), "It is 12:00 UTC.");
    assert_eq!(note["params"]["structuredContent"]["hands"]["hour"], 12);
    // Every message with the app is traced under the peer `app:w`, the result too.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    let traced = loop {
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        let done = text.contains("ui/notifications/tool-result");
        if done || tokio::time::Instant::now() > deadline {
            break text;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    for method in [
        "ui/initialize",
        "ui/notifications/tool-input",
        "ui/notifications/tool-result",
    ] {
        assert!(
            traced
                .lines()
                .any(|l| l.contains("\"app:w\"") && l.contains(method)),
            "{method} not traced: {traced}"
        );
    }
}

#[tokio::test]
async fn the_apps_calls_pass_the_gate_as_origin_app() {
    let env = env();
    let app = AppProcess::start(&env, &["w", "clock"]).await;
    // An app-only read: allowed (mode ask allows reads), and audited as the app's.
    let ticked = call(&app, 1, "clock_tick").await;
    assert_eq!(text(&ticked), "ticked");
    assert_eq!(ticked["isError"], false);
    // Visible to the model only: the gate refuses the app.
    let hidden = call(&app, 2, "model_clock").await;
    assert_eq!(hidden["isError"], true);
    assert!(text(&hidden).contains("not visible to apps"), "{hidden}");
    // A tool the policy would ask about: headless, that is a denial naming the rule.
    let asked = call(&app, 3, "plain").await;
    assert_eq!(asked["isError"], true);
    assert!(text(&asked).contains("allow = [\"w__plain\"]"), "{asked}");
    // Another server's tool cannot even be named: the app's names are its server's.
    let other = relay(
        &app,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "builtin__fs", "arguments": {}}}),
    )
    .await;
    assert_eq!(other["reply"]["error"]["code"], -32602);
    // The host declared MCP Apps to the server (`switchboard app` can open them).
    assert_eq!(text(&call(&app, 5, "ui_declared").await), "ui declared");
    let audit = std::fs::read_to_string(audit_file(&env)).unwrap();
    let lines: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let line = |tool: &str| lines.iter().find(|l| l["tool"] == tool).unwrap().clone();
    assert_eq!(line("w__clock_tick")["origin"], "app");
    assert_eq!(line("w__clock_tick")["app"], "ui://test/clock.html");
    assert_eq!(line("w__clock_tick")["decision"], "allow");
    assert_eq!(line("w__model_clock")["decision"], "deny");
    assert_eq!(line("w__plain")["decided_by"], "headless");
}

fn audit_file(env: &Env) -> std::path::PathBuf {
    env.path().join(".local/state/switchboard/audit.jsonl")
}

#[tokio::test]
async fn links_messages_and_context_are_shown_never_sent() {
    let env = env();
    let app = AppProcess::start(&env, &["w", "clock"]).await;
    let link = relay(
        &app,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ui/open-link",
            "params": {"url": "https://example.com/docs"}}),
    )
    .await;
    assert_eq!(
        link["reply"]["result"]["isError"], true,
        "nobody to ask: declined"
    );
    app.line_with("asked to open https://example.com/docs: declined")
        .await;
    let said = relay(
        &app,
        json!({"jsonrpc": "2.0", "id": 2, "method": "ui/message", "params": {
            "role": "user", "content": [{"type": "text", "text": "hello \u{1b}[31mred"}]}}),
    )
    .await;
    assert_eq!(said["reply"]["result"], json!({}));
    let line = app.line_with("says (not sent to any model)").await;
    assert!(
        line.ends_with("hello [31mred") || !line.contains('\u{1b}'),
        "{line:?}"
    );
    relay(
        &app,
        json!({"jsonrpc": "2.0", "id": 3, "method": "ui/update-model-context",
            "params": {"content": [{"type": "text", "text": "42 items"}]}}),
    )
    .await;
    app.line_with("offers model context (not sent): 42 items")
        .await;
    let unknown = relay(
        &app,
        json!({"jsonrpc": "2.0", "id": 4, "method": "ui/teleport", "params": {}}),
    )
    .await;
    assert_eq!(unknown["reply"]["error"]["code"], -32601);
    let audit = std::fs::read_to_string(audit_file(&env)).unwrap();
    assert!(
        audit.contains("\"event\":\"app\",\"server\":\"w\",\"request\":\"ui/open-link\",\"outcome\":\"declined\""),
        "{audit}"
    );
}

#[tokio::test]
async fn headless_commands_do_not_declare_apps_and_a_tool_without_ui_is_refused() {
    let env = env();
    let out = std::process::Command::new(SWITCHBOARD)
        .args(["call", "w", "ui_declared"])
        .current_dir(env.path())
        .env("HOME", env.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "ui not declared"
    );
    let out = std::process::Command::new(SWITCHBOARD)
        .args(["app", "w", "echo", "--no-browser"])
        .current_dir(env.path())
        .env("HOME", env.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("tool echo has no MCP App"),
        "{out:?}"
    );
}
