//! The legacy HTTP+SSE client transport (protocol 2024-11-05), which rmcp no longer
//! ships: GET the event stream, take the `endpoint` event, POST JSON-RPC there, and read
//! responses as `message` events.

use futures::StreamExt;
use futures::channel::mpsc;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};

const CHANNEL: usize = 64;

/// The two halves rmcp serves on: a sink of our messages and a stream of the server's.
pub type SseTransport = (
    mpsc::Sender<ClientJsonRpcMessage>,
    mpsc::Receiver<ServerJsonRpcMessage>,
);

/// Why the legacy event stream could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SseConnectError {
    #[error("bad url: {0}")]
    BadUrl(String),
    #[error("http client: {0}")]
    Client(reqwest::Error),
    #[error("GET {url}: {source}")]
    Get { url: String, source: reqwest::Error },
    #[error("GET {url}: HTTP {status}")]
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
    #[error("bad endpoint event: {0}")]
    BadEndpoint(String),
    #[error("the endpoint event names another origin")]
    OtherOrigin,
    #[error("event stream: {0}")]
    Stream(String),
    #[error("the event stream ended before the endpoint event")]
    EndedEarly,
}

/// Opens the event stream and waits for the `endpoint` event. The endpoint must have the
/// same scheme, host and port as the stream (a server cannot redirect our requests to
/// another origin). Events larger than `max_event_bytes` are dropped with a warning.
pub async fn connect(
    server: &str,
    url: &str,
    headers: HeaderMap,
    max_event_bytes: usize,
) -> Result<SseTransport, SseConnectError> {
    let base = reqwest::Url::parse(url).map_err(|e| SseConnectError::BadUrl(e.to_string()))?;
    let client = crate::tls::client_builder()
        .build()
        .map_err(SseConnectError::Client)?;
    let response = client
        .get(base.clone())
        .headers(headers.clone())
        .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
        .send()
        .await
        .map_err(|source| SseConnectError::Get {
            url: url.to_owned(),
            source,
        })?;
    if !response.status().is_success() {
        return Err(SseConnectError::Status {
            url: url.to_owned(),
            status: response.status(),
        });
    }
    let mut events = Box::pin(crate::sse::events(response.bytes_stream()));
    let endpoint = loop {
        match events.next().await {
            Some(Ok(event)) if event.name == "endpoint" => {
                let endpoint = base
                    .join(event.data.trim())
                    .map_err(|e| SseConnectError::BadEndpoint(e.to_string()))?;
                if endpoint.origin() != base.origin() {
                    return Err(SseConnectError::OtherOrigin);
                }
                break endpoint;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(SseConnectError::Stream(e.to_string())),
            None => return Err(SseConnectError::EndedEarly),
        }
    };
    let (to_us, from_server) = mpsc::channel::<ServerJsonRpcMessage>(CHANNEL);
    let (to_server, from_us) = mpsc::channel::<ClientJsonRpcMessage>(CHANNEL);
    let name = server.to_owned();
    tokio::spawn(async move {
        let mut to_us = to_us;
        while let Some(event) = events.next().await {
            let Ok(event) = event else {
                break;
            };
            if event.name != "message" {
                continue;
            }
            if event.data.len() > max_event_bytes {
                tracing::warn!(
                    server = name,
                    "dropped an SSE event of {} bytes",
                    event.data.len()
                );
                continue;
            }
            match serde_json::from_str::<ServerJsonRpcMessage>(&event.data) {
                Ok(message) => {
                    if futures::SinkExt::send(&mut to_us, message).await.is_err() {
                        break;
                    }
                }
                Err(e) => tracing::warn!(server = name, "ignored a non-JSON-RPC SSE event: {e}"),
            }
        }
    });
    let name = server.to_owned();
    tokio::spawn(async move {
        let mut from_us = from_us;
        while let Some(message) = from_us.next().await {
            let posted = client
                .post(endpoint.clone())
                .headers(headers.clone())
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .json(&message)
                .send()
                .await;
            match posted {
                Ok(r) if r.status().is_success() => {}
                Ok(r) => tracing::warn!(
                    server = name,
                    "POST to the SSE endpoint: HTTP {}",
                    r.status()
                ),
                Err(e) => tracing::warn!(server = name, "POST to the SSE endpoint: {e}"),
            }
        }
    });
    Ok((to_server, from_server))
}
