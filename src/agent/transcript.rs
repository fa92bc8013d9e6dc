//! A session's conversation rebuilt from its events, for resuming and exporting.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::event::{AgentEvent, TurnEnd};
use crate::gate::CallEnd;
use crate::hooks::HookEvent;
use crate::llm::{Message, Usage};
use crate::policy::Origin;

/// What a result says when the session ended before the call finished.
pub const MISSING_RESULT: &str = "No result: the session ended before this call finished.";

/// The conversation (user, assistant and tool messages) the events describe. Calls
/// without a result get one saying so, so the history is valid for every provider.
/// Calls the person made (`/call`, forms) are in the file but not in the
/// conversation: the model never asked for them.
pub fn messages_from_events<'a>(events: impl IntoIterator<Item = &'a AgentEvent>) -> Vec<Message> {
    let mut out = Vec::new();
    let mut asked: HashSet<&str> = HashSet::new();
    for event in events {
        match event {
            AgentEvent::TurnStarted { text, .. } => out.push(Message::user(text.clone())),
            AgentEvent::HookNote { hook, text, .. } => add_hook_note(&mut out, hook, text),
            // A blocked message never reached the model.
            AgentEvent::TurnDone {
                reason: TurnEnd::Blocked,
                ..
            } => {
                if matches!(out.last(), Some(Message::User { .. })) {
                    out.pop();
                }
            }
            AgentEvent::ModelResponse {
                text, tool_calls, ..
            } => {
                asked.extend(tool_calls.iter().map(|c| c.id.as_str()));
                out.push(Message::assistant(text.clone(), tool_calls.clone()));
            }
            AgentEvent::ToolResult {
                call_id,
                tool,
                is_error,
                content,
                ..
            } if asked.contains(call_id.as_str()) => out.push(Message::tool(
                call_id.0.clone(),
                tool.clone(),
                content.clone(),
                *is_error,
            )),
            _ => {}
        }
    }
    repair_missing_results(out)
}

/// As the turn did: prompt context joins the user's message, a stop hook's reason
/// is a new user message.
fn add_hook_note(out: &mut Vec<Message>, hook: &str, text: &str) {
    match out.last_mut() {
        Some(Message::User { text: message }) if hook == HookEvent::UserPromptSubmit.key() => {
            super::session_hooks::prompt_with_context(message, text);
        }
        _ => out.push(Message::user(text.to_owned())),
    }
}

fn repair_missing_results(messages: Vec<Message>) -> Vec<Message> {
    let answered: HashSet<String> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    let mut out = Vec::with_capacity(messages.len());
    let mut pending: Vec<Message> = Vec::new();
    for m in messages {
        if !matches!(m, Message::Tool { .. }) {
            out.append(&mut pending);
        }
        if let Message::Assistant { tool_calls, .. } = &m {
            pending = tool_calls
                .iter()
                .filter(|c| !answered.contains(&c.id))
                .map(|c| Message::tool(c.id.clone(), c.name.clone(), MISSING_RESULT, true))
                .collect();
        }
        out.push(m);
    }
    out.append(&mut pending);
    out
}

/// A call the person made (`/call`, a form, `/read`, `/prompt`) as the session file
/// records it. These are not part of the model's conversation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ManualCall {
    pub call_id: String,
    /// The tool, or `read SERVER URI` / `prompt SERVER NAME`.
    pub what: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<CallEnd>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

/// The calls the person made, in the order they were made.
pub fn manual_calls_from_events<'a>(
    events: impl IntoIterator<Item = &'a AgentEvent>,
) -> Vec<ManualCall> {
    let mut calls: Vec<ManualCall> = Vec::new();
    for event in events {
        match event {
            AgentEvent::ToolCallRequested {
                call_id,
                tool,
                args,
                origin: Origin::Manual,
                ..
            } => calls.push(ManualCall {
                call_id: call_id.0.clone(),
                what: tool.clone(),
                args: Some(args.clone()),
                outcome: None,
                result: None,
            }),
            AgentEvent::RequestStarted { call_id, label, .. } => calls.push(ManualCall {
                call_id: call_id.0.clone(),
                what: label.clone(),
                args: None,
                outcome: None,
                result: None,
            }),
            AgentEvent::ToolResult {
                call_id,
                content,
                outcome,
                ..
            } => {
                if let Some(call) = calls.iter_mut().rev().find(|c| c.call_id == call_id.0) {
                    call.result = Some(content.clone());
                    call.outcome = *outcome;
                }
            }
            AgentEvent::RequestFinished {
                call_id,
                outcome,
                text,
                ..
            } => {
                if let Some(call) = calls.iter_mut().rev().find(|c| c.call_id == call_id.0) {
                    call.result = Some(text.clone());
                    call.outcome = Some(*outcome);
                }
            }
            _ => {}
        }
    }
    calls
}

/// Tokens used over all turns of the events.
pub fn session_usage<'a>(events: impl IntoIterator<Item = &'a AgentEvent>) -> Usage {
    let mut usage = Usage::default();
    for event in events {
        if let AgentEvent::TurnDone { usage: u, .. } = event {
            usage += *u;
        }
    }
    usage
}

/// The conversation as Markdown, then the calls the person made.
pub fn to_markdown(id: &str, messages: &[Message], manual: &[ManualCall], usage: Usage) -> String {
    let mut out = format!("# switchboard session {id}\n\n");
    for m in messages {
        match m {
            Message::System { text } => {
                let _ = write!(out, "## System\n\n{text}\n\n");
            }
            Message::User { text } => {
                let _ = write!(out, "## User\n\n{text}\n\n");
            }
            Message::Assistant { text, tool_calls } => {
                out.push_str("## Assistant\n\n");
                if !text.is_empty() {
                    let _ = write!(out, "{text}\n\n");
                }
                for c in tool_calls {
                    let args = serde_json::to_string_pretty(&c.arguments).unwrap_or_default();
                    let _ = write!(
                        out,
                        "Tool call `{}` (`{}`):\n\n```json\n{args}\n```\n\n",
                        c.name, c.id
                    );
                }
            }
            Message::Tool {
                name,
                content,
                is_error,
                ..
            } => {
                let label = if *is_error { "error" } else { "result" };
                let _ = write!(
                    out,
                    "### Tool {label}: `{name}`\n\n```text\n{content}\n```\n\n"
                );
            }
        }
    }
    if !manual.is_empty() {
        out.push_str("## Calls you made\n\n");
    }
    for call in manual {
        let outcome = call.outcome.map_or("unfinished", CallEnd::as_str);
        let _ = write!(out, "### `{}` ({outcome})\n\n", call.what);
        if let Some(args) = &call.args {
            let args = serde_json::to_string_pretty(args).unwrap_or_default();
            let _ = write!(out, "```json\n{args}\n```\n\n");
        }
        if let Some(result) = &call.result {
            let _ = write!(out, "```text\n{result}\n```\n\n");
        }
    }
    let _ = writeln!(
        out,
        "---\n\nTokens: {} in, {} out.",
        usage.input_tokens, usage.output_tokens
    );
    out
}

/// The conversation as JSON: `{id, messages, manual_calls, usage}`.
pub fn to_json(id: &str, messages: &[Message], manual: &[ManualCall], usage: Usage) -> Value {
    json!({"id": id, "messages": messages, "manual_calls": manual, "usage": usage})
}
