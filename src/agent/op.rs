//! What the UI (or a headless driver) asks a session to do.

use super::approval::{ApprovalDecision, ApprovalId};
use crate::policy::GrantId;

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
    /// Cancel a turn: drop its model stream, cancel its running tool, resolve its
    /// pending approvals as aborted.
    Interrupt {
        run_id: String,
    },
    /// Cancel whatever turn is running.
    InterruptCurrent,
    /// Forget a session grant.
    RevokeGrant {
        id: GrantId,
    },
    /// Step mode: go on to the next pause.
    StepNext,
    /// Step mode: turn it off and let the turn run.
    StepContinue,
    /// Step mode on or off.
    SetStepMode {
        on: bool,
    },
    ToggleStepMode,
}
