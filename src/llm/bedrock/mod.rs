//! Amazon Bedrock Converse API, streaming: `POST {base}/model/{modelId}/converse-stream`
//! answered with AWS event-stream frames. Signed with SigV4 (signing name `bedrock`)
//! or sent with a Bedrock API key as `Authorization: Bearer`.
//! Reference: <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html>.

pub mod aws_auth;
pub(super) mod stream;

use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use self::aws_auth::SigV4Signer;
use self::stream::BedrockDecoder;
use super::endpoint::Endpoint;
use super::message::{ChatRequest, Message};
use super::tool_names::ToolNames;
use super::transport::{Framing, HttpCall};
use super::wire::{HttpProvider, Outgoing, Wire, assistant_parts, bearer, sampling, turns};

/// How requests are authorised.
#[derive(Debug, Clone)]
pub enum BedrockAuth {
    /// A Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`); kept in the endpoint's `api_key`.
    Bearer,
    /// Signature Version 4 with an access key.
    SigV4(Arc<SigV4Signer>),
}

pub type BedrockProvider = HttpProvider<Bedrock>;

impl BedrockProvider {
    /// The environment variable of a Bedrock API key (as botocore reads it).
    pub const DEFAULT_KEY_ENV: &'static str = "AWS_BEARER_TOKEN_BEDROCK";
    /// The SigV4 signing name.
    pub const SIGNING_NAME: &'static str = "bedrock";

    pub fn new(endpoint: Endpoint, auth: BedrockAuth) -> Self {
        Self::with_wire(endpoint, Bedrock { auth })
    }

    /// The regional runtime endpoint.
    pub fn default_base_url(region: &str) -> String {
        format!("https://bedrock-runtime.{region}.amazonaws.com")
    }
}

/// The Converse API, with its authorisation.
#[derive(Debug, Clone)]
pub struct Bedrock {
    auth: BedrockAuth,
}

impl Wire for Bedrock {
    const KIND: &'static str = "bedrock";
    type Decoder = BedrockDecoder;

    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Outgoing {
        let model = endpoint.resolve(&request.options).model.unwrap_or_default();
        let mut headers = vec![("accept", "application/vnd.amazon.eventstream".to_owned())];
        if matches!(self.auth, BedrockAuth::Bearer) {
            headers.push(bearer(endpoint));
        }
        Outgoing {
            url: format!(
                "{}/model/{}/converse-stream",
                endpoint.base_url,
                encode(&model)
            ),
            headers,
            body: request_body(request, endpoint),
        }
    }

    fn prepare(&self, call: &mut HttpCall) {
        call.framing = Framing::EventStream;
        if let BedrockAuth::SigV4(signer) = &self.auth {
            call.signer = Some(Arc::clone(signer) as Arc<_>);
        }
    }
}

/// Percent-encodes a model id (or ARN) as one path segment: `:` → `%3A`, `/` → `%2F`.
pub fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The JSON body for `request`.
pub fn request_body(request: &ChatRequest, endpoint: &Endpoint) -> Value {
    let options = endpoint.resolve(&request.options);
    let mut body = Map::new();
    let names = request.tool_names();
    body.insert(
        "messages".into(),
        Value::Array(turns(&request.messages, "content", |m| turn(m, &names))),
    );
    if let Some(system) = request.system_text() {
        body.insert("system".into(), json!([{"text": system}]));
    }
    let mut inference = Map::new();
    sampling(&mut inference, &options, "maxTokens");
    if !inference.is_empty() {
        body.insert("inferenceConfig".into(), Value::Object(inference));
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({"toolSpec": {"name": names.wire(&t.name), "description": t.description,
                    "inputSchema": {"json": t.parameters}}})
            })
            .collect();
        body.insert(
            "toolConfig".into(),
            json!({"tools": tools, "toolChoice": {"auto": {}}}),
        );
    }
    Value::Object(body)
}

/// Alternating user/assistant messages: tool results are `toolResult` blocks of a user
/// message, merged with neighbouring user blocks. Bedrock rejects blank text blocks,
/// so empty texts are left out (an empty result says so).
fn turn(m: &Message, names: &ToolNames) -> Option<(&'static str, Vec<Value>)> {
    Some(match m {
        Message::System { .. } => return None,
        Message::User { text } if text.trim().is_empty() => return None,
        Message::User { text } => ("user", vec![json!({"text": text})]),
        Message::Assistant { text, tool_calls } => {
            let text = (!text.trim().is_empty()).then(|| json!({"text": text}));
            let blocks = assistant_parts(text, tool_calls, |c| {
                json!({"toolUse": {"toolUseId": c.id, "name": names.wire(&c.name),
                    "input": c.arguments_object()}})
            });
            ("assistant", blocks)
        }
        Message::Tool {
            call_id,
            content,
            is_error,
            ..
        } => {
            let text = if content.trim().is_empty() {
                "(no output)"
            } else {
                content.as_str()
            };
            let status = if *is_error { "error" } else { "success" };
            let result = json!({"toolResult": {"toolUseId": call_id,
                "content": [{"text": text}], "status": status}});
            ("user", vec![result])
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids_are_one_encoded_segment() {
        assert_eq!(
            encode("anthropic.claude-3-haiku-20240307-v1:0"),
            "anthropic.claude-3-haiku-20240307-v1%3A0"
        );
        assert_eq!(encode("arn:aws:x/y"), "arn%3Aaws%3Ax%2Fy");
    }
}
