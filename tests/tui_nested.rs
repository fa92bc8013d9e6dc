//! A sub-agent's calls show nested under the card of the `agent__NAME` call that
//! made them: the real session and gate (offline scripted providers) feed the TUI's
//! `update`, as the runtime does.
#![allow(clippy::unwrap_used)]

mod gate_support;
mod tui_support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use switchboard::agent::{AgentEvent, Session, SessionOptions};
use switchboard::gate::ApprovalBroker;
use switchboard::keymap::Key;
use switchboard::llm::ScriptedProvider;
use switchboard::llm::scripted_script::parse_script;
use switchboard::policy::{Mode, Policy};
use switchboard::tools::Registry;
use switchboard::tui::cards::CardStatus;
use switchboard::tui::state::{Pane, State};
use switchboard::tui::{Msg, update};

const SUB: &str = r#"{"tool_calls":[{"name":"fs","arguments":{"operation":"list","path":"."}}]}
{"tool_calls":[{"name":"fs","arguments":{"operation":"write","path":"a.txt","content":"x"}}]}
{"text":"listed; the write was refused"}"#;
const MAIN: &str = r#"{"tool_calls":[{"id":"m1","name":"agent__scout","arguments":{"task":"tidy up"}}]}
{"text":"main done"}"#;

/// Runs one main turn (which calls the read-only `scout`) in full-auto, feeding
/// every event to the TUI.
async fn nested_run() -> State {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub.jsonl");
    std::fs::write(&sub, SUB).unwrap();
    let toml = format!(
        "[providers.sub]\nkind = \"scripted\"\nscript = \"{}\"\n\n[agents.scout]\nprovider = \"sub\"\n",
        sub.display()
    );
    let config = switchboard::config::parse_str(&toml, Path::new("t.toml")).unwrap();
    let broker = Arc::new(ApprovalBroker::new(false));
    let registry = Arc::new(Registry::new(Policy::new(Mode::FullAuto), broker));
    let fs = gate_support::FakeTool::new(switchboard::tools::builtin_specs::fs_spec());
    registry.register(Arc::new(fs)).await.unwrap();
    switchboard::agents::register_agents(&registry, &config, dir.path()).await;

    let turns = parse_script(MAIN, "main").unwrap();
    let options = SessionOptions::new(Arc::new(ScriptedProvider::with_script(turns)), registry);
    let mut handle = Session::spawn(options);
    handle
        .ops
        .send(switchboard::agent::Op::UserTurn { text: "go".into() })
        .unwrap();
    let mut state = tui_support::booted();
    state.focus = Pane::Chat;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), handle.events.recv())
            .await
            .unwrap()
            .unwrap();
        let done = matches!(event, AgentEvent::TurnDone { .. });
        update(&mut state, Msg::Agent(Box::new(event)));
        if done {
            break;
        }
    }
    state
}

#[tokio::test]
async fn a_sub_agents_calls_nest_under_its_card_and_fold_when_it_is_done() {
    let mut state = nested_run().await;
    let card = state
        .chat
        .iter()
        .filter_map(|e| e.card.as_ref())
        .find(|c| c.tool == "agent__scout")
        .unwrap();
    let children: Vec<(&str, CardStatus)> = (card.children.iter())
        .map(|c| (c.tool.as_str(), c.status))
        .collect();
    assert_eq!(
        children,
        vec![("fs", CardStatus::Ok), ("fs", CardStatus::Denied)]
    );
    // No flat card of the sub-agent's own: its calls live under the agent's card.
    let flat = state.chat.iter().filter_map(|e| e.card.as_ref()).count();
    assert_eq!(flat, 1);
    insta::assert_snapshot!("nested_folded", tui_support::shot(&state, 100, 24));
    update(&mut state, Msg::Key(Key::char('e')));
    assert!(state.cards_expanded);
    insta::assert_snapshot!("nested_expanded", tui_support::shot(&state, 100, 24));
}
