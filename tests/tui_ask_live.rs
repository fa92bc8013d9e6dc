//! A server that asks, answered on screen: the real test MCP server (both protocol
//! generations) elicits during a call the person made; the question reaches the TUI
//! through the hub's `ChannelAsker`, is answered with keys, and the server's result
//! says what was answered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;
mod tui_support;

use std::sync::Arc;
use std::time::Duration;

use switchboard::agent::{AgentEvent, EventSink};
use switchboard::config::{Config, ProtocolChoice};
use switchboard::keymap::{Key, KeyCode};
use switchboard::mcp::{AskRequest, ChannelAsker};
use switchboard::paths::Dirs;
use switchboard::policy::Mode;
use switchboard::tui::executor::Executor;
use switchboard::tui::{Msg, State};
use switchboard::workbench::{Workbench, WorkbenchOptions};
use tokio::sync::mpsc::UnboundedReceiver;

const WAIT: Duration = Duration::from_secs(20);

/// Feeds session events and questions into the executor until `done` holds.
async fn pump(
    exec: &mut Executor,
    route: &mut UnboundedReceiver<AgentEvent>,
    asks: &mut UnboundedReceiver<AskRequest>,
    done: impl Fn(&State) -> bool,
) {
    while !done(exec.state()) {
        tokio::select! {
            Some(event) = route.recv() => { exec.handle(Msg::Agent(Box::new(event))); }
            Some(request) = asks.recv() => { exec.ask(request); }
            () = tokio::time::sleep(WAIT) => panic!("nothing arrived"),
        }
    }
}

fn result_text(state: &State) -> Option<String> {
    state
        .chat
        .iter()
        .rev()
        .find_map(|e| e.card.as_ref().and_then(|c| c.result.clone()))
}

async fn run(protocol: ProtocolChoice, keys: &[Key]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let dirs = Dirs::new(dir.path(), dir.path(), dir.path(), dir.path());
    let mut config = Config::default();
    let mut server = mcp_support::stdio_config(&["--asking"]);
    server.protocol = Some(protocol);
    config.servers.insert("t".into(), server);
    let (asker, mut asks) = ChannelAsker::new();
    let workbench = Workbench::start(
        &config,
        &dirs,
        WorkbenchOptions {
            interactive: true,
            mode: Some(Mode::FullAuto),
            asker: Some(Arc::new(asker)),
            ..WorkbenchOptions::default()
        },
    )
    .await
    .unwrap();
    workbench.settle().await;
    let (tx, mut route) = tokio::sync::mpsc::unbounded_channel();
    let (inbox, _inbox_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut state = tui_support::state();
    state.catalog.tools = workbench
        .registry
        .specs()
        .iter()
        .map(switchboard::tui::boot::tool_entry)
        .collect();
    let mut exec = Executor::new(
        state,
        Arc::clone(&workbench.registry),
        EventSink::new(tx, None),
        inbox,
    );
    exec.handle(Msg::Paste(r#"/call t__ask_name {"profile": true}"#.into()));
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    pump(&mut exec, &mut route, &mut asks, |s| !s.asks.is_empty()).await;
    assert_eq!(exec.state().asks[0].server, "t");
    assert_eq!(exec.state().asks[0].message, "Tell us about your trip.");
    for key in keys {
        exec.handle(Msg::Key(*key));
    }
    pump(&mut exec, &mut route, &mut asks, |s| {
        result_text(s).is_some()
    })
    .await;
    let text = result_text(exec.state()).unwrap();
    workbench.shutdown().await;
    text
}

fn typed(text: &str) -> Vec<Key> {
    text.chars().map(Key::char).collect()
}

#[tokio::test]
async fn a_form_answered_on_screen_reaches_the_server_in_both_eras() {
    for protocol in [ProtocolChoice::V2025, ProtocolChoice::V2026] {
        let mut keys = typed("ann@example.org");
        keys.extend([Key::plain(KeyCode::Down), Key::plain(KeyCode::Down)]);
        keys.push(Key::plain(KeyCode::Right)); // Business
        keys.push(Key::plain(KeyCode::Enter));
        let text = run(protocol, &keys).await;
        let era = protocol.as_str();
        assert!(
            text.contains(r#""email":"ann@example.org""#),
            "{era}: {text}"
        );
        assert!(text.contains(r#""class":"biz""#), "{era}: {text}");
        assert!(text.contains(r#""nights":3"#), "{era}: {text}");
        assert!(text.contains(r#""meals":["breakfast"]"#), "{era}: {text}");
    }
}

#[tokio::test]
async fn declining_on_screen_is_what_the_server_hears() {
    let text = run(ProtocolChoice::V2026, &[Key::ctrl('d')]).await;
    assert!(text.contains("decline"), "{text}");
    let text = run(ProtocolChoice::V2025, &[Key::plain(KeyCode::Esc)]).await;
    assert!(text.contains("cancel"), "{text}");
}
