//! The gate's vocabulary, below both the tools and the agent: call ids, the events
//! of one call, rulings, approval requests and decisions, and the broker where calls
//! wait for the person. `tools::Registry::invoke` speaks it; the agent and the UI
//! listen to it.

pub mod approval;
mod event;

pub use approval::{ApprovalBroker, ApprovalDecision, ApprovalId, ApprovalRequest, Preview};
pub use event::{Answer, CallEnd, CallId, GateEvent, GateObserver, Ruling};
