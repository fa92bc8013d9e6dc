//! A session client that goes away mid-call: rmcp keeps a 2025-11-25 session's
//! request running when the HTTP connection carrying its SSE answer closes (a
//! 2026-07-28 request without a session is cancelled by rmcp itself). So a session
//! request's answer stream is watched: dropped before its end, the gateway sends the
//! session the `notifications/cancelled` the client could not, and the call is
//! cancelled upstream like any other.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use hyper::{Request, Response};
use serde_json::{Value, json};

pub(super) type Body = BoxBody<Bytes, Infallible>;

/// What a watched request needs to be cancelled later.
#[derive(Debug, Clone)]
pub(super) struct Watched {
    /// The JSON-RPC id of the request.
    pub id: Value,
    /// The request's headers that route a message to its session.
    pub headers: hyper::HeaderMap,
}

/// The id of a session request (`Mcp-Session-Id` and a JSON-RPC request with an id).
pub(super) fn watched(headers: &hyper::HeaderMap, body: &[u8]) -> Option<Watched> {
    headers.get("mcp-session-id")?;
    let message: Value = serde_json::from_slice(body).ok()?;
    message.get("method")?;
    let id = message.get("id").filter(|id| !id.is_null())?.clone();
    let mut kept = hyper::HeaderMap::new();
    for (name, value) in headers {
        let keep = matches!(
            name.as_str(),
            "mcp-session-id" | "mcp-protocol-version" | "host" | "authorization"
        );
        if keep {
            kept.insert(name.clone(), value.clone());
        }
    }
    Some(Watched { id, headers: kept })
}

/// The notification that cancels `watched`, as a request to the MCP service.
pub(super) fn cancel_request(watched: &Watched) -> Request<Full<Bytes>> {
    let body = json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": watched.id, "reason": "the client went away"}
    });
    let mut request = Request::new(Full::new(Bytes::from(body.to_string())));
    *request.method_mut() = hyper::Method::POST;
    *request.uri_mut() = hyper::Uri::from_static("/mcp");
    let headers = request.headers_mut();
    headers.extend(watched.headers.clone());
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    headers.insert(
        hyper::header::ACCEPT,
        hyper::header::HeaderValue::from_static("application/json, text/event-stream"),
    );
    request
}

/// An answer stream that runs `on_drop` when it is dropped before its end.
struct Guarded<F: FnOnce() + Send + Unpin> {
    inner: Body,
    on_drop: Option<F>,
}

impl<F: FnOnce() + Send + Unpin> HttpBody for Guarded<F> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            self.on_drop = None;
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

impl<F: FnOnce() + Send + Unpin> Drop for Guarded<F> {
    fn drop(&mut self) {
        if let Some(on_drop) = self.on_drop.take() {
            on_drop();
        }
    }
}

/// `response` whose SSE body runs `on_drop` if the client leaves before its end; other
/// answers (JSON, errors) are complete already and pass unchanged.
pub(super) fn guard(
    response: Response<Body>,
    on_drop: impl FnOnce() + Send + Sync + Unpin + 'static,
) -> Response<Body> {
    let streaming = response
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !streaming {
        return response;
    }
    response.map(|inner| {
        Guarded {
            inner,
            on_drop: Some(on_drop),
        }
        .boxed()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    fn sse() -> Response<Body> {
        let mut r = Response::new(Full::new(Bytes::from_static(b"data: {}\n\n")).boxed());
        r.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/event-stream"),
        );
        r
    }

    #[tokio::test]
    async fn an_unfinished_stream_fires_a_finished_one_does_not() {
        let fired = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&fired);
        drop(guard(sse(), move || f.store(true, Ordering::SeqCst)));
        assert!(fired.load(Ordering::SeqCst));

        let fired = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&fired);
        let body = guard(sse(), move || f.store(true, Ordering::SeqCst)).into_body();
        let _ = body.collect().await;
        assert!(!fired.load(Ordering::SeqCst));
    }

    #[test]
    fn only_session_requests_with_an_id_are_watched() {
        let mut headers = hyper::HeaderMap::new();
        let call = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}"#;
        assert!(watched(&headers, call).is_none());
        headers.insert("mcp-session-id", "abc".parse().unwrap());
        let w = watched(&headers, call).unwrap();
        assert_eq!(w.id, json!(3));
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(watched(&headers, note).is_none());
        let cancel = cancel_request(&w);
        assert_eq!(cancel.headers()["mcp-session-id"], "abc");
    }
}
