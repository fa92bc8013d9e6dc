//! A server that asks, answered on screen: the real test MCP server (both protocol
//! generations) elicits during a call the person made; the question reaches the TUI
//! through the hub's `ChannelAsker`, is answered with keys, and the server's result
//! says what was answered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use switchboard::agent::{AgentEvent, EventSink};
use switchboard::config::{Config, ProtocolChoice};
use switchboard::keymap::{Key, KeyCode};
use switchboard::mcp::{AskRequest, ChannelAsker};
use switchboard::paths::Dirs;
use switchboard::policy::Mode;
use switchboard::tui::ask::AskView;
use switchboard::tui::ask::sampling::SampleStage;
use switchboard::tui::executor::Executor;
use switchboard::tui::{Msg, State};
use switchboard::workbench::{Workbench, WorkbenchOptions};
use tokio::sync::mpsc::UnboundedReceiver;

const WAIT: Duration = Duration::from_secs(20);

/// A real workbench (the test server `t`, `--asking`) and an executor over it, fed
/// by hand the way the event loop feeds it.
struct Screen {
    workbench: Workbench,
    exec: Executor,
    route: UnboundedReceiver<AgentEvent>,
    asks: UnboundedReceiver<AskRequest>,
    inbox: UnboundedReceiver<Msg>,
    audit: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

async fn screen(protocol: ProtocolChoice, max_sampling: Option<u32>) -> Screen {
    let dir = tempfile::tempdir().unwrap();
    let dirs = Dirs::new(dir.path(), dir.path(), dir.path(), dir.path());
    let audit = dir.path().join("audit.jsonl");
    let mut config = Config::default();
    config.policy.audit_log = Some(audit.clone());
    if let Some(max) = max_sampling {
        config.policy.max_calls.insert("sampling".into(), max);
    }
    let mut server = support::mcp::stdio_config(&["--asking"]);
    server.protocol = Some(protocol);
    config.servers.insert("t".into(), server);
    let (asker, asks) = ChannelAsker::new();
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
    let (tx, route) = tokio::sync::mpsc::unbounded_channel();
    let (inbox_tx, inbox) = tokio::sync::mpsc::unbounded_channel();
    let mut state = support::tui::state();
    state.status.provider = "scripted".into();
    state.catalog.items.tools = workbench
        .registry
        .specs()
        .iter()
        .map(switchboard::tui::boot::tool_entry)
        .collect();
    let exec = Executor::new(
        state,
        Arc::clone(&workbench.registry),
        EventSink::new(tx, None),
        inbox_tx,
    );
    Screen {
        workbench,
        exec,
        route,
        asks,
        inbox,
        audit,
        _dir: dir,
    }
}

impl Screen {
    /// Feeds session events, questions and the executor's own messages until `done`.
    async fn pump(&mut self, done: impl Fn(&State) -> bool) {
        let deadline = tokio::time::Instant::now() + WAIT;
        while !done(self.exec.state()) {
            tokio::select! {
                Some(event) = self.route.recv() => { self.exec.handle(Msg::Agent(Box::new(event))); }
                Some(request) = self.asks.recv() => { let asked = self.exec.ask_desk().file(request); self.exec.handle(asked); }
                Some(msg) = self.inbox.recv() => { self.exec.handle(msg); }
                () = tokio::time::sleep_until(deadline) => panic!("not done within {WAIT:?}"),
            }
        }
    }

    fn call(&mut self, line: &str) {
        self.exec.handle(Msg::Paste(line.into()));
        self.exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
    }
}

/// The `server_request` lines of an audit log.
fn audited(audit: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(audit)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["event"] == "server_request")
        .collect()
}

/// How many cards have a result (finished calls).
fn results(state: &State) -> usize {
    state
        .chat
        .entries
        .iter()
        .filter(|e| e.card.as_ref().is_some_and(|c| c.result.is_some()))
        .count()
}

fn result_text(state: &State) -> Option<String> {
    state
        .chat
        .entries
        .iter()
        .rev()
        .find_map(|e| e.card.as_ref().and_then(|c| c.result.clone()))
}

async fn run(protocol: ProtocolChoice, keys: &[Key]) -> String {
    let mut screen = screen(protocol, None).await;
    screen.call(r#"/call t__ask_name {"profile": true}"#);
    screen.pump(|s| !s.asks.is_empty()).await;
    assert_eq!(screen.exec.state().asks[0].server, "t");
    assert_eq!(
        screen.exec.state().asks[0].message,
        "Tell us about your trip."
    );
    for key in keys {
        screen.exec.handle(Msg::Key(*key));
    }
    screen.pump(|s| result_text(s).is_some()).await;
    let text = result_text(screen.exec.state()).unwrap();
    screen.workbench.shutdown().await;
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

fn sample_stage(state: &State) -> Option<&SampleStage> {
    match &state.asks.front()?.view {
        AskView::Sample(card) => Some(&card.stage),
        _ => None,
    }
}

#[tokio::test]
async fn sampling_approved_on_screen_reaches_the_provider_and_the_budget_counts_once() {
    for protocol in [ProtocolChoice::V2025, ProtocolChoice::V2026] {
        let era = protocol.as_str();
        let mut screen = screen(protocol, Some(1)).await;
        screen.call("/call t__sample {}");
        screen.pump(|s| sample_stage(s).is_some()).await;
        // Sent to the session's (scripted) provider; its answer is shown first.
        screen.exec.handle(Msg::Key(Key::char('y')));
        screen
            .pump(|s| matches!(sample_stage(s), Some(SampleStage::Reply(_))))
            .await;
        screen.exec.handle(Msg::Key(Key::char('y')));
        screen.pump(|s| results(s) == 1).await;
        let text = result_text(screen.exec.state()).unwrap();
        assert!(text.contains("model offline said:"), "{era}: {text}");

        // The one request the budget allows was spent when it arrived; the next is
        // refused without asking anyone.
        screen.call("/call t__sample {}");
        screen.pump(|s| results(s) == 2).await;
        assert!(
            screen.exec.state().asks.is_empty(),
            "{era}: nobody was asked"
        );
        assert!(screen.asks.try_recv().is_err(), "{era}: nobody was asked");
        let text = result_text(screen.exec.state()).unwrap();
        assert!(text.contains("max_calls"), "{era}: {text}");
        let audit = screen.audit.clone();
        screen.workbench.shutdown().await;

        let audited = audited(&audit);
        let outcomes: Vec<(&str, Option<&str>)> = audited
            .iter()
            .map(|v| (v["outcome"].as_str().unwrap(), v["model"].as_str()))
            .collect();
        assert_eq!(
            outcomes,
            [("approve", Some("offline")), ("deny (budget)", None)],
            "{era}: {audited:?}"
        );
    }
}
