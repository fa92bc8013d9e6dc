//! What the UI (or a headless driver) asks a session to do.

use crate::gate::{ApprovalDecision, ApprovalId};

/// Operations on a session.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Start a turn with this message (queued while another turn runs).
    UserTurn {
        text: String,
    },
    /// Answer a pending approval.
    Decide {
        id: ApprovalId,
        decision: ApprovalDecision,
    },
    /// Cancel a turn: drop its model stream; its running tool is cancelled and its
    /// pending approvals abort (the gate sees the turn's cancellation).
    Interrupt {
        run_id: String,
    },
    /// Stop waiting for servers still connecting; the turn goes on with the tools
    /// there are.
    SkipWait,
    /// Step mode: go on to the next pause.
    StepNext,
    /// Step mode: finish this turn without pausing (later turns pause again).
    StepContinue,
    ToggleStepMode,
}
