//! What a new user tripped over in the TUI: slash commands with a did-you-mean,
//! readline keys and history in the composer, `c` on a catalog row, Esc out of a form,
//! effect badges and filter counts, a too-small terminal, remembered UI choices, the
//! resume picker, and the wait for servers still connecting.
#![allow(clippy::unwrap_used)]

use crate::support::tui::{shot, state};
use switchboard::agent::{AgentEvent, Op};
use switchboard::keymap::{Key, KeyCode, Mods};
use switchboard::tools::ToolEffect;
use switchboard::tui::sessions::SessionRow;
use switchboard::tui::state::{
    CatalogEntry, ChatKind, Overlay, Pane, ServerRow, ServerStatus, State,
};
use switchboard::tui::{CallCmd, Cmd, Msg, SessionCmd, UiCmd, update};

fn send(s: &mut State, line: &str) -> Vec<Cmd> {
    update(s, Msg::Paste(line.into()));
    update(s, Msg::Key(Key::plain(KeyCode::Enter)))
}

fn last_error(s: &State) -> String {
    let e = s.chat.entries.last().unwrap();
    assert_eq!(e.kind, ChatKind::Error, "{:?}", e.text);
    e.text.clone()
}

fn tool(name: &str, effect: ToolEffect) -> CatalogEntry {
    CatalogEntry {
        server: name.split_once("__").map_or("builtin", |(s, _)| s).into(),
        name: name.into(),
        effect: Some(effect),
        schema: Some(serde_json::json!({"type": "object", "properties": {}})),
        ..CatalogEntry::default()
    }
}

#[test]
fn unknown_slash_commands_and_tools_get_a_did_you_mean() {
    let mut s = state();
    s.status.provider = "scripted".into();
    assert_eq!(send(&mut s, "/hlep"), vec![]);
    assert!(
        last_error(&s).contains("did you mean `/help`?"),
        "{}",
        last_error(&s)
    );
    send(&mut s, "/help");
    assert!(matches!(s.overlays.top(), Some(Overlay::Help { .. })));
    s.overlays.clear();
    // A message that begins with a slash is written with two.
    assert_eq!(
        send(&mut s, "//etc/hosts: what is it?"),
        vec![Cmd::Session(SessionCmd::Op(Op::UserTurn {
            text: "/etc/hosts: what is it?".into()
        }))]
    );
    s.catalog.items.tools = vec![tool("weather__get_weather", ToolEffect::Read)];
    assert_eq!(send(&mut s, "/call weather__get_wether city=Oslo"), vec![]);
    assert!(last_error(&s).contains("did you mean `weather__get_weather`?"));
    // While a server is still connecting its tools may not be listed yet: sent.
    s.servers.rows.push(ServerRow {
        name: "files".into(),
        status: ServerStatus::Connecting,
        ..ServerRow::default()
    });
    assert!(matches!(
        send(&mut s, "/call files__read path=a").as_slice(),
        [Cmd::Call(CallCmd::CallTool { .. })]
    ));
}

#[test]
fn model_with_no_such_provider_fails() {
    let mut s = state();
    s.status.provider = "scripted".into();
    s.providers = vec!["claude".into(), "scripted".into()];
    assert_eq!(send(&mut s, "/model clade"), vec![]);
    assert!(last_error(&s).contains("no provider named clade; did you mean `claude`?"));
    assert_eq!(send(&mut s, "/model nope gpt-4o"), vec![]);
    assert_eq!(
        send(&mut s, "/model claude"),
        vec![Cmd::Session(SessionCmd::SwitchProvider {
            provider: Some("claude".into()),
            model: None
        })]
    );
    // With a real provider, one word is a model of it.
    s.status.provider = "claude".into();
    assert_eq!(
        send(&mut s, "/model claude-opus-4"),
        vec![Cmd::Session(SessionCmd::SwitchProvider {
            provider: Some("claude".into()),
            model: Some("claude-opus-4".into())
        })]
    );
}

#[test]
fn composer_kills_the_line_moves_by_word_and_recalls_history() {
    let mut s = state();
    s.status.provider = "scripted".into();
    send(&mut s, "first message");
    send(&mut s, "second message");
    let key = |s: &mut State, k: Key| update(s, Msg::Key(k));
    key(&mut s, Key::plain(KeyCode::Up));
    assert_eq!(s.composer.text(), "second message");
    key(&mut s, Key::plain(KeyCode::Up));
    assert_eq!(s.composer.text(), "first message");
    key(&mut s, Key::plain(KeyCode::Down));
    assert_eq!(s.composer.text(), "second message");
    key(&mut s, Key::plain(KeyCode::Down));
    assert_eq!(s.composer.text(), "");
    update(&mut s, Msg::Paste("one two three".into()));
    key(&mut s, Key::new(KeyCode::Char('b'), Mods::ALT));
    key(&mut s, Key::plain(KeyCode::Char('X')));
    assert_eq!(s.composer.text(), "one two Xthree");
    key(&mut s, Key::new(KeyCode::Char('f'), Mods::ALT));
    key(&mut s, Key::ctrl('u'));
    assert_eq!(s.composer.text(), "", "Ctrl+U kills to the line start");
}

#[test]
fn c_on_a_catalog_row_opens_the_form_and_esc_returns() {
    let mut s = state();
    s.focus = Pane::Catalog;
    s.catalog.items.tools = vec![tool("fs", ToolEffect::Write)];
    update(&mut s, Msg::Key(Key::char('c')));
    assert!(matches!(s.overlays.top(), Some(Overlay::Form(_))));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Esc)));
    assert_eq!(s.overlays.top().cloned(), None, "back to the list");
    update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    update(&mut s, Msg::Key(Key::char('c')));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Esc)));
    assert!(
        matches!(s.overlays.top(), Some(Overlay::Detail { .. })),
        "back to the detail view"
    );
}

#[test]
fn catalog_rows_carry_effect_badges_and_filter_counts() {
    let mut s = state();
    s.chat.entries.clear();
    s.focus = Pane::Catalog;
    s.catalog.items.tools = vec![
        tool("fs", ToolEffect::Write),
        tool(
            "weather__get_forecast_for_a_very_long_place_name",
            ToolEffect::Read,
        ),
        tool("weather__clear_alerts", ToolEffect::Delete),
        tool("shell", ToolEffect::Compute),
        tool("mystery__thing", ToolEffect::Unknown),
    ];
    update(&mut s, Msg::Key(Key::char('/')));
    update(&mut s, Msg::Key(Key::char('a')));
    let screen = shot(&s, 100, 30);
    assert!(screen.contains("Tools 2/5"), "{screen}");
    insta::assert_snapshot!("catalog_badges_and_counts", screen);
}

#[test]
fn a_too_small_terminal_says_so() {
    let screen = shot(&state(), 30, 8);
    assert!(screen.contains("Terminal too small"), "{screen}");
}

#[test]
fn theme_and_mouse_choices_are_remembered() {
    let mut s = state();
    let cmds = update(
        &mut s,
        Msg::ThemeApplied {
            name: "light".into(),
            error: None,
        },
    );
    assert_eq!(cmds, vec![Cmd::Ui(UiCmd::RememberUi)]);
    let cmds = update(
        &mut s,
        Msg::ThemeApplied {
            name: "nope".into(),
            error: Some("no theme nope".into()),
        },
    );
    assert_eq!(cmds, vec![]);
}

#[test]
fn the_resume_picker_lists_and_resumes() {
    let mut s = state();
    update(&mut s, Msg::Key(Key::ctrl('p')));
    for c in "resume".chars() {
        update(&mut s, Msg::Key(Key::char(c)));
    }
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Enter))),
        vec![Cmd::Session(SessionCmd::ListSessions)]
    );
    update(
        &mut s,
        Msg::SessionList(vec![
            SessionRow {
                id: "20261201-090000-aaaa".into(),
                time: "2026-12-01T09:00:00Z".into(),
                turns: 3,
                title: "summarise the README".into(),
            },
            SessionRow {
                id: "20261130-180000-bbbb".into(),
                time: "2026-11-30T18:00:00Z".into(),
                turns: 1,
                title: "list the docs".into(),
            },
        ]),
    );
    insta::assert_snapshot!("resume_picker", shot(&s, 100, 30));
    update(&mut s, Msg::Key(Key::plain(KeyCode::Down)));
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Enter))),
        vec![Cmd::Session(SessionCmd::Resume(
            "20261130-180000-bbbb".into()
        ))]
    );
    assert_eq!(s.overlays.top().cloned(), None);
}

#[test]
fn esc_while_waiting_for_servers_goes_on_without_them() {
    let mut s = state();
    let ev = |s: &mut State, e: AgentEvent| update(s, Msg::Agent(Box::new(e)));
    ev(
        &mut s,
        AgentEvent::TurnStarted {
            run_id: "r1".into(),
            text: "hi".into(),
        },
    );
    ev(
        &mut s,
        AgentEvent::WaitingForServers {
            run_id: "r1".into(),
            servers: vec!["weather".into()],
        },
    );
    assert!(shot(&s, 100, 30).contains("Waiting for weather to connect… (Esc goes on"));
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))),
        vec![Cmd::Session(SessionCmd::Op(Op::SkipWait))]
    );
    // Once the turn goes on, Esc interrupts it again.
    assert_eq!(
        update(&mut s, Msg::Key(Key::plain(KeyCode::Esc))),
        vec![Cmd::Session(SessionCmd::Op(Op::Interrupt {
            run_id: "r1".into()
        }))]
    );
}
