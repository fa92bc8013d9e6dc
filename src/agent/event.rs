//! What a session reports: the only way the UI (or the headless printer) hears back.

use std::fmt;

use super::approval::{ApprovalDecision, ApprovalId, ApprovalRequest};
use crate::tools::{Origin, ToolEffect};

/// Identifies one pass through the tool gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallId(pub u64);

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// How a call through the gate ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome {
    /// The tool ran (its result may still be an error).
    Ran,
    /// Scope, budget, policy or the user refused it; the model got a refusal.
    Denied,
    /// The turn was cancelled while it waited for approval.
    Aborted,
}

/// Events of a session. Later work adds text deltas, usage, server status, turn end.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
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
    },
}
