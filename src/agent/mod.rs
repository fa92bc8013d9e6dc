//! Agent sessions: the `Op`s the UI sends, the `AgentEvent`s it hears, and the approval
//! broker between the tool gate and the user.

pub mod approval;
pub mod event;
pub mod op;

pub use approval::{ApprovalBroker, ApprovalDecision, ApprovalId, ApprovalRequest, Preview};
pub use event::{AgentEvent, CallId, CallOutcome};
pub use op::Op;
