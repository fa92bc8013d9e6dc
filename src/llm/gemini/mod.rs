//! Gemini: `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`.
//!
//! Roles `user`/`model`; `systemInstruction`; tools as `functionDeclarations` with
//! `parametersJsonSchema`; all `functionResponse` parts answering one model turn go back
//! in one `user` content; `thoughtSignature`s are echoed with their calls.

pub(super) mod stream;

use serde_json::{Map, Value, json};

use self::stream::GeminiDecoder;
use super::endpoint::Endpoint;
use super::message::{ChatRequest, Message};
use super::provider::{LlmStream, Provider};
use super::tool_names::ToolNames;
use super::transport::{HttpCall, stream_call};

#[derive(Debug, Clone)]
pub struct GeminiProvider {
    endpoint: Endpoint,
}

impl GeminiProvider {
    pub const DEFAULT_BASE_URL: &'static str = "https://generativelanguage.googleapis.com";
    pub const DEFAULT_KEY_ENV: &'static str = "GEMINI_API_KEY";

    pub fn new(endpoint: Endpoint) -> Self {
        Self { endpoint }
    }
}

impl Provider for GeminiProvider {
    fn kind(&self) -> &'static str {
        "gemini"
    }

    fn model(&self) -> &str {
        &self.endpoint.model
    }

    fn stream(&self, request: ChatRequest) -> LlmStream {
        let e = &self.endpoint;
        let model = e.resolve(&request.options).model.unwrap_or_default();
        let call = HttpCall::new(
            "gemini",
            e,
            format!(
                "{}/v1beta/models/{model}:streamGenerateContent?alt=sse",
                e.base_url
            ),
            e.header_map(&[("x-goog-api-key", &e.api_key)]),
            request_body(&request, e),
        );
        stream_call::<GeminiDecoder>(call, &request)
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
        Value::Array(contents(&request.messages, &names)),
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
    if let Some(n) = options.max_tokens {
        generation.insert("maxOutputTokens".into(), json!(n));
    }
    if let Some(t) = options.temperature {
        generation.insert("temperature".into(), json!(t));
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Value::Object(body)
}

fn contents(messages: &[Message], names: &ToolNames) -> Vec<Value> {
    let mut out: Vec<(&str, Vec<Value>)> = Vec::new();
    for m in messages {
        let (role, parts) = match m {
            Message::System { .. } => continue,
            Message::User { text } => ("user", vec![json!({"text": text})]),
            Message::Assistant { text, tool_calls } => {
                let mut parts = Vec::new();
                if !text.is_empty() {
                    parts.push(json!({"text": text}));
                }
                for c in tool_calls {
                    let mut call =
                        json!({"name": names.wire(&c.name), "args": c.arguments_object()});
                    if c.has_provider_id() {
                        call["id"] = json!(c.id);
                    }
                    let mut part = json!({"functionCall": call});
                    if let Some(sig) = &c.signature {
                        part["thoughtSignature"] = json!(sig);
                    }
                    parts.push(part);
                }
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
                if !call_id.starts_with(super::message::SYNTHETIC_ID_PREFIX) {
                    response["id"] = json!(call_id);
                }
                ("user", vec![json!({"functionResponse": response})])
            }
        };
        if parts.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(parts),
            _ => out.push((role, parts)),
        }
    }
    out.into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect()
}
