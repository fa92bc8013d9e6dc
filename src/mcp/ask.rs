//! Servers that ask the person: elicitation (`elicitation/create`) and sampling
//! (`sampling/createMessage`), whether they arrive as server→client requests
//! (2025-11-25) or as `inputRequests` of an `input_required` result (2026-07-28).
//!
//! The hub hands every such request to one [`Asker`]. Two come with core:
//! [`HeadlessAsker`] (the CLI's `--elicit` answer, sampling refused) and
//! [`ChannelAsker`], which turns each request into an [`AskRequest`] value with a
//! oneshot reply for a front end (the TUI) to answer:
//!
//! ```no_run
//! # async fn demo() {
//! use switchboard::mcp::{Ask, Answer, ChannelAsker, ElicitationAnswer, SampleRefusal};
//! let (asker, mut requests) = ChannelAsker::new();
//! // McpHub::start_with(..., HubOptions { asker: Some(std::sync::Arc::new(asker)), .. })
//! while let Some(request) = requests.recv().await {
//!     let answer = match &request.ask {
//!         Ask::Elicit(_) => Answer::Elicit(ElicitationAnswer::Decline),
//!         Ask::Sample(_) => Answer::Sample(Err(SampleRefusal::Declined)),
//!     };
//!     request.answer(answer);
//! }
//! # }
//! ```
//! A request whose reply is dropped unanswered counts as cancelled (elicitation) or
//! rejected (sampling).

use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

/// An elicitation: which server asks, what for, and what it wants.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationRequest {
    pub server: String,
    /// The server's explanation (untrusted text: sanitise to show).
    pub message: String,
    pub kind: ElicitationKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationKind {
    /// Fill in a form: `requestedSchema`, a flat object schema with defaults
    /// (SEP-1034), formats, ranges, enums.
    Form { schema: Value },
    /// Visit a URL (opened only when the person chooses to).
    Url { url: String, elicitation_id: String },
}

/// The person's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationAnswer {
    /// The form's content (empty for URL mode).
    Accept(Map<String, Value>),
    Decline,
    Cancel,
}

/// A sampling request: the server wants the client's model to answer `params`
/// (the `sampling/createMessage` params as sent: messages, systemPrompt, tools,
/// modelPreferences, maxTokens).
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    pub server: String,
    pub params: Value,
}

/// What the model answered, sent back to the server.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingReply {
    /// The model that produced it.
    pub model: String,
    /// `assistant`.
    pub role: String,
    /// One content block (`{"type": "text", "text": …}`) or a list of them.
    pub content: Value,
    /// `endTurn`, `maxTokens`, `toolUse`, …
    pub stop_reason: Option<String>,
}

/// One question for the person.
#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    Elicit(ElicitationRequest),
    Sample(SamplingRequest),
}

/// Why a server's sampling request was rejected; the text is sent to the server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SampleRefusal {
    /// Nobody is there to approve it.
    #[error("sampling is not available without a person to approve it (server {server})")]
    Headless { server: String },
    /// The front end stopped waiting or answered something else.
    #[error("the sampling request was not answered")]
    Unanswered,
    #[error("the person declined the sampling request")]
    Declined,
}

/// The answer to an [`Ask`] of the same kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Elicit(ElicitationAnswer),
    /// The reply, or why it was rejected.
    Sample(Result<SamplingReply, SampleRefusal>),
}

/// Whoever answers servers' questions. Implementations must not block for long
/// without the person: every call waits on them.
#[async_trait::async_trait]
pub trait Asker: Send + Sync + std::fmt::Debug {
    async fn elicit(&self, request: ElicitationRequest) -> ElicitationAnswer;
    /// `Err` is the reason it was rejected (sent to the server).
    async fn sample(&self, request: SamplingRequest) -> Result<SamplingReply, SampleRefusal>;
}

/// The headless answer to elicitations (`--elicit`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ElicitMode {
    #[default]
    Decline,
    Cancel,
    /// Accept with the schema's defaults when every required field has one of the
    /// right type; decline otherwise.
    AcceptDefaults,
}

impl ElicitMode {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "decline" => Some(Self::Decline),
            "cancel" => Some(Self::Cancel),
            "accept-defaults" => Some(Self::AcceptDefaults),
            _ => None,
        }
    }
}

/// Answers without a person: elicitations per [`ElicitMode`], sampling refused.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadlessAsker {
    pub mode: ElicitMode,
    /// Told (one sanitised line naming `--elicit`) when an elicitation is declined
    /// by default, so a person reading stderr knows how to answer next time.
    pub notice: Option<fn(&str)>,
}

#[async_trait::async_trait]
impl Asker for HeadlessAsker {
    async fn elicit(&self, request: ElicitationRequest) -> ElicitationAnswer {
        let answer = match (&request.kind, self.mode) {
            (_, ElicitMode::Cancel) => ElicitationAnswer::Cancel,
            (ElicitationKind::Form { schema }, ElicitMode::AcceptDefaults) => {
                defaults(schema).map_or(ElicitationAnswer::Decline, ElicitationAnswer::Accept)
            }
            _ => ElicitationAnswer::Decline,
        };
        if let (ElicitationAnswer::Decline, Some(notice)) = (&answer, self.notice) {
            notice(&self.why_declined(&request));
        }
        answer
    }

    async fn sample(&self, request: SamplingRequest) -> Result<SamplingReply, SampleRefusal> {
        Err(SampleRefusal::Headless {
            server: request.server,
        })
    }
}

impl HeadlessAsker {
    /// The line that says why a question was declined and how it could be answered.
    fn why_declined(&self, request: &ElicitationRequest) -> String {
        let server = crate::sanitize::sanitize_line(&request.server);
        let message = super::untrusted(&request.message, 200);
        match (&request.kind, self.mode) {
            (ElicitationKind::Url { .. }, _) => format!(
                "server {server} asked you to open a URL ({message}); declined: a URL \
                 request is always declined without a person — make the call in the TUI \
                 (`switchboard`) to open or copy it"
            ),
            (ElicitationKind::Form { schema }, ElicitMode::AcceptDefaults) => {
                let missing = missing_defaults(schema);
                let names: Vec<String> = missing
                    .iter()
                    .map(|f| format!("`{}`", crate::sanitize::sanitize_line(f)))
                    .collect();
                let (s, has) = if names.len() == 1 {
                    ("", "has")
                } else {
                    ("s", "have")
                };
                format!(
                    "server {server} asked for input ({message}); declined: --elicit \
                     accept-defaults cannot answer it, required field{s} {} {has} no \
                     default",
                    names.join(", ")
                )
            }
            _ => format!(
                "server {server} asked for input ({message}); declined (choose with \
                 --elicit decline|cancel|accept-defaults)"
            ),
        }
    }
}

/// The required fields of a form schema without a default of their type.
pub fn missing_defaults(schema: &Value) -> Vec<String> {
    let filled = defaults_of(schema);
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|name| !filled.contains_key(*name))
        .map(str::to_owned)
        .collect()
}

/// The defaults of a form schema (SEP-1034): every property that has a `default` of
/// its declared type; `None` when a required property has none (or a mistyped one).
pub fn defaults(schema: &Value) -> Option<Map<String, Value>> {
    missing_defaults(schema)
        .is_empty()
        .then(|| defaults_of(schema))
}

/// Every property's default of its declared type.
fn defaults_of(schema: &Value) -> Map<String, Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut out = Map::new();
    for (name, property) in properties.into_iter().flatten() {
        if let Some(value) = property.get("default").filter(|v| typed(property, v)) {
            out.insert(name.clone(), value.clone());
        }
    }
    out
}

/// Whether `value` has the type `property` declares (and is one of its enum values).
fn typed(property: &Value, value: &Value) -> bool {
    let kind = property.get("type").and_then(Value::as_str).unwrap_or("");
    let type_ok = match kind {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        "boolean" => value.is_boolean(),
        "array" => value
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_string)),
        _ => false,
    };
    let allowed = property.get("enum").and_then(Value::as_array);
    type_ok && allowed.is_none_or(|a| value.is_array() || a.contains(value))
}

/// A question waiting for an answer; answer it once with [`AskRequest::answer`].
#[derive(Debug)]
pub struct AskRequest {
    pub ask: Ask,
    reply: oneshot::Sender<Answer>,
}

impl AskRequest {
    /// Sends the answer (an answer of the wrong kind counts as a refusal).
    pub fn answer(self, answer: Answer) {
        let _ = self.reply.send(answer);
    }

    /// The asking side stopped waiting (its call was cancelled or ended).
    pub fn is_abandoned(&self) -> bool {
        self.reply.is_closed()
    }
}

/// Hands every question to a front end as an [`AskRequest`].
#[derive(Debug, Clone)]
pub struct ChannelAsker {
    requests: mpsc::UnboundedSender<AskRequest>,
}

impl ChannelAsker {
    /// The asker and the stream of questions it produces.
    pub fn new() -> (Self, mpsc::UnboundedReceiver<AskRequest>) {
        let (requests, rx) = mpsc::unbounded_channel();
        (Self { requests }, rx)
    }

    async fn ask(&self, ask: Ask) -> Option<Answer> {
        let (reply, answer) = oneshot::channel();
        self.requests.send(AskRequest { ask, reply }).ok()?;
        answer.await.ok()
    }
}

#[async_trait::async_trait]
impl Asker for ChannelAsker {
    async fn elicit(&self, request: ElicitationRequest) -> ElicitationAnswer {
        match self.ask(Ask::Elicit(request)).await {
            Some(Answer::Elicit(answer)) => answer,
            _ => ElicitationAnswer::Cancel,
        }
    }

    async fn sample(&self, request: SamplingRequest) -> Result<SamplingReply, SampleRefusal> {
        match self.ask(Ask::Sample(request)).await {
            Some(Answer::Sample(answer)) => answer,
            _ => Err(SampleRefusal::Unanswered),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> Value {
        json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "verified": {"type": "boolean", "default": true},
            "note": {"type": "string"}
        }, "required": ["name", "age"]})
    }

    #[test]
    fn a_headless_decline_says_why() {
        let ask = |mode, kind| {
            HeadlessAsker { mode, notice: None }.why_declined(&ElicitationRequest {
                server: "weather".into(),
                message: "Where to?".into(),
                kind,
            })
        };
        let mut missing = form();
        missing["required"] = json!(["name", "note", "trip"]);
        assert_eq!(
            ask(
                ElicitMode::AcceptDefaults,
                ElicitationKind::Form { schema: missing }
            ),
            "server weather asked for input (Where to?); declined: --elicit accept-defaults \
             cannot answer it, required fields `note`, `trip` have no default"
        );
        let url = ElicitationKind::Url {
            url: "https://example.com/pay".into(),
            elicitation_id: "e1".into(),
        };
        assert!(ask(ElicitMode::AcceptDefaults, url).contains(
            "declined: a URL request is always declined without a person — make the call in the TUI"
        ));
        assert!(
            ask(
                ElicitMode::Decline,
                ElicitationKind::Form { schema: form() }
            )
            .ends_with("declined (choose with --elicit decline|cancel|accept-defaults)")
        );
    }

    #[test]
    fn defaults_fill_typed_fields_and_need_every_required_one() {
        let filled = defaults(&form()).unwrap_or_default();
        assert_eq!(
            Value::Object(filled),
            json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
        );
        let mut missing = form();
        missing["required"] = json!(["name", "note"]);
        assert_eq!(defaults(&missing), None);
        let mut mistyped = form();
        mistyped["properties"]["age"]["default"] = json!("thirty");
        assert_eq!(
            defaults(&mistyped),
            None,
            "a mistyped default does not count"
        );
        let mut off_enum = form();
        off_enum["properties"]["status"]["default"] = json!("gone");
        off_enum["required"] = json!(["status"]);
        assert_eq!(defaults(&off_enum), None);
    }

    #[tokio::test]
    async fn headless_modes() {
        let ask = |schema: Value| ElicitationRequest {
            server: "s".into(),
            message: "why".into(),
            kind: ElicitationKind::Form { schema },
        };
        let accept = HeadlessAsker {
            mode: ElicitMode::AcceptDefaults,
            notice: None,
        };
        assert!(matches!(
            accept.elicit(ask(form())).await,
            ElicitationAnswer::Accept(_)
        ));
        let url = ElicitationRequest {
            kind: ElicitationKind::Url {
                url: "https://example.com".into(),
                elicitation_id: "1".into(),
            },
            ..ask(Value::Null)
        };
        assert_eq!(accept.elicit(url).await, ElicitationAnswer::Decline);
        let cancel = HeadlessAsker {
            mode: ElicitMode::Cancel,
            notice: None,
        };
        assert_eq!(cancel.elicit(ask(form())).await, ElicitationAnswer::Cancel);
        let sampled = accept
            .sample(SamplingRequest {
                server: "s".into(),
                params: Value::Null,
            })
            .await;
        assert!(sampled.is_err());
    }

    #[tokio::test]
    async fn channel_asker_round_trip_and_dropped_replies() {
        let (asker, mut rx) = ChannelAsker::new();
        let front = tokio::spawn(async move {
            let first = rx.recv().await;
            if let Some(r) = first {
                r.answer(Answer::Elicit(ElicitationAnswer::Accept(Map::new())));
            }
            drop(rx.recv().await); // dropped unanswered
        });
        let request = ElicitationRequest {
            server: "s".into(),
            message: "m".into(),
            kind: ElicitationKind::Form { schema: json!({}) },
        };
        assert_eq!(
            asker.elicit(request.clone()).await,
            ElicitationAnswer::Accept(Map::new())
        );
        assert_eq!(asker.elicit(request).await, ElicitationAnswer::Cancel);
        let _ = front.await;
    }
}
