//! A session's conversation rebuilt from its events, for resuming and exporting.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::event::AgentEvent;
use crate::llm::{Message, Usage};

/// What a result says when the session ended before the call finished.
pub const MISSING_RESULT: &str = "No result: the session ended before this call finished.";

/// The conversation (user, assistant and tool messages) the events describe. Calls
/// without a result get one saying so, so the history is valid for every provider.
pub fn messages_from_events<'a>(events: impl IntoIterator<Item = &'a AgentEvent>) -> Vec<Message> {
    let mut out = Vec::new();
    for event in events {
        match event {
            AgentEvent::TurnStarted { text, .. } => out.push(Message::user(text.clone())),
            AgentEvent::ModelResponse {
                text, tool_calls, ..
            } => out.push(Message::assistant(text.clone(), tool_calls.clone())),
            AgentEvent::ToolResult {
                tool_call_id,
                tool,
                is_error,
                content,
                ..
            } => out.push(Message::tool(
                tool_call_id.clone(),
                tool.clone(),
                content.clone(),
                *is_error,
            )),
            _ => {}
        }
    }
    repair_missing_results(out)
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

/// The conversation as Markdown.
pub fn to_markdown(id: &str, messages: &[Message], usage: Usage) -> String {
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
    let _ = writeln!(
        out,
        "---\n\nTokens: {} in, {} out.",
        usage.input_tokens, usage.output_tokens
    );
    out
}

/// The conversation as JSON: `{id, messages, usage}`.
pub fn to_json(id: &str, messages: &[Message], usage: Usage) -> Value {
    json!({"id": id, "messages": messages, "usage": usage})
}
