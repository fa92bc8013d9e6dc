//! Agent sessions: the `Op`s the UI sends, the `AgentEvent`s it hears (the gate's
//! events wrapped), the turn loop, step mode and the session store.

mod cancel;
mod configure;
pub mod event;
pub mod exposure;
pub mod headless;
pub mod op;
mod prompt;
mod readiness;
pub mod sampling;
pub mod session;
pub mod session_hooks;
pub mod sink;
pub mod step;
pub mod store;
pub mod tool_round;
pub mod transcript;
pub mod transcript_html;
mod turn;

pub use cancel::Cancel;
pub use configure::{SessionRecipe, SessionStartError, session_options};
pub use event::{AgentEvent, McpRequest, TurnEnd};
pub use op::Op;
pub use prompt::builtin_system_prompt;
pub use readiness::Readiness;
pub use session::{Delegation, Session, SessionHandle, SessionOptions, resume};
pub use sink::{EventSink, SinkObserver};
pub use step::StepPause;
pub use store::{LoadedSession, SessionStore, SessionSummary, StoreError, StoredEvent};
pub use turn::declarations;
