//! What every HTTP provider shares: one [`Provider`] over an [`Endpoint`] and a
//! [`Wire`] (the URL, the headers that authorise a request, its body, the decoder of
//! the answer), and the pieces the request bodies are built from.

use std::fmt;

use serde_json::{Map, Value, json};

use super::endpoint::Endpoint;
use super::message::{ChatRequest, Message, RequestOptions, ToolCall};
use super::provider::{LlmStream, Provider};
use super::transport::{HttpCall, StreamDecoder, stream_call};

/// One provider's API: everything about a request that is its own.
pub trait Wire: fmt::Debug + Clone + Send + Sync + 'static {
    /// The provider kind (`openai`, …), in errors and logs.
    const KIND: &'static str;
    /// Decodes the answer's events.
    type Decoder: StreamDecoder + Default + 'static;

    /// Where the request goes, the headers the API requires (authorisation, version;
    /// added to the endpoint's) and the JSON body.
    fn request(&self, endpoint: &Endpoint, request: &ChatRequest) -> Outgoing;

    /// Anything else the call needs (a framing other than SSE, a signer).
    fn prepare(&self, _call: &mut HttpCall) {}
}

/// What a [`Wire`] makes of one request.
pub struct Outgoing {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Value,
}

/// An HTTP provider: an endpoint and the wire of its API.
#[derive(Debug, Clone)]
pub struct HttpProvider<W> {
    endpoint: Endpoint,
    wire: W,
}

impl<W: Wire> HttpProvider<W> {
    pub(super) fn with_wire(endpoint: Endpoint, wire: W) -> Self {
        Self { endpoint, wire }
    }
}

impl<W: Wire + Default> HttpProvider<W> {
    /// The provider at `endpoint`.
    pub fn new(endpoint: Endpoint) -> Self {
        Self::with_wire(endpoint, W::default())
    }
}

impl<W: Wire> Provider for HttpProvider<W> {
    fn kind(&self) -> &'static str {
        W::KIND
    }

    fn model(&self) -> &str {
        &self.endpoint.model
    }

    fn stream(&self, request: ChatRequest) -> LlmStream {
        let e = &self.endpoint;
        let Outgoing { url, headers, body } = self.wire.request(e, &request);
        let headers: Vec<(&'static str, &str)> =
            headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let mut call = HttpCall::new(W::KIND, e, url, e.header_map(&headers), body);
        self.wire.prepare(&mut call);
        stream_call::<W::Decoder>(call, &request)
    }
}

/// `Authorization: Bearer KEY`.
pub(super) fn bearer(endpoint: &Endpoint) -> (&'static str, String) {
    ("authorization", format!("Bearer {}", endpoint.api_key))
}

/// The request's `max_tokens` and `temperature`, under the provider's names, when set.
pub(super) fn sampling(body: &mut Map<String, Value>, options: &RequestOptions, max_tokens: &str) {
    if let Some(n) = options.max_tokens {
        body.insert(max_tokens.into(), json!(n));
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), json!(t));
    }
}

/// An assistant's parts: its text (when there is one to send), then one part per
/// tool call.
pub(super) fn assistant_parts(
    text: Option<Value>,
    tool_calls: &[ToolCall],
    call: impl Fn(&ToolCall) -> Value,
) -> Vec<Value> {
    text.into_iter()
        .chain(tool_calls.iter().map(call))
        .collect()
}

/// Messages as alternating turns: `turn` gives each message's role and parts (`None`:
/// left out, as system messages are); parts whose role is the previous one's join it,
/// empty ones are left out, and each turn becomes `{"role": role, key: parts}`.
pub(super) fn turns(
    messages: &[Message],
    key: &str,
    turn: impl Fn(&Message) -> Option<(&'static str, Vec<Value>)>,
) -> Vec<Value> {
    let mut out: Vec<(&str, Vec<Value>)> = Vec::new();
    for (role, parts) in messages.iter().filter_map(turn) {
        if parts.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(parts),
            _ => out.push((role, parts)),
        }
    }
    out.into_iter()
        .map(|(role, parts)| json!({"role": role, key: parts}))
        .collect()
}
