//! What the UI (or a headless driver) asks a session to do.

use super::approval::{ApprovalDecision, ApprovalId};
use crate::policy::GrantId;

/// Operations on a session. Later work adds user turns and stepping.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Answer a pending approval.
    Decide {
        id: ApprovalId,
        decision: ApprovalDecision,
    },
    /// Cancel a turn: its pending approvals resolve as aborted.
    Interrupt { run_id: String },
    /// Forget a session grant.
    RevokeGrant { id: GrantId },
}
