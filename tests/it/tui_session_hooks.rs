//! Session hooks as the TUI shows them: a blocked message says which hook and why
//! and ends the turn; a stop hook's reason to go on is a note in the transcript.
#![allow(clippy::unwrap_used)]

use crate::support;

use crate::support::tui::ev;
use crate::support::tui::shot;
use switchboard::agent::{AgentEvent, TurnEnd};
use switchboard::keymap::{Key, KeyCode};
use switchboard::llm::Usage;
use switchboard::tui::state::{ChatKind, State};
use switchboard::tui::{Msg, update};

fn sent(text: &str) -> State {
    let mut s = support::tui::booted();
    s.chat.entries.clear();
    ev(
        &mut s,
        AgentEvent::SessionStarted {
            session_id: "s1".into(),
            provider: "scripted".into(),
            model: "offline".into(),
            step_mode: false,
            workspace: None,
            tools: None,
        },
    );
    update(&mut s, Msg::Paste(text.into()));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    ev(
        &mut s,
        AgentEvent::TurnStarted {
            run_id: "r1".into(),
            text: text.into(),
        },
    );
    s
}

fn done(s: &mut State, reason: TurnEnd) {
    ev(
        s,
        AgentEvent::TurnDone {
            run_id: "r1".into(),
            reason,
            steps: 0,
            usage: Usage::default(),
            approvals_denied: 0,
            failed_calls: 0,
        },
    );
}

#[test]
fn a_blocked_message_shows_the_hook_and_ends_the_turn() {
    let mut s = sent("my password is hunter2");
    assert_eq!(s.turn.run.as_deref(), Some("r1"));
    ev(
        &mut s,
        AgentEvent::Error {
            run_id: Some("r1".into()),
            message: "Message blocked by hook `./guard.sh`: no secrets in prompts".into(),
        },
    );
    done(&mut s, TurnEnd::Blocked);
    assert_eq!(s.turn.run, None);
    let kinds: Vec<ChatKind> = s.chat.entries.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [ChatKind::User, ChatKind::Error], "no extra note");
    insta::assert_snapshot!("hook_blocked_message", shot(&s, 80, 16));
}

#[test]
fn a_stop_hook_note_is_shown_before_the_turn_goes_on() {
    let mut s = sent("fix it");
    ev(
        &mut s,
        AgentEvent::ModelResponse {
            run_id: "r1".into(),
            step: 1,
            text: "Done.".into(),
            tool_calls: vec![],
            finish: None,
        },
    );
    ev(
        &mut s,
        AgentEvent::HookNote {
            run_id: "r1".into(),
            hook: "stop".into(),
            text: "[stop hook `./stop.sh`] run the tests before you finish".into(),
        },
    );
    let last = s.chat.entries.last().unwrap();
    assert_eq!(last.kind, ChatKind::Note);
    assert_eq!(
        last.text,
        "stop hook: [stop hook `./stop.sh`] run the tests before you finish"
    );
    assert_eq!(s.turn.run.as_deref(), Some("r1"), "the turn goes on");
}
