//! Tool call cards in the transcript: what the model called, with which arguments,
//! what the gate and the tool made of it.

use crate::agent::CallId;
use crate::tools::ToolEffect;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardStatus {
    /// The model asked for it; not at the gate yet.
    Requested,
    WaitingApproval,
    Running,
    Ok,
    Error,
    Denied,
    Aborted,
}

impl CardStatus {
    pub fn label(self) -> &'static str {
        match self {
            CardStatus::Requested => "requested",
            CardStatus::WaitingApproval => "waiting for approval",
            CardStatus::Running => "running",
            CardStatus::Ok => "ok",
            CardStatus::Error => "error",
            CardStatus::Denied => "denied",
            CardStatus::Aborted => "aborted",
        }
    }

    pub fn is_open(self) -> bool {
        matches!(
            self,
            CardStatus::Requested | CardStatus::WaitingApproval | CardStatus::Running
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCard {
    pub run_id: String,
    pub tool_call_id: String,
    pub tool: String,
    /// Arguments as compact JSON.
    pub args: String,
    pub effect: Option<ToolEffect>,
    pub status: CardStatus,
    /// The gate's id for the call, once it entered the gate.
    pub call_id: Option<CallId>,
    /// What the tool returned (or the refusal), in full.
    pub result: Option<String>,
    /// The model saw a shortened result.
    pub truncated: bool,
    /// Time at the gate, once the call left it.
    pub duration_ms: Option<u64>,
}

/// `850 ms`, `1.2 s`, `2 min 5 s`.
pub fn duration_text(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1_000..=59_999 => format!("{}.{} s", ms / 1000, (ms % 1000) / 100),
        _ => format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000),
    }
}

/// Result lines shown under a card.
pub const RESULT_LINES: usize = 6;
/// Argument lines shown under a card.
pub const ARG_LINES: usize = 3;
