//! `--trace FILE`: every captured message as one JSON line, flushed per line so a
//! crash keeps what came before it.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde_json::{Map, Value, json};

use super::{Direction, Kind, Side, WireEntry};
use crate::policy::rfc3339;

/// The trace file could not be created.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the trace file {path}: {source}")]
pub struct TraceError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

#[derive(Debug)]
pub(super) struct TraceFile(Mutex<BufWriter<File>>);

impl TraceFile {
    pub(super) fn create(path: &Path) -> Result<Self, TraceError> {
        let file = crate::paths::private_file_options()
            .create(true)
            .write(true)
            .truncate(true)
            .open(path)
            .map_err(|source| TraceError {
                path: path.to_owned(),
                source,
            })?;
        Ok(Self(Mutex::new(BufWriter::new(file))))
    }

    pub(super) fn write(&self, entry: &WireEntry) {
        let line = to_jsonl(entry);
        let mut file = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = file.write_all(line.as_bytes()).and_then(|()| file.flush()) {
            tracing::warn!("cannot append to the trace file: {e}");
        }
    }
}

/// One entry as a JSON object: the line `--trace` and the Wire pane's export write.
pub fn entry_json(entry: &WireEntry) -> Value {
    let mut line = Map::new();
    line.insert("seq".into(), json!(entry.seq));
    line.insert("time".into(), json!(rfc3339(entry.at)));
    line.insert("peer".into(), json!(&*entry.peer));
    let side = match entry.side {
        Side::Upstream => "server",
        Side::Downstream => "serve_client",
    };
    line.insert("side".into(), json!(side));
    let direction = match entry.direction {
        Direction::Sent => "sent",
        Direction::Received => "received",
    };
    line.insert("direction".into(), json!(direction));
    let kind = match entry.kind {
        Kind::Request => "request",
        Kind::Notification => "notification",
        Kind::Response => "response",
        Kind::Error => "error",
        Kind::Other => "other",
    };
    line.insert("kind".into(), json!(kind));
    if let Some(method) = &entry.method {
        line.insert("method".into(), json!(method));
    }
    if let Some(id) = &entry.id {
        line.insert("id".into(), json!(id));
    }
    line.insert("bytes".into(), json!(entry.bytes));
    if let Some(rtt) = entry.rtt {
        line.insert("rtt_ms".into(), json!(rtt.as_secs_f64() * 1_000.0));
    }
    if let Some(http) = &entry.http {
        let headers: Map<String, Value> = http
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        line.insert(
            "http".into(),
            json!({"status": http.status, "headers": headers}),
        );
    }
    line.insert("message".into(), (*entry.message).clone());
    Value::Object(line)
}

/// One entry as a JSON line, newline included.
pub fn to_jsonl(entry: &WireEntry) -> String {
    let mut line = entry_json(entry).to_string();
    line.push('\n');
    line
}
