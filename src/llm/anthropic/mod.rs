//! Anthropic Messages: `POST {base}/v1/messages` with `stream: true`.
//!
//! `system` is top-level; tool results go back as `tool_result` blocks inside one user
//! message; the `memory` tool is declared natively (`memory_20250818`, beta header).

pub(super) mod stream;

use serde_json::{Map, Value, json};

use self::stream::AnthropicDecoder;
use super::endpoint::Endpoint;
use super::message::{ChatRequest, Message};
use super::tool_names::ToolNames;
use super::wire::{HttpProvider, Outgoing, Wire, assistant_parts, turns};

pub const API_VERSION: &str = "2023-06-01";
/// The beta that enables the native memory tool.
pub const MEMORY_BETA: &str = "context-management-2025-06-27";
/// `max_tokens` is required by the API; used when none is configured.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

pub type AnthropicProvider = HttpProvider<Anthropic>;

impl AnthropicProvider {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.anthropic.com";
    pub const DEFAULT_KEY_ENV: &'static str = "ANTHROPIC_API_KEY";
}

/// The Messages API.
#[derive(Debug, Clone, Copy, Default)]
pub struct Anthropic;

impl Wire for Anthropic {
    const KIND: &'static str = "anthropic";
    type Decoder = AnthropicDecoder;

    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Outgoing {
        let mut headers = vec![
            ("x-api-key", endpoint.api_key.clone()),
            ("anthropic-version", API_VERSION.to_owned()),
        ];
        if uses_memory(request) {
            headers.push(("anthropic-beta", MEMORY_BETA.to_owned()));
        }
        Outgoing {
            url: format!("{}/v1/messages", endpoint.base_url),
            headers,
            body: request_body(request, endpoint),
        }
    }
}

/// Whether the request offers the `memory` tool (declared natively).
pub fn uses_memory(request: &ChatRequest) -> bool {
    request.tools.iter().any(|t| t.name == "memory")
}

/// The JSON body for `request`.
pub fn request_body(request: &ChatRequest, endpoint: &Endpoint) -> Value {
    let options = endpoint.resolve(&request.options);
    let mut body = Map::new();
    body.insert("model".into(), json!(options.model));
    body.insert(
        "max_tokens".into(),
        json!(options.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    if let Some(system) = request.system_text() {
        body.insert("system".into(), json!(system));
    }
    let names = request.tool_names();
    body.insert(
        "messages".into(),
        Value::Array(turns(&request.messages, "content", |m| turn(m, &names))),
    );
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                if t.name == "memory" {
                    json!({"type": "memory_20250818", "name": "memory"})
                } else {
                    json!({"name": names.wire(&t.name), "description": t.description,
                        "input_schema": t.parameters})
                }
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), json!(t));
    }
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// Messages as alternating user/assistant turns: consecutive tool results (and a user
/// text after them) merge into one user message.
fn turn(m: &Message, names: &ToolNames) -> Option<(&'static str, Vec<Value>)> {
    Some(match m {
        Message::System { .. } => return None,
        Message::User { text } => ("user", vec![json!({"type": "text", "text": text})]),
        Message::Assistant { text, tool_calls } => {
            let text = (!text.is_empty()).then(|| json!({"type": "text", "text": text}));
            let blocks = assistant_parts(text, tool_calls, |c| {
                json!({"type": "tool_use", "id": c.id, "name": names.wire(&c.name),
                    "input": c.arguments_object()})
            });
            ("assistant", blocks)
        }
        Message::Tool {
            call_id,
            content,
            is_error,
            ..
        } => (
            "user",
            vec![json!({"type": "tool_result", "tool_use_id": call_id,
                "content": content, "is_error": is_error})],
        ),
    })
}
