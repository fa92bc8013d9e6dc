//! The JSON object a hook reads on stdin.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::HookEvent;

/// What a hook is told about the moment it runs. Fields that do not apply to the
/// event stay `None` and are left out of the JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct HookInput {
    pub event: HookEvent,
    pub session_id: String,
    /// The workspace.
    pub cwd: PathBuf,
    /// Tool events: the qualified tool name (`weather__get_forecast`).
    pub tool: Option<String>,
    /// Tool events: the call's arguments.
    pub arguments: Option<Value>,
    /// Tool events: `read`, `compute`, `write`, `delete` or `unknown`.
    pub effect: Option<String>,
    /// Tool events: the gate's decision so far (`allow`, `ask`, `deny`).
    pub decision: Option<String>,
    /// `post_tool_use`: the result text and whether it is an error.
    pub result: Option<String>,
    pub is_error: Option<bool>,
    /// `user_prompt_submit`: the message.
    pub prompt: Option<String>,
    /// `stop`: true when a stop hook already kept this turn going.
    pub stop_hook_active: Option<bool>,
    /// `session_start`: `startup` for a new session, `resume` for a continued one.
    pub source: Option<String>,
}

impl HookInput {
    /// An input for `event` with nothing but the session and workspace.
    pub fn new(event: HookEvent, session_id: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            event,
            session_id: session_id.into(),
            cwd: cwd.into(),
            tool: None,
            arguments: None,
            effect: None,
            decision: None,
            result: None,
            is_error: None,
            prompt: None,
            stop_hook_active: None,
            source: None,
        }
    }

    /// The same input about a tool call.
    #[must_use]
    pub fn tool_call(mut self, tool: &str, arguments: Value, effect: &str, decision: &str) -> Self {
        self.tool = Some(tool.to_owned());
        self.arguments = Some(arguments);
        self.effect = Some(effect.to_owned());
        self.decision = Some(decision.to_owned());
        self
    }

    /// The JSON sent on stdin: `event`, `session_id`, `cwd` and the fields that apply,
    /// plus the names other agents' hooks read (`hook_event_name`, `tool_name`,
    /// `tool_input`, `tool_response`), so existing scripts work unchanged.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("event".into(), json!(self.event.key()));
        out.insert("hook_event_name".into(), json!(self.event.display_name()));
        out.insert("session_id".into(), json!(self.session_id));
        out.insert("cwd".into(), json!(self.cwd.to_string_lossy()));
        let mut put = |key: &str, alias: Option<&str>, value: Option<Value>| {
            if let Some(value) = value {
                if let Some(alias) = alias {
                    out.insert(alias.into(), value.clone());
                }
                out.insert(key.into(), value);
            }
        };
        put(
            "tool",
            Some("tool_name"),
            self.tool.as_ref().map(|t| json!(t)),
        );
        put("arguments", Some("tool_input"), self.arguments.clone());
        put("effect", None, self.effect.as_ref().map(|e| json!(e)));
        put("decision", None, self.decision.as_ref().map(|d| json!(d)));
        put(
            "result",
            Some("tool_response"),
            self.result.as_ref().map(|r| json!(r)),
        );
        put("is_error", None, self.is_error.map(|e| json!(e)));
        put("prompt", None, self.prompt.as_ref().map(|p| json!(p)));
        put(
            "stop_hook_active",
            None,
            self.stop_hook_active.map(|a| json!(a)),
        );
        put("source", None, self.source.as_ref().map(|s| json!(s)));
        Value::Object(out)
    }
}
