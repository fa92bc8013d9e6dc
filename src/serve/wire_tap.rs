//! Feeding the wire capture from `serve`'s side: every message between switchboard
//! and its clients, `Side::Downstream`, under the client's name as the handler gives
//! it (`clientInfo` of `initialize`, or of a 2026-07-28 request's `_meta`).
//!
//! - stdio: [`StdioWire`], fed by `GuardedTransport` with each message it reads and
//!   writes (one client per process: its name sticks once given).
//! - HTTP: [`HttpWire`] sees each request body with its headers and wraps the
//!   response body, recording its JSON or each SSE event with the status. A session
//!   request carries no `clientInfo`: its client is remembered by session id.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use hyper::{HeaderMap, Response};
use serde_json::Value;

use super::http_cancel::Body;
use crate::mcp::wire::{Direction, HttpFacts, Side, WireLog};
use crate::sse::SseParser;

/// The `_meta` key of a 2026-07-28 request's client identity.
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// Sessions remembered at most (their client's name), per gateway.
const MAX_SESSIONS: usize = 4_096;
/// The most of one JSON response body kept to record it.
const MAX_JSON_BODY: usize = 16 * 1024 * 1024;

/// The client name a message gives, if it gives one.
fn named_in(message: &Value) -> Option<String> {
    let params = message.get("params")?;
    let info = if message.get("method").and_then(Value::as_str) == Some("initialize") {
        params.get("clientInfo")
    } else {
        None
    };
    let info = info.or_else(|| params.get("_meta")?.get(META_CLIENT_INFO))?;
    let name = info.get("name")?.as_str()?;
    Some(super::handler::client_name(Some(name)))
}

fn unnamed() -> Arc<str> {
    Arc::from(super::handler::client_name(None))
}

/// The one client of `serve --stdio`.
#[derive(Debug)]
pub struct StdioWire {
    log: Arc<WireLog>,
    name: OnceLock<Arc<str>>,
}

impl StdioWire {
    pub fn new(log: Arc<WireLog>) -> Self {
        Self {
            log,
            name: OnceLock::new(),
        }
    }

    fn peer(&self) -> Arc<str> {
        self.name.get().cloned().unwrap_or_else(unnamed)
    }

    /// A message read from the client.
    pub fn received(&self, message: &impl serde::Serialize) {
        let Ok(value) = serde_json::to_value(message) else {
            return;
        };
        if self.name.get().is_none()
            && let Some(name) = named_in(&value)
        {
            let _ = self.name.set(Arc::from(name));
        }
        let peer = self.peer();
        self.log
            .record(&peer, Side::Downstream, Direction::Received, &value, None);
    }

    /// A message written to the client.
    pub fn sent(&self, message: &impl serde::Serialize) {
        if let Ok(value) = serde_json::to_value(message) {
            let peer = self.peer();
            self.log
                .record(&peer, Side::Downstream, Direction::Sent, &value, None);
        }
    }
}

/// The clients of `serve --http`.
#[derive(Debug)]
pub struct HttpWire {
    log: Arc<WireLog>,
    sessions: Mutex<HashMap<String, Arc<str>>>,
}

/// One request seen, waiting for its response.
pub struct Exchange {
    wire: Arc<HttpWire>,
    peer: Arc<str>,
}

fn header_list(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| {
            let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
            (k.as_str().to_owned(), value)
        })
        .collect()
}

fn session_of(headers: &HeaderMap) -> Option<&str> {
    headers.get("mcp-session-id")?.to_str().ok()
}

impl HttpWire {
    pub fn new(log: Arc<WireLog>) -> Arc<Self> {
        Arc::new(Self {
            log,
            sessions: Mutex::default(),
        })
    }

    /// Records a request body (masked by the log) with its headers.
    pub fn request(self: &Arc<Self>, headers: &HeaderMap, body: &[u8]) -> Exchange {
        let message = serde_json::from_slice::<Value>(body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()));
        let peer = match named_in(&message) {
            Some(name) => Arc::from(name),
            None => session_of(headers)
                .and_then(|id| self.lock().get(id).cloned())
                .unwrap_or_else(unnamed),
        };
        if !body.is_empty() {
            let http = HttpFacts {
                status: None,
                headers: header_list(headers),
            };
            self.log.record(
                &peer,
                Side::Downstream,
                Direction::Received,
                &message,
                Some(http),
            );
        }
        Exchange {
            wire: Arc::clone(self),
            peer,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<str>>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Exchange {
    /// The response, its body recorded as it goes out.
    pub fn response(self, response: Response<Body>) -> Response<Body> {
        if let Some(session) = session_of(response.headers()) {
            let mut sessions = self.wire.lock();
            if sessions.len() >= MAX_SESSIONS {
                sessions.clear();
            }
            sessions.insert(session.to_owned(), Arc::clone(&self.peer));
        }
        let sse = response
            .headers()
            .get(hyper::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("text/event-stream"));
        let http = HttpFacts {
            status: Some(response.status().as_u16()),
            headers: header_list(response.headers()),
        };
        let (parts, body) = response.into_parts();
        let seen = Seen {
            wire: self.wire,
            peer: self.peer,
            http,
            parse: if sse {
                Parse::Sse(Box::default())
            } else {
                Parse::Json(Vec::new())
            },
        };
        Response::from_parts(parts, Tapped { inner: body, seen }.boxed())
    }
}

enum Parse {
    Json(Vec<u8>),
    Sse(Box<SseParser>),
}

/// What a response body said so far.
struct Seen {
    wire: Arc<HttpWire>,
    peer: Arc<str>,
    http: HttpFacts,
    parse: Parse,
}

impl Seen {
    fn record(&self, message: &Value) {
        self.wire.log.record(
            &self.peer,
            Side::Downstream,
            Direction::Sent,
            message,
            Some(self.http.clone()),
        );
    }

    fn data(&mut self, piece: &[u8]) {
        match &mut self.parse {
            Parse::Json(buf) => {
                if buf.len() + piece.len() <= MAX_JSON_BODY {
                    buf.extend_from_slice(piece);
                }
            }
            Parse::Sse(parser) => {
                parser.push(piece);
                let mut messages = Vec::new();
                while let Ok(Some(event)) = parser.next_event() {
                    if !event.data.trim().is_empty() {
                        messages.push(
                            serde_json::from_str::<Value>(event.data)
                                .unwrap_or_else(|_| Value::String(event.data.to_owned())),
                        );
                    }
                }
                for message in &messages {
                    self.record(message);
                }
            }
        }
    }
}

impl Drop for Seen {
    /// A JSON body is recorded once it is all out (or the response was dropped).
    fn drop(&mut self) {
        if let Parse::Json(buf) = &self.parse
            && let Ok(message) = serde_json::from_slice::<Value>(buf)
        {
            self.record(&message);
        }
    }
}

struct Tapped {
    inner: Body,
    seen: Seen,
}

impl HttpBody for Tapped {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            this.seen.data(data);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clients_are_named_by_initialize_or_by_request_meta_as_the_handler_names_them() {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"clientInfo": {"name": "  desk  ", "version": "1"}}});
        assert_eq!(named_in(&init).as_deref(), Some("desk"));
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "x", "_meta": {META_CLIENT_INFO: {"name": "cursor"}}}});
        assert_eq!(named_in(&call).as_deref(), Some("cursor"));
        // A tool argument called clientInfo names nobody.
        let other = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"clientInfo": {"name": "spoof"}}});
        assert_eq!(named_in(&other), None);
        assert_eq!(&*unnamed(), "unnamed client");
    }
}
