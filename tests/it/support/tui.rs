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
            request: None,
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

/// The catalog a [`LiveTui`] starts with: the registry's tools, as the TUI lists them
/// (what `/call` checks a line against).
pub fn registered_tools(
    state: &mut State,
    workbench: &switchboard::workbench::Workbench,
    _: &switchboard::mcp::HubSnapshot,
) {
    state.catalog.items.tools = workbench
        .registry
        .specs()
        .iter()
        .map(switchboard::tui::boot::tool_entry)
        .collect();
}

/// The TUI's executor over a real workbench with the test server (`--asking`) in one
/// protocol generation, fed as the event loop feeds it: session events, the inbox and
/// the hub's notifications (through the inbox's own `mcp_msg`).
pub struct LiveTui {
    pub exec: Executor,
    pub workbench: switchboard::workbench::Workbench,
    route: tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    inbox: tokio::sync::mpsc::UnboundedReceiver<Msg>,
    events: tokio::sync::broadcast::Receiver<switchboard::mcp::McpEvent>,
    deadline: tokio::time::Instant,
    _dir: tempfile::TempDir,
}

impl LiveTui {
    /// Starts it; `catalog` fills the state's catalog from the registry and snapshot.
    /// Everything the test waits for must happen within [`crate::support::EVENT_DEADLINE`].
    pub async fn start(
        protocol: switchboard::config::ProtocolChoice,
        catalog: impl FnOnce(
            &mut State,
            &switchboard::workbench::Workbench,
            &switchboard::mcp::HubSnapshot,
        ),
    ) -> Self {
        use switchboard::workbench::{Workbench, WorkbenchOptions};
        let dir = tempfile::tempdir().unwrap();
        let dirs = switchboard::paths::Dirs::new(dir.path(), dir.path(), dir.path(), dir.path());
        let mut config = switchboard::config::Config::default();
        let mut server = crate::support::mcp::stdio_config(&["--asking"]);
        server.protocol = Some(protocol);
        config.servers.insert("t".into(), server);
        let options = WorkbenchOptions {
            interactive: true,
            mode: Some(switchboard::policy::Mode::FullAuto),
            ..WorkbenchOptions::default()
        };
        let workbench = Workbench::start(&config, &dirs, options).await.unwrap();
        let snapshot = workbench.settle().await;
        let events = workbench.hub.events();
        let (tx, route) = tokio::sync::mpsc::unbounded_channel();
        let (inbox_tx, inbox) = tokio::sync::mpsc::unbounded_channel();
        let mut state = state();
        catalog(&mut state, &workbench, &snapshot);
        let exec = Executor::new(
            state,
            std::sync::Arc::clone(&workbench.registry),
            switchboard::agent::EventSink::new(tx, None),
            inbox_tx,
        )
        .with_hub(workbench.hub.clone());
        Self {
            exec,
            workbench,
            route,
            inbox,
            events,
            deadline: tokio::time::Instant::now() + crate::support::EVENT_DEADLINE,
            _dir: dir,
        }
    }

    /// Hands the executor the next message from any source; past the deadline the
    /// test fails with what `waiting` says of the state.
    pub async fn step(&mut self, waiting: impl Fn(&State) -> String) {
        let next = tokio::select! {
            Some(e) = self.route.recv() => Some(Some(Msg::Agent(Box::new(e)))),
            Some(m) = self.inbox.recv() => Some(Some(m)),
            Ok(event) = self.events.recv() => Some(switchboard::tui::inbox::mcp_msg(event)),
            () = tokio::time::sleep_until(self.deadline) => None,
        };
        match next {
            Some(Some(msg)) => {
                self.exec.handle(msg);
            }
            Some(None) => {}
            None => panic!("stuck waiting: {}", waiting(self.exec.state())),
        }
    }
}
