//! The approval pane: keys answer the front request; snapshots of what it shows.
#![allow(clippy::unwrap_used)]

use crate::support;

use crate::support::tui::gate;
use serde_json::json;
use switchboard::agent::AgentEvent;
use switchboard::gate::{
    ApprovalDecision, ApprovalId, ApprovalRequest, CallEnd, CallId, GateEvent, Preview, Ruling,
};
use switchboard::keymap::{Key, KeyCode};
use switchboard::tools::{Origin, ToolEffect};
use switchboard::tui::approval::ApprovalStage;
use switchboard::tui::cards::CardStatus;
use switchboard::tui::state::State;
use switchboard::tui::{CallCmd, Cmd, GateCmd, Msg, SessionCmd, update};

fn state() -> State {
    let mut s = support::tui::booted();
    s.always_file = "/home/me/proj/switchboard.toml".into();
    s
}

fn request(id: u64, tool: &str, effect: ToolEffect) -> ApprovalRequest {
    ApprovalRequest {
        id: ApprovalId(id),
        call_id: CallId::new(format!("c{id}")),
        run_id: "run-1".into(),
        origin: Origin::Model,
        client: None,
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
    gate(s, GateEvent::ApprovalRequested(r));
}

fn key(c: char) -> Msg {
    Msg::Key(Key::char(c))
}

fn decide(id: u64, decision: ApprovalDecision) -> Cmd {
    Cmd::Gate(GateCmd::Decide {
        id: ApprovalId(id),
        decision,
    })
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
fn esc_aborts_every_waiting_call_and_the_turn() {
    let mut s = state();
    s.chat.entries.clear();
    s.turn.run = Some("run-1".into());
    let mut requests = vec![
        request(1, "fs", ToolEffect::Write),
        request(2, "fs", ToolEffect::Delete),
        request(3, "shell", ToolEffect::Compute),
    ];
    requests[2].run_id = "manual-1".into();
    requests[2].origin = Origin::Manual;
    for r in &requests {
        update(
            &mut s,
            Msg::Agent(Box::new(AgentEvent::ToolCallRequested {
                run_id: r.run_id.clone(),
                call_id: r.call_id.clone(),
                tool: r.tool.clone(),
                args: r.args.clone(),
                origin: r.origin,
            })),
        );
        arrive(&mut s, r.clone());
    }
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))),
        vec![
            decide(1, ApprovalDecision::Abort),
            decide(2, ApprovalDecision::Abort),
            decide(3, ApprovalDecision::Abort),
            Cmd::Session(SessionCmd::Op(switchboard::agent::Op::Interrupt {
                run_id: "run-1".into()
            })),
        ]
    );
    assert!(s.approvals.is_empty());
    // The gate reports each call aborted; every card says so.
    for r in &requests {
        gate(
            &mut s,
            GateEvent::ToolCallFinished {
                call_id: r.call_id.clone(),
                run_id: r.run_id.clone(),
                tool: r.tool.clone(),
                outcome: CallEnd::Aborted,
                ruling: Some(Ruling::new(
                    switchboard::policy::DecidedBy::User,
                    "mode ask",
                )),
                summary: String::new(),
                duration_ms: 5,
            },
        );
    }
    let statuses: Vec<_> = s
        .chat
        .entries
        .iter()
        .filter_map(|e| e.card.as_ref().map(|c| c.status))
        .collect();
    assert_eq!(statuses, vec![CardStatus::Aborted; 3]);
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
        Msg::Agent(Box::new(AgentEvent::Gate(GateEvent::ApprovalResolved {
            call_id: CallId::new("c1"),
            run_id: "run-1".into(),
            id: ApprovalId(1),
            decision: ApprovalDecision::Abort,
        }))),
    );
    assert!(s.approvals.is_empty());
    assert_eq!(s.approvals.len(), 0);
}

#[test]
fn call_from_the_composer_goes_to_the_gate() {
    let mut s = state();
    s.catalog.items.tools.push(listed("fs"));
    for c in "/call fs operation=read path=README.md".chars() {
        update(&mut s, key(c));
    }
    let cmds = update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    let Cmd::Call(CallCmd::CallTool {
        call_id,
        tool,
        args,
    }) = &cmds[0]
    else {
        panic!("{cmds:?}");
    };
    assert_eq!(call_id, &CallId::new("manual-1"));
    assert_eq!(tool, "fs");
    assert_eq!(
        serde_json::Value::Object(args.clone()),
        json!({"operation": "read", "path": "README.md"})
    );
    manual_call(&mut s, "manual-1", "fs");
    gate(
        &mut s,
        GateEvent::ToolCallFinished {
            call_id: CallId::new("manual-1"),
            run_id: "manual-1".into(),
            tool: "fs".into(),
            outcome: CallEnd::Denied,
            ruling: Some(Ruling::new(
                switchboard::policy::DecidedBy::Policy,
                "rule deny = \"fs(*)\"",
            )),
            summary: "Denied".into(),
            duration_ms: 1,
        },
    );
    let card = s.chat.entries.last().unwrap().card.clone().unwrap();
    assert_eq!(card.status, CardStatus::Denied);
    assert_eq!(card.decided.as_deref(), Some("rule deny = \"fs(*)\""));
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
    insta::assert_snapshot!("approval_write_diff", support::tui::shot(&s, 100, 30));
    insta::assert_snapshot!("approval_narrow_60x20", support::tui::shot(&s, 60, 20));

    let mut s = state();
    let mut first = request(1, "shell", ToolEffect::Compute);
    first.preview = Some(Preview::Command("git status --short".into()));
    first.args = json!({"program": "git", "args": ["status", "--short"]});
    first.session_grant = "shell compute calls matching git status --short".into();
    arrive(&mut s, first);
    arrive(&mut s, request(2, "fs", ToolEffect::Write));
    arrive(&mut s, request(3, "weather__delete", ToolEffect::Delete));
    insta::assert_snapshot!("approval_queue_of_three", support::tui::shot(&s, 100, 30));

    let mut s = state();
    s.confirm_delete_double = true;
    let mut del = request(1, "memory", ToolEffect::Delete);
    del.args = json!({"command": "delete", "path": "/memories/notes.md"});
    del.always_rule = "memory(delete:/memories/notes.md)".into();
    arrive(&mut s, del);
    update(&mut s, key('y'));
    insta::assert_snapshot!(
        "approval_delete_double_confirm",
        support::tui::shot(&s, 100, 30)
    );
    update(&mut s, Msg::Key(Key::plain(KeyCode::Esc)));
    update(&mut s, key('a'));
    insta::assert_snapshot!(
        "approval_always_shows_rule",
        support::tui::shot(&s, 100, 30)
    );

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
    let shot = support::tui::shot(&s, 100, 30);
    assert!(!shot.contains('\u{1b}'));
    insta::assert_snapshot!("approval_long_arguments_scrolled", shot);
}

#[test]
fn a_long_tool_name_loses_its_middle_not_the_badge_or_the_asker() {
    let name = "enterprise_github_mirror__create_pull_request_review_comment_with_suggestion";
    let mut s = state();
    arrive(&mut s, request(1, name, ToolEffect::Write));
    let shot = support::tui::shot(&s, 80, 24);
    assert!(shot.contains(" WRITE "), "{shot}");
    assert!(shot.contains("asked by the model"), "{shot}");
    assert!(shot.contains("…"), "{shot}");
    insta::assert_snapshot!("approval_long_tool_name", shot);
    // The card of the same call keeps its status and who decided.
    let mut s = state();
    manual_call(&mut s, "m1", name);
    gate(
        &mut s,
        GateEvent::ToolCallFinished {
            call_id: CallId::new("m1"),
            run_id: "m1".into(),
            tool: name.into(),
            outcome: CallEnd::Ok,
            ruling: Some(Ruling {
                by: switchboard::policy::DecidedBy::Policy,
                rule: "mode full-auto".into(),
                answer: None,
            }),
            summary: "ok".into(),
            duration_ms: 12,
        },
    );
    let shot = support::tui::shot(&s, 80, 24);
    assert!(shot.contains("· ok · 12 ms · by"), "{shot}");
    insta::assert_snapshot!("card_long_tool_name", shot);
}

/// What the executor records when it starts a call the person made.
fn manual_call(s: &mut State, id: &str, tool: &str) {
    update(
        s,
        Msg::Agent(Box::new(AgentEvent::ToolCallRequested {
            run_id: id.into(),
            call_id: CallId::new(id),
            tool: tool.into(),
            args: json!({"seconds": 30}),
            origin: Origin::Manual,
        })),
    );
}

#[test]
fn esc_cancels_a_running_manual_call() {
    let mut s = state();
    s.catalog.items.tools.push(listed("test__slow"));
    update(&mut s, Msg::Paste("/call test__slow seconds=30".into()));
    let cmds = update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    assert!(matches!(
        cmds.as_slice(),
        [Cmd::Call(CallCmd::CallTool { .. })]
    ));
    manual_call(&mut s, "manual-1", "test__slow");
    assert_eq!(s.open_manual_calls(), vec![CallId::new("manual-1")]);
    gate(
        &mut s,
        GateEvent::ToolCallStarted {
            call_id: CallId::new("manual-1"),
            run_id: "manual-1".into(),
            tool: "test__slow".into(),
            effect: ToolEffect::Read,
            origin: Origin::Manual,
        },
    );
    update(&mut s, Msg::Tick(2_300));
    let screen = support::tui::shot(&s, 100, 30);
    assert!(screen.contains("1 running · Esc cancels"), "{screen}");
    assert!(
        screen.contains("you → test__slow · read · running 2.3 s · Esc cancels"),
        "{screen}"
    );
    insta::assert_snapshot!("manual_call_running", screen);
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))),
        vec![Cmd::Call(CallCmd::CancelCalls(vec![CallId::new(
            "manual-1"
        )]))]
    );
    gate(
        &mut s,
        GateEvent::ToolCallFinished {
            call_id: CallId::new("manual-1"),
            run_id: "manual-1".into(),
            tool: "test__slow".into(),
            outcome: CallEnd::Cancelled,
            ruling: None,
            summary: String::new(),
            duration_ms: 2_300,
        },
    );
    assert!(s.open_manual_calls().is_empty());
    let screen = support::tui::shot(&s, 100, 30);
    assert!(
        screen.contains("test__slow · read · cancelled · 2.3 s"),
        "{screen}"
    );
    insta::assert_snapshot!("manual_call_cancelled", screen);
    // Nothing running: Esc leaves the composer as before.
    assert_eq!(update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))), vec![]);
}

/// A tool the catalog lists (so `/call` takes it).
fn listed(name: &str) -> switchboard::tui::state::CatalogEntry {
    switchboard::tui::state::CatalogEntry {
        name: name.into(),
        ..Default::default()
    }
}

#[test]
fn the_running_timer_counts_from_the_start_not_the_request_or_the_wait() {
    let mut s = state();
    manual_call(&mut s, "m1", "slow");
    // A step pause or a queue before the gate took 5 s.
    update(&mut s, Msg::Tick(5_000));
    gate(
        &mut s,
        GateEvent::ToolCallStarted {
            call_id: CallId::new("m1"),
            run_id: "m1".into(),
            tool: "slow".into(),
            effect: ToolEffect::Write,
            origin: Origin::Manual,
        },
    );
    update(&mut s, Msg::Tick(6_500));
    let shot = support::tui::shot(&s, 100, 20);
    assert!(shot.contains("running 1.5 s"), "{shot}");
    // Waiting for the person does not count either.
    let mut asked = request(7, "slow", ToolEffect::Write);
    asked.call_id = CallId::new("m1");
    gate(&mut s, GateEvent::ApprovalRequested(asked));
    update(&mut s, Msg::Tick(60_000));
    gate(
        &mut s,
        GateEvent::ApprovalResolved {
            call_id: CallId::new("m1"),
            run_id: "m1".into(),
            id: ApprovalId(7),
            decision: ApprovalDecision::Once,
        },
    );
    update(&mut s, Msg::Tick(60_200));
    let shot = support::tui::shot(&s, 100, 20);
    assert!(shot.contains("running 200 ms"), "{shot}");
}
