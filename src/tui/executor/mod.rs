//! The executor: does the `Cmd`s `update` returns, in order (IO, background work, the
//! session, the gate and the hub), and feeds what comes back into `update`.
//!
//! One file per command group (`msg::Cmd`), each one exhaustive `match`: `ui.rs`,
//! `files.rs`, `session.rs`, `gate.rs`, `calls.rs`, `servers.rs`, `ask.rs`,
//! `login.rs`, `registry.rs`, `apps.rs`.
//!
//! Calls the person makes go through `Registry::invoke` like the model's; their
//! events are recorded on the session's sink, so they reach the UI on the session's
//! route and land in the session file.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

mod apps;
mod ask;
mod calls;
mod files;
mod gate;
mod login;
mod registry;
mod servers;
mod session;
mod ui;

pub use ask::AskDesk;

use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::agent::EventSink;
use crate::gate::CallId;
use crate::mcp::McpHub;
use crate::theme::{Theme, ThemeSet};
use crate::tools::Registry;

use super::msg::{Cmd, Msg};
use super::state::{Overlay, State};
use super::update::update;

/// Cancellation tokens of the calls the person made that are still open.
pub type OpenCalls = Arc<Mutex<HashMap<CallId, CancellationToken>>>;

pub struct Executor {
    pub(super) state: State,
    pub(super) registry: Arc<Registry>,
    /// Results of background work, back into `update`.
    pub(super) inbox: UnboundedSender<Msg>,
    pub(super) open_calls: OpenCalls,
    /// The session's sink (or, without a session, one straight to the loop).
    pub(super) recorder: EventSink,
    pub(super) memory_dir: Option<PathBuf>,
    pub(super) session_ops: Option<UnboundedSender<crate::agent::Op>>,
    pub(super) hub: Option<McpHub>,
    /// Each server's declaration size, weighed again only when its catalog changes.
    pub(super) declared_sizes: super::hub_view::DeclaredSizes,
    /// Servers still connecting, and the wait for them (a manual call to one waits).
    pub(super) readiness: Option<Arc<dyn crate::agent::Readiness>>,
    pub(super) recipe: Option<crate::agent::SessionRecipe>,
    /// A session started by `/model`, picked up by the loop.
    pub(super) new_session: Option<crate::agent::SessionHandle>,
    /// A value to edit in the external editor (text, file suffix), run by the loop.
    pub(super) editor: Option<(String, String)>,
    pub(super) theme: Theme,
    pub(super) themes: ThemeSet,
    pub(super) no_color: bool,
    /// Where the theme and mouse choice are remembered (`None`: not remembered).
    pub(super) prefs_file: Option<PathBuf>,
    /// Servers' questions waiting for the person (their reply channels).
    pub(super) asks: ask::AskDesk,
    /// The login started from the TUI, while it runs.
    pub(super) login: Option<login::LoginTask>,
    /// The registry search waiting or running ("Add server…").
    pub(super) registry_search: Option<registry::SearchTask>,
    /// The MCP Apps opened, their hosts running until switchboard exits.
    pub(super) apps: apps::OpenApps,
}

impl Executor {
    /// An executor over `state` that calls through `registry`, records the person's
    /// calls on `recorder` and sends background results to `inbox`; no session, hub
    /// or memory directory until the loop sets them.
    pub fn new(
        state: State,
        registry: Arc<Registry>,
        recorder: EventSink,
        inbox: UnboundedSender<Msg>,
    ) -> Self {
        Self {
            state,
            registry,
            inbox,
            open_calls: OpenCalls::default(),
            recorder,
            memory_dir: None,
            session_ops: None,
            hub: None,
            declared_sizes: super::hub_view::DeclaredSizes::default(),
            readiness: None,
            recipe: None,
            new_session: None,
            editor: None,
            theme: Theme::fallback_default(),
            themes: ThemeSet::new(None),
            no_color: false,
            prefs_file: None,
            asks: ask::AskDesk::default(),
            login: None,
            registry_search: None,
            apps: apps::OpenApps::default(),
        }
    }

    /// The MCP hub the executor reads, gets prompts and follows tasks through (the
    /// event loop sets it; tests that drive an executor use this).
    #[must_use]
    pub fn with_hub(mut self, hub: crate::mcp::McpHub) -> Self {
        self.hub = Some(hub);
        self
    }

    /// What a manual call to a server still connecting waits on (the event loop sets
    /// the workbench's; tests that drive an executor use this).
    #[must_use]
    pub fn with_readiness(mut self, readiness: Arc<dyn crate::agent::Readiness>) -> Self {
        self.readiness = Some(readiness);
        self
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    /// Run `update` and the commands it returns, first to last (replies queue behind);
    /// true when a redraw is needed.
    pub fn handle(&mut self, msg: Msg) -> bool {
        let visible = match &msg {
            Msg::Log(_) => self.state.show_logs,
            Msg::Wire(_) => matches!(self.state.overlays.top(), Some(Overlay::Wire)),
            _ => true,
        };
        let mut queue: VecDeque<Cmd> = update(&mut self.state, msg).into();
        while let Some(cmd) = queue.pop_front() {
            if let Some(reply) = self.execute(cmd) {
                queue.extend(update(&mut self.state, reply));
            }
        }
        visible
    }

    /// Does one command; its answer, when it has one at once (background work
    /// answers through the inbox).
    pub fn execute(&mut self, cmd: Cmd) -> Option<Msg> {
        match cmd {
            Cmd::Ui(cmd) => self.execute_ui(cmd),
            Cmd::Files(cmd) => Some(self.execute_files(cmd)),
            Cmd::Session(cmd) => self.execute_session(cmd),
            Cmd::Gate(cmd) => self.execute_gate(cmd),
            Cmd::Call(cmd) => {
                self.execute_call(cmd);
                None
            }
            Cmd::Server(cmd) => self.execute_server(cmd),
            Cmd::Ask(cmd) => self.execute_ask(cmd),
            Cmd::Login(cmd) => self.execute_login(cmd),
            Cmd::Registry(cmd) => self.execute_registry(cmd),
            Cmd::App(cmd) => {
                self.execute_app(cmd);
                None
            }
        }
    }

    /// Files a new cancellation token for a call the person made.
    pub(super) fn open(&self, call_id: &CallId) -> CancellationToken {
        let token = CancellationToken::new();
        self.open_calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(call_id.clone(), token.clone());
        token
    }

    pub fn handle_cmd(&mut self, cmd: Cmd) -> bool {
        match self.execute(cmd) {
            Some(msg) => self.handle(msg),
            None => false,
        }
    }
}

/// Forgets a finished call's token.
pub(super) fn close(open: &OpenCalls, call_id: &CallId) {
    open.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(call_id);
}
