//! What a session reports: the only way the UI (or the headless printer) hears back.
//!
//! Every event serialises to one JSON object with a `type` field (`text_delta`,
//! `tool_call_requested`, …): `switchboard run --json` prints them one a line and the
//! session store appends them to `sessions/ID.jsonl`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::step::StepPause;
use crate::gate::{CallEnd, CallId, GateEvent};
use crate::llm::{FinishReason, ToolCall, Usage};
use crate::policy::Origin;

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model answered without asking for more tools.
    Completed,
    /// The user interrupted (or aborted an approval).
    Interrupted,
    /// `max_steps` model requests were made; a `Notice` says so.
    MaxSteps,
    /// The provider failed; an `Error` event carries the message.
    ProviderError,
    /// A `user_prompt_submit` hook blocked the message; an `Error` event says why.
    /// The message never reached the model.
    Blocked,
}

/// Events of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// The session is ready (first event of a session and of its JSONL file).
    SessionStarted {
        session_id: String,
        provider: String,
        model: String,
        step_mode: bool,
        /// The directory the session works in (`--continue` takes the latest of it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        workspace: Option<String>,
        /// The provider kind and context window the tools are weighed against.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tools: Option<super::exposure::ToolBudget>,
    },
    /// A user turn begins; `run_id` names it in every later event of the turn.
    TurnStarted {
        run_id: String,
        text: String,
    },
    /// A piece of the model's answer.
    TextDelta {
        run_id: String,
        text: String,
    },
    /// One model request finished: the whole answer of this step.
    ModelResponse {
        run_id: String,
        step: u32,
        text: String,
        tool_calls: Vec<ToolCall>,
        finish: Option<FinishReason>,
    },
    /// A tool call was asked for (by the model, or by the person with `/call` or a
    /// form); it goes to the gate next. `tool_call_id` is its [`CallId`] in every
    /// later event.
    ToolCallRequested {
        run_id: String,
        #[serde(rename = "tool_call_id")]
        call_id: CallId,
        tool: String,
        args: Value,
        #[serde(default = "model_origin")]
        origin: Origin,
    },
    /// What the caller is given for a call: for the model, cut to
    /// `max_tool_result_chars`; for the person, the whole text.
    ToolResult {
        run_id: String,
        #[serde(rename = "tool_call_id")]
        call_id: CallId,
        tool: String,
        is_error: bool,
        content: String,
        /// The content was cut; it ends with a marker saying so.
        truncated: bool,
        /// How the call ended (`aborted` for calls an interrupt kept from running).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<CallEnd>,
        /// The tool's structured content as it came (`switchboard replay` compares it
        /// field by field); left out when there was none, or, for the model's calls,
        /// when it is longer than the text the model may get.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        structured: Option<Value>,
    },
    /// The person asked a server for something that is not a tool call: `/read
    /// SERVER URI` or `/prompt SERVER NAME …`.
    RequestStarted {
        run_id: String,
        call_id: CallId,
        /// `read weather file:///a`, `prompt weather forecast`.
        label: String,
        /// What was asked, to ask it again (`switchboard replay`); none for a run of
        /// agents (and in sessions saved before it was recorded).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<McpRequest>,
    },
    RequestFinished {
        run_id: String,
        call_id: CallId,
        outcome: CallEnd,
        /// What it returned, or why not, in full.
        text: String,
        duration_ms: u64,
    },
    /// Tokens: this request, the turn so far, the session so far.
    Usage {
        run_id: String,
        request: Usage,
        turn: Usage,
        session: Usage,
    },
    /// The turn waits for servers still connecting before its first model request
    /// (`Op::SkipWait` goes on without them).
    WaitingForServers {
        run_id: String,
        servers: Vec<String>,
    },
    /// Step mode: the turn waits for `Op::StepNext` or `Op::StepContinue`.
    StepPaused {
        run_id: String,
        pause: StepPause,
    },
    StepModeChanged {
        on: bool,
    },
    /// What the next model request declares, sent when it differs from the last
    /// request's: how many tools and their estimated tokens, against every tool the
    /// model could use and the context window; `search` when tool search is on.
    ToolsOffered {
        run_id: String,
        report: super::exposure::OfferReport,
    },
    /// `tool_search` found tools not found before in this conversation: they are
    /// declared from the next request on.
    ToolsLoaded {
        run_id: String,
        call_id: CallId,
        tools: Vec<String>,
    },
    /// What a session hook added for the model: `user_prompt_submit` context (part of
    /// the user's message) or a `stop` hook's reason to go on (a new user message).
    HookNote {
        run_id: String,
        /// The hook event: `user_prompt_submit` or `stop`.
        hook: String,
        text: String,
    },
    /// Something the user should read (max steps reached, a result cut).
    Notice {
        run_id: Option<String>,
        message: String,
    },
    Error {
        run_id: Option<String>,
        message: String,
    },
    /// The turn is over.
    TurnDone {
        run_id: String,
        reason: TurnEnd,
        /// Model requests made.
        steps: u32,
        usage: Usage,
        /// Calls the user (or a non-interactive run) refused.
        approvals_denied: u32,
        /// Failed calls in the last round of tool calls.
        failed_calls: u32,
    },
    /// What the gate reported about a call (serialised with the gate event's own
    /// `type`: `tool_call_started`, `approval_requested`, …).
    #[serde(untagged)]
    Gate(GateEvent),
}

/// A request the person made of a server that is not a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum McpRequest {
    /// `/read SERVER URI`.
    Read { server: String, uri: String },
    /// `/prompt SERVER NAME key=value …`.
    Prompt {
        server: String,
        name: String,
        #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
        args: serde_json::Map<String, Value>,
    },
}

impl McpRequest {
    /// The server asked.
    pub fn server(&self) -> &str {
        match self {
            Self::Read { server, .. } | Self::Prompt { server, .. } => server,
        }
    }
}

fn model_origin() -> Origin {
    Origin::Model
}

impl AgentEvent {
    /// The turn the event belongs to, when it belongs to one.
    pub fn run_id(&self) -> Option<&str> {
        match self {
            Self::TurnStarted { run_id, .. }
            | Self::TextDelta { run_id, .. }
            | Self::ModelResponse { run_id, .. }
            | Self::ToolCallRequested { run_id, .. }
            | Self::ToolResult { run_id, .. }
            | Self::RequestStarted { run_id, .. }
            | Self::RequestFinished { run_id, .. }
            | Self::Usage { run_id, .. }
            | Self::StepPaused { run_id, .. }
            | Self::WaitingForServers { run_id, .. }
            | Self::HookNote { run_id, .. }
            | Self::ToolsOffered { run_id, .. }
            | Self::ToolsLoaded { run_id, .. }
            | Self::TurnDone { run_id, .. } => Some(run_id),
            Self::Gate(event) => Some(event.run_id()),
            Self::Notice { run_id, .. } | Self::Error { run_id, .. } => run_id.as_deref(),
            Self::SessionStarted { .. } | Self::StepModeChanged { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn results_keep_structured_content_and_requests_what_they_asked() {
        let result = AgentEvent::ToolResult {
            run_id: "r".into(),
            call_id: CallId::new("c1"),
            tool: "demo__add".into(),
            is_error: false,
            content: "{\"sum\":3}".into(),
            truncated: false,
            outcome: Some(CallEnd::Ok),
            structured: Some(json!({"sum": 3})),
        };
        let line = serde_json::to_value(&result).unwrap_or_default();
        assert_eq!(line["structured"], json!({"sum": 3}));
        let started = AgentEvent::RequestStarted {
            run_id: "r".into(),
            call_id: CallId::new("manual-1"),
            label: "prompt demo greet".into(),
            request: Some(McpRequest::Prompt {
                server: "demo".into(),
                name: "greet".into(),
                args: json!({"name": "Ada"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            }),
        };
        let line = serde_json::to_value(&started).unwrap_or_default();
        assert_eq!(
            line["request"],
            json!({"kind": "prompt", "server": "demo", "name": "greet", "args": {"name": "Ada"}})
        );
        for event in [result, started] {
            let line = serde_json::to_string(&event).unwrap_or_default();
            assert_eq!(serde_json::from_str::<AgentEvent>(&line).ok(), Some(event));
        }
        // Lines written before these were recorded still read.
        let old: AgentEvent = serde_json::from_value(json!({"type": "request_started",
            "run_id": "r", "call_id": "manual-1", "label": "read demo test://a"}))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            old,
            AgentEvent::RequestStarted { request: None, .. }
        ));
    }
}
