//! One user turn: request → stream → tool calls through the gate → repeat, until the
//! model stops asking for tools, `max_steps` is reached, the provider fails or the
//! user interrupts.

use std::sync::Arc;

use futures::StreamExt;

use super::cancel::Cancel;
use super::event::{AgentEvent, TurnEnd};
use super::session::{CurrentTurn, SessionOptions};
use super::session_hooks;
use super::sink::EventSink;
use super::step::{StepControl, StepPause};
use super::tool_round::{RoundEnd, run_tool_round};
use crate::llm::{
    ChatRequest, FinishReason, LlmError, LlmEvent, Message, ToolCall, ToolDeclaration, Usage,
};
use crate::policy::{Mode, Scope, ToolEffect};
use crate::tools::Registry;

/// Longest `last_message` in a step pause.
const PAUSE_PREVIEW_CHARS: usize = 200;

/// What a session's turns share.
pub struct TurnEnv {
    pub options: SessionOptions,
    pub system_prompt: Option<String>,
    pub sink: EventSink,
    pub step: StepControl,
    pub current: Arc<CurrentTurn>,
    /// `Op::SkipWait`: stop waiting for servers.
    pub skip_wait: Arc<tokio::sync::Notify>,
    /// What `session_start` hooks added for the model (in the system prompt).
    pub session_context: Vec<String>,
    /// The running turn's scope: the session's, or read-only when the turn started
    /// in plan mode.
    pub scope: Scope,
    /// The running turn started in plan mode (read-only, and the plan note).
    pub plan: bool,
    /// What the last request declared (`ToolsOffered` is sent when it changes).
    pub offered: Option<super::exposure::OfferReport>,
}

/// The conversation so far.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub session_id: String,
    pub messages: Vec<Message>,
    pub usage: Usage,
    pub turns: u32,
}

impl Conversation {
    /// Turn numbers continue after the user messages of `history`, so a resumed
    /// session appending to its file never reuses a run id.
    pub fn new(session_id: String, history: Vec<Message>) -> Self {
        let turns = history
            .iter()
            .filter(|m| matches!(m, Message::User { .. }))
            .count();
        Self {
            session_id,
            messages: history,
            usage: Usage::default(),
            turns: u32::try_from(turns).unwrap_or(u32::MAX),
        }
    }
}

/// Counts over one turn.
#[derive(Debug, Default)]
pub struct Tally {
    pub steps: u32,
    pub usage: Usage,
    pub approvals_denied: u32,
    pub failed_calls: u32,
}

/// Runs one turn to its end; the last event is `TurnDone`.
pub async fn run_turn(env: &mut TurnEnv, convo: &mut Conversation, text: String) {
    convo.turns += 1;
    let run_id = format!("{}-{}", convo.session_id, convo.turns);
    let cancel = Cancel::new();
    env.plan = env.options.registry.mode() == Mode::Plan;
    env.scope = if env.plan {
        Scope::ReadOnly
    } else {
        env.options.scope
    };
    env.current.set(&run_id, &cancel);
    env.step.begin_turn();
    env.sink.emit(AgentEvent::TurnStarted {
        run_id: run_id.clone(),
        text: text.clone(),
    });
    let mut tally = Tally::default();
    let reason = match session_hooks::user_message(env, &convo.session_id, &run_id, text).await {
        Ok(message) => {
            convo.messages.push(message);
            session_hooks::steps_and_stop_hooks(env, convo, &run_id, &cancel, &mut tally).await
        }
        Err(blocked) => {
            env.sink.emit(AgentEvent::Error {
                run_id: Some(run_id.clone()),
                message: blocked.to_string(),
            });
            TurnEnd::Blocked
        }
    };
    env.current.clear();
    if reason == TurnEnd::MaxSteps {
        env.sink.emit(AgentEvent::Notice {
            run_id: Some(run_id.clone()),
            message: format!(
                "Stopped after {} model requests (max_steps); send another message to go on.",
                tally.steps
            ),
        });
    }
    env.sink.emit(AgentEvent::TurnDone {
        run_id,
        reason,
        steps: tally.steps,
        usage: tally.usage,
        approvals_denied: tally.approvals_denied,
        failed_calls: tally.failed_calls,
    });
}

pub(super) async fn steps(
    env: &mut TurnEnv,
    convo: &mut Conversation,
    run_id: &str,
    cancel: &Cancel,
    tally: &mut Tally,
) -> TurnEnd {
    if wait_for_servers(env, run_id, cancel).await.is_err() {
        return TurnEnd::Interrupted;
    }
    loop {
        if tally.steps >= env.options.max_steps.max(1) {
            return TurnEnd::MaxSteps;
        }
        tally.steps += 1;
        // The tools offered are the ones registered when the request is made.
        let mut tools = declarations(&env.options.registry, env.scope);
        if let Some(list) = env
            .options
            .delegation
            .as_ref()
            .and_then(|d| d.allowlist.as_ref())
        {
            tools.retain(|t| list.allows(&t.name));
        }
        let tools = offer_tools(env, convo, run_id, tools).await;
        let system = super::prompt::system_prompt(env, &tools);
        let mut messages = Vec::with_capacity(convo.messages.len() + 1);
        messages.push(Message::system(system));
        messages.extend(convo.messages.iter().cloned());
        let request = ChatRequest {
            messages,
            tools: tools.clone(),
            options: env.options.request_options.clone(),
        };
        let pause = StepPause::ModelRequest {
            step: tally.steps,
            messages: request.messages.len(),
            tools: tools.iter().map(|t| t.name.clone()).collect(),
            last_message: shorten(
                &request
                    .messages
                    .last()
                    .map(Message::preview)
                    .unwrap_or_default(),
            ),
        };
        let sink = env.sink.clone();
        let announce = || {
            sink.emit(AgentEvent::StepPaused {
                run_id: run_id.to_owned(),
                pause,
            });
        };
        if env.step.pause(cancel, announce).await.is_err() {
            return TurnEnd::Interrupted;
        }
        let response = request_model(env, convo, run_id, cancel, tally, request).await;
        let (text, calls, finish) = match response {
            Ok(parts) => parts,
            Err(ModelFailure::Interrupted { text }) => {
                if !text.is_empty() {
                    convo.messages.push(Message::assistant(text, Vec::new()));
                }
                return TurnEnd::Interrupted;
            }
            Err(ModelFailure::Provider(error)) => {
                env.sink.emit(AgentEvent::Error {
                    run_id: Some(run_id.to_owned()),
                    message: error.to_string(),
                });
                return TurnEnd::ProviderError;
            }
        };
        convo
            .messages
            .push(Message::assistant(text.clone(), calls.clone()));
        env.sink.emit(AgentEvent::ModelResponse {
            run_id: run_id.to_owned(),
            step: tally.steps,
            text,
            tool_calls: calls.clone(),
            finish,
        });
        if calls.is_empty() {
            return TurnEnd::Completed;
        }
        if run_tool_round(env, convo, run_id, cancel, tally, &calls).await == RoundEnd::Interrupted
        {
            return TurnEnd::Interrupted;
        }
    }
}

/// Before the first request: servers still connecting are waited for (each bounded
/// by its startup timeout), with a visible event; `Op::SkipWait` goes on without them.
async fn wait_for_servers(env: &TurnEnv, run_id: &str, cancel: &Cancel) -> Result<(), ()> {
    let Some(readiness) = env.options.readiness.as_ref() else {
        return Ok(());
    };
    let servers = readiness.pending();
    if servers.is_empty() {
        return Ok(());
    }
    env.sink.emit(AgentEvent::WaitingForServers {
        run_id: run_id.to_owned(),
        servers,
    });
    tokio::select! {
        () = readiness.settled() => Ok(()),
        () = env.skip_wait.notified() => Ok(()),
        () = cancel.cancelled() => Err(()),
    }
}

enum ModelFailure {
    Interrupted { text: String },
    Provider(LlmError),
}

/// A tool call being streamed.
struct Partial {
    id: String,
    name: String,
    arguments: String,
    signature: Option<String>,
}

type ModelAnswer = (String, Vec<ToolCall>, Option<FinishReason>);

async fn request_model(
    env: &TurnEnv,
    convo: &mut Conversation,
    run_id: &str,
    cancel: &Cancel,
    tally: &mut Tally,
    request: ChatRequest,
) -> Result<ModelAnswer, ModelFailure> {
    let mut stream = env.options.provider.stream(request);
    let mut text = String::new();
    let mut calls: Vec<Partial> = Vec::new();
    let finish = loop {
        let event = tokio::select! {
            event = stream.next() => event,
            () = cancel.cancelled() => return Err(ModelFailure::Interrupted { text }),
        };
        match event {
            Some(LlmEvent::TextDelta(delta)) => {
                text.push_str(&delta);
                env.sink.emit(AgentEvent::TextDelta {
                    run_id: run_id.to_owned(),
                    text: delta,
                });
            }
            Some(LlmEvent::ToolCallStart { id, name }) => calls.push(Partial {
                id,
                name,
                arguments: String::new(),
                signature: None,
            }),
            Some(LlmEvent::ToolCallDelta { id, fragment }) => {
                if let Some(c) = calls.iter_mut().rev().find(|c| c.id == id) {
                    c.arguments.push_str(&fragment);
                }
            }
            Some(LlmEvent::ToolCallEnd { id, signature }) => {
                if let Some(c) = calls.iter_mut().rev().find(|c| c.id == id) {
                    c.signature = signature;
                }
            }
            Some(LlmEvent::Usage(usage)) => {
                tally.usage += usage;
                convo.usage += usage;
                env.sink.emit(AgentEvent::Usage {
                    run_id: run_id.to_owned(),
                    request: usage,
                    turn: tally.usage,
                    session: convo.usage,
                });
            }
            Some(LlmEvent::Finish(reason)) => break Some(reason),
            Some(LlmEvent::Error(error)) => return Err(ModelFailure::Provider(error)),
            None => {
                let kind = env.options.provider.kind();
                return Err(ModelFailure::Provider(LlmError::truncated(kind)));
            }
        }
    };
    drop(stream);
    let calls = calls
        .into_iter()
        .map(|c| ToolCall::from_fragments(c.id, c.name, &c.arguments, c.signature))
        .collect();
    Ok((text, calls, finish))
}

/// What this request declares (every tool, or tool search's share of them; see
/// `exposure`), announced when it changes. `tool_search` is registered the first time
/// a session needs it.
async fn offer_tools(
    env: &mut TurnEnv,
    convo: &Conversation,
    run_id: &str,
    mut tools: Vec<ToolDeclaration>,
) -> Vec<ToolDeclaration> {
    let options = &env.options.tool_search;
    let search = crate::tools::search::TOOL_SEARCH;
    if options.setting != crate::config::ToolSearchSetting::Off
        && !tools.iter().any(|t| t.name == search)
    {
        tools.push(declaration(crate::tools::builtin_specs::tool_search_spec()));
    }
    let (tools, report) = super::exposure::offer(options, tools, &convo.messages);
    if report.search
        && let Err(e) = crate::tools::search::ensure_registered(&env.options.registry).await
    {
        tracing::warn!("tool search: {e}");
    }
    if env.offered.as_ref() != Some(&report) {
        env.offered = Some(report.clone());
        env.sink.emit(AgentEvent::ToolsOffered {
            run_id: run_id.to_owned(),
            report,
        });
    }
    tools
}

/// The tools offered to the model: all of them, or under `ReadOnly` those that can read;
/// never an app-only one (MCP Apps visibility without `"model"`).
pub fn declarations(registry: &Registry, scope: Scope) -> Vec<ToolDeclaration> {
    registry
        .model_specs()
        .into_iter()
        .filter(|s| {
            scope == Scope::Full
                || s.default_effect == ToolEffect::Read
                || s.effect_mapping().values().any(|e| *e == ToolEffect::Read)
        })
        .map(declaration)
        .collect()
}

/// A tool as the model is told of it (the title when there is no description).
fn declaration(s: crate::tools::ToolSpec) -> ToolDeclaration {
    ToolDeclaration {
        description: if s.description.is_empty() {
            s.title.clone().unwrap_or_default()
        } else {
            s.description.clone()
        },
        name: s.name,
        parameters: s.input_schema,
    }
}

fn shorten(text: &str) -> String {
    match text.char_indices().nth(PAUSE_PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
