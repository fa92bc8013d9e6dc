//! Gemini: `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`.
//!
//! Roles `user`/`model`; `systemInstruction`; tools as `functionDeclarations` with
//! `parametersJsonSchema`; all `functionResponse` parts answering one model turn go back
//! in one `user` content; `thoughtSignature`s are echoed with their calls.

pub(super) mod stream;

use serde_json::{Map, Value, json};

use self::stream::GeminiDecoder;
use super::endpoint::Endpoint;
use super::message::{ChatRequest, Message, SYNTHETIC_ID_PREFIX};
use super::tool_names::ToolNames;
use super::wire::{HttpProvider, Outgoing, Wire, assistant_parts, sampling, turns};

pub type GeminiProvider = HttpProvider<Gemini>;

impl GeminiProvider {
    pub const DEFAULT_BASE_URL: &'static str = "https://generativelanguage.googleapis.com";
    pub const DEFAULT_KEY_ENV: &'static str = "GEMINI_API_KEY";
}

/// The Gemini API (`generativelanguage`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Gemini;

impl Wire for Gemini {
    const KIND: &'static str = "gemini";
    type Decoder = GeminiDecoder;

    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Outgoing {
        let model = endpoint.resolve(&request.options).model.unwrap_or_default();
        Outgoing {
            url: format!(
                "{}/v1beta/models/{model}:streamGenerateContent?alt=sse",
                endpoint.base_url
            ),
            headers: vec![("x-goog-api-key", endpoint.api_key.clone())],
            body: request_body(request, endpoint),
        }
    }
}

/// The JSON body for `request`.
pub fn request_body(request: &ChatRequest, endpoint: &Endpoint) -> Value {
    let options = endpoint.resolve(&request.options);
    let mut body = Map::new();
    if let Some(system) = request.system_text() {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}]}),
        );
    }
    let names = request.tool_names();
    body.insert(
        "contents".into(),
        Value::Array(turns(&request.messages, "parts", |m| content(m, &names))),
    );
    if !request.tools.is_empty() {
        let declarations: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({"name": names.wire(&t.name), "description": t.description,
                    "parametersJsonSchema": t.parameters})
            })
            .collect();
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
    }
    let mut generation = Map::new();
    sampling(&mut generation, &options, "maxOutputTokens");
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Value::Object(body)
}

fn content(m: &Message, names: &ToolNames) -> Option<(&'static str, Vec<Value>)> {
    Some(match m {
        Message::System { .. } => return None,
        Message::User { text } => ("user", vec![json!({"text": text})]),
        Message::Assistant { text, tool_calls } => {
            let text = (!text.is_empty()).then(|| json!({"text": text}));
            let parts = assistant_parts(text, tool_calls, |c| {
                let mut call = json!({"name": names.wire(&c.name), "args": c.arguments_object()});
                if c.has_provider_id() {
                    call["id"] = json!(c.id);
                }
                let mut part = json!({"functionCall": call});
                if let Some(sig) = &c.signature {
                    part["thoughtSignature"] = json!(sig);
                }
                part
            });
            ("model", parts)
        }
        Message::Tool {
            call_id,
            name,
            content,
            is_error,
        } => {
            let key = if *is_error { "error" } else { "result" };
            let mut response = json!({"name": names.wire(name), "response": {key: content}});
            if !call_id.starts_with(SYNTHETIC_ID_PREFIX) {
                response["id"] = json!(call_id);
            }
            ("user", vec![json!({"functionResponse": response})])
        }
    })
}
