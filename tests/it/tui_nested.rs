//! Cards of nested and refused calls: a sub-agent's calls show under the card of the
//! `agent__NAME` call that made them; a full-scope sub-agent's approval is asked in the
//! same pane, naming the agent; a hook's denial names the hook. The real session
//! and gate (offline scripted providers) feed the TUI's `update`, as the runtime does.
#![allow(clippy::unwrap_used)]

use crate::support;

use std::path::Path;
use std::sync::Arc;

use switchboard::gate::ApprovalBroker;
use switchboard::keymap::Key;
use switchboard::policy::{Mode, Policy};
use switchboard::tools::Registry;
use switchboard::tui::cards::CardStatus;
use switchboard::tui::state::State;
use switchboard::tui::{GateCmd, Msg, update};

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
    let config = switchboard::settings::parse_str(&toml, Path::new("t.toml")).unwrap();
    let broker = Arc::new(ApprovalBroker::new(false));
    let registry = Arc::new(Registry::new(Policy::new(Mode::FullAuto), broker));
    let fs = support::gate::FakeTool::new(switchboard::tools::builtin_specs::fs_spec());
    registry.register(Arc::new(fs)).await.unwrap();
    switchboard::agents::register_agents(&registry, &config, dir.path()).await;

    support::tui::drive_turn(registry, MAIN).await
}

#[tokio::test]
async fn a_sub_agents_calls_nest_under_its_card_and_fold_when_it_is_done() {
    let mut state = nested_run().await;
    support::tui::zero_durations(&mut state);
    let card = state
        .chat
        .entries
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
    let flat = state
        .chat
        .entries
        .iter()
        .filter_map(|e| e.card.as_ref())
        .count();
    assert_eq!(flat, 1);
    let screen = support::tui::shot(&state, 100, 24);
    assert!(
        screen.contains("mode full-auto"),
        "the registry's mode: {screen}"
    );
    insta::assert_snapshot!("nested_folded", screen);
    update(&mut state, Msg::Key(Key::char('e')));
    assert!(state.chat.cards_expanded);
    insta::assert_snapshot!("nested_expanded", support::tui::shot(&state, 100, 24));
}

const MAIN_WRITES: &str = r#"{"tool_calls":[{"id":"w1","name":"fs","arguments":{"operation":"write","path":"a.txt","content":"x"}}]}
{"text":"the hook said no"}"#;

#[tokio::test]
async fn a_hook_denial_shows_on_the_card_with_the_hooks_reason() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let check = dir.path().join("check.sh");
    std::fs::write(
        &check,
        "#!/bin/sh\necho 'writes need a ticket' >&2\nexit 2\n",
    )
    .unwrap();
    std::fs::set_permissions(&check, std::fs::Permissions::from_mode(0o755)).unwrap();
    let toml = "[[hooks.pre_tool_use]]\nmatcher = \"fs\"\ncommand = [\"./check.sh\"]\n";
    let config = switchboard::settings::parse_str(toml, Path::new("t.toml")).unwrap();
    let hooks = switchboard::hooks::Hooks::from_config(&config.hooks)
        .unwrap()
        .with_cwd(dir.path());
    let broker = Arc::new(ApprovalBroker::new(false));
    let registry = Arc::new(Registry::new(Policy::new(Mode::FullAuto), broker).with_hooks(hooks));
    let fs = Arc::new(support::gate::FakeTool::new(
        switchboard::tools::builtin_specs::fs_spec(),
    ));
    registry.register(fs.clone()).await.unwrap();
    let mut state = support::tui::drive_turn(registry, MAIN_WRITES).await;
    support::tui::zero_durations(&mut state);
    assert_eq!(fs.calls(), 0, "the hook's deny stops the write");
    let card = state
        .chat
        .entries
        .iter()
        .find_map(|e| e.card.as_ref())
        .unwrap();
    assert_eq!(card.status, CardStatus::Denied);
    insta::assert_snapshot!("hook_denied_card", support::tui::shot(&state, 100, 24));
}

const SUB_FULL: &str = r#"{"tool_calls":[{"name":"fs","arguments":{"operation":"write","path":"notes.md","content":"from scout\n"}}]}
{"text":"wrote notes.md"}"#;

/// A full-scope sub-agent's write asks in the caller's approval pane, which names the
/// sub-agent; approving it there lets the write run and the agent finish.
#[tokio::test]
async fn the_approval_pane_names_the_sub_agent_that_asks() {
    use switchboard::agent::{AgentEvent, Op, Session, SessionOptions};
    use switchboard::tui::Cmd;
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub.jsonl");
    std::fs::write(&sub, SUB_FULL).unwrap();
    let toml = format!(
        "[providers.sub]\nkind = \"scripted\"\nscript = \"{}\"\n\n[agents.scout]\nprovider = \"sub\"\nscope = \"full\"\n",
        sub.display()
    );
    let config = switchboard::settings::parse_str(&toml, Path::new("t.toml")).unwrap();
    let broker = Arc::new(ApprovalBroker::new(true));
    let registry = Arc::new(Registry::new(Policy::new(Mode::Ask), Arc::clone(&broker)));
    let fs = Arc::new(support::gate::FakeTool::new(
        switchboard::tools::builtin_specs::fs_spec(),
    ));
    registry.register(fs.clone()).await.unwrap();
    switchboard::agents::register_agents(&registry, &config, dir.path()).await;
    let turns = switchboard::llm::scripted_script::parse_script(MAIN, "main").unwrap();
    let provider = switchboard::llm::ScriptedProvider::with_script(turns);
    let mut handle = Session::spawn(SessionOptions::new(Arc::new(provider), registry));
    handle.ops.send(Op::UserTurn { text: "go".into() }).unwrap();
    let mut state = support::tui::booted();
    state.always_file = "/home/me/proj/switchboard.toml".into();
    let mut next = async || {
        tokio::time::timeout(std::time::Duration::from_secs(30), handle.events.recv())
            .await
            .unwrap()
            .unwrap()
    };
    while state.approvals.is_empty() {
        let event = next().await;
        assert!(
            !matches!(event, AgentEvent::TurnDone { .. }),
            "no approval asked"
        );
        update(&mut state, Msg::Agent(Box::new(event)));
    }
    support::tui::zero_durations(&mut state);
    let pane = support::tui::shot(&state, 100, 30);
    assert!(pane.contains("sub-agent scout"), "{pane}");
    insta::assert_snapshot!("approval_asked_by_sub_agent", pane);

    // `y` answers through the broker, as the executor does; the write runs.
    let cmds = update(&mut state, Msg::Key(Key::char('y')));
    let [Cmd::Gate(GateCmd::Decide { id, decision })] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    assert!(broker.decide(*id, decision.clone()));
    loop {
        let event = next().await;
        let done = matches!(event, AgentEvent::TurnDone { .. });
        update(&mut state, Msg::Agent(Box::new(event)));
        if done {
            break;
        }
    }
    assert_eq!(fs.calls(), 1);
    let card = (state.chat.entries.iter().filter_map(|e| e.card.as_ref()))
        .find(|c| c.tool == "agent__scout")
        .unwrap();
    let children: Vec<(&str, CardStatus)> = (card.children.iter())
        .map(|c| (c.tool.as_str(), c.status))
        .collect();
    assert_eq!(children, vec![("fs", CardStatus::Ok)]);
}
