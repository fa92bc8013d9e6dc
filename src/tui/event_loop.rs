//! The event loop: reads terminal keys, log lines, hub changes and session events,
//! feeds them to `update` through the executor, and draws when something changed (at
//! most one frame per ~16 ms).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::EventStream;
use futures::StreamExt;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::logging;
use crate::mcp::McpHub;
use crate::theme::{Theme, ThemeSet};
use crate::tools::Registry;

use super::executor::mcp_msg;
use super::executor::{Executor, log_line};
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

/// Every source the loop waits on besides the terminal.
struct Sources {
    log_rx: UnboundedReceiver<logging::LogRecord>,
    inbox_rx: UnboundedReceiver<Msg>,
    hub_rx: Option<tokio::sync::watch::Receiver<Arc<crate::mcp::HubSnapshot>>>,
    mcp_rx: Option<tokio::sync::broadcast::Receiver<crate::mcp::McpEvent>>,
    /// The registry follows the hub a moment later; the catalog is refreshed on a
    /// short tick while the tool names change.
    catalog_tick: tokio::time::Interval,
    known_tools: Vec<String>,
    /// Session events (the gate's included) come on one channel.
    session_events: UnboundedReceiver<crate::agent::AgentEvent>,
    /// Spinners and elapsed times advance while something runs.
    clock: tokio::time::Interval,
    asks: Option<UnboundedReceiver<crate::mcp::AskRequest>>,
    serve_gate: Option<UnboundedReceiver<crate::gate::GateEvent>>,
    serve_clients: Option<tokio::sync::watch::Receiver<Vec<crate::serve::ConnectedClient>>>,
    /// The Wire view picks up what the capture recorded whenever it records more.
    wire: Option<Arc<crate::mcp::wire::WireLog>>,
    wire_rx: Option<tokio::sync::watch::Receiver<u64>>,
    started: Instant,
}

/// What the loop needs once, apart from the sources.
struct Once {
    started: Instant,
    log_file: PathBuf,
    startup: Vec<Cmd>,
    exit_after_first_frame: bool,
    debug_panic: bool,
    start_gate: Option<crate::mcp::StartGate>,
}

/// The executor and the sources of one run, from the options.
fn wire_up(
    options: TuiOptions,
    log_rx: UnboundedReceiver<logging::LogRecord>,
) -> (Executor, Sources, Once) {
    let (inbox, inbox_rx) = unbounded_channel();
    let (hub_rx, mcp_rx) = match &options.hub {
        Some(hub) => (Some(hub.subscribe()), Some(hub.events())),
        None => (None, None),
    };
    // Without a session, the person's calls are recorded on a sink that only feeds
    // this loop.
    let (session_ops, session_events, recorder) = if let Some(handle) = options.session {
        (Some(handle.ops), handle.events, handle.recorder)
    } else {
        let (tx, rx) = unbounded_channel();
        (None, rx, crate::agent::EventSink::new(tx, None))
    };
    let (serve_gate, serve_clients) = match options.serve {
        Some(link) => (Some(link.gate_events), Some(link.clients)),
        None => (None, None),
    };
    let wire_rx = options.wire.as_ref().map(|log| log.subscribe());
    let mut rt = Executor::new(options.state, options.registry, recorder, inbox);
    rt.memory_dir = options.memory_dir;
    rt.session_ops = session_ops;
    rt.hub = options.hub;
    rt.recipe = options.recipe;
    rt.theme = options.theme;
    rt.themes = options.themes;
    rt.no_color = options.no_color;
    rt.prefs_file = options.prefs_file;
    let sources = Sources {
        log_rx,
        inbox_rx,
        hub_rx,
        mcp_rx,
        catalog_tick: tokio::time::interval(Duration::from_millis(500)),
        known_tools: Vec::new(),
        session_events,
        clock: tokio::time::interval(Duration::from_millis(100)),
        asks: options.asks,
        serve_gate,
        serve_clients,
        wire: options.wire,
        wire_rx,
        started: options.started,
    };
    let once = Once {
        started: options.started,
        log_file: options.log_file,
        startup: options.startup,
        exit_after_first_frame: options.exit_after_first_frame,
        debug_panic: options.debug_panic,
        start_gate: options.start_gate,
    };
    (rt, sources, once)
}

/// Waits in `select!` fashion, plain (`pending` for an absent source).
async fn maybe<T>(rx: Option<&mut UnboundedReceiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

async fn changed<T>(
    rx: Option<&mut tokio::sync::watch::Receiver<T>>,
) -> Result<(), tokio::sync::watch::error::RecvError> {
    match rx {
        Some(rx) => rx.changed().await,
        None => std::future::pending().await,
    }
}

impl Sources {
    /// Waits for the next thing to happen and hands it to the executor; `Ok(None)`
    /// when the terminal's input has ended, else whether the screen changed.
    async fn step(
        &mut self,
        rt: &mut Executor,
        events: &mut EventStream,
        next_frame: tokio::time::Instant,
        dirty: bool,
    ) -> color_eyre::Result<Option<bool>> {
        let changed_now = tokio::select! {
            event = events.next() => match event {
                Some(Ok(event)) => to_msg(event).is_some_and(|msg| rt.handle(msg)),
                Some(Err(e)) => return Err(e.into()),
                None => return Ok(None),
            },
            Some(record) = self.log_rx.recv() => rt.handle(Msg::Log(log_line(record))),
            Ok(()) = changed(self.hub_rx.as_mut()) => rt.servers_msg().is_some_and(|msg| rt.handle(msg)),
            event = async { match self.mcp_rx.as_mut() { Some(rx) => rx.recv().await, None => std::future::pending().await } } => {
                event.ok().and_then(mcp_msg).is_some_and(|msg| rt.handle(msg))
            }
            _ = self.catalog_tick.tick(), if rt.hub.is_some() => {
                let names = rt.registry.names();
                names != self.known_tools && {
                    self.known_tools = names;
                    rt.servers_msg().is_some_and(|msg| rt.handle(msg))
                }
            }
            Some(event) = maybe(self.serve_gate.as_mut()) => {
                rt.handle(Msg::Agent(Box::new(crate::agent::AgentEvent::Gate(event))))
            }
            Ok(()) = changed(self.serve_clients.as_mut()) => {
                let lines = self.serve_clients.as_ref().map(|rx| {
                    rx.borrow().iter().map(super::serve_view::client_line).collect()
                });
                rt.handle(Msg::ServeClients(lines.unwrap_or_default()))
            }
            Ok(()) = changed(self.wire_rx.as_mut()) => self.wire.as_ref().is_some_and(|log| rt.wire_arrived(log)),
            Some(event) = self.session_events.recv() => rt.handle(Msg::Agent(Box::new(event))),
            Some(msg) = self.inbox_rx.recv() => rt.handle(msg),
            Some(request) = maybe(self.asks.as_mut()) => rt.ask(request),
            _ = self.clock.tick(), if rt.state.busy() || !rt.state.asks.is_empty() => {
                let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
                rt.handle(Msg::Tick(ms)) | rt.drop_abandoned_asks()
            }
            () = tokio::time::sleep_until(next_frame), if dirty => false,
        };
        Ok(Some(changed_now))
    }
}

pub async fn run_async(options: TuiOptions) -> color_eyre::Result<()> {
    let (log_tx, log_rx) = unbounded_channel();
    let (mut rt, mut sources, once) = wire_up(options, log_rx);
    if let Err(e) = logging::init(&once.log_file, Some(log_tx)) {
        rt.state.notice(
            NoticeLevel::Warn,
            format!("cannot write log file {}: {e}", once.log_file.display()),
        );
    }
    term::install_hooks()?;
    let mut guard = term::enter(rt.state.mouse)?;
    let size = guard.terminal.size()?;
    rt.state.size = (size.width, size.height);
    tracing::info!("switchboard {} started", env!("CARGO_PKG_VERSION"));
    for cmd in once.startup {
        rt.handle_cmd(cmd);
    }
    if let Some(log) = &sources.wire {
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
                let elapsed = once.started.elapsed();
                first_frame = Some(elapsed);
                if let Some(gate) = &once.start_gate {
                    gate.open();
                }
                tracing::info!("first frame drawn after {elapsed:?}");
                if once.exit_after_first_frame {
                    break;
                }
                assert!(
                    !once.debug_panic,
                    "deliberate panic after the first frame (--debug-panic)"
                );
            }
        }
        let next_frame = tokio::time::Instant::from_std(last_draw + FRAME);
        match sources
            .step(&mut rt, &mut events, next_frame, dirty)
            .await?
        {
            Some(changed) => dirty |= changed,
            None => break,
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
            sources.session_events = handle.events;
        }
        if rt.state.quit {
            break;
        }
    }
    drop(guard);
    if once.exit_after_first_frame
        && let Some(elapsed) = first_frame
    {
        eprintln!("first frame: {:.1} ms", elapsed.as_secs_f64() * 1000.0);
    }
    Ok(())
}
