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
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

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
    // Erased: rmcp's server loop is compiled once, for this and the HTTP sessions.
    // Boxed: the handshake holds the transport and its first read.
    let transport = crate::mcp::DynTransport::new(transport);
    let running = Box::pin(handler.serve(transport)).await.map_err(Box::new)?;
    running.waiting().await?;
    Ok(())
}

/// What the reader found on one line.
enum Incoming {
    Message(Box<ClientJsonRpcMessage>),
    /// An error to send back at once.
    Reply(Box<ServerJsonRpcMessage>),
}

/// rmcp's line transport for writing; lines read and checked here, in `receive`
/// itself (no task or channel between the pipe and rmcp's loop).
pub struct GuardedTransport<R, W: AsyncWrite + Send + Unpin + 'static> {
    lines: Lines<R>,
    writer: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
    /// Where each message read and written is captured.
    wire: Option<Arc<StdioWire>>,
}

impl<R, W> GuardedTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub fn new(read: R, write: W, max: usize) -> Self {
        Self {
            lines: Lines::new(read, max),
            writer: AsyncRwTransport::new(tokio::io::empty(), write),
            wire: None,
        }
    }
}

impl<R, W> Transport<RoleServer> for GuardedTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
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

    /// Cancel-safe, as rmcp's loop needs (it drops this future whenever another of
    /// its branches is ready first): what was read of a line waits in `lines`.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.lines.next().await? {
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

/// Lines of at most `max` bytes, each classified. Everything read is kept here
/// between calls, so a `next` dropped at its await loses nothing.
struct Lines<R> {
    read: BufReader<R>,
    max: usize,
    /// The line read so far.
    line: Vec<u8>,
    /// Dropping the rest of a line over the cap (already answered).
    skipping: bool,
}

/// What `read_line` found.
enum Line {
    /// A whole line is in `Lines::line` (with its newline, if it had one).
    Whole,
    /// A line over the cap: to be answered once.
    Oversized,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    fn new(read: R, max: usize) -> Self {
        Self {
            read: BufReader::new(read),
            max,
            line: Vec::new(),
            skipping: false,
        }
    }

    /// The next message or error to answer; `None` at the end of the input (or when
    /// it cannot be read).
    async fn next(&mut self) -> Option<Incoming> {
        loop {
            let incoming = match self.read_line().await? {
                Line::Whole => {
                    let incoming = classify(&self.line);
                    self.line.clear();
                    incoming
                }
                Line::Oversized => Some(reply(super::oversized(self.max), None)),
            };
            if incoming.is_some() {
                return incoming;
            }
        }
    }

    /// Reads on to the end of the line, past `max` bytes (its newline not counted) or
    /// to the end of the input. Only `fill_buf` awaits, and what it gave is copied and
    /// consumed with no await between, so a dropped call resumes where it stopped.
    async fn read_line(&mut self) -> Option<Line> {
        loop {
            let buf = self.read.fill_buf().await.ok()?;
            if buf.is_empty() {
                // A last line without its newline is still read.
                let last = !self.line.is_empty() && !self.skipping;
                self.skipping = false;
                return last.then_some(Line::Whole);
            }
            let newline = memchr::memchr(b'\n', buf);
            let used = newline.map_or(buf.len(), |i| i + 1);
            let found = if self.skipping {
                self.skipping = newline.is_none();
                None
            } else if self.line.len() + newline.unwrap_or(buf.len()) > self.max {
                // Over the cap: answered now, the rest of the line dropped unread.
                self.line.clear();
                self.skipping = newline.is_none();
                Some(Line::Oversized)
            } else {
                self.line.extend_from_slice(&buf[..used]);
                newline.map(|_| Line::Whole)
            };
            self.read.consume(used);
            if found.is_some() {
                return found;
            }
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
    // A call, the most of what comes, read straight into its type (`read_call.rs`).
    if let Some(message) = super::read_call::tools_call(line) {
        return Some(Incoming::Message(Box::new(message)));
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
    use serde_json::json;

    async fn lines(input: &'static [u8], max: usize) -> Vec<Value> {
        let mut lines = Lines::new(input, max);
        let mut out = Vec::new();
        while let Some(incoming) = lines.next().await {
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

    /// A line that comes in pieces is read whole, even when the read is dropped
    /// between pieces (rmcp's loop drops `receive` whenever it has something else to
    /// do).
    #[tokio::test]
    async fn a_read_dropped_mid_line_loses_nothing() {
        use futures::FutureExt as _;
        use tokio::io::AsyncWriteExt as _;
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut lines = Lines::new(rx, 1024);
        let ping = br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
        let (head, tail) = ping.split_at(10);
        tx.write_all(head).await.unwrap();
        assert!(lines.next().now_or_never().is_none(), "half a line");
        tx.write_all(&tail[..5]).await.unwrap();
        assert!(lines.next().now_or_never().is_none(), "still no newline");
        tx.write_all(&tail[5..]).await.unwrap();
        tx.write_all(b"\n").await.unwrap();
        let Some(Incoming::Message(message)) = lines.next().await else {
            panic!("a message")
        };
        assert_eq!(serde_json::to_value(*message).unwrap()["id"], 3);
    }

    /// The cap counts a line's bytes without its newline: `max` bytes pass, one more
    /// is refused (in one piece or many), and a last line without its newline is read
    /// (the last one here, over the cap, is answered).
    #[tokio::test]
    async fn the_cap_is_exact_and_a_last_line_needs_no_newline() {
        let ping = |pad: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{pad},"method":"ping","params":{{"p":"{}"}}}}"#,
                "x".repeat(pad)
            )
        };
        let max = ping(10).len();
        let (fits, over) = (ping(10), ping(11));
        assert_eq!(over.len(), max + 1);
        // A carriage return before the newline is part of the line.
        let input = format!("{fits}\n{over}\n{}\r\n{over}", ping(9));
        let input: &'static [u8] = Box::leak(input.into_bytes().into_boxed_slice());
        let out = lines(input, max).await;
        let codes: Vec<_> = out
            .iter()
            .map(|m| (m["id"].clone(), m["error"]["code"].clone()))
            .collect();
        assert_eq!(
            codes,
            vec![
                (json!(10), Value::Null),
                (Value::Null, json!(-32600)),
                (json!(9), Value::Null),
                (Value::Null, json!(-32600)),
            ]
        );
        // One byte at a time: the same answers.
        let (mut tx, rx) = tokio::io::duplex(1);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt as _;
            tx.write_all(input).await.unwrap();
        });
        let mut lines = Lines::new(rx, max);
        let mut slow = Vec::new();
        while let Some(incoming) = lines.next().await {
            slow.push(match incoming {
                Incoming::Message(m) => serde_json::to_value(*m).unwrap(),
                Incoming::Reply(r) => serde_json::to_value(*r).unwrap(),
            });
        }
        writer.await.unwrap();
        assert_eq!(slow, out);
    }
}
