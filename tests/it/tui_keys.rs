//! Footers and titles name the keys from the key table: a key rebound in `[ui.keys]`
//! is the key they show, and the one that works.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use crate::support;

use serde_json::json;
use switchboard::gate::{ApprovalDecision, ApprovalId, ApprovalRequest, CallId, GateEvent};
use switchboard::keymap::{Key, Keymap};
use switchboard::mcp::{Ask, SamplingRequest};
use switchboard::tools::{Origin, ToolEffect};
use switchboard::tui::login::{LoginPhase, LoginView};
use switchboard::tui::state::{Overlay, State};
use switchboard::tui::{Cmd, GateCmd, Msg, update};

/// The booted state with the keys of a config's `[ui.keys]`.
fn with_keys(config: &str) -> State {
    let config = switchboard::config::parse_str(config, Path::new("config.toml")).unwrap();
    let mut s = support::tui::booted();
    s.keymap = Keymap::with_overrides(&config.ui.keys).unwrap();
    s
}

fn approval() -> ApprovalRequest {
    ApprovalRequest {
        id: ApprovalId(1),
        call_id: CallId::new("c1"),
        run_id: "run-1".into(),
        origin: Origin::Model,
        client: None,
        server: Some("builtin".into()),
        tool: "fs".into(),
        effect: ToolEffect::Write,
        args: json!({"operation": "write", "path": "notes.md"}),
        reason: "mode ask: write calls need approval".into(),
        preview: None,
        always_rule: "fs(write:notes.md)".into(),
        session_grant: "fs write calls".into(),
    }
}

#[test]
fn remapped_keys_show_in_the_approval_footer() {
    let config = "[ui.keys]\nabort_turn = \"ctrl+x\"\n[ui.keys.approval]\napprove_once = \"Y\"\n";
    let mut s = with_keys(config);
    support::tui::gate(&mut s, GateEvent::ApprovalRequested(approval()));
    let shot = support::tui::shot(&s, 120, 30);
    assert!(shot.contains("Y once  s session"), "{shot}");
    assert!(shot.contains("Ctrl+X abort turn"), "{shot}");
    assert!(!shot.contains("y once"), "{shot}");

    let mut default = support::tui::booted();
    support::tui::gate(&mut default, GateEvent::ApprovalRequested(approval()));
    let shot = support::tui::shot(&default, 120, 30);
    assert!(shot.contains("y once  s session"), "{shot}");
    assert!(shot.contains("Esc abort turn"), "{shot}");

    assert_eq!(update(&mut s, Msg::Key(Key::char('y'))), vec![]);
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('Y'))),
        vec![Cmd::Gate(GateCmd::Decide {
            id: ApprovalId(1),
            decision: ApprovalDecision::Once
        })]
    );
}

#[test]
fn remapped_keys_show_in_what_a_server_asks() {
    let mut s = with_keys("[ui.keys.ask]\napprove_once = \"ctrl+o\"\n");
    update(
        &mut s,
        Msg::Asked {
            id: 7,
            ask: Box::new(Ask::Sample(SamplingRequest {
                server: "srv".into(),
                params: json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10}),
            })),
        },
    );
    let shot = support::tui::shot(&s, 100, 30);
    assert!(shot.contains("Ctrl+O send to the model"), "{shot}");
    // The approval pane keeps its own `y`.
    assert_eq!(
        s.keymap.hint(
            switchboard::keymap::Layer::Approval,
            switchboard::keymap::Action::ApproveOnce
        ),
        "y"
    );
}

#[test]
fn remapped_keys_show_in_the_login_overlay_and_the_help_title() {
    let mut s = with_keys(
        "[ui.keys]\nlogin = \"L\"\n[ui.keys.form]\nclose = \"ctrl+g\"\n[ui.keys.help]\nclose = \"x\"\n",
    );
    s.overlays.replace_top(Overlay::Login(LoginView {
        server: "remote".into(),
        phase: LoginPhase::Failed("refused".into()),
        pasted: String::new(),
    }));
    let shot = support::tui::shot(&s, 100, 30);
    assert!(shot.contains("Ctrl+G close (then L tries again)"), "{shot}");

    s.overlays.replace_top(Overlay::Help { scroll: 0 });
    let shot = support::tui::shot(&s, 100, 30);
    assert!(shot.contains("Keys · x closes"), "{shot}");
}
