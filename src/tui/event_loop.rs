//! The event loop: reads terminal keys and the inbox (`inbox.rs`: session events, log
//! lines, hub changes and everything else that happens in the background, forwarded
//! into one channel), feeds them to `update` through the executor, and draws when
//! something changed (at most one frame per ~16 ms).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::EventStream;
use futures::StreamExt;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::task::AbortHandle;

use crate::logging;
use crate::mcp::McpHub;
use crate::theme::{Theme, ThemeSet};
use crate::tools::Registry;

use super::executor::Executor;
use super::inbox::Inbox;
use super::input::to_msg;
use super::msg::{Cmd, Msg};
use super::state::{NoticeLevel, State};
use super::{term, ui};

const FRAME: Duration = Duration::from_millis(16);
/// The clock's period while something runs (spinners, elapsed times).
const CLOCK: Duration = Duration::from_millis(100);

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
    /// Who asks the person when an MCP App wants a link opened (`None`: apps do not
    /// open from this screen).
    pub app_asker: Option<Arc<dyn crate::mcp::Asker>>,
}

/// What the loop waits on besides the terminal: the inbox (every background source,
/// forwarded) and the clock.
struct Sources {
    /// The forwarders; dropping it at the end stops them.
    inbox: Inbox,
    inbox_rx: UnboundedReceiver<Msg>,
    /// The current session's forwarder (replaced when `/model` or a resume starts
    /// another session: the old one's late events are not shown).
    session: AbortHandle,
    /// Spinners and elapsed times advance while something runs: the next tick.
    next_tick: tokio::time::Instant,
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

/// The executor and the sources of one run, from the options: every source is
/// forwarded into the inbox.
fn wire_up(
    options: TuiOptions,
    log_rx: UnboundedReceiver<logging::LogRecord>,
) -> (Executor, Sources, Once) {
    let (mut inbox, inbox_rx) = Inbox::new();
    // Without a session, the person's calls are recorded on a sink that only feeds
    // this loop.
    let (session_ops, session_events, recorder) = if let Some(handle) = options.session {
        (Some(handle.ops), handle.events, handle.recorder)
    } else {
        let (tx, rx) = unbounded_channel();
        (None, rx, crate::agent::EventSink::new(tx, None))
    };
    let mut rt = Executor::new(
        options.state,
        Arc::clone(&options.registry),
        recorder,
        inbox.sender(),
    );
    inbox.forward_logs(log_rx);
    let session = inbox.forward_session(session_events);
    if let Some(hub) = &options.hub {
        inbox.forward_hub(hub.subscribe(), Arc::clone(&options.registry));
        inbox.forward_mcp(hub.events());
    }
    if let Some(asks) = options.asks {
        let desk = rt.ask_desk();
        inbox.forward(asks, move |request| Some(desk.file(request)));
    }
    if let Some(link) = options.serve {
        inbox.forward(link.gate_events, |event| {
            Some(Msg::Agent(Box::new(crate::agent::AgentEvent::Gate(event))))
        });
        inbox.forward_watch(link.clients, |clients| {
            Msg::ServeClients(clients.iter().map(super::serve_view::client_line).collect())
        });
    }
    if let Some(asker) = options.app_asker {
        rt = rt.with_apps(asker, options.wire.clone());
    }
    if let Some(log) = options.wire {
        inbox.forward_wire(log);
    }
    rt.memory_dir = options.memory_dir;
    rt.session_ops = session_ops;
    rt.hub = options.hub;
    rt.readiness = options.recipe.as_ref().and_then(|r| r.readiness.clone());
    rt.recipe = options.recipe;
    rt.theme = options.theme;
    rt.themes = options.themes;
    rt.no_color = options.no_color;
    rt.prefs_file = options.prefs_file;
    let sources = Sources {
        inbox,
        inbox_rx,
        session,
        next_tick: tokio::time::Instant::now(),
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

/// Sleeps until `at`; forever without one.
async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl Sources {
    /// Waits for the next thing to happen and hands it to the executor; `Ok(None)`
    /// when the terminal's input has ended, else whether the screen changed.
    ///
    /// Three arms: the terminal, the inbox, and the timer, which wakes for the next
    /// frame of a changed screen or the next clock tick while something runs.
    async fn step(
        &mut self,
        rt: &mut Executor,
        events: &mut EventStream,
        next_frame: tokio::time::Instant,
        dirty: bool,
    ) -> color_eyre::Result<Option<bool>> {
        let ticking = rt.state.busy() || !rt.state.asks.is_empty();
        let tick = ticking.then_some(self.next_tick);
        let timer = tick.into_iter().chain(dirty.then_some(next_frame)).min();
        let changed_now = tokio::select! {
            event = events.next() => match event {
                Some(Ok(event)) => to_msg(event).is_some_and(|msg| rt.handle(msg)),
                Some(Err(e)) => return Err(e.into()),
                None => return Ok(None),
            },
            Some(msg) = self.inbox_rx.recv() => rt.handle(msg),
            () = sleep_until(timer) => {
                let now = tokio::time::Instant::now();
                // Else it was the frame: the loop draws.
                tick.is_some_and(|at| at <= now) && {
                    self.next_tick = now + CLOCK;
                    let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
                    rt.handle(Msg::Tick(ms)) | rt.drop_abandoned_asks()
                }
            }
        };
        Ok(Some(changed_now))
    }

    /// Forwards the events of the session `/model` or a resume started, and no more
    /// of the one it replaced.
    fn follow_session(&mut self, handle: crate::agent::SessionHandle) {
        self.session.abort();
        self.session = self.inbox.forward_session(handle.events);
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
            sources.follow_session(handle);
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
