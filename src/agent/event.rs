//! What a session reports: the only way the UI (or the headless printer) hears back.
//!
//! Every event serialises to one JSON object with a `type` field (`text_delta`,
//! `tool_call_requested`, …): `switchboard run --json` prints them one a line and the
//! session store appends them to `sessions/ID.jsonl`.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::approval::{ApprovalDecision, ApprovalId, ApprovalRequest};
use super::step::StepPause;
use crate::llm::{FinishReason, ToolCall, Usage};
use crate::tools::{Origin, ToolEffect};

/// Identifies one pass through the tool gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CallId(pub u64);

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// How a call through the gate ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// The tool ran (its result may still be an error).
    Ran,
    /// Scope, budget, policy or the user refused it; the model got a refusal.
    Denied,
    /// The turn was cancelled while it waited for approval.
    Aborted,
}

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
    /// The model asked for a tool call; it goes to the gate next.
    ToolCallRequested {
        run_id: String,
        tool_call_id: String,
        tool: String,
        args: Value,
    },
    /// A call waits for the user's decision.
    ApprovalRequested(ApprovalRequest),
    /// A pending approval was answered (or aborted).
    ApprovalResolved {
        id: ApprovalId,
        decision: ApprovalDecision,
    },
    /// A call entered the gate; its effect is known.
    ToolCallStarted {
        call_id: CallId,
        run_id: String,
        tool: String,
        effect: ToolEffect,
        origin: Origin,
    },
    /// A call left the gate.
    ToolCallFinished {
        call_id: CallId,
        run_id: String,
        tool: String,
        is_error: bool,
        /// First line of the result, or the refusal.
        summary: String,
        outcome: CallOutcome,
        /// The rule, grant, mode or answer that decided.
        decided_by: String,
        /// From entering the gate to leaving it (approval wait included).
        #[serde(default)]
        duration_ms: u64,
    },
    /// What the model is given for a call (cut to `max_tool_result_chars`).
    ToolResult {
        run_id: String,
        tool_call_id: String,
        tool: String,
        is_error: bool,
        content: String,
        /// The content was cut; it ends with a marker saying so.
        truncated: bool,
    },
    /// Tokens: this request, the turn so far, the session so far.
    Usage {
        run_id: String,
        request: Usage,
        turn: Usage,
        session: Usage,
    },
    /// Step mode: the turn waits for `Op::StepNext` or `Op::StepContinue`.
    StepPaused {
        run_id: String,
        pause: StepPause,
    },
    StepModeChanged {
        on: bool,
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
}

impl AgentEvent {
    /// The turn the event belongs to, when it belongs to one.
    pub fn run_id(&self) -> Option<&str> {
        match self {
            Self::TurnStarted { run_id, .. }
            | Self::TextDelta { run_id, .. }
            | Self::ModelResponse { run_id, .. }
            | Self::ToolCallRequested { run_id, .. }
            | Self::ToolCallStarted { run_id, .. }
            | Self::ToolCallFinished { run_id, .. }
            | Self::ToolResult { run_id, .. }
            | Self::Usage { run_id, .. }
            | Self::StepPaused { run_id, .. }
            | Self::TurnDone { run_id, .. } => Some(run_id),
            Self::ApprovalRequested(r) => Some(&r.run_id),
            Self::Notice { run_id, .. } | Self::Error { run_id, .. } => run_id.as_deref(),
            Self::SessionStarted { .. }
            | Self::ApprovalResolved { .. }
            | Self::StepModeChanged { .. } => None,
        }
    }
}
