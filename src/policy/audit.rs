//! The audit log: one JSON line per decided call, appended and flushed per line.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::audit_line::{CallHead, LineDraft};
use super::decision::Verdict;
use super::effect::ToolEffect;
use super::origin::Origin;

/// Who made the final decision about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DecidedBy {
    /// A rule, a session grant or the mode, without asking.
    Policy,
    /// The user, in an approval prompt.
    User,
    /// The context's read-only scope.
    Scope,
    /// A spent `max_calls` budget.
    Budget,
    /// A non-interactive run that could not ask.
    Headless,
    /// The tool's own limits (checked before asking): it would refuse the call anyway.
    Tool,
    /// A `[[hooks.*]]` command.
    Hook,
}

/// One line of the audit log for a call, in the line's order (written by
/// [`LineDraft`]; optional fields and empty `hooks` are left out).
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRecord {
    /// RFC 3339, UTC.
    pub time: String,
    pub run_id: String,
    /// The call's id (the model's tool-call id, or one minted for the call).
    pub call_id: String,
    pub origin: Origin,
    /// The serve client that made the call (origin `serve`).
    pub client: Option<String>,
    /// The sub-agent that made the call.
    pub agent: Option<String>,
    /// The MCP App that made the call (origin `app`).
    pub app: Option<String>,
    pub tool: String,
    pub effect: ToolEffect,
    /// `allow` when the tool ran, `deny` when it did not.
    pub decision: Verdict,
    /// The rule, grant or mode that decided (or the user's answer).
    pub rule: String,
    pub decided_by: DecidedBy,
    /// The user's answer when asked: once, session, always, deny, abort.
    pub answer: Option<String>,
    pub duration_ms: u64,
    pub is_error: bool,
    pub args_sha256: String,
    pub args: Option<Value>,
    /// What each hook that ran for the call decided (`crate::hooks::HookRecord`).
    pub hooks: Vec<Value>,
}

/// One line of the audit log for a request a server made of the person: a
/// `sampling/createMessage` or an elicitation, in either protocol generation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerRequestRecord {
    /// RFC 3339, UTC.
    pub time: String,
    /// `server_request`, or `app` for what an MCP App asked (tells these lines from
    /// tool calls).
    pub event: &'static str,
    pub server: String,
    /// `sampling` or `elicitation`.
    pub request: String,
    /// `accept`, `decline`, `cancel` (elicitation); `approve`, `reject` (the person
    /// decided a sampling request), `deny (policy)` (`sampling = "deny"`), `deny
    /// (budget)` (`[policy] max_calls.sampling` was spent; nobody was asked).
    pub outcome: String,
    /// The model that answered an approved sampling request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl ServerRequestRecord {
    pub fn now(server: &str, request: &str, outcome: &str) -> Self {
        Self {
            time: rfc3339(SystemTime::now()),
            event: "server_request",
            server: server.to_owned(),
            request: request.to_owned(),
            outcome: outcome.to_owned(),
            model: None,
        }
    }

    /// What an MCP App of `server` asked of the host (`ui/open-link`, `ui/message`,
    /// …) and what came of it; its tool calls are ordinary call lines (origin `app`).
    pub fn app(server: &str, request: &str, outcome: &str) -> Self {
        Self {
            event: "app",
            ..Self::now(server, request, outcome)
        }
    }
}

/// Could not open the audit log.
#[derive(Debug, thiserror::Error)]
#[error("cannot open audit log {path}: {source}")]
pub struct AuditOpenError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// Where records go. Disabled logs accept and drop records.
#[derive(Debug)]
pub struct AuditLog {
    file: Option<Mutex<File>>,
    record_arguments: bool,
}

impl AuditLog {
    /// A log that records nothing.
    pub fn disabled() -> Self {
        Self {
            file: None,
            record_arguments: false,
        }
    }

    /// Opens (creating it and its directory) the log at `path` for appending. The default
    /// path is [`crate::paths::Dirs::default_audit_log`].
    pub fn open(path: &Path, record_arguments: bool) -> Result<Self, AuditOpenError> {
        let open_error = |source| AuditOpenError {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(open_error)?;
        }
        let file = crate::paths::private_file_options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(open_error)?;
        Ok(Self {
            file: Some(Mutex::new(file)),
            record_arguments,
        })
    }

    pub fn is_enabled(&self) -> bool {
        self.file.is_some()
    }

    /// Whether records carry the arguments themselves.
    pub fn records_arguments(&self) -> bool {
        self.record_arguments
    }

    /// Appends one line and flushes it. Failures are logged, never fatal to the call.
    pub fn append(&self, record: &AuditRecord) {
        self.write_line(&record.line());
    }

    /// A call's line up to its result (its arguments hashed, and kept when
    /// [`AuditLog::records_arguments`]); `None` when the log is disabled. The gate
    /// drafts it while the tool runs, then [`AuditLog::finish`]es it.
    pub fn draft(&self, head: &CallHead<'_>, args: &Map<String, Value>) -> Option<LineDraft> {
        self.is_enabled()
            .then(|| LineDraft::new(head, args, self.record_arguments))
    }

    /// Ends a drafted line (the time is now) and appends it like [`AuditLog::append`].
    pub fn finish(&self, draft: &LineDraft, duration_ms: u64, is_error: bool, hooks: &[Value]) {
        let time = rfc3339(SystemTime::now());
        self.write_line(&draft.line(&time, duration_ms, is_error, hooks));
    }

    /// Appends what a server asked of the person (sampling, elicitation) and how it
    /// was answered.
    pub fn append_server_request(&self, record: &ServerRequestRecord) {
        self.write(record);
    }

    /// Appends an orchestration or agent trace line (`event` names it); the time is
    /// added. The caller keeps task text and outputs out of it unless
    /// [`AuditLog::records_arguments`].
    pub fn append_trace(&self, mut trace: Map<String, Value>) {
        trace.insert("time".into(), Value::String(rfc3339(SystemTime::now())));
        self.write(&trace);
    }

    fn write(&self, record: &impl Serialize) {
        if !self.is_enabled() {
            return;
        }
        match serde_json::to_vec(record) {
            Ok(mut line) => {
                line.push(b'\n');
                self.write_line(&line);
            }
            Err(e) => tracing::warn!("audit record not serialisable: {e}"),
        }
    }

    fn write_line(&self, line: &[u8]) {
        let Some(file) = &self.file else { return };
        let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = file.write_all(line).and_then(|()| file.flush()) {
            tracing::warn!("cannot append to the audit log: {e}");
        }
    }
}

/// Hex SHA-256 of the arguments' JSON text (serialised straight into the hash).
pub fn args_sha256(args: &Map<String, Value>) -> String {
    struct Hashing(Sha256);
    impl Write for Hashing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut hashing = Hashing(Sha256::new());
    let _ = serde_json::to_writer(&mut hashing, args);
    let digest = hashing.0.finalize();
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    hex
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Formats a time as RFC 3339 UTC with milliseconds: `2026-11-03T14:05:09.123Z`
/// (digits written in place: this runs for every call the gate decides).
pub fn rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    let mut out = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut n: u64| {
        for i in (at..at + width).rev() {
            if let Some(digit) = out.get_mut(i) {
                *digit = b'0' + u8::try_from(n % 10).unwrap_or(0);
            }
            n /= 10;
        }
    };
    put(0, 4, u64::try_from(year).unwrap_or(0));
    put(5, 2, u64::from(month));
    put(8, 2, u64::from(day));
    put(11, 2, rem / 3600);
    put(14, 2, rem % 3600 / 60);
    put(17, 2, rem % 60);
    put(20, 3, u64::from(since.subsec_millis()));
    String::from_utf8_lossy(&out).into_owned()
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(951_782_400_123); // leap day 2000
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.123Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_794_000_000);
        assert_eq!(rfc3339(t), "2026-11-06T21:20:00.000Z");
    }

    #[test]
    fn hash_is_hex_sha256() {
        let h = args_sha256(&Map::new());
        // sha256("{}")
        assert_eq!(
            h,
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
