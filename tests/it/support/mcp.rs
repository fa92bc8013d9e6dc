//! Shared helpers for the MCP tests: the test server binary and configs for it.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Map, Value};
use switchboard::config::{ProtocolChoice, ServerConfig};
use switchboard::mcp::{HubSnapshot, McpHub, ServerStatus};

pub const SERVER_BIN: &str = env!("CARGO_BIN_EXE_switchboard-test-mcp-server");

/// Generous: only guards against hangs.
pub const SETTLE: Duration = Duration::from_secs(60);

pub fn stdio_config(extra_args: &[&str]) -> ServerConfig {
    ServerConfig {
        command: Some(SERVER_BIN.to_owned()),
        args: extra_args.iter().map(|a| (*a).to_owned()).collect(),
        ..ServerConfig::default()
    }
}

pub fn url_config(url: &str) -> ServerConfig {
    ServerConfig {
        url: Some(url.to_owned()),
        ..ServerConfig::default()
    }
}

/// A test server over HTTP; killed on drop.
pub struct HttpServer {
    pub child: Child,
    pub url: String,
}

impl HttpServer {
    /// `transport` is `http` (Streamable HTTP) or `sse` (legacy).
    pub fn start(transport: &str) -> Self {
        Self::start_args(&["--transport", transport])
    }

    /// Streamable HTTP with more options (`--asking`, `--protocol V`).
    pub fn start_with(extra: &[&str]) -> Self {
        let mut args = vec!["--transport", "http"];
        args.extend_from_slice(extra);
        Self::start_args(&args)
    }

    fn start_args(args: &[&str]) -> Self {
        let mut child = Command::new(SERVER_BIN)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Self {
            child,
            url: line.trim().to_owned(),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A hub with `config` as `t`, whose questions are answered headless with each
/// form's defaults (`--elicit accept-defaults`).
pub fn accept_defaults_hub(config: ServerConfig) -> McpHub {
    McpHub::start_with(
        &BTreeMap::from([("t".to_owned(), config)]),
        switchboard::mcp::HubOptions {
            asker: Some(std::sync::Arc::new(switchboard::mcp::HeadlessAsker {
                mode: switchboard::mcp::ElicitMode::AcceptDefaults,
                notice: None,
            })),
            ..switchboard::mcp::HubOptions::default()
        },
    )
}

pub fn hub_with(servers: &[(&str, ServerConfig)]) -> McpHub {
    let map: BTreeMap<String, ServerConfig> = servers
        .iter()
        .map(|(n, c)| ((*n).to_owned(), c.clone()))
        .collect();
    McpHub::start(&map)
}

pub async fn settled(hub: &McpHub) -> HubSnapshot {
    hub.settled(SETTLE).await.as_ref().clone()
}

/// Waits (generously: a hang guard, not a speed check) until a hub snapshot passes
/// `want`, and returns it.
pub async fn wait_snapshot(
    hub: &McpHub,
    what: &str,
    want: impl Fn(&HubSnapshot) -> bool,
) -> std::sync::Arc<HubSnapshot> {
    let mut rx = hub.subscribe();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let snap = rx.borrow_and_update().clone();
        if want(&snap) {
            return snap;
        }
        assert!(
            tokio::time::timeout_at(deadline, rx.changed())
                .await
                .is_ok(),
            "never saw {what}; last snapshot {snap:?}"
        );
    }
}

pub fn assert_ready(snapshot: &HubSnapshot, name: &str) {
    let server = snapshot.server(name).unwrap();
    assert_eq!(
        server.status,
        ServerStatus::Ready,
        "{name}: {:?}",
        server.status
    );
}

/// `v`, a JSON object, as tool arguments.
pub fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// `config`, speaking `protocol`.
pub fn speaking(mut config: ServerConfig, protocol: ProtocolChoice) -> ServerConfig {
    config.protocol = Some(protocol);
    config
}

/// Events from `events` until `done` says the wanted ones are in (10 s at most):
/// a server's notifications precede its response on the wire, but reach the hub's
/// event fan-out on their own schedule, so a test waits for them rather than for a
/// moment.
pub async fn events_until(
    events: &mut tokio::sync::broadcast::Receiver<switchboard::mcp::McpEvent>,
    mut done: impl FnMut(&[switchboard::mcp::McpEvent]) -> bool,
) -> Vec<switchboard::mcp::McpEvent> {
    use tokio::sync::broadcast::error::RecvError;
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !done(&seen) {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(event)) => seen.push(event),
            Ok(Err(RecvError::Lagged(_))) => {}
            Ok(Err(RecvError::Closed)) | Err(_) => {
                panic!("the wanted events did not come; seen: {seen:?}")
            }
        }
    }
    seen
}

/// Whether `seen` holds a log message at `level`.
pub fn logged(seen: &[switchboard::mcp::McpEvent], level: &str) -> bool {
    seen.iter()
        .any(|e| matches!(e, switchboard::mcp::McpEvent::Log { level: l, .. } if l == level))
}
