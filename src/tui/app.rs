//! The runtime: reads terminal events and log lines, feeds them to `update`, executes
//! the returned commands, and draws when something changed (at most one frame per
//! ~16 ms).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use crossterm::event::EventStream;
use futures::StreamExt;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc::unbounded_channel;

use crate::agent::AgentEvent;
use crate::logging;
use crate::mcp::McpHub;
use crate::theme::{Theme, ThemeSet};
use crate::tools::Registry;

use super::input::to_msg;
use super::msg::{Cmd, Msg};
use super::runtime::{Runtime, log_line};
use super::runtime_mcp::mcp_msg;
use super::state::{NoticeLevel, State};
use super::{term, ui};

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

pub async fn run_async(options: TuiOptions) -> color_eyre::Result<()> {
    let started = options.started;
    let (log_tx, mut log_rx) = unbounded_channel();
    let (inbox, mut inbox_rx) = unbounded_channel();
    // Approval requests come with the gate's events (for manual calls and the
    // session's alike); the broker needs no subscriber of its own.
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
        manual_runs: Arc::default(),
        memory_dir: options.memory_dir,
        session_ops,
        hub: options.hub.clone(),
        recipe: options.recipe,
        new_session: None,
        editor: None,
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
        if let Some((text, suffix)) = rt.editor.take() {
            // The editor owns the terminal meanwhile: no key reading, normal screen.
            drop(events);
            let result = term::suspended(&mut guard, rt.state.mouse, || {
                tokio::task::block_in_place(|| super::editor::edit(&text, &suffix))
            })?;
            events = EventStream::new();
            dirty |= rt.handle(Msg::Edited(result));
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
