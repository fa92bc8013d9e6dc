//! A TUI session with a model call, a `/call` and a `/read`, saved and reopened
//! (`--continue` replays the file): all three come back as cards, and only the model's
//! call is in the conversation the model gets back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use crate::support::tui::type_line;
use switchboard::agent::{AgentEvent, Op, Session, SessionOptions, SessionStore};
use switchboard::gate::ApprovalBroker;
use switchboard::llm::{Message, ScriptedProvider};
use switchboard::policy::{Mode, Origin, Policy};
use switchboard::tools::Registry;
use switchboard::tools::builtin_specs::fs_spec;
use switchboard::tui::cards::{CardKind, CardStatus};
use switchboard::tui::executor::Executor;
use switchboard::tui::{Msg, State};

fn cards(state: &State) -> Vec<(String, Origin, CardKind, CardStatus)> {
    state
        .chat
        .entries
        .iter()
        .filter_map(|e| e.card.as_ref())
        .map(|c| (c.tool.clone(), c.origin, c.kind, c.status))
        .collect()
}

#[tokio::test]
async fn manual_calls_and_model_calls_come_back_with_continue() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let broker = Arc::new(ApprovalBroker::new(true));
    let registry = Arc::new(Registry::new(Policy::new(Mode::FullAuto), broker));
    registry
        .register(Arc::new(support::gate::FakeTool::new(fs_spec())))
        .await
        .unwrap();
    let mut options = SessionOptions::new(Arc::new(ScriptedProvider::new()), registry.clone());
    options.store = Some(store.clone());
    let mut handle = Session::spawn(options);
    let (inbox, _inbox_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut state = support::tui::state();
    state.catalog.items.tools = registry
        .specs()
        .iter()
        .map(switchboard::tui::boot::tool_entry)
        .collect();
    let mut exec = Executor::new(state, registry, handle.recorder.clone(), inbox);
    handle.send(Op::UserTurn {
        text: r#"fs {"operation":"read","path":"a.txt"}"#.into(),
    });
    type_line(&mut exec, "/call fs operation=list path=.");
    type_line(&mut exec, "/read files test://a");
    // Everything the session's route delivers, until the turn and both calls ended.
    let done = |s: &State| {
        s.turn.run.is_none() && cards(s).len() == 3 && cards(s).iter().all(|c| !c.3.is_open())
    };
    while !done(exec.state()) {
        let event = tokio::time::timeout(Duration::from_secs(10), handle.next_event())
            .await
            .expect("quiet")
            .unwrap();
        exec.handle(Msg::Agent(Box::new(event)));
    }
    let live = cards(exec.state());

    let loaded = store.load(&handle.id).unwrap();
    let mut reopened = support::tui::state();
    switchboard::tui::boot::replay(&mut reopened, &loaded);
    let mut back = cards(&reopened);
    back.sort_by(|a, b| a.0.cmp(&b.0));
    let mut expected = live.clone();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(back, expected);
    assert!(
        back.contains(&("fs".into(), Origin::Manual, CardKind::Tool, CardStatus::Ok)),
        "{back:?}"
    );
    assert!(back.contains(&("fs".into(), Origin::Model, CardKind::Tool, CardStatus::Ok)));
    assert!(
        back.iter().any(|c| c.0 == "read files test://a"),
        "{back:?}"
    );
    // A new call after reopening does not reuse the restored id.
    assert_eq!(reopened.manual_calls, 2);

    // The model gets back its own call only.
    let tool_messages = loaded
        .messages()
        .into_iter()
        .filter(|m| matches!(m, Message::Tool { .. }))
        .count();
    assert_eq!(tool_messages, 1);
    let events: Vec<&AgentEvent> = loaded.events.iter().map(|e| &e.event).collect();
    let manual = switchboard::agent::transcript::manual_calls_from_events(events);
    assert_eq!(manual.len(), 2);
}
