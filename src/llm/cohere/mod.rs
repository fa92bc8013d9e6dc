//! Cohere Chat API v2: `POST {base}/v2/chat` with `stream: true`, `Authorization: Bearer`.
//!
//! Roles system | user | assistant | tool; tools in the OpenAI function shape; a tool
//! call's `arguments` is a JSON string; each result is one `tool` message answering
//! `tool_call_id`. Reference: <https://docs.cohere.com/reference/chat-stream>.

pub(super) mod stream;

use serde_json::{Map, Value, json};

use self::stream::CohereDecoder;
use super::endpoint::Endpoint;
use super::message::{ChatRequest, Message};
use super::provider::{LlmStream, Provider};
use super::tool_names::ToolNames;
use super::transport::{HttpCall, stream_call};

/// The Cohere provider; `base_url` is the host root (`/v2/chat` is appended).
#[derive(Debug, Clone)]
pub struct CohereProvider {
    endpoint: Endpoint,
}

impl CohereProvider {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.cohere.com";
    pub const DEFAULT_KEY_ENV: &'static str = "COHERE_API_KEY";

    pub fn new(endpoint: Endpoint) -> Self {
        Self { endpoint }
    }
}

impl Provider for CohereProvider {
    fn kind(&self) -> &'static str {
        "cohere"
    }

    fn model(&self) -> &str {
        &self.endpoint.model
    }

    fn stream(&self, request: ChatRequest) -> LlmStream {
        let e = &self.endpoint;
        let bearer = format!("Bearer {}", e.api_key);
        let call = HttpCall::new(
            "cohere",
            e,
            format!("{}/v2/chat", e.base_url),
            e.header_map(&[("authorization", &bearer)]),
            request_body(&request, e),
        );
        stream_call::<CohereDecoder>(call, &request)
    }
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
        .filter_map(|m| message(m, &names))
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        body.insert(
            "tools".into(),
            super::openai::function_tools(request, &names),
        );
    }
    if let Some(n) = options.max_tokens {
        body.insert("max_tokens".into(), json!(n));
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), json!(t));
    }
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// One message in Cohere's shape; an empty assistant message is left out.
fn message(m: &Message, names: &ToolNames) -> Option<Value> {
    Some(match m {
        Message::System { text } => json!({"role": "system", "content": text}),
        Message::User { text } => json!({"role": "user", "content": text}),
        Message::Assistant { text, tool_calls } => {
            if text.is_empty() && tool_calls.is_empty() {
                return None;
            }
            let mut out = json!({"role": "assistant"});
            if !text.is_empty() {
                // With tool calls the text is the model's plan for them.
                let key = if tool_calls.is_empty() {
                    "content"
                } else {
                    "tool_plan"
                };
                out[key] = json!(text);
            }
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
    })
}
