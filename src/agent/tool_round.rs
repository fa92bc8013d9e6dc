//! Running one round of the model's tool calls through `Registry::invoke`. The gate
//! reports each call's events to the session's sink itself (`SinkObserver`); this
//! file announces the request and records the answer the model gets.

use std::sync::Arc;

use futures::StreamExt;
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
    /// The tool's structured content, for the session file.
    structured: Option<Value>,
}

impl Answer {
    fn error(content: String, end: CallEnd) -> Self {
        Self {
            content,
            is_error: true,
            end,
            approval_denied: false,
            structured: None,
        }
    }
}

/// At most this many reads of one response run at once.
pub const MAX_CONCURRENT_READS: usize = 4;

/// Runs `calls`; every call gets a result message, in call order, even after an
/// interrupt. Consecutive reads the gate will admit without asking
/// ([`crate::tools::Registry::runs_unasked`]) run together, up to
/// [`MAX_CONCURRENT_READS`] at a time, unless step mode would pause before them;
/// everything else runs one at a time, so approvals still come one by one, in order.
pub async fn run_tool_round(
    env: &mut TurnEnv,
    convo: &mut Conversation,
    run_id: &str,
    cancel: &Cancel,
    tally: &mut Tally,
    calls: &[ToolCall],
) -> RoundEnd {
    tally.failed_calls = 0;
    let mut i = 0;
    while i < calls.len() {
        let batch = if env.step.would_pause() {
            1
        } else {
            concurrent_reads(env, run_id, cancel, &calls[i..])
        };
        let answers = if batch > 1 {
            run_together(env, run_id, cancel, &calls[i..i + batch]).await
        } else {
            vec![run_one(env, run_id, cancel, &calls[i]).await]
        };
        let mut interrupted = false;
        for (call, answer) in calls[i..].iter().zip(answers) {
            let Some(answer) = answer else {
                interrupted = true;
                record_interrupted(env, convo, run_id, call);
                continue;
            };
            if answer.approval_denied {
                tally.approvals_denied += 1;
            } else if answer.is_error {
                tally.failed_calls += 1;
            }
            let limit = env.options.max_tool_result_chars;
            record(env, convo, run_id, call, answer, limit);
        }
        i += batch;
        if interrupted {
            // Calls never reached still get their card: announced, then not run.
            for rest in &calls[i..] {
                announce(env, run_id, rest);
                record_interrupted(env, convo, run_id, rest);
            }
            return RoundEnd::Interrupted;
        }
    }
    RoundEnd::Done
}

/// How many of `calls`, from the first, may run together (1 or more when any).
fn concurrent_reads(env: &TurnEnv, run_id: &str, cancel: &Cancel, calls: &[ToolCall]) -> usize {
    let registry = &env.options.registry;
    let reads = calls
        .iter()
        .take(MAX_CONCURRENT_READS)
        .take_while(|call| {
            let Value::Object(args) = &call.arguments else {
                return false;
            };
            registry.runs_unasked(&call.name, args, &context(env, run_id, call, cancel))
        })
        .count();
    reads.max(1)
}

/// One call: announced, a step pause when step mode is on, then the gate. `None`:
/// interrupted before it finished.
async fn run_one(
    env: &mut TurnEnv,
    run_id: &str,
    cancel: &Cancel,
    call: &ToolCall,
) -> Option<Answer> {
    announce(env, run_id, call);
    let sink = env.sink.clone();
    let pause = || {
        sink.emit(AgentEvent::StepPaused {
            run_id: run_id.to_owned(),
            pause: StepPause::ToolCall {
                tool_call_id: call.id.clone(),
                tool: call.name.clone(),
                args: call.arguments.clone(),
            },
        });
    };
    let paused = env.step.pause(cancel, pause).await;
    if paused.is_ok() && !cancel.is_cancelled() {
        invoke(env, run_id, call, cancel).await
    } else {
        None
    }
}

/// Reads that overlap: all are announced first, in order; the answers come back in
/// call order.
async fn run_together(
    env: &TurnEnv,
    run_id: &str,
    cancel: &Cancel,
    calls: &[ToolCall],
) -> Vec<Option<Answer>> {
    for call in calls {
        announce(env, run_id, call);
    }
    // A vector, not a lazy map: the session task must stay `Send` for every lifetime.
    let runs: Vec<_> = calls
        .iter()
        .map(|call| run_read(env, run_id, cancel, call))
        .collect();
    futures::stream::iter(runs)
        .buffered(MAX_CONCURRENT_READS)
        .collect()
        .await
}

async fn run_read(env: &TurnEnv, run_id: &str, cancel: &Cancel, call: &ToolCall) -> Option<Answer> {
    if cancel.is_cancelled() {
        None
    } else {
        invoke(env, run_id, call, cancel).await
    }
}

fn announce(env: &TurnEnv, run_id: &str, call: &ToolCall) {
    env.sink.emit(AgentEvent::ToolCallRequested {
        run_id: run_id.to_owned(),
        call_id: CallId::new(call.id.clone()),
        tool: call.name.clone(),
        args: call.arguments.clone(),
        origin: Origin::Model,
    });
}

fn record_interrupted(env: &TurnEnv, convo: &mut Conversation, run_id: &str, call: &ToolCall) {
    let interrupted = Answer::error(INTERRUPTED_RESULT.to_owned(), CallEnd::Aborted);
    record(env, convo, run_id, call, interrupted, usize::MAX);
}

/// The context the gate sees for one of the model's calls.
fn context(env: &TurnEnv, run_id: &str, call: &ToolCall, cancel: &Cancel) -> ToolContext {
    let ctx = ToolContext::new(run_id, Origin::Model)
        .with_scope(env.scope)
        .with_call_id(CallId::new(call.id.clone()))
        .with_cancel(cancel.token())
        .with_observer(Arc::new(SinkObserver(env.sink.clone())));
    env.options.call_context(ctx)
}

/// Sends one call through the gate. `None`: the turn was interrupted (or the person
/// aborted it at the approval prompt) before the call finished.
async fn invoke(env: &TurnEnv, run_id: &str, call: &ToolCall, cancel: &Cancel) -> Option<Answer> {
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
    let ctx = context(env, run_id, call, cancel);
    let registry = Arc::clone(&env.options.registry);
    match registry.invoke(&call.name, args.clone(), &ctx).await {
        CallOutcome::Ran(result) => Some(answer_of(&result)),
        CallOutcome::Denied { ruling, message } => Some(Answer {
            content: message,
            is_error: true,
            end: CallEnd::Denied,
            approval_denied: ruling.is_refusal_by_person(),
            structured: None,
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
    if call.name == crate::tools::search::TOOL_SEARCH && !answer.is_error {
        let before = super::exposure::found_so_far(&convo.messages);
        let tools: Vec<String> = crate::tools::search::found_in_result(&content)
            .into_iter()
            .filter(|t| !before.contains(t) && env.options.tool_search.deferred(t))
            .collect();
        if !tools.is_empty() {
            env.sink.emit(AgentEvent::ToolsLoaded {
                run_id: run_id.to_owned(),
                call_id: CallId::new(call.id.clone()),
                tools,
            });
        }
    }
    // Kept for `switchboard replay` only when it is no longer than the model's text
    // may be: a session file holds what the model saw, not more.
    let structured = answer
        .structured
        .filter(|s| s.to_string().chars().count() <= limit);
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
        structured,
    });
}

fn answer_of(result: &ToolResult) -> Answer {
    Answer {
        content: text_for_model(result),
        is_error: result.is_error,
        end: if result.is_error {
            CallEnd::Error
        } else {
            CallEnd::Ok
        },
        approval_denied: false,
        structured: result.structured.clone(),
    }
}

/// A result as the model reads it (before [`cut_for_model`]): the text blocks, a line
/// for each other block, the structured content only when no block carries text, and
/// a note when the structured content breaks the tool's output schema.
///
/// The text is the fallback every MCP Apps UI tool gives
/// (https://github.com/modelcontextprotocol/ext-apps, `specification/2026-01-26/apps.mdx`):
/// its `structuredContent` is meant for the UI, so with text beside it the model reads
/// the text only; the structured content stays in the result view and session events.
pub fn text_for_model(result: &ToolResult) -> String {
    let has_text = result.content.iter().any(|b| {
        matches!(
            b,
            ContentBlock::Text { .. } | ContentBlock::EmbeddedResource { text: Some(_), .. }
        )
    });
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
    if !has_text && let Some(structured) = &result.structured {
        parts.push(structured.to_string());
    }
    if !result.structured_mismatch.is_empty() {
        parts.push(format!(
            "[switchboard: the structured content does not match the tool's output schema ({}); rely on the text content only]",
            result.structured_mismatch.join("; ")
        ));
    }
    parts.join("\n")
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn with(content: Vec<ContentBlock>) -> ToolResult {
        ToolResult {
            content,
            structured: Some(json!({"hands": 12})),
            ..ToolResult::text("")
        }
    }

    #[test]
    fn structured_content_beside_text_stays_out_of_the_model_context() {
        let text = text_for_model(&with(vec![ContentBlock::Text {
            text: "It is noon.".into(),
        }]));
        assert_eq!(text, "It is noon.");
    }

    #[test]
    fn structured_content_is_read_when_no_block_gives_text() {
        assert_eq!(text_for_model(&with(Vec::new())), r#"{"hands":12}"#);
        let image = text_for_model(&with(vec![ContentBlock::Image {
            mime: "image/png".into(),
            data: "AAAA".into(),
        }]));
        assert_eq!(image, "[image image/png not shown]\n{\"hands\":12}");
    }
}
