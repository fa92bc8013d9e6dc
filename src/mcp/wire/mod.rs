//! The wire capture: every JSON-RPC message between switchboard and each MCP peer —
//! the servers it is a client of (upstream) and the clients of `switchboard serve`
//! (downstream) — with its direction, method, id, size, round-trip time and, over
//! HTTP, the status and headers. Secrets are masked here, when a message is
//! captured ([`mask`]), so nothing downstream of the capture (the TUI's Wire pane,
//! `--trace FILE`, an export) ever holds them.
//!
//! Each peer keeps a bounded ring of its last messages ([`DEFAULT_CAPACITY`] by
//! default); a trace file, when one is set, gets every message as one JSON line.

pub mod command;
pub mod mask;
mod trace;
pub mod view;

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use tokio::sync::watch;

pub use trace::{TraceError, entry_json, to_jsonl};

/// Messages kept per peer unless configured otherwise (`[mcp] wire_capacity`).
pub const DEFAULT_CAPACITY: usize = crate::config::DEFAULT_WIRE_CAPACITY;

/// Which kind of peer a message was exchanged with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// A configured MCP server; switchboard is its client.
    Upstream,
    /// A client of `switchboard serve`; switchboard is its server.
    Downstream,
}

/// The direction of a message, from switchboard's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Sent,
    Received,
}

impl Direction {
    fn opposite(self) -> Self {
        match self {
            Self::Sent => Self::Received,
            Self::Received => Self::Sent,
        }
    }
}

/// What a JSON-RPC message is (JSON-RPC 2.0, <https://www.jsonrpc.org/specification>).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Request,
    Notification,
    Response,
    Error,
    /// Not a JSON-RPC message (a batch, or garbage a peer sent).
    Other,
}

/// What HTTP said about a message (Streamable HTTP transports only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpFacts {
    pub status: Option<u16>,
    /// Header names and values, secrets already masked.
    pub headers: Vec<(String, String)>,
}

/// One captured message.
#[derive(Debug, Clone, PartialEq)]
pub struct WireEntry {
    /// Increasing over the whole log: orders messages across peers.
    pub seq: u64,
    pub at: SystemTime,
    /// The server's name, or the serve client's name.
    pub peer: Arc<str>,
    pub side: Side,
    pub direction: Direction,
    pub kind: Kind,
    /// A request's or notification's method; for a response, its request's method.
    pub method: Option<String>,
    /// The JSON-RPC id as written in the message (`7`, `"a-1"`).
    pub id: Option<String>,
    /// Size of the message as JSON text.
    pub bytes: usize,
    /// For a response: the time since its request was captured.
    pub rtt: Option<Duration>,
    pub http: Option<HttpFacts>,
    /// The message, secrets masked.
    pub message: Arc<Value>,
}

impl WireEntry {
    /// A refusal of `server/discover` by a server that predates it: JSON-RPC "method
    /// not found" (-32601) or "invalid params" (-32602), or HTTP 400, 404 or 405.
    pub fn is_discover_fallback(&self) -> bool {
        if self.method.as_deref() != Some("server/discover") || self.kind == Kind::Request {
            return false;
        }
        let code = self.message.pointer("/error/code").and_then(Value::as_i64);
        let status = self.http.as_ref().and_then(|h| h.status);
        matches!(code, Some(-32601 | -32602)) || matches!(status, Some(400 | 404 | 405))
    }

    /// `true` for JSON-RPC errors and results that say `isError`, but not for a
    /// server's "no such method" answer to the `server/discover` probe: that is the
    /// normal way to learn it speaks 2025-11-25 (`initialize` follows).
    pub fn is_error(&self) -> bool {
        if self.is_discover_fallback() {
            return false;
        }
        self.kind == Kind::Error
            || self
                .message
                .pointer("/result/isError")
                .and_then(Value::as_bool)
                .unwrap_or(false)
            || self
                .http
                .as_ref()
                .and_then(|h| h.status)
                .is_some_and(|s| s >= 400)
    }
}

/// A request waiting for its response: (peer, side, the request's direction, id).
type PendingKey = (Arc<str>, Side, Direction, String);

#[derive(Debug, Default)]
struct Rings {
    next_seq: u64,
    by_peer: HashMap<Arc<str>, VecDeque<Arc<WireEntry>>>,
    /// Requests waiting for their response: their method and when they were seen.
    pending: HashMap<PendingKey, (String, Instant)>,
}

/// Requests remembered per peer while they wait for a response.
const PENDING_PER_LOG: usize = 10_000;

/// The capture of every peer's messages. Cheap to share (`Arc`); recording takes one
/// short lock.
#[derive(Debug)]
pub struct WireLog {
    capacity: usize,
    rings: Mutex<Rings>,
    version: watch::Sender<u64>,
    recorded: AtomicU64,
    trace: Option<trace::TraceFile>,
}

impl WireLog {
    /// A log keeping `capacity` messages per peer (at least one).
    pub fn new(capacity: usize) -> Self {
        let (version, _) = watch::channel(0);
        Self {
            capacity: capacity.max(1),
            rings: Mutex::new(Rings::default()),
            version,
            recorded: AtomicU64::new(0),
            trace: None,
        }
    }

    /// Also writes every message to `path`, one JSON line each (created or truncated).
    pub fn with_trace(mut self, path: &Path) -> Result<Self, TraceError> {
        self.trace = Some(trace::TraceFile::create(path)?);
        Ok(self)
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Records one message exchanged with `peer`. `message` is masked here.
    pub fn record(
        &self,
        peer: &str,
        side: Side,
        direction: Direction,
        message: &Value,
        http: Option<HttpFacts>,
    ) {
        let bytes = crate::tools::json_len(message);
        let message = Arc::new(mask::message(message));
        let (kind, method, id) = classify(&message);
        let now = Instant::now();
        let entry = {
            let mut rings = self.rings.lock().unwrap_or_else(PoisonError::into_inner);
            let peer = match rings.by_peer.get_key_value(peer) {
                Some((name, _)) => Arc::clone(name),
                None => Arc::from(peer),
            };
            let (method, rtt) = match (kind, &id) {
                (Kind::Request, Some(id)) => {
                    if rings.pending.len() >= PENDING_PER_LOG {
                        rings.pending.clear();
                    }
                    let key = (Arc::clone(&peer), side, direction, id.clone());
                    rings
                        .pending
                        .insert(key, (method.clone().unwrap_or_default(), now));
                    (method, None)
                }
                (Kind::Response | Kind::Error, Some(id)) => {
                    let key = (Arc::clone(&peer), side, direction.opposite(), id.clone());
                    match rings.pending.remove(&key) {
                        Some((asked, at)) => (Some(asked), Some(now.duration_since(at))),
                        None => (method, None),
                    }
                }
                _ => (method, None),
            };
            rings.next_seq += 1;
            let entry = Arc::new(WireEntry {
                seq: rings.next_seq,
                at: SystemTime::now(),
                peer: Arc::clone(&peer),
                side,
                direction,
                kind,
                method,
                id,
                bytes,
                rtt,
                http: http.map(mask::http),
                message,
            });
            let ring = rings.by_peer.entry(peer).or_default();
            if ring.len() == self.capacity {
                ring.pop_front();
            }
            ring.push_back(Arc::clone(&entry));
            entry
        };
        if let Some(trace) = &self.trace {
            trace.write(&entry);
        }
        let n = self.recorded.fetch_add(1, Ordering::Relaxed) + 1;
        self.version.send_replace(n);
    }

    /// Every kept message of every peer, oldest first.
    pub fn entries(&self) -> Vec<Arc<WireEntry>> {
        self.entries_after(0)
    }

    /// The kept messages with a `seq` above `seq`, oldest first.
    pub fn entries_after(&self, seq: u64) -> Vec<Arc<WireEntry>> {
        let rings = self.rings.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out: Vec<Arc<WireEntry>> = rings
            .by_peer
            .values()
            .flat_map(|ring| ring.iter().rev().take_while(|e| e.seq > seq))
            .cloned()
            .collect();
        drop(rings);
        out.sort_unstable_by_key(|e| e.seq);
        out
    }

    /// The peers that have messages, sorted.
    pub fn peers(&self) -> Vec<Arc<str>> {
        let rings = self.rings.lock().unwrap_or_else(PoisonError::into_inner);
        let mut peers: Vec<Arc<str>> = rings.by_peer.keys().cloned().collect();
        drop(rings);
        peers.sort();
        peers
    }

    /// Messages recorded so far (kept or not).
    pub fn recorded(&self) -> u64 {
        self.recorded.load(Ordering::Relaxed)
    }

    /// Changes each time a message is recorded (its value is [`WireLog::recorded`]).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// Writes every kept message to `path` as JSON lines; returns how many.
    pub fn export(&self, path: &Path) -> std::io::Result<usize> {
        let entries = self.entries();
        let mut text = String::new();
        for entry in &entries {
            text.push_str(&to_jsonl(entry));
        }
        std::fs::write(path, text)?;
        Ok(entries.len())
    }
}

impl Default for WireLog {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

/// The kind, method and id of a JSON-RPC message.
fn classify(message: &Value) -> (Kind, Option<String>, Option<String>) {
    let Some(object) = message.as_object() else {
        return (Kind::Other, None, None);
    };
    let method = object
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let id = object
        .get("id")
        .filter(|v| !v.is_null())
        .map(|id| match id {
            Value::String(s) => format!("{s:?}"),
            other => other.to_string(),
        });
    let kind = match (&method, &id) {
        (Some(_), Some(_)) => Kind::Request,
        (Some(_), None) => Kind::Notification,
        (None, _) if object.contains_key("error") => Kind::Error,
        (None, Some(_)) if object.contains_key("result") => Kind::Response,
        _ => Kind::Other,
    };
    (kind, method, id)
}

#[cfg(test)]
mod tests;
