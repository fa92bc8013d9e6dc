//! A session: the task that owns a conversation and runs its turns.
//!
//! [`Session::spawn`] returns a [`SessionHandle`]: send [`Op`]s in, read
//! [`AgentEvent`]s out. Turns run one at a time (a user turn sent during a turn is
//! queued); approvals, interrupts and step signals are handled while a turn runs.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::cancel::Cancel;
use super::event::AgentEvent;
use super::op::Op;
use super::sink::EventSink;
use super::step::{StepSwitch, step_channel};
use super::store::{SessionStore, new_session_id};
use super::turn::{Conversation, TurnEnv, run_turn};
use crate::config::{DEFAULT_MAX_STEPS, DEFAULT_MAX_TOOL_RESULT_CHARS};
use crate::llm::{Message, Provider, RequestOptions};
use crate::policy::Scope;
use crate::tools::Registry;

/// How a session runs.
#[derive(Clone)]
pub struct SessionOptions {
    pub provider: Arc<dyn Provider>,
    /// The configured name (`claude`, `scripted`), shown in `SessionStarted`.
    pub provider_name: String,
    pub registry: Arc<Registry>,
    /// `None`: the built-in prompt (which lists the tools offered).
    pub system_prompt: Option<String>,
    pub max_steps: u32,
    pub max_tool_result_chars: usize,
    /// `ReadOnly` offers only tools that can read, and the gate admits only reads.
    pub scope: Scope,
    pub step_mode: bool,
    pub request_options: RequestOptions,
    /// Save every event here (`None`: not saved).
    pub store: Option<SessionStore>,
    /// Default: a fresh id.
    pub session_id: Option<String>,
    /// The workspace directory, recorded so sessions can be listed by it.
    pub workspace: Option<String>,
    /// A conversation to continue (see `transcript::messages_from_events`).
    pub history: Vec<Message>,
    /// Servers a turn waits for before its first request (`None`: none).
    pub readiness: Option<Arc<dyn super::Readiness>>,
    /// Skills the model may read (name, description), listed in the system prompt;
    /// their bodies come only through the `skills` tool.
    pub skills: Vec<(String, String)>,
    /// Set when the session is a sub-agent's: its calls carry its name, depth and
    /// tool allowlist to the gate.
    pub delegation: Option<Delegation>,
    /// Every tool declared, or tool search (see `exposure`); off unless configured.
    pub tool_search: super::exposure::ToolSearchOptions,
}

/// Who a sub-agent's session acts as, at the gate.
#[derive(Clone)]
pub struct Delegation {
    pub agent: String,
    /// Agents deep (1: called by the main agent).
    pub depth: u32,
    pub allowlist: Option<Arc<crate::tools::ToolAllowlist>>,
    /// Put before the agent's call ids (`call_1/scout`), so they never collide with
    /// the caller's.
    pub call_prefix: String,
    /// The caller's observer: the gate's events about the agent's calls reach it
    /// directly (approvals in the same pane, even after the caller stopped waiting).
    pub forward: Option<Arc<dyn crate::gate::GateObserver>>,
}

impl SessionOptions {
    /// The context of one of the session's calls, as the gate should see it: a
    /// sub-agent's calls carry its name, depth and allowlist.
    pub fn call_context(&self, mut ctx: crate::tools::ToolContext) -> crate::tools::ToolContext {
        match &self.delegation {
            None => ctx,
            Some(d) => {
                let id = ctx.call_id.take().map_or_else(String::new, |id| id.0);
                let mut ctx = ctx
                    .with_agent(d.agent.clone(), d.depth)
                    .with_allowlist(d.allowlist.clone())
                    .with_call_id(crate::gate::CallId(format!("{}/{id}", d.call_prefix)));
                ctx.origin = crate::policy::Origin::Agent;
                if let Some(forward) = &d.forward {
                    let own = ctx.observer.take();
                    ctx.observer = Some(Arc::new(super::sink::Tee(own, Arc::clone(forward))));
                }
                ctx
            }
        }
    }
}

/// Options that continue a saved session: its id (events append to its file) and its
/// conversation. `--resume ID` loads `store.load(ID)`, `--continue` loads
/// `store.latest_in(workspace)`.
pub fn resume(
    mut options: SessionOptions,
    store: &SessionStore,
    loaded: &super::store::LoadedSession,
) -> SessionOptions {
    options.history = loaded.messages();
    options.session_id = Some(loaded.id.clone());
    options.store = Some(store.clone());
    options
}

impl std::fmt::Debug for SessionOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionOptions")
            .field("provider", &self.provider_name)
            .field("max_steps", &self.max_steps)
            .field("step_mode", &self.step_mode)
            .finish_non_exhaustive()
    }
}

impl SessionOptions {
    /// Defaults: built-in prompt, 25 steps, 20,000-character results, full scope, step
    /// mode off, not saved.
    pub fn new(provider: Arc<dyn Provider>, registry: Arc<Registry>) -> Self {
        Self {
            provider_name: provider.kind().to_owned(),
            provider,
            registry,
            system_prompt: None,
            max_steps: DEFAULT_MAX_STEPS,
            max_tool_result_chars: DEFAULT_MAX_TOOL_RESULT_CHARS,
            scope: Scope::Full,
            step_mode: false,
            request_options: RequestOptions::default(),
            store: None,
            session_id: None,
            workspace: None,
            history: Vec::new(),
            readiness: None,
            skills: Vec::new(),
            delegation: None,
            tool_search: super::exposure::ToolSearchOptions::default(),
        }
    }
}

/// The running session's ends: ops in, events out.
#[derive(Debug)]
pub struct SessionHandle {
    pub id: String,
    pub ops: mpsc::UnboundedSender<Op>,
    pub events: mpsc::UnboundedReceiver<AgentEvent>,
    /// The session's sink: calls the person makes outside turns (`/call`, `/read`) are
    /// recorded here, so they reach the UI on the same route and land in the file.
    pub recorder: EventSink,
}

impl SessionHandle {
    /// False when the session has ended.
    pub fn send(&self, op: Op) -> bool {
        self.ops.send(op).is_ok()
    }

    pub async fn next_event(&mut self) -> Option<AgentEvent> {
        self.events.recv().await
    }
}

/// Spawns sessions.
#[derive(Debug)]
pub struct Session;

/// The turn running now, so an interrupt can find it.
#[derive(Debug, Default)]
pub struct CurrentTurn(Mutex<Option<(String, Cancel)>>);

impl CurrentTurn {
    pub fn set(&self, run_id: &str, cancel: &Cancel) {
        *self.lock() = Some((run_id.to_owned(), cancel.clone()));
    }

    pub fn clear(&self) {
        *self.lock() = None;
    }

    /// Cancels the current turn if `run_id` is `None` or names it; returns its id.
    fn cancel(&self, run_id: Option<&str>) -> Option<String> {
        let current = self.lock().clone()?;
        if run_id.is_some_and(|r| r != current.0) {
            return None;
        }
        current.1.cancel();
        Some(current.0)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(String, Cancel)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Session {
    /// Starts the session on the current tokio runtime. It ends when every `ops`
    /// sender is dropped (a running turn is interrupted).
    pub fn spawn(options: SessionOptions) -> SessionHandle {
        let id = options.session_id.clone().unwrap_or_else(new_session_id);
        let (event_tx, events) = mpsc::unbounded_channel();
        let (ops, op_rx) = mpsc::unbounded_channel();
        let writer = options.store.as_ref().map(|s| s.writer(&id));
        let (writer, store_error) = match writer {
            Some(Ok(w)) => (Some(w), None),
            Some(Err(e)) => (None, Some(e.to_string())),
            None => (None, None),
        };
        let sink = EventSink::new(event_tx, writer);
        sink.emit(AgentEvent::SessionStarted {
            session_id: id.clone(),
            provider: options.provider_name.clone(),
            model: options
                .request_options
                .model
                .clone()
                .unwrap_or_else(|| options.provider.model().to_owned()),
            step_mode: options.step_mode,
            workspace: options.workspace.clone(),
            tools: Some(super::exposure::ToolBudget {
                kind: options.provider.kind().to_owned(),
                window: options.tool_search.window,
            }),
        });
        if let Some(e) = store_error {
            sink.emit(AgentEvent::Notice {
                run_id: None,
                message: format!("this session is not saved: {e}"),
            });
        }
        let (switch, step) = step_channel(options.step_mode);
        let current = Arc::new(CurrentTurn::default());
        let (turn_tx, mut turn_rx) = mpsc::unbounded_channel::<String>();
        let skip_wait = Arc::new(tokio::sync::Notify::new());
        let dispatcher = Dispatcher {
            registry: Arc::clone(&options.registry),
            skip_wait: Arc::clone(&skip_wait),
            switch,
            current: Arc::clone(&current),
            turns: turn_tx,
            sink: sink.clone(),
        };
        tokio::spawn(dispatcher.run(op_rx));
        let recorder = sink.clone();
        let convo = Conversation::new(id.clone(), options.history.clone());
        let options_scope = options.scope;
        let mut env = TurnEnv {
            system_prompt: options.system_prompt.clone(),
            options,
            sink,
            step,
            current,
            skip_wait,
            session_context: Vec::new(),
            scope: options_scope,
            plan: false,
            offered: None,
        };
        let resumed = !convo.messages.is_empty();
        tokio::spawn(async move {
            let mut convo = convo;
            // Turns sent meanwhile wait in the channel.
            env.session_context =
                super::session_hooks::session_start(&env, &convo.session_id, resumed).await;
            while let Some(text) = turn_rx.recv().await {
                run_turn(&mut env, &mut convo, text).await;
            }
        });
        SessionHandle {
            id,
            ops,
            events,
            recorder,
        }
    }
}

/// Handles ops while turns run.
struct Dispatcher {
    registry: Arc<Registry>,
    skip_wait: Arc<tokio::sync::Notify>,
    switch: StepSwitch,
    current: Arc<CurrentTurn>,
    turns: mpsc::UnboundedSender<String>,
    sink: EventSink,
}

impl Dispatcher {
    async fn run(self, mut ops: mpsc::UnboundedReceiver<Op>) {
        while let Some(op) = ops.recv().await {
            self.handle(op);
        }
        self.interrupt(None);
    }

    fn handle(&self, op: Op) {
        match op {
            Op::UserTurn { text } => {
                let _ = self.turns.send(text);
            }
            Op::Decide { id, decision } => {
                if !self.registry.broker().decide(id, decision) {
                    self.sink.emit(AgentEvent::Notice {
                        run_id: None,
                        message: format!("approval {id} is no longer pending"),
                    });
                }
            }
            Op::Interrupt { run_id } => self.interrupt(Some(&run_id)),
            Op::SkipWait => self.skip_wait.notify_waiters(),
            Op::StepNext => self.switch.next(),
            Op::StepContinue => self.switch.continue_turn(),
            Op::ToggleStepMode => self.set_step(!self.switch.is_on()),
        }
    }

    fn set_step(&self, on: bool) {
        let was = self.switch.is_on();
        self.switch.set(on);
        if was != on {
            self.sink.emit(AgentEvent::StepModeChanged { on });
        }
    }

    fn interrupt(&self, run_id: Option<&str>) {
        self.current.cancel(run_id);
    }
}
