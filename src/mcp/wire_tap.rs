//! Feeding the wire capture from switchboard's side of each server connection.
//!
//! - [`WireTap`] wraps any rmcp client transport (stdio, the legacy SSE pair) and
//!   records every message it sends and receives.
//! - Streamable HTTP is recorded one layer lower, by `RefusalTap` through
//!   [`WirePeer::posted`], [`WirePeer::answered`] and [`WirePeer::streamed`]: that
//!   layer sees each POST's headers and what HTTP answered, which the transport
//!   never does.
//!
//! Without a [`WireLog`] a tap is one `Option` check per message: nothing is
//! serialised.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::{IntoTransport, Transport};
use serde::Serialize;

use super::wire::{Direction, HttpFacts, Side, WireLog};

/// One server's place in a [`WireLog`]. Cheap to clone.
#[derive(Debug, Clone)]
pub struct WirePeer {
    log: Arc<WireLog>,
    server: Arc<str>,
}

impl WirePeer {
    pub fn new(log: Arc<WireLog>, server: &str) -> Self {
        Self {
            log,
            server: Arc::from(server),
        }
    }

    /// The tap of `server`, when there is a log.
    pub fn of(log: Option<&Arc<WireLog>>, server: &str) -> Option<Self> {
        log.map(|log| Self::new(Arc::clone(log), server))
    }

    /// Records one rmcp message (as its JSON).
    pub fn record(&self, direction: Direction, message: &impl Serialize, http: Option<HttpFacts>) {
        match serde_json::to_value(message) {
            Ok(value) => self.record_value(direction, &value, http),
            Err(e) => tracing::debug!(server = %self.server, "wire: message not captured: {e}"),
        }
    }

    fn record_value(
        &self,
        direction: Direction,
        value: &serde_json::Value,
        http: Option<HttpFacts>,
    ) {
        self.log
            .record(&self.server, Side::Upstream, direction, value, http);
    }

    /// A message POSTed over Streamable HTTP, with the headers it goes with (the
    /// bearer rmcp adds, the session, custom and protocol headers; masked by the log).
    pub fn posted(
        &self,
        message: &impl Serialize,
        session_id: Option<&str>,
        auth_header: Option<&str>,
        custom_headers: &HashMap<HeaderName, HeaderValue>,
    ) {
        let mut headers = Vec::with_capacity(custom_headers.len() + 2);
        if let Some(token) = auth_header {
            headers.push(("authorization".to_owned(), format!("Bearer {token}")));
        }
        if let Some(session) = session_id {
            headers.push(("mcp-session-id".to_owned(), session.to_owned()));
        }
        for (name, value) in custom_headers {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            headers.push((name.as_str().to_owned(), value));
        }
        headers.sort();
        let http = HttpFacts {
            status: None,
            headers,
        };
        self.record(Direction::Sent, message, Some(http));
    }

    /// A message HTTP answered a POST with, as one JSON body. The status is the one
    /// rmcp's HTTP client accepted a message body with (it does not pass the code on).
    pub fn answered(&self, message: &impl Serialize, session_id: Option<&str>) {
        self.record(Direction::Received, message, Some(ok(session_id)));
    }

    /// HTTP refused a POST with `status` (401, 403, 404, 429, 5xx): no message came
    /// back, so the capture holds a line of text with the status.
    pub fn refused(&self, status: u16, what: &str) {
        let text = serde_json::Value::String(format!("HTTP {status}: {what}"));
        let http = HttpFacts {
            status: Some(status),
            headers: Vec::new(),
        };
        self.record_value(Direction::Received, &text, Some(http));
    }

    /// One SSE event's data (a POST's answer stream or the GET stream).
    pub fn streamed(&self, data: &str) {
        let value = serde_json::from_str::<serde_json::Value>(data)
            .unwrap_or_else(|_| serde_json::Value::String(data.to_owned()));
        self.record_value(Direction::Received, &value, Some(ok(None)));
    }
}

/// What HTTP said about a message that came with a 2xx answer.
fn ok(session_id: Option<&str>) -> HttpFacts {
    HttpFacts {
        status: Some(200),
        headers: session_id
            .map(|s| vec![("mcp-session-id".to_owned(), s.to_owned())])
            .unwrap_or_default(),
    }
}

/// A client transport that records what passes through it.
pub struct WireTap<T> {
    inner: T,
    peer: Option<WirePeer>,
}

/// `transport`, recording into `peer` when there is one.
pub fn tap<T, E, A>(
    transport: T,
    peer: Option<WirePeer>,
) -> WireTap<impl Transport<RoleClient, Error = E> + 'static>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    WireTap {
        inner: transport.into_transport(),
        peer,
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for WireTap<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let Some(peer) = &self.peer {
            peer.record(Direction::Sent, &item, None);
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if let (Some(peer), Some(message)) = (&self.peer, &message) {
            peer.record(Direction::Received, message, None);
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
