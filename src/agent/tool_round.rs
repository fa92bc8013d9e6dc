//! Running one round of the model's tool calls through `Registry::invoke`. The gate
//! reports each call's events to the session's sink itself (`SinkObserver`); this
//! file announces the request and records the answer the model gets.

use std::sync::Arc;

use serde_json::Value;

use super::cancel::Cancel;
use super::event::AgentEvent;
use super::sink::SinkObserver;
use super::step::StepPause;
use super::turn::{Conversation, Tally, TurnEnv};
use crate::gate::{CallEnd, CallId};
use crate::llm::{Message, ToolCall};
use crate::policy::Origin;
use crate::tools::{CallOutcome, ContentBlock, InvokeError, ToolContext, ToolResult};

/// What a call that never ran is answered with after an interrupt.
pub const INTERRUPTED_RESULT: &str = "Not run: the user interrupted the turn.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundEnd {
    Done,
    Interrupted,
}

/// What the model is told about one call.
struct Answer {
    content: String,
    is_error: bool,
    end: CallEnd,
    /// The user (or a non-interactive run) refused it.
    approval_denied: bool,
}

impl Answer {
    fn error(content: String, end: CallEnd) -> Self {
        Self {
            content,
            is_error: true,
            end,
            approval_denied: false,
        }
    }
}

/// Runs `calls` in order; every call gets a result message, even after an interrupt.
pub async fn run_tool_round(
    env: &mut TurnEnv,
    convo: &mut Conversation,
    run_id: &str,
    cancel: &Cancel,
    tally: &mut Tally,
    calls: &[ToolCall],
) -> RoundEnd {
    tally.failed_calls = 0;
    for (i, call) in calls.iter().enumerate() {
        env.sink.emit(AgentEvent::ToolCallRequested {
            run_id: run_id.to_owned(),
            call_id: CallId::new(call.id.clone()),
            tool: call.name.clone(),
            args: call.arguments.clone(),
            origin: Origin::Model,
        });
        let sink = env.sink.clone();
        let announce = || {
            sink.emit(AgentEvent::StepPaused {
                run_id: run_id.to_owned(),
                pause: StepPause::ToolCall {
                    tool_call_id: call.id.clone(),
                    tool: call.name.clone(),
                    args: call.arguments.clone(),
                },
            });
        };
        let paused = env.step.pause(cancel, announce).await;
        let answer = if paused.is_ok() && !cancel.is_cancelled() {
            invoke(env, run_id, call, cancel).await
        } else {
            None
        };
        let Some(answer) = answer else {
            for rest in &calls[i..] {
                let interrupted = Answer::error(INTERRUPTED_RESULT.to_owned(), CallEnd::Aborted);
                record(env, convo, run_id, rest, interrupted, usize::MAX);
            }
            return RoundEnd::Interrupted;
        };
        if answer.approval_denied {
            tally.approvals_denied += 1;
        } else if answer.is_error {
            tally.failed_calls += 1;
        }
        let limit = env.options.max_tool_result_chars;
        record(env, convo, run_id, call, answer, limit);
    }
    RoundEnd::Done
}

/// Sends one call through the gate. `None`: the turn was interrupted (or the person
/// aborted it at the approval prompt) before the call finished.
async fn invoke(
    env: &mut TurnEnv,
    run_id: &str,
    call: &ToolCall,
    cancel: &Cancel,
) -> Option<Answer> {
    let Value::Object(args) = &call.arguments else {
        return Some(Answer::error(
            format!(
                "The arguments were not a JSON object, so {} was not called: {}",
                call.name,
                call.arguments_text()
            ),
            CallEnd::Failed,
        ));
    };
    let ctx = ToolContext::new(run_id, Origin::Model)
        .with_scope(env.scope)
        .with_call_id(CallId::new(call.id.clone()))
        .with_cancel(cancel.token())
        .with_observer(Arc::new(SinkObserver(env.sink.clone())));
    let ctx = env.options.call_context(ctx);
    let registry = Arc::clone(&env.options.registry);
    match registry.invoke(&call.name, args.clone(), &ctx).await {
        CallOutcome::Ran(result) => Some(answer_of(&result)),
        CallOutcome::Denied { ruling, message } => Some(Answer {
            content: message,
            is_error: true,
            end: CallEnd::Denied,
            approval_denied: ruling.is_refusal_by_person(),
        }),
        CallOutcome::Aborted | CallOutcome::Cancelled => None,
        CallOutcome::Failed(InvokeError::NotFound { name }) => {
            let names = registry.names();
            let available = if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            };
            Some(Answer::error(
                format!("There is no tool named {name:?}. Available tools: {available}."),
                CallEnd::Failed,
            ))
        }
    }
}

/// Appends the result message and announces it.
fn record(
    env: &TurnEnv,
    convo: &mut Conversation,
    run_id: &str,
    call: &ToolCall,
    answer: Answer,
    limit: usize,
) {
    let (content, truncated) = cut_for_model(answer.content, limit);
    convo.messages.push(Message::tool(
        call.id.clone(),
        call.name.clone(),
        content.clone(),
        answer.is_error,
    ));
    env.sink.emit(AgentEvent::ToolResult {
        run_id: run_id.to_owned(),
        call_id: CallId::new(call.id.clone()),
        tool: call.name.clone(),
        is_error: answer.is_error,
        content,
        truncated,
        outcome: Some(answer.end),
    });
}

fn answer_of(result: &ToolResult) -> Answer {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        parts.push(match block {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Image { mime, .. } => format!("[image {mime} not shown]"),
            ContentBlock::Audio { mime, .. } => format!("[audio {mime} not shown]"),
            ContentBlock::ResourceLink { uri, name, .. } => format!("[resource {name}: {uri}]"),
            ContentBlock::EmbeddedResource { uri, text, .. } => match text {
                Some(t) => format!("[resource {uri}]\n{t}"),
                None => format!("[binary resource {uri} not shown]"),
            },
        });
    }
    if parts.is_empty()
        && let Some(structured) = &result.structured
    {
        parts.push(structured.to_string());
    }
    if !result.structured_mismatch.is_empty() {
        parts.push(format!(
            "[switchboard: the structured content does not match the tool's output schema ({}); rely on the text content only]",
            result.structured_mismatch.join("; ")
        ));
    }
    Answer {
        content: parts.join("\n"),
        is_error: result.is_error,
        end: if result.is_error {
            CallEnd::Error
        } else {
            CallEnd::Ok
        },
        approval_denied: false,
    }
}

/// Cuts `text` to `limit` characters with a visible marker.
pub fn cut_for_model(text: String, limit: usize) -> (String, bool) {
    let total = text.chars().count();
    match text.char_indices().nth(limit) {
        Some((cut, _)) => {
            let marker = format!(
                "\n\n[switchboard: result truncated, showing the first {limit} of {total} characters]"
            );
            (format!("{}{marker}", &text[..cut]), true)
        }
        None => (text, false),
    }
}
