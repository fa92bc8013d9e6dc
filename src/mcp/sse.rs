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

/// Opens the event stream and waits for the `endpoint` event. The endpoint must have the
/// same scheme, host and port as the stream (a server cannot redirect our requests to
/// another origin). Events larger than `max_event_bytes` are dropped with a warning.
pub async fn connect(
    server: &str,
    url: &str,
    headers: HeaderMap,
    max_event_bytes: usize,
) -> Result<SseTransport, String> {
    let base = reqwest::Url::parse(url).map_err(|e| format!("bad url: {e}"))?;
    let client = crate::tls::client_builder()
        .build()
        .map_err(|e| format!("http client: {e}"))?;
    let response = client
        .get(base.clone())
        .headers(headers.clone())
        .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
        .send()
        .await
        .map_err(|e| format!("GET {url}: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("GET {url}: HTTP {}", response.status()));
    }
    let mut events = Box::pin(crate::sse::events(response.bytes_stream()));
    let endpoint = loop {
        match events.next().await {
            Some(Ok(event)) if event.name == "endpoint" => {
                let endpoint = base
                    .join(event.data.trim())
                    .map_err(|e| format!("bad endpoint event: {e}"))?;
                if endpoint.origin() != base.origin() {
                    return Err("the endpoint event names another origin".into());
                }
                break endpoint;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(format!("event stream: {e}")),
            None => return Err("the event stream ended before the endpoint event".into()),
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
