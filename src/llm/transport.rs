//! One streaming HTTP request with retries: POST, read SSE, decode, forward.
//!
//! A failure before anything was forwarded is retried (when retryable); after that it
//! ends the stream with `LlmEvent::Error` — never a silently short answer.

use std::time::{Duration, SystemTime};

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio::sync::mpsc;

use super::error::{LlmError, LlmErrorKind};
use super::event::LlmEvent;
use super::failure::parse_error_body;
use super::retry::{RetryPolicy, header_delay, should_retry_header, status_is_retryable};

/// Headers that carry a request id, in order of preference.
const REQUEST_ID_HEADERS: [&str; 4] = ["x-request-id", "request-id", "x-goog-request-id", "cf-ray"];

/// Turns one provider's SSE events into [`LlmEvent`]s.
pub trait StreamDecoder: Send {
    /// One SSE event (`name` is `message` when the server gave none).
    fn on_event(&mut self, name: &str, data: &str) -> Result<Vec<LlmEvent>, LlmError>;

    /// The terminal event was seen: stop reading.
    fn is_complete(&self) -> bool;

    /// The stream ended (or completed): the closing events, or `Truncated`.
    fn finish(&mut self) -> Result<Vec<LlmEvent>, LlmError>;
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
}

struct Failure {
    error: LlmError,
    retryable: bool,
    delay: Option<Duration>,
    /// Something was forwarded already.
    shown: bool,
}

/// Sends `call` (retrying per its policy) and forwards the decoded events to `tx`.
pub async fn drive<D>(call: HttpCall, new_decoder: D, tx: mpsc::Sender<LlmEvent>)
where
    D: Fn() -> Box<dyn StreamDecoder>,
{
    let mut attempt = 0;
    loop {
        let Err(failure) = attempt_once(&call, new_decoder(), &tx).await else {
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

async fn attempt_once(
    call: &HttpCall,
    mut decoder: Box<dyn StreamDecoder>,
    tx: &mpsc::Sender<LlmEvent>,
) -> Result<(), Failure> {
    let response = call
        .client
        .post(&call.url)
        .headers(call.headers.clone())
        .json(&call.body)
        .send()
        .await
        .map_err(|e| Failure {
            error: LlmError::new(LlmErrorKind::Transport, call.provider, error_chain(&e)),
            retryable: true,
            delay: None,
            shown: false,
        })?;
    let request_id = request_id(response.headers());
    let status = response.status();
    if !status.is_success() {
        return Err(status_failure(call.provider, response, request_id).await);
    }
    let mut events = response.bytes_stream().eventsource();
    let mut shown = false;
    let fail = |error: LlmError, shown: bool| Failure {
        error: error.with_request_id(request_id.clone()),
        retryable: true,
        delay: None,
        shown,
    };
    while let Some(item) = events.next().await {
        let event = item.map_err(|e| {
            let message = format!("the stream broke: {e}");
            fail(
                LlmError::new(LlmErrorKind::Transport, call.provider, message),
                shown,
            )
        })?;
        let decoded = decoder
            .on_event(&event.event, &event.data)
            .map_err(|e| fail(e, shown))?;
        for ev in decoded {
            shown = true;
            if tx.send(ev).await.is_err() {
                return Ok(()); // nobody listens any more
            }
        }
        if decoder.is_complete() {
            break;
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
    let body = parse_error_body(&text);
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
        error,
        retryable,
        delay,
        shown: false,
    }
}

fn request_id(headers: &HeaderMap) -> Option<String> {
    REQUEST_ID_HEADERS
        .iter()
        .find_map(|h| headers.get(*h)?.to_str().ok().map(str::to_owned))
}

/// The error and its sources, joined (reqwest's top-level message is vague).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
