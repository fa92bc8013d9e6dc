//! What the gate reports about one call, in order: started → (approval requested →
//! resolved) → finished. Every event carries the call's id and its run.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::approval::{ApprovalDecision, ApprovalId, ApprovalRequest};
use crate::policy::{DecidedBy, Origin, ToolEffect};

/// One call's id from request to card to session line: the model's tool-call id, or
/// one minted by whoever started the call (`manual-3`, `cli-1`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CallId(pub String);

impl CallId {
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallEnd {
    /// The tool ran and reported success.
    Ok,
    /// The tool ran and reported an error.
    Error,
    /// Scope, budget, policy or the person refused it; the model got a refusal.
    Denied,
    /// It was cancelled while waiting for approval.
    Aborted,
    /// It was cancelled while running.
    Cancelled,
    /// It could not be made (no such tool, arguments not an object).
    Failed,
}

impl CallEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Denied => "denied",
            Self::Aborted => "aborted",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
        }
    }
}

/// Who decided a call, and on what grounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ruling {
    pub by: DecidedBy,
    /// The rule, session grant or mode, as a phrase (`session grant (fs write calls)`).
    pub rule: String,
    /// The person's answer when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
}

impl Ruling {
    pub fn new(by: DecidedBy, rule: impl Into<String>) -> Self {
        Self {
            by,
            rule: rule.into(),
            answer: None,
        }
    }

    /// The person (or a non-interactive run standing in for them) refused.
    pub fn is_refusal_by_person(&self) -> bool {
        matches!(self.by, DecidedBy::User | DecidedBy::Headless)
    }

    /// For a card: `you (once)`, `session grant (fs write calls)`, `mode ask: …`.
    pub fn describe(&self) -> String {
        match (self.by, self.answer) {
            (DecidedBy::User, Some(answer)) => format!("you ({})", answer.as_str()),
            (DecidedBy::User, None) => "you".into(),
            (DecidedBy::Headless, _) => format!("non-interactive run ({})", self.rule),
            (DecidedBy::Tool, _) => "the tool's own limits".into(),
            (DecidedBy::Hook, _) => format!("hook {}", self.rule),
            _ => self.rule.clone(),
        }
    }
}

/// The person's answer at the approval pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Once,
    Session,
    Always,
    Deny,
    Abort,
}

impl Answer {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Once => "once",
            Self::Session => "for this session",
            Self::Always => "always",
            Self::Deny => "denied",
            Self::Abort => "aborted",
        }
    }

    pub fn of(decision: &ApprovalDecision) -> Self {
        match decision {
            ApprovalDecision::Once => Self::Once,
            ApprovalDecision::Session => Self::Session,
            ApprovalDecision::Always => Self::Always,
            ApprovalDecision::Deny { .. } => Self::Deny,
            ApprovalDecision::Abort => Self::Abort,
        }
    }
}

/// Events of one call at the gate. They reach the caller's [`GateObserver`] only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GateEvent {
    /// The call entered the gate; its effect is known.
    ToolCallStarted {
        call_id: CallId,
        run_id: String,
        tool: String,
        effect: ToolEffect,
        origin: Origin,
    },
    /// The call waits for the person's decision.
    ApprovalRequested(ApprovalRequest),
    /// The pending approval was answered (or aborted).
    ApprovalResolved {
        call_id: CallId,
        run_id: String,
        id: ApprovalId,
        decision: ApprovalDecision,
    },
    /// The call left the gate.
    ToolCallFinished {
        call_id: CallId,
        run_id: String,
        tool: String,
        outcome: CallEnd,
        /// Who decided (`None`: the call could not be made).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ruling: Option<Ruling>,
        /// First line of the result, or the refusal.
        summary: String,
        /// From entering the gate to leaving it (approval wait included).
        #[serde(default)]
        duration_ms: u64,
    },
}

impl GateEvent {
    pub fn call_id(&self) -> &CallId {
        match self {
            Self::ToolCallStarted { call_id, .. }
            | Self::ApprovalResolved { call_id, .. }
            | Self::ToolCallFinished { call_id, .. } => call_id,
            Self::ApprovalRequested(r) => &r.call_id,
        }
    }

    pub fn run_id(&self) -> &str {
        match self {
            Self::ToolCallStarted { run_id, .. }
            | Self::ApprovalResolved { run_id, .. }
            | Self::ToolCallFinished { run_id, .. } => run_id,
            Self::ApprovalRequested(r) => &r.run_id,
        }
    }
}

/// Hears the gate's events about the calls of one caller (a session, the TUI's
/// manual calls, a serve client). Called synchronously, in order; must not block.
pub trait GateObserver: Send + Sync {
    fn event(&self, event: GateEvent);
}

impl GateObserver for tokio::sync::mpsc::UnboundedSender<GateEvent> {
    fn event(&self, event: GateEvent) {
        let _ = self.send(event);
    }
}
