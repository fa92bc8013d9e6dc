//! The runtime seam: `update` and the executor with a real gate (a fake tool behind
//! it). Commands run in the order `update` returned them, every gate event reaches
//! the UI once (on the session's route), and an abort with three pending approvals
//! leaves three aborted cards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::collections::BTreeMap;

use crate::support::tui::type_line;
use switchboard::agent::{AgentEvent, EventSink};
use switchboard::gate::{ApprovalDecision, GateEvent};
use switchboard::keymap::{Key, KeyCode};
use switchboard::policy::{Mode, Policy};
use switchboard::tools::builtin_specs::fs_spec;
use switchboard::tui::boot::tool_entry;
use switchboard::tui::cards::CardStatus;
use switchboard::tui::executor::Executor;
use switchboard::tui::{Msg, State};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// Feeds what the session's route delivered into the executor until `done` holds.
async fn pump(
    exec: &mut Executor,
    route: &mut UnboundedReceiver<AgentEvent>,
    seen: &mut Vec<AgentEvent>,
    done: impl Fn(&State) -> bool,
) {
    while !done(exec.state()) {
        let event = tokio::time::timeout(std::time::Duration::from_secs(5), route.recv())
            .await
            .expect("the route went quiet")
            .unwrap();
        seen.push(event.clone());
        exec.handle(Msg::Agent(Box::new(event)));
    }
}

fn statuses(state: &State) -> Vec<CardStatus> {
    state
        .chat
        .entries
        .iter()
        .filter_map(|e| e.card.as_ref().map(|c| c.status))
        .collect()
}

#[tokio::test]
async fn abort_with_three_pending_approvals_marks_three_cards_aborted() {
    let (registry, tool) =
        support::gate::registry_with(Policy::new(Mode::Ask), true, fs_spec()).await;
    let (tx, mut route) = unbounded_channel();
    let (inbox, _inbox_rx) = unbounded_channel();
    let mut state = support::tui::state();
    state.chat.entries.clear();
    state.catalog.items.tools = registry.specs().iter().map(tool_entry).collect();
    let mut exec = Executor::new(state, registry.clone(), EventSink::new(tx, None), inbox);
    for path in ["a.md", "b.md", "c.md"] {
        type_line(
            &mut exec,
            &format!("/call fs operation=write path={path} content=x"),
        );
    }
    let mut seen = Vec::new();
    pump(&mut exec, &mut route, &mut seen, |s| s.approvals.len() == 3).await;
    assert_eq!(statuses(exec.state()), vec![CardStatus::WaitingApproval; 3]);
    assert_eq!(registry.broker().pending().len(), 3);

    // Esc at the pane: three decisions, executed first to last.
    exec.handle(Msg::Key(Key::plain(KeyCode::Esc)));
    pump(&mut exec, &mut route, &mut seen, |s| {
        statuses(s).iter().all(|c| !c.is_open())
    })
    .await;
    assert_eq!(statuses(exec.state()), vec![CardStatus::Aborted; 3]);
    assert_eq!(tool.calls(), 0);
    let resolved: Vec<String> = seen
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Gate(GateEvent::ApprovalResolved {
                call_id,
                decision: ApprovalDecision::Abort,
                ..
            }) => Some(call_id.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(resolved, ["manual-1", "manual-2", "manual-3"], "FIFO");

    // Exactly once: one started and one finished event per call.
    let mut counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for e in &seen {
        if let AgentEvent::Gate(g) = e {
            let kind = match g {
                GateEvent::ToolCallStarted { .. } => "started",
                GateEvent::ApprovalRequested(_) => "asked",
                GateEvent::ApprovalResolved { .. } => "resolved",
                GateEvent::ToolCallFinished { .. } => "finished",
            };
            *counts.entry((g.call_id().to_string(), kind)).or_default() += 1;
        }
    }
    assert_eq!(counts.len(), 12, "{counts:?}");
    assert!(counts.values().all(|n| *n == 1), "{counts:?}");
}

#[tokio::test]
async fn a_manual_call_records_request_gate_events_and_result_in_order() {
    let (registry, tool) =
        support::gate::registry_with(Policy::new(Mode::FullAuto), true, fs_spec()).await;
    let (tx, mut route) = unbounded_channel();
    let (inbox, _inbox_rx) = unbounded_channel();
    let mut state = support::tui::state();
    state.catalog.items.tools = registry.specs().iter().map(tool_entry).collect();
    let mut exec = Executor::new(state, registry, EventSink::new(tx, None), inbox);
    type_line(&mut exec, "/call fs operation=read path=README.md");
    let mut seen = Vec::new();
    pump(&mut exec, &mut route, &mut seen, |s| {
        s.chat
            .entries
            .iter()
            .any(|e| e.card.as_ref().is_some_and(|c| c.result.is_some()))
    })
    .await;
    assert_eq!(tool.calls(), 1);
    let kinds: Vec<&str> = seen
        .iter()
        .map(|e| match e {
            AgentEvent::ToolCallRequested { .. } => "requested",
            AgentEvent::Gate(GateEvent::ToolCallStarted { .. }) => "started",
            AgentEvent::Gate(GateEvent::ToolCallFinished { .. }) => "finished",
            AgentEvent::ToolResult { .. } => "result",
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["requested", "started", "finished", "result"]);
    let card = exec
        .state()
        .chat
        .entries
        .last()
        .unwrap()
        .card
        .clone()
        .unwrap();
    assert_eq!(card.status, CardStatus::Ok);
    assert_eq!(card.result.as_deref(), Some("fs ran\n"));
    assert_eq!(
        card.decided.as_deref(),
        Some("mode full-auto: read calls run")
    );
}

/// A late `y` on a sampling card whose call has ended spends nothing: the card leaves
/// with a line in the transcript and no provider is asked.
#[tokio::test]
async fn approving_a_question_nobody_waits_for_sends_nothing() {
    use switchboard::mcp::{Asker, ChannelAsker, SamplingRequest};
    let (registry, _) = support::gate::registry_with(Policy::new(Mode::Ask), true, fs_spec()).await;
    let (tx, _route) = unbounded_channel();
    let (inbox, _inbox_rx) = unbounded_channel();
    let mut state = support::tui::state();
    state.status.provider = "scripted".into();
    let mut exec = Executor::new(state, registry, EventSink::new(tx, None), inbox);
    let (asker, mut questions) = ChannelAsker::new();
    let asking = tokio::spawn(async move {
        asker
            .sample(SamplingRequest {
                server: "research".into(),
                params: serde_json::json!({"messages": [], "maxTokens": 10}),
            })
            .await
    });
    let question = crate::support::within(questions.recv()).await.unwrap();
    let asked = exec.ask_desk().file(question);
    exec.handle(asked);
    assert_eq!(exec.state().asks.len(), 1);
    // The call that asked it ends: nobody waits for the answer any more.
    asking.abort();
    let _ = asking.await;
    exec.handle(Msg::Key(Key::char('y')));
    assert!(exec.state().asks.is_empty());
    let last = &exec.state().chat.entries.last().unwrap().text;
    assert_eq!(
        last,
        "research asked to use the model: no longer waits for an answer"
    );
}

/// Servers still connecting, released by the test; settling registers the tool.
struct Connecting {
    registry: std::sync::Arc<switchboard::tools::Registry>,
    tool: std::sync::Arc<support::gate::FakeTool>,
    release: std::sync::Arc<tokio::sync::Notify>,
}

impl switchboard::agent::Readiness for Connecting {
    fn pending(&self) -> Vec<String> {
        vec!["weather".into()]
    }

    fn settled(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            self.release.notified().await;
            self.registry.register(self.tool.clone()).await.unwrap();
        })
    }
}

/// `/call` to a server still connecting waits for it, saying so, instead of failing
/// as an unknown tool; then it runs through the gate.
#[tokio::test]
async fn a_manual_call_waits_for_its_server_to_connect() {
    let (registry, tool) =
        support::gate::registry_with(Policy::new(Mode::FullAuto), true, fs_spec()).await;
    assert!(registry.unregister("fs"));
    let release = std::sync::Arc::new(tokio::sync::Notify::new());
    let readiness = Connecting {
        registry: registry.clone(),
        tool,
        release: release.clone(),
    };
    let (tx, mut route) = unbounded_channel();
    let (inbox, mut inbox_rx) = unbounded_channel();
    let mut state = support::tui::state();
    state.chat.entries.clear();
    state.servers.rows.push(switchboard::tui::state::ServerRow {
        name: "weather".into(),
        status: switchboard::tui::state::ServerStatus::Connecting,
        ..switchboard::tui::state::ServerRow::default()
    });
    let mut exec = Executor::new(state, registry.clone(), EventSink::new(tx, None), inbox)
        .with_readiness(std::sync::Arc::new(readiness));
    type_line(&mut exec, "/call fs operation=read path=a.md");
    let note = crate::support::within(inbox_rx.recv()).await.unwrap();
    exec.handle(note);
    assert_eq!(
        exec.state().chat.entries.last().unwrap().text,
        "Waiting for weather to connect… (Esc cancels the call)"
    );
    release.notify_one();
    let mut seen = Vec::new();
    pump(&mut exec, &mut route, &mut seen, |s| {
        statuses(s).first().is_some_and(|c| *c == CardStatus::Ok)
    })
    .await;
}
