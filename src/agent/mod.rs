//! Agent sessions: the `Op`s the UI sends, the `AgentEvent`s it hears, the turn loop,
//! step mode, the session store, and the approval broker between the tool gate and
//! the user.

pub mod approval;
mod cancel;
mod configure;
pub mod event;
pub mod headless;
pub mod op;
mod prompt;
pub mod session;
mod sink;
pub mod step;
pub mod store;
pub mod tool_round;
pub mod transcript;
mod turn;

pub use approval::{ApprovalBroker, ApprovalDecision, ApprovalId, ApprovalRequest, Preview};
pub use cancel::Cancel;
pub use configure::{SessionRecipe, session_options};
pub use event::{AgentEvent, CallId, CallOutcome, TurnEnd};
pub use op::Op;
pub use prompt::builtin_system_prompt;
pub use session::{Session, SessionHandle, SessionOptions, resume};
pub use step::StepPause;
pub use store::{LoadedSession, SessionStore, SessionSummary, StoreError, StoredEvent};
pub use turn::declarations;
