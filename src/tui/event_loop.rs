//! The event loop: reads terminal keys, log lines, hub changes and session events,
//! feeds them to `update` through the executor, and draws when something changed (at
//! most one frame per ~16 ms).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::EventStream;
use futures::StreamExt;
use tokio::sync::mpsc::unbounded_channel;

use crate::logging;
use crate::mcp::McpHub;
use crate::theme::{Theme, ThemeSet};
use crate::tools::Registry;

use super::executor::{Executor, log_line};
use super::executor_mcp::mcp_msg;
use super::input::to_msg;
use super::msg::{Cmd, Msg};
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
    /// Where the theme and mouse choice are remembered.
    pub prefs_file: Option<PathBuf>,
    /// Commands to run once the screen is up (`--resume` alone opens the picker).
    pub startup: Vec<Cmd>,
    pub exit_after_first_frame: bool,
    pub debug_panic: bool,
    /// What servers ask the person (the hub's `ChannelAsker`); `None`: nobody asks.
    pub asks: Option<tokio::sync::mpsc::UnboundedReceiver<crate::mcp::AskRequest>>,
    /// `--serve ADDR`: the gateway running inside the TUI.
    pub serve: Option<super::serve_view::ServeLink>,
    /// The capture of every JSON-RPC message with the MCP peers, for the Wire view.
    pub wire: Option<Arc<crate::mcp::wire::WireLog>>,
    /// Opened once the first frame is drawn: the servers connect after it.
    pub start_gate: Option<crate::mcp::StartGate>,
}

pub async fn run_async(options: TuiOptions) -> color_eyre::Result<()> {
    let started = options.started;
    let (log_tx, mut log_rx) = unbounded_channel();
    let (inbox, mut inbox_rx) = unbounded_channel();
    let (mut hub_rx, mut mcp_rx) = match &options.hub {
        Some(hub) => (Some(hub.subscribe()), Some(hub.events())),
        None => (None, None),
    };
    // The registry follows the hub a moment later; the catalog is refreshed on a
    // short tick while the tool names change.
    let mut catalog_tick = tokio::time::interval(Duration::from_millis(500));
    let mut known_tools = Vec::new();
    // Session events (the gate's included) come on one channel. Without a session,
    // the person's calls are recorded on a sink that only feeds this loop.
    let (session_ops, mut session_events, recorder) = if let Some(handle) = options.session {
        (Some(handle.ops), handle.events, handle.recorder)
    } else {
        let (tx, rx) = unbounded_channel();
        (None, rx, crate::agent::EventSink::new(tx, None))
    };
    // Spinners and elapsed times advance while something runs.
    let mut clock = tokio::time::interval(Duration::from_millis(100));

    let mut asks = options.asks;
    let (mut serve_gate, mut serve_clients) = match options.serve {
        Some(link) => (Some(link.gate_events), Some(link.clients)),
        None => (None, None),
    };
    // The Wire view picks up what the capture recorded whenever it records more.
    let wire = options.wire;
    let mut wire_rx = wire.as_ref().map(|log| log.subscribe());
    let mut rt = Executor::new(options.state, options.registry, recorder, inbox);
    rt.memory_dir = options.memory_dir;
    rt.session_ops = session_ops;
    rt.hub = options.hub.clone();
    rt.recipe = options.recipe;
    rt.theme = options.theme;
    rt.themes = options.themes;
    rt.no_color = options.no_color;
    rt.prefs_file = options.prefs_file;
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
    for cmd in options.startup {
        rt.handle_cmd(cmd);
    }
    if let Some(log) = &wire {
        rt.wire_arrived(log);
    }

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
                if let Some(gate) = &options.start_gate {
                    gate.open();
                }
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
            Some(event) = async { match serve_gate.as_mut() { Some(rx) => rx.recv().await, None => std::future::pending().await } } => {
                let event = crate::agent::AgentEvent::Gate(event);
                dirty |= rt.handle(Msg::Agent(Box::new(event)));
            }
            Ok(()) = async { match serve_clients.as_mut() { Some(rx) => rx.changed().await, None => std::future::pending().await } } => {
                let lines = serve_clients.as_ref().map(|rx| {
                    rx.borrow().iter().map(super::serve_view::client_line).collect()
                });
                dirty |= rt.handle(Msg::ServeClients(lines.unwrap_or_default()));
            }
            Ok(()) = async { match wire_rx.as_mut() { Some(rx) => rx.changed().await, None => std::future::pending().await } } => {
                if let Some(log) = &wire {
                    dirty |= rt.wire_arrived(log);
                }
            }
            Some(event) = session_events.recv() => {
                dirty |= rt.handle(Msg::Agent(Box::new(event)));
            }
            Some(msg) = inbox_rx.recv() => {
                dirty |= rt.handle(msg);
            }
            Some(request) = async { match asks.as_mut() { Some(rx) => rx.recv().await, None => std::future::pending().await } } => {
                dirty |= rt.ask(request);
            }
            _ = clock.tick(), if rt.state.busy() || !rt.state.asks.is_empty() => {
                let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                dirty |= rt.handle(Msg::Tick(ms));
                dirty |= rt.drop_abandoned_asks();
            }
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
