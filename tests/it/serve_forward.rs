//! What `switchboard serve` passes on unasked, seen by a real rmcp client that
//! records its notifications: an upstream tool list change arrives as
//! `notifications/tools/list_changed`, an upstream tool's progress under the
//! client's own progress token, and upstream log messages at the level the client
//! set with `logging/setLevel` — which reaches the server upstream (it starts at
//! info, so debug lines only come when a client asks for them), the most verbose
//! level any client asked for, each client still getting only its own level.
#![allow(clippy::unwrap_used, clippy::expect_used, deprecated)] // logging: deprecated in 2026-07-28

use std::time::Duration;

use crate::support::serve::{Env, HttpGateway, SWITCHBOARD, args, client_config, is_error, text};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ClientRequest, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, Request, ServerResult,
    SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// One notification the client heard.
#[derive(Debug)]
enum Heard {
    ToolsChanged,
    ResourceUpdated(String),
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

/// A client handler that hands every notification to the test.
#[derive(Clone)]
struct Ears {
    name: String,
    tx: UnboundedSender<Heard>,
}

impl ClientHandler for Ears {
    fn get_info(&self) -> ClientConfig {
        client_config(&self.name)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.tx.send(Heard::ToolsChanged);
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.tx.send(Heard::ResourceUpdated(params.uri));
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.tx.send(Heard::Progress(params));
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.tx.send(Heard::Log(params));
    }
}

type Listening = RunningService<RoleClient, Ears>;

fn ears(name: &str) -> (Ears, UnboundedReceiver<Heard>) {
    let (tx, rx) = unbounded_channel();
    let ears = Ears {
        name: name.to_owned(),
        tx,
    };
    (ears, rx)
}

/// A client named `name` of `switchboard serve --stdio`, and what it hears.
async fn stdio_listener(env: &Env, name: &str) -> (Listening, UnboundedReceiver<Heard>) {
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(SWITCHBOARD)
            .configure(|c| env.configure(c, &["serve", "--stdio"])),
    )
    .unwrap();
    let (ears, rx) = ears(name);
    (ears.serve(transport).await.unwrap(), rx)
}

/// A 2025-11-25 session client named `name` of `serve --http`, and what it hears.
async fn http_listener(url: &str, name: &str) -> (Listening, UnboundedReceiver<Heard>) {
    switchboard::tls::install_crypto_provider();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_owned());
    let (ears, rx) = ears(name);
    (ears.serve(transport).await.unwrap(), rx)
}

async fn call(client: &Listening, name: &str, arguments: Value) -> rmcp::model::CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args(arguments)))
        .await
        .unwrap()
}

async fn set_level(client: &Listening, level: LoggingLevel) {
    client
        .peer()
        .set_level(SetLevelRequestParams::new(level))
        .await
        .unwrap();
}

/// The next notification, within `wait` (a hang guard).
async fn next(rx: &mut UnboundedReceiver<Heard>, wait: Duration) -> Option<Heard> {
    tokio::time::timeout(wait, rx.recv()).await.ok().flatten()
}

/// The log lines (`LEVEL: data (logger)`) heard until `until` is among them (a hang
/// guard of 30 s), then for a further `settle` (lines that should not come would come
/// by then), least severe first.
async fn logs_until(
    rx: &mut UnboundedReceiver<Heard>,
    until: &str,
    settle: Duration,
) -> Vec<String> {
    let mut lines = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !lines.iter().any(|l: &String| l.contains(until)) {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match next(rx, left).await {
            Some(Heard::Log(log)) => lines.push(log_line(&log)),
            Some(_) => {}
            None => panic!("no log line {until:?}; heard {lines:?}"),
        }
    }
    while let Some(heard) = next(rx, settle).await {
        if let Heard::Log(log) = heard {
            lines.push(log_line(&log));
        }
    }
    // rmcp handles notifications concurrently, so their order is not kept.
    let severity = ["debug", "info", "warning", "error"];
    lines.sort_by_key(|l| severity.iter().position(|s| l.starts_with(s)));
    lines
}

fn log_line(log: &LoggingMessageNotificationParam) -> String {
    let level = serde_json::to_value(log.level).unwrap();
    format!(
        "{}: {} ({})",
        level.as_str().unwrap(),
        log.data.as_str().unwrap_or_default(),
        log.logger.as_deref().unwrap_or("-")
    )
}

#[tokio::test]
async fn an_upstream_tool_list_change_reaches_the_client() {
    let env = Env::new("[policy]\nallow = [\"t__add_tool\"]\n");
    let (client, mut heard) = stdio_listener(&env, "watcher").await;
    let before = client.list_all_tools().await.unwrap();
    assert!(!before.iter().any(|t| t.name == "t__extra"), "{before:?}");
    // The server connecting behind the gateway is a change too: let that one pass.
    while next(&mut heard, Duration::from_secs(1)).await.is_some() {}
    let added = call(&client, "t__add_tool", json!({})).await;
    assert!(!is_error(&added), "{added:?}");
    match next(&mut heard, Duration::from_secs(30)).await {
        Some(Heard::ToolsChanged) => {}
        other => panic!("no notifications/tools/list_changed reached the client: {other:?}"),
    }
    // By the time it is told, the new tool is listed and callable.
    let after = client.list_all_tools().await.unwrap();
    assert!(after.iter().any(|t| t.name == "t__extra"), "{after:?}");
    let extra = call(&client, "t__extra", json!({})).await;
    assert!(text(&extra).contains("extra ok"), "{extra:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn upstream_progress_reaches_the_clients_progress_token() {
    let env = Env::new("");
    let (client, mut heard) = stdio_listener(&env, "patient").await;
    let params = CallToolRequestParams::new("t__slow").with_arguments(args(json!({"millis": 300})));
    let handle = client
        .peer()
        .send_request_with_option(
            ClientRequest::CallToolRequest(Request::new(params)),
            PeerRequestOptions::default(),
        )
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
        panic!("not a tool result");
    };
    assert!(text(&result).contains("slept 300 ms"), "{result:?}");
    // The server reports 6 steps of 50 ms; each reaches the client under its token.
    let mut steps = Vec::new();
    while steps.len() < 6 {
        match next(&mut heard, Duration::from_secs(10)).await {
            Some(Heard::Progress(p)) => steps.push(p),
            Some(_) => {}
            None => break,
        }
    }
    assert_eq!(steps.len(), 6, "{steps:?}");
    for (i, step) in steps.iter().enumerate() {
        assert_eq!(step.progress_token, token, "{step:?}");
        #[allow(clippy::cast_precision_loss)]
        let n = (i + 1) as f64;
        assert!((step.progress - n).abs() < f64::EPSILON, "{steps:?}");
        assert_eq!(step.total, Some(6.0));
        assert_eq!(
            step.message.as_deref(),
            Some(format!("step {}", i + 1).as_str())
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn upstream_logs_reach_the_client_at_the_level_it_set() {
    let env = Env::new("");
    let (client, mut heard) = stdio_listener(&env, "logger").await;
    // Until the client sets a level it hears none.
    assert!(text(&call(&client, "t__log", json!({})).await).contains("logged"));
    let quiet = tokio::time::timeout(Duration::from_millis(500), async {
        loop {
            if let Some(Heard::Log(log)) = heard.recv().await {
                return log;
            }
        }
    })
    .await;
    assert!(quiet.is_err(), "a log line before setLevel: {quiet:?}");

    set_level(&client, LoggingLevel::Warning).await;
    call(&client, "t__log", json!({})).await;
    let lines = logs_until(&mut heard, "a error message", Duration::from_millis(300)).await;
    assert_eq!(
        lines,
        [
            "warning: a warning message (t/test)",
            "error: a error message (t/test)"
        ],
        "{lines:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_clients_set_level_reaches_the_server_upstream() {
    let env = Env::new("");
    let (client, mut heard) = stdio_listener(&env, "debugger").await;
    // The server starts at info: debug lines come only once the level is passed on.
    set_level(&client, LoggingLevel::Debug).await;
    call(&client, "t__log", json!({})).await;
    let lines = logs_until(&mut heard, "a error message", Duration::from_millis(100)).await;
    assert_eq!(
        lines,
        [
            "debug: a debug message (t/test)",
            "info: a info message (t/test)",
            "warning: a warning message (t/test)",
            "error: a error message (t/test)"
        ]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_most_verbose_level_goes_upstream_and_each_client_gets_its_own() {
    let env = Env::new("");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let (verbose, mut verbose_heard) = http_listener(&gateway.url, "verbose").await;
    let (terse, mut terse_heard) = http_listener(&gateway.url, "terse").await;
    // The terse client asks last; the server upstream must stay at debug.
    set_level(&verbose, LoggingLevel::Debug).await;
    set_level(&terse, LoggingLevel::Error).await;
    call(&verbose, "t__log", json!({})).await;
    let heard = logs_until(
        &mut verbose_heard,
        "a error message",
        Duration::from_millis(100),
    )
    .await;
    assert!(
        heard[0] == "debug: a debug message (t/test)" && heard.len() == 4,
        "{heard:?}"
    );
    let heard = logs_until(
        &mut terse_heard,
        "a error message",
        Duration::from_millis(300),
    )
    .await;
    assert_eq!(heard, ["error: a error message (t/test)"]);

    // The verbose client leaves: the terse one still hears only errors.
    verbose.cancel().await.unwrap();
    call(&terse, "t__log", json!({})).await;
    let heard = logs_until(
        &mut terse_heard,
        "a error message",
        Duration::from_millis(300),
    )
    .await;
    assert_eq!(heard, ["error: a error message (t/test)"]);
    terse.cancel().await.unwrap();
}

/// The next resource update heard (other notifications are skipped), within 30 s.
async fn next_update(rx: &mut UnboundedReceiver<Heard>) -> Option<String> {
    loop {
        if let Heard::ResourceUpdated(uri) = next(rx, Duration::from_secs(30)).await? {
            return Some(uri);
        }
    }
}

#[allow(deprecated)] // resources/subscribe: what 2025-11-25 sessions use
async fn subscribe(client: &Listening, uri: &str, on: bool) {
    let peer = client.peer();
    if on {
        peer.subscribe(rmcp::model::SubscribeRequestParams::new(uri))
            .await
            .unwrap();
    } else {
        peer.unsubscribe(rmcp::model::UnsubscribeRequestParams::new(uri))
            .await
            .unwrap();
    }
}

/// `resources/subscribe` through the gateway: declared, subscribed upstream, and each
/// update goes only to the clients that subscribed to that URI; unsubscribing stops it.
#[tokio::test]
async fn resource_updates_reach_only_the_clients_that_subscribed() {
    let env = Env::new("args = [\"--asking\"]\n");
    let gateway = HttpGateway::start(&env, "127.0.0.1:0", &[]).await;
    let (a, mut heard_a) = http_listener(&gateway.url, "a").await;
    let (b, mut heard_b) = http_listener(&gateway.url, "b").await;
    let resources = a.peer_info().unwrap().capabilities.resources.clone();
    assert_eq!(resources.and_then(|r| r.subscribe), Some(true));

    subscribe(&a, "test://text/1", true).await;
    assert!(!is_error(
        &call(&b, "t__touch", json!({"uri": "test://text/1"})).await
    ));
    assert_eq!(
        next_update(&mut heard_a).await.as_deref(),
        Some("test://text/1")
    );
    // B asked for another one: that is the first update it hears.
    subscribe(&b, "test://text/2", true).await;
    call(&a, "t__touch", json!({"uri": "test://text/2"})).await;
    assert_eq!(
        next_update(&mut heard_b).await.as_deref(),
        Some("test://text/2")
    );
    // A unsubscribed from text/1: its next update is text/3's.
    subscribe(&a, "test://text/1", false).await;
    subscribe(&a, "test://text/3", true).await;
    call(&b, "t__touch", json!({"uri": "test://text/1"})).await;
    call(&b, "t__touch", json!({"uri": "test://text/3"})).await;
    assert_eq!(
        next_update(&mut heard_a).await.as_deref(),
        Some("test://text/3")
    );
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
}
