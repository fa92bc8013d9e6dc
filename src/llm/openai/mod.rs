//! OpenAI Chat Completions (and compatible servers): `POST {base}/chat/completions`.

pub(super) mod chunk;
pub(super) mod stream;

use serde_json::{Map, Value, json};

use self::stream::OpenAiDecoder;
use super::endpoint::Endpoint;
use super::message::{ChatRequest, Message};
use super::provider::{LlmStream, Provider};
use super::tool_names::ToolNames;
use super::transport::{HttpCall, stream_call};

/// The OpenAI provider; `base_url` includes the version path (`https://api.openai.com/v1`).
#[derive(Debug, Clone)]
pub struct OpenAiProvider {
    endpoint: Endpoint,
}

impl OpenAiProvider {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";
    pub const DEFAULT_KEY_ENV: &'static str = "OPENAI_API_KEY";

    pub fn new(endpoint: Endpoint) -> Self {
        Self { endpoint }
    }
}

impl Provider for OpenAiProvider {
    fn kind(&self) -> &'static str {
        "openai"
    }

    fn model(&self) -> &str {
        &self.endpoint.model
    }

    fn stream(&self, request: ChatRequest) -> LlmStream {
        let e = &self.endpoint;
        let bearer = format!("Bearer {}", e.api_key);
        let call = HttpCall::new(
            "openai",
            e,
            format!("{}/chat/completions", e.base_url),
            e.header_map(&[("authorization", &bearer)]),
            request_body(&request, e),
        );
        stream_call::<OpenAiDecoder>(call, &request)
    }
}

/// The tools in the OpenAI function shape (Cohere's v2 API takes the same),
/// declared under their provider-safe names.
pub(super) fn function_tools(request: &ChatRequest, names: &ToolNames) -> Value {
    request
        .tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": names.wire(&t.name), "description": t.description, "parameters": t.parameters}})
        })
        .collect()
}

/// The JSON body for `request`.
pub fn request_body(request: &ChatRequest, endpoint: &Endpoint) -> Value {
    let options = endpoint.resolve(&request.options);
    let mut body = Map::new();
    body.insert("model".into(), json!(options.model));
    let names = request.tool_names();
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|m| message(m, &names))
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        body.insert("tools".into(), function_tools(request, &names));
    }
    if let Some(n) = options.max_tokens {
        body.insert("max_tokens".into(), json!(n));
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), json!(t));
    }
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    Value::Object(body)
}

fn message(m: &Message, names: &ToolNames) -> Value {
    match m {
        Message::System { text } => json!({"role": "system", "content": text}),
        Message::User { text } => json!({"role": "user", "content": text}),
        Message::Assistant { text, tool_calls } => {
            let mut out = json!({"role": "assistant",
                "content": if text.is_empty() { Value::Null } else { json!(text) }});
            if !tool_calls.is_empty() {
                out["tool_calls"] = tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                            "function": {"name": names.wire(&c.name), "arguments": c.arguments_text()}})
                    })
                    .collect();
            }
            out
        }
        Message::Tool {
            call_id, content, ..
        } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
    }
}
