//! What the Wire pane needs that is not drawing: the filter (`server:NAME`,
//! `method:PREFIX`, `error`, words searched in the message), the short forms of sizes,
//! times and round trips, and writing the shown messages to a JSON-lines file.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::{WireEntry, to_jsonl};

/// A parsed filter. Terms of one kind are alternatives (`server:a server:b`); the
/// kinds must all hold; every word must occur in the message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WireFilter {
    /// Peer names, lower-cased; the peer must be one of them.
    servers: Vec<String>,
    /// Method prefixes, lower-cased.
    methods: Vec<String>,
    errors_only: bool,
    /// Lower-cased words searched in the message's keys and values.
    words: Vec<String>,
}

impl WireFilter {
    /// Terms separated by spaces; unknown `key:` forms are words.
    pub fn parse(text: &str) -> Self {
        let mut filter = Self::default();
        for term in text.split_whitespace() {
            let lower = term.to_lowercase();
            if let Some(name) = lower.strip_prefix("server:") {
                if !name.is_empty() {
                    filter.servers.push(name.to_owned());
                }
            } else if let Some(prefix) = lower.strip_prefix("method:") {
                if !prefix.is_empty() {
                    filter.methods.push(prefix.to_owned());
                }
            } else if lower == "error" {
                filter.errors_only = true;
            } else {
                filter.words.push(lower);
            }
        }
        filter
    }

    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    pub fn matches(&self, entry: &WireEntry) -> bool {
        let peer_ok = self.servers.is_empty()
            || (self.servers.iter()).any(|s| entry.peer.to_lowercase() == *s);
        let method_ok = self.methods.is_empty()
            || entry.method.as_deref().is_some_and(|m| {
                let m = m.to_lowercase();
                self.methods.iter().any(|p| m.starts_with(p.as_str()))
            });
        peer_ok
            && method_ok
            && (!self.errors_only || entry.is_error())
            && self.words.iter().all(|w| contains(&entry.message, w))
    }
}

/// `word` (lower-cased) occurs in a key, a string, a number or a literal of `value`.
fn contains(value: &Value, word: &str) -> bool {
    match value {
        Value::String(s) => has(s, word),
        Value::Array(items) => items.iter().any(|v| contains(v, word)),
        Value::Object(map) => map.iter().any(|(k, v)| has(k, word) || contains(v, word)),
        other => has(&other.to_string(), word),
    }
}

fn has(text: &str, word: &str) -> bool {
    if word.is_ascii() {
        let (text, word) = (text.as_bytes(), word.as_bytes());
        word.is_empty()
            || text
                .windows(word.len())
                .any(|w| w.eq_ignore_ascii_case(word))
    } else {
        text.to_lowercase().contains(word)
    }
}

/// `312 B`, `4.0 KiB`, `1.5 MiB`.
pub fn size(bytes: usize) -> String {
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", b / 1024.0),
        _ => format!("{:.1} MiB", b / 1_048_576.0),
    }
}

/// `0.4 ms`, `12 ms`, `1.25 s`.
pub fn round_trip(rtt: Duration) -> String {
    let ms = rtt.as_secs_f64() * 1_000.0;
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else if ms < 1_000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.2} s", ms / 1_000.0)
    }
}

/// `HH:MM:SS.mmm`, UTC (as the trace file's times).
pub fn clock(at: SystemTime) -> String {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs() % 86_400;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60,
        since.subsec_millis()
    )
}

/// Writes `entries` as JSON lines (the `--trace` format) to a new file
/// `wire-YYYYMMDD-HHMMSS[-N].jsonl` in `dir` (created if missing), named by `now`.
pub fn export(dir: &Path, entries: &[Arc<WireEntry>], now: SystemTime) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let stamp = crate::policy::rfc3339(now);
    let stamp: String = stamp
        .chars()
        .take(19)
        .filter(char::is_ascii_digit)
        .enumerate()
        .flat_map(|(i, c)| (i == 8).then_some('-').into_iter().chain([c]))
        .collect();
    let mut text = String::new();
    for entry in entries {
        text.push_str(&to_jsonl(entry));
    }
    for n in 1..=100u32 {
        let name = if n == 1 {
            format!("wire-{stamp}.jsonl")
        } else {
            format!("wire-{stamp}-{n}.jsonl")
        };
        let path = dir.join(name);
        match crate::paths::private_file_options()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                file.write_all(text.as_bytes())?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free file name"))
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
