//! The executor: does the `Cmd`s `update` returns, in order (IO, background work, the
//! session, the gate and the hub), and feeds what comes back into `update`.
//!
//! Calls the person makes go through `Registry::invoke` like the model's; their
//! events are recorded on the session's sink, so they reach the UI on the session's
//! route and land in the session file.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::agent::{AgentEvent, EventSink};
use crate::gate::CallId;
use crate::logging::LogRecord;
use crate::mcp::McpHub;
use crate::theme::{Theme, ThemeSet};
use crate::tools::Registry;

use super::msg::{Cmd, Msg};
use super::state::{GrantView, LogLevel, LogLine, State};
use super::{term, update::update};

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
    pub(super) asks: super::executor_ask::AskReplies,
    /// The login started from the TUI, while it runs.
    pub(super) login: Option<super::executor_login::LoginTask>,
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
            recipe: None,
            new_session: None,
            editor: None,
            theme: Theme::fallback_default(),
            themes: ThemeSet::new(None),
            no_color: false,
            prefs_file: None,
            asks: super::executor_ask::AskReplies::default(),
            login: None,
        }
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    /// Run `update` and the commands it returns, first to last (replies queue behind);
    /// true when a redraw is needed.
    pub fn handle(&mut self, msg: Msg) -> bool {
        let visible = !matches!(msg, Msg::Log(_)) || self.state.show_logs;
        let mut queue: VecDeque<Cmd> = update(&mut self.state, msg).into();
        while let Some(cmd) = queue.pop_front() {
            if let Some(reply) = self.execute(cmd) {
                queue.extend(update(&mut self.state, reply));
            }
        }
        visible
    }

    #[allow(
        clippy::too_many_lines,
        reason = "a flat dispatcher: one arm per command, each a call"
    )]
    pub fn execute(&mut self, cmd: Cmd) -> Option<Msg> {
        match cmd {
            Cmd::Quit => None,
            cmd @ (Cmd::Disable(_)
            | Cmd::Reconnect(_)
            | Cmd::ReadResource { .. }
            | Cmd::SetServerLogLevel(_)
            | Cmd::GetPrompt { .. }
            | Cmd::Complete { .. }) => self.execute_mcp(cmd),
            cmd @ (Cmd::Answer { .. }
            | Cmd::Sample { .. }
            | Cmd::OpenUrl(_)
            | Cmd::CopyText(_)
            | Cmd::GetTask { .. }
            | Cmd::CancelTask { .. }
            | Cmd::Subscribe { .. }) => self.execute_ask(cmd),
            Cmd::RunAgents {
                call_id,
                plan,
                task,
            } => {
                self.run_agents(call_id, plan, task);
                None
            }
            Cmd::ReadAgentCards { agents, timeout } => {
                super::agent_cards::spawn_reads(&self.inbox, agents, timeout);
                None
            }
            Cmd::LoadTheme(name) => Some(self.load_theme(name)),
            Cmd::Login(server) => self.start_login(server),
            Cmd::LoginPaste(text) => {
                self.paste_login(text);
                None
            }
            Cmd::CancelLogin => {
                self.cancel_login();
                None
            }
            Cmd::SetMouseCapture(on) => {
                if let Err(e) = term::set_mouse_capture(on) {
                    tracing::warn!("mouse capture: {e}");
                }
                None
            }
            Cmd::RememberUi => {
                if let Some(path) = &self.prefs_file {
                    let prefs = super::prefs::UiPrefs {
                        theme: Some(self.state.theme_name.clone()),
                        mouse: Some(self.state.mouse),
                    };
                    if let Err(e) = super::prefs::save(path, &prefs) {
                        tracing::warn!(
                            "could not remember the UI choices in {}: {e}",
                            path.display()
                        );
                    }
                }
                None
            }
            Cmd::Op(op) => self.send_op(op),
            Cmd::SetMode(mode) => {
                self.registry.set_mode(mode);
                None
            }
            Cmd::Decide { id, decision } => {
                if !self.registry.broker().decide(id, decision) {
                    tracing::warn!("approval {id} was no longer pending");
                }
                None
            }
            Cmd::SwitchProvider { provider, model } => self.switch_provider(provider, model),
            Cmd::OpenSessions => {
                super::sessions::open(&mut self.state);
                Some(self.list_sessions())
            }
            Cmd::ListSessions => Some(self.list_sessions()),
            Cmd::Resume(id) => Some(self.resume(&id)),
            Cmd::EditExternally { text, suffix } => {
                self.editor = Some((text, suffix));
                None
            }
            Cmd::SaveContents {
                blocks,
                item,
                path,
                overwrite,
            } => Some(Msg::Saved(super::result_view::save_blocks(
                &blocks, item, &path, overwrite,
            ))),
            Cmd::RevokeGrant(id) => {
                self.registry.grants().revoke(id);
                Some(self.grants())
            }
            Cmd::RefreshGrants => Some(self.grants()),
            Cmd::ExportWire(entries) => Some(self.export_wire(&entries)),
            Cmd::ListMemory => Some(Msg::MemoryFiles(
                self.memory_dir
                    .as_deref()
                    .map(crate::tools::builtin::list_memory_files)
                    .unwrap_or_default(),
            )),
            Cmd::ReadMemory(path) => {
                let text = match self.memory_dir.as_deref() {
                    Some(dir) => crate::tools::builtin::read_memory_file(dir, &path)
                        .unwrap_or_else(|e| e.to_string()),
                    None => "the memory tool is disabled".into(),
                };
                Some(Msg::MemoryFile { path, text })
            }
            Cmd::CancelCalls(ids) => {
                let open = self
                    .open_calls
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                for id in ids {
                    if let Some(token) = open.get(&id) {
                        token.cancel();
                    }
                }
                None
            }
            Cmd::CallTool {
                call_id,
                tool,
                args,
            } => {
                self.call_tool(call_id, tool, args);
                None
            }
        }
    }

    fn send_op(&self, op: crate::agent::Op) -> Option<Msg> {
        let sent = self
            .session_ops
            .as_ref()
            .is_some_and(|ops| ops.send(op).is_ok());
        (!sent).then(|| Msg::Failed("the agent session has stopped; restart switchboard".into()))
    }

    fn load_theme(&mut self, name: String) -> Msg {
        match self.themes.load(&name) {
            Ok(theme) => {
                self.theme = if self.no_color {
                    theme.without_colors()
                } else {
                    theme
                };
                Msg::ThemeApplied { name, error: None }
            }
            Err(e) => Msg::ThemeApplied {
                name,
                error: Some(e.to_string()),
            },
        }
    }

    fn switch_provider(&mut self, provider: Option<String>, model: Option<String>) -> Option<Msg> {
        let recipe = self.recipe.as_ref()?;
        let choice = crate::llm::ProviderChoice {
            name: provider,
            model,
        };
        let started = recipe.start(
            &choice,
            self.state.status.step_mode,
            self.state.session_id.as_deref(),
        );
        Some(match started {
            Ok((handle, _)) => {
                self.session_ops = Some(handle.ops.clone());
                self.recorder = handle.recorder.clone();
                self.new_session = Some(handle);
                Msg::Agent(Box::new(AgentEvent::Notice {
                    run_id: None,
                    message: "Switched; the conversation continues with the new model.".into(),
                }))
            }
            Err(e) => Msg::Failed(e.to_string()),
        })
    }

    fn list_sessions(&self) -> Msg {
        let rows = self.recipe.as_ref().map_or_else(Vec::new, |recipe| {
            let store = crate::agent::SessionStore::from_dirs(&recipe.dirs);
            store
                .list_in(&recipe.dirs.cwd)
                .unwrap_or_default()
                .into_iter()
                .map(|s| super::sessions::SessionRow {
                    id: s.id,
                    time: s.modified.map(crate::policy::rfc3339).unwrap_or_default(),
                    turns: s.turns,
                    title: s.title.unwrap_or_default(),
                })
                .collect()
        });
        Msg::SessionList(rows)
    }

    /// Starts the saved session `id` (same provider and model) in place of this one.
    fn resume(&mut self, id: &str) -> Msg {
        let Some(recipe) = &self.recipe else {
            return Msg::Failed("no session can be resumed here".into());
        };
        let choice = crate::llm::ProviderChoice {
            name: Some(self.state.status.provider.clone())
                .filter(|p| p != super::state::NO_PROVIDER),
            model: Some(self.state.status.model.clone()).filter(|m| !m.is_empty()),
        };
        match recipe.start(&choice, self.state.status.step_mode, Some(id)) {
            Ok((handle, Some(loaded))) => {
                self.session_ops = Some(handle.ops.clone());
                self.recorder = handle.recorder.clone();
                self.new_session = Some(handle);
                Msg::Resumed(Box::new(loaded))
            }
            Ok((_, None)) => Msg::Failed(format!("session {id} was not found")),
            Err(e) => Msg::Failed(e.to_string()),
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

    /// New server rows and catalog from the hub's snapshot and the registry.
    pub fn servers_msg(&self) -> Option<Msg> {
        let hub = self.hub.as_ref()?;
        let snapshot = hub.snapshot();
        Some(Msg::Servers {
            rows: super::hub_view::server_rows(&self.state.servers, &snapshot),
            catalog: super::hub_view::catalog(&self.registry.specs(), &snapshot),
        })
    }

    pub fn handle_cmd(&mut self, cmd: Cmd) -> bool {
        match self.execute(cmd) {
            Some(msg) => self.handle(msg),
            None => false,
        }
    }

    pub fn grants(&self) -> Msg {
        Msg::Grants(
            self.registry
                .grants()
                .list()
                .into_iter()
                .map(|g| GrantView {
                    id: g.id,
                    text: g.scope.to_string(),
                })
                .collect(),
        )
    }
}

/// Forgets a finished call's token.
pub(super) fn close(open: &OpenCalls, call_id: &CallId) {
    open.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(call_id);
}

pub fn log_line(record: LogRecord) -> LogLine {
    let level = match record.level {
        tracing::Level::ERROR => LogLevel::Error,
        tracing::Level::WARN => LogLevel::Warn,
        tracing::Level::INFO => LogLevel::Info,
        tracing::Level::DEBUG => LogLevel::Debug,
        tracing::Level::TRACE => LogLevel::Trace,
    };
    LogLine {
        level,
        target: record.target,
        message: record.message,
    }
}
