//! The approval broker: calls the policy says `Ask` about wait here for the person.
//!
//! The gate files an [`ApprovalRequest`] and awaits [`ApprovalBroker::request`]; the
//! caller's observer hears `GateEvent::ApprovalRequested` and the UI answers with
//! [`ApprovalBroker::decide`]. Nothing here blocks: requests wait on oneshot channels.
//! A cancelled call withdraws its request (the gate drops the future).

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;

use super::event::CallId;
use crate::policy::{Origin, ToolEffect};

/// Identifies a pending approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ApprovalId(pub u64);

impl fmt::Display for ApprovalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What an approval pane shows about a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preview {
    /// A file change as a unified diff.
    Diff {
        path: String,
        unified: String,
    },
    /// A command line.
    Command(String),
    /// An HTTP request.
    Url {
        method: String,
        url: String,
    },
    Text(String),
}

/// A call waiting for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    pub id: ApprovalId,
    /// The call waiting.
    pub call_id: CallId,
    pub run_id: String,
    pub origin: Origin,
    /// Who asked, by name: the serve client (its `clientInfo` name) for origin
    /// `serve`, the sub-agent (`[agents.NAME]`) for origin `agent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// The MCP server, or `builtin`.
    pub server: Option<String>,
    /// Qualified tool name.
    pub tool: String,
    pub effect: ToolEffect,
    pub args: Value,
    /// Why it asks: the mode or rule, as a sentence.
    pub reason: String,
    pub preview: Option<Preview>,
    /// The exact rule "always" appends to `[policy] allow`, e.g. `fs(write:docs/a.md)`.
    pub always_rule: String,
    /// What "for this session" remembers, in words.
    pub session_grant: String,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run this call.
    Once,
    /// Run it and remember the grant until exit.
    Session,
    /// Run it and append the always rule to the config.
    Always,
    /// Refuse; the reason is shown to the model.
    Deny { reason: Option<String> },
    /// Refuse and cancel the turn.
    Abort,
}

struct Pending {
    request: ApprovalRequest,
    reply: oneshot::Sender<ApprovalDecision>,
}

#[derive(Default)]
struct BrokerState {
    pending: Vec<Pending>,
}

/// Holds pending approvals until the user (or a cancel) resolves them.
pub struct ApprovalBroker {
    interactive: bool,
    next_id: AtomicU64,
    state: Mutex<BrokerState>,
}

impl fmt::Debug for ApprovalBroker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalBroker")
            .field("interactive", &self.interactive)
            .field("pending", &self.pending().len())
            .finish_non_exhaustive()
    }
}

impl ApprovalBroker {
    /// `interactive: false` (no TTY, `--non-interactive`, serve mode) makes the gate turn
    /// every `Ask` into a denial that names the rule that would allow the call.
    pub fn new(interactive: bool) -> Self {
        Self {
            interactive,
            next_id: AtomicU64::new(0),
            state: Mutex::default(),
        }
    }

    pub fn is_interactive(&self) -> bool {
        self.interactive
    }

    /// A fresh id for a request.
    pub fn next_id(&self) -> ApprovalId {
        ApprovalId(self.next_id.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Files the request now and resolves with the person's decision; `Deny` at once
    /// when not interactive. Dropping the future withdraws the request.
    pub fn request(
        &self,
        request: ApprovalRequest,
    ) -> impl Future<Output = ApprovalDecision> + Send + '_ {
        let withdraw = Withdraw {
            broker: self,
            id: request.id,
        };
        let filed = self.file(request);
        async move {
            let _withdraw = withdraw;
            match filed {
                Ok(reply) => reply.await.unwrap_or(ApprovalDecision::Abort),
                Err(decision) => decision,
            }
        }
    }

    fn file(
        &self,
        request: ApprovalRequest,
    ) -> Result<oneshot::Receiver<ApprovalDecision>, ApprovalDecision> {
        if !self.interactive {
            return Err(ApprovalDecision::Deny { reason: None });
        }
        let (reply, rx) = oneshot::channel();
        self.lock().pending.push(Pending { request, reply });
        Ok(rx)
    }

    /// Answers a pending request; false when there is none with this id.
    pub fn decide(&self, id: ApprovalId, decision: ApprovalDecision) -> bool {
        let pending = {
            let mut state = self.lock();
            let Some(i) = state.pending.iter().position(|p| p.request.id == id) else {
                return false;
            };
            state.pending.remove(i)
        };
        pending.reply.send(decision).is_ok()
    }

    /// Pending requests, oldest first.
    pub fn pending(&self) -> Vec<ApprovalRequest> {
        self.lock()
            .pending
            .iter()
            .map(|p| p.request.clone())
            .collect()
    }

    fn lock(&self) -> MutexGuard<'_, BrokerState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Removes a request that is still pending when its waiter goes away.
struct Withdraw<'a> {
    broker: &'a ApprovalBroker,
    id: ApprovalId,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        self.broker
            .lock()
            .pending
            .retain(|p| p.request.id != self.id);
    }
}
