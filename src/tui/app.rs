//! The runtime: reads terminal events and log lines, feeds them to `update`, executes
//! the returned commands, and draws when something changed (at most one frame per
//! ~16 ms).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossterm::event::EventStream;
use futures::StreamExt;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use crate::agent::AgentEvent;
use crate::logging::{self, LogRecord};
use crate::mcp::{McpEvent, McpHub};
use crate::theme::{Theme, ThemeSet};
use crate::tools::{Origin, Registry, ToolContext};

use super::input::to_msg;
use super::msg::{Cmd, Msg};
use super::state::{GrantView, LogLevel, LogLine, NoticeLevel, State};
use super::{term, ui, update::update};

const FRAME: Duration = Duration::from_millis(16);

/// Everything the TUI needs to start.
pub struct TuiOptions {
    /// When the process started (for the first-frame measurement).
    pub started: Instant,
    pub state: State,
    /// The tool gate: every call from this UI goes through it.
    pub registry: Arc<Registry>,
    /// The agent session the composer talks to (`None`: no provider could be built).
    pub session: Option<crate::agent::SessionHandle>,
    /// How to start another session (`/model` switches provider or model).
    pub recipe: Option<crate::agent::SessionRecipe>,
    /// The MCP servers (`None` when none are configured).
    pub hub: Option<McpHub>,
    /// Where `/memories` lives, for the Memory pane.
    pub memory_dir: Option<PathBuf>,
    pub theme: Theme,
    pub themes: ThemeSet,
    pub no_color: bool,
    pub log_file: PathBuf,
    pub exit_after_first_frame: bool,
    pub debug_panic: bool,
}

pub fn run(options: TuiOptions) -> color_eyre::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run_async(options))
}

struct Runtime {
    state: State,
    registry: Arc<Registry>,
    /// Results of background work, back into `update`.
    inbox: UnboundedSender<Msg>,
    manual_calls: AtomicU64,
    memory_dir: Option<PathBuf>,
    session_ops: Option<UnboundedSender<crate::agent::Op>>,
    hub: Option<McpHub>,
    recipe: Option<crate::agent::SessionRecipe>,
    /// A session started by `/model`, picked up by the loop.
    new_session: Option<crate::agent::SessionHandle>,
    theme: Theme,
    themes: ThemeSet,
    no_color: bool,
}

impl Runtime {
    /// Run `update` and the commands it returns; true when a redraw is needed.
    fn handle(&mut self, msg: Msg) -> bool {
        let visible = !matches!(msg, Msg::Log(_)) || self.state.show_logs;
        let mut queue = update(&mut self.state, msg);
        while let Some(cmd) = queue.pop() {
            if let Some(reply) = self.execute(cmd) {
                queue.extend(update(&mut self.state, reply));
            }
        }
        visible
    }

    fn execute(&mut self, cmd: Cmd) -> Option<Msg> {
        match cmd {
            Cmd::Quit => None,
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
            Cmd::Reconnect(name) => {
                let result = self.hub.as_ref().map(|hub| hub.reconnect(&name));
                match result {
                    Some(Ok(())) => {
                        tracing::info!("reconnecting {name}");
                        None
                    }
                    Some(Err(e)) => Some(Msg::CallDone {
                        tool: format!("reconnect {name}"),
                        text: e.to_string(),
                        is_error: true,
                    }),
                    None => None,
                }
            }
            Cmd::ReadResource { server, uri } => {
                self.spawn_mcp(format!("{server} read {uri}"), move |hub| async move {
                    hub.read_resource(&server, &uri)
                        .await
                        .map(|read| crate::tools::render_blocks(&read.contents))
                });
                None
            }
            Cmd::GetPrompt { server, name, args } => {
                self.spawn_mcp(format!("{server} prompt {name}"), move |hub| async move {
                    hub.get_prompt(&server, &name, args).await.map(|view| {
                        let mut text = view
                            .description
                            .map(|d| format!("{d}\n\n"))
                            .unwrap_or_default();
                        for m in view.messages {
                            let body =
                                crate::tools::render_blocks(std::slice::from_ref(&m.content));
                            text.push_str(&m.role);
                            text.push_str(": ");
                            text.push_str(&body);
                        }
                        text
                    })
                });
                None
            }
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
            Cmd::CallTool { tool, args } => {
                let n = self.manual_calls.fetch_add(1, Ordering::Relaxed) + 1;
                let registry = Arc::clone(&self.registry);
                let inbox = self.inbox.clone();
                tokio::spawn(async move {
                    let ctx = ToolContext::new(format!("manual-{n}"), Origin::Manual);
                    let msg = match registry.invoke(&tool, args, &ctx).await {
                        Ok(result) => {
                            // Every block (images and blobs summarised), then the
                            // structured content pretty-printed.
                            let mut text = crate::tools::render_blocks(&result.content);
                            if let Some(structured) = &result.structured {
                                text.push_str("structured content:\n");
                                text.push_str(
                                    &serde_json::to_string_pretty(structured).unwrap_or_default(),
                                );
                            }
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

    /// Run an MCP request in the background; its text (or error) lands in the
    /// transcript.
    fn spawn_mcp<F, Fut>(&self, label: String, request: F)
    where
        F: FnOnce(McpHub) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<String, crate::mcp::McpError>> + Send,
    {
        let Some(hub) = self.hub.clone() else {
            let _ = self.inbox.send(Msg::CallDone {
                tool: label,
                text: "no MCP servers are configured".into(),
                is_error: true,
            });
            return;
        };
        let inbox = self.inbox.clone();
        tokio::spawn(async move {
            let msg = match request(hub).await {
                Ok(text) => Msg::CallDone {
                    tool: label,
                    text,
                    is_error: false,
                },
                Err(e) => Msg::CallDone {
                    tool: label,
                    text: e.to_string(),
                    is_error: true,
                },
            };
            let _ = inbox.send(msg);
        });
    }

    /// New server rows and catalog from the hub's snapshot and the registry.
    fn servers_msg(&self) -> Option<Msg> {
        let hub = self.hub.as_ref()?;
        let snapshot = hub.snapshot();
        Some(Msg::Servers {
            rows: super::hub_view::server_rows(&self.state.servers, &snapshot),
            catalog: super::hub_view::catalog(&self.registry.specs(), &snapshot),
        })
    }

    fn handle_cmd(&mut self, cmd: Cmd) -> bool {
        match self.execute(cmd) {
            Some(msg) => self.handle(msg),
            None => false,
        }
    }

    fn grants(&self) -> Msg {
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

/// MCP notifications as UI messages: server logs and stderr into the Logs pane,
/// progress into the status bar.
fn mcp_msg(event: McpEvent) -> Option<Msg> {
    match event {
        McpEvent::Log {
            server,
            level,
            message,
            ..
        } => Some(Msg::Log(LogLine {
            level: match level.as_str() {
                "emergency" | "alert" | "critical" | "error" => LogLevel::Error,
                "warning" => LogLevel::Warn,
                "debug" => LogLevel::Debug,
                _ => LogLevel::Info,
            },
            target: format!("mcp:{server}"),
            message,
        })),
        McpEvent::Stderr { server, line } => Some(Msg::Log(LogLine {
            level: LogLevel::Debug,
            target: format!("stderr:{server}"),
            message: line,
        })),
        McpEvent::Progress {
            server,
            progress,
            total,
            message,
            ..
        } => Some(Msg::Progress {
            server,
            progress,
            total,
            message,
        }),
        McpEvent::CatalogChanged { .. } => None,
    }
}

fn log_line(record: LogRecord) -> LogLine {
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

pub async fn run_async(options: TuiOptions) -> color_eyre::Result<()> {
    let started = options.started;
    let (log_tx, mut log_rx) = unbounded_channel();
    let (inbox, mut inbox_rx) = unbounded_channel();
    let mut approvals_rx = options.registry.broker().subscribe();
    let mut gate_rx = options.registry.subscribe_events();
    let (mut hub_rx, mut mcp_rx) = match &options.hub {
        Some(hub) => (Some(hub.subscribe()), Some(hub.events())),
        None => (None, None),
    };
    // The registry follows the hub a moment later; the catalog is refreshed on a
    // short tick while the tool names change.
    let mut catalog_tick = tokio::time::interval(Duration::from_millis(500));
    let mut known_tools = Vec::new();
    // Without a session, an idle channel whose sender lives as long as the loop.
    let (_idle_sender, idle_events) = unbounded_channel();
    let (session_ops, mut session_events) = match options.session {
        Some(handle) => (Some(handle.ops), handle.events),
        None => (None, idle_events),
    };

    let mut rt = Runtime {
        state: options.state,
        registry: options.registry,
        inbox,
        manual_calls: AtomicU64::new(0),
        memory_dir: options.memory_dir,
        session_ops,
        hub: options.hub.clone(),
        recipe: options.recipe,
        new_session: None,
        theme: options.theme,
        themes: options.themes,
        no_color: options.no_color,
    };
    if let Err(e) = logging::init(&options.log_file, Some(log_tx)) {
        rt.state.notice(
            NoticeLevel::Warn,
            format!("cannot write log file {}: {e}", options.log_file.display()),
        );
    }
    term::install_hooks()?;
    let mut guard = term::enter(rt.state.mouse)?;
    let size = guard.terminal.size()?;
    rt.state.size = (size.width, size.height);
    tracing::info!("switchboard {} started", env!("CARGO_PKG_VERSION"));

    let mut events = EventStream::new();
    let mut dirty = true;
    let mut first_frame: Option<Duration> = None;
    let mut last_draw = Instant::now()
        .checked_sub(FRAME)
        .unwrap_or_else(Instant::now);
    loop {
        if dirty && last_draw.elapsed() >= FRAME {
            guard
                .terminal
                .draw(|frame| ui::render(&rt.state, &rt.theme, frame))?;
            dirty = false;
            last_draw = Instant::now();
            if first_frame.is_none() {
                let elapsed = started.elapsed();
                first_frame = Some(elapsed);
                tracing::info!("first frame drawn after {elapsed:?}");
                if options.exit_after_first_frame {
                    break;
                }
                assert!(
                    !options.debug_panic,
                    "deliberate panic after the first frame (--debug-panic)"
                );
            }
        }
        let next_frame = tokio::time::Instant::from_std(last_draw + FRAME);
        tokio::select! {
            event = events.next() => match event {
                Some(Ok(event)) => {
                    if let Some(msg) = to_msg(event) {
                        dirty |= rt.handle(msg);
                    }
                }
                Some(Err(e)) => return Err(e.into()),
                None => break,
            },
            Some(record) = log_rx.recv() => {
                dirty |= rt.handle(Msg::Log(log_line(record)));
            }
            Ok(()) = async { match hub_rx.as_mut() { Some(rx) => rx.changed().await, None => std::future::pending().await } } => {
                if let Some(msg) = rt.servers_msg() {
                    dirty |= rt.handle(msg);
                }
            }
            event = async { match mcp_rx.as_mut() { Some(rx) => rx.recv().await, None => std::future::pending().await } } => {
                if let Ok(event) = event
                    && let Some(msg) = mcp_msg(event)
                {
                    dirty |= rt.handle(msg);
                }
            }
            _ = catalog_tick.tick(), if rt.hub.is_some() => {
                let names = rt.registry.names();
                if names != known_tools {
                    known_tools = names;
                    if let Some(msg) = rt.servers_msg() {
                        dirty |= rt.handle(msg);
                    }
                }
            }
            Some(event) = session_events.recv() => {
                dirty |= rt.handle(Msg::Agent(Box::new(event)));
            }
            Some(msg) = inbox_rx.recv() => {
                dirty |= rt.handle(msg);
            }
            Some(request) = approvals_rx.recv() => {
                dirty |= rt.handle(Msg::Agent(Box::new(AgentEvent::ApprovalRequested(request))));
            }
            event = gate_rx.recv() => match event {
                Ok(event) => {
                    let finished = matches!(event, AgentEvent::ToolCallFinished { .. });
                    let memory_changed = matches!(&event, AgentEvent::ToolCallFinished { tool, .. } if tool == "memory");
                    dirty |= rt.handle(Msg::Agent(Box::new(event)));
                    if finished {
                        let grants = rt.grants();
                        dirty |= rt.handle(grants);
                    }
                    if memory_changed {
                        dirty |= rt.handle_cmd(Cmd::ListMemory);
                    }
                }
                Err(RecvError::Lagged(n)) => tracing::warn!("UI missed {n} gate events"),
                Err(RecvError::Closed) => {}
            },
            () = tokio::time::sleep_until(next_frame), if dirty => {}
        }
        if let Some(handle) = rt.new_session.take() {
            // The old session ends when its ops sender (replaced above) is dropped.
            session_events = handle.events;
        }
        if rt.state.quit {
            break;
        }
    }
    drop(guard);
    if options.exit_after_first_frame
        && let Some(elapsed) = first_frame
    {
        eprintln!("first frame: {:.1} ms", elapsed.as_secs_f64() * 1000.0);
    }
    Ok(())
}
