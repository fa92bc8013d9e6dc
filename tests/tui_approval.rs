//! The approval pane: keys answer the front request; snapshots of what it shows.
#![allow(clippy::unwrap_used)]

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use switchboard::agent::{AgentEvent, ApprovalDecision, ApprovalId, ApprovalRequest, Preview};
use switchboard::config::Config;
use switchboard::keymap::{Key, KeyCode, Keymap};
use switchboard::theme::ThemeSet;
use switchboard::tools::{Origin, ToolEffect};
use switchboard::tui::approvals::ApprovalStage;
use switchboard::tui::boot::initial_state;
use switchboard::tui::state::State;
use switchboard::tui::ui::render;
use switchboard::tui::{Cmd, Msg, update};

fn state() -> State {
    let mut s = initial_state(
        &Config::default(),
        Keymap::default(),
        "default".into(),
        vec![],
    );
    s.always_file = "/home/me/proj/switchboard.toml".into();
    s
}

fn request(id: u64, tool: &str, effect: ToolEffect) -> ApprovalRequest {
    ApprovalRequest {
        id: ApprovalId(id),
        run_id: "run-1".into(),
        origin: Origin::Model,
        server: Some("builtin".into()),
        tool: tool.into(),
        effect,
        args: json!({"operation": "write", "path": "docs/notes.md", "content": "hello\nworld\n"}),
        reason: "mode ask: write calls need approval".into(),
        preview: None,
        always_rule: "fs(write:docs/notes.md)".into(),
        session_grant: "fs write calls".into(),
    }
}

fn arrive(s: &mut State, r: ApprovalRequest) {
    update(s, Msg::Agent(Box::new(AgentEvent::ApprovalRequested(r))));
}

fn key(c: char) -> Msg {
    Msg::Key(Key::char(c))
}

fn decide(id: u64, decision: ApprovalDecision) -> Cmd {
    Cmd::Decide {
        id: ApprovalId(id),
        decision,
    }
}

#[test]
fn y_approves_once_and_the_queue_advances() {
    let mut s = state();
    arrive(&mut s, request(1, "fs", ToolEffect::Write));
    arrive(&mut s, request(2, "fs", ToolEffect::Write));
    arrive(&mut s, request(2, "fs", ToolEffect::Write)); // a repeat is not queued twice
    assert_eq!(s.approvals.len(), 2);
    assert_eq!(
        update(&mut s, key('y')),
        vec![decide(1, ApprovalDecision::Once)]
    );
    assert_eq!(s.approvals.len(), 1);
    assert_eq!(
        update(&mut s, key('s')),
        vec![decide(2, ApprovalDecision::Session)]
    );
    assert!(s.approvals.is_empty());
    // With nothing waiting, keys go back to the composer.
    update(&mut s, key('y'));
    assert_eq!(s.composer.text(), "y");
}

#[test]
fn always_shows_the_rule_first_then_writes_on_a_second_a() {
    let mut s = state();
    arrive(&mut s, request(1, "fs", ToolEffect::Write));
    assert_eq!(update(&mut s, key('a')), vec![]);
    assert_eq!(s.approvals[0].stage, ApprovalStage::ConfirmAlways);
    // Esc backs out of the confirmation instead of aborting the turn.
    assert_eq!(update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))), vec![]);
    assert_eq!(s.approvals[0].stage, ApprovalStage::Choose);
    update(&mut s, key('a'));
    assert_eq!(
        update(&mut s, key('a')),
        vec![decide(1, ApprovalDecision::Always)]
    );
}

#[test]
fn deny_with_reason_types_text_even_letters_that_are_keys() {
    let mut s = state();
    arrive(&mut s, request(1, "fs", ToolEffect::Write));
    update(&mut s, key('N'));
    for c in "not yet".chars() {
        assert_eq!(update(&mut s, key(c)), vec![]);
    }
    assert_eq!(
        s.approvals[0].stage,
        ApprovalStage::Reason("not yet".into())
    );
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Enter))),
        vec![decide(
            1,
            ApprovalDecision::Deny {
                reason: Some("not yet".into())
            }
        )]
    );
}

#[test]
fn plain_n_denies_without_reason() {
    let mut s = state();
    arrive(&mut s, request(1, "fs", ToolEffect::Write));
    assert_eq!(
        update(&mut s, key('n')),
        vec![decide(1, ApprovalDecision::Deny { reason: None })]
    );
}

#[test]
fn esc_aborts_the_turn_and_drops_its_other_requests() {
    let mut s = state();
    arrive(&mut s, request(1, "fs", ToolEffect::Write));
    arrive(&mut s, request(2, "fs", ToolEffect::Delete));
    let mut other = request(3, "shell", ToolEffect::Compute);
    other.run_id = "run-2".into();
    arrive(&mut s, other);
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))),
        vec![
            decide(1, ApprovalDecision::Abort),
            Cmd::AbortRun("run-1".into())
        ]
    );
    assert_eq!(s.approvals.len(), 1);
    assert_eq!(s.approvals[0].request.id, ApprovalId(3));
}

#[test]
fn double_confirm_for_delete() {
    let mut s = state();
    s.confirm_delete_double = true;
    arrive(&mut s, request(1, "fs", ToolEffect::Delete));
    assert_eq!(update(&mut s, key('y')), vec![]);
    assert_eq!(s.approvals[0].stage, ApprovalStage::ConfirmDelete);
    assert_eq!(
        update(&mut s, key('y')),
        vec![decide(1, ApprovalDecision::Once)]
    );
    // Writes are not affected.
    arrive(&mut s, request(2, "fs", ToolEffect::Write));
    assert_eq!(
        update(&mut s, key('y')),
        vec![decide(2, ApprovalDecision::Once)]
    );
}

#[test]
fn resolved_elsewhere_leaves_the_queue() {
    let mut s = state();
    arrive(&mut s, request(1, "fs", ToolEffect::Write));
    update(
        &mut s,
        Msg::Agent(Box::new(AgentEvent::ApprovalResolved {
            id: ApprovalId(1),
            decision: ApprovalDecision::Abort,
        })),
    );
    assert!(s.approvals.is_empty());
    assert_eq!(s.approvals.len(), 0);
}

#[test]
fn call_from_the_composer_goes_to_the_gate() {
    let mut s = state();
    for c in "/call fs operation=read path=README.md".chars() {
        update(&mut s, key(c));
    }
    let cmds = update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    let Cmd::CallTool { tool, args } = &cmds[0] else {
        panic!("{cmds:?}");
    };
    assert_eq!(tool, "fs");
    assert_eq!(
        serde_json::Value::Object(args.clone()),
        json!({"operation": "read", "path": "README.md"})
    );
    update(
        &mut s,
        Msg::CallDone {
            tool: "fs".into(),
            text: "Denied: denied by rule deny = \"fs(*)\".".into(),
            is_error: true,
        },
    );
    assert!(s.chat.last().unwrap().text.contains("Denied"));
}

fn snapshot(s: &State, w: u16, h: u16) -> String {
    let mut s = s.clone();
    s.size = (w, h);
    let theme = ThemeSet::new(None).load("default").unwrap();
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(&s, &theme, f)).unwrap();
    format!("{}", t.backend())
}

fn with_diff() -> ApprovalRequest {
    let mut r = request(1, "fs", ToolEffect::Write);
    r.preview = Some(Preview::Diff {
        path: "docs/notes.md".into(),
        unified:
            "--- a/docs/notes.md\n+++ b/docs/notes.md\n@@ -1,2 +1,2 @@\n hello\n-old line\n+world\n"
                .into(),
    });
    r
}

#[test]
fn snapshots() {
    let mut s = state();
    arrive(&mut s, with_diff());
    insta::assert_snapshot!("approval_write_diff", snapshot(&s, 100, 30));
    insta::assert_snapshot!("approval_narrow_60x20", snapshot(&s, 60, 20));

    let mut s = state();
    let mut first = request(1, "shell", ToolEffect::Compute);
    first.preview = Some(Preview::Command("git status --short".into()));
    first.args = json!({"program": "git", "args": ["status", "--short"]});
    first.session_grant = "shell compute calls matching git status --short".into();
    arrive(&mut s, first);
    arrive(&mut s, request(2, "fs", ToolEffect::Write));
    arrive(&mut s, request(3, "weather__delete", ToolEffect::Delete));
    insta::assert_snapshot!("approval_queue_of_three", snapshot(&s, 100, 30));

    let mut s = state();
    s.confirm_delete_double = true;
    let mut del = request(1, "memory", ToolEffect::Delete);
    del.args = json!({"command": "delete", "path": "/memories/notes.md"});
    del.always_rule = "memory(delete:/memories/notes.md)".into();
    arrive(&mut s, del);
    update(&mut s, key('y'));
    insta::assert_snapshot!("approval_delete_double_confirm", snapshot(&s, 100, 30));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Esc)));
    update(&mut s, key('a'));
    insta::assert_snapshot!("approval_always_shows_rule", snapshot(&s, 100, 30));

    let mut s = state();
    let mut long = request(1, "http", ToolEffect::Write);
    let lines: Vec<String> = (0..60)
        .map(|i| format!("line {i} \u{1b}[31mred\u{1b}[0m"))
        .collect();
    long.args = json!({"url": "https://api.example.com/items", "method": "POST", "body": lines});
    arrive(&mut s, long);
    for _ in 0..25 {
        update(&mut s, Msg::Key(Key::plain(KeyCode::Down)));
    }
    let shot = snapshot(&s, 100, 30);
    assert!(!shot.contains('\u{1b}'));
    insta::assert_snapshot!("approval_long_arguments_scrolled", shot);
}

#[test]
fn esc_cancels_a_running_manual_call() {
    let mut s = state();
    update(&mut s, Msg::Paste("/call test__slow seconds=30".into()));
    let cmds = update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    assert!(matches!(cmds.as_slice(), [Cmd::CallTool { .. }]));
    assert_eq!(s.manual_running, 1);
    assert!(snapshot(&s, 100, 30).contains("1 running · Esc cancels"));
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))),
        vec![Cmd::CancelManual]
    );
    update(
        &mut s,
        Msg::CallDone {
            tool: "test__slow".into(),
            text: "mcp_call_failed: cancelled".into(),
            is_error: true,
        },
    );
    assert_eq!(s.manual_running, 0);
    // Nothing running: Esc leaves the composer as before.
    assert_eq!(update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))), vec![]);
}
