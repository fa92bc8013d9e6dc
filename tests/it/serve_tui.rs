//! `--serve` inside the TUI: a serve client's write waits in the approval pane,
//! "asked by NAME via serve"; `y` lets it through, `n` sends the client the refusal;
//! the Servers pane lists the gateway's URL and its connected clients (a snapshot).
//! The runtime seam as in tui_executor.rs: the executor and a real gate, the gateway
//! on 127.0.0.1 port 0, an rmcp client over HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use serde_json::json;
use switchboard::agent::{AgentEvent, EventSink, Readiness};
use switchboard::config::ServeConfig;
use switchboard::gate::GateEvent;
use switchboard::keymap::{Key, KeyCode};
use switchboard::mcp::McpHub;
use switchboard::policy::{Mode, Policy};
use switchboard::serve::{Gateway, HttpServer};
use switchboard::tools::builtin_specs::fs_spec;
use switchboard::tui::executor::Executor;
use switchboard::tui::{Msg, State};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

struct Ready;

impl Readiness for Ready {
    fn pending(&self) -> Vec<String> {
        Vec::new()
    }

    fn settled(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async {})
    }
}

/// Hands the gateway's gate events to the executor until `done` holds.
async fn pump(
    exec: &mut Executor,
    events: &mut UnboundedReceiver<GateEvent>,
    done: impl Fn(&State) -> bool,
) {
    while !done(exec.state()) {
        let event = tokio::time::timeout(Duration::from_secs(30), events.recv())
            .await
            .expect("the gateway went quiet")
            .unwrap();
        exec.handle(Msg::Agent(Box::new(AgentEvent::Gate(event))));
    }
}

/// A call's task, or a failure naming the hang (an answer that never reached it).
async fn within<T>(task: tokio::task::JoinHandle<T>) -> Result<T, tokio::task::JoinError> {
    tokio::time::timeout(Duration::from_secs(30), task)
        .await
        .expect("the call never got its answer")
}

fn write_call(path: &str) -> CallToolRequestParams {
    CallToolRequestParams::new("fs").with_arguments(support::serve::args(
        json!({"operation": "write", "path": path, "content": "x"}),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_serve_clients_write_waits_for_the_approval_pane() {
    let (registry, tool) =
        support::gate::registry_with(Policy::new(Mode::Ask), true, fs_spec()).await;
    let (gate_tx, mut gate_events) = unbounded_channel();
    let config = ServeConfig {
        expose: Some(vec!["builtin".into()]),
        ..ServeConfig::default()
    };
    let hub = McpHub::start(&BTreeMap::new());
    let gateway = Gateway::from_parts(registry.clone(), hub, Arc::new(Ready), config)
        .with_observer(Arc::new(gate_tx));
    let gateway = Arc::new(gateway);
    let server = HttpServer::bind(&gateway, "127.0.0.1:0").await.unwrap();
    let url = server.url().to_owned();
    let stop = tokio_util::sync::CancellationToken::new();
    tokio::spawn(server.serve(stop.clone()));
    let client = support::serve::http_client(&url, "remote-agent").await;

    let (tx, _route) = unbounded_channel();
    let (inbox, _inbox_rx) = unbounded_channel();
    let mut exec = Executor::new(
        support::tui::state(),
        registry.clone(),
        EventSink::new(tx, None),
        inbox,
    );

    // y: the write runs.
    let peer = client.peer().clone();
    let first = tokio::spawn(async move { peer.call_tool(write_call("a.md")).await });
    pump(&mut exec, &mut gate_events, |s| s.approvals.len() == 1).await;
    let request = &exec.state().approvals[0].request;
    // The name is only what the client declared, and the person is told so.
    assert_eq!(request.client.as_deref(), Some("remote-agent (unverified)"));
    let screen = support::tui::shot(exec.state(), 120, 30);
    assert!(
        screen.contains("asked by remote-agent (unverified) via serve"),
        "{screen}"
    );
    exec.handle(Msg::Key(Key::plain(KeyCode::Char('y'))));
    let ran = within(first).await.unwrap().unwrap();
    assert!(!support::serve::is_error(&ran), "{ran:?}");
    assert_eq!(tool.calls(), 1);

    // n: the client gets the refusal as a tool error.
    let peer = client.peer().clone();
    let second = tokio::spawn(async move { peer.call_tool(write_call("b.md")).await });
    pump(&mut exec, &mut gate_events, |s| s.approvals.len() == 1).await;
    exec.handle(Msg::Key(Key::plain(KeyCode::Char('n'))));
    let refused = within(second).await.unwrap().unwrap();
    assert!(support::serve::is_error(&refused), "{refused:?}");
    assert!(
        support::serve::text(&refused).contains("Denied by the user"),
        "{refused:?}"
    );
    assert_eq!(tool.calls(), 1);

    // The Servers pane lists the connected client.
    assert_eq!(gateway.clients().connected()[0].name, "remote-agent");
    client.cancel().await.unwrap();
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_pane_lists_the_gateway_and_its_clients() {
    let (registry, _tool) =
        support::gate::registry_with(Policy::new(Mode::Ask), true, fs_spec()).await;
    let config = ServeConfig {
        expose: Some(vec!["builtin".into()]),
        ..ServeConfig::default()
    };
    let hub = McpHub::start(&BTreeMap::new());
    let gateway = Arc::new(Gateway::from_parts(registry, hub, Arc::new(Ready), config));
    let server = HttpServer::bind(&gateway, "127.0.0.1:0").await.unwrap();
    let url = server.url().to_owned();
    let stop = tokio_util::sync::CancellationToken::new();
    tokio::spawn(server.serve(stop.clone()));
    let desk = support::serve::http_client(&url, "claude-desktop").await;
    // A name is the client's to choose: escape sequences in it are dropped, never obeyed.
    let hostile = support::serve::http_client(&url, "agent\u{1b}]0;pwned\u{7}\u{1b}[2J").await;
    let read = CallToolRequestParams::new("fs").with_arguments(support::serve::args(
        json!({"operation": "exists", "path": "notes.md"}),
    ));
    desk.call_tool(read).await.unwrap();
    // A client that proved its name (as `serve --stdio --client ci` does) shows it
    // plainly; the others' names are only what they declared.
    let _ci = gateway.clients().connect("ci", true, "stdio");

    // What the event loop does when the gateway's client list changes.
    let connected = gateway.clients().connected();
    assert_eq!(connected.len(), 3, "{connected:?}");
    let lines = connected
        .iter()
        .map(switchboard::tui::serve_view::client_line)
        .collect();
    let mut state = support::tui::booted();
    // The port is picked at random; the snapshot shows a fixed one.
    let port = url.rsplit(':').next().unwrap().trim_end_matches("/mcp");
    state.serve.url = Some(url.replace(&format!(":{port}/"), ":7331/"));
    switchboard::tui::update(&mut state, Msg::ServeClients(lines));
    state.focus = switchboard::tui::state::Pane::Servers;
    let screen = support::tui::shot(&state, 140, 30);
    assert!(!screen.contains('\u{1b}'), "{screen}");
    insta::assert_snapshot!("servers_pane_serve_clients", screen);

    desk.cancel().await.unwrap();
    hostile.cancel().await.unwrap();
    stop.cancel();
}
