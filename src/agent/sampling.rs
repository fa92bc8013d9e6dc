//! A server's sampling request (`sampling/createMessage`, MCP 2025-11-25 "Sampling",
//! <https://modelcontextprotocol.io/specification/2025-11-25/client/sampling>) as one
//! model request, and the model's answer as the result the server gets back.
//!
//! Tools offered with the request (sampling with tools) are declared to the model;
//! the tool calls it makes go back to the server as `tool_use` content with
//! `stopReason: "toolUse"` — the spec has the server run them and ask again with
//! their results, so the client runs none of them. The request counts against
//! `[policy] max_calls."sampling"` (see [`SAMPLING_BUDGET`]) in `mcp::input`, when it
//! arrives — whichever front end answers it.

use futures::StreamExt;
use serde_json::{Value, json};

use crate::llm::{
    ChatRequest, FinishReason, LlmError, LlmEvent, Message, Provider, RequestOptions, ToolCall,
    ToolDeclaration,
};
use crate::mcp::SamplingReply;

/// The `[policy] max_calls` entry that limits sampling requests per session.
pub use crate::policy::SAMPLING_BUDGET;

fn block_text(content: &Value) -> String {
    let one = |b: &Value| b.get("text").and_then(Value::as_str).map(str::to_owned);
    match content {
        Value::Array(blocks) => blocks.iter().filter_map(one).collect::<Vec<_>>().join("\n"),
        other => one(other).unwrap_or_default(),
    }
}

/// Why a sampling request got no reply from the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SamplingError {
    #[error("the sampling request has no messages")]
    NoMessages,
    #[error("the model failed: {0}")]
    Model(#[source] LlmError),
}

fn blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::Array(list) => list.clone(),
        other => vec![other.clone()],
    }
}

/// The model request for `params`; `Err` when it has no messages.
pub fn chat_request(params: &Value) -> Result<ChatRequest, SamplingError> {
    let mut messages = Vec::new();
    if let Some(system) = params.get("systemPrompt").and_then(Value::as_str) {
        messages.push(Message::system(system));
    }
    let list = params.get("messages").and_then(Value::as_array);
    for m in list.into_iter().flatten() {
        let content = m.get("content").cloned().unwrap_or(Value::Null);
        let assistant = m.get("role").and_then(Value::as_str) == Some("assistant");
        let calls: Vec<ToolCall> = blocks(&content)
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            .map(|b| ToolCall {
                id: b.get("id").and_then(Value::as_str).unwrap_or("").to_owned(),
                name: b
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                arguments: b.get("input").cloned().unwrap_or(json!({})),
                signature: None,
            })
            .collect();
        for result in blocks(&content)
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        {
            messages.push(Message::Tool {
                call_id: result
                    .get("toolUseId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                name: String::new(),
                content: result.get("content").map(block_text).unwrap_or_default(),
                is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
            });
        }
        let text = block_text(&content);
        if assistant {
            messages.push(Message::assistant(text, calls));
        } else if !text.is_empty() {
            messages.push(Message::user(text));
        }
    }
    if !messages
        .iter()
        .any(|m| !matches!(m, Message::System { .. }))
    {
        return Err(SamplingError::NoMessages);
    }
    let tools = params
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            Some(ToolDeclaration {
                name: t.get("name")?.as_str()?.to_owned(),
                description: t
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                parameters: t.get("inputSchema").cloned().unwrap_or(json!({})),
            })
        })
        .collect();
    Ok(ChatRequest {
        messages,
        tools,
        options: RequestOptions {
            model: None,
            max_tokens: params
                .get("maxTokens")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok()),
            temperature: params.get("temperature").and_then(Value::as_f64),
        },
    })
}

/// Asks `provider` and gathers its answer: text, tool calls (as `tool_use` blocks),
/// the stop reason in MCP's words, the model that answered.
pub async fn sample(
    provider: &dyn Provider,
    params: &Value,
) -> Result<SamplingReply, SamplingError> {
    let request = chat_request(params)?;
    let mut stream = provider.stream(request);
    let mut text = String::new();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    let mut finish = None;
    while let Some(event) = stream.next().await {
        match event {
            LlmEvent::TextDelta(delta) => text.push_str(&delta),
            LlmEvent::ToolCallStart { id, name } => calls.push((id, name, String::new())),
            LlmEvent::ToolCallDelta { id, fragment } => {
                if let Some(call) = calls.iter_mut().find(|c| c.0 == id) {
                    call.2.push_str(&fragment);
                }
            }
            LlmEvent::Finish(reason) => finish = Some(reason),
            LlmEvent::Error(e) => return Err(SamplingError::Model(e)),
            _ => {}
        }
    }
    let mut content: Vec<Value> = Vec::new();
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    for (id, name, args) in &calls {
        let input: Value = serde_json::from_str(args).unwrap_or(json!({}));
        content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
    }
    let stop = match finish {
        _ if !calls.is_empty() => "toolUse",
        Some(FinishReason::Length) => "maxTokens",
        _ => "endTurn",
    };
    let content = match content.len() {
        1 => content.remove(0),
        _ => Value::Array(content),
    };
    Ok(SamplingReply {
        model: provider.model().to_owned(),
        role: "assistant".into(),
        content,
        stop_reason: Some(stop.into()),
    })
}
