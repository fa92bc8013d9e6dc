//! A2A messages, tasks and stream events in both protocol versions, read into one
//! model. 1.0 (ProtoJSON): `{"task": …}` | `{"message": …}` | `{"statusUpdate": …}` |
//! `{"artifactUpdate": …}`, states `TASK_STATE_*`, roles `ROLE_*`, parts `{text}`.
//! 0.3: objects tagged with `kind` (`task`, `message`, `status-update`,
//! `artifact-update`), lowercase states, roles `user`/`agent`, parts `{kind, text}`.

use serde_json::{Value, json};

use super::A2aError;
use super::card::ProtocolVersion;

/// The state of a remote task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskState {
    Submitted,
    Working,
    InputRequired,
    AuthRequired,
    Completed,
    Failed,
    Canceled,
    Rejected,
    /// A state this client does not know, verbatim.
    Unknown(String),
}

impl TaskState {
    /// Reads `TASK_STATE_INPUT_REQUIRED` (1.0) or `input-required` (0.3).
    pub fn parse(text: &str) -> Self {
        let plain = text
            .strip_prefix("TASK_STATE_")
            .unwrap_or(text)
            .to_ascii_lowercase()
            .replace('_', "-");
        match plain.as_str() {
            "submitted" => Self::Submitted,
            "working" => Self::Working,
            "input-required" => Self::InputRequired,
            "auth-required" => Self::AuthRequired,
            "completed" => Self::Completed,
            "failed" => Self::Failed,
            "canceled" | "cancelled" => Self::Canceled,
            "rejected" => Self::Rejected,
            _ => Self::Unknown(text.to_owned()),
        }
    }

    /// The task is over: completed, failed, canceled or rejected.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Failed | Self::Canceled | Self::Rejected
        )
    }

    /// The task waits for the user (input or authentication); it will not go on alone.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Submitted => "submitted",
            Self::Working => "working",
            Self::InputRequired => "input-required",
            Self::AuthRequired => "auth-required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Canceled => "canceled",
            Self::Rejected => "rejected",
            Self::Unknown(s) => s,
        }
    }
}

/// A task as the server reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub id: String,
    pub context_id: Option<String>,
    pub state: TaskState,
    /// The text of the status message (why it failed, what input it needs…).
    pub status_text: String,
    /// The text of all artifacts, one per line group.
    pub artifacts_text: String,
}

/// One thing the server said about a task (an answer or a stream event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    Task(Task),
    /// A direct reply without a task.
    Message(String),
    Status {
        task_id: String,
        state: TaskState,
        text: String,
    },
    Artifact {
        task_id: String,
        text: String,
        /// Continues the previous artifact chunk.
        append: bool,
    },
}

/// The JSON-RPC method of an operation in `version`.
pub fn method(operation: &str, version: ProtocolVersion) -> &'static str {
    match (operation, version) {
        ("send", ProtocolVersion::V1_0) => "SendMessage",
        ("stream", ProtocolVersion::V1_0) => "SendStreamingMessage",
        ("get", ProtocolVersion::V1_0) => "GetTask",
        ("cancel", ProtocolVersion::V1_0) => "CancelTask",
        ("send", ProtocolVersion::V0_3) => "message/send",
        ("stream", ProtocolVersion::V0_3) => "message/stream",
        ("get", ProtocolVersion::V0_3) => "tasks/get",
        _ => "tasks/cancel",
    }
}

/// `params` of a send: one user message with one text part.
pub fn send_params(text: &str, message_id: &str, version: ProtocolVersion) -> Value {
    let message = match version {
        ProtocolVersion::V1_0 => json!({"messageId": message_id, "role": "ROLE_USER",
            "parts": [{"text": text}]}),
        ProtocolVersion::V0_3 => json!({"kind": "message", "messageId": message_id,
            "role": "user", "parts": [{"kind": "text", "text": text}]}),
    };
    json!({"message": message})
}

/// The text of a list of parts: text parts as they are, data parts as JSON, files
/// as a `[file NAME]` placeholder.
pub fn parts_text(parts: Option<&Value>) -> String {
    let mut out: Vec<String> = Vec::new();
    for part in parts.and_then(Value::as_array).into_iter().flatten() {
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            out.push(text.to_owned());
        } else if let Some(data) = part.get("data") {
            // 1.0 puts the value in `data`; 0.3 wraps it as `{kind: "data", data}`.
            out.push(data.to_string());
        } else {
            let name = ["filename", "name"]
                .iter()
                .find_map(|k| part.get(*k).or_else(|| part.pointer(&format!("/file/{k}"))))
                .and_then(Value::as_str)
                .unwrap_or("unnamed");
            out.push(format!("[file {name}]"));
        }
    }
    out.join("")
}

fn string(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

/// Reads a task object (either version).
pub fn parse_task(v: &Value) -> Result<Task, A2aError> {
    let id = string(v, "id");
    if id.is_empty() {
        return Err(A2aError::Decode("a task without an id".into()));
    }
    let status = v.get("status").unwrap_or(&Value::Null);
    let artifacts: Vec<String> = v
        .get("artifacts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|a| parts_text(a.get("parts")))
        .filter(|t| !t.is_empty())
        .collect();
    Ok(Task {
        id,
        context_id: v
            .get("contextId")
            .and_then(Value::as_str)
            .map(str::to_owned),
        state: TaskState::parse(status.get("state").and_then(Value::as_str).unwrap_or("")),
        status_text: parts_text(status.pointer("/message/parts")),
        artifacts_text: artifacts.join("\n"),
    })
}

/// Reads a `result` (of a send, or one stream event), either version's shape.
pub fn parse_result(v: &Value) -> Result<Update, A2aError> {
    if let Some(task) = v.get("task") {
        return parse_task(task).map(Update::Task);
    }
    if let Some(message) = v.get("message") {
        return Ok(Update::Message(parts_text(message.get("parts"))));
    }
    if let Some(update) = v.get("statusUpdate") {
        return Ok(status(update));
    }
    if let Some(update) = v.get("artifactUpdate") {
        return Ok(artifact(update));
    }
    match v.get("kind").and_then(Value::as_str) {
        Some("task") => parse_task(v).map(Update::Task),
        Some("message") => Ok(Update::Message(parts_text(v.get("parts")))),
        Some("status-update") => Ok(status(v)),
        Some("artifact-update") => Ok(artifact(v)),
        _ if v.get("status").is_some() && v.get("id").is_some() => parse_task(v).map(Update::Task),
        _ => Err(A2aError::Decode(format!(
            "unknown result shape: {}",
            shorten(&v.to_string())
        ))),
    }
}

fn status(v: &Value) -> Update {
    let status = v.get("status").unwrap_or(&Value::Null);
    Update::Status {
        task_id: string(v, "taskId"),
        state: TaskState::parse(status.get("state").and_then(Value::as_str).unwrap_or("")),
        text: parts_text(status.pointer("/message/parts")),
    }
}

fn artifact(v: &Value) -> Update {
    Update::Artifact {
        task_id: string(v, "taskId"),
        text: parts_text(v.pointer("/artifact/parts")),
        append: v.get("append").and_then(Value::as_bool) == Some(true),
    }
}

fn shorten(text: &str) -> String {
    text.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_in_both_spellings() {
        assert_eq!(
            TaskState::parse("TASK_STATE_INPUT_REQUIRED"),
            TaskState::InputRequired
        );
        assert_eq!(TaskState::parse("input-required"), TaskState::InputRequired);
        assert_eq!(TaskState::parse("TASK_STATE_FAILED"), TaskState::Failed);
        assert!(TaskState::parse("canceled").is_terminal());
        assert!(!TaskState::parse("TASK_STATE_WORKING").is_terminal());
        assert_eq!(TaskState::parse("odd"), TaskState::Unknown("odd".into()));
    }

    #[test]
    fn results_in_both_versions() {
        let v1 = json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_FAILED",
            "message": {"role": "ROLE_AGENT", "parts": [{"text": "no "}, {"text": "luck"}]}},
            "artifacts": [{"artifactId": "a", "parts": [{"data": {"n": 1}}]}]}});
        let Update::Task(t) = parse_result(&v1).unwrap() else {
            panic!()
        };
        assert_eq!(
            (t.state, t.status_text.as_str(), t.artifacts_text.as_str()),
            (TaskState::Failed, "no luck", r#"{"n":1}"#)
        );
        let v03 = json!({"kind": "status-update", "taskId": "t1", "final": true,
            "status": {"state": "completed"}});
        assert_eq!(
            parse_result(&v03).unwrap(),
            Update::Status {
                task_id: "t1".into(),
                state: TaskState::Completed,
                text: String::new()
            }
        );
        let art = json!({"artifactUpdate": {"taskId": "t", "append": true, "artifact": {"parts": [{"text": "x"}]}}});
        assert_eq!(
            parse_result(&art).unwrap(),
            Update::Artifact {
                task_id: "t".into(),
                text: "x".into(),
                append: true
            }
        );
        assert!(parse_result(&json!({"what": 1})).is_err());
        assert!(parse_result(&json!({"task": {"status": {}}})).is_err());
    }
}
