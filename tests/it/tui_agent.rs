//! Agent turns and MCP servers as the TUI shows them: events in, whole states and
//! snapshots out.
#![allow(clippy::unwrap_used)]

use crate::support;
use std::sync::Arc;

use crate::support::tui::ev;
use crate::support::tui::gate;
use serde_json::json;
use switchboard::agent::{AgentEvent, Op, StepPause, TurnEnd};
use switchboard::gate::{Answer, CallEnd, CallId, GateEvent, Ruling};
use switchboard::keymap::{Key, KeyCode};
use switchboard::llm::Usage;
use switchboard::mcp::{
    CatalogSnapshot, HubSnapshot, McpError, ServerInfo, ServerSnapshot, ServerStatus, TransportKind,
};
use switchboard::policy::DecidedBy;
use switchboard::tools::{Origin, ToolEffect};
use switchboard::tui::cards::CardStatus;
use switchboard::tui::hub_view::{catalog, server_rows};
use switchboard::tui::state::{ServerRow, ServerStatus as Row, State};
use switchboard::tui::{CallCmd, Cmd, GateCmd, Msg, ServerCmd, SessionCmd, update};

fn state() -> State {
    let mut s = support::tui::booted();
    s.chat.entries.clear();
    s
}

use crate::support::tui::shot;

fn started(s: &mut State) {
    ev(
        s,
        AgentEvent::SessionStarted {
            session_id: "s1".into(),
            provider: "scripted".into(),
            model: "offline".into(),
            step_mode: false,
            workspace: None,
            tools: None,
        },
    );
    update(s, Msg::Paste("list the docs".into()));
    update(s, Msg::Key(Key::plain(KeyCode::Enter)));
    ev(
        s,
        AgentEvent::TurnStarted {
            run_id: "r1".into(),
            text: "list the docs".into(),
        },
    );
}

#[test]
fn streamed_text_becomes_one_markdown_answer() {
    let mut s = state();
    started(&mut s);
    for piece in ["Here is **the", " plan**:\n\n- read", "\n- write"] {
        ev(
            &mut s,
            AgentEvent::TextDelta {
                run_id: "r1".into(),
                text: piece.into(),
            },
        );
    }
    assert_eq!(
        s.chat.entries.len(),
        2,
        "one user entry, one growing answer"
    );
    assert_eq!(s.chat.entries[1].streaming.as_deref(), Some("r1"));
    insta::assert_snapshot!("agent_streaming", shot(&s, 100, 30));
    ev(
        &mut s,
        AgentEvent::ModelResponse {
            run_id: "r1".into(),
            step: 1,
            text: "Here is **the plan**:\n\n- read\n- write".into(),
            tool_calls: vec![],
            finish: None,
        },
    );
    assert_eq!(s.chat.entries[1].streaming, None);
    ev(
        &mut s,
        AgentEvent::Usage {
            run_id: "r1".into(),
            request: Usage::new(10, 5),
            turn: Usage::new(10, 5),
            session: Usage::new(120, 45),
        },
    );
    assert_eq!((s.status.tokens_in, s.status.tokens_out), (120, 45));
    ev(
        &mut s,
        AgentEvent::TurnDone {
            run_id: "r1".into(),
            reason: TurnEnd::Completed,
            steps: 1,
            usage: Usage::new(10, 5),
            approvals_denied: 0,
            failed_calls: 0,
        },
    );
    assert_eq!(s.turn.run, None);
    let screen = shot(&s, 100, 30);
    assert!(!screen.contains("**"), "no raw markdown markers");
}

fn request_call(s: &mut State, id: &str, tool: &str) {
    ev(
        s,
        AgentEvent::ToolCallRequested {
            run_id: "r1".into(),
            call_id: CallId::new(id),
            tool: tool.into(),
            args: json!({"operation": "write", "path": "notes.md", "content": "hi"}),
            origin: Origin::Model,
        },
    );
}

fn started_at_gate(s: &mut State, id: &str) {
    gate(
        s,
        GateEvent::ToolCallStarted {
            call_id: CallId::new(id),
            run_id: "r1".into(),
            tool: "fs".into(),
            effect: ToolEffect::Write,
            origin: Origin::Model,
        },
    );
}

fn finished(s: &mut State, id: &str, outcome: CallEnd, ruling: Ruling) -> Vec<Cmd> {
    gate(
        s,
        GateEvent::ToolCallFinished {
            call_id: CallId::new(id),
            run_id: "r1".into(),
            tool: "fs".into(),
            outcome,
            ruling: Some(ruling),
            summary: String::new(),
            duration_ms: 1200,
        },
    )
}

fn result(s: &mut State, id: &str, is_error: bool, content: &str) {
    ev(
        s,
        AgentEvent::ToolResult {
            run_id: "r1".into(),
            call_id: CallId::new(id),
            tool: "fs".into(),
            is_error,
            content: content.into(),
            truncated: false,
            outcome: None,
            structured: None,
        },
    );
}

#[test]
fn tool_cards_follow_the_gate_by_call_id() {
    let mut s = state();
    started(&mut s);
    for id in ["c1", "c2", "c3", "c4", "c5"] {
        request_call(&mut s, id, "fs");
    }
    let card = |s: &State, i: usize| s.chat.entries[i].card.clone().unwrap();
    // The gate's events name their call: c4 enters the gate before c1.
    started_at_gate(&mut s, "c4");
    assert_eq!(card(&s, 4).status, CardStatus::Running);
    assert_eq!(card(&s, 1).status, CardStatus::Requested);
    // c1 runs and succeeds, allowed by a session grant.
    started_at_gate(&mut s, "c1");
    let grant = Ruling::new(DecidedBy::Policy, "session grant (fs write calls)");
    let cmds = finished(&mut s, "c1", CallEnd::Ok, grant);
    assert_eq!(
        cmds,
        vec![Cmd::Gate(GateCmd::RefreshGrants)],
        "a finished call refreshes grants"
    );
    result(&mut s, "c1", false, "wrote notes.md (2 bytes)");
    assert_eq!(card(&s, 1).status, CardStatus::Ok);
    assert_eq!(
        card(&s, 1).decided.as_deref(),
        Some("session grant (fs write calls)")
    );
    // c2 is denied by the person; c3 fails in the tool; c5 is cancelled.
    started_at_gate(&mut s, "c2");
    let mut you = Ruling::new(DecidedBy::User, "mode ask: write calls need approval");
    you.answer = Some(Answer::Deny);
    finished(&mut s, "c2", CallEnd::Denied, you);
    result(
        &mut s,
        "c2",
        true,
        "Denied by the user. The user's reason: not now",
    );
    started_at_gate(&mut s, "c3");
    result(&mut s, "c3", true, "refused: `../x` leaves the workspace");
    started_at_gate(&mut s, "c5");
    let mode = Ruling::new(DecidedBy::Policy, "mode auto: write calls run");
    finished(&mut s, "c5", CallEnd::Cancelled, mode);
    assert_eq!(
        card(&s, 2).status,
        CardStatus::Denied,
        "denied stays denied"
    );
    assert_eq!(card(&s, 2).decided.as_deref(), Some("you (denied)"));
    assert_eq!(card(&s, 3).status, CardStatus::Error);
    assert_eq!(card(&s, 4).status, CardStatus::Running);
    assert_eq!(card(&s, 5).status, CardStatus::Cancelled);
    insta::assert_snapshot!("agent_tool_cards", shot(&s, 100, 30));
}

#[test]
fn step_mode_pauses_take_n_and_c() {
    let mut s = state();
    assert_eq!(
        update(&mut s, Msg::Key(Key::ctrl('t'))),
        vec![Cmd::Session(SessionCmd::Op(Op::ToggleStepMode))]
    );
    ev(&mut s, AgentEvent::StepModeChanged { on: true });
    assert!(s.status.step_mode);
    started(&mut s);
    ev(
        &mut s,
        AgentEvent::StepPaused {
            run_id: "r1".into(),
            pause: StepPause::ModelRequest {
                step: 1,
                messages: 2,
                tools: vec!["fs".into(), "shell".into()],
                last_message: "list the docs".into(),
            },
        },
    );
    insta::assert_snapshot!("agent_step_before_request", shot(&s, 100, 30));
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('n'))),
        vec![Cmd::Session(SessionCmd::Op(Op::StepNext))]
    );
    assert_eq!(s.turn.step_pause, None);
    ev(
        &mut s,
        AgentEvent::StepPaused {
            run_id: "r1".into(),
            pause: StepPause::ToolCall {
                tool_call_id: "c1".into(),
                tool: "fs".into(),
                args: json!({"operation": "read", "path": "README.md"}),
            },
        },
    );
    insta::assert_snapshot!("agent_step_before_tool", shot(&s, 100, 30));
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('c'))),
        vec![Cmd::Session(SessionCmd::Op(Op::StepContinue))]
    );
}

#[test]
fn keys_typed_into_the_composer_during_a_step_pause_are_kept() {
    use switchboard::tui::state::Pane;
    let mut s = state();
    started(&mut s);
    ev(&mut s, AgentEvent::StepModeChanged { on: true });
    ev(
        &mut s,
        AgentEvent::StepPaused {
            run_id: "r1".into(),
            pause: StepPause::ModelRequest {
                step: 1,
                messages: 2,
                tools: vec![],
                last_message: "list the docs".into(),
            },
        },
    );
    assert_eq!(s.focus, Pane::Composer);
    // A key the pause has no use for is typed; once the composer holds text, the
    // pause's own keys are typed too, and the pause still waits.
    for c in "hi, now continue".chars() {
        assert_eq!(update(&mut s, Msg::Key(Key::char(c))), vec![], "{c:?}");
    }
    assert_eq!(s.composer.text(), "hi, now continue");
    assert!(s.turn.step_pause.is_some());
    let screen = shot(&s, 100, 30);
    assert!(
        screen.contains("paused: send or clear to step (n)"),
        "{screen}"
    );
    insta::assert_snapshot!("agent_step_pause_while_typing", screen);
    // Cleared (Ctrl+U), `n` steps again.
    update(&mut s, Msg::Key(Key::ctrl('u')));
    assert!(s.composer.is_blank());
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('n'))),
        vec![Cmd::Session(SessionCmd::Op(Op::StepNext))]
    );
}

#[test]
fn esc_interrupts_a_running_turn() {
    let mut s = state();
    started(&mut s);
    request_call(&mut s, "c1", "fs");
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))),
        vec![Cmd::Session(SessionCmd::Op(Op::Interrupt {
            run_id: "r1".into()
        })),]
    );
    ev(
        &mut s,
        AgentEvent::TurnDone {
            run_id: "r1".into(),
            reason: TurnEnd::Interrupted,
            steps: 1,
            usage: Usage::default(),
            approvals_denied: 0,
            failed_calls: 0,
        },
    );
    assert_eq!(
        s.chat.entries[1].card.clone().unwrap().status,
        CardStatus::Aborted
    );
    insta::assert_snapshot!("agent_interrupted", shot(&s, 100, 30));
    // With no turn running, Esc leaves the composer instead.
    assert_eq!(update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))), vec![]);
}

fn hub() -> HubSnapshot {
    let mut ready = ServerSnapshot::new(
        "weather",
        TransportKind::Stdio,
        "weather-mcp".into(),
        ServerStatus::Ready,
    );
    ready.info = Some(Arc::new(ServerInfo {
        name: "weather".into(),
        title: None,
        version: "1.2.0".into(),
        protocol_version: "2025-11-25".into(),
        era: "2025-11-25",
        capabilities: json!({"tools": {}, "resources": {}}),
        instructions: Some("Ask for a city first.".into()),
    }));
    ready.catalog = Arc::new(CatalogSnapshot::default());
    ready.sandboxed = true;
    let failed = ServerSnapshot::new(
        "search",
        TransportKind::Http,
        "https://mcp.example.com/mcp".into(),
        ServerStatus::Failed {
            error: McpError::Handshake {
                server: "search".into(),
                reason: "connection refused".into(),
            },
            retry_in: None,
        },
    );
    let connecting = ServerSnapshot::new(
        "slow",
        TransportKind::Sse,
        "http://127.0.0.1:9/sse".into(),
        ServerStatus::Connecting { attempt: 2 },
    );
    HubSnapshot {
        servers: vec![Arc::new(ready), Arc::new(failed), Arc::new(connecting)],
    }
}

#[test]
fn servers_pane_shows_each_hub_state() {
    let mut s = state();
    let rows = server_rows(&s.servers.rows, &hub());
    let statuses: Vec<Row> = rows.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        vec![Row::Builtin, Row::Ready, Row::Failed, Row::Connecting]
    );
    assert!(
        rows[2]
            .detail
            .as_deref()
            .unwrap()
            .contains("mcp_handshake_failed")
    );
    update(
        &mut s,
        Msg::Servers {
            rows,
            catalog: catalog(&[], &hub()),
            snapshot: Arc::new(hub()),
        },
    );
    s.focus = switchboard::tui::state::Pane::Servers;
    let pane = shot(&s, 100, 30);
    assert!(pane.contains("● weather  sandboxed · 0 too"), "{pane}");
    insta::assert_snapshot!("servers_ready_failed_connecting", pane);
    update(&mut s, Msg::Key(Key::char('j')));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    let detail = shot(&s, 100, 30);
    assert!(detail.contains("2025-11-25") && detail.contains("Ask for a city first."));
    assert!(detail.contains("on (Landlock)"), "{detail}");
    insta::assert_snapshot!("server_detail", detail);
    update(&mut s, Msg::Key(Key::plain(KeyCode::Esc)));
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('r'))),
        vec![Cmd::Server(ServerCmd::Reconnect("weather".into()))]
    );
    // d disables a running server and enables a disabled one (by reconnecting).
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('d'))),
        vec![Cmd::Server(ServerCmd::Disable("weather".into()))]
    );
    s.servers.rows[1].status = Row::Disabled;
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('d'))),
        vec![Cmd::Server(ServerCmd::Reconnect("weather".into()))]
    );
    update(&mut s, Msg::Key(Key::char('k')));
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('d'))),
        vec![],
        "the built-in server stays"
    );
}

#[test]
fn progress_shows_as_a_bar() {
    let mut s = state();
    update(
        &mut s,
        Msg::Progress {
            server: "test".into(),
            call_id: None,
            progress: 4.0,
            total: Some(10.0),
            message: Some("step 4".into()),
        },
    );
    assert_eq!(
        s.status.notice.clone().unwrap().text,
        "test ▕████░░░░░░▏ 40% step 4"
    );
}

#[test]
fn model_command_and_palette_switch_the_provider() {
    let mut s = state();
    s.providers = vec!["claude".into(), "scripted".into()];
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
    assert_eq!(s.session_id.as_deref(), Some("s1"));
    let send = |s: &mut State, text: &str| {
        update(s, Msg::Paste(text.into()));
        update(s, Msg::Key(Key::plain(KeyCode::Enter)))
    };
    assert_eq!(
        send(&mut s, "/model claude"),
        vec![Cmd::Session(SessionCmd::SwitchProvider {
            provider: Some("claude".into()),
            model: None
        })]
    );
    // The offline provider has no models: a word that names no provider is an error.
    assert_eq!(send(&mut s, "/model gpt-4o-mini"), vec![]);
    assert_eq!(send(&mut s, "/model"), vec![]);
    assert!(
        s.chat
            .entries
            .last()
            .unwrap()
            .text
            .contains("Using scripted/offline")
    );
    // Not while a turn runs.
    ev(
        &mut s,
        AgentEvent::TurnStarted {
            run_id: "r1".into(),
            text: "x".into(),
        },
    );
    assert_eq!(send(&mut s, "/model claude"), vec![]);
}

#[test]
fn e_expands_tool_cards() {
    let mut s = state();
    started(&mut s);
    request_call(&mut s, "c1", "fs");
    ev(
        &mut s,
        AgentEvent::ToolResult {
            run_id: "r1".into(),
            call_id: CallId::new("c1"),
            tool: "fs".into(),
            is_error: false,
            content: (1..=20)
                .map(|i| format!("line {i}"))
                .collect::<Vec<_>>()
                .join("\n"),
            truncated: false,
            outcome: None,
            structured: None,
        },
    );
    let folded = shot(&s, 100, 40);
    assert!(folded.contains("14 more lines (e shows all)") && !folded.contains("line 20"));
    s.focus = switchboard::tui::state::Pane::Chat;
    update(&mut s, Msg::Key(Key::char('e')));
    assert!(s.chat.cards_expanded);
    assert!(shot(&s, 100, 40).contains("line 20"));
}

#[test]
fn a_prompt_form_asks_for_its_first_fields_completions_as_it_opens() {
    use switchboard::tui::msg::CompletionTarget;
    use switchboard::tui::state::{CatalogEntry, CatalogTab, Overlay, Pane};
    let mut s = state();
    s.focus = Pane::Catalog;
    s.catalog.tab = CatalogTab::Prompts;
    s.catalog.items.prompts = vec![CatalogEntry {
        server: "files".into(),
        name: "review".into(),
        schema: Some(serde_json::json!({
            "type": "object",
            "properties": {"language": {"type": "string"}, "style": {"type": "string"}},
            "required": ["language"],
        })),
        ..CatalogEntry::default()
    }];
    // `c` in the list, without the detail view first.
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('c'))),
        completion(
            CompletionTarget::Prompt("review".into()),
            "language",
            "",
            &[]
        )
    );
    assert!(matches!(s.overlays.top(), Some(Overlay::Form(_))));
}

#[test]
fn template_form_completes_and_reads_the_expanded_uri() {
    use switchboard::tui::msg::CompletionTarget;
    use switchboard::tui::state::{CatalogEntry, CatalogTab, Overlay, Pane};
    let mut s = state();
    s.focus = Pane::Catalog;
    s.catalog.tab = CatalogTab::Templates;
    s.catalog.items.templates = vec![CatalogEntry {
        server: "files".into(),
        name: "by-id".into(),
        facts: vec![("uri template".into(), "test://items/{id}{?format}".into())],
        ..CatalogEntry::default()
    }];
    update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    // The form asks for the first field's completions as it opens.
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('c'))),
        completion(
            CompletionTarget::Template("test://items/{id}{?format}".into()),
            "id",
            "",
            &[]
        )
    );
    assert!(matches!(s.overlays.top(), Some(Overlay::Form(_))));
    // Typing asks the server for completions of that variable.
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('4'))),
        completion(
            CompletionTarget::Template("test://items/{id}{?format}".into()),
            "id",
            "4",
            &[]
        )
    );
    // A stale answer (for another value) is ignored; the current one is shown.
    update(
        &mut s,
        Msg::Completions {
            argument: "id".into(),
            value: "x".into(),
            values: vec!["x1".into()],
        },
    );
    update(
        &mut s,
        Msg::Completions {
            argument: "id".into(),
            value: "4".into(),
            values: vec!["42".into(), "43".into()],
        },
    );
    let screen = shot(&s, 100, 30);
    assert!(screen.contains("suggestions: 42, 43"), "{screen}");
    insta::assert_snapshot!("template_form_suggestions", screen);
    update(&mut s, Msg::Key(Key::plain(KeyCode::Right)));
    // Reaching the next field asks for its suggestions, with the values above it as
    // context (servers narrow by them).
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Down))),
        completion(
            CompletionTarget::Template("test://items/{id}{?format}".into()),
            "format",
            "",
            &[("id", "42")]
        )
    );
    for c in "json".chars() {
        update(&mut s, Msg::Key(Key::char(c)));
    }
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Enter))),
        vec![Cmd::Call(CallCmd::ReadResource {
            call_id: CallId::new("manual-1"),
            server: "files".into(),
            uri: "test://items/42?format=json".into()
        })]
    );
}

#[test]
fn a_server_row_names_its_era_when_it_has_room() {
    let mut s = state();
    let row = |name: &str, era: &str| ServerRow {
        name: name.into(),
        transport: "stdio".into(),
        era: Some(era.into()),
        status: Row::Ready,
        tools: 3,
        ..ServerRow::default()
    };
    s.servers.rows = vec![
        row("fs", "2026-07-28"),
        row("docs", "2025-11-25"),
        row("longer-name-server", "2026-07-28"),
    ];
    // The Servers pane is at its widest (40 columns) here.
    let screen = shot(&s, 180, 30);
    assert!(
        screen.contains("● fs  stdio · 2026-07-28 · 3 tools"),
        "{screen}"
    );
    assert!(
        screen.contains("● docs  stdio · 2025-11-25 · 3 tools"),
        "{screen}"
    );
    // No room: the tool count stays, the era is in the details (Enter).
    assert!(
        screen.contains("● longer-name-server  stdio · 3 tools"),
        "{screen}"
    );
}

/// The completion request a form sends to `files`.
fn completion(
    reference: switchboard::tui::msg::CompletionTarget,
    argument: &str,
    value: &str,
    context: &[(&str, &str)],
) -> Vec<Cmd> {
    vec![Cmd::Server(ServerCmd::Complete {
        server: "files".into(),
        reference,
        argument: argument.into(),
        value: value.into(),
        context: context
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    })]
}

/// `y` in Chat copies the newest entry in view: a card's whole result (not its folded
/// lines), or, scrolled back, the message at the bottom of the pane.
#[test]
fn y_in_chat_copies_the_newest_entry_in_view() {
    use switchboard::tui::UiCmd;
    use switchboard::tui::state::Pane;
    use switchboard::tui::state::{ChatEntry, ChatKind};
    let mut s = state();
    // A long first entry: scrolled to the top, it fills the pane.
    let long = (1..=60)
        .map(|i| format!("note {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    s.chat
        .entries
        .push(ChatEntry::new(ChatKind::Note, long.clone()));
    started(&mut s);
    request_call(&mut s, "c1", "fs");
    let text = (1..=30)
        .map(|i| format!("line {i}\n"))
        .collect::<Vec<_>>()
        .concat();
    result(&mut s, "c1", false, &text);
    s.focus = Pane::Chat;
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('y'))),
        vec![Cmd::Ui(UiCmd::CopyText(text.clone()))]
    );
    let screen = shot(&s, 100, 30);
    assert!(
        screen.contains("copied the result: 231 chars (OSC 52)"),
        "{screen}"
    );
    insta::assert_snapshot!("chat_copied", screen);
    // Scrolled back to the top, the entry at the bottom of the pane is the long note.
    update(&mut s, Msg::Key(Key::plain(KeyCode::Home)));
    assert_eq!(
        update(&mut s, Msg::Key(Key::char('y'))),
        vec![Cmd::Ui(UiCmd::CopyText(long))]
    );
}

/// `/` in Chat searches the transcript: Enter shows the newest match, `n` the next
/// older, `N` the next newer; the title counts them; the view scrolls to each.
#[test]
fn slash_in_chat_searches_and_n_moves_between_matches() {
    use switchboard::tui::state::{ChatEntry, ChatKind, Pane};
    let mut s = state();
    let filler = (1..=30)
        .map(|i| format!("filler {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    for text in [
        "the Alpha plan",
        filler.as_str(),
        "beta",
        "alpha again",
        filler.as_str(),
    ] {
        s.chat.entries.push(ChatEntry::new(ChatKind::Note, text));
    }
    s.focus = Pane::Chat;
    update(&mut s, Msg::Key(Key::char('/')));
    for c in "ALPHA".chars() {
        update(&mut s, Msg::Key(Key::char(c)));
    }
    assert!(shot(&s, 100, 30).contains("Chat · /ALPHA▏"));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    assert_eq!(s.chat.search.at, Some(3));
    let newest = shot(&s, 100, 30);
    assert!(
        newest.contains("/ALPHA 2/2") && newest.contains("alpha again"),
        "{newest}"
    );
    let at_newest = s.chat.scroll;
    update(&mut s, Msg::Key(Key::char('n')));
    assert_eq!(s.chat.search.at, Some(0));
    assert!(
        s.chat.scroll.0 > at_newest.0,
        "scrolled back to the older match"
    );
    let oldest = shot(&s, 100, 30);
    assert!(
        oldest.contains("/ALPHA 1/2") && oldest.contains("the Alpha plan"),
        "{oldest}"
    );
    insta::assert_snapshot!("chat_search_oldest", oldest);
    update(&mut s, Msg::Key(Key::char('n')));
    assert_eq!(s.chat.search.at, Some(0));
    assert!(shot(&s, 100, 30).contains("that was the oldest match"));
    update(&mut s, Msg::Key(Key::char('N')));
    assert_eq!(s.chat.search.at, Some(3));
    // `/` then Esc clears the search.
    update(&mut s, Msg::Key(Key::char('/')));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Esc)));
    assert_eq!(
        s.chat.search,
        switchboard::tui::state::ChatSearch::default()
    );
    assert!(!shot(&s, 100, 30).contains("/ALPHA"));
}
