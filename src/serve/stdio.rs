//! `serve --stdio`: rmcp's server over stdin/stdout, behind a guard that answers what
//! rmcp would drop silently. A line that is not JSON gets a parse error (-32700), JSON
//! that is no JSON-RPC message an invalid-request error (-32600), a line over
//! `[serve] max_message_bytes` an invalid-request error naming the cap; the client
//! stays connected. Unknown methods reach rmcp, which answers method-not-found.

use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleServer, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, BufReader};
use tokio::sync::mpsc;

use super::Gateway;
use super::wire_tap::StdioWire;

/// Why `serve --stdio` stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum StdioServeError {
    /// `--client NAME` without a `[serve.clients.NAME]` entry.
    #[error("--client {name}: there is no [serve.clients.{name}]")]
    UnknownClient { name: String },
    /// The client's handshake failed.
    #[error(transparent)]
    Initialize(#[from] Box<rmcp::service::ServerInitializeError>),
    /// The serving task ended abnormally.
    #[error(transparent)]
    Join(#[from] tokio::task::JoinError),
}

/// Serves one client on stdin/stdout until it closes stdin; as the `[serve.clients]`
/// entry `client` when given (`--client NAME`), else by its declared name, a label.
pub async fn serve_stdio(
    gateway: Arc<Gateway>,
    client: Option<&str>,
) -> Result<(), StdioServeError> {
    let handler = match client {
        Some(name) if !gateway.clients().configured(name) => {
            return Err(StdioServeError::UnknownClient {
                name: name.to_owned(),
            });
        }
        Some(name) => gateway.handler_as("stdio", name),
        None => gateway.handler("stdio"),
    };
    let (read, write) = rmcp::transport::stdio_pipes();
    let max = gateway.config().max_message_bytes;
    let mut transport = GuardedTransport::new(read, write, max);
    transport.wire = gateway
        .wire
        .clone()
        .map(|log| Arc::new(StdioWire::new(log)));
    let running = handler.serve(transport).await.map_err(Box::new)?;
    running.waiting().await?;
    Ok(())
}

/// What the reader found on one line.
enum Incoming {
    Message(Box<ClientJsonRpcMessage>),
    /// An error to send back at once.
    Reply(Box<ServerJsonRpcMessage>),
}

/// rmcp's line transport for writing; lines read and checked by a task of our own.
pub struct GuardedTransport<W: AsyncWrite + Send + Unpin + 'static> {
    incoming: mpsc::Receiver<Incoming>,
    writer: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
    /// Where each message read and written is captured.
    wire: Option<Arc<StdioWire>>,
}

impl<W: AsyncWrite + Send + Unpin + 'static> GuardedTransport<W> {
    pub fn new<R: AsyncRead + Send + Unpin + 'static>(read: R, write: W, max: usize) -> Self {
        let (tx, incoming) = mpsc::channel(64);
        tokio::spawn(read_lines(read, max, tx));
        Self {
            incoming,
            writer: AsyncRwTransport::new(tokio::io::empty(), write),
            wire: None,
        }
    }
}

impl<W: AsyncWrite + Send + Unpin + 'static> Transport<RoleServer> for GuardedTransport<W> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let Some(wire) = &self.wire {
            wire.sent(&item);
        }
        self.writer.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.incoming.recv().await? {
                Incoming::Message(message) => {
                    if let Some(wire) = &self.wire {
                        wire.received(&message);
                    }
                    return Some(*message);
                }
                // Spawned: `receive` may be dropped at any await, a reply must not be.
                Incoming::Reply(reply) => {
                    if let Some(wire) = &self.wire {
                        wire.sent(&reply);
                    }
                    drop(tokio::spawn(self.writer.send(*reply)));
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.writer.close()
    }
}

/// Reads lines of at most `max` bytes until EOF and classifies each.
async fn read_lines<R: AsyncRead + Unpin>(read: R, max: usize, tx: mpsc::Sender<Incoming>) {
    let mut read = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
        match (&mut read).take(limit).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let incoming = if line.last() == Some(&b'\n') || line.len() <= max {
            classify(&line)
        } else {
            // Over the cap: drop the rest of the line, answer once.
            if skip_line(&mut read).await.is_err() {
                return;
            }
            Some(reply(super::oversized(max), None))
        };
        if let Some(incoming) = incoming
            && tx.send(incoming).await.is_err()
        {
            return;
        }
    }
}

async fn skip_line<R: AsyncRead + Unpin>(read: &mut BufReader<R>) -> std::io::Result<()> {
    loop {
        let buf = read.fill_buf().await?;
        if buf.is_empty() {
            return Ok(());
        }
        let (used, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        read.consume(used);
        if done {
            return Ok(());
        }
    }
}

fn reply(error: ErrorData, id: Option<RequestId>) -> Incoming {
    Incoming::Reply(Box::new(ServerJsonRpcMessage::error(error, id)))
}

/// One line: a message, an error to answer, or nothing (blank lines, notifications
/// rmcp does not know).
fn classify(line: &[u8]) -> Option<Incoming> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    // Parsed once, straight into a message; only a line that is not one is read again.
    if let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        return Some(Incoming::Message(Box::new(message)));
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            let error = ErrorData::new(ErrorCode::PARSE_ERROR, format!("parse error: {e}"), None);
            return Some(reply(error, None));
        }
    };
    match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        Ok(message) => Some(Incoming::Message(Box::new(message))),
        Err(e) => {
            let id = value
                .get("id")
                .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
            // A notification nobody answers: nothing to say.
            if id.is_none() && value.get("method").is_some() {
                return None;
            }
            Some(reply(
                ErrorData::invalid_request(format!("invalid request: {e}"), None),
                id,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &'static [u8], max: usize) -> Vec<Value> {
        let (tx, mut rx) = mpsc::channel(16);
        read_lines(input, max, tx).await;
        let mut out = Vec::new();
        while let Ok(incoming) = rx.try_recv() {
            out.push(match incoming {
                Incoming::Message(m) => serde_json::to_value(*m).unwrap(),
                Incoming::Reply(r) => serde_json::to_value(*r).unwrap(),
            });
        }
        out
    }

    #[tokio::test]
    async fn garbage_and_oversized_lines_get_errors_and_reading_goes_on() {
        let input: &'static [u8] = b"not json\n\n{\"jsonrpc\":\"2.0\",\"id\":7,\"nonsense\":1}\n\
            {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}\n\
            {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
        let out = lines(input, 60).await;
        assert_eq!(out.len(), 4, "{out:?}");
        assert_eq!(out[0]["error"]["code"], -32700);
        assert_eq!(out[0]["id"], Value::Null);
        assert_eq!(out[1]["error"]["code"], -32600);
        assert_eq!(out[1]["id"], 7);
        assert_eq!(out[2]["error"]["code"], -32600);
        assert!(
            out[2]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("max_message_bytes")
        );
        assert_eq!(
            (out[3]["method"].as_str(), &out[3]["id"]),
            (Some("ping"), &Value::from(2))
        );
    }
}
