//! A client for remote agents over A2A (Agent2Agent, <https://a2a-protocol.org>).
//!
//! - [`card`]: read `/.well-known/agent-card.json` and pick the JSON-RPC interface and
//!   protocol version it lists: **1.0** (`SendMessage`, `SendStreamingMessage`,
//!   `GetTask`, `CancelTask`, header `A2A-Version: 1.0`, ProtoJSON names such as
//!   `ROLE_USER` and `TASK_STATE_COMPLETED`) or, for older cards, **0.3**
//!   (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `kind` tags and
//!   lowercase states).
//! - [`wire`]: both versions' shapes, read into one model ([`Task`], [`TaskState`],
//!   [`Update`]).
//! - [`client`]: [`A2aClient::run`] sends a task as a user message, streams when the
//!   card says it can, follows the task to a terminal state (polling `GetTask` when
//!   the stream ends early or when the server answers before finishing) and cancels
//!   it when asked. A FAILED or REJECTED task is an [`Outcome`], not an error.

pub mod card;
pub mod client;
mod progress;
pub mod wire;

pub use card::{AgentCard, Interface, ProtocolVersion, Skill};
pub use client::{A2aAuth, A2aClient};
pub use progress::Outcome;
pub use wire::{Task, TaskState, Update};

/// Why talking to a remote agent failed (a task that failed is not an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum A2aError {
    /// Connecting, sending or reading failed.
    #[error("A2A request to {url} failed: {message}")]
    Transport { url: String, message: String },
    /// The server answered with an HTTP error status.
    #[error("A2A server at {url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    /// The server answered with a JSON-RPC error.
    #[error("A2A error {code}: {message}")]
    Rpc { code: i64, message: String },
    /// The answer or the card is not what the protocol promises.
    #[error("unreadable A2A answer: {0}")]
    Decode(String),
    /// The agent card offers nothing this client speaks.
    #[error("the agent card offers no usable interface: {0}")]
    Card(String),
    /// A configured credential is missing.
    #[error("A2A credentials: {0}")]
    Auth(String),
}
