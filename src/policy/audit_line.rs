//! How a call's audit line is laid out, in two steps: what is known before the call's
//! result (who called what, how it was decided, the arguments' hash) is serialised
//! into a [`LineDraft`] — by the gate while the tool runs — and the end (time,
//! duration, error, hooks) is put around it when the result is in.

use serde::Serialize;
use serde_json::{Map, Value};

use super::audit::{AuditRecord, DecidedBy, args_sha256};
use super::decision::Verdict;
use super::effect::ToolEffect;
use super::origin::Origin;

/// The fields of a call's line known before its result, in the line's order.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CallHead<'a> {
    pub run_id: &'a str,
    pub call_id: &'a str,
    pub origin: Origin,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<&'a str>,
    pub tool: &'a str,
    pub effect: ToolEffect,
    pub decision: Verdict,
    pub rule: &'a str,
    pub decided_by: DecidedBy,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<&'a str>,
}

/// The arguments' part of a line, after `is_error`.
#[derive(Serialize)]
struct ArgsPart<'a, A> {
    args_sha256: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<&'a A>,
}

/// A call's audit line without its end: the members of [`CallHead`] and of the
/// arguments' part, each serialised as an object whose braces [`LineDraft::line`]
/// drops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineDraft {
    head: Vec<u8>,
    args: Vec<u8>,
}

impl LineDraft {
    /// Serialises the head and hashes the arguments; `record_arguments` keeps them
    /// in the line too.
    pub fn new(head: &CallHead<'_>, args: &Map<String, Value>, record_arguments: bool) -> Self {
        let sha256 = args_sha256(args);
        Self::of(
            head,
            &ArgsPart {
                args_sha256: &sha256,
                args: record_arguments.then_some(args),
            },
        )
    }

    fn of<A: Serialize>(head: &CallHead<'_>, args: &ArgsPart<'_, A>) -> Self {
        Self {
            head: object(head),
            args: object(args),
        }
    }

    /// The whole line, newline included: `{"time":…,` the head, `duration_ms` and
    /// `is_error`, the arguments' part, and `hooks` when any ran.
    pub fn line(&self, time: &str, duration_ms: u64, is_error: bool, hooks: &[Value]) -> Vec<u8> {
        let mut line = Vec::with_capacity(self.head.len() + self.args.len() + 96);
        line.extend_from_slice(b"{\"time\":");
        let _ = serde_json::to_writer(&mut line, time);
        line.push(b',');
        line.extend_from_slice(members(&self.head));
        line.extend_from_slice(b",\"duration_ms\":");
        line.extend_from_slice(duration_ms.to_string().as_bytes());
        line.extend_from_slice(if is_error {
            b",\"is_error\":true,"
        } else {
            b",\"is_error\":false,"
        });
        line.extend_from_slice(members(&self.args));
        if !hooks.is_empty() {
            line.extend_from_slice(b",\"hooks\":");
            let _ = serde_json::to_writer(&mut line, hooks);
        }
        line.extend_from_slice(b"}\n");
        line
    }
}

impl AuditRecord {
    /// The record's line, newline included.
    pub fn line(&self) -> Vec<u8> {
        let head = CallHead {
            run_id: &self.run_id,
            call_id: &self.call_id,
            origin: self.origin,
            client: self.client.as_deref(),
            agent: self.agent.as_deref(),
            app: self.app.as_deref(),
            tool: &self.tool,
            effect: self.effect,
            decision: self.decision,
            rule: &self.rule,
            decided_by: self.decided_by,
            answer: self.answer.as_deref(),
        };
        let args = ArgsPart {
            args_sha256: &self.args_sha256,
            args: self.args.as_ref(),
        };
        LineDraft::of(&head, &args).line(&self.time, self.duration_ms, self.is_error, &self.hooks)
    }
}

/// A struct's JSON object. Serialising these plain structs of strings, numbers and
/// unit enums cannot fail; were it to, the object would be empty and the line still
/// well formed.
fn object(value: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec())
}

/// An object's members without its braces.
fn members(object: &[u8]) -> &[u8] {
    object
        .get(1..object.len().saturating_sub(1))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record() -> AuditRecord {
        AuditRecord {
            time: "2026-12-06T07:00:00.000Z".into(),
            run_id: "run-1".into(),
            call_id: "call-\"7\"".into(),
            origin: Origin::Serve,
            client: Some("editor".into()),
            agent: None,
            app: Some("weather".into()),
            tool: "fs__write_file".into(),
            effect: ToolEffect::Write,
            decision: Verdict::Allow,
            rule: "mode accept-edits".into(),
            decided_by: DecidedBy::User,
            answer: Some("once".into()),
            duration_ms: 12,
            is_error: true,
            args_sha256: args_sha256(&Map::new()),
            args: Some(json!({"path": "a\nb", "n": 1})),
            hooks: vec![json!({"command": "check", "decision": "allow"})],
        }
    }

    #[test]
    fn a_record_is_one_object_in_the_documented_order() {
        let line = record().line();
        assert_eq!(line.last(), Some(&b'\n'));
        assert_eq!(memchr::memchr(b'\n', &line), Some(line.len() - 1));
        let parsed: Map<String, Value> = serde_json::from_slice(&line).expect("one JSON object");
        let keys: Vec<&str> = parsed.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "time",
                "run_id",
                "call_id",
                "origin",
                "client",
                "app",
                "tool",
                "effect",
                "decision",
                "rule",
                "decided_by",
                "answer",
                "duration_ms",
                "is_error",
                "args_sha256",
                "args",
                "hooks"
            ]
        );
        assert_eq!(parsed["call_id"], "call-\"7\"");
        assert_eq!(parsed["origin"], "serve");
        assert_eq!(parsed["effect"], "write");
        assert_eq!(parsed["decided_by"], "user");
        assert_eq!(parsed["duration_ms"], 12);
        assert_eq!(parsed["is_error"], true);
        assert_eq!(parsed["args"], json!({"path": "a\nb", "n": 1}));
        assert_eq!(parsed["hooks"][0]["command"], "check");
    }

    #[test]
    fn optional_members_are_left_out() {
        let bare = AuditRecord {
            client: None,
            app: None,
            answer: None,
            args: None,
            hooks: Vec::new(),
            is_error: false,
            ..record()
        };
        let parsed: Map<String, Value> =
            serde_json::from_slice(&bare.line()).expect("one JSON object");
        for absent in ["client", "agent", "app", "answer", "args", "hooks"] {
            assert!(!parsed.contains_key(absent), "{absent} in {parsed:?}");
        }
        assert_eq!(parsed["is_error"], false);
        assert_eq!(parsed.len(), 12);
    }

    /// The gate drafts a line before the result and ends it after; a record of the
    /// same call gives the same bytes.
    #[test]
    fn a_draft_ended_is_the_record_line() {
        let full = record();
        let Some(Value::Object(args)) = full.args.clone() else {
            panic!("args are an object")
        };
        let head = CallHead {
            run_id: &full.run_id,
            call_id: &full.call_id,
            origin: full.origin,
            client: full.client.as_deref(),
            agent: full.agent.as_deref(),
            app: full.app.as_deref(),
            tool: &full.tool,
            effect: full.effect,
            decision: full.decision,
            rule: &full.rule,
            decided_by: full.decided_by,
            answer: full.answer.as_deref(),
        };
        let ended = |record_arguments| {
            LineDraft::new(&head, &args, record_arguments).line(
                &full.time,
                full.duration_ms,
                full.is_error,
                &full.hooks,
            )
        };
        let expected = AuditRecord {
            args_sha256: args_sha256(&args),
            ..full.clone()
        };
        assert_eq!(ended(true), expected.line());
        let unrecorded = AuditRecord {
            args: None,
            ..expected
        };
        assert_eq!(ended(false), unrecorded.line());
    }
}
