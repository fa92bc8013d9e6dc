//! One streaming HTTP request with retries: POST, read SSE (or AWS event-stream
//! frames), decode, forward.
//!
//! A failure before anything was forwarded is retried (when retryable); after that it
//! ends the stream with `LlmEvent::Error` — never a silently short answer.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures::StreamExt;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;
use tokio::sync::mpsc;

use super::endpoint::Endpoint;
use super::error::{LlmError, LlmErrorKind};
use super::event::LlmEvent;
use super::eventstream;
use super::failure::parse_error_body;
use super::retry::{RetryPolicy, header_delay, should_retry_header, status_is_retryable};
use crate::sse::SseParser;

/// Headers that carry a request id, in order of preference.
const REQUEST_ID_HEADERS: [&str; 5] = [
    "x-request-id",
    "request-id",
    "x-goog-request-id",
    "x-amzn-requestid",
    "cf-ray",
];

/// Turns one provider's SSE events into [`LlmEvent`]s.
pub trait StreamDecoder: Send {
    /// One SSE event (`name` is `message` when the server gave none).
    fn on_event(&mut self, name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError>;

    /// The terminal event was seen: stop reading.
    fn is_complete(&self) -> bool;

    /// The stream ended (or completed): the closing events, or `Truncated`.
    fn finish(&mut self) -> Result<Vec<LlmEvent>, LlmError>;
}

/// How a response body is cut into events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Server-sent events (`event:` / `data:` lines).
    Sse,
    /// AWS event-stream binary frames; the event name is `:event-type`, or
    /// `exception:TYPE` for an exception frame.
    EventStream,
}

/// Computes headers for one attempt from its URL, headers and exact body bytes (AWS
/// SigV4 signs all three, with the time of the attempt).
pub trait RequestSigner: Send + Sync + fmt::Debug {
    fn sign(&self, url: &str, headers: &HeaderMap, body: &[u8]) -> Result<HeaderMap, LlmError>;
}

/// A request ready to send.
#[derive(Debug, Clone)]
pub struct HttpCall {
    pub provider: &'static str,
    pub client: reqwest::Client,
    pub url: String,
    pub headers: HeaderMap,
    pub body: Value,
    pub retry: RetryPolicy,
    pub framing: Framing,
    pub signer: Option<Arc<dyn RequestSigner>>,
}

impl HttpCall {
    /// An SSE request through `endpoint`'s client and retry policy.
    pub fn new(
        provider: &'static str,
        endpoint: &Endpoint,
        url: String,
        headers: HeaderMap,
        body: Value,
    ) -> Self {
        Self {
            provider,
            client: endpoint.client.clone(),
            url,
            headers,
            body,
            retry: endpoint.retry.clone(),
            framing: Framing::Sse,
            signer: None,
        }
    }
}

struct Failure {
    error: LlmError,
    retryable: bool,
    delay: Option<Duration>,
    /// Something was forwarded already.
    shown: bool,
}

impl Failure {
    /// A failure before anything was forwarded, with no delay asked for.
    fn early(error: LlmError, retryable: bool) -> Self {
        Self {
            error,
            retryable,
            delay: None,
            shown: false,
        }
    }
}

/// Sends `call` (retrying per its policy) and forwards the decoded events to `tx`.
/// One request of a provider: `call` runs on a task, its body is decoded by a fresh
/// `D` per attempt, and tool calls come back under the real names of `request`'s tools
/// (the wire carried provider-safe ones).
pub fn stream_call<D>(call: HttpCall, request: &super::message::ChatRequest) -> super::LlmStream
where
    D: StreamDecoder + Default + 'static,
{
    let names = Arc::new(request.tool_names());
    super::provider::TaskStream::spawn(move |tx| {
        drive(
            call,
            move || {
                Box::new(super::tool_names::MapCallNames::new(
                    D::default(),
                    Arc::clone(&names),
                ))
            },
            tx,
        )
    })
}

pub async fn drive<D>(call: HttpCall, new_decoder: D, tx: mpsc::Sender<LlmEvent>)
where
    D: Fn() -> Box<dyn StreamDecoder>,
{
    let body = match serde_json::to_vec(&call.body) {
        Ok(body) => body,
        Err(e) => {
            let error = LlmError::new(LlmErrorKind::Decode, call.provider, e.to_string());
            let _ = tx.send(LlmEvent::Error(error)).await;
            return;
        }
    };
    let mut attempt = 0;
    loop {
        let Err(failure) = attempt_once(&call, &body, new_decoder(), &tx).await else {
            return;
        };
        if failure.retryable && !failure.shown && attempt < call.retry.max_retries {
            let delay = failure.delay.unwrap_or_else(|| call.retry.backoff(attempt));
            tracing::info!(
                provider = call.provider,
                attempt = attempt + 1,
                ?delay,
                "retrying: {}",
                failure.error
            );
            call.retry.sleep(delay).await;
            attempt += 1;
            continue;
        }
        let _ = tx.send(LlmEvent::Error(failure.error)).await;
        return;
    }
}

/// The headers of one attempt: the call's, a JSON content type, and the signer's.
fn attempt_headers(call: &HttpCall, body: &[u8]) -> Result<HeaderMap, LlmError> {
    let mut headers = call.headers.clone();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Some(signer) = &call.signer {
        headers.extend(signer.sign(&call.url, &headers, body)?);
    }
    Ok(headers)
}

/// Reads the response's events into `decoder` and forwards what it decodes. `Ok(false)`:
/// nobody listens any more. Sets `shown` once something was forwarded.
async fn pump(
    framing: Framing,
    response: reqwest::Response,
    decoder: &mut dyn StreamDecoder,
    tx: &mpsc::Sender<LlmEvent>,
    shown: &mut bool,
) -> Result<bool, Broke> {
    let mut body = response.bytes_stream();
    if framing == Framing::EventStream {
        let mut events = std::pin::pin!(eventstream::events(body));
        while let Some(item) = events.next().await {
            let (name, data) = item.map_err(|e| Broke::Transport(e.to_string()))?;
            let decoded = decoder.on_event(&name, &data).map_err(Broke::Decoder)?;
            if !forward(decoded, tx, shown).await {
                return Ok(false);
            }
            if decoder.is_complete() {
                break;
            }
        }
        return Ok(true);
    }
    // SSE: events borrow from the parser, nothing is allocated per event.
    let mut parser = SseParser::new();
    while let Some(piece) = body.next().await {
        parser.push(&piece.map_err(|e| Broke::Transport(e.to_string()))?);
        while let Some(event) = parser
            .next_event()
            .map_err(|e| Broke::Transport(e.to_string()))?
        {
            let decoded = decoder
                .on_event(event.name, event.data)
                .map_err(Broke::Decoder)?;
            if !forward(decoded, tx, shown).await {
                return Ok(false);
            }
            if decoder.is_complete() {
                return Ok(true);
            }
        }
    }
    Ok(true)
}

/// Why reading the events stopped early.
enum Broke {
    Transport(String),
    Decoder(LlmError),
}

async fn forward(events: Vec<LlmEvent>, tx: &mpsc::Sender<LlmEvent>, shown: &mut bool) -> bool {
    for ev in events {
        *shown = true;
        if tx.send(ev).await.is_err() {
            return false;
        }
    }
    true
}

async fn attempt_once(
    call: &HttpCall,
    body: &[u8],
    mut decoder: Box<dyn StreamDecoder>,
    tx: &mpsc::Sender<LlmEvent>,
) -> Result<(), Failure> {
    let headers = attempt_headers(call, body).map_err(|error| Failure::early(error, false))?;
    let response = call
        .client
        .post(&call.url)
        .headers(headers)
        .body(body.to_vec())
        .send()
        .await
        .map_err(|e| {
            let message = crate::tls::error_chain(&e);
            Failure::early(
                LlmError::new(LlmErrorKind::Transport, call.provider, message),
                true,
            )
        })?;
    let request_id = request_id(response.headers());
    let status = response.status();
    if !status.is_success() {
        return Err(status_failure(call.provider, response, request_id).await);
    }
    let mut shown = false;
    let fail = |error: LlmError, shown: bool| Failure {
        shown,
        ..Failure::early(error.with_request_id(request_id.clone()), true)
    };
    match pump(call.framing, response, decoder.as_mut(), tx, &mut shown).await {
        Ok(true) => {}
        Ok(false) => return Ok(()), // nobody listens any more
        Err(Broke::Decoder(e)) => return Err(fail(e, shown)),
        Err(Broke::Transport(e)) => {
            let message = format!("the stream broke: {e}");
            let error = LlmError::new(LlmErrorKind::Transport, call.provider, message);
            return Err(fail(error, shown));
        }
    }
    for ev in decoder.finish().map_err(|e| fail(e, shown))? {
        if tx.send(ev).await.is_err() {
            break;
        }
    }
    Ok(())
}

async fn status_failure(
    provider: &'static str,
    response: reqwest::Response,
    request_id: Option<String>,
) -> Failure {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap_or_default();
    let mut body = parse_error_body(&text);
    if body.code.is_none() {
        // AWS names the error in a header: `ThrottlingException:http://…`.
        body.code = headers
            .get("x-amzn-errortype")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(':').next())
            .filter(|v| !v.is_empty())
            .map(str::to_owned);
    }
    let quota = body.code.as_deref() == Some("insufficient_quota");
    let retryable =
        !quota && should_retry_header(&headers).unwrap_or_else(|| status_is_retryable(status));
    let delay = header_delay(&headers, SystemTime::now()).or(body.retry_delay);
    let message = body.message.unwrap_or_else(|| {
        reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("error")
            .to_owned()
    });
    let mut error = LlmError::new(LlmErrorKind::Status, provider, message);
    error.status = Some(status);
    error.code = body.code;
    error.request_id = request_id;
    Failure {
        delay,
        ..Failure::early(error, retryable)
    }
}

fn request_id(headers: &HeaderMap) -> Option<String> {
    REQUEST_ID_HEADERS
        .iter()
        .find_map(|h| headers.get(*h)?.to_str().ok().map(str::to_owned))
}
