//! Permission modes switched live in the TUI: Shift+Tab cycles, `/mode NAME` and the
//! palette choose (plan too); the status bar shows the mode and each switch leaves a
//! note and tells the gate (`GateCmd::SetMode`).
#![allow(clippy::unwrap_used)]

use crate::support::tui::{shot, state};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::keymap::{Key, KeyCode};
use switchboard::policy::Mode;
use switchboard::theme::ThemeSet;
use switchboard::tui::state::{ChatEntry, ChatKind, Pane, State};
use switchboard::tui::{Cmd, GateCmd, Msg, update};

fn shift_tab(s: &mut State) -> Vec<Cmd> {
    update(s, Msg::Key(Key::plain(KeyCode::BackTab)))
}

fn note(text: &str) -> ChatEntry {
    ChatEntry::new(ChatKind::Note, text)
}

#[test]
fn shift_tab_cycles_the_mode_with_a_note_and_tells_the_gate() {
    let mut s = state();
    assert_eq!(s.status.policy_mode, "ask");
    let cmds = shift_tab(&mut s);
    assert_eq!(cmds, vec![Cmd::Gate(GateCmd::SetMode(Mode::AutoEdit))]);
    let mut expected = state();
    expected.status.policy_mode = "auto-edit".into();
    expected.chat.push(note(
        "Permission mode auto-edit: reads and writes run; compute, delete and unknown calls ask.",
    ));
    assert_eq!(s, expected);

    let cmds = shift_tab(&mut s);
    assert_eq!(cmds, vec![Cmd::Gate(GateCmd::SetMode(Mode::FullAuto))]);
    expected.status.policy_mode = "full-auto".into();
    expected.chat.push(note(
        "Permission mode full-auto: every call runs without asking, unless a rule or \
         always_ask says otherwise.",
    ));
    assert_eq!(s, expected);

    // Round again: full-auto → read-only → ask.
    assert_eq!(
        shift_tab(&mut s),
        vec![Cmd::Gate(GateCmd::SetMode(Mode::ReadOnly))]
    );
    assert_eq!(
        shift_tab(&mut s),
        vec![Cmd::Gate(GateCmd::SetMode(Mode::Ask))]
    );
    assert_eq!(s.status.policy_mode, "ask");
    assert_eq!(s.chat.entries.len(), 4, "one note per switch");
    assert_eq!(s.focus, Pane::Composer, "Shift+Tab no longer moves focus");
}

#[test]
fn f6_moves_focus_back() {
    let mut s = state();
    update(&mut s, Msg::Key(Key::plain(KeyCode::Tab)));
    assert_eq!(s.focus, Pane::Servers);
    let cmds = update(&mut s, Msg::Key(Key::plain(KeyCode::F(6))));
    assert_eq!(cmds, vec![]);
    assert_eq!(s.focus, Pane::Composer);
}

fn typed(s: &mut State, line: &str) -> Vec<Cmd> {
    update(s, Msg::Paste(line.into()));
    update(s, Msg::Key(Key::plain(KeyCode::Enter)))
}

#[test]
fn slash_mode_names_any_mode_and_plan_leaves_the_cycle_for_ask() {
    let mut s = state();
    let cmds = typed(&mut s, "/mode plan");
    assert_eq!(cmds, vec![Cmd::Gate(GateCmd::SetMode(Mode::Plan))]);
    assert_eq!(s.status.policy_mode, "plan");
    assert_eq!(
        s.chat.entries.last(),
        Some(&note(
            "Permission mode plan: read-only; the model proposes a plan and does not act."
        ))
    );
    assert_eq!(
        shift_tab(&mut s),
        vec![Cmd::Gate(GateCmd::SetMode(Mode::Ask))]
    );

    let cmds = typed(&mut s, "/mode ful-auto");
    assert_eq!(cmds, vec![]);
    let last = s.chat.entries.last().unwrap();
    assert_eq!(
        (last.kind, last.text.as_str()),
        (
            ChatKind::Error,
            "/mode: unknown mode ful-auto; did you mean `full-auto`?"
        )
    );
    assert_eq!(s.status.policy_mode, "ask");

    typed(&mut s, "/mode");
    assert!(
        s.chat
            .entries
            .last()
            .unwrap()
            .text
            .starts_with("Permission mode ask: reads run;"),
        "{:?}",
        s.chat.entries.last()
    );
}

#[test]
fn the_palette_switches_the_mode() {
    let mut s = state();
    update(&mut s, Msg::Key(Key::ctrl('p')));
    for c in "mode: full".chars() {
        update(&mut s, Msg::Key(Key::char(c)));
    }
    let cmds = update(&mut s, Msg::Key(Key::plain(KeyCode::Enter)));
    assert_eq!(cmds, vec![Cmd::Gate(GateCmd::SetMode(Mode::FullAuto))]);
    assert_eq!(s.status.policy_mode, "full-auto");
}

/// The status bar (the last row of the screen).
fn status_bar(s: &State) -> String {
    shot(s, 100, 12).lines().last().unwrap().to_owned()
}

#[test]
fn the_status_bar_shows_full_auto_in_the_warning_colour_and_plan() {
    let mut s = state();
    s.chat.entries.clear();
    typed(&mut s, "/mode full-auto");
    insta::assert_snapshot!("status_bar_full_auto", status_bar(&s));
    let theme = ThemeSet::new(None).load("default").unwrap();
    let mut terminal = Terminal::new(TestBackend::new(100, 12)).unwrap();
    let mut sized = s.clone();
    sized.size = (100, 12);
    terminal
        .draw(|f| switchboard::tui::ui::render(&sized, &theme, f))
        .unwrap();
    let buffer = terminal.backend().buffer().clone();
    let row: String = (0..100)
        .map(|x| buffer[(x, 11)].symbol().to_owned())
        .collect();
    let at = u16::try_from(row.find("mode full-auto").unwrap()).unwrap();
    let ask_at = u16::try_from(row.find("step off").unwrap()).unwrap();
    assert_ne!(
        buffer[(at, 11)].fg,
        buffer[(ask_at, 11)].fg,
        "full-auto is drawn in the warning colour"
    );
    typed(&mut s, "/mode plan");
    insta::assert_snapshot!("status_bar_plan", status_bar(&s));
}
