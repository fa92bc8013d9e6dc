//! Cohere Chat API v2: `POST {base}/v2/chat` with `stream: true`, `Authorization: Bearer`.
//!
//! Roles system | user | assistant | tool; tools in the OpenAI function shape; a tool
//! call's `arguments` is a JSON string; each result is one `tool` message answering
//! `tool_call_id`. Reference: <https://docs.cohere.com/reference/chat-stream>.

pub(super) mod stream;

use serde_json::{Value, json};

use self::stream::CohereDecoder;
use super::endpoint::Endpoint;
use super::message::{ChatRequest, Message};
use super::openai::{chat_body, function_calls, tool_message};
use super::tool_names::ToolNames;
use super::wire::{HttpProvider, Outgoing, Wire, bearer};

/// The Cohere provider; `base_url` is the host root (`/v2/chat` is appended).
pub type CohereProvider = HttpProvider<Cohere>;

impl CohereProvider {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.cohere.com";
    pub const DEFAULT_KEY_ENV: &'static str = "COHERE_API_KEY";
}

/// The Chat API v2.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cohere;

impl Wire for Cohere {
    const KIND: &'static str = "cohere";
    type Decoder = CohereDecoder;

    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Outgoing {
        Outgoing {
            url: format!("{}/v2/chat", endpoint.base_url),
            headers: vec![bearer(endpoint)],
            body: request_body(request, endpoint),
        }
    }
}

/// The JSON body for `request`.
pub fn request_body(request: &ChatRequest, endpoint: &Endpoint) -> Value {
    Value::Object(chat_body(request, endpoint, message))
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
                out["tool_calls"] = function_calls(tool_calls, names);
            }
            out
        }
        Message::Tool {
            call_id, content, ..
        } => tool_message(call_id, content),
    })
}
