//! Driving a session without a screen: one turn, printed as the final answer or as
//! JSONL events, ending in an exit code.

use std::io::{self, Write};

use super::event::{AgentEvent, TurnEnd};
use super::op::Op;
use super::session::SessionHandle;
use crate::gate::{ApprovalDecision, ApprovalRequest, CallEnd, GateEvent};

/// Exit codes of `switchboard run`.
pub mod exit {
    pub const DONE: i32 = 0;
    pub const PROVIDER_ERROR: i32 = 2;
    /// The turn ended after a round of tool calls with a failed call in it.
    pub const TOOL_ERROR: i32 = 4;
    /// A call that needed approval was refused (or could not be asked).
    pub const APPROVAL_DENIED: i32 = 5;
    pub const MAX_STEPS: i32 = 6;
    /// A `user_prompt_submit` hook blocked the task.
    pub const PROMPT_BLOCKED: i32 = 7;
    pub const INTERRUPTED: i32 = 130;
}

/// How a headless turn went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadlessOutcome {
    pub exit_code: i32,
    pub reason: Option<TurnEnd>,
    /// The model's last answer text.
    pub answer: String,
}

/// The exit code for a finished turn.
pub fn exit_code(reason: TurnEnd, approvals_denied: u32, failed_calls: u32) -> i32 {
    match reason {
        TurnEnd::ProviderError => exit::PROVIDER_ERROR,
        TurnEnd::MaxSteps => exit::MAX_STEPS,
        TurnEnd::Interrupted => exit::INTERRUPTED,
        TurnEnd::Blocked => exit::PROMPT_BLOCKED,
        TurnEnd::Completed if approvals_denied > 0 => exit::APPROVAL_DENIED,
        TurnEnd::Completed if failed_calls > 0 => exit::TOOL_ERROR,
        TurnEnd::Completed => exit::DONE,
    }
}

/// Runs `task` as one turn. With `json`, every event goes to `out` as one JSON line;
/// otherwise the final answer goes to `out` and errors and notices to `err`.
/// `approve` answers approval requests (non-interactive sessions never ask).
pub async fn run_headless(
    mut handle: SessionHandle,
    task: String,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
    approve: &mut dyn FnMut(&ApprovalRequest) -> ApprovalDecision,
) -> io::Result<HeadlessOutcome> {
    handle.send(Op::UserTurn { text: task });
    let mut answer = String::new();
    while let Some(event) = handle.next_event().await {
        if json {
            let line = serde_json::to_string(&event).map_err(io::Error::other)?;
            writeln!(out, "{line}")?;
            out.flush()?;
        }
        match &event {
            AgentEvent::Gate(GateEvent::ApprovalRequested(request)) => {
                let decision = approve(request);
                handle.send(Op::Decide {
                    id: request.id,
                    decision,
                });
            }
            AgentEvent::ModelResponse { text, .. } => text.clone_into(&mut answer),
            AgentEvent::Error { message, .. } if !json => writeln!(err, "error: {message}")?,
            AgentEvent::Notice { message, .. } if !json => writeln!(err, "{message}")?,
            AgentEvent::ToolsLoaded { tools, .. } if !json => {
                writeln!(err, "tool_search found: {}", tools.join(", "))?;
            }
            AgentEvent::Gate(GateEvent::ToolCallFinished {
                tool,
                summary,
                outcome,
                ..
            }) if !json && *outcome != CallEnd::Ok => writeln!(err, "{tool}: {summary}")?,
            AgentEvent::TurnDone {
                reason,
                approvals_denied,
                failed_calls,
                ..
            } => {
                if !json {
                    if !answer.is_empty() {
                        writeln!(out, "{}", answer.trim_end())?;
                    }
                    out.flush()?;
                }
                return Ok(HeadlessOutcome {
                    exit_code: exit_code(*reason, *approvals_denied, *failed_calls),
                    reason: Some(*reason),
                    answer,
                });
            }
            _ => {}
        }
    }
    Ok(HeadlessOutcome {
        exit_code: exit::PROVIDER_ERROR,
        reason: None,
        answer,
    })
}
