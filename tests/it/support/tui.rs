//! Shared helpers for the TUI tests.
#![allow(clippy::unwrap_used)]

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::agent::AgentEvent;
use switchboard::gate::GateEvent;
use switchboard::keymap::{Key, KeyCode};
use switchboard::theme::ThemeSet;
use switchboard::tui::executor::Executor;
use switchboard::tui::state::State;
use switchboard::tui::ui::render;
use switchboard::tui::{Cmd, Msg, update};

/// The whole screen at `w`×`h` with the default theme, as text (for snapshots).
pub fn shot(state: &State, w: u16, h: u16) -> String {
    let theme = ThemeSet::new(None).load("default").unwrap();
    let mut state = state.clone();
    state.size = (w, h);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| render(&state, &theme, f)).unwrap();
    format!("{}", terminal.backend())
}

/// A fresh UI state with the default keys and the built-in themes.
pub fn state() -> State {
    State::new(
        switchboard::keymap::Keymap::default(),
        "default".into(),
        vec!["default".into(), "high-contrast".into(), "light".into()],
    )
}

/// The state the TUI starts with for an empty config (the built-in server row and
/// the welcome note), as `tui::boot::initial_state` builds it.
pub fn booted() -> State {
    switchboard::tui::boot::initial_state(
        &switchboard::config::Config::default(),
        switchboard::keymap::Keymap::default(),
        "default".into(),
        vec![],
    )
}

/// What the executor records for a read or prompt the person made: started, then
/// finished with `text` (through `update`, as the session's sink delivers them).
pub fn request_done(state: &mut State, id: &str, label: &str, text: &str, ok: bool) {
    use switchboard::agent::AgentEvent;
    use switchboard::gate::{CallEnd, CallId};
    use switchboard::tui::{Msg, update};
    let call_id = CallId::new(id);
    update(
        state,
        Msg::Agent(Box::new(AgentEvent::RequestStarted {
            run_id: id.into(),
            call_id: call_id.clone(),
            label: label.into(),
        })),
    );
    update(
        state,
        Msg::Agent(Box::new(AgentEvent::RequestFinished {
            run_id: id.into(),
            call_id,
            outcome: if ok { CallEnd::Ok } else { CallEnd::Error },
            text: text.into(),
            duration_ms: 120,
        })),
    );
}

/// One main-agent turn replaying the scripted `script` against `registry`, every
/// event fed to a booted TUI's `update` as the runtime does; the state when it ends.
/// The status bar shows the registry's mode, as the TUI's does.
pub async fn drive_turn(
    registry: std::sync::Arc<switchboard::tools::Registry>,
    script: &str,
) -> State {
    use switchboard::agent::{AgentEvent, Op, Session, SessionOptions};
    let turns = switchboard::llm::scripted_script::parse_script(script, "main").unwrap();
    let provider = switchboard::llm::ScriptedProvider::with_script(turns);
    let mode = registry.mode().to_string();
    let options = SessionOptions::new(std::sync::Arc::new(provider), registry);
    let mut handle = Session::spawn(options);
    handle.ops.send(Op::UserTurn { text: "go".into() }).unwrap();
    let mut state = booted();
    state.status.policy_mode = mode;
    state.focus = switchboard::tui::state::Pane::Chat;
    loop {
        let wait = std::time::Duration::from_secs(30);
        let event = tokio::time::timeout(wait, handle.events.recv())
            .await
            .unwrap()
            .unwrap();
        let done = matches!(event, AgentEvent::TurnDone { .. });
        switchboard::tui::update(&mut state, switchboard::tui::Msg::Agent(Box::new(event)));
        if done {
            return state;
        }
    }
}

/// Call times vary from run to run: zero them (nested cards too) for a stable picture.
pub fn zero_durations(state: &mut State) {
    fn zero(card: &mut switchboard::tui::cards::ToolCard) {
        card.duration_ms = card.duration_ms.map(|_| 0);
        card.children.iter_mut().for_each(zero);
    }
    (state.chat.entries.iter_mut())
        .filter_map(|e| e.card.as_mut())
        .for_each(zero);
}

/// Feeds the agent event `e` to `update`.
pub fn ev(s: &mut State, e: AgentEvent) {
    update(s, Msg::Agent(Box::new(e)));
}

/// Feeds the gate event `e` to `update`.
pub fn gate(s: &mut State, e: GateEvent) -> Vec<Cmd> {
    update(s, Msg::Agent(Box::new(AgentEvent::Gate(e))))
}

/// Types `text`, one key per character.
pub fn typed(s: &mut State, text: &str) {
    for c in text.chars() {
        update(s, Msg::Key(Key::char(c)));
    }
}

/// Pastes `line` into the executor and presses Enter.
pub fn type_line(exec: &mut Executor, line: &str) {
    exec.handle(Msg::Paste(line.into()));
    exec.handle(Msg::Key(Key::plain(KeyCode::Enter)));
}
