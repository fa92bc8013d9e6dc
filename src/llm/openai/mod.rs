//! OpenAI Chat Completions (and compatible servers): `POST {base}/chat/completions`.

pub(super) mod chunk;
pub(super) mod stream;

use serde_json::{Map, Value, json};

use self::stream::OpenAiDecoder;
use super::endpoint::Endpoint;
use super::message::{ChatRequest, Message, ToolCall};
use super::tool_names::ToolNames;
use super::wire::{HttpProvider, Outgoing, Wire, bearer, sampling};

/// The OpenAI provider; `base_url` includes the version path (`https://api.openai.com/v1`).
pub type OpenAiProvider = HttpProvider<OpenAi>;

impl OpenAiProvider {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";
    pub const DEFAULT_KEY_ENV: &'static str = "OPENAI_API_KEY";
}

/// The Chat Completions API.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAi;

impl Wire for OpenAi {
    const KIND: &'static str = "openai";
    type Decoder = OpenAiDecoder;

    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Outgoing {
        Outgoing {
            url: format!("{}/chat/completions", endpoint.base_url),
            headers: vec![bearer(endpoint)],
            body: request_body(request, endpoint),
        }
    }
}

/// The tools in the OpenAI function shape,
/// declared under their provider-safe names.
fn function_tools(request: &ChatRequest, names: &ToolNames) -> Value {
    request
        .tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": names.wire(&t.name), "description": t.description, "parameters": t.parameters}})
        })
        .collect()
}

/// An assistant's tool calls in the OpenAI function shape (Cohere's too).
pub(super) fn function_calls(tool_calls: &[ToolCall], names: &ToolNames) -> Value {
    tool_calls
        .iter()
        .map(|c| {
            json!({"id": c.id, "type": "function",
                "function": {"name": names.wire(&c.name), "arguments": c.arguments_text()}})
        })
        .collect()
}

/// A tool result as a `tool` message answering its call (Cohere's shape too).
pub(super) fn tool_message(call_id: &str, content: &str) -> Value {
    json!({"role": "tool", "tool_call_id": call_id, "content": content})
}

/// The JSON body for `request`.
pub fn request_body(request: &ChatRequest, endpoint: &Endpoint) -> Value {
    let mut body = chat_body(request, endpoint, |m, names| Some(message(m, names)));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    Value::Object(body)
}

/// The body of a Chat-Completions-like API (OpenAI's, Cohere's v2): the model, the
/// messages (`message` maps each one; `None` leaves it out), the tools in the function
/// shape, the sampling options and `stream: true`.
pub(super) fn chat_body(
    request: &ChatRequest,
    endpoint: &Endpoint,
    message: impl Fn(&Message, &ToolNames) -> Option<Value>,
) -> Map<String, Value> {
    let options = endpoint.resolve(&request.options);
    let mut body = Map::new();
    body.insert("model".into(), json!(options.model));
    let names = request.tool_names();
    let messages: Vec<Value> = request
        .messages
        .iter()
        .filter_map(|m| message(m, &names))
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        body.insert("tools".into(), function_tools(request, &names));
    }
    sampling(&mut body, &options, "max_tokens");
    body.insert("stream".into(), json!(true));
    body
}

fn message(m: &Message, names: &ToolNames) -> Value {
    match m {
        Message::System { text } => json!({"role": "system", "content": text}),
        Message::User { text } => json!({"role": "user", "content": text}),
        Message::Assistant { text, tool_calls } => {
            let mut out = json!({"role": "assistant",
                "content": if text.is_empty() { Value::Null } else { json!(text) }});
            if !tool_calls.is_empty() {
                out["tool_calls"] = function_calls(tool_calls, names);
            }
            out
        }
        Message::Tool {
            call_id, content, ..
        } => tool_message(call_id, content),
    }
}
