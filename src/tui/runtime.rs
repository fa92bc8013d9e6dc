//! The runtime's side of the loop: executing `Cmd`s (IO, background work, the
//! session and the hub) and turning what comes back into `Msg`s.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::mpsc::UnboundedSender;

use crate::agent::AgentEvent;
use crate::logging::LogRecord;
use crate::mcp::McpHub;
use crate::theme::{Theme, ThemeSet};
use crate::tools::{Origin, Registry, ToolContext};

use super::msg::{Cmd, Msg};
use super::state::{GrantView, LogLevel, LogLine, State};
use super::{term, update::update};

pub struct Runtime {
    pub(super) state: State,
    pub(super) registry: Arc<Registry>,
    /// Results of background work, back into `update`.
    pub(super) inbox: UnboundedSender<Msg>,
    pub(super) manual_calls: AtomicU64,
    /// Run ids of manual calls in flight (Esc cancels them).
    pub(super) manual_runs: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
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
}

impl Runtime {
    /// Run `update` and the commands it returns; true when a redraw is needed.
    pub fn handle(&mut self, msg: Msg) -> bool {
        let visible = !matches!(msg, Msg::Log(_)) || self.state.show_logs;
        let mut queue = update(&mut self.state, msg);
        while let Some(cmd) = queue.pop() {
            if let Some(reply) = self.execute(cmd) {
                queue.extend(update(&mut self.state, reply));
            }
        }
        visible
    }

    pub fn execute(&mut self, cmd: Cmd) -> Option<Msg> {
        match cmd {
            Cmd::Quit => None,
            cmd @ (Cmd::Disable(_)
            | Cmd::Reconnect(_)
            | Cmd::ReadResource { .. }
            | Cmd::SetServerLogLevel(_)
            | Cmd::GetPrompt { .. }
            | Cmd::Complete { .. }) => self.execute_mcp(cmd),
            Cmd::LoadTheme(name) => Some(match self.themes.load(&name) {
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
            }),
            Cmd::SetMouseCapture(on) => {
                if let Err(e) = term::set_mouse_capture(on) {
                    tracing::warn!("mouse capture: {e}");
                }
                None
            }
            Cmd::Op(op) => {
                let sent = self
                    .session_ops
                    .as_ref()
                    .is_some_and(|ops| ops.send(op).is_ok());
                if sent {
                    None
                } else {
                    Some(Msg::Agent(Box::new(AgentEvent::Error {
                        run_id: None,
                        message: "the agent session has stopped; restart switchboard".into(),
                    })))
                }
            }
            Cmd::Decide { id, decision } => {
                if !self.registry.broker().decide(id, decision) {
                    tracing::warn!("approval {id} was no longer pending");
                }
                None
            }
            Cmd::AbortRun(run_id) => {
                if let Some(hub) = &self.hub {
                    hub.cancel_run(&run_id);
                }
                let aborted = self.registry.broker().cancel_run(&run_id);
                tracing::info!("run {run_id} aborted ({aborted} pending approvals)");
                None
            }
            Cmd::SwitchProvider { provider, model } => {
                let Some(recipe) = &self.recipe else {
                    return None;
                };
                let choice = crate::llm::ProviderChoice {
                    name: provider,
                    model,
                };
                let started = recipe.start(
                    &choice,
                    self.state.status.step_mode,
                    self.state.session_id.as_deref(),
                );
                Some(Msg::Agent(Box::new(match started {
                    Ok((handle, _)) => {
                        self.session_ops = Some(handle.ops.clone());
                        self.new_session = Some(handle);
                        AgentEvent::Notice {
                            run_id: None,
                            message: "Switched; the conversation continues with the new model."
                                .into(),
                        }
                    }
                    Err(e) => AgentEvent::Error {
                        run_id: None,
                        message: e,
                    },
                })))
            }
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
            Cmd::ListMemory => Some(Msg::MemoryFiles(
                self.memory_dir
                    .as_deref()
                    .map(crate::tools::builtin::list_memory_files)
                    .unwrap_or_default(),
            )),
            Cmd::ReadMemory(path) => {
                let text = match self.memory_dir.as_deref() {
                    Some(dir) => {
                        crate::tools::builtin::read_memory_file(dir, &path).unwrap_or_else(|e| e)
                    }
                    None => "the memory tool is disabled".into(),
                };
                Some(Msg::MemoryFile { path, text })
            }
            Cmd::CancelManual => {
                let runs: Vec<String> = self
                    .manual_runs
                    .lock()
                    .map(|r| r.iter().cloned().collect())
                    .unwrap_or_default();
                for run_id in runs {
                    if let Some(hub) = &self.hub {
                        hub.cancel_run(&run_id);
                    }
                    self.registry.broker().cancel_run(&run_id);
                }
                None
            }
            Cmd::CallTool { tool, args } => {
                let n = self.manual_calls.fetch_add(1, Ordering::Relaxed) + 1;
                let registry = Arc::clone(&self.registry);
                let inbox = self.inbox.clone();
                let run_id = format!("manual-{n}");
                let runs = Arc::clone(&self.manual_runs);
                if let Ok(mut set) = runs.lock() {
                    set.insert(run_id.clone());
                }
                tokio::spawn(async move {
                    let ctx = ToolContext::new(run_id.clone(), Origin::Manual);
                    let outcome = registry.invoke(&tool, args, &ctx).await;
                    if let Ok(mut set) = runs.lock() {
                        set.remove(&run_id);
                    }
                    let msg = match outcome {
                        Ok(result) => {
                            let text = super::result_view::describe_result(&result);
                            let _ =
                                inbox.send(Msg::Contents(Box::new(super::state::LastContents {
                                    source: tool.clone(),
                                    blocks: result.content,
                                })));
                            Msg::CallDone {
                                tool,
                                text,
                                is_error: result.is_error,
                            }
                        }
                        Err(e) => Msg::CallDone {
                            tool,
                            text: e.to_string(),
                            is_error: true,
                        },
                    };
                    let _ = inbox.send(msg);
                });
                None
            }
        }
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
