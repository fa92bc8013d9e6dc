//! Call cards in the transcript: one per call (the model's or the person's tool
//! calls, reads and prompts), keyed by its `CallId`, with what the gate and the tool
//! made of it.

use crate::gate::{CallEnd, CallId};
use crate::policy::{Origin, ToolEffect};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardStatus {
    /// Asked for; not at the gate yet.
    Requested,
    WaitingApproval,
    Running,
    Ok,
    Error,
    Denied,
    Aborted,
    Cancelled,
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
            CardStatus::Cancelled => "cancelled",
        }
    }

    pub fn is_open(self) -> bool {
        matches!(
            self,
            CardStatus::Requested | CardStatus::WaitingApproval | CardStatus::Running
        )
    }

    pub fn of(end: CallEnd) -> Self {
        match end {
            CallEnd::Ok => Self::Ok,
            CallEnd::Error | CallEnd::Failed => Self::Error,
            CallEnd::Denied => Self::Denied,
            CallEnd::Aborted => Self::Aborted,
            CallEnd::Cancelled => Self::Cancelled,
        }
    }
}

/// What a card is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardKind {
    /// A tool call through the gate.
    Tool,
    /// A read or a prompt the person asked a server for.
    Request,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCard {
    pub call_id: CallId,
    pub run_id: String,
    pub kind: CardKind,
    pub origin: Origin,
    /// The tool, or what was asked (`read weather file:///a`).
    pub tool: String,
    /// Arguments as compact JSON.
    pub args: String,
    pub effect: Option<ToolEffect>,
    pub status: CardStatus,
    /// Who decided: `you (once)`, `session grant (fs write calls)`, a rule, the mode.
    pub decided: Option<String>,
    /// What the tool returned (or the refusal), in full.
    pub result: Option<String>,
    /// The tool's `structuredContent`, when it gave one (an MCP App reads it).
    pub structured: Option<serde_json::Value>,
    /// The model saw a shortened result.
    pub truncated: bool,
    /// `State::clock_ms` when the card opened (for the elapsed time while it runs).
    pub opened_ms: u64,
    /// Time at the gate, once the call left it.
    pub duration_ms: Option<u64>,
    /// The last progress a server reported, as a short text.
    pub progress: Option<String>,
    /// The sub-agent that made this call (a card nested under `agent__NAME`).
    pub agent: Option<String>,
    /// Calls the sub-agent behind this card made, in order (see `nested`).
    pub children: Vec<ToolCard>,
    /// An MCP App's calls of one tool in a row (a page that polls) share one card:
    /// how many came before this one.
    pub repeats: u32,
}

impl ToolCard {
    pub fn new(call_id: CallId, run_id: String, kind: CardKind, origin: Origin) -> Self {
        Self {
            call_id,
            run_id,
            kind,
            origin,
            tool: String::new(),
            args: String::new(),
            effect: None,
            status: CardStatus::Requested,
            decided: None,
            result: None,
            structured: None,
            truncated: false,
            opened_ms: 0,
            duration_ms: None,
            progress: None,
            agent: None,
            children: Vec::new(),
            repeats: 0,
        }
    }

    /// This card, or one nested under it, by id (the newest, should an id repeat).
    pub fn find(&self, id: &CallId) -> Option<&ToolCard> {
        if &self.call_id == id {
            return Some(self);
        }
        if !id.0.starts_with(self.call_id.0.as_str()) {
            return None;
        }
        self.children.iter().rev().find_map(|c| c.find(id))
    }

    /// This card, or one nested under it, by id (the newest, should an id repeat).
    pub fn find_mut(&mut self, id: &CallId) -> Option<&mut ToolCard> {
        if &self.call_id == id {
            return Some(self);
        }
        // Nested ids start with their parent's id.
        if !id.0.starts_with(self.call_id.0.as_str()) {
            return None;
        }
        self.children.iter_mut().rev().find_map(|c| c.find_mut(id))
    }
}

/// `850 ms`, `1.2 s`, `2 min 5 s`.
pub fn duration_text(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1_000..=59_999 => format!("{}.{} s", ms / 1000, (ms % 1000) / 100),
        _ => format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000),
    }
}

/// The spinner frame for a clock reading (one frame per 100 ms).
pub fn spinner(clock_ms: u64) -> char {
    const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let i = usize::try_from((clock_ms / 100) % 10).unwrap_or(0);
    FRAMES[i]
}

/// Result lines shown under a card.
pub const RESULT_LINES: usize = 6;
/// Argument lines shown under a card.
pub const ARG_LINES: usize = 3;
